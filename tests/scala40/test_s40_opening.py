"""Opening (apertura): docs/rules.md S40-5, with S40-3.1b (taking the discard to open)."""

from __future__ import annotations

import pytest

from engine.scala40 import Match, Options, best_opening, meld_value
from testkit.s40_helpers import faces, hand_text, legal, position, rejected

OTHER = "AD 2D 3S 6C 8S"
"""The other seat's hand in these two-player positions (never touched)."""


def to_open(hand: str, options: Options | None = None, turns: int = 1, **kw: object) -> Match:
    """Seat 0, not open, in the play phase of a turn (already drawn)."""
    return position(
        [hand, OTHER],
        options=options,
        phase="play",
        turns_done=[turns, turns],
        **kw,  # type: ignore[arg-type]
    )


class TestThreshold:
    """S40-5.2: one or more new melds worth at least 40 in total open."""

    def test_seed_000_57_opens(self) -> None:
        """S40-5.2 (seed 000): set of 9s (27) + run 10-J-Q (30) = 57 opens."""
        assert meld_value("9H 9S 9D") + meld_value("10C JC QC") == 57
        m = to_open("9H 9S 9D 10C JC QC 2S 5D")
        applied = m.play("open 9H 9S 9D | 10C JC QC")
        assert str(applied) == "open 9S 9H 9D | 10C JC QC"
        assert m.opened == [True, False]
        assert [(x.number, x.owner, x.value) for x in m.melds] == [(1, 0, 27), (2, 0, 30)]
        assert hand_text(m, 0) == "2S 5D"
        assert m.phase == "play"
        assert m.to_play == 0

    def test_seed_000_37_does_not_open(self) -> None:
        """S40-5.2 (seed 000): set of 4s (12) + run 3..7 (25) = 37 does not open."""
        assert meld_value("4H 4S 4D") + meld_value("3C 4C 5C 6C 7C") == 37
        m = to_open("4H 4S 4D 3C 4C 5C 6C 7C 9S KD")
        error = rejected(m, "open 4H 4S 4D | 3C 4C 5C 6C 7C", "opening-below-40")
        assert error.message == "37 points, 40 needed"
        assert m.opened == [False, False]
        assert m.melds == []

    def test_seed_004_45_opens(self) -> None:
        """S40-5.2 (seed 004): run 10-Q (30) + set of 5s (15) = 45 opens."""
        assert meld_value("10H JH QH") + meld_value("5H 5S 5D") == 45
        m = to_open("10H JH QH 5H 5S 5D 9C 2C")
        m.play("open 10H JH QH | 5H 5S 5D")
        assert m.opened[0]
        assert sum(x.value for x in m.melds) == 45

    def test_seed_004_39_does_not_open(self) -> None:
        """S40-5.2 (seed 004): set of 3s (9) + run 4..8 (30) = 39 does not open."""
        assert meld_value("3H 3S 3D") + meld_value("4C 5C 6C 7C 8C") == 39
        m = to_open("3H 3S 3D 4C 5C 6C 7C 8C KS KH")
        error = rejected(m, "open 3H 3S 3D | 4C 5C 6C 7C 8C", "opening-below-40")
        assert error.message == "39 points, 40 needed"

    def test_exactly_40_opens(self) -> None:
        """S40-5.2: "at least 40": a single run 10-J-Q-K (40) opens."""
        m = to_open("10C JC QC KC 2S 5D")
        m.play("open 10C JC QC KC")
        assert m.opened[0]

    def test_invalid_meld_in_opening(self) -> None:
        """S40-4: every opening meld must be valid."""
        m = to_open("9H 9S 9D 10C JC KC 2S 5D")
        rejected(m, "open 9H 9S 9D | 10C JC KC", "run-not-consecutive")

    def test_cards_must_be_held(self) -> None:
        """S40-5.2: the player lays cards from their own hand."""
        m = to_open("9H 9S 10C JC QC 2S 5D")
        rejected(m, "open 9H 9S 9D | 10C JC QC", "card-not-in-hand")

    def test_not_before_drawing(self) -> None:
        """S40-3: the draw comes first."""
        m = position(["9H 9S 9D 10C JC QC 2S 5D", OTHER], turns_done=[1, 1])
        rejected(m, "open 9H 9S 9D | 10C JC QC", "draw-first")

    def test_opening_is_listed_by_the_generator(self) -> None:
        """S40-5: the solver's best opening is offered among the legal actions."""
        m = to_open("9H 9S 9D 10C JC QC 2S 5D")
        assert legal(m) == [
            "open 9S 9H 9D | 10C JC QC",
            "discard 2S",
            "discard 9S",
            "discard 9H",
            "discard 5D",
            "discard 9D",
            "discard 10C",
            "discard JC",
            "discard QC",
        ]


