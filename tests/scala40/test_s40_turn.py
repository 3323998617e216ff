"""The turn: draw or take, play, discard (docs/rules.md S40-3), after opening (S40-6), joker swaps
(S40-7), and the numbering of melds on the table (S40-4.4, S40-4.5)."""

from __future__ import annotations

import pytest

from engine import IllegalAction
from engine.cards import FACES
from engine.scala40 import Match, Options
from testkit.s40_helpers import faces, hand_text, legal, position, rejected

OTHER = "AD 2D 3D 4D"


def open_play(hand: str, melds: list[tuple[int, str]], **kw: object) -> Match:
    """Seat 0 to play, both seats open, not the first round; phase as given (default play)."""
    kw.setdefault("phase", "play")
    return position(
        [hand, OTHER],
        melds=melds,
        opened=[True, True],
        turns_done=[1, 1],
        **kw,  # type: ignore[arg-type]
    )


class TestDraw:
    """S40-3.1: exactly one draw, before anything else, by the seat to play."""

    def test_draw_takes_the_top_of_the_stock(self) -> None:
        """S40-3.1a: the top card of the stock goes to the hand."""
        m = position(["2S 5D", OTHER], stock_top="KH QC", turns_done=[1, 1])
        stock = len(m.stock)
        assert str(m.play("draw")) == "draw"
        assert hand_text(m, 0) == "2S KH 5D"
        assert len(m.stock) == stock - 1
        assert str(FACES[m.stock[-1]]) == "QC"
        assert m.phase == "play"
        assert m.history == [(0, "draw")]

    def test_only_one_draw(self) -> None:
        """S40-3.1: exactly one of draw or take."""
        m = position(["2S 5D", OTHER], discard="9C", turns_done=[1, 1])
        m.play("draw")
        rejected(m, "draw", "already-drawn")
        rejected(m, "take meld 9C 9C 9C", "already-drawn")

    def test_draw_first(self) -> None:
        """S40-3: the draw is the first phase; nothing is played or discarded before it."""
        m = open_play("2S 5D 6D 7D", [], phase="draw")
        rejected(m, "discard 2S", "draw-first")
        rejected(m, "meld 5D 6D 7D", "draw-first")
        rejected(m, "attach 1 2S", "draw-first")

    def test_not_your_turn(self) -> None:
        """S40-3: only the seat to play draws."""
        m = position(["2S 5D", OTHER], turns_done=[1, 1])
        rejected(m, "draw", "not-your-turn", seat=1)
        rejected(m, "discard AD", "not-your-turn", seat=1)

    def test_draw_listed_first(self) -> None:
        """S40-3.1: in the draw phase the legal actions are draw and the takes."""
        m = position(["2S 5D", OTHER], discard="9C", turns_done=[1, 1])
        assert legal(m) == ["draw"]


