"""Captures: docs/rules.md SC-3.2, SC-3.3, SC-3.4 (and capture_options, the public helper)."""

from __future__ import annotations

import pytest

from engine.cards import Card
from engine.scopone import capture_options, capture_value
from engine.scopone.captures import captures_for, table_captures
from engine.scopone.deck import to_cards


class TestCaptureValues:
    """SC-3.2: A=1, 2-7 face value, J=8, Q=9, K=10."""

    @pytest.mark.parametrize(
        ("card", "value"),
        [("AS", 1), ("2H", 2), ("5D", 5), ("7C", 7), ("JS", 8), ("QH", 9), ("KD", 10)],
    )
    def test_value(self, card: str, value: int) -> None:
        assert capture_value(to_cards(card)[0]) == value


class TestSeedExample:
    """SC-3.4 seed example: table A 3 4 5 J, a Q takes A+J or 4+5, never A+3+5."""

    def test_issue_example(self) -> None:
        assert capture_options("AH 3H 4S 5D JC", "QH") == [["AH", "JC"], ["4S", "5D"]]

    def test_three_card_sum_is_not_offered(self) -> None:
        options = capture_options("AH 3H 4S 5D JC", "QH")
        assert ["AH", "3H", "5D"] not in options
        assert all(len(option) == 2 for option in options)

    def test_any_input_order_and_form(self) -> None:
        table: list[Card | str] = [Card(11, "C"), "5d", "4♠", Card(3, "H"), "a♥"]
        assert capture_options(table, Card(12, "H")) == [["AH", "JC"], ["4S", "5D"]]


class TestFewestCards:
    """SC-3.3 and SC-3.4: the capture with the fewest cards is compulsory."""

    def test_single_card_beats_a_sum(self) -> None:
        assert capture_options("5S 2H 3H", "5H") == [["5S"]]

    def test_two_equal_cards_give_a_choice(self) -> None:
        assert capture_options("5S 5C 2H 3H", "5H") == [["5S"], ["5C"]]

    def test_sum_when_no_equal_card(self) -> None:
        assert capture_options("2H 3H 6C", "5D") == [["2H", "3H"]]

    def test_king_takes_four_cards_when_that_is_all(self) -> None:
        assert capture_options("AS 2S 3S 4S", "KH") == [["AS", "2S", "3S", "4S"]]

    def test_choices_of_the_same_size_are_all_listed(self) -> None:
        assert capture_options("AS 2S 3S 4S 6S 7S", "KH") == [["3S", "7S"], ["4S", "6S"]]

    def test_figures_capture_by_value(self) -> None:
        # J = 8 takes A + 7, Q = 9 takes a J + A, K = 10 takes a Q + A (SC-3.2)
        assert capture_options("AS 7S", "JH") == [["AS", "7S"]]
        assert capture_options("JC AS", "QH") == [["AS", "JC"]]
        assert capture_options("QC AD", "KH") == [["AD", "QC"]]


class TestNoCapture:
    """SC-3.3: when no card or sum matches, the card stays on the table."""

    def test_nothing_matches(self) -> None:
        assert capture_options("6S KH", "3H") == []

    def test_empty_table(self) -> None:
        assert capture_options("", "3H") == []

    def test_sums_above_ten_do_not_exist(self) -> None:
        assert captures_for(to_cards("KS QS"), to_cards("KH")[0]) == [(Card(13, "S"),)]


class TestTableCaptures:
    """SC-3.4: the table's capture map holds, for each value, only the fewest-card captures."""

    def test_map(self) -> None:
        found = table_captures(to_cards("AH 3H 4S 5D JC"))
        assert sorted(found) == [1, 3, 4, 5, 6, 7, 8, 9, 10]
        assert [len(option) for option in found[9]] == [2, 2]
        assert found[8] == [(Card(11, "C"),)]

    def test_every_listed_capture_adds_up(self) -> None:
        table = to_cards("AH 2H 3S 4D 5C 6S 7H")
        for value, options in table_captures(table).items():
            sizes = {len(option) for option in options}
            assert len(sizes) == 1
            assert all(sum(capture_value(c) for c in option) == value for option in options)


class TestBadInput:
    """Card notation: only the 40-card deck, each card once."""

    @pytest.mark.parametrize("table", ["8H", "10S", "JK", "AH AH", "ZZ"])
    def test_rejected(self, table: str) -> None:
        with pytest.raises(ValueError):
            capture_options(table, "QH")
