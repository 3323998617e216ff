"""How updates are handled: different chats at once, each chat's own in the order they came."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

MAX_CONCURRENT_UPDATES = 4096
"""A bound on updates in progress, waiting ones included: python-telegram-bot takes its slot
before a chat's update waits for the earlier ones of its chat, so the bound is set high enough
that a flooded chat never holds the other chats' updates."""


def chat_key(update: object) -> int:
    """The chat an update belongs to (its user's private chat when it names no chat)."""
    if isinstance(update, Update):
        if update.effective_chat is not None:
            return update.effective_chat.id
        if update.effective_user is not None:
            return update.effective_user.id
    return 0


class PerChatUpdates(BaseUpdateProcessor):
    """python-telegram-bot's ``concurrent_updates`` with one rule: a chat's updates run one at
    a time, in order (a player's quick taps apply as tapped), while other chats go on. A match's
    moves are serialised by its own lock (:meth:`bot.matches.Matches.lock`), so one slow match never
    holds another."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._chats: dict[int, tuple[asyncio.Lock, int]] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Run ``coroutine`` after the earlier updates of the same chat."""
        key = chat_key(update)
        lock, users = self._chats.get(key) or (asyncio.Lock(), 0)
        self._chats[key] = (lock, users + 1)
        try:
            async with lock:
                await coroutine
        finally:
            lock, users = self._chats[key]
            if users == 1:
                del self._chats[key]
            else:
                self._chats[key] = (lock, users - 1)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""
