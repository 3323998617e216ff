"""The Danish system (docs/rules.md T-2.4, T-4.1, T-4.3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import Result, Round, danish_round, rematches, standings

FAST = settings(max_examples=60, deadline=None)


def all_pairings(players: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every way to pair an even list."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for partner in rest:
        for others in all_pairings([p for p in rest if p != partner]):
            yield [(first, partner), *others]


def fewest_rematches(players: list[int], results: list[Result], bye_pool: list[int]) -> int:
    """The brute-force minimum of rematches, the bye taken from ``bye_pool`` when odd."""
    met = {frozenset(p) for r in results for p in combinations(r.entrants, 2)}
    byes: list[int | None] = list(bye_pool) if len(players) % 2 else [None]
    return min(
        sum(frozenset(pair) in met for pair in pairing)
        for bye in byes
        for pairing in all_pairings([p for p in players if p != bye])
    )


def run(count: int, rounds: int, data: st.DataObject) -> tuple[list[int], list[Result], Round]:
    """A Danish tournament of ``rounds`` rounds with drawn results, and the round after."""
    entrants = list(range(count))
    results: list[Result] = []
    for number in range(1, rounds + 1):
        played = danish_round(number, entrants, results)
        results.extend(played.bye_results())
        for table in played.tables:
            vp = data.draw(st.sampled_from([(20, 0), (0, 20), (10, 10)]))
            margin = data.draw(st.integers(0, 120))
            results.append(Result(number, table, vp, (margin, -margin)))
    return entrants, results, danish_round(rounds + 1, entrants, results)


class TestDanish:
    """Pairings by standing, without avoidable rematches, one bye each while possible."""

    def test_round_one_is_top_half_against_bottom_half(self) -> None:
        assert danish_round(1, [1, 2, 3, 4, 5, 6], []).tables == ((1, 4), (2, 5), (3, 6))

    def test_later_rounds_pair_by_standing(self) -> None:
        entrants = [1, 2, 3, 4]
        results = [
            Result(1, (1, 3), (20, 0), (40, -40)),
            Result(1, (2, 4), (0, 20), (-10, 10)),
        ]
        # Standing: 1 (20, 40), 4 (20, 10), 2 (0, -10), 3 (0, -40).
        assert danish_round(2, entrants, results).tables == ((1, 4), (2, 3))

    def test_a_rematch_is_skipped_for_the_next_in_standing(self) -> None:
        entrants = [1, 2, 3, 4]
        results = [
            Result(1, (1, 2), (20, 0), (40, -40)),
            Result(1, (3, 4), (20, 0), (10, -10)),
        ]
        # Standing 1, 3, 4, 2: 1 v 3 then 4 v 2.
        assert danish_round(2, entrants, results).tables == ((1, 3), (4, 2))

    @FAST
    @given(st.integers(2, 8), st.integers(0, 6), st.data())
    def test_no_avoidable_rematch(self, count: int, rounds: int, data: st.DataObject) -> None:
        entrants, results, following = run(count, rounds, data)
        byes = Counter(e for r in results if r.bye for e in r.entrants)
        fewest = min(byes[e] for e in entrants)
        pool = [e for e in entrants if byes[e] == fewest]
        assert rematches(following, results) == fewest_rematches(entrants, results, pool)

    @FAST
    @given(st.integers(2, 11), st.integers(0, 10), st.data())
    def test_one_bye_each_while_possible(
        self, count: int, rounds: int, data: st.DataObject
    ) -> None:
        entrants, results, following = run(count, rounds, data)
        byes = Counter(e for r in results if r.bye for e in r.entrants)
        byes.update(following.byes)
        assert max(byes.values(), default=0) - min(byes[e] for e in entrants) <= 1
        assert sorted(following.entrants) == entrants

    def test_bye_to_the_lowest_ranked_without_one(self) -> None:
        entrants = [1, 2, 3]
        first = danish_round(1, entrants, [])
        assert first == Round(1, ((1, 2),), (3,))
        results = [*first.bye_results(), Result(1, (1, 2), (0, 20), (-5, 5))]
        # 2 (20 VP, 5 MP) and 3 (a bye: 20 VP, 0 MP) are level on VP: MP put 2 first.
        assert [s.entrant for s in standings(entrants, results)] == [2, 3, 1]
        assert danish_round(2, entrants, results) == Round(2, ((2, 3),), (1,))

    def test_withdrawn_are_not_paired(self) -> None:
        entrants = [1, 2, 3, 4]
        results = [Result(1, (1, 3), (20, 0), (4, -4)), Result(1, (2, 4), (20, 0), (4, -4))]
        assert danish_round(2, entrants, results, withdrawn={2}) == Round(2, ((1, 4),), (3,))
