"""The pieces of a game's table as the Mini App draws it (:meth:`GameUI.page`): cards with the
words a screen reader says, and what a tap on something does: the same operation, with the same
argument, as the hand's button that does it (:class:`bot.hand.state.Op`), so that a tap in the
page and a press in the chat go through one path and mean one thing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.hand.state import Op
from bot.render import cards as show

Page = dict[str, Any]
"""A game's table for the page, as JSON."""


def tap(op: Op, arg: str | int = "") -> dict[str, str]:
    """What a tap does: a hand operation and its argument."""
    return {"op": op.value, "arg": str(arg)}


def players(
    names: list[str], seat: int, cards: Sequence[int], to_play: int | None, **flags: Sequence[bool]
) -> list[dict[str, Any]]:
    """Everyone at the table, in seat order: the name, the cards in hand, whether it is their
    turn, whether it is the page's own seat, and the game's ``flags`` (Scala 40's ``opened``)."""
    return [
        {
            "name": names[s] if s < len(names) else "",
            "cards": cards[s],
            "turn": s == to_play,
            "me": s == seat,
            **{flag: bool(values[s]) for flag, values in flags.items()},
        }
        for s in range(len(cards))
    ]


def card(
    lang: str, face: str, italian: bool = False, does: dict[str, str] | None = None, **marks: bool
) -> dict[str, Any]:
    """A card: its notation (``7H``, ``JK``, ``JK=7H`` for a declared joker), its spoken name,
    what a tap on it does (None: nothing) and its ``marks`` (``selected``, ``new``)."""
    return {"card": face, "label": show.spoken(lang, face, italian), "tap": does, **marks}
