"""Discard and closing: docs/rules.md S40-8 (which card may be discarded) and S40-9 (closing, and
never being left without a legal discard)."""

from __future__ import annotations

import pytest

from engine.cards import FACES
from engine.scala40 import Match, Options
from testkit.s40_helpers import faces, hand_text, legal, position, rejected

OTHER = "AD 2D 3D 4D"


def play_phase(
    hand: str,
    melds: list[tuple[int, str]] | None = None,
    *,
    opened: bool = True,
    turns: int = 1,
    options: Options | None = None,
    **kw: object,
) -> Match:
    """Seat 0 in the play phase (already drawn); seat 1 open with ``OTHER``."""
    return position(
        [hand, OTHER],
        melds=melds or [],
        opened=[opened, True],
        turns_done=[turns, 1],
        phase=kw.pop("phase", "play"),  # type: ignore[arg-type]
        options=options,
        **kw,  # type: ignore[arg-type]
    )


def discards(m: Match) -> list[str]:
    """The cards the generator allows to discard."""
    return [a.split()[1] for a in legal(m) if a.startswith("discard")]


class TestEndOfTurn:
    """S40-8.1: exactly one card ends the turn; play passes to the left."""

    def test_discard_ends_the_turn(self) -> None:
        """S40-8.1, S40-3: the card goes on the discard pile; the next seat draws."""
        m = play_phase("2S 9H KD", discard="5C")
        assert str(m.play("discard 9h")) == "discard 9H"
        assert faces(m.discard) == ["5C", "9H"]
        assert hand_text(m, 0) == "2S KD"
        assert (m.to_play, m.phase) == (1, "draw")
        assert m.turns_done == [2, 1]

    def test_card_not_in_hand(self) -> None:
        """S40-8.1: the discard comes from the hand."""
        m = play_phase("2S 9H KD")
        rejected(m, "discard 3S", "card-not-in-hand")


class TestTakenCard:
    """S40-8.2: the card taken from the discard pile this turn cannot be discarded; its twin
    from the other deck can (scenario with Option ``free_discard_take``)."""

    def taken(self, hand: str) -> Match:
        m = play_phase(hand, phase="draw", discard="KD 5C", options=Options(free_discard_take=True))
        m.play("take")
        return m

    def test_taken_card(self) -> None:
        """S40-8.2: the taken 5C may not go straight back."""
        m = self.taken("2S 9H")
        rejected(m, "discard 5C", "discard-taken")
        assert discards(m) == ["2S", "9H"]

    def test_twin_may_be_discarded(self) -> None:
        """S40-8.2, Card notation: ``discard 5C`` discards the twin, the taken copy stays."""
        m = self.taken("5C 2S 9H")
        twin = m.hands[0][0]
        taken = m.taken
        assert discards(m) == ["2S", "9H", "5C"]
        m.play("discard 5C")
        assert m.discard[-1] == twin
        assert taken in m.hands[0]
        assert m.taken is None
        assert m.to_play == 1


