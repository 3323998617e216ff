"""What a store that is its database's only writer has read, kept in memory (issue 26).

The bot holds its SQLite file alone (:meth:`storage.store.Store.open` with ``exclusive``), so
every change to the file goes through its own store: the store can keep the matches, people
and group settings it read and answer the next read from memory. Each write says what it
touches; the store drops what it touched when the transaction ends (whether or not it
committed) and may keep the record as the write left it, built from the one it had. A write
that does not say clears everything: a forgotten case costs a read, never a stale record.

A database shared by several instances (PostgreSQL) keeps no match: another instance may
move in it at any time. It keeps people and group settings for :data:`SHARED_LASTING` seconds
after it read them: long enough for a press and the messages it shows, which read them several
times within a fraction of a second, and shorter than a person takes to act again through
another instance (open the private chat, then join; choose a setting, then open a lobby), so
that no instance acts on what another changed. A write there keeps nothing it wrote: it
forgets what it touched, and the next read asks the database.

The store is called from the event loop and from its own thread (:mod:`storage.threads`), so
a read and a write, or two writes, may overlap. Each keep therefore names the :meth:`Kept.stamp`
it took before it read or wrote: a read keeps its record only if no write that touched the same
record ended since (a move in one match does not spoil a group's settings read meanwhile), and a
write only if no other write ended; else the record is not kept, and the next read asks the
database. An overlap costs a read, never a stale record. The writes take turns
(:class:`storage.base.StoreBase` holds a lock from a write's stamp until it kept its record), a
write gives the record it leaves inside its transaction, and the record kept is replaced as the
write ends, in one step: a read on the loop never finds it missing while the store's thread
writes.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from storage.records import ChatSettings, MatchRecord, SeatRecord, UserRecord

KEPT_MOST: Final = 2_000
"""Records of each kind kept at most (the latest used)."""

TOUCHES_MOST: Final = 3 * KEPT_MOST
"""Writes remembered by what they touched (:meth:`Kept.keep`); older ones count as touching all."""

SHARED_LASTING: Final = 1.0
"""Seconds a store on a shared database keeps a person or a group's settings it read."""

MATCH: Final = "match"
USER: Final = "user"
CHAT: Final = "chat"
NOTHING: Final = ("nothing", 0)
"""A write that changes no record the store keeps (due work, budgets, questions, locks)."""

Stamp = int
"""How many writes that touched a kept record had ended (:meth:`Kept.stamp`)."""

Touch = tuple[str, int]
"""What a write changes: (:data:`MATCH`, id), (:data:`USER`, id) or (:data:`CHAT`, id)."""