class TestTakeObligations:
    """S40-3.1: the card taken from the discard pile must be used in this same turn."""

    def test_take_meld(self) -> None:
        """S40-3.1b: an open player takes the top discard into a new meld."""
        m = open_play("5C 6C 2S 9H", [], phase="draw", discard="KD 7C")
        top = m.discard[-1]
        assert str(m.play("take meld 5C 6C 7C")) == "take meld 5C 6C 7C"
        assert top in m.melds[0].cards
        assert m.melds[0].owner == 0
        assert faces(m.discard) == ["KD"]
        assert hand_text(m, 0) == "2S 9H"
        assert m.phase == "play"
        assert m.history == [(0, "take meld 5C 6C 7C")]

    def test_take_attach(self) -> None:
        """S40-3.1: the taken card may be attached to a meld on the table (anyone's)."""
        m = open_play("2S 9H 3D", [(1, "4C 5C 6C")], phase="draw", discard="KD 7C")
        assert str(m.play("take attach 1 7C")) == "take attach 1 7C"
        assert m.melds[0].text() == "4C 5C 6C 7C"
        assert m.melds[0].owner == 1
        assert hand_text(m, 0) == "2S 9H 3D"

    def test_take_must_use_the_card(self) -> None:
        """S40-3.1: a meld that leaves the taken card in hand is refused."""
        m = open_play("5C 6C 8C 9H 9S 9D", [], phase="draw", discard="KD 7C")
        rejected(m, "take meld 9H 9S 9D", "take-unused")
        rejected(m, "take attach 1 7C", "no-such-meld")

    def test_take_attach_must_use_the_card(self) -> None:
        """S40-3.1: the attached cards must include the taken one."""
        m = open_play("8C 2S 9H", [(1, "4C 5C 6C")], phase="draw", discard="KD 7D")
        rejected(m, "take attach 1 7D", "run-mixed-suits")
        m = open_play("3C 2S 9H", [(1, "4C 5C 6C")], phase="draw", discard="KD 7D")
        rejected(m, "take attach 1 3C", "take-unused")

    def test_take_with_an_invalid_meld(self) -> None:
        """S40-4: the meld made with the taken card must be valid."""
        m = open_play("5C 6C 2S 9H", [], phase="draw", discard="KD 8C")
        rejected(m, "take meld 5C 6C 8C", "run-not-consecutive")

    def test_plain_take_needs_the_option(self) -> None:
        """S40-3.1: without ``free_discard_take`` the use is said with the take."""
        m = open_play("5C 6C 2S 9H", [], phase="draw", discard="KD 7C")
        rejected(m, "take", "take-needs-use")

    def test_take_from_an_empty_pile(self) -> None:
        """S40-3.1b: there is nothing to take from an empty discard pile."""
        m = open_play("5C 6C 2S 9H", [], phase="draw")
        rejected(m, "take meld 5C 6C 7C", "discard-empty")

    def test_the_taken_copy_is_used_first(self) -> None:
        """Card notation: a meld uses the copy taken from the discard pile first."""
        m = open_play("7C 5C 6C 2S 9H", [], phase="draw", discard="KD 7C")
        held = m.hands[0][0]
        top = m.discard[-1]
        m.play("take meld 5C 6C 7C")
        assert top in m.melds[0].cards
        assert held in m.hands[0]

    def test_generated_takes(self) -> None:
        """S40-3.1: an open player is offered every meld and attach using the top card."""
        m = open_play("5C 6C 2S 9H", [(1, "8C 9C 10C")], phase="draw", discard="KD 7C")
        assert legal(m) == [
            "draw",
            "take meld 5C 6C 7C",
            "take attach 1 7C",
            "take attach 1 6C 7C",
            "take attach 1 5C 6C 7C",
        ]


class TestFreeDiscardTake:
    """S40-3.1 Option ``free_discard_take``: an open player who takes need not use the card."""

    def test_plain_take(self) -> None:
        """S40-3.1: the card goes to the hand; it is marked as taken."""
        m = open_play(
            "5C 2S 9H", [], phase="draw", discard="KD 7C", options=Options(free_discard_take=True)
        )
        top = m.discard[-1]
        assert legal(m)[:2] == ["draw", "take"]
        assert str(m.play("take")) == "take"
        assert m.taken == top
        assert top in m.hands[0]
        assert faces(m.discard) == ["KD"]
        assert m.phase == "play"

    def taken_twin(self, hand: str, melds: list[tuple[int, str]] | None = None) -> Match:
        """Seat 0 open, holding a 10S, has just taken the other 10S from the discard pile."""
        m = open_play(
            hand,
            melds or [],
            phase="draw",
            discard="KD 10S",
            options=Options(free_discard_take=True),
        )
        m.play("take")
        return m

    def test_a_meld_uses_the_taken_copy(self) -> None:
        """Card notation, S40-9.2: after a plain take of 10S, ``meld JK 9S 10S`` lays the taken
        copy; its twin stays, may be discarded, and closes (listed and accepted alike)."""
        m = self.taken_twin("9S 10S JK")
        taken = m.taken
        assert "meld JK 9S 10S" in legal(m)
        m.play("meld JK 9S 10S")
        assert taken in m.melds[0].cards
        assert m.taken is None
        assert legal(m) == ["discard 10S"]
        m.play("discard 10S")
        assert m.last_hand is not None and m.last_hand.closer == 0

    def test_the_twin_may_go_after_a_meld(self) -> None:
        """S40-8.2: once the taken 10S is in a meld, ``discard 10S`` discards its twin."""
        m = self.taken_twin("9S 10S JK 4C 5H")
        taken = m.taken
        m.play("meld 9S 10S JK")
        assert taken in m.melds[0].cards
        assert "discard 10S" in legal(m)
        m.play("discard 10S")
        assert faces(m.discard)[-1] == "10S"
        assert m.discard[-1] != taken

    def test_the_twin_may_go_after_an_attach(self) -> None:
        """S40-8.2: after ``attach 1 10S`` the taken copy is on the table, the twin may go."""
        m = self.taken_twin("10S 4C 5H", [(1, "7S 8S 9S")])
        taken = m.taken
        m.play("attach 1 10S")
        assert taken in m.melds[0].cards
        assert m.taken is None
        m.play("discard 10S")
        assert m.discard[-1] != taken

    def test_a_joker_swap_after_the_taken_card_is_used(self) -> None:
        """S40-7.1: the taken card, used in a meld, no longer blocks a joker swap."""
        m = self.taken_twin("9S 10S JK 7H 3C 4C 2D", [(1, "6H JK 8H")])
        m.play("meld JK 9S 10S")
        assert any(a.startswith("swap 1 7H") for a in legal(m))
        m.play("swap 1 7H meld JK 3C 4C")
        assert m.melds[0].text() == "6H 7H 8H"
        assert hand_text(m, 0) == "10S 2D"

    def test_plain_take_needs_opening(self) -> None:
        """S40-3.1b: a player who is not open still takes only to open."""
        options = Options(free_discard_take=True)
        m = position(["5C 2S 9H", OTHER], discard="KD 7C", options=options, turns_done=[1, 1])
        rejected(m, "take", "not-open")
        assert legal(m) == ["draw"]


