"""Helpers shared by the handlers."""

from __future__ import annotations

from telegram import Chat, Message, Update, User
from telegram.ext import ContextTypes

from bot.service import Tavolo


def tavolo(context: ContextTypes.DEFAULT_TYPE) -> Tavolo:
    """The application's service."""
    service = context.bot_data["tavolo"]
    assert isinstance(service, Tavolo)
    return service


def display_name(user: User) -> str:
    """A user's display name (first name, else username)."""
    return user.first_name or user.username or str(user.id)


def thread_of(message: Message) -> int | None:
    """The forum topic a message is in (None: a chat without topics, or its General topic;
    a reply's thread in a supergroup without topics is no topic)."""
    return message.message_thread_id if message.is_topic_message else None


def is_group(chat: Chat | None) -> bool:
    """Whether a chat is a group or supergroup."""
    return chat is not None and chat.type in (Chat.GROUP, Chat.SUPERGROUP)


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether the update's user administers the update's group."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or not is_group(chat):
        return False
    member = await context.bot.get_chat_member(chat.id, user.id)
    return member.status in ("creator", "administrator")


def reply(update: Update, context: ContextTypes.DEFAULT_TYPE, text: str) -> None:
    """Reply to the update's message through the outbox (quoting it in a group)."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    tavolo(context).reply(chat.id, text, message.message_id if is_group(chat) else None)


async def load_asker(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Before every update's handlers: read who is asking and where, off the event loop, so
    that what the handlers read of them (a language, a group's settings) is this update's and
    is read from memory."""
    user, chat = update.effective_user, update.effective_chat
    users = [user.id] if user is not None and not user.is_bot else []
    await tavolo(context).people.load(users, [chat.id] if chat is not None else [])


async def remember(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Keep the user's name and language code, and the group's title, up to date; note how
    far down the group's chat has gone (its newest message)."""
    service = tavolo(context)
    user, chat = update.effective_user, update.effective_chat
    message = update.effective_message
    if chat is not None and is_group(chat) and message is not None:
        service.outbox.saw(chat.id, message.message_id, thread_of(message))
    if user is not None and not user.is_bot:
        await service.people.met(user.id, display_name(user), user.language_code)
    if chat is not None and is_group(chat) and chat.title:
        await service.people.titled(chat.id, chat.title)
