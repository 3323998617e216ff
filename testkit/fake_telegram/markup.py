"""Reply markup checked as Telegram checks it: inline keyboards (rows, buttons, callback_data)
and reply keyboards."""

from __future__ import annotations

from typing import Any

from .constants import JSON, MAX_BUTTONS_PER_ROW, MAX_CALLBACK_DATA_BYTES, MAX_INLINE_BUTTONS
from .errors import (
    ERR_BUTTON_DATA,
    ERR_BUTTON_TEXT,
    ERR_MARKUP_TOO_LONG,
    ERR_ROW_TOO_LONG,
    ERR_TEXT_BUTTONS,
    bad_request,
)

# Inline keyboard button fields of which exactly one must be present.
BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


def validate_reply_markup(markup: Any, private: bool = True) -> JSON | None:
    """Check a reply_markup like Telegram does; returns it (None for an empty inline keyboard).

    Inline keyboards: a list of rows, at most 100 buttons, at most 8 per row, non-empty button
    text, exactly one action field per button, callback_data 1..64 UTF-8 bytes; a web app's
    button only in a ``private`` chat, and only with an HTTPS address.
    """
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'can\'t parse inline keyboard: field "inline_keyboard" must be an Array of Arrays'
            )
        rows = [row for row in rows if row]
        if not rows:
            return None
        if sum(len(row) for row in rows) > MAX_INLINE_BUTTONS:
            raise bad_request(ERR_MARKUP_TOO_LONG)
        for row in rows:
            if len(row) > MAX_BUTTONS_PER_ROW:
                raise bad_request(ERR_ROW_TOO_LONG)
            for button in row:
                _validate_inline_button(button, private)
        return {**markup, "inline_keyboard": rows}
    if "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'can\'t parse reply keyboard: field "keyboard" must be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                text = button if isinstance(button, str) else button.get("text")
                if not isinstance(text, str) or not text.strip():
                    raise bad_request("keyboard button text must be non-empty")
        return markup
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return markup
    raise bad_request("can't parse reply keyboard markup JSON object")


def _validate_inline_button(button: Any, private: bool) -> None:
    if not isinstance(button, dict):
        raise bad_request(
            "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
        )
    text = button.get("text")
    if not isinstance(text, str) or not text.strip():
        raise bad_request(ERR_BUTTON_TEXT)
    actions = [key for key in BUTTON_ACTIONS if key in button]
    if not actions:
        raise bad_request(ERR_TEXT_BUTTONS)
    if len(actions) > 1:
        raise bad_request(
            f"can't parse inline keyboard button: only one of {', '.join(actions)} may be used"
        )
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= (
            MAX_CALLBACK_DATA_BYTES
        ):
            raise bad_request(ERR_BUTTON_DATA)
    if "url" in button and (not isinstance(button["url"], str) or not button["url"].strip()):
        raise bad_request("BUTTON_URL_INVALID")
    if "web_app" in button:
        _validate_web_app(button["web_app"], private)


def _validate_web_app(web_app: Any, private: bool) -> None:
    """A web app's button (Bot API: "only in private chats between a user and the bot"),
    opening an HTTPS page."""
    url = web_app.get("url") if isinstance(web_app, dict) else None
    if not isinstance(url, str):
        raise bad_request('can\'t parse inline keyboard button: field "url" must be of type String')
    if not private:
        raise bad_request("BUTTON_TYPE_INVALID")
    if not url.startswith("https://"):
        raise bad_request(
            f"inline keyboard button Web App URL '{url}' is invalid: Only HTTPS links are allowed"
        )
