"""Round robin (docs/rules.md T-2.1, T-2.2) and withdrawals from a schedule (T-4.3)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import Round, round_robin, table_sizes, without_withdrawn

FAST = settings(max_examples=40, deadline=None)


def meetings(rounds: tuple[Round, ...]) -> Counter[frozenset[int]]:
    """How often each pair sat at one table."""
    return Counter(
        frozenset(pair) for r in rounds for table in r.tables for pair in combinations(table, 2)
    )


def assert_everyone_once_per_round(rounds: tuple[Round, ...], entrants: list[int]) -> None:
    """Each round seats every entrant exactly once, at a table or on a bye."""
    for r in rounds:
        assert sorted(r.entrants) == sorted(entrants)


class TestBerger:
    """T-2.1: tables of 2 by the circle method."""

    @FAST
    @given(st.integers(2, 24))
    def test_every_pair_meets_exactly_once(self, count: int) -> None:
        entrants = [100 + 7 * i for i in range(count)]
        rounds = round_robin(entrants)
        assert len(rounds) == count - 1 + count % 2
        assert_everyone_once_per_round(rounds, entrants)
        assert meetings(rounds) == Counter(frozenset(p) for p in combinations(entrants, 2))

    @FAST
    @given(st.integers(2, 24))
    def test_odd_counts_give_each_entrant_one_bye(self, count: int) -> None:
        rounds = round_robin(list(range(count)))
        byes = Counter(e for r in rounds for e in r.byes)
        assert byes == (Counter(range(count)) if count % 2 else Counter())

    @FAST
    @given(st.integers(2, 24))
    def test_first_seats_are_balanced(self, count: int) -> None:
        rounds = round_robin(list(range(count)))
        first = Counter(table[0] for r in rounds for table in r.tables)
        played = Counter(e for r in rounds for table in r.tables for e in table)
        for entrant in range(count):
            assert abs(2 * first[entrant] - played[entrant]) <= 1

    def test_six_entrants_follow_the_berger_table(self) -> None:
        assert [r.tables for r in round_robin([1, 2, 3, 4, 5, 6])] == [
            ((1, 6), (2, 5), (3, 4)),
            ((6, 4), (5, 3), (1, 2)),
            ((2, 6), (3, 1), (4, 5)),
            ((6, 5), (1, 4), (2, 3)),
            ((3, 6), (4, 2), (5, 1)),
        ]

    def test_refuses_too_few_or_repeated_entrants(self) -> None:
        with pytest.raises(ValueError):
            round_robin([1])
        with pytest.raises(ValueError):
            round_robin([1, 2, 1])
        with pytest.raises(ValueError):
            round_robin([1, 2, 3], table_size=5)


class TestGroups:
    """T-2.2: tables of 3 or 4, balanced, until every pair has met."""

    @FAST
    @given(st.integers(2, 16), st.sampled_from([3, 4]))
    def test_every_pair_meets_and_tables_are_balanced(self, count: int, size: int) -> None:
        entrants = list(range(count))
        rounds = round_robin(entrants, size)
        assert_everyone_once_per_round(rounds, entrants)
        assert set(meetings(rounds)) == {frozenset(p) for p in combinations(entrants, 2)}
        for r in rounds:
            sizes = [len(table) for table in r.tables]
            assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 2 and max(sizes) <= size
            assert not r.byes

    @pytest.mark.parametrize(
        ("size", "rounds"),
        [
            (3, {4: 3, 5: 3, 6: 4, 7: 5, 8: 4, 9: 4, 10: 7, 11: 8, 12: 7}),
            (4, {4: 1, 5: 3, 6: 4, 7: 3, 8: 3, 9: 4, 10: 4, 11: 5, 12: 6}),
        ],
    )
    def test_rounds_as_documented(self, size: int, rounds: dict[int, int]) -> None:
        """The table of T-2.2: a change of these counts is a change of the rules."""
        assert {n: len(round_robin(list(range(n)), size)) for n in rounds} == rounds

    def test_table_sizes(self) -> None:
        assert table_sizes(7, 3) == (3, 2, 2)
        assert table_sizes(9, 4) == (3, 3, 3)
        assert table_sizes(12, 4) == (4, 4, 4)
        assert table_sizes(3, 4) == (3,)

    def test_same_entrants_same_schedule(self) -> None:
        assert round_robin(list(range(11)), 3) == round_robin(list(range(11)), 3)


class TestWithdrawn:
    """T-4.3: a withdrawn entrant leaves the schedule; a lone opponent has a bye."""

    def test_opponent_of_a_withdrawn_entrant_has_a_bye(self) -> None:
        first = round_robin([1, 2, 3, 4])[0]
        assert without_withdrawn(first, {4}) == Round(1, ((2, 3),), (1,))

    def test_a_table_of_three_plays_on_with_two(self) -> None:
        assert without_withdrawn(Round(2, ((1, 2, 3), (4, 5))), {2}).tables == ((1, 3), (4, 5))
