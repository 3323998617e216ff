"""The error handler: whatever fails in a handler is logged with its update, and the user
still gets an answer (a short apology in their language), so no press is left spinning.

A database that cannot work now (a full disk, ...) and a failed poll for updates (no network,
another process polling with the same token) are one line each: the message says it all."""

from __future__ import annotations

import contextlib
import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.handlers.common import is_group, tavolo
from bot.i18n import language_for, t
from bot.service import says_it_all

log = logging.getLogger(__name__)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the failure with the update; apologise to the user who pressed or typed."""
    error = context.error
    if error is not None and says_it_all(error):
        log.error("update %s failed: %s", getattr(update, "update_id", update), error)
    elif update is None and isinstance(error, TelegramError):
        log.error("polling Telegram for updates failed: %s", error)
    else:
        log.error("update %r failed", update, exc_info=error)
    if not isinstance(update, Update) or update.effective_user is None:
        return
    service = tavolo(context)
    user = update.effective_user
    chat = update.effective_chat
    try:
        lang = service.user_lang(user.id, user.language_code)
    except Exception:  # the database may be what failed: answer all the same
        lang = language_for(user.language_code)
    if update.callback_query is not None:
        with contextlib.suppress(TelegramError):  # it may have been answered already
            await update.callback_query.answer(t(lang, "ans.error"), show_alert=True)
    elif update.effective_message is not None and chat is not None:
        if is_group(chat):
            with contextlib.suppress(Exception):
                lang = service.group_lang(chat.id)
        service.reply(chat.id, t(lang, "ans.error"), update.effective_message.message_id)
