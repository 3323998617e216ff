"""Telegram's own events: supergroup migration, the bot removed, a member leaving."""

from __future__ import annotations

from telegram import ChatMember, Update
from telegram.ext import ContextTypes

from bot.handlers.common import tavolo


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group upgraded to a supergroup keeps its match (the chat id changes in place)."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    tavolo(context).migrate_chat(message.chat_id, message.migrate_to_chat_id)


async def bot_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot removed from a group stops that group's match (recorded, not ranked)."""
    change = update.my_chat_member
    if change is None:
        return
    if change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED):
        await tavolo(context).bot_removed(change.chat.id)


async def member_left(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A player who leaves the group abandons (docs/rules.md S40-14, SC-6)."""
    message = update.effective_message
    if message is None or message.left_chat_member is None:
        return
    await tavolo(context).member_left(message.chat_id, message.left_chat_member.id)