class TestOnlyNewMelds:
    """S40-5.3, S40-6.3: only new melds count; a player who is not open may not attach."""

    def test_attach_before_opening(self) -> None:
        """S40-6.3: a player who is not open may not attach."""
        m = to_open("7S 9H 9S 9D 2C", melds=[(1, "4S 5S 6S")], opened=[False, True])
        rejected(m, "attach 1 7S", "not-open")

    def test_meld_before_opening(self) -> None:
        """S40-5.2: before opening, melds are laid only as an opening of 40."""
        m = to_open("9H 9S 9D 2C KD")
        rejected(m, "meld 9H 9S 9D", "not-open")

    def test_swap_before_opening(self) -> None:
        """S40-7.1: only an open player swaps a joker."""
        m = to_open("7H 2C 3C 4C KD", melds=[(1, "6H JK 8H")], opened=[False, True])
        rejected(m, "swap 1 7H meld JK 3C 4C", "not-open")

    def test_attachments_do_not_complete_an_opening(self) -> None:
        """S40-5.3: 37 of new melds plus cards that would attach (7S to 4S 5S 6S) still
        do not open."""
        m = to_open(
            "4H 4S 4D 3C 4C 5C 6C 7C 7S 8S KD", melds=[(1, "4S 5S 6S")], opened=[False, True]
        )
        rejected(m, "open 4H 4S 4D | 3C 4C 5C 6C 7C", "opening-below-40")
        rejected(m, "open 4H 4S 4D | 3C 4C 5C 6C 7C | 7S 8S", "too-few-cards")

    def test_open_then_meld_and_attach_in_the_same_turn(self) -> None:
        """S40-5.3 Decision: once open, the player may lay further melds and attach at once."""
        m = to_open("9H 9S 9D 10C JC QC 2S 3S 4S KC 5D 7S", melds=[(1, "4S 5S 6S")])
        m.opened[1] = True
        m.play("open 9H 9S 9D | 10C JC QC")
        assert str(m.play("meld 2S 3S 4S")) == "meld 2S 3S 4S"
        assert str(m.play("attach 3 KC")) == "attach 3 KC"
        assert str(m.play("attach 1 7S")) == "attach 1 7S"
        assert [x.text() for x in m.melds] == [
            "4S 5S 6S 7S",
            "9S 9H 9D",
            "10C JC QC KC",
            "2S 3S 4S",
        ]
        assert hand_text(m, 0) == "5D"

    def test_partner_opening_does_not_open(self) -> None:
        """S40-5.3: opening is per player, also in pairs."""
        m = position(
            ["AD 2D", "3D 4D", "7S 8C 9C KD", "5D 6D"],
            options=Options(pairs=True),
            melds=[(0, "4S 5S 6S")],
            opened=[True, False, False, False],
            turns_done=[1, 1, 1, 1],
            to_play=2,
            phase="play",
        )
        rejected(m, "attach 1 7S", "not-open")


