"""Due work shared by every bot instance on the database: each runs what it claimed, once.

A move stores the work it makes due (the turn's reminder and timeout, a computer's move) in its
own transaction (:meth:`storage.Store.commit_move`). The instance that made the move also wakes
itself at the due time (the turn timers' scheduler, the computer players' pause); every instance
polls the store for work that is due and that nobody holds, which is how a dead instance's work
is taken over: its claim's lease runs out after :data:`LEASE`. Whoever runs a piece of work
claims it first, so it runs once.

The delivery of a live message (a table, a hand, a turn bell) is claimed too
(:class:`Delivery`, a lock in the store), so that one instance at a time sends, edits or
deletes it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.background import Background
from storage import DatabaseUnavailable, Season, Store, Work

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=10)
"""How long a claim holds its work: longer than any piece takes; after it, another may run it."""

RETRY = timedelta(seconds=5)
"""How long work that failed waits before it is tried again."""

POLL = 1.0
"""Seconds between two looks for due work nobody holds."""

SEASON_LOOK = timedelta(minutes=1)
"""How often an instance looks for a month that is over and not announced yet."""

SEASON_LEASE = timedelta(minutes=10)
"""How long a claim holds a month: its announcement may wait for the group's budget."""

Handler = Callable[[Work], Awaitable[None]]


def instance_name() -> str:
    """This process's name in the claims it makes: host, process id, and a random tail."""
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True, slots=True)
class Delivery:
    """The delivery of one live message, claimed in the store (a :class:`bot.delivery.Claim`):
    ``key`` is (match, kind, seat), kind ``table`` (seat 0), ``hand`` or ``bell``. A dead
    instance's claims go with its database connection."""

    store: Store
    key: tuple[int, str, int]

    def take(self) -> bool:
        """Take it, unless another instance holds it."""
        return self.store.claim_delivery(self.key)

    def release(self) -> None:
        """Give it back."""
        self.store.release_delivery(self.key)


class DueWork:
    """Claims due work from the store and runs each piece with the handler of its kind."""

    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock
        self.owner = instance_name()
        self.handlers: dict[str, Handler] = {}
        self.announce: Callable[[Season], Awaitable[None]] | None = None
        """Announces a month that is over (:class:`bot.seasons.Seasons`)."""
        self._seasons_from: datetime | None = None
        """When to look for months to announce again (None: at the next poll)."""
        self._poller: asyncio.Task[None] | None = None
        self.every_minute: list[Callable[[], Awaitable[None]]] = []
        """What an instance does about once a minute as it polls (a tournament round's time
        armed again: another instance may have paired the round)."""
        self._minute_from: datetime | None = None
        self.background = Background()
        """The claimed work running."""

    async def claim(
        self,
        match_id: int,
        kind: str,
        *,
        due_at: datetime | None = None,
        version: int | None = None,
    ) -> Work | None:
        """Claim the match's work of ``kind`` (that very piece: due at ``due_at``, or set at
        ``version``) unless another instance holds it (written off the event loop)."""
        claim = functools.partial(self.store.claim_work, due_at=due_at, version=version)
        return await self.store.off(claim, self.owner, match_id, kind, self.clock(), LEASE)

    def skip(self, match_id: int, kind: str, due_at: datetime) -> None:
        """Drop the match's work of ``kind`` due at ``due_at`` unless another instance holds
        it: a wake-up that is too late to be of use (a reminder of a turn half over)."""
        self._start(self._skipped(match_id, kind, due_at))

    async def _skipped(self, match_id: int, kind: str, due_at: datetime) -> None:
        late = await self.claim(match_id, kind, due_at=due_at)
        if late is not None:
            await self.store.off(self.store.finish_work, late)

    async def run(self, item: Work) -> None:
        """Run a claimed piece of work, then drop it (a move it made has replaced it already).
        Work that failed, or was cancelled as the instance stops, is given back: another
        instance (or this one, after :data:`RETRY`) runs it."""
        try:
            await self.handlers[item.kind](item)
        except BaseException as error:
            # No await here: a cancelled task still gives its work back.
            retry = isinstance(error, Exception)
            self.store.release_work(item, self.clock() + RETRY if retry else None)
            raise
        await self.store.off(self.store.finish_work, item)

    async def run_local(self, match_id: int, kind: str, due_at: datetime) -> None:
        """This instance's own wake-up at ``due_at``: run the work unless another took it."""
        item = await self.claim(match_id, kind, due_at=due_at)
        if item is not None:
            await self.run(item)

    async def poll(self) -> int:
        """Claim what is due and nobody holds, and start running it (and, every
        :data:`SEASON_LOOK`, the months to announce); how many pieces."""
        claimed = await self.store.off(self.store.claim_due, self.owner, self.clock(), LEASE)
        for item in claimed:
            self._start(self._guarded(item))
        seasons = await self._due_seasons()
        for season in seasons:
            self._start(self._announced(season))
        await self._each_minute()
        return len(claimed) + len(seasons)

    async def _each_minute(self) -> None:
        """Run :attr:`every_minute`, when a minute has passed since the last time."""
        now = self.clock()
        if self._minute_from is not None and now < self._minute_from:
            return
        self._minute_from = now + SEASON_LOOK
        for look in self.every_minute:
            try:
                await look()
            except DatabaseUnavailable as error:
                log.error("a look once a minute failed: %s", error)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        self.background.spawn(work)

    async def _due_seasons(self) -> list[Season]:
        """The months that are over, claimed, when it is time to look."""
        now = self.clock()
        if self.announce is None or (self._seasons_from is not None and now < self._seasons_from):
            return []
        self._seasons_from = now + SEASON_LOOK
        return await self.store.off(self.store.claim_due_seasons, self.owner, now, SEASON_LEASE)

    async def _announced(self, season: Season) -> None:
        """Announce a claimed month; on a failure it is given back, for a retry."""
        assert self.announce is not None
        try:
            await self.announce(season)
        except Exception:
            log.exception("the announcement of %s failed", season)
            await self.store.off(self.store.release_season, season, self.clock() + RETRY)

    async def _guarded(self, item: Work) -> None:
        try:
            await self.run(item)
        except DatabaseUnavailable as error:
            log.error("due work %s failed: %s", item, error)
        except Exception:
            log.exception("due work %s failed", item)

    def start(self, interval: float = POLL) -> None:
        """Look for due work every ``interval`` seconds until :meth:`close`."""
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll_forever(interval))

    async def _poll_forever(self, interval: float) -> None:
        while True:
            try:
                await self.poll()
            except DatabaseUnavailable as error:
                log.error("looking for due work failed: %s", error)
            except Exception:
                log.exception("looking for due work failed")
            await asyncio.sleep(interval)

    async def close(self) -> None:
        """Stop polling, and let the work in progress end."""
        if self._poller is not None:
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)
            self._poller = None
        await self.background.close(cancel=False)
