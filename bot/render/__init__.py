"""Rendering: engine views to Telegram texts (HTML) and inline keyboards. No rules here."""

from telegram import InlineKeyboardMarkup

Rendered = tuple[str, InlineKeyboardMarkup | None]
"""What a render makes: a message's HTML text and its buttons (None: none)."""