class TestOpeningOptions:
    """S40-5.5, S40-5.6: ``opening_points``, ``opening_without_joker``,
    ``close_in_hand_without_40``."""

    def test_opening_points_higher(self) -> None:
        """S40-5.5: with ``opening_points`` 51, 57 opens and 45 does not."""
        options = Options(opening_points=51)
        m = to_open("9H 9S 9D 10C JC QC 2S 5D", options)
        m.play("open 9H 9S 9D | 10C JC QC")
        assert m.opened[0]
        m = to_open("10H JH QH 5H 5S 5D 9C 2C", options)
        error = rejected(m, "open 10H JH QH | 5H 5S 5D", "opening-below-40")
        assert error.message == "45 points, 51 needed"

    def test_opening_points_lower(self) -> None:
        """S40-5.5: with ``opening_points`` 30, 30 points open."""
        m = to_open("10H JH QH 2C 7D", Options(opening_points=30))
        m.play("open 10H JH QH")
        assert m.opened[0]

    def test_joker_opening_without_the_option(self) -> None:
        """S40-5.1: by default a joker counts for the card it stands for: 27 + 30 = 57."""
        m = to_open("9H 9S JK 10C JC QC 2S 5D")
        assert str(m.play("open 9H 9S JK=9D | 10C JC QC")) == "open 9S 9H JK=9D | 10C JC QC"
        assert m.opened[0]

    def test_opening_without_joker_refuses(self) -> None:
        """S40-5.5: with ``opening_without_joker``, jokers help only once the joker-free
        melds reach the threshold: 30 joker-free is not enough."""
        m = to_open("9H 9S JK 10C JC QC 2S 5D", Options(opening_without_joker=True))
        rejected(m, "open 9H 9S JK=9D | 10C JC QC", "opening-joker")

    def test_opening_without_joker_accepts(self) -> None:
        """S40-5.5: 40 joker-free (10-J-Q-K of clubs) lets the joker set come along."""
        m = to_open("9H 9S JK 10C JC QC KC 2S 5D", Options(opening_without_joker=True))
        m.play("open 10C JC QC KC | 9H 9S JK=9D")
        assert m.opened[0]
        assert [x.value for x in m.melds] == [40, 27]

    def test_opening_without_joker_in_the_generator(self) -> None:
        """S40-5.5: the offered opening respects the option (no joker set below 40 clean)."""
        m = to_open("9H 9S JK 10C JC QC 2S 5D", Options(opening_without_joker=True))
        assert not any(a.startswith("open") for a in legal(m))

    def test_close_in_hand_without_40(self) -> None:
        """S40-5.6: an opening leaving exactly one card, discarded to close, needs no 40."""
        m = to_open("2H 3H 4H 5S 5D 5C 9C", Options(close_in_hand_without_40=True))
        m.play("open 2H 3H 4H | 5S 5D 5C")
        m.play("discard 9C")
        assert m.last_hand is not None
        assert m.last_hand.closer == 0
        assert m.last_hand.in_mano

    def test_close_in_hand_without_40_needs_the_option(self) -> None:
        """S40-5.6: without the option, 24 points do not open even to close."""
        m = to_open("2H 3H 4H 5S 5D 5C 9C")
        rejected(m, "open 2H 3H 4H | 5S 5D 5C", "opening-below-40")

    def test_close_in_hand_without_40_only_when_closing(self) -> None:
        """S40-5.6: leaving two cards is no closing: the threshold applies."""
        m = to_open("2H 3H 4H 5S 5D 5C 9C 8D", Options(close_in_hand_without_40=True))
        rejected(m, "open 2H 3H 4H | 5S 5D 5C", "opening-below-40")

    def test_close_in_hand_without_40_not_in_the_first_round(self) -> None:
        """S40-5.6 with S40-9.3, S40-9.2: in the first round the last card could not be
        discarded, so the opening is refused."""
        m = to_open("2H 3H 4H 5S 5D 5C 9C", Options(close_in_hand_without_40=True), turns=0)
        rejected(m, "open 2H 3H 4H | 5S 5D 5C", "no-discard-left")


