"""The stored matches as the bot uses them: their engines (cached per version), their locks."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager

from bot.answer import Answer
from bot.hand.state import HandUI, decode_step, encode_step
from bot.i18n import t
from bot.render.table import table_names
from engine.games import GameMatch, GameSpec, game
from storage import (
    ChatBusy,
    Conflict,
    MatchNotFound,
    MatchRecord,
    SeatError,
    SeatRecord,
    SeatUI,
    StaleVersion,
    Store,
    WrongStatus,
)

log = logging.getLogger(__name__)

LOCK_POLL = 0.01
"""Seconds between tries for a match another instance holds (it holds it for one press)."""
LOCK_WAIT = 5.0
"""Seconds a press or a piece of work waits for a match another instance holds, at most."""


class MatchHeld(Exception):
    """Another instance has held the match for :data:`LOCK_WAIT` seconds: nothing was done."""


async def answered(work: Awaitable[Answer], lang: str) -> Answer:
    """The answer to a press (``work``); a press that lost a race (another instance, or a
    second press, changed the match first) did nothing and is answered as stale; one on a match
    another instance holds, as busy."""
    try:
        return await work
    except (StaleVersion, WrongStatus, SeatError, Conflict, MatchNotFound, ChatBusy):
        return Answer(t(lang, "ans.stale"))
    except MatchHeld:
        return Answer(t(lang, "ans.busy"))


class Matches:
    """Access to the stored matches; nothing here lives only in memory but caches."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}
        """Each match's lock in this process, with how many hold it or wait for it (it goes
        when nobody does: a forged button's match id leaves nothing behind)."""
        self._engines: dict[int, tuple[int, GameMatch]] = {}
        self._giving_back: set[asyncio.Future[None]] = set()

    @asynccontextmanager
    async def hold(self, match_id: int) -> AsyncIterator[MatchRecord | None]:
        """Hold the match and read it once, under the hold: in this process (an asyncio lock),
        then across the instances on the database (the store's match lock: PostgreSQL's
        advisory lock, taken and the match read in one question off the event loop; free on
        SQLite). Gives the match as stored, None when there is no such match (a forged
        button). :class:`MatchHeld` after waiting :data:`LOCK_WAIT` seconds for another
        instance."""
        lock, users = self._locks.get(match_id, (asyncio.Lock(), 0))
        self._locks[match_id] = (lock, users + 1)
        try:
            async with lock:
                generation, record = await self._take(match_id)
                try:
                    yield record
                finally:
                    self._give_back(match_id, generation)
        finally:
            lock, users = self._locks[match_id]
            if users == 1:
                del self._locks[match_id]
            else:
                self._locks[match_id] = (lock, users - 1)

    async def _take(self, match_id: int) -> tuple[int, MatchRecord | None]:
        """The store's match lock taken, and the match read (see :meth:`hold`): the lock's
        generation (:meth:`storage.Store.take_match_lock`) and the match."""
        if not self.store.shared:  # one process alone: its asyncio lock is the lock
            return 0, await self.load(match_id)
        waited = 0.0
        while True:
            taking = asyncio.ensure_future(self.store.read(self._lock_and_read, match_id))
            try:
                generation, record = await asyncio.shield(taking)
            except asyncio.CancelledError:  # what the database gives meanwhile is given back
                taking.add_done_callback(functools.partial(self._taken_late, match_id))
                raise
            if generation is not None:
                return generation, record
            if waited >= LOCK_WAIT:
                raise MatchHeld(f"match {match_id} is held by another instance")
            await asyncio.sleep(LOCK_POLL)
            waited += LOCK_POLL

    def _lock_and_read(self, match_id: int) -> tuple[int | None, MatchRecord | None]:
        """In the store's threads: take the match's lock and, once taken, read the match
        (the lock given back when the read fails). The lock's generation (None: not taken)."""
        generation = self.store.take_match_lock(match_id)
        if generation is None:
            return None, None
        try:
            return generation, self.read(match_id)
        except BaseException:
            self.store.unlock_match(match_id, generation)
            raise

    def _taken_late(self, match_id: int, taking: asyncio.Future[tuple[int | None, object]]) -> None:
        if not taking.cancelled() and taking.exception() is None:
            generation = taking.result()[0]
            if generation is not None:
                self._give_back(match_id, generation)

    def _give_back(self, match_id: int, generation: int) -> None:
        """Give back the store's match lock (on a shared database: on SQLite there is none),
        asked off the event loop beside the writes, and not waited for: this process's locks
        are counted on one connection, so a press here that takes the match meanwhile counts
        one more; a lock whose connection broke since (``generation``) went with it."""
        if not self.store.shared:
            return
        unlock = self.store.unlock_match
        task = asyncio.ensure_future(self.store.read(unlock, match_id, generation))
        self._giving_back.add(task)
        task.add_done_callback(self._given_back)

    async def given_back(self) -> None:
        """Wait until the database has every match lock this process gave back."""
        while self._giving_back:
            await asyncio.gather(*self._giving_back, return_exceptions=True)

    def _given_back(self, task: asyncio.Future[None]) -> None:
        self._giving_back.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # The lock connection broke: its locks went with it.
            log.warning("a match lock was not given back: %s", task.exception())

    async def load(self, match_id: int, render: bool = False) -> MatchRecord | None:
        """The stored match, or None when there is no such match (a forged button), with its
        people and its group's settings ready in the store's memory (:func:`people_of`):
        each as the store keeps it (the bot alone on its SQLite file; people and settings
        for a second on a database shared by instances, which keeps no match), else read off
        the event loop, all in one question to the store; for a ``render`` (a message going
        out), after the reads of the presses waiting."""
        record = self.store.kept_match(match_id)
        if record is not None and self.store.keeps(*people_of(record)):
            return record
        if render:
            return await self.store.read_after(functools.partial(self.read, match_id))
        return await self.store.read(self.read, match_id)

    def read(self, match_id: int) -> MatchRecord | None:
        """In the store's threads: the match and its people, those the store does not keep
        for a while yet read again (see :meth:`load`); None when there is no such match."""
        try:
            record = self.store.get_match(match_id)
        except MatchNotFound:
            return None
        self.store.read_people(*people_of(record))
        return record

    async def stored(self, match_id: int) -> MatchRecord:
        """The stored match, loaded as :meth:`load` does (MatchNotFound if there is none)."""
        record = await self.load(match_id)
        if record is None:
            raise MatchNotFound(self.store.database, match_id)
        return record

    def engine(self, record: MatchRecord) -> GameMatch:
        """The engine match of a record (cached per version: another instance's move makes
        a new version, and the cache is read again from the store)."""
        cached = self._engines.get(record.id)
        if cached is not None and cached[0] == record.version:
            return cached[1]
        match = self.store.load_engine_match(record)
        self._engines[record.id] = (record.version, match)
        return match

    def keep(self, match_id: int, version: int, match: GameMatch) -> None:
        """Cache the engine of a version just committed."""
        self._engines[match_id] = (version, match)

    def forget(self, match_id: int) -> None:
        """Drop the cached engine (after a failed commit it may be ahead of the store)."""
        self._engines.pop(match_id, None)

    @staticmethod
    def spec(record: MatchRecord) -> GameSpec:
        """The game of a match."""
        return game(record.game)

    @staticmethod
    def names(record: MatchRecord) -> list[str]:
        """Seat display names, in seat order, as the table shows them (a phone's width:
        :func:`~bot.render.table.table_names`), so every message of the match names a seat
        alike."""
        return table_names(record)

    @staticmethod
    def is_computer(record: MatchRecord, match: GameMatch, seat: int) -> bool:
        """A seat the bot plays: a computer player, or one whose player left (Scopone)."""
        return record.seats[seat].is_computer or seat in match.computer_seats


