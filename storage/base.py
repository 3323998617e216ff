"""What every part of the store shares: the engine and its transactions (a write says what it
touches, :mod:`storage.kept`), how database failures are told, and the row helpers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import Enum
from typing import Final, NoReturn, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine, delete, func, insert, text
from sqlalchemy import select as sa_select
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, col, select

from engine.games import GAMES
from storage.database import (
    BUSY_TIMEOUT_MS,
    WRITE_OPTION,
    database_label,
    is_sqlite,
    sqlite_path,
    write_trouble,
)
from storage.errors import (
    Conflict,
    DatabaseUnavailable,
    MatchNotFound,
    SeatedElsewhere,
    StaleVersion,
    StoreError,
    WrongStatus,
)
from storage.kept import Kept, Touch
from storage.models import NAME_LENGTH, ChatTable, MatchTable, ResultTable, SeatTable
from storage.pairings import settle_table
from storage.ratings import rate_match
from storage.records import FINISHED, LOBBY, PlayerResult
from storage.seasons import note_season
from storage.threads import AFTER, FIRST, StoreThreads
from storage.work import Hold, MatchLocks, replace_work


def _now() -> datetime:
    return datetime.now(UTC)


def _name(name: str) -> str:
    return name[:NAME_LENGTH]


def _reason(error: BaseException) -> str:
    if isinstance(error, DBAPIError) and error.orig is not None:
        return str(error.orig).strip() or type(error.orig).__name__
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _error_name(error: BaseException) -> str:
    """SQLite's name for the error (``SQLITE_FULL``, ...), or PostgreSQL's SQLSTATE, or ''."""
    orig = error.orig if isinstance(error, DBAPIError) else error
    name = getattr(orig, "sqlite_errorname", None) or getattr(orig, "sqlstate", None)
    return name if isinstance(name, str) else ""


def _server_trouble(sqlstate: str) -> str | None:
    """What a PostgreSQL error says about the server rather than the query, if it does."""
    if sqlstate.startswith("53"):
        return "the database server is out of disk space or of another resource"
    if sqlstate == "25006":
        return "the database server takes no writes (a read-only server or replica?)"
    return None


_T = TypeVar("_T")
_P = ParamSpec("_P")

SERVER_THREADS: Final = 4
"""Threads that work for the bot on a database server (several commits travel at once); on a
SQLite file one does, as the file takes one writer at a time anyway."""
READ_THREADS: Final = 2
"""Threads that read for the bot (:meth:`StoreBase.read`), beside those that write: a read
never waits behind the writes queued (SQLite's write-ahead log lets readers read while its one
writer writes)."""


_DAMAGED: Final = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
"""SQLite's errors that mean the file itself is damaged or is no database."""


def _next_host(seats: Sequence[SeatTable], after: int, host: int) -> int:
    """The person seated next after seat ``after`` (else the first seated one; else ``host``
    stays)."""
    people = [seat for seat in seats if seat.user_id is not None]
    following = [seat for seat in people if seat.seat > after] or people
    return following[0].user_id if following and following[0].user_id is not None else host


def _copy_seat(row: SeatTable, seat: int) -> SeatTable:
    data = row.model_dump()
    data["seat"] = seat
    return SeatTable(**data)


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")


def _check_when(when: datetime | None) -> None:
    if when is not None and (when.tzinfo is None or when.utcoffset() is None):
        raise ValueError(f"a deadline must be timezone-aware, got {when!r}")


class Unchanged(Enum):
    """A value a write leaves as it is stored."""

    UNCHANGED = "unchanged"


UNCHANGED: Final = Unchanged.UNCHANGED