class TestSolver:
    """S40-5: ``best_opening`` finds the disjoint melds of highest total value."""

    def test_seed_000_57(self) -> None:
        """S40-5.2: 9H 9S 9D + 10C JC QC = 57 reaches 40."""
        result = best_opening("9H 9S 9D 10C JC QC 2S")
        assert result.melds == ("9S 9H 9D", "10C JC QC")
        assert (result.total, result.threshold, result.reaches) == (57, 40, True)
        assert str(result) == "9S 9H 9D | 10C JC QC"

    def test_seed_000_37(self) -> None:
        """S40-5.2: the 4C goes to the run (12 + 25 = 37), not to the set (16)."""
        result = best_opening("4H 4S 4D 3C 4C 5C 6C 7C")
        assert result.melds == ("4S 4H 4D", "3C 4C 5C 6C 7C")
        assert (result.total, result.reaches) == (37, False)

    def test_seed_004_45_and_39(self) -> None:
        """S40-5.2: 45 reaches, 39 does not."""
        assert best_opening("10H JH QH 5H 5S 5D").total == 45
        assert best_opening("10H JH QH 5H 5S 5D").reaches
        result = best_opening("3H 3S 3D 4C 5C 6C 7C 8C")
        assert (result.total, result.reaches) == (39, False)

    def test_threshold_argument(self) -> None:
        """S40-5.5: the verdict uses the given threshold."""
        result = best_opening("9H 9S 9D 10C JC QC 2S", threshold=60)
        assert (result.total, result.threshold, result.reaches) == (57, 60, False)

    def test_joker_goes_where_it_is_worth_most(self) -> None:
        """S40-5.1: the joker as the third 9 (27 + 30 = 57) beats extending the run (40)."""
        result = best_opening("JK 9H 9S 10C JC QC")
        assert result.melds == ("9S 9H JK=9D", "10C JC QC")
        assert result.total == 57

    def test_joker_completes_a_run(self) -> None:
        """S40-5.1: ``QH KH`` + joker: the joker is the high ace (31)."""
        result = best_opening("QH KH JK 2C")
        assert (result.melds, result.total) == (("QH KH JK",), 31)

    def test_nothing_to_lay(self) -> None:
        """S40-5: no meld, total 0."""
        result = best_opening("JK JK 2S 5D 9C")
        assert (result.melds, result.total, result.reaches) == ((), 0, False)

    def test_ace_low_and_high(self) -> None:
        """S40-5.1: A-2-3 is worth 6, K-K-K 30: 36."""
        assert best_opening("AH 2H 3H KS KH KD QS").total == 36
        assert best_opening("QH KH AH KS KD KC").total == 31 + 30

    def test_bad_hand(self) -> None:
        """Card notation: at most two copies of a card."""
        with pytest.raises(ValueError, match="twice"):
            best_opening("9H 9H 9H")


class TestTakeToOpen:
    """S40-3.1b: a player not yet open may take the discard only to open with it, inside an
    opening meld; the opening counts only once the card is used."""

    def take_position(self) -> Match:
        return position(
            ["9H 9S 10C JC QC KC 2S 5D 7H 8D 9D", OTHER], discard="3C 9D", turns_done=[1, 1]
        )

    def test_take_open(self) -> None:
        """S40-3.1b: the taken 9D goes into the set of 9s; 27 + 30 = 57 opens."""
        m = self.take_position()
        top = m.discard[-1]
        applied = m.play("take open 9H 9S 9D | 10C JC QC")
        assert str(applied) == "take open 9S 9H 9D | 10C JC QC"
        assert top in m.melds[0].cards  # the copy from the discard pile, not the one in hand
        assert faces(m.discard) == ["3C"]
        assert m.opened[0]
        assert m.phase == "play"
        assert hand_text(m, 0) == "2S 7H 5D 8D 9D KC"

    def test_take_open_must_use_the_card(self) -> None:
        """S40-3.1: the taken card must be inside the opening melds."""
        m = self.take_position()
        rejected(m, "take open 10C JC QC KC", "take-unused")

    def test_take_open_below_40(self) -> None:
        """S40-5.2: the opening made with the taken card must still reach 40."""
        m = self.take_position()
        rejected(m, "take open 9H 9S 9D", "opening-below-40")

    def test_take_meld_before_opening(self) -> None:
        """S40-3.1b: before opening the discard is taken only to open."""
        m = self.take_position()
        rejected(m, "take meld 9H 9S 9D", "take-not-open")
        rejected(m, "take", "take-needs-use")

    def test_take_open_when_already_open(self) -> None:
        """S40-5: an open player takes the discard with ``take meld``/``take attach``."""
        m = self.take_position()
        m.opened[0] = True
        rejected(m, "take open 9H 9S 9D | 10C JC QC", "already-open")

    def test_generator_offers_take_open(self) -> None:
        """S40-3.1b: the offered ``take open`` uses the top card (9D into the set of 9s)."""
        m = self.take_position()
        assert legal(m) == ["draw", "take open 9S 9H 9D | 10C JC QC KC"]

    def test_no_take_open_when_the_top_card_is_useless(self) -> None:
        """S40-3.1b: a 3C on top fits no opening meld: only ``draw``."""
        m = position(["9H 9S 9D 10C JC QC 2S 5D", OTHER], discard="9D 3C", turns_done=[1, 1])
        assert legal(m) == ["draw"]
