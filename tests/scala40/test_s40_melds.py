"""Meld validity and meld values (docs/rules.md S40-4, S40-5.1, "Card notation" for jokers)."""

from __future__ import annotations

import pytest

from engine import InvalidMeld
from engine.cards import FACES
from engine.scala40 import meld_value
from engine.scala40.melds import WILD, build_meld, parse_specs, resolve


def invalid(meld: str) -> str:
    """The InvalidMeld code of an invalid meld."""
    with pytest.raises(InvalidMeld) as caught:
        meld_value(meld)
    return caught.value.code


def stands(meld: str) -> list[str]:
    """What each card of a meld stands for, in table order (``*`` for the 14th joker)."""
    shape = resolve(parse_specs(meld))
    return ["*" if face == WILD else str(FACES[face]) for face in shape.stands]


FULL_RUN = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"


class TestSeedExamples:
    """S40-5.2: the opening examples of seeds 000 and 004, meld by meld."""

    @pytest.mark.parametrize(
        ("meld", "value"),
        [
            ("9H 9S 9D", 27),
            ("10C JC QC", 30),
            ("4H 4S 4D", 12),
            ("3C 4C 5C 6C 7C", 25),
            ("10H JH QH", 30),
            ("5H 5S 5D", 15),
            ("3H 3S 3D", 9),
            ("4C 5C 6C 7C 8C", 30),
        ],
    )
    def test_values(self, meld: str, value: int) -> None:
        """S40-5.2: 27 + 30 = 57 opens, 12 + 25 = 37 does not; 30 + 15 = 45, 9 + 30 = 39."""
        assert meld_value(meld) == value


class TestRuns:
    """S40-4.1: 3 to 13 cards of one suit in consecutive order, ace low or high, no wrap."""

    @pytest.mark.parametrize(
        ("meld", "value"),
        [
            ("AH 2H 3H", 6),
            ("QH KH AH", 31),
            ("JS QS KS AS", 41),
            ("2D 3D 4D", 9),
            ("7C 8C 9C 10C", 34),
            ("5H 4H 3H", 12),
        ],
    )
    def test_valid(self, meld: str, value: int) -> None:
        """S40-4.1, S40-5.1: ace 1 before the 2, 11 after the K; figures 10."""
        assert meld_value(meld) == value

    def test_wrap_is_invalid(self) -> None:
        """S40-4.1: never wrapping, ``K A 2`` is invalid."""
        assert invalid("KH AH 2H") == "run-wraps"
        assert invalid("QH KH AH 2H") == "run-wraps"

    @pytest.mark.parametrize("length", range(3, 14))
    def test_lengths_3_to_13(self, length: int) -> None:
        """S40-4.1: 3 to 13 cards; the value is the sum of the positions."""
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"][:length]
        expected = sum([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11][:length])
        assert meld_value(" ".join(r + "S" for r in ranks)) == expected

    def test_13_cards_both_ways(self) -> None:
        """S40-4.1: ``A..K`` (85) and ``2..A`` (95) are the two 13-card runs."""
        assert meld_value(FULL_RUN) == 85
        assert meld_value("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH") == 95

    def test_ace_twice_is_invalid(self) -> None:
        """S40-4.1: no rank twice (the ace cannot be both low and high)."""
        assert invalid(FULL_RUN + " AH") == "run-duplicate-rank"

    def test_rank_twice_is_invalid(self) -> None:
        """S40-4.1: no rank twice, even from the two decks."""
        assert invalid("5H 6H 6H 7H") == "run-duplicate-rank"

    def test_gap_is_invalid(self) -> None:
        """S40-4.1: consecutive ranks only."""
        assert invalid("2H 3H 5H") == "run-not-consecutive"

    def test_mixed_suits_and_ranks(self) -> None:
        """S40-4: neither a run of one suit nor a set of one rank."""
        assert invalid("9H 10S JD") == "not-a-meld"
        assert invalid("9H 9S 10S") == "not-a-meld"

    def test_too_few(self) -> None:
        """S40-4.1, S40-4.2: at least 3 cards."""
        assert invalid("2H 3H") == "too-few-cards"
        assert invalid("2H") == "too-few-cards"

    def test_bad_card(self) -> None:
        """Card notation: a bad token is reported as such."""
        assert invalid("ZZ 2H 3H") == "bad-card"

    def test_written_order_does_not_matter_without_joker(self) -> None:
        """S40-4.1: naturals are placed by rank; the table order is ascending."""
        assert stands("5H 3H 4H") == ["3H", "4H", "5H"]


