"""The hand UI: selection keys, staging, custom order, and the actions a press makes."""

from __future__ import annotations

from bot.hand.state import (
    TOP,
    Attach,
    Declare,
    HandUI,
    Swap,
    attach_action,
    context_token,
    declare_first_joker,
    display,
    meld_action,
    move_selected_first,
    open_action,
    toggle,
)

HAND = ["9S", "9H", "9H", "2D", "KC", "JK"]


class TestDisplay:
    def test_copies_get_distinct_keys(self) -> None:
        shown = display(HAND, HandUI())
        assert [key for key, _ in shown] == ["JK#0", "9S#0", "9H#0", "9H#1", "2D#0", "KC#0"]

    def test_sort_by_suit_puts_jokers_first(self) -> None:
        """S40-15: the jokers on the left in the suit order too (the engine keeps them last)."""
        ui = HandUI(sort="suit")
        assert [face for _, face in display(HAND, ui)] == ["JK", "9S", "9H", "9H", "2D", "KC"]

    def test_staged_cards_are_left_out(self) -> None:
        ui = HandUI(staged=(("9S", "9H", "JK"),))
        assert [face for _, face in display(HAND, ui)] == ["9H", "2D", "KC"]

    def test_sort_by_rank_puts_jokers_first(self) -> None:
        ui = HandUI(sort="rank")
        assert [face for _, face in display(HAND, ui)] == ["JK", "2D", "9S", "9H", "9H", "KC"]

    def test_custom_order_moves_the_selection_left(self) -> None:
        shown = display(HAND, HandUI())
        ui = move_selected_first(HandUI(selected=("KC#0", "2D#0")), shown)
        assert ui.sort == "custom" and ui.selected == ()
        assert [face for _, face in display(HAND, ui)][:2] == ["2D", "KC"]


class TestActions:
    def test_toggle_twice_unselects(self) -> None:
        ui = toggle(toggle(HandUI(), "9S#0"), "9S#0")
        assert ui.selected == ()

    def test_meld_and_take_meld(self) -> None:
        ui = HandUI(selected=("9S#0", "9H#0"))
        assert meld_action(ui, None) == "meld 9S 9H"
        ui = HandUI(selected=(TOP, "9S#0", "9H#0"))
        assert meld_action(ui, "9D") == "take meld 9D 9S 9H"

    def test_attach_and_swap_attach(self) -> None:
        assert attach_action(HandUI(selected=("2D#0",)), None, 3) == "attach 3 2D"
        swap = HandUI(selected=("J",), step=Attach(Swap(2, "7H")))
        assert attach_action(swap, None, 5) == "swap 2 7H attach 5 JK"

    def test_open_with_the_discard(self) -> None:
        ui = HandUI(staged=(("9S", "9H", TOP), ("10C", "JC", "QC")))
        assert open_action(ui, "9D") == "take open 9S 9H 9D | 10C JC QC"
        assert open_action(HandUI(staged=(("9S", "9H", "9D"),)), None) == "open 9S 9H 9D"

    def test_declaring_the_joker(self) -> None:
        assert declare_first_joker("meld 8H JK 10H", "9H") == "meld 8H JK=9H 10H"


class TestHintStaging:
    def test_the_discard_is_marked_once(self) -> None:
        from bot.games.scala40.presses import mark_top

        melds = (("9S", "9H", "9D"), ("8C", "9C", "10C"), ("9D", "10D", "JD"))
        assert mark_top(melds, "9D") == (
            ("9S", "9H", "^"),
            ("8C", "9C", "10C"),
            ("9D", "10D", "JD"),
        )
        assert mark_top(melds, None) == melds


class TestContext:
    HAND = ("7H", "8H", "9H", "KS", "KS", "JK")

    def test_the_players_own_choices_keep_the_context(self) -> None:
        """Selecting, staging and sorting keep a keyboard valid: quick taps all count."""
        base = context_token(self.HAND, HandUI())
        assert len(base) == 6 and base.isalpha() and base.islower()
        for ui in (
            HandUI(selected=("7H#0", "8H#0")),
            HandUI(staged=(("7H", "8H", "9H"),), version=9),
            HandUI(sort="rank", order=("KS", "7H")),
        ):
            assert context_token(self.HAND, ui) == base

    def test_a_move_or_another_step_changes_it(self) -> None:
        """A card more or less, or another pending step, makes older keyboards stale."""
        base = context_token(self.HAND, HandUI())
        changed = {
            context_token((*self.HAND, "2C"), HandUI()),
            context_token(self.HAND[1:], HandUI()),
            context_token(self.HAND, HandUI(step=Attach())),
            context_token(self.HAND, HandUI(step=Declare(("7H", "10H"), "meld JK 8H 9H"))),
            context_token(self.HAND, HandUI(step=Declare(("7H", "10H"), "meld 8H 9H JK"))),
        }
        assert base not in changed and len(changed) == 5