class TestNotOpenRestriction:
    """S40-8.3: a player who is not open may not discard a card that could be attached to a
    meld on the table; when every card is attachable, any may be discarded."""

    def test_run_extension(self) -> None:
        """S40-8.3: 7S extends 4S 5S 6S: not discardable before opening."""
        m = play_phase("7S 9D KC", [(1, "4S 5S 6S")], opened=False)
        error = rejected(m, "discard 7S", "discard-attachable")
        assert "7S" in error.message
        assert discards(m) == ["9D", "KC"]
        m.play("discard 9D")
        assert faces(m.discard)[-1] == "9D"

    def test_low_end_and_ace(self) -> None:
        """S40-8.3: 3S at the low end, and the ace after the K, are attachable too."""
        m = play_phase("3S AH 9D", [(1, "4S 5S 6S"), (1, "JH QH KH")], opened=False)
        assert discards(m) == ["9D"]

    def test_set_of_three(self) -> None:
        """S40-8.3: 9C joins a set of three 9s."""
        m = play_phase("9C 2D 8H", [(1, "9H 9S 9D")], opened=False)
        rejected(m, "discard 9C", "discard-attachable")

    def test_full_set(self) -> None:
        """S40-8.3: a set of four takes nothing: the twin 9C may be discarded."""
        m = play_phase("9C 2D 8H", [(1, "9H 9S 9D 9C")], opened=False)
        assert discards(m) == ["8H", "2D", "9C"]

    def test_set_suit_already_there(self) -> None:
        """S40-8.3: a 9H does not join 9H 9S 9D."""
        m = play_phase("9H 2D 8C", [(1, "9H 9S 9D")], opened=False)
        assert discards(m) == ["9H", "2D", "8C"]

    def test_joker_counts(self) -> None:
        """S40-8.3 Decision: a joker counts when it could be so attached."""
        m = play_phase("JK 2D 8H", [(1, "4S 5S 6S")], opened=False)
        rejected(m, "discard JK", "discard-attachable")

    def test_joker_that_fits_nowhere(self) -> None:
        """S40-8.3: a joker cannot join a meld that already holds one."""
        m = play_phase("JK 2D 8H", [(1, "4S JK 6S")], opened=False)
        assert discards(m) == ["8H", "2D", "JK"]

    def test_replacing_a_joker_does_not_count(self) -> None:
        """S40-8.3 Decision: a card that fits only by replacing a joker is not attachable."""
        m = play_phase("5S 2D 8H", [(1, "4S JK 6S")], opened=False)
        m.play("discard 5S")
        assert faces(m.discard)[-1] == "5S"

    def test_a_full_run_with_a_joker_takes_only_the_card_it_stands_for(self) -> None:
        """S40-8.3: the 13-card run A..K of hearts with JK for 6H on the table: 6H attaches (it
        completes A..K, the joker goes to the end), the twin of a natural card (5H) does not,
        so a player who is not open may discard 5H, and not 6H."""
        run = "AH 2H 3H 4H 5H JK 7H 8H 9H 10H JH QH KH"
        m = play_phase("5H 6H 9C", [(1, run)], opened=False)
        assert discards(m) == ["5H", "9C"]
        rejected(m, "discard 6H", "discard-attachable")
        m.play("discard 5H")
        assert faces(m.discard)[-1] == "5H"

    def test_every_card_attachable(self) -> None:
        """S40-8.3: when every card the player may discard is attachable, any of them may be."""
        m = play_phase("7S 3S 9C", [(1, "4S 5S 6S"), (1, "9H 9S 9D")], opened=False)
        assert discards(m) == ["3S", "7S", "9C"]
        m.play("discard 7S")
        assert faces(m.discard)[-1] == "7S"

    def test_open_player_is_free(self) -> None:
        """S40-8.3: the restriction is for players who are not open (default)."""
        m = play_phase("7S 9D KC", [(1, "4S 5S 6S")])
        m.play("discard 7S")
        assert faces(m.discard)[-1] == "7S"


class TestStrictDiscard:
    """S40-8.3 Option ``strict_discard``: the restriction applies to open players too, except
    for the closing discard."""

    def test_open_player_restricted(self) -> None:
        """S40-8.3: with ``strict_discard`` an open player may not discard 7S either."""
        m = play_phase("7S 9D KC", [(1, "4S 5S 6S")], options=Options(strict_discard=True))
        rejected(m, "discard 7S", "discard-attachable")
        assert discards(m) == ["9D", "KC"]

    def test_closing_discard_exempt(self) -> None:
        """S40-8.3: the closing discard may be an attachable card."""
        m = play_phase("7S", [(1, "4S 5S 6S")], options=Options(strict_discard=True))
        m.play("discard 7S")
        assert m.last_hand is not None
        assert m.last_hand.closer == 0


class TestClosing:
    """S40-8.4, S40-9.1, S40-9.3: closing by discarding the last card."""

    def test_close(self) -> None:
        """S40-9.1: discarding the last card ends the hand at once; the closer scores 0."""
        m = play_phase("5H", [(0, "9H 9S 9D")])
        hand = m.hand_number
        m.play("discard 5H")
        assert m.last_hand is not None
        assert (m.last_hand.closer, m.last_hand.points) == (0, [0, 1 + 2 + 3 + 4])
        assert m.hand_number == hand + 1

    def test_no_closing_joker(self) -> None:
        """S40-8.4: the closing discard may not be a joker."""
        m = play_phase("JK", [(0, "9H 9S 9D")])
        rejected(m, "discard JK", "close-with-joker")

    def test_joker_close_doubles(self) -> None:
        """S40-8.4 Option ``joker_close_doubles``: closing with a joker is allowed and doubles
        the other players' points (AD 2D 3D 4D: 1 + 2 + 3 + 4 = 10, doubled 20)."""
        m = play_phase("JK", [(0, "9H 9S 9D")], options=Options(joker_close_doubles=True))
        m.play("discard JK")
        assert m.last_hand is not None
        assert m.last_hand.joker_close
        assert not m.last_hand.in_mano
        assert m.last_hand.points == [0, 20]

    def test_no_closing_in_the_first_round(self) -> None:
        """S40-9.3: nobody may close in their first turn."""
        m = play_phase("5H", [(0, "9H 9S 9D")], turns=0)
        rejected(m, "discard 5H", "close-first-round")

    def test_discard_in_the_first_round(self) -> None:
        """S40-9.3: the first-round restriction is on closing only."""
        m = play_phase("5H 6C", turns=0)
        m.play("discard 6C")
        assert m.to_play == 1


