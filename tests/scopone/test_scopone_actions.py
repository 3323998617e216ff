"""Actions and their notation: docs/rules.md SC-4.6, "Card notation", "The match log".

Illegal actions raise IllegalAction with a code and leave the match byte-identical.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import Card
from engine.errors import IllegalAction
from engine.scopone import Action, parse_action

QH, AH, JC = Card(12, "H"), Card(1, "H"), Card(11, "C")


class TestText:
    """SC-4.6: ``play C`` captures nothing, ``play C take X Y`` captures X and Y."""

    def test_play_without_capture(self) -> None:
        assert str(Action.play(Card(7, "D"))) == "play 7D"

    def test_play_with_capture(self) -> None:
        assert str(Action.play(QH, (JC, AH))) == "play QH take AH JC"

    @pytest.mark.parametrize("kind", ["abandon", "timeout", "stop"])
    def test_outside_the_turn(self, kind: str) -> None:
        assert str(Action(kind)) == kind
        assert parse_action(kind.upper()) == Action(kind)

    def test_take_order_is_canonical(self) -> None:
        assert Action.play(QH, (JC, AH)) == Action.play(QH, (AH, JC))


class TestParse:
    """Card notation: case-insensitive, suit symbols, taken cards in any order."""

    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("play 7D", "play 7D"),
            ("PLAY 7d", "play 7D"),
            ("  play   qh  take  jc ah ", "play QH take AH JC"),
            ("play Q♥ take J♣ A♥", "play QH take AH JC"),
            ("Play KS Take 3H 7C", "play KS take 3H 7C"),
        ],
    )
    def test_canonical(self, text: str, canonical: str) -> None:
        assert str(parse_action(text)) == canonical
        assert str(parse_action(canonical)) == canonical

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "play",
            "play 8H",
            "play 10H",
            "play JK",
            "play QH take",
            "play QH grab AH",
            "play QH take AH AH",
            "play QH take 9S",
            "jump",
            "abandon now",
            "play QH AH",
        ],
    )
    def test_bad_action(self, text: str) -> None:
        with pytest.raises(IllegalAction) as caught:
            parse_action(text)
        assert caught.value.code == "bad-action"

    def test_bad_values_are_value_errors(self) -> None:
        with pytest.raises(ValueError):
            Action("draw")
        with pytest.raises(ValueError):
            Action("play")
        with pytest.raises(ValueError):
            Action("stop", QH)
        with pytest.raises(ValueError):
            Action("play", QH, (AH, AH))


class TestInMatch:
    """SC-3.3, SC-3.4, SC-4.6 in a match: resolving ``play C``, and every refusal."""

    def test_play_card_alone_resolves_the_only_capture(self, position: Any) -> None:
        match = position(["QH", "2S", "3S", "4S"], "4D JS AC")
        assert str(match.play("play QH")) == "play QH take AC JS"
        assert match.history[-1].action == parse_action("play QH take JS AC")

    def test_play_card_alone_without_capture(self, position: Any) -> None:
        match = position(["6H", "2S", "3S", "4S"], "4D JS")
        assert str(match.play("play 6H")) == "play 6H"
        assert match.table[-1] == Card(6, "H")

    def test_ambiguous(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        with pytest.raises(IllegalAction, match="play QH take AH JC or play QH take 4S 5D"):
            match.play("play QH")
        rejected(match, "play QH", "capture-ambiguous")

    def test_choice_between_equal_sizes(self, position: Any) -> None:
        # SC-3.4 seed example in play: both two-card captures are legal
        for take in ("AH JC", "4S 5D"):
            match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
            assert str(match.play(f"play QH take {take}")) == f"play QH take {take}"

    def test_not_fewest(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        with pytest.raises(IllegalAction, match="must take 2 cards, not 3"):
            match.play("play QH take AH 3H 5D")
        rejected(match, "play QH take AH 3H 5D", "capture-not-fewest")

    def test_single_card_must_be_taken(self, position: Any, rejected: Any) -> None:
        match = position(["5H", "2S", "3S", "KS"], "5S 2H 3H")
        rejected(match, "play 5H take 2H 3H", "capture-not-fewest")

    def test_wrong_sum(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        rejected(match, "play QH take 3H 4S", "capture-wrong-sum")

    def test_taking_with_a_card_that_captures_nothing(self, position: Any, rejected: Any) -> None:
        match = position(["6H", "2S", "3S", "KS"], "4D JS")
        rejected(match, "play 6H take 4D", "capture-wrong-sum")

    def test_card_not_on_table(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        rejected(match, "play QH take AH JD", "card-not-on-table")

    def test_card_not_in_hand(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        rejected(match, "play QS", "card-not-in-hand")
        rejected(match, "play 3S", "card-not-in-hand")  # seat 3's card, not seat 0's

    def test_not_your_turn(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        rejected(match, "play KS", "not-your-turn", seat=3)
        rejected(match, "timeout", "not-your-turn", seat=1)

    def test_bad_text_and_bad_seat(self, position: Any, rejected: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        rejected(match, "play", "bad-action")
        rejected(match, "play QH", "bad-seat", seat=4)

    def test_play_returns_the_canonical_action(self, position: Any) -> None:
        match = position(["QH", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        applied = match.play(Action.play(QH, (JC, AH)))
        assert str(applied) == "play QH take AH JC"


class TestLegalActions:
    """SC-3: one action per card and per allowed capture, in hand order."""

    def test_listing(self, position: Any) -> None:
        match = position(["QH 5H 6C", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
        assert [str(a) for a in match.legal_actions()] == [
            "play 5H take 5D",
            "play 6C take AH 5D",
            "play QH take AH JC",
            "play QH take 4S 5D",
        ]

    def test_every_listed_action_is_accepted(self, position: Any) -> None:
        for action in position(["QH 5H 6C", "2S", "3S", "KS"], "AH 3H 4S 5D JC").legal_actions():
            match = position(["QH 5H 6C", "2S", "3S", "KS"], "AH 3H 4S 5D JC")
            assert match.play(str(action)) == action