class StoreBase:
    """The connection to the database, its transactions, what the store keeps
    (:mod:`storage.kept`) and the row helpers every part of the store shares."""

    def __init__(self, engine: Engine, url: str) -> None:
        """Use :meth:`open`, which checks and upgrades the schema first."""
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        # A read of several queries (a match, then its seats) sees one snapshot: SQLite's read
        # transactions do; elsewhere ask for it.
        snapshot = engine.execution_options(isolation_level="REPEATABLE READ")
        self._reader = engine if is_sqlite(url) else snapshot
        self.url = url
        """The SQLAlchemy URL (with its password: do not log it; log :attr:`database`)."""
        self.database = database_label(url)
        """The database as error messages name it: a file's absolute path, or the safe URL."""
        self.shared = not is_sqlite(url)
        """Whether several bot instances may use the database at once (not SQLite, nor a
        PostgreSQL database a bot holds alone)."""
        self._match_locks = MatchLocks(engine, self.shared)
        self._claim: int | None = None
        self._holding: Hold | None = None
        """This bot's hold on a PostgreSQL schema (:meth:`storage.store.Store.open`)."""
        self._kept = Kept(enabled=False)
        """What the store read and keeps (:mod:`storage.kept`)."""
        self._one_writer = threading.RLock()
        """Held by a write of a store that keeps what it read, from before it reads what it
        keeps until it kept it: two writes never overlap, so what each keeps is right (the
        SQLite file takes one writer at a time anyway, and this one waits without sleeping)."""
        self._threads: StoreThreads | None = None
        """Where :meth:`off` runs the store's work (:mod:`storage.threads`), made at its first
        use."""
        self._readers: StoreThreads | None = None
        """Where :meth:`read` runs the store's reads, made at its first use."""

    async def off(self, call: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``call(*args, **kwargs)`` (a method of this store, or a function of it) run off the
        event loop, in the store's threads, so that the loop serves the other chats while the
        database works (a commit waits for the disk or the server): a press's own work, which
        goes before the notes (:meth:`off_after`)."""
        return await self._off(FIRST, functools.partial(call, *args, **kwargs))

    async def off_after(self, call: Callable[[], _T]) -> _T:
        """``call()`` run off the event loop after the presses' own work waiting (the outbox's
        notes about its messages)."""
        return await self._off(AFTER, call)

    async def read(self, call: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``call(*args, **kwargs)``, which only reads (or takes or gives back a match's lock,
        which waits for no write), run off the event loop in the store's reading threads:
        beside the writes (:meth:`off`), never behind them, so that a read for one chat does
        not wait for another chat's commit."""
        return await self._read(FIRST, functools.partial(call, *args, **kwargs))

    async def read_after(self, call: Callable[[], _T]) -> _T:
        """``call()``, which only reads, run as :meth:`read` does, after the reads a press
        waits for (what a message shows, read as it goes out)."""
        return await self._read(AFTER, call)

    async def _read(self, priority: int, call: Callable[[], _T]) -> _T:
        if isinstance(self._engine.pool, StaticPool):
            return call()
        if self._readers is None:
            self._readers = StoreThreads(READ_THREADS)
        result: _T = await asyncio.wrap_future(self._readers.submit(call, priority))
        return result

    async def _off(self, priority: int, call: Callable[[], _T]) -> _T:
        # An in-memory database has one connection, which no thread may use while another
        # does: there the work runs at once.
        if isinstance(self._engine.pool, StaticPool):
            return call()
        if self._threads is None:
            self._threads = StoreThreads(SERVER_THREADS if self.shared else 1)
        result: _T = await asyncio.wrap_future(self._threads.submit(call, priority))
        return result

    def _stop_threads(self) -> None:
        """Let the store's threads finish what they were given, then end them."""
        for threads in (self._threads, self._readers):
            if threads is not None:
                threads.close()
        self._threads = self._readers = None

    def _trouble(self, error: BaseException) -> str | None:
        """What keeps the database from working that is not the caller's doing nor the data's:
        a full disk, what may not be written, another process holding the lock; with the fix."""
        name = _error_name(error)
        path = sqlite_path(self.url)
        if path is None:
            return _server_trouble(name)
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return f"another process held it locked for over {BUSY_TIMEOUT_MS // 1000} s"
        return write_trouble(path, name) if name else None

    def _failure(self, error: BaseException) -> StoreError:
        """The StoreError for a database error in a transaction (see :meth:`_trouble`)."""
        trouble = self._trouble(error)
        if trouble is not None:
            return DatabaseUnavailable(
                self.database, f"cannot write the database ({_reason(error)}): {trouble}"
            )
        if self._lost(error):
            return DatabaseUnavailable(
                self.database,
                f"the database did not answer ({_reason(error)}): is its server running? "
                "The bot tries again",
            )
        return StoreError(self.database, f"database error: {_reason(error)}")

    def _lost(self, error: BaseException) -> bool:
        """Whether the connection to the database failed (its server is down, restarting, out
        of reach), rather than the statement: a socket's error, or on a database server an
        operational or interface error, or a connection SQLAlchemy had to throw away."""
        orig = error.orig if isinstance(error, DBAPIError) else error
        if isinstance(orig, OSError):
            return True
        if is_sqlite(self.url):
            return False  # SQLite's operational errors are about the file: see _trouble
        invalidated = isinstance(error, DBAPIError) and error.connection_invalidated
        return isinstance(error, OperationalError | InterfaceError) or invalidated

    @contextmanager
    def _translated(self, write: bool, touches: Touch | None) -> Iterator[None]:
        """Database failures become StoreError, races Conflict; a write forgets the kept
        record it ``touches`` (None: all of them) when it ends, committed or not."""
        serial = self._one_writer if write and self._kept.serial else contextlib.nullcontext()
        with serial:  # the write and what it keeps, in one step (storage.kept)
            committed = False
            try:
                yield
                committed = True
            except IntegrityError as error:
                raise Conflict(self.database, _reason(error)) from error
            except SQLAlchemyError as error:
                raise self._failure(error) from error
            finally:
                if write:
                    self._kept.drop(touches, committed)

    @contextmanager
    def _session(self, write: bool = False, touches: Touch | None = None) -> Iterator[Session]:
        """One ORM transaction (see :meth:`_translated`)."""
        engine = self._writer if write else self._reader
        with (
            self._translated(write, touches),
            Session(engine, expire_on_commit=False) as s,
            s.begin(),
        ):
            yield s

    @contextmanager
    def _core(self, write: bool = False, touches: Touch | None = None) -> Iterator[Connection]:
        """One transaction on a plain connection: the hot paths (a move, a press) skip the ORM
        (see :meth:`_translated`)."""
        with (
            self._translated(write, touches),
            (self._writer if write else self._reader).begin() as connection,
        ):
            yield connection

    def _retrying(self, attempt: Callable[[], _T]) -> _T:
        """Run a get-or-create once more if a concurrent writer created the row first."""
        try:
            return attempt()
        except Conflict:
            return attempt()

    def _lock(self, s: Session, match_id: int) -> MatchTable:
        """The match row, locked until the transaction ends (PostgreSQL; SQLite writes queue)."""
        query = select(MatchTable).where(col(MatchTable.id) == match_id).with_for_update()
        row = s.exec(query).first()
        if row is None:
            raise MatchNotFound(self.database, match_id)
        return row

    def _seats(self, s: Session, match_id: int) -> list[SeatTable]:
        query = (
            select(SeatTable)
            .where(col(SeatTable.match_id) == match_id)
            .order_by(col(SeatTable.seat))
        )
        return list(s.exec(query).all())

    def _refuse(self, db: Connection, match_id: int, expected: int, wanted: str) -> NoReturn:
        """Explain why a versioned write matched no row: no match, stale version, or status."""
        query = sa_select(col(MatchTable.version), col(MatchTable.status)).where(
            col(MatchTable.id) == match_id
        )
        found = db.execute(query).first()
        if found is None:
            raise MatchNotFound(self.database, match_id)
        version, status = found
        if version != expected:
            raise StaleVersion(self.database, match_id, expected, version)
        raise WrongStatus(self.database, match_id, status, wanted)

    def _touch(self, row: MatchTable) -> None:
        row.version += 1
        row.updated_at = _now()

    def _expect_lobby(self, row: MatchTable, wanted: str) -> None:
        if row.status != LOBBY:
            assert row.id is not None
            raise WrongStatus(self.database, row.id, row.status, wanted)

    def _reseat(
        self, s: Session, row: MatchTable, seats: list[SeatTable], kept: list[SeatTable]
    ) -> list[SeatTable]:
        """The lobby's seats become ``kept``, numbered from 0 in that order."""
        renumbered = [_copy_seat(seat, number) for number, seat in enumerate(kept)]
        s.exec(delete(SeatTable).where(col(SeatTable.match_id) == row.id))
        for seat in seats:
            s.expunge(seat)
        s.add_all(renumbered)
        self._touch(row)
        s.flush()
        return renumbered

    def _end(self, s: Session, row: MatchTable, status: str) -> None:
        """The match ends without a move (:meth:`set_status`): its timers go too."""
        assert row.id is not None
        row.status = status
        row.active_chat_id = None
        row.finished_at = _now()
        row.deadline = None
        row.deadline_seat = None
        self._touch(row)
        s.flush()
        replace_work(s.connection(), row.id, row.version, ())

    def _hold_chat(self, s: Session, chat_id: int) -> None:
        """Hold the chat's tables until the transaction ends, so that two writes seating people
        at them take turns (PostgreSQL: a transaction's advisory lock; SQLite's writes queue)."""
        if s.get_bind().dialect.name == "postgresql":
            key = f"hashtext(current_schema() || '/chat'), hashtext('{int(chat_id)}')"
            s.exec(text(f"SELECT pg_advisory_xact_lock({key})"))  # type: ignore[call-overload]

    def _check_seated_elsewhere(
        self, s: Session, chat_id: int, user_id: int | None, match_id: int | None
    ) -> None:
        """:class:`SeatedElsewhere` when the person sits at another active match of the chat
        (docs/rules-notes.md ST-4)."""
        if user_id is None:
            return
        query = (
            select(SeatTable.match_id)
            .join(MatchTable, col(MatchTable.id) == col(SeatTable.match_id))
            .where(
                col(MatchTable.active_chat_id) == chat_id,
                col(SeatTable.user_id) == user_id,
                col(MatchTable.id) != (match_id or 0),
            )
            .limit(1)
        )
        other = s.exec(query).first()
        if other is not None:
            raise SeatedElsewhere(self.database, other, f"user {user_id} sits at another table")

    def _active_rows(self, s: Session, chat_id: int) -> list[MatchTable]:
        """The chat's matches in the lobby or playing, by table."""
        query = (
            select(MatchTable)
            .where(col(MatchTable.active_chat_id) == chat_id)
            .order_by(col(MatchTable.table_number))
        )
        return list(s.exec(query).all())

    @staticmethod
    def _rates(db: Connection, chat_id: int, results: Sequence[PlayerResult]) -> bool:
        """Whether a match's results move ratings: not one with a computer seat in a group
        that chose so (docs/rules.md R-4.2)."""
        if not any(result.computer for result in results):
            return True
        query = sa_select(col(ChatTable.rate_computers)).where(col(ChatTable.chat_id) == chat_id)
        return db.execute(query).scalar() is not False

    def _insert_results(self, db: Connection, match_id: int, rows: Iterable[PlayerResult]) -> bool:
        """Store a finished match's results once, and move its people's ratings with them in
        the same transaction (docs/rules.md R-3); False when they were already stored."""
        query = (
            sa_select(
                col(MatchTable.status),
                col(MatchTable.chat_id),
                col(MatchTable.game),
                col(MatchTable.finished_at),
                col(MatchTable.options),
            )
            .where(col(MatchTable.id) == match_id)
            .with_for_update()
        )
        found = db.execute(query).first()
        if found is None:
            raise MatchNotFound(self.database, match_id)
        status, chat_id, game, finished_at, options = found
        if status != FINISHED:
            raise WrongStatus(self.database, match_id, status, "only a finished match has results")
        given = [PlayerResult(*result) for result in rows]
        seats = [result.seat for result in given]
        if len(set(seats)) != len(seats):
            raise ValueError(f"one result per seat, got seats {seats}")
        count = sa_select(func.count()).where(col(ResultTable.match_id) == match_id)
        if db.execute(count).scalar_one() or not given:
            return False
        db.execute(
            insert(ResultTable),
            [
                {
                    "match_id": match_id,
                    "seat": result.seat,
                    "chat_id": chat_id,
                    "game": game,
                    "user_id": result.user_id,
                    "name": _name(result.name),
                    "computer": bool(result.computer),
                    "mp": result.mp,
                    "vp": result.vp,
                    "won": bool(result.won),
                    "hands_won": result.hands_won,
                    "finished_at": finished_at or _now(),
                }
                for result in given
            ],
        )
        if self._rates(db, chat_id, given):
            rate_match(db, match_id, game, options, given, finished_at or _now())
        note_season(db, chat_id, finished_at or _now())
        settle_table(db, match_id, given)
        return True
