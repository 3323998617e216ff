"""Sending and editing messages politely: no identical edits, coalesced table edits, limits.

Flood control and ``RetryAfter`` are python-telegram-bot's ``AIORateLimiter``'s job; this layer
remembers what each message shows (so it never sends an identical edit), keeps at most one table
edit in flight per match (later states coalesce into the next edit), and reports messages that
are gone or chats that are closed to us.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Hashable

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

log = logging.getLogger(__name__)

Rendered = tuple[str, InlineKeyboardMarkup | None]
MAX_REMEMBERED = 50_000
"""Messages whose content is remembered in memory (the store keeps the tables' and hands')."""


def digest(text: str, markup: InlineKeyboardMarkup | None) -> str:
    """A short fingerprint of a message's text and buttons (stored, to skip identical edits)."""
    buttons = "" if markup is None else json.dumps(markup.to_dict(), sort_keys=True)
    return hashlib.sha256(f"{text}\x00{buttons}".encode()).hexdigest()[:32]


class Publisher:
    """Message I/O for the bot, one instance per application."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.shown: dict[tuple[int, int], str] = {}
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}
        self._dirty: set[Hashable] = set()

    async def send(
        self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> int | None:
        """Send a message; its id, or None when the chat is closed to the bot (Forbidden)."""
        try:
            message = await self.bot.send_message(
                chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup
            )
        except Forbidden:
            log.info("chat %s is closed to the bot", chat_id)
            return None
        self._remember((chat_id, message.message_id), digest(text, markup))
        return message.message_id

    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> bool:
        """Edit a message in place; False when it is gone (the caller sends a new one)."""
        key = (chat_id, message_id)
        content = digest(text, markup)
        if self.shown.get(key) == content:
            return True
        try:
            await self.bot.edit_message_text(
                text, chat_id, message_id, parse_mode=ParseMode.HTML, reply_markup=markup
            )
        except BadRequest as error:
            if "not modified" in error.message.lower():
                self._remember(key, content)
                return True
            log.info("edit of %s failed: %s", key, error.message)
            self.shown.pop(key, None)
            return False
        except Forbidden:
            return False
        self._remember(key, content)
        return True

    def _remember(self, key: tuple[int, int], content: str) -> None:
        self.shown.pop(key, None)  # re-insert: the dict keeps the most recent last
        self.shown[key] = content
        while len(self.shown) > MAX_REMEMBERED:
            del self.shown[next(iter(self.shown))]  # the message edited longest ago

    def remember(self, chat_id: int, message_id: int | None, shown: str | None) -> None:
        """What a message shows, as stored before a restart (unless known already)."""
        if message_id is not None and shown is not None:
            self.shown.setdefault((chat_id, message_id), shown)

    def showing(self, chat_id: int, message_id: int | None) -> str | None:
        """The digest of what a message shows, if known."""
        return None if message_id is None else self.shown.get((chat_id, message_id))

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message, ignoring one that is already gone."""
        self.shown.pop((chat_id, message_id), None)
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError as error:
            log.info("delete of %s/%s failed: %s", chat_id, message_id, error)

    async def put(self, chat_id: int, message_id: int | None, rendered: Rendered) -> int | None:
        """Edit ``message_id`` to show ``rendered``, or send it anew; the message's id."""
        text, markup = rendered
        if message_id is not None and await self.edit(chat_id, message_id, text, markup):
            return message_id
        return await self.send(chat_id, text, markup)

    def coalesce(self, key: Hashable, job: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run ``job`` for ``key`` with at most one run in flight; requests made meanwhile
        collapse into one more run, which renders the latest state."""
        running = self._tasks.get(key)
        if running is not None and not running.done():
            self._dirty.add(key)
            return running
        task = asyncio.create_task(self._loop(key, job))
        self._tasks[key] = task
        return task

    async def _loop(self, key: Hashable, job: Callable[[], Awaitable[None]]) -> None:
        while True:
            self._dirty.discard(key)
            try:
                await job()
            except Exception:
                log.exception("coalesced job %s failed", key)
            if key not in self._dirty:
                break

    async def wait(self, key: Hashable) -> None:
        """Wait for the coalesced job of ``key``, if one is in flight."""
        task = self._tasks.get(key)
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)

    async def drain(self) -> None:
        """Wait for every coalesced job in flight (tests and shutdown)."""
        while True:
            pending = [task for task in self._tasks.values() if not task.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)
