"""Stored due work and match locks: what lets several bot instances share one database.

Work (a turn's reminder and timeout, a computer's move) is a row of ``work``, written in the same
transaction as the move that makes it due. An instance claims a row for a lease: on PostgreSQL
with ``SELECT … FOR UPDATE SKIP LOCKED``, so instances polling together never take the same row;
on SQLite the writers queue anyway. The instance that runs the work deletes the row, or the move
the work makes replaces it; a lease that ran out (its instance died) lets another take it.

A match lock serialises a match's presses across instances: a PostgreSQL advisory lock held by
one connection per store; on SQLite (one process) the bot's own lock is enough.

A delivery claim serialises what the instances do to one live message (a match's table, a
seat's hand or turn bell): an advisory lock of the same connection, held while an instance
renders, sends, edits or deletes that message and stores the outcome.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, delete, insert, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import DBAPIError
from sqlmodel import col

from storage.models import WorkTable
from storage.records import Work

DELIVERY_KINDS = ("table", "hand", "bell")
"""The live messages whose delivery is claimed: a match's table, a seat's hand or turn bell."""

IDLE_TIMEOUT = "20s"
"""How long PostgreSQL keeps the lock connection of an instance that does nothing (frozen):
then the session ends, and its locks with it. A live instance just connects again."""

KINDS = ("remind", "timeout", "computer")
"""The kinds of due work."""

_COLUMNS = (
    col(WorkTable.match_id),
    col(WorkTable.kind),
    col(WorkTable.version),
    col(WorkTable.due_at),
)


def _work(row: Sequence[object]) -> Work:
    match_id, kind, version, due_at = row
    assert isinstance(match_id, int) and isinstance(kind, str) and isinstance(version, int)
    assert isinstance(due_at, datetime)
    return Work(match_id, kind, version, due_at)


def replace_work(
    db: Connection, match_id: int, version: int, items: Sequence[tuple[str, datetime]]
) -> None:
    """The match's work becomes ``items`` (kind, due time), set at ``version``."""
    for kind, when in items:
        if kind not in KINDS:
            raise ValueError(f"unknown kind of work {kind!r}: use one of {', '.join(KINDS)}")
        if when.tzinfo is None:
            raise ValueError(f"a due time must be timezone-aware, got {when!r}")
    db.execute(delete(WorkTable).where(col(WorkTable.match_id) == match_id))
    for kind, when in items:
        db.execute(
            insert(WorkTable).values(match_id=match_id, kind=kind, version=version, due_at=when)
        )


def unclaimed(claimed_until: Any, now: datetime) -> ColumnElement[bool]:
    """Rows of a claimable table (due work, seasons) that nobody holds: never claimed, or
    their lease (``claimed_until``, the table's column) ran out."""
    return or_(col(claimed_until).is_(None), col(claimed_until) < now)


def released(until: datetime | None) -> dict[str, Any]:
    """The values that give a claimed row back, free again at ``until`` (None: at once)."""
    return {"claimed_by": None if until is None else "(released)", "claimed_until": until}


