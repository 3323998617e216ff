"""A whole tournament driven by :func:`engine.tournament.next_round` from its results alone,
as the bot drives it from the store (docs/rules.md T-1 to T-4): every format ends, pairs only
entrants still in, and gives what its pairing rules promise."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import Frame, Result, next_round, rematches, winner

FAST = settings(max_examples=60, deadline=None)


def _play(frame: Frame, count: int, seed: int, withdraw: int | None = None) -> list[Result]:
    """Every round to the end, each match won by a random entrant (``withdraw``: that entrant
    withdraws after round 1)."""
    rng, seeding, results = random.Random(seed), list(range(1, count + 1)), []
    withdrawn: set[int] = set()
    while (round_ := next_round(frame, seeding, results, withdrawn)) is not None:
        assert not set(round_.entrants) & withdrawn
        results += round_.bye_results()
        for table in round_.tables:
            vp = [0] * len(table)
            vp[rng.randrange(len(table))] = 20
            results.append(Result(round_.number, table, tuple(vp), tuple(v - 10 for v in vp)))
        if round_.number == 1 and withdraw is not None:
            withdrawn.add(withdraw)
    return results


@FAST
@given(st.integers(2, 12), st.sampled_from([2, 3, 4]), st.integers(0, 10**6))
def test_a_round_robin_meets_every_pair(count: int, size: int, seed: int) -> None:
    results = _play(Frame("robin", size), count, seed)
    met = Counter(frozenset(p) for r in results if not r.bye for p in combinations(r.entrants, 2))
    assert set(met) == {frozenset(p) for p in combinations(range(1, count + 1), 2)}
    if size == 2:
        assert set(met.values()) == {1}


@FAST
@given(st.integers(2, 16), st.integers(0, 10**6))
def test_a_knockout_ends_with_one_champion(count: int, seed: int) -> None:
    frame = Frame("knockout")
    results = _play(frame, count, seed)
    seeding = list(range(1, count + 1))
    champion = winner(frame, seeding, results)
    assert champion is not None
    final = max(r.round for r in results)
    assert final == (count - 1).bit_length()
    byes = [r.entrants[0] for r in results if r.bye]
    assert sorted(byes) == list(range(1, len(byes) + 1))  # to the top seeds, in round 1
    assert all(r.round == 1 for r in results if r.bye)
    beaten = {e for r in results if not r.bye for e in r.entrants if r.vp_of(e) == 0}
    assert champion not in beaten


@FAST
@given(st.sampled_from([6, 8, 10, 12]), st.integers(1, 3), st.integers(0, 10**6))
def test_the_danish_system_plays_its_rounds_without_rematches(
    count: int, rounds: int, seed: int
) -> None:
    """With an even count of 6 or more, any two rounds leave a third without a rematch (the
    complement of two perfect matchings has one), so the Danish system finds it."""
    results = _play(Frame("danish", rounds=rounds), count, seed)
    assert max(r.round for r in results) == rounds
    tables = [frozenset(r.entrants) for r in results if not r.bye]
    assert len(tables) == len(set(tables)) == rounds * count // 2


def test_a_withdrawn_entrant_is_not_paired_again() -> None:
    for frame in (Frame("robin"), Frame("knockout"), Frame("danish", rounds=4)):
        results = _play(frame, 6, 7, withdraw=3)
        later = [e for r in results if r.round > 1 for e in r.entrants]
        assert 3 not in later


def test_rematches_counts_tables_of_entrants_who_met() -> None:
    first = Result(1, (1, 2), (20, 0), (5, -5))
    round_ = next_round(Frame("danish", rounds=2), [1, 2, 3, 4], [first])
    assert round_ is not None
    assert rematches(round_, [first]) == 0


def test_a_knockout_whose_winners_withdraw_ends_without_a_champion() -> None:
    """Round 1 of 4: 1 and 2 win, then both withdraw: nobody is left to meet in the final."""
    frame, seeding = Frame("knockout"), [1, 2, 3, 4]
    results = [Result(1, (1, 4), (20, 0), (5, -5)), Result(1, (2, 3), (20, 0), (5, -5))]
    assert next_round(frame, seeding, results, {1, 2}) is None
    assert winner(frame, seeding, results, {1, 2}) is None
    assert next_round(frame, seeding, results, {1}) is None  # 2 alone in the final: a walkover
    assert winner(frame, seeding, results, {1}) == 2
