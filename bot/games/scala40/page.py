"""Scala 40's table as the Mini App draws it (seed 000's gestures, docs/rules.md S40): tap the
stock to draw, tap the discard pile to take it, tap cards to lift them, tap a meld to attach
the lifted cards to it, drag the hand into an order of one's own."""

from __future__ import annotations

from bot.games.page import Page, card, players, tap
from bot.hand.state import TOP, HandUI, Op, display, staged_tokens
from engine import scala40


def page(view: scala40.View, ui: HandUI, names: list[str], lang: str) -> Page:
    """The seat's table: the hand (in the player's order, each card lifted or not, the one
    just drawn marked), the stock, the discard pile, the melds on the table and the melds staged
    for the opening, each with what a tap on it does now."""
    running = view.result is None and view.phase in ("draw", "play")
    my_turn = running and view.to_play == view.seat
    playing = my_turn and view.phase == "play"
    new = f"{view.drawn}#0" if view.drawn is not None else None
    hand = [
        card(
            lang,
            face,
            does=tap(Op.TOGGLE, key.replace("#", ".")) if running else None,
            selected=key in ui.selected,
            new=key == new,
        )
        for key, face in display(view.hand, ui)
    ]
    top = view.discard_top
    discard = None
    if top is not None:
        takes = running and not playing
        discard = card(lang, top, does=tap(Op.TOGGLE, TOP) if takes else None)
        discard.update(selected=TOP in ui.selected, count=view.discard_size)
    lays = my_turn and bool(ui.selected) and (playing or TOP in ui.selected)
    return {
        "players": players(names, view.seat, view.hand_sizes, view.to_play, opened=view.opened),
        "hand": hand,
        "stock": {
            "count": view.stock_size,
            "tap": tap(Op.DRAW) if my_turn and view.phase == "draw" else None,
        },
        "discard": discard,
        "melds": [
            {
                "number": meld.number,
                "owner": names[meld.owner] if meld.owner < len(names) else "",
                "value": meld.value,
                "cards": [card(lang, _stands(meld, i)) for i in range(len(meld.cards))],
                "tap": tap(Op.ATTACH_TO, meld.number) if lays else None,
            }
            for meld in view.melds
        ],
        "staged": [[card(lang, face) for face in meld] for meld in staged_tokens(ui, top)],
        "reorder": running,
        "covers": [Op.TOGGLE.value],
    }


def _stands(meld: scala40.MeldView, index: int) -> str:
    """A meld's card as notation; a joker with what it stands for (``JK=7H``)."""
    token = meld.cards[index]
    if token.upper().startswith("JK"):
        stands = meld.jokers.get(index) or token[3:]
        return f"JK={stands}" if stands else "JK"
    return token
