"""Knock-out (docs/rules.md T-2.3, T-4.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import (
    Result,
    advance,
    bracket,
    bracket_round,
    champion,
    rounds_to_play,
    seeding_order,
)

FAST = settings(max_examples=40, deadline=None)


def play_out(entrants: list[int], winner_rule: st.DataObject) -> list[tuple[int | None, ...]]:
    """Every round's slots of a knock-out whose matches a draw decides."""
    history = [bracket(entrants)]
    number = 1
    while champion(history[-1]) is None:
        slots = history[-1]
        played = bracket_round(number, slots)
        results = []
        for table in played.tables:
            vp = winner_rule.draw(st.sampled_from([(20, 0), (0, 20), (10, 10)]))
            mp = winner_rule.draw(st.sampled_from([(5, -5), (-5, 5), (0, 0)]))
            results.append(Result(number, table, vp, mp))
        history.append(advance(slots, results, entrants))
        number += 1
    return history


class TestBracket:
    """The bracket: standard seeding, byes to the top seeds."""

    def test_sixteen_in_standard_order(self) -> None:
        assert seeding_order(16) == (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11)

    @FAST
    @given(st.integers(2, 40))
    def test_byes_go_to_the_top_seeds(self, count: int) -> None:
        entrants = list(range(count))
        first = bracket_round(1, bracket(entrants))
        size = 1 << (count - 1).bit_length()
        assert sorted(first.byes) == list(range(size - count))
        assert sorted(first.entrants) == entrants

    @FAST
    @given(st.integers(2, 40), st.data())
    def test_one_winner_after_log2_rounds(self, count: int, data: st.DataObject) -> None:
        history = play_out(list(range(count)), data)
        assert len(history) - 1 == rounds_to_play(count)
        assert champion(history[-1]) in range(count)

    @FAST
    @given(st.integers(2, 40), st.data())
    def test_seeds_one_and_two_meet_only_in_the_final(
        self, count: int, data: st.DataObject
    ) -> None:
        for slots in play_out(list(range(count)), data)[:-2]:
            half = len(slots) // 2
            assert 0 not in slots[half:] and 1 not in slots[:half]

    def test_a_draw_goes_to_more_mp_then_the_higher_seed(self) -> None:
        entrants = [1, 2, 3, 4]
        slots = bracket(entrants)
        assert slots == (1, 4, 2, 3)
        results = [
            Result(1, (1, 4), vp=(10, 10), mp=(-3, 3)),
            Result(1, (2, 3), vp=(10, 10), mp=(0, 0)),
        ]
        assert advance(slots, results, entrants) == (4, 2)

    def test_a_missing_result_is_refused(self) -> None:
        with pytest.raises(ValueError):
            advance((1, 4, 2, 3), [Result(1, (1, 4), (20, 0), (9, -9))], [1, 2, 3, 4])


class TestWithdrawn:
    """T-4.3: a withdrawn entrant's next opponent goes through."""

    def test_next_opponent_goes_through(self) -> None:
        entrants = [1, 2, 3, 4]
        results = [
            Result(1, (1, 4), (20, 0), (30, -30)),
            Result(1, (2, 3), (0, 20), (-8, 8)),
        ]
        semifinal = advance(bracket(entrants), results, entrants)
        assert semifinal == (1, 3)
        final = bracket_round(2, semifinal, withdrawn={1})
        assert final.tables == () and final.byes == (3,)
        assert champion(advance(semifinal, [], entrants, withdrawn={1})) == 3

    def test_both_withdrawn_leave_an_empty_slot(self) -> None:
        slots = advance((1, 4, 2, 3), [], [1, 2, 3, 4], withdrawn={1, 4, 2})
        assert slots == (None, 3)