class TestNoDiscardLeft:
    """S40-9.2: a play is refused when it would leave the hand empty, or only cards that may
    not be discarded now (``no-discard-left``)."""

    def test_meld_every_card(self) -> None:
        """S40-9.2: a meld of the whole hand leaves nothing to discard."""
        m = play_phase("5H 6H 7H")
        rejected(m, "meld 5H 6H 7H", "no-discard-left")

    def test_attach_every_card(self) -> None:
        """S40-9.2: attaching the last card leaves nothing to discard."""
        m = play_phase("8H", [(1, "5H 6H 7H")])
        rejected(m, "attach 1 8H", "no-discard-left")

    def test_open_every_card(self) -> None:
        """S40-9.2: an opening of the whole hand leaves nothing to discard."""
        m = play_phase("9H 9S 9D 10C JC QC", opened=False)
        rejected(m, "open 9H 9S 9D | 10C JC QC", "no-discard-left")

    def test_single_card_in_the_first_round(self) -> None:
        """S40-9.2 with S40-9.3: in the first round one card left could not be discarded."""
        m = play_phase("5H 6H 7H 9C", turns=0)
        rejected(m, "meld 5H 6H 7H", "no-discard-left")
        m = play_phase("5H 6H 7H 9C", turns=1)
        m.play("meld 5H 6H 7H")
        assert hand_text(m, 0) == "9C"

    def test_only_a_joker_left(self) -> None:
        """S40-9.2 with S40-8.4: a joker as the only card could not close."""
        m = play_phase("5H 6H 7H JK")
        rejected(m, "meld 5H 6H 7H", "no-discard-left")

    def test_only_a_joker_left_with_joker_close_doubles(self) -> None:
        """S40-8.4: with ``joker_close_doubles`` the joker may close, so the meld is fine."""
        m = play_phase("5H 6H 7H JK", options=Options(joker_close_doubles=True))
        m.play("meld 5H 6H 7H")
        assert hand_text(m, 0) == "JK"

    def test_only_the_taken_card_left(self) -> None:
        """S40-9.2 with S40-8.2: the taken card alone could not be discarded."""
        m = play_phase(
            "5H 6H 7H", phase="draw", discard="KD 9C", options=Options(free_discard_take=True)
        )
        m.play("take")
        rejected(m, "meld 5H 6H 7H", "no-discard-left")
        assert not any(a.startswith("meld") for a in legal(m))

    def test_swap_leaving_nothing(self) -> None:
        """S40-9.2: a joker swap is a play too."""
        m = play_phase("7H 3C 4C", [(1, "6H JK 8H")])
        rejected(m, "swap 1 7H meld JK 3C 4C", "no-discard-left")

    def test_generator_respects_it(self) -> None:
        """S40-9.2: the generator offers no play that would leave no legal discard: in the
        first round no meld (5H 6H 7H leaves the joker, JK 5H 6H leaves one card), and no
        attach leaving fewer than two cards."""
        m = play_phase("5H 6H 7H JK", [(1, "8H 9H 10H")], turns=0)
        assert legal(m) == [
            "attach 1 JK=JH",
            "attach 1 7H",
            "attach 1 7H JK=JH",
            "attach 1 JK=7H",
            "attach 1 6H 7H",
            "attach 1 JK=6H 7H",
            "attach 1 6H JK=7H",
            "discard 5H",
            "discard 6H",
            "discard 7H",
            "discard JK",
        ]


class TestNeverStuck:
    """S40-9.2: "with this rule the player to move always has a legal action"."""

    @pytest.mark.parametrize(
        ("hand", "melds", "opened", "turns"),
        [
            ("7S 3S", [(1, "4S 5S 6S")], False, 0),
            ("JK 7S", [(1, "4S 5S 6S")], False, 1),
            ("JK 5H", [], True, 0),
            ("5H 5H", [(1, "4H JK 6H")], True, 1),
            ("JK JK", [(1, "4S 5S 6S")], True, 1),
        ],
    )
    def test_some_discard(
        self, hand: str, melds: list[tuple[int, str]], opened: bool, turns: int
    ) -> None:
        """S40-9.2: a legal discard always exists after the draw."""
        m = play_phase(hand, melds, opened=opened, turns=turns)
        actions = discards(m)
        assert actions
        m.play("discard " + actions[0])
        assert str(FACES[m.discard[-1]]) == actions[0]