class TestAttach:
    """S40-6.1: an open player attaches to any meld, own or others', when the result is valid."""

    MELDS = ((1, "5H 6H 7H"), (0, "9H 9S 9D"), (1, "6C JK 8C"), (1, "QS QH JK=QD"))

    def play(self, action: str, hand: str = "8H 4H 3H 9C 5C 9D QC QD 2C 8S") -> Match:
        m = open_play(hand, list(self.MELDS))
        m.play(action)
        return m

    def test_extend_run_high(self) -> None:
        """S40-6.1: 8H extends another player's run 5H 6H 7H."""
        m = self.play("attach 1 8H")
        assert m.melds[0].text() == "5H 6H 7H 8H"
        assert (m.melds[0].number, m.melds[0].owner, m.melds[0].value) == (1, 1, 26)

    def test_extend_run_low_with_two_cards(self) -> None:
        """S40-6.1: 3H 4H extend it downwards."""
        m = self.play("attach 1 3H 4H")
        assert m.melds[0].text() == "3H 4H 5H 6H 7H"

    def test_extend_both_ends(self) -> None:
        """S40-6.1: cards at both ends at once."""
        m = self.play("attach 1 4H 8H")
        assert m.melds[0].text() == "4H 5H 6H 7H 8H"

    def test_joker_attached_to_a_run(self) -> None:
        """S40-6.1, Card notation: a bare joker that could extend either end of the run is
        ambiguous (README rules notes); declared, it goes where it says."""
        m = self.play("attach 1 JK=8H", "JK 2C 8S")
        assert m.melds[0].text() == "5H 6H 7H JK"
        assert m.history[-1] == (0, "attach 1 JK=8H")
        m = self.play("attach 1 JK=4H", "JK 2C 8S")
        assert m.melds[0].text() == "JK 5H 6H 7H"

    def test_bare_joker_attached_to_a_run_is_ambiguous(self) -> None:
        """Card notation: JK alone onto 5H 6H 7H could be 4H or 8H: the player must say."""
        with pytest.raises(IllegalAction) as caught:
            self.play("attach 1 JK", "JK 2C 8S")
        assert caught.value.code == "joker-ambiguous"

    def test_own_set(self) -> None:
        """S40-6.1: 9C completes the player's own set of 9s (36)."""
        m = self.play("attach 2 9C")
        assert m.melds[1].text() == "9S 9H 9D 9C"
        assert m.melds[1].value == 36

    def test_joker_to_a_set(self) -> None:
        """S40-4.2: a joker joining a set of three stands for the missing suit."""
        m = self.play("attach 2 JK", "JK 2C 8S")
        assert m.melds[1].text() == "9S 9H 9D JK=9C"

    def test_run_with_joker(self) -> None:
        """S40-6.1: a run holding a joker grows at its ends."""
        m = self.play("attach 3 5C 9C")
        assert m.melds[2].text() == "5C 6C JK 8C 9C"

    def test_set_with_joker(self) -> None:
        """S40-6.1: QC joins QS QH JK=QD."""
        m = self.play("attach 4 QC")
        assert m.melds[3].text() == "QS QH JK=QD QC"
        assert m.melds[3].value == 40

    def test_invalid_attachments(self) -> None:
        """S40-6.1: only when the result is a valid meld."""
        m = open_play("8H 9H 8S 5H 7C JK 9C QC 2C", list(self.MELDS))
        rejected(m, "attach 1 9H", "attach-invalid")
        rejected(m, "attach 1 8S", "run-mixed-suits")
        rejected(m, "attach 1 5H", "run-duplicate-rank")
        rejected(m, "attach 2 9H", "set-duplicate-suit")
        rejected(m, "attach 2 9C JK", "set-too-many")
        rejected(m, "attach 3 JK", "too-many-jokers")
        rejected(m, "attach 4 JK", "too-many-jokers")
        rejected(m, "attach 9 8H", "no-such-meld")
        rejected(m, "attach 1 10H", "card-not-in-hand")

    def test_the_card_a_set_joker_stands_for(self) -> None:
        """S40-6.2, S40-7.1: the card a joker stands for replaces it; it is not attached."""
        m = open_play("QD 2C 8S", list(self.MELDS))
        rejected(m, "attach 4 QD", "joker-swap-needed")

    def test_the_card_a_run_joker_stands_for(self) -> None:
        """S40-6.2: 7C cannot join 6C JK 8C next to its joker: it replaces it (a swap)."""
        m = open_play("7C 2C 8S", list(self.MELDS))
        rejected(m, "attach 3 7C", "joker-swap-needed")

    def test_completing_a_13_card_run_with_a_joker(self) -> None:
        """S40-4.1: a joker attached to ``A..K`` is the 14th card (96)."""
        m = open_play("JK 2C 8S", [(1, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")])
        m.play("attach 1 JK")
        assert len(m.melds[0].cards) == 14
        assert m.melds[0].value == 96
        assert m.melds[0].swappable_joker() is None

    def test_natural_completes_a_run_holding_a_joker(self) -> None:
        """S40-4.1: 12 naturals and a joker (as 7S) take the 7S: the joker becomes the 14th."""
        m = open_play("7S 2C 8H", [(1, "AS 2S 3S 4S 5S 6S JK 8S 9S 10S JS QS KS")])
        m.play("attach 1 7S")
        meld = m.melds[0]
        assert len(meld.cards) == 14
        assert meld.value == 96
        assert meld.swappable_joker() is None

    def test_low_ace_next_to_a_joker_standing_for_the_high_ace(self) -> None:
        """S40-4.1: 2H..KH with a joker as the high ace takes the AH low: A..K and the joker
        as 14th card (96), which can no longer be swapped."""
        m = open_play("AH 2C 8S", [(1, "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK")])
        m.play("attach 1 AH")
        meld = m.melds[0]
        assert meld.text() == "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK"
        assert meld.value == 96
        assert meld.swappable_joker() is None


class TestTableMelds:
    """S40-4.4, S40-4.5: identical runs may be laid; melds are numbered from 1 in the order
    they were laid, never renumbered, and remember who laid them."""

    def test_identical_run(self) -> None:
        """S40-4.4: a run identical to one already on the table may be laid."""
        m = open_play("5H 6H 7H 2C 8S", [(1, "5H 6H 7H")])
        m.play("meld 5H 6H 7H")
        assert [x.text() for x in m.melds] == ["5H 6H 7H", "5H 6H 7H"]
        assert [(x.number, x.owner) for x in m.melds] == [(1, 1), (2, 0)]

    def test_numbering(self) -> None:
        """S40-4.5: new melds get the next number; attaching keeps number and owner."""
        m = open_play("2S 3S 4S KD KH KC 8H 7C 9C", [(1, "5H 6H 7H")])
        m.play("meld 2S 3S 4S")
        m.play("meld KD KH KC")
        m.play("attach 1 8H")
        assert [(x.number, x.owner, x.text()) for x in m.melds] == [
            (1, 1, "5H 6H 7H 8H"),
            (2, 0, "2S 3S 4S"),
            (3, 0, "KH KD KC"),
        ]

    def test_new_meld_after_opening(self) -> None:
        """S40-6.1: an open player lays new melds of any value (6 points here)."""
        m = open_play("AS 2S 3S KD 9C", [])
        m.play("meld AS 2S 3S")
        assert m.melds[0].value == 6
        assert hand_text(m, 0) == "KD 9C"

    def test_history_records_plays(self) -> None:
        """The match log: every play is recorded with its seat, in canonical text."""
        m = open_play("2s 3s 4s kd 9c", [])
        m.play("meld 2s 3s 4s")
        m.play("discard kd")
        assert m.history == [(0, "meld 2S 3S 4S"), (0, "discard KD")]


class TestJokerSwap:
    """S40-7: an open player replaces a joker on the table with the very card it stands for;
    the freed joker must be used in the same turn."""

    def test_swap_into_a_new_meld(self) -> None:
        """S40-7.1-2: 7H replaces the joker of 6H JK 8H; the joker goes into JK 3C 4C."""
        m = open_play("7H 3C 4C 9D KS", [(1, "6H JK 8H")])
        joker = m.melds[0].cards[1]
        applied = m.play("swap 1 7H meld JK 3C 4C")
        assert str(applied) == "swap 1 7H meld JK 3C 4C"
        assert m.melds[0].text() == "6H 7H 8H"
        assert m.melds[0].owner == 1
        assert m.melds[1].text() == "JK 3C 4C"
        assert m.melds[1].cards[0] == joker
        assert m.melds[1].value == 2 + 3 + 4
        assert hand_text(m, 0) == "KS 9D"

    def test_swap_then_attach(self) -> None:
        """S40-7.2: the freed joker may be attached to a meld on the table."""
        m = open_play("7H 9D KS 2C", [(1, "6H JK 8H"), (0, "9S 9H 9C")])
        applied = m.play("swap 1 7H attach 2 JK")
        assert str(applied) == "swap 1 7H attach 2 JK=9D"
        assert [x.text() for x in m.melds] == ["6H 7H 8H", "9S 9H JK=9D 9C"]
        assert hand_text(m, 0) == "KS 9D 2C"

    def test_swap_in_a_set(self) -> None:
        """S40-7.1: the joker of QS QH JK=QD is replaced by the QD."""
        m = open_play("QD 3C 4C 9D", [(1, "QS QH JK=QD")])
        m.play("swap 1 QD meld 3C 4C JK")
        assert [x.text() for x in m.melds] == ["QS QH QD", "3C 4C JK"]

    def test_only_the_exact_card(self) -> None:
        """S40-6.2: in a run a joker is replaced only by the very card it stands for."""
        m = open_play("9H 3C 4C 7S 7H", [(1, "6H JK 8H")])
        rejected(m, "swap 1 9H meld JK 3C 4C", "swap-wrong-card")
        rejected(m, "swap 1 7S meld JK 3C 4C", "swap-wrong-card")
        rejected(m, "swap 1 7D meld JK 3C 4C", "card-not-in-hand")

    def test_no_joker_to_swap(self) -> None:
        """S40-7.1: a meld without a joker has nothing to swap."""
        m = open_play("7H 3C 4C", [(1, "5H 6H 7H")])
        rejected(m, "swap 1 7H meld JK 3C 4C", "no-joker")
        rejected(m, "swap 2 7H meld JK 3C 4C", "no-such-meld")

    def test_the_fourteenth_joker_stays(self) -> None:
        """S40-4.1: the 14th joker of ``A..K`` stands for no card and is never swapped out."""
        m = open_play("AS 3C 4C 9D", [(1, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK")])
        rejected(m, "swap 1 AS meld JK 3C 4C", "no-joker")

    def test_only_open_players(self) -> None:
        """S40-7.1: only an open player swaps."""
        m = position(
            ["7H 3C 4C 9D", OTHER],
            melds=[(1, "6H JK 8H")],
            opened=[False, True],
            turns_done=[1, 1],
            phase="play",
        )
        rejected(m, "swap 1 7H meld JK 3C 4C", "not-open")

    def test_the_freed_joker_must_be_used(self) -> None:
        """S40-7.2: the freed joker can never be kept in hand (``joker-unused``)."""
        m = open_play("7H 2C 3C 4C 9D", [(1, "6H JK 8H")])
        rejected(m, "swap 1 7H meld 2C 3C 4C", "joker-unused")

    def test_the_freed_joker_must_be_used_by_the_attach(self) -> None:
        """S40-7.2: attaching other cards does not use the freed joker (``joker-unused``)."""
        m = open_play("7H 9D 2C KS", [(1, "6H JK 8H"), (0, "9S 9H 9C")])
        rejected(m, "swap 1 7H attach 2 9D", "joker-unused")

    def test_swap_actions_are_listed(self) -> None:
        """S40-7: the generator offers each swap with each use of the freed joker."""
        m = open_play("7H 3C 4C 9D", [(1, "6H JK 8H")])
        swaps = [a for a in legal(m) if a.startswith("swap")]
        assert swaps == [
            "swap 1 7H meld JK 3C 4C",
            "swap 1 7H meld 3C 4C JK",
            "swap 1 7H attach 1 JK=9H",
            "swap 1 7H attach 1 JK=5H",
        ]


class TestDeclaredAceJoker:
    def test_declared_ace_onto_two_to_king(self) -> None:
        """S40-4.1, Card notation: JK=AH onto 2H..KH is the ace, low or high alike: not
        ambiguous (the ace is read high, the better value)."""
        m = open_play("JK 2C 8S", [(1, "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")])
        m.play("attach 1 JK=AH")
        assert m.melds[0].text() == "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK"
        assert m.melds[0].value == 95