def people_of(record: MatchRecord) -> tuple[set[int], set[int]]:
    """Whom a match's messages name and whose languages they speak: its people, and its
    group (a private match: its chat is its player's)."""
    users = {seat.user_id for seat in record.seats if seat.user_id is not None}
    if record.chat_id > 0:
        return users | {record.chat_id}, set()
    return users, {record.chat_id}


def ui_of(seat: SeatRecord) -> HandUI:
    """The stored seat UI as the bot's :class:`HandUI` (its step decoded)."""
    ui = seat.ui
    return HandUI(
        selected=tuple(ui.selected),
        staged=tuple(tuple(m) for m in ui.staged),
        order=tuple(ui.order or ()),
        sort=ui.sort,
        step=decode_step(ui.mode, ui.pending),
        version=ui.version,
    )


def seat_ui(ui: HandUI) -> SeatUI:
    """The bot's :class:`HandUI` as the store keeps it (its step encoded)."""
    mode, pending = encode_step(ui.step)
    return SeatUI(
        selected=tuple(ui.selected),
        staged=tuple(tuple(m) for m in ui.staged),
        order=tuple(ui.order) or None,
        sort=ui.sort,
        version=ui.version,
        mode=mode,
        pending=pending,
    )


def save_ui(store: Store, match_id: int, seat: int, ui: HandUI) -> None:
    """Store a seat's new UI state (based on ``ui.version``; a racing writer is refused)."""
    stored = seat_ui(ui)
    store.update_seat_ui(
        match_id,
        seat,
        ui.version,
        selected=stored.selected,
        staged=stored.staged,
        order=stored.order,
        sort=stored.sort,
        mode=stored.mode,
        pending=stored.pending,
    )


def alone(record: MatchRecord) -> bool:
    """Whether the match is played in a private chat by one person (against computers)."""
    return record.chat_id > 0 and sum(1 for s in record.seats if s.user_id is not None) <= 1
