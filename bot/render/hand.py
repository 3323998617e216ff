"""What every game's private hand shares: its buttons, in rows."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton

from bot import callbacks
from bot.hand_ui import HandUI, context_token
from bot.i18n import t

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