def claim_due(
    db: Connection, owner: str, now: datetime, lease: timedelta, limit: int
) -> list[Work]:
    """Claim up to ``limit`` rows due by ``now`` that nobody holds, for ``lease``."""
    query = (
        sa_select(*_COLUMNS)
        .where(col(WorkTable.due_at) <= now, unclaimed(WorkTable.claimed_until, now))
        .order_by(col(WorkTable.due_at))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    found = [_work(row) for row in db.execute(query).all()]
    for item in found:
        _hold(db, item, owner, now + lease)
    return found


def claim_one(
    db: Connection,
    owner: str,
    match_id: int,
    kind: str,
    now: datetime,
    lease: timedelta,
    *,
    due_at: datetime | None = None,
    version: int | None = None,
) -> Work | None:
    """Claim the match's work of ``kind`` if nobody holds it and it is that piece: due at
    ``due_at``, or set at ``version`` (a wake-up in the instance that set it knows which)."""
    query = sa_select(*_COLUMNS).where(
        col(WorkTable.match_id) == match_id,
        col(WorkTable.kind) == kind,
        unclaimed(WorkTable.claimed_until, now),
    )
    if due_at is not None:
        query = query.where(col(WorkTable.due_at) == due_at)
    if version is not None:
        query = query.where(col(WorkTable.version) == version)
    row = db.execute(query.with_for_update(skip_locked=True)).first()
    if row is None:
        return None
    item = _work(row)
    _hold(db, item, owner, now + lease)
    return item


def _hold(db: Connection, item: Work, owner: str, until: datetime) -> None:
    db.execute(
        update(WorkTable)
        .where(col(WorkTable.match_id) == item.match_id, col(WorkTable.kind) == item.kind)
        .values(claimed_by=owner, claimed_until=until)
    )


def finish(db: Connection, item: Work) -> None:
    """The work is done: its row goes (unless a move replaced it with newer work)."""
    db.execute(
        delete(WorkTable).where(
            and_(
                col(WorkTable.match_id) == item.match_id,
                col(WorkTable.kind) == item.kind,
                col(WorkTable.version) == item.version,
                col(WorkTable.due_at) == item.due_at,
            )
        )
    )


def release(db: Connection, item: Work, until: datetime | None) -> None:
    """Give the claimed work back (it failed, or its instance stops): free again at ``until``
    (None: at once)."""
    db.execute(
        update(WorkTable)
        .where(
            col(WorkTable.match_id) == item.match_id,
            col(WorkTable.kind) == item.kind,
            col(WorkTable.version) == item.version,
            col(WorkTable.due_at) == item.due_at,
        )
        .values(**released(until))
    )


def pending(db: Connection, match_id: int | None = None) -> list[Work]:
    """The stored work (of one match), soonest first."""
    query = sa_select(*_COLUMNS).order_by(col(WorkTable.due_at), col(WorkTable.kind))
    if match_id is not None:
        query = query.where(col(WorkTable.match_id) == match_id)
    return [_work(row) for row in db.execute(query).all()]


def _lock(name: str, match_id: int) -> str:
    """The two keys of a match's advisory lock ``name``: the first a hash of the schema and the
    name, so that bots (or tests) in other schemas of the database never share a lock."""
    return f"hashtext(current_schema() || '/{name}'), {int(match_id)}"


def _delivery(key: tuple[int, str, int]) -> str:
    match_id, kind, seat = key
    if kind not in DELIVERY_KINDS or not 0 <= seat < 256:
        raise ValueError(f"no such live message: {key!r}")
    return _lock(f"{kind}/{int(seat)}", match_id)


class Hold:
    """A bot's hold on its PostgreSQL schema, on a connection of its own until :meth:`release`
    or the process's end: ``alone`` (one instance: it is the database's only writer, and keeps
    what it read) or shared by the instances of one deployment. An instance alone and any
    other refuse each other, so no instance ever writes beside one that keeps what it read."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Connection | None = None

    def take(self, alone: bool) -> bool:
        """Take the hold; whether it was free (alone: nobody else holds it; shared: nobody
        holds it alone)."""
        function = "pg_try_advisory_lock" if alone else "pg_try_advisory_lock_shared"
        connection = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            taken = connection.exec_driver_sql(f"SELECT {function}({_lock('hold', 0)})").scalar()
        except BaseException:
            connection.close()
            raise
        if not taken:
            connection.close()
            return False
        self._connection = connection
        return True

    def release(self) -> None:
        """Let go of the hold (its connection closes)."""
        if self._connection is not None:
            with contextlib.suppress(DBAPIError):
                self._connection.close()
            self._connection = None


class MatchLocks:
    """Advisory locks on matches (and on the delivery of their live messages), held by one
    PostgreSQL connection of this process.

    A lock is a pair of keys (:func:`_lock`); PostgreSQL frees every lock of the
    connection when it closes, so a dead instance holds none, and it ends the session of an
    instance frozen for :data:`IDLE_TIMEOUT` (PostgreSQL 14 and newer), so a frozen one holds
    its locks no longer. Without PostgreSQL every lock is granted at once (one process: the
    bot's own lock serialises).
    """

    def __init__(self, engine: Engine, shared: bool) -> None:
        self._engine = engine
        self._shared = shared
        self._connection: Connection | None = None
        self._guard = threading.RLock()
        self._generation = 0
        """How many connections were made: a lock taken on one is gone with it."""

    def try_lock(self, match_id: int) -> bool:
        """Take the match's lock if no other instance holds it; whether it was taken."""
        return self.take(match_id) is not None

    def take(self, match_id: int) -> int | None:
        """Take the match's lock if no other instance holds it: the generation of the
        connection that holds it (:meth:`unlock`), None when not taken."""
        if not self._shared:
            return 0
        with self._guard:
            sql = f"SELECT pg_try_advisory_lock({_lock('match', match_id)})"
            return self._generation if self._run(sql) else None

    def unlock(self, match_id: int, generation: int | None = None) -> None:
        """Release the match's lock (taken with :meth:`try_lock`); one taken on a connection
        of an earlier ``generation`` went with it, and another lock of this process on the
        match, taken since on a new connection, is not released in its place."""
        if not self._shared:
            return
        with self._guard:
            if generation is None or generation == self._generation:
                self._run(f"SELECT pg_advisory_unlock({_lock('match', match_id)})")

    def try_claim(self, key: tuple[int, str, int]) -> bool:
        """Claim the delivery of a live message (match, kind, seat) if no other instance holds
        it; whether it was claimed."""
        keys = _delivery(key)
        if not self._shared:
            return True
        return bool(self._run(f"SELECT pg_try_advisory_lock({keys})"))

    def release_claim(self, key: tuple[int, str, int]) -> None:
        """Give back a delivery claimed with :meth:`try_claim`."""
        keys = _delivery(key)
        if self._shared:
            self._run(f"SELECT pg_advisory_unlock({keys})")

    def _run(self, sql: str) -> object:
        with self._guard:  # re-entrant: take and unlock hold it around their generation
            for attempt in (1, 2):
                try:
                    if self._connection is None:
                        self._connection = self._connect()
                    return self._connection.exec_driver_sql(sql).scalar()
                except DBAPIError:
                    # The connection broke (the server restarted): its locks are gone with it.
                    self.close()
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")

    def _connect(self) -> Connection:
        self._generation += 1
        connection = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        # Before PostgreSQL 14 there is no such setting: a frozen instance holds its locks
        # until it is killed.
        with contextlib.suppress(DBAPIError):
            connection.exec_driver_sql(f"SET idle_session_timeout = '{IDLE_TIMEOUT}'")
        return connection

    def close(self) -> None:
        """Close the connection, never to be used again: every lock it holds is released."""
        if self._connection is not None:
            connection, self._connection = self._connection, None
            with contextlib.suppress(DBAPIError):
                connection.invalidate()  # not back to the pool, where it would keep its locks
                connection.close()