class TestFourteenCardRun:
    """S40-4.1 Decision: ``A..K`` may take a joker at either end as a 14th card (value 96)."""

    def test_joker_last(self) -> None:
        """S40-4.1: the 14th joker counts 11 where a value is needed: 85 + 11 = 96."""
        assert meld_value(FULL_RUN + " JK") == 96
        assert stands(FULL_RUN + " JK")[-1] == "*"

    def test_joker_first(self) -> None:
        """S40-4.1: the joker may sit first as well."""
        assert meld_value("JK " + FULL_RUN) == 96
        assert stands("JK " + FULL_RUN)[0] == "*"

    def test_joker_with_ace_high_run(self) -> None:
        """S40-4.1: ``2..K A`` plus a joker is the same complete run of 14, value 96."""
        assert meld_value("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH JK") == 96

    def test_stands_for_no_card(self) -> None:
        """S40-4.1: the 14th joker stands for no natural card (it cannot be swapped out)."""
        shape = resolve(parse_specs(FULL_RUN + " JK"))
        meld = build_meld(1, 0, shape, [*range(13, 26), 52])
        assert meld.swappable_joker() is None
        assert meld.value == 96

    def test_fifteen_cards_invalid(self) -> None:
        """S40-4.1: no run longer than 14."""
        assert invalid(FULL_RUN + " JK AH") == "run-duplicate-rank"
        assert invalid("JK " + FULL_RUN + " JK") == "too-many-jokers"


class TestSets:
    """S40-4.2: 3 or 4 cards of one rank, all of different suits, never more than 4."""

    @pytest.mark.parametrize(
        ("meld", "value"),
        [
            ("9H 9S 9D", 27),
            ("9H 9S 9D 9C", 36),
            ("AH AS AD", 33),
            ("AH AS AD AC", 44),
            ("KH KS KD", 30),
            ("JH JS JD JC", 40),
            ("2H 2S 2D", 6),
        ],
    )
    def test_valid(self, meld: str, value: int) -> None:
        """S40-5.1: ace 11 in a set, figures 10, numbers face value."""
        assert meld_value(meld) == value

    def test_duplicate_suit(self) -> None:
        """S40-4.2: all of different suits (the twin of a card does not count)."""
        assert invalid("9H 9H 9S") == "set-duplicate-suit"

    def test_five_cards(self) -> None:
        """S40-4.2: never more than 4 cards."""
        assert invalid("9H 9S 9D 9C 9H") == "set-too-many"
        assert invalid("9H 9S 9D 9C JK") == "set-too-many"


