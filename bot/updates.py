"""How updates are handled: different chats at once, each chat's own in the order they came,
and none after the moment its answer would come too late.

A press (a callback query) carries no date, and Telegram refuses its answer 15 seconds after
it was made ("query is too old"): so each update is stamped when it reaches this process, and a
press the process has held past :data:`ANSWER_WINDOW` is dropped before its handler runs, without
a call. A process that was frozen (stopped, suspended, its event loop blocked) cannot tell when
what waited in its sockets meanwhile arrived: what reaches it just after such a stall is stamped
at the stall's start (:class:`Arrivals`), so the presses a frozen instance wakes up to, which
another instance may have answered long ago, are dropped too. A command's message has a date:
a command older than :data:`COMMAND_WINDOW` is dropped (whoever typed it has had an answer from
another instance, or has given up on this one; an answer now would only puzzle the group), and a
younger one is answered late rather than never. Telegram's own events (a member who left, the
bot removed, a migration) are handled whatever their age.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from telegram import Message, MessageEntity, Update
from telegram.ext import BaseUpdateProcessor

log = logging.getLogger(__name__)

MAX_CONCURRENT_UPDATES = 4096
"""A bound on updates in progress, waiting ones included: python-telegram-bot takes its slot
before a chat's update waits for the earlier ones of its chat, so the bound is set high enough
that a flooded chat never holds the other chats' updates."""

ANSWER_WINDOW = 14.0
"""Seconds a press may wait in this process before its handler runs: Telegram takes the answer
up to 15 s after the press, and the press reached the process after it was made."""
COMMAND_WINDOW = 60.0
"""Seconds after its message was sent within which a command is still answered."""
TICK = 0.5
"""Seconds between two looks at the event loop's clock."""
STALL = 1.0
"""Seconds a look may come late before the event loop counts as having stalled."""
WAKING = 2.0
"""Seconds after a stall within which an update may be one that waited through it."""

Clock = Callable[[], float]


def chat_key(update: object) -> int:
    """The chat an update belongs to (its user's private chat when it names no chat)."""
    if isinstance(update, Update):
        if update.effective_chat is not None:
            return update.effective_chat.id
        if update.effective_user is not None:
            return update.effective_user.id
    return 0


class Arrivals:
    """When an update may have reached this process, on the event loop's clock.

    A watch looks at the clock every :data:`TICK` seconds; when a look comes :data:`STALL`
    seconds late, the loop did not run meanwhile (the process was frozen), and an update that
    comes in then, or within :data:`WAKING` seconds, may have waited in a socket since the stall
    began: it is stamped then. (A fresh press that comes in those two seconds after a freeze
    longer than its answer window is dropped too: its player presses again.)
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or (lambda: asyncio.get_running_loop().time())
        self.beat = 0.0
        """When the watch last looked."""
        self.stall: tuple[float, float] | None = None
        """The last stall: when the loop stopped running, and when it ran again."""
        self.watching = False
        """Whether the clock is watched (else every update is stamped as it comes in)."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the watch."""
        self.beat = self.clock()
        self.watching = True
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        """Stop the watch."""
        self.watching = False
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            self.look()

    def look(self) -> None:
        """Look at the clock: a look that comes late records a stall."""
        now = self.clock()
        if now - self.beat > TICK + STALL:
            self.stall = (self.beat, now)
            log.warning("the event loop stalled for %.1f s", now - self.beat)
        self.beat = now

    def stamp(self) -> float:
        """When an update that comes in now may have arrived."""
        now = self.clock()
        if not self.watching:
            return now
        if now - self.beat > TICK + STALL:  # a stall the watch has not seen yet
            return self.beat
        if self.stall is not None and now - self.stall[1] <= WAKING:
            return self.stall[0]
        return now


def is_command(message: Message | None) -> bool:
    """Whether a message is a command (it starts with one)."""
    if message is None or not message.entities:
        return False
    first = message.entities[0]
    return first.type == MessageEntity.BOT_COMMAND and first.offset == 0


def too_late(update: object, held: float, now: datetime) -> str | None:
    """Why an update is no longer handled (None: it is): a press held here ``held`` seconds,
    past its answer window; a command sent too long before ``now``."""
    if not isinstance(update, Update):
        return None
    if update.callback_query is not None and held > ANSWER_WINDOW:
        return f"a press held {held:.1f} s, past its answer window"
    message = update.message
    if is_command(message) and message is not None:
        age = (now - message.date).total_seconds()
        if age > COMMAND_WINDOW:
            return f"a command sent {age:.0f} s ago"
    return None


class PerChatUpdates(BaseUpdateProcessor):
    """python-telegram-bot's ``concurrent_updates`` with one rule: a chat's updates run one at
    a time, in order (a player's quick taps apply as tapped), while other chats go on. A match's
    moves are serialised by its own lock (:meth:`bot.matches.Matches.hold`), so one slow match never
    holds another. An update is dropped, unhandled, once its answer would come too late
    (:func:`too_late`)."""

    def __init__(
        self,
        max_concurrent_updates: int = MAX_CONCURRENT_UPDATES,
        arrivals: Arrivals | None = None,
        wall: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(max_concurrent_updates)
        self._chats: dict[int, tuple[asyncio.Lock, int]] = {}
        self.arrivals = arrivals or Arrivals()
        self.wall = wall or (lambda: datetime.now(UTC))
        self.dropped = 0

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Run ``coroutine`` after the earlier updates of the same chat, unless it is too late
        by then."""
        arrived = self.arrivals.stamp()
        key = chat_key(update)
        lock, users = self._chats.get(key) or (asyncio.Lock(), 0)
        self._chats[key] = (lock, users + 1)
        try:
            async with lock:
                late = too_late(update, self.arrivals.clock() - arrived, self.wall())
                if late is None:
                    await coroutine
                else:
                    self._drop(update, coroutine, late)
        finally:
            lock, users = self._chats[key]
            if users == 1:
                del self._chats[key]
            else:
                self._chats[key] = (lock, users - 1)

    def _drop(self, update: object, coroutine: Awaitable[Any], why: str) -> None:
        if asyncio.iscoroutine(coroutine):
            coroutine.close()  # never started: nothing to undo
        self.dropped += 1
        update_id = update.update_id if isinstance(update, Update) else None
        log.info("update %s dropped: %s", update_id, why)

    async def initialize(self) -> None:
        """Start watching the event loop's clock."""
        self.arrivals.start()

    async def shutdown(self) -> None:
        """Stop watching it."""
        await self.arrivals.stop()
