"""Telegram's own events: supergroup migration, the bot removed or added, a member leaving."""

from __future__ import annotations

from telegram import ChatMember, Update
from telegram.ext import ContextTypes

from bot.handlers.common import is_group, tavolo


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group upgraded to a supergroup keeps its match (the chat id changes in place)."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await tavolo(context).migrate_chat(message.chat_id, message.migrate_to_chat_id)


async def bot_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot removed from a group (or blocked in private): nothing more goes there, and the
    chat's match ends (recorded, not ranked); the bot added again: messages go there."""
    change = update.my_chat_member
    if change is None:
        return
    if change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED):
        await tavolo(context).chat_closed(change.chat.id)
    else:
        tavolo(context).chat_opened(change.chat.id)


async def seen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Someone wrote or pressed in a group: the bot is there (another instance may have seen
    it added again), so messages go there."""
    chat = update.effective_chat
    acted = update.callback_query is not None or (
        update.message is not None and update.message.text is not None
    )
    if acted and chat is not None and is_group(chat):
        tavolo(context).chat_opened(chat.id)


async def member_left(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A player who leaves the group abandons (docs/rules.md S40-14, SC-6)."""
    message = update.effective_message
    if message is None or message.left_chat_member is None:
        return
    await tavolo(context).member_left(message.chat_id, message.left_chat_member.id)
