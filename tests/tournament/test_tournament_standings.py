"""Standings (docs/rules.md T-3, T-4.1): VP, then MP, then the result among the tied."""

from __future__ import annotations

from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.outcome import Outcome
from engine.tournament import Result, round_robin, standings

FAST = settings(max_examples=60, deadline=None)


class TestExact:
    """Boards with known results."""

    def test_four_player_round_robin(self) -> None:
        entrants = [1, 2, 3, 4]
        outcome = {
            (1, 4): ((20, 0), (50, -50)),
            (2, 3): ((10, 10), (0, 0)),
            (4, 3): ((20, 0), (30, -30)),
            (1, 2): ((0, 20), (-20, 20)),
            (2, 4): ((0, 20), (-10, 10)),
            (3, 1): ((0, 20), (-25, 25)),
        }
        results = [
            Result(r.number, table, *outcome[table])
            for r in round_robin(entrants)
            for table in r.tables
        ]
        board = standings(entrants, results)
        # 1: 40 VP, 55 MP; 4: 40 VP, -10 MP; 2: 30 VP, 10 MP; 3: 10 VP, -55 MP.
        assert [(s.place, s.entrant, s.vp, s.mp) for s in board] == [
            (1, 1, 40, 55),
            (2, 4, 40, -10),
            (3, 2, 30, 10),
            (4, 3, 10, -55),
        ]
        assert [(s.played, s.won, s.drawn, s.lost, s.byes) for s in board] == [
            (3, 2, 0, 1, 0),
            (3, 2, 0, 1, 0),
            (3, 1, 1, 1, 0),
            (3, 0, 1, 2, 0),
        ]

    def test_head_to_head_breaks_a_level_tie(self) -> None:
        entrants = [1, 2, 3]
        results = [
            Result(1, (1, 2), (0, 20), (-10, 10)),
            Result(2, (1, 3), (20, 0), (30, -30)),
            Result(3, (2, 3), (0, 20), (-20, 20)),
        ]
        # All on 20 VP; MP 1: 20, 2: -10, 3: -10. 2 and 3 are level: 3 beat 2.
        assert [s.entrant for s in standings(entrants, results)] == [1, 3, 2]

    def test_seed_is_the_last_key(self) -> None:
        results = [Result(1, (1, 2), (10, 10), (0, 0)), Result(1, (3, 4), (10, 10), (0, 0))]
        assert [s.entrant for s in standings([4, 3, 2, 1], results)] == [4, 3, 2, 1]

    def test_a_bye_is_a_win_in_vp_and_nothing_in_mp(self) -> None:
        board = standings([1, 2, 3], [Result.bye_for(1, 3), Result(1, (1, 2), (20, 0), (9, -9))])
        line = next(s for s in board if s.entrant == 3)
        assert (line.vp, line.mp, line.byes, line.played, line.won) == (20, 0, 1, 0, 0)

    def test_withdrawn_keep_their_matches(self) -> None:
        board = standings([1, 2], [Result(1, (1, 2), (0, 20), (-9, 9))], withdrawn={2})
        assert (board[0].entrant, board[0].vp, board[0].withdrawn) == (2, 20, True)

    def test_from_outcome_reads_a_pair_once(self) -> None:
        outcome = Outcome(
            (1, 3), mp=(-40, 40, -40, 40), vp=(0, 20, 0, 20), stopped=False, hands_won=(0, 1, 0, 1)
        )
        result = Result.from_outcome(4, (7, 9, 7, 9), outcome)
        assert result == Result(4, (7, 9), (0, 20), (-40, 40))

    def test_a_stopped_match_has_no_result(self) -> None:
        stopped = Outcome(
            (), mp=(0, 0), vp=(0, 0), stopped=True, hands_won=(0, 0), reason="stopped"
        )
        with pytest.raises(ValueError):
            Result.from_outcome(1, (1, 2), stopped)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[int], list[Result]]:
    """A round robin of 2 to 8 entrants with drawn results (some rounds unplayed)."""
    count = draw(st.integers(2, 8))
    entrants = draw(st.permutations(list(range(count))))
    schedule = round_robin(entrants)
    played = draw(st.integers(0, len(schedule)))
    results: list[Result] = []
    for r in schedule[:played]:
        results.extend(r.bye_results())
        for table in r.tables:
            vp = draw(st.sampled_from([(20, 0), (0, 20), (10, 10)]))
            margin = draw(st.integers(-3, 3)) * 10
            results.append(Result(r.number, table, vp, (margin, -margin)))
    return entrants, results


class TestProperties:
    """The board is ordered by the documented keys."""

    @FAST
    @given(tournaments())
    def test_sorted_by_vp_then_mp(self, tournament: tuple[list[int], list[Result]]) -> None:
        entrants, results = tournament
        board = standings(entrants, results)
        keys = [(s.vp, s.mp) for s in board]
        assert keys == sorted(keys, reverse=True)
        assert [s.place for s in board] == list(range(1, len(entrants) + 1))
        assert sorted(s.entrant for s in board) == sorted(entrants)

    @FAST
    @given(tournaments())
    def test_head_to_head_only_among_the_tied(
        self, tournament: tuple[list[int], list[Result]]
    ) -> None:
        entrants, results = tournament
        board = standings(entrants, results)
        for upper, lower in pairwise(board):
            if (upper.vp, upper.mp) != (lower.vp, lower.mp):
                continue
            tied = {s.entrant for s in board if (s.vp, s.mp) == (upper.vp, upper.mp)}
            among = [r for r in results if not r.bye and tied.issuperset(r.entrants)]

            def head(entrant: int, among: list[Result] = among) -> tuple[int, int, int]:
                own = [r for r in among if entrant in r.entrants]
                vp = sum(r.vp_of(entrant) for r in own)
                mp = sum(r.mp_of(entrant) for r in own)
                return (-vp, -mp, entrants.index(entrant))

            assert head(upper.entrant) < head(lower.entrant)

    @FAST
    @given(tournaments())
    def test_totals_add_up(self, tournament: tuple[list[int], list[Result]]) -> None:
        entrants, results = tournament
        for s in standings(entrants, results):
            assert s.won + s.drawn + s.lost == s.played
            assert s.vp == 20 * s.won + 10 * s.drawn + 20 * s.byes
            assert s.played + s.byes == sum(s.entrant in r.entrants for r in results)
        assert sum(s.mp for s in standings(entrants, results)) == 0
        assert all(len(set(p)) == 2 for r in results for p in combinations(r.entrants, 2))
