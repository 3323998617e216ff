"""What every game's private hand shares: its buttons, in rows; the cockpit's header (the hand,
the scores, the cards each player holds, the time left) and the moves since the player's turn."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from telegram import InlineKeyboardButton

from bot import callbacks
from bot.hand.state import HandUI, context_token
from bot.i18n import Html, safe, t
from bot.render.table import left_text, name_of, packed

ROW = 8
"""Telegram shows at most 8 buttons a row."""


def rows(buttons: list[InlineKeyboardButton], width: int = ROW) -> list[list[InlineKeyboardButton]]:
    """Split buttons into rows of at most ``width``."""
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


class HandKeys:
    """Builds the hand's buttons for one seat, drawn in one context (the hand and its step)."""

    def __init__(
        self, match_id: int, seat: int, ui: HandUI, lang: str, hand: Sequence[object]
    ) -> None:
        self.match_id = match_id
        self.seat = seat
        self.ui = ui
        self.lang = lang
        self.context = context_token(hand, ui)

    def button(self, text: str, op: str, arg: str | int = "") -> InlineKeyboardButton:
        """One hand button."""
        data = callbacks.hand(self.match_id, self.seat, self.context, op, arg)
        return InlineKeyboardButton(text, callback_data=data)

    def label(self, key: str, **fields: object) -> str:
        """A translated button label."""
        return t(self.lang, key, **fields)


# --- the cockpit's header and the moves since the player's turn ------------------------------

SINCE_MOVES = 6
"""The others' moves since the player's last one that a hand lists at most (the latest)."""


def header_line(lang: str, hand: int, goal: str, left: timedelta | None) -> str:
    """The hand's first line under the title: the hand, what wins, the time left of the turn
    ("Mano 2 · si esce a 101 · ⏳ max 2 min"); re-rendered at the turn's reminder."""
    line: str = t(lang, "hand.header", hand=hand, goal=goal)
    time = left_text(lang, left)
    return f"{line} · {time}" if time else line


def side_label(lang: str, names: Sequence[str], sides: Sequence[int], seat: int, side: int) -> str:
    """A side as the seat's hand names it: "tu", "tu + Bea" (the partner), "Luca + Dino"."""
    members = [s for s in range(len(sides)) if sides[s] == side]
    if seat in members:
        others = [name_of(list(names), s) for s in members if s != seat]
        return " + ".join([t(lang, "hand.you"), *others])
    return " + ".join(name_of(list(names), s) for s in members)


def score_lines(
    lang: str,
    key: str,
    names: Sequence[str],
    sides: Sequence[int],
    seat: int,
    values: Sequence[int],
) -> list[str]:
    """Each side's score (or hands won) for the seat's hand, its own side first, as many to a
    line as a phone's width holds: "Punti: tu + Bea 35 · Luca + Dino 40"."""
    own = sides[seat]
    order = [own] + [side for side in range(len(values)) if side != own]
    items = [f"{side_label(lang, names, sides, seat, side)} {values[side]}" for side in order]
    return _labelled(lang, key, items)


def count_lines(
    lang: str,
    names: Sequence[str],
    seat: int,
    sizes: Sequence[int],
    skip: Sequence[int] = (),
    marks: Sequence[str] = (),
) -> list[str]:
    """The cards every other player holds (``skip``: seats out of the hand; ``marks``: what
    follows each seat's count, as who opened): "Carte in mano: Luca 12 ✅ · Bea 1"."""
    others = [s for s in range(len(sizes)) if s != seat and s not in skip]
    if not others:
        return []
    items = [f"{name_of(list(names), s)} {sizes[s]}{marks[s] if marks else ''}" for s in others]
    return _labelled(lang, "hand.counts", items)


def _labelled(lang: str, key: str, items: Sequence[str]) -> list[str]:
    """Plain-text ``items`` after the label of ``key`` (its ``first`` field), as many to a line
    as a phone's width holds."""
    shown = [t(lang, key, first=items[0]), *(Html(str(safe(item))) for item in items[1:])]
    return packed(shown)


def since_lines(lang: str, moves: Sequence[str]) -> list[str]:
    """The others' moves since the player's last one, the latest :data:`SINCE_MOVES`."""
    if not moves:
        return []
    return [t(lang, "hand.since"), *("· " + move for move in moves[-SINCE_MOVES:])]
