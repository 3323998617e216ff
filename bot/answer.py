"""The answer to a button press, as every part of the bot returns it, and engine refusals
in words."""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import error_text
from bot.render.cards import card as show_card
from engine.errors import IllegalAction, InvalidMeld


@dataclass(frozen=True, slots=True)
class Answer:
    """The short answer to a button press (answerCallbackQuery): a text, a link, an alert."""

    text: str = ""
    url: str | None = None
    alert: bool = False
    news: bool = False
    """The text tells what a move did ("Hai pescato 9♥"), it refuses nothing."""


def engine_error(lang: str, error: IllegalAction | InvalidMeld) -> str:
    """The translated text of an engine refusal, cards shown with suit symbols."""
    details = {
        key: show_card(value) if key == "card" and isinstance(value, str) else value
        for key, value in error.details.items()
    }
    return error_text(lang, error.code, error.message, **details)