class Kept:
    """The records a store read or wrote, by kind and id; nothing when not ``enabled``.

    ``lasting`` (a database other instances write too): only people and group settings are
    kept, each for that many seconds of ``clock`` after it was read, and no write's record."""

    def __init__(
        self,
        enabled: bool,
        most: int = KEPT_MOST,
        lasting: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = enabled
        self.most = most
        self.lasting = lasting
        self.clock = clock
        self.kinds = (MATCH, USER, CHAT) if lasting is None else (USER, CHAT)
        self._records: dict[str, OrderedDict[int, tuple[object, float]]] = {
            MATCH: OrderedDict(),
            USER: OrderedDict(),
            CHAT: OrderedDict(),
        }
        self._guard = threading.Lock()
        self._writes = 0
        """How many writes that touch a kept record ended (see :meth:`stamp`)."""
        self._touched: OrderedDict[Touch, Stamp] = OrderedDict()
        """The number of the write that last touched each record, latest last."""
        self._forgotten: Stamp = 0
        """Writes up to this number may have touched any record (cleared all, or forgotten)."""
        self._staged = threading.local()
        """The record the current thread's write leaves, kept as the write ends."""

    @property
    def serial(self) -> bool:
        """Whether the store's writes take turns (:class:`storage.base.StoreBase`): when what
        a write leaves is kept."""
        return self.enabled and self.lasting is None

    def stamp(self) -> Stamp:
        """Take before reading or writing what is then kept (:meth:`keep`)."""
        with self._guard:
            return self._writes

    def get(self, kind: str, key: int, lasting_more: float = 0.0) -> object | None:
        """The kept record of ``kind`` ``key``; None when none is kept (with ``lasting``: or
        when it is kept for less than ``lasting_more`` seconds more)."""
        if not self.enabled or kind not in self.kinds:
            return None
        with self._guard:
            records = self._records[kind]
            found = records.get(key)
            if found is None:
                return None
            if self.lasting is not None and self.clock() - found[1] > self.lasting - lasting_more:
                return None  # left in place for :meth:`last`; replaced when read again
            records.move_to_end(key)
            return found[0]

    def keep(self, kind: str, key: int, record: object, since: Stamp, wrote: bool = False) -> None:
        """Keep ``record`` as what ``kind`` ``key`` is now in the database, read after
        :meth:`stamp` gave ``since``; when a write that touched it ended meanwhile the record
        may be older than the database's: it is not kept, and what that write left stays (or
        nothing). ``wrote``: the record a write leaves,
        given inside its transaction: it replaces the kept one as the write ends
        (:meth:`drop`), in one step, so a read meanwhile never finds the record missing."""
        if not self.enabled or kind not in self.kinds or (wrote and not self.serial):
            return
        if wrote:
            self._staged.record = (kind, key, record, since)
            return
        with self._guard:
            if self._forgotten <= since and self._touched.get((kind, key), 0) <= since:
                self._put(kind, key, record)

    def drop(self, touched: Touch | None, committed: bool = False) -> None:
        """A write ended: forget what it touched (None: everything), or (``committed``) keep
        the record it left (:meth:`keep`) unless another write ended since it began."""
        staged = getattr(self._staged, "record", None)
        self._staged.record = None
        if not self.enabled or touched == NOTHING:
            return
        with self._guard:
            self._writes += 1
            if touched is None:
                self._forgotten = self._writes
                for records in self._records.values():
                    records.clear()
                return
            self._note_touch(touched)
            kind, key = touched
            self._records[kind].pop(key, None)
            # Kept only when no other write ended since this one began.
            if (
                committed
                and staged is not None
                and staged[:2] == touched
                and self._writes == staged[3] + 1
            ):
                self._put(kind, key, staged[2])

    def _note_touch(self, touched: Touch) -> None:
        self._touched[touched] = self._writes
        self._touched.move_to_end(touched)
        if len(self._touched) > TOUCHES_MOST:
            _, number = self._touched.popitem(last=False)
            self._forgotten = max(self._forgotten, number)

    def _put(self, kind: str, key: int, record: object) -> None:
        records = self._records[kind]
        records[key] = (record, self.clock())
        records.move_to_end(key)
        if len(records) > self.most:
            records.popitem(last=False)

    # --- typed access -------------------------------------------------------------------------

    def match(self, match_id: int) -> MatchRecord | None:
        """The kept match, its options a copy of its own (a caller may change them)."""
        found = self.get(MATCH, match_id)
        if not isinstance(found, MatchRecord):
            return None
        return replace(found, options=copy.deepcopy(found.options))

    def keep_match(self, record: MatchRecord, since: Stamp, wrote: bool = False) -> None:
        """Keep a match as read or written (its options copied; see :meth:`keep`)."""
        copied = replace(record, options=copy.deepcopy(record.options))
        self.keep(MATCH, record.id, copied, since, wrote)

    def changed(
        self, before: MatchRecord | None, since: Stamp, seat: int | None = None, **fields: Any
    ) -> None:
        """Keep a match as a write left it: ``before`` (as kept after :meth:`stamp` gave
        ``since``, before the write; None: it was not kept) with ``fields`` of the match, or
        of seat ``seat``, changed."""
        if before is None:
            return
        if seat is None:
            self.keep_match(replace(before, **fields), since, wrote=True)
        else:
            after = with_seat(before, seat, lambda kept: replace(kept, **fields))
            self.keep_match(after, since, wrote=True)

    def last(self, kind: str, key: int) -> object | None:
        """The record of ``kind`` ``key`` as last read or written, however long ago (with
        ``lasting``, perhaps older than what the database holds now); None when none is kept."""
        if not self.enabled or kind not in self.kinds:
            return None
        with self._guard:
            found = self._records[kind].get(key)
            return None if found is None else found[0]

    def lasts(self, kind: str, key: int) -> bool:
        """Whether the record of ``kind`` ``key`` is kept, and (with ``lasting``) for at least
        half that time more: what is read at once after asking is still kept then."""
        return self.get(kind, key, (self.lasting or 0.0) / 2) is not None

    def user(self, user_id: int) -> UserRecord | Absent | None:
        """The kept user, :data:`ABSENT` when the database has none, None when not kept."""
        found = self.get(USER, user_id)
        return found if isinstance(found, UserRecord | Absent) else None

    def chat(self, chat_id: int) -> ChatSettings | None:
        """The kept settings of a chat, their default options a copy."""
        found = self.get(CHAT, chat_id)
        if not isinstance(found, ChatSettings):
            return None
        return replace(found, default_options=copy.deepcopy(found.default_options))


class Absent:
    """The type of :data:`ABSENT`."""


ABSENT: Final = Absent()
"""Kept for a user the database does not have."""


def with_seat(
    record: MatchRecord, seat: int, change: Callable[[SeatRecord], SeatRecord]
) -> MatchRecord:
    """The match with seat ``seat`` changed by ``change``."""
    seats = tuple(change(s) if s.seat == seat else s for s in record.seats)
    return replace(record, seats=seats)
