"""Inline-button presses: lobby, hand, confirmations, rematch."""

from __future__ import annotations

import logging
from html import unescape

from telegram import MaybeInaccessibleMessage, Message, Update, User
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot import callbacks
from bot.answer import Answer
from bot.handlers.common import display_name, remember, tavolo
from bot.i18n import t
from bot.matches import MatchHeld
from bot.service import Tavolo
from storage import ChatBusy, Conflict, MatchNotFound, SeatError, StaleVersion, WrongStatus

log = logging.getLogger(__name__)

ANSWER_LIMIT = 200
"""Characters Telegram shows in a press's answer."""


async def _dispatch(
    service: Tavolo,
    data: callbacks.Callback,
    user: User,
    message: MaybeInaccessibleMessage,
    lang: str,
) -> Answer:
    """The press, to the part of the bot its kind belongs to (``lang``: the presser's)."""
    if data.kind == "h":
        return await service.hand_press(data, user.id, lang)
    if data.kind == "l":
        return await service.lobby_press(data, user.id, display_name(user), message.chat.id)
    if data.kind == "k":
        shown = message.text_html if isinstance(message, Message) and message.text else None
        return await service.confirm_press(
            data, user.id, message.chat.id, message.message_id, shown
        )
    if data.kind == "g":
        return await service.languages.choose(message.chat.id, user.id, data.op, message.message_id)
    return await service.rematch(data.match_id, user.id, message.chat.id)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every callback query: decode, dispatch, answer once."""
    query = update.callback_query
    user = update.effective_user
    if query is None or user is None:
        return
    remember(update, context)
    service = tavolo(context)
    data = callbacks.decode(query.data)
    lang = service.user_lang(user.id, user.language_code)
    message = query.message  # where the button was pressed (None: an inline message)
    if data is None or message is None:
        answer = Answer(t(lang, "ans.stale"))
    else:
        try:
            answer = await _dispatch(service, data, user, message, lang)
        except (StaleVersion, WrongStatus, SeatError, Conflict, MatchNotFound, ChatBusy):
            # Another instance (or a second press) changed the match first: nothing was done.
            answer = Answer(t(lang, "ans.stale"))
        except MatchHeld:
            answer = Answer(t(lang, "ans.busy"))
    # An answer is plain text, not HTML: the catalog's escaping is undone.
    text = unescape(answer.text)[:ANSWER_LIMIT] if answer.text else None
    try:
        await query.answer(text, show_alert=answer.alert, url=answer.url)
    except BadRequest as error:  # answered already: the update came again after a restart
        log.info("press %s not answered: %s", query.id, error.message)