class TestJokers:
    """S40-4.1-3, "Card notation": at most one joker, standing for what its position implies
    or for what it is declared as (``JK=7H``)."""

    def test_run_joker_by_position(self) -> None:
        """Card notation: ``JK 8H 9H`` is 7H 8H 9H, value 24."""
        assert meld_value("JK 8H 9H") == 24
        assert stands("JK 8H 9H") == ["7H", "8H", "9H"]

    def test_run_joker_at_the_end(self) -> None:
        """Card notation: ``8H 9H JK`` is 8H 9H 10H, value 27."""
        assert meld_value("8H 9H JK") == 27
        assert stands("8H 9H JK") == ["8H", "9H", "10H"]

    def test_run_joker_inside(self) -> None:
        """S40-4.1: the joker may sit inside: ``8H JK 10H`` is 8H 9H 10H, value 27."""
        assert meld_value("8H JK 10H") == 27
        assert stands("8H JK 10H") == ["8H", "9H", "10H"]

    def test_run_joker_declared(self) -> None:
        """Card notation: ``JK=7H 8H 9H`` declares the joker as 7H."""
        assert meld_value("JK=7H 8H 9H") == 24
        assert meld_value("8H 9H JK=7H") == 24
        assert stands("8H 9H JK=7H") == ["7H", "8H", "9H"]

    def test_run_joker_as_high_ace(self) -> None:
        """S40-5.1: a joker is worth the card it stands for: after the K it is the ace, 11."""
        assert meld_value("QH KH JK") == 31
        assert meld_value("JK QH KH") == 30
        assert meld_value("JK=AH QH KH") == 31

    def test_run_joker_as_low_ace(self) -> None:
        """S40-5.1: as the ace before the 2 it is worth 1."""
        assert meld_value("JK=AH 2H 3H") == 6
        assert meld_value("AH 2H JK") == 6

    def test_ambiguous_position(self) -> None:
        """Card notation: ``JK=7H`` is required wherever the position is ambiguous."""
        with pytest.raises(InvalidMeld) as caught:
            meld_value("9H JK 8H")
        assert caught.value.code == "joker-ambiguous"
        assert meld_value("9H JK=10H 8H") == 27
        assert meld_value("9H JK=7H 8H") == 24

    def test_run_declaration_of_another_suit(self) -> None:
        """S40-4.1: the joker of a run stands for a card of the run's suit."""
        assert invalid("JK=7S 8H 9H") == "joker-declaration-invalid"

    def test_run_declaration_outside_the_run(self) -> None:
        """S40-4.1: a declared joker must fit the run where it is declared: the declaration is
        refused, not the run."""
        assert invalid("JK=5H 8H 9H") == "joker-declaration-invalid"

    def test_set_joker_declared(self) -> None:
        """Card notation: ``9H 9S JK=9D`` is a set of three 9s, value 27."""
        assert meld_value("9H 9S JK=9D") == 27
        assert sorted(stands("9H 9S JK=9D")) == ["9D", "9H", "9S"]

    def test_set_joker_undeclared(self) -> None:
        """Card notation: the declaration is required in a set with two suits missing."""
        assert invalid("9H 9S JK") == "joker-undeclared"

    def test_set_joker_with_one_suit_missing(self) -> None:
        """S40-4.2: with three suits present the joker can only be the fourth (36)."""
        assert meld_value("9H 9S 9D JK") == 36
        assert "9C" in stands("9H 9S 9D JK")

    def test_set_joker_bad_declaration(self) -> None:
        """S40-4.2: the joker declares a *missing* suit of the set's rank."""
        assert invalid("9H 9S JK=9H") == "joker-declaration-invalid"
        assert invalid("9H 9S JK=8D") == "joker-declaration-invalid"

    def test_set_joker_value_ace(self) -> None:
        """S40-5.1: a joker in a set of aces is worth 11."""
        assert meld_value("AH AS JK=AC") == 33

    def test_two_jokers(self) -> None:
        """S40-4.3: no meld may hold more than one joker."""
        assert invalid("JK JK 5H") == "too-many-jokers"
        assert invalid("5H 6H JK JK") == "too-many-jokers"
        assert invalid("9H 9S JK=9D JK=9C") == "too-many-jokers"

    def test_jokers_only(self) -> None:
        """S40-4.3: a meld of jokers only is impossible."""
        assert invalid("JK JK JK") == "too-many-jokers"

    def test_one_joker_cannot_fill_two_gaps(self) -> None:
        """S40-4.1: one joker fills one gap only."""
        assert invalid("2H JK 5H") == "run-not-consecutive"

    def test_declaring_a_non_joker(self) -> None:
        """Card notation: only a joker takes a declaration."""
        assert invalid("7H=8H 9H 10H") == "bad-card"


class TestRefusalsSayWhatIsWrong:
    """S40-4.3: a refusal names the real fault: a joker declared as a card the run holds, or
    one that does not continue it; an ambiguous joker is told its real choices."""

    def test_declared_as_a_card_already_in_the_run(self) -> None:
        with pytest.raises(InvalidMeld) as refused:
            meld_value("2H 3H 4H JK=4H")
        assert refused.value.code == "joker-declaration-invalid"
        assert (
            refused.value.message
            == "the joker cannot stand for 4H: that card is already in the run"
        )

    def test_declared_out_of_the_run(self) -> None:
        with pytest.raises(InvalidMeld) as refused:
            meld_value("2H 3H JK=9H")
        assert (
            refused.value.message == "the joker cannot stand for 9H: it does not continue this run"
        )

    def test_an_ambiguous_joker_is_told_its_choices(self) -> None:
        with pytest.raises(InvalidMeld) as refused:
            meld_value("5H JK 6H")
        assert refused.value.code == "joker-ambiguous"
        assert refused.value.details["choices"] == "JK=4H or JK=7H"
