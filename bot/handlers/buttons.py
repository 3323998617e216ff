"""Inline-button presses: lobby, hand, confirmations, rematch."""

from __future__ import annotations

import logging
from html import unescape

from telegram import Message, Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot import callbacks
from bot.answer import Answer
from bot.handlers.common import display_name, remember, tavolo
from bot.i18n import t
from bot.service import Pressed

log = logging.getLogger(__name__)

ANSWER_LIMIT = 200
"""Characters Telegram shows in a press's answer."""


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every callback query: decode, dispatch, answer once."""
    query = update.callback_query
    user = update.effective_user
    if query is None or user is None:
        return
    await remember(update, context)
    service = tavolo(context)
    data = callbacks.decode(query.data)
    lang = service.user_lang(user.id, user.language_code)
    message = query.message  # where the button was pressed (None: an inline message)
    if data is None or message is None:
        answer = Answer(t(lang, "ans.stale"))
    else:
        shown = message.text_html if isinstance(message, Message) and message.text else None
        pressed = Pressed(
            data, user.id, display_name(user), lang, message.chat.id, message.message_id, shown
        )
        answer = await service.press(pressed)
    # An answer is plain text, not HTML: the catalog's escaping is undone.
    text = unescape(answer.text)[:ANSWER_LIMIT] if answer.text else None
    try:
        await query.answer(text, show_alert=answer.alert, url=answer.url)
    except BadRequest as error:  # answered already: the update came again after a restart
        log.info("press %s not answered: %s", query.id, error.message)
