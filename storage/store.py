"""The repository the bot calls: matches, their move logs and snapshots, seats, users, groups.

Every method is one short transaction and returns plain frozen records (:mod:`storage.records`).
Writes that could race (two button presses on one match, two bot instances) name the version
they were based on and fail with :class:`~storage.errors.StaleVersion` instead of overwriting.

>>> store = Store.open("sqlite://")
>>> lobby = store.create_match(-100, "scopone", {}, 1, "Anna", seed=7)
>>> for user, name in [(2, "Bea"), (3, "Ciro"), (4, "Dario")]:
...     lobby = store.add_seat(lobby.id, user, name)
>>> match = store.initial_match(lobby)
>>> version = store.start_match(lobby.id, match.to_json(), lobby.version)
>>> seat = match.to_play
>>> action = str(match.play(match.legal_actions()[0], seat=seat))
>>> version = store.commit_move(lobby.id, version, seat, action, match.to_json())
>>> store.replay(lobby.id).to_json() == store.get_match(lobby.id).state_json
True
>>> store.close()
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import Any, Final, NoReturn, TypeVar

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, case, delete, func, insert, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlmodel import Session, SQLModel, col, select

from engine.errors import EngineError, SnapshotError
from engine.games import GAMES, GameMatch, load_match, new_match
from storage.budget import reserve
from storage.database import (
    BUSY_TIMEOUT_MS,
    WRITE_OPTION,
    Claimed,
    claim,
    create_store_engine,
    database_label,
    is_sqlite,
    resolve_url,
    sqlite_path,
    write_trouble,
)
from storage.errors import (
    AlreadySeated,
    ChatBusy,
    Conflict,
    DatabaseUnavailable,
    LobbyFull,
    MatchNotFound,
    SeatError,
    StaleVersion,
    StoreError,
    WrongStatus,
)
from storage.kept import ABSENT, CHAT, MATCH, NOTHING, USER, Absent, Kept, Touch, with_seat
from storage.models import (
    NAME_LENGTH,
    ChatTable,
    ConfirmationTable,
    MatchTable,
    MoveTable,
    ResultTable,
    SeatTable,
    SettingTable,
    UserTable,
)
from storage.records import (
    ACTIVE,
    ANONYMOUS,
    DEFAULT_SORT,
    FINISHED,
    KEEP,
    LOBBY,
    PLAYING,
    STOPPED,
    ChatSettings,
    Confirmation,
    GameStats,
    Keep,
    LeaderboardEntry,
    MatchRecord,
    MoveRecord,
    PlayerResult,
    SeatRecord,
    SeatUI,
    UserRecord,
    Work,
)
from storage.work import (
    MatchLocks,
    claim_due,
    claim_one,
    finish,
    pending,
    release,
    replace_work,
)

MIGRATIONS: Final = Path(__file__).with_name("migrations")
"""The Alembic script folder, inside the package so an installed Tavolo finds it."""

_MIGRATION_LOCK: Final = 0x7A701
"""PostgreSQL advisory lock key held while the schema is checked and upgraded."""

_T = TypeVar("_T")

OPEN_ATTEMPTS: Final = 5
"""Tries to open a SQLite file that another process is creating at the same moment."""
OPENED_SETTING: Final = "opened_at"
"""The setting :meth:`Store.open` writes (when it last opened the database) to prove it can."""
_DAMAGED: Final = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
"""SQLite's errors that mean the file itself is damaged or is no database."""


def _now() -> datetime:
    return datetime.now(UTC)


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


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


def alembic_config(connection: Any = None) -> Config:
    """The Alembic configuration of Tavolo's migrations, built in code (no ini file needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def schema_head() -> str:
    """The newest schema revision this code knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _ui(
    selected: str,
    staged: str,
    order: str | None,
    sort: str,
    version: int,
    mode: str = "",
    pending: str = "",
) -> SeatUI:
    return SeatUI(
        selected=tuple(json.loads(selected)),
        staged=tuple(tuple(meld) for meld in json.loads(staged)),
        order=None if order is None else tuple(json.loads(order)),
        sort=sort,
        version=version,
        mode=mode,
        pending=pending,
    )


def _seat_ui(row: SeatTable) -> SeatUI:
    return _ui(
        row.ui_selected,
        row.ui_staged,
        row.ui_order,
        row.ui_sort,
        row.ui_version,
        row.ui_mode,
        row.ui_pending,
    )


def _ui_values(ui: SeatUI) -> dict[str, Any]:
    """The seat columns that store ``ui`` (all but its version)."""
    return {
        "ui_selected": _dump(list(ui.selected)),
        "ui_staged": _dump([list(meld) for meld in ui.staged]),
        "ui_order": None if ui.order is None else _dump(list(ui.order)),
        "ui_sort": ui.sort,
        "ui_mode": ui.mode,
        "ui_pending": ui.pending,
    }


def _changed_ui(ui: SeatUI, values: dict[str, Any]) -> SeatUI:
    """A seat's UI after an update of its columns ``values`` (as :meth:`Store.update_seat_ui`
    writes them, its version included)."""
    columns: dict[str, Any] = _ui_values(ui) | values
    return _ui(
        columns["ui_selected"],
        columns["ui_staged"],
        columns["ui_order"],
        columns["ui_sort"],
        columns["ui_version"],
        columns["ui_mode"],
        columns["ui_pending"],
    )


def _as_read(values: dict[str, Any]) -> dict[str, Any]:
    """Column values as the store reads them back: times in UTC."""
    return {
        name: value.astimezone(UTC) if isinstance(value, datetime) else value
        for name, value in values.items()
    }


def _moved(
    record: MatchRecord, values: dict[str, Any], seat: int | None, ui: SeatUI | None, reset: bool
) -> MatchRecord:
    """A kept match after :meth:`Store.commit_move` wrote ``values`` (its columns) and the
    acting seat's UI (``ui``, or cleared with ``reset``)."""
    fields = {"state_json" if k == "state" else k: value for k, value in _as_read(values).items()}
    fields.pop("active_chat_id", None)
    moved = replace(record, **fields)
    if seat is None or not (ui is not None or reset):
        return moved

    def new_ui(kept: SeatRecord) -> SeatRecord:
        version = kept.ui.version + 1
        if ui is not None:
            return replace(kept, ui=replace(ui, version=version))
        cleared = replace(kept.ui, selected=(), staged=(), mode="", pending="", version=version)
        return replace(kept, ui=cleared)

    return with_seat(moved, seat, new_ui)


_UI_COLUMNS = (
    col(SeatTable.ui_selected),
    col(SeatTable.ui_staged),
    col(SeatTable.ui_order),
    col(SeatTable.ui_sort),
    col(SeatTable.ui_version),
    col(SeatTable.ui_mode),
    col(SeatTable.ui_pending),
)


_Row = TypeVar("_Row", UserTable, ChatTable)

_CHAT_COLUMNS: tuple[tuple[type[SQLModel], str], ...] = (
    (MatchTable, "chat_id"),  # first: its count is the number of matches moved
    (MatchTable, "active_chat_id"),
    (MatchTable, "table_chat_id"),
    (SeatTable, "turn_chat_id"),
    (ResultTable, "chat_id"),
    (ConfirmationTable, "chat_id"),
)
"""Every column holding a group's chat id (a supergroup upgrade changes them in place)."""


def _user_record(row: UserTable) -> UserRecord:
    return UserRecord(row.user_id, row.name, row.language, row.language_code, row.private_chat)


def _seat_record(row: SeatTable) -> SeatRecord:
    return SeatRecord(
        seat=row.seat,
        user_id=row.user_id,
        name=row.name,
        computer_level=row.computer_level,
        hand_message_id=row.hand_message_id,
        hand_digest=row.hand_digest,
        hand_pending=row.hand_pending,
        turn_chat_id=row.turn_chat_id,
        turn_message_id=row.turn_message_id,
        turn_version=row.turn_version,
        recap_hand=row.recap_hand,
        ui=_seat_ui(row),
    )


def _match_record(row: MatchTable, seats: Iterable[SeatTable]) -> MatchRecord:
    assert row.id is not None
    return MatchRecord(
        id=row.id,
        chat_id=row.chat_id,
        game=row.game,
        options=json.loads(row.options),
        seed=int(row.seed),
        status=row.status,
        creator_id=row.creator_id,
        version=row.version,
        state_json=row.state,
        seats=tuple(_seat_record(seat) for seat in seats),
        table_chat_id=row.table_chat_id,
        table_message_id=row.table_message_id,
        table_digest=row.table_digest,
        table_pending=row.table_pending,
        deadline=row.deadline,
        deadline_seat=row.deadline_seat,
        turn_version=row.turn_version,
        shown_hand=row.shown_hand,
        end_shown=row.end_shown,
        summary_message_id=row.summary_message_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
    )


def _confirmation(row: ConfirmationTable) -> Confirmation:
    assert row.id is not None
    return Confirmation(
        row.id, row.chat_id, row.user_id, row.kind, row.match_id, row.created_at, row.answered_at
    )


def _next_host(seats: Sequence[SeatTable], after: int, host: int) -> int:
    """The person seated next after seat ``after`` (else the first seated one; else ``host``
    stays)."""
    people = [seat for seat in seats if seat.user_id is not None]
    following = [seat for seat in people if seat.seat > after] or people
    return following[0].user_id if following and following[0].user_id is not None else host


def _new_seat(
    match_id: int, seat: int, user_id: int | None, name: str, computer_level: str | None
) -> SeatTable:
    return SeatTable(
        match_id=match_id,
        seat=seat,
        user_id=user_id,
        name=_name(name),
        computer_level=computer_level,
        ui_selected="[]",
        ui_staged="[]",
        ui_order=None,
        ui_sort=DEFAULT_SORT,
        ui_version=0,
        ui_mode="",
        ui_pending="",
    )


def _copy_seat(row: SeatTable, seat: int) -> SeatTable:
    data = row.model_dump()
    data["seat"] = seat
    return SeatTable(**data)


def _has_format(state_json: str) -> bool:
    """Whether a snapshot names its format as a number (a newer one is then really newer)."""
    try:
        data = json.loads(state_json)
    except ValueError:
        return False
    return isinstance(data, dict) and type(data.get("format")) is int


def _check_player(user_id: int | None, computer_level: str | None) -> None:
    if (user_id is None) == (computer_level is None):
        raise ValueError("a seat has either a user_id (a person) or a computer_level, not both")


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


class Store:
    """Tavolo's persistent state, on SQLite (the default) or any SQLAlchemy database.

    Open it with :meth:`Store.open`, which also brings the schema up to date; share one store
    between threads (each call takes its own connection); :meth:`close` it at shutdown.
    """

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
        """Whether several bot instances may use the database at once (not SQLite)."""
        self._match_locks = MatchLocks(engine, self.shared)
        self._claim: int | None = None
        self._kept = Kept(enabled=False)
        """What the store read, when it is its database's only writer (:mod:`storage.kept`)."""

    # --- Opening -----------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str | None = None, *, exclusive: bool = False) -> Store:
        """Open the database at ``url`` (None: ``DATABASE_URL``, else ``sqlite:///tavolo.db``).

        The schema is upgraded to this code's newest revision (an empty database gets every
        table; an up-to-date one is left alone), then the store writes once, so that a database
        it cannot write is refused now. Raises :class:`StoreError` naming the database when it
        cannot be opened, is not a Tavolo database or is damaged, or was written by a newer
        Tavolo; nothing is changed then. It is a :class:`DatabaseUnavailable` when the file
        system is at fault (a full disk, a read-only file or folder), and says so.

        ``exclusive`` (the bot): a SQLite file is for one process, so the store holds a lock
        beside it (``<file>.lock``) until :meth:`close` or the process's end, and refuses the
        file another process holds so (other databases are shared: it changes nothing there).
        Its only writer, the store then keeps the records it read (:mod:`storage.kept`).
        """
        resolved = resolve_url(url)
        try:
            engine = create_store_engine(resolved)
        except (SQLAlchemyError, ImportError) as error:
            raise StoreError(
                database_label(resolved), f"cannot use this database URL: {_reason(error)}"
            ) from error
        store = cls(engine, resolved)
        try:
            if exclusive:
                store._claim_file()
            store._upgrade_schema_retrying()
            store._check_writes()
        except BaseException:
            store.close()
            raise
        store._kept = Kept(enabled=exclusive and not store.shared)
        return store

    def _claim_file(self) -> None:
        """Hold the SQLite file for this process alone (see :meth:`open`)."""
        path = sqlite_path(self.url)
        if path is None:
            return
        try:
            self._claim = claim(path)
        except Claimed as held:
            who = f"process {held.holder}" if held.holder.isdigit() else "another process"
            raise StoreError(
                self.database,
                f"another Tavolo ({who}) is using this database. SQLite is for one process: "
                "stop that one first, or use PostgreSQL to run several (README, Deployment)",
            ) from None
        except OSError as error:
            trouble = write_trouble(path) or error.strerror or str(error)
            raise DatabaseUnavailable(
                self.database, f"cannot open the database: {trouble}; nothing was changed"
            ) from error

    def _check_writes(self) -> None:
        """Write once (when the database was last opened, a shared setting), so that a store
        that cannot write is refused at start instead of failing every move; on SQLite,
        checkpoint the write-ahead log first, so that a log left large gives its space back."""
        if is_sqlite(self.url):
            try:
                raw = self._engine.raw_connection()
                try:
                    raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
                finally:
                    raw.close()
            except (SQLAlchemyError, sqlite3.Error) as error:  # a raw cursor's are not wrapped
                raise self._failure(error) from error
        now = _now().isoformat()

        def attempt() -> None:
            with self._core(write=True) as db:
                where = col(SettingTable.name) == OPENED_SETTING
                if db.execute(update(SettingTable).where(where).values(value=now)).rowcount:
                    return
                db.execute(insert(SettingTable).values(name=OPENED_SETTING, value=now))

        self._retrying(attempt)

    def _upgrade_schema_retrying(self) -> None:
        """Upgrade the schema; a brand-new SQLite file opened by several processes at once can
        answer "database is locked" while one of them switches it to WAL, so try again."""
        for attempt in range(OPEN_ATTEMPTS):
            try:
                self._upgrade_schema()
                return
            except StoreError as error:
                locked = "database is locked" in str(error) and is_sqlite(self.url)
                if not locked or attempt == OPEN_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def _upgrade_schema(self) -> None:
        script = ScriptDirectory.from_config(alembic_config())
        known = {revision.revision for revision in script.walk_revisions()}
        head = script.get_current_head()
        try:
            with self._writer.begin() as connection:
                if connection.dialect.name == "postgresql":
                    # Two bot instances starting together: the second waits, then finds it done.
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
                current = MigrationContext.configure(connection).get_current_heads()
                unknown = [revision for revision in current if revision not in known]
                if unknown:
                    raise StoreError(
                        self.database,
                        f"the database was written by a newer Tavolo (schema revision "
                        f"{unknown[0]}; this Tavolo knows up to {head}). Upgrade Tavolo to "
                        "use it; nothing was changed",
                    )
                if tuple(current) != (head,):
                    command.upgrade(alembic_config(connection), "head")
        except StoreError:
            raise
        except (SQLAlchemyError, CommandError) as error:
            raise self._open_failure(error) from error

    def _open_failure(self, error: BaseException) -> StoreError:
        """Why the database could not be opened: what is wrong around it (a full disk, what may
        not be written, ...), else SQLite's words, and for a damaged file what to do."""
        trouble = self._trouble(error)
        if trouble is not None:
            return DatabaseUnavailable(
                self.database,
                f"cannot open the database ({_reason(error)}): {trouble}; nothing was changed",
            )
        message = f"cannot open the database ({_reason(error)}); nothing was changed"
        damaged = _error_name(error).startswith(_DAMAGED)
        if damaged and is_sqlite(self.url) and Path(self.database).is_file():
            message += (
                ". The file is damaged or is not a Tavolo database: restore it from a backup "
                "or move it away"
            )
        return StoreError(self.database, message)

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

    def close(self) -> None:
        """Close every connection, and let go of the file (see :meth:`open`). The store cannot
        be used afterwards."""
        self._match_locks.close()
        self._engine.dispose()
        if self._claim is not None:
            os.close(self._claim)
            self._claim = None

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {self.database}>"

    # --- Transactions --------------------------------------------------------------------------

    @contextmanager
    def _session(self, write: bool = False, touches: Touch | None = None) -> Iterator[Session]:
        """One transaction; database failures become StoreError, races become Conflict. A
        write forgets the kept record it ``touches`` (None: all of them) when it ends."""
        try:
            with (
                Session(self._writer if write else self._reader, expire_on_commit=False) as s,
                s.begin(),
            ):
                yield s
        except IntegrityError as error:
            raise Conflict(self.database, _reason(error)) from error
        except SQLAlchemyError as error:
            raise self._failure(error) from error
        finally:
            if write:
                self._kept.drop(touches)

    @contextmanager
    def _core(self, write: bool = False, touches: Touch | None = None) -> Iterator[Connection]:
        """One transaction on a plain connection: the hot paths (a move, a press) skip the ORM.
        A write forgets what it ``touches`` when it ends (as :meth:`_session`)."""
        try:
            with (self._writer if write else self._reader).begin() as connection:
                yield connection
        except IntegrityError as error:
            raise Conflict(self.database, _reason(error)) from error
        except SQLAlchemyError as error:
            raise self._failure(error) from error
        finally:
            if write:
                self._kept.drop(touches)

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

    # --- Lobby and match lifecycle -------------------------------------------------------------

    def create_match(
        self,
        chat_id: int,
        game: str,
        options: dict[str, Any],
        creator_id: int,
        creator_name: str,
        seed: int,
    ) -> MatchRecord:
        """A new match in the lobby of ``chat_id``, with its creator in seat 0 (version 0).

        ``options`` is the engine's options dict (``Options.to_dict()``, may be partial);
        ``seed`` the engine seed (e.g. :func:`engine.cards.secure_seed`). Raises
        :class:`ChatBusy` if the chat already has a match in the lobby or playing.
        """
        _check_game(game)
        if len(str(seed)) > 40:
            raise ValueError(f"seed {seed} does not fit 128 bits")

        def attempt() -> MatchRecord:
            with self._session(write=True, touches=NOTHING) as s:
                busy = self._active_row(s, chat_id)
                if busy is not None:
                    assert busy.id is not None
                    raise ChatBusy(self.database, chat_id, busy.id)
                now = _now()
                row = MatchTable(
                    chat_id=chat_id,
                    active_chat_id=chat_id,
                    game=game,
                    options=_dump(options),
                    seed=str(seed),
                    status=LOBBY,
                    creator_id=creator_id,
                    version=0,
                    state=None,
                    created_at=now,
                    updated_at=now,
                )
                s.add(row)
                s.flush()
                assert row.id is not None
                seat = _new_seat(row.id, 0, creator_id, creator_name, None)
                s.add(seat)
                s.flush()
                record = _match_record(row, [seat])
            self._kept.keep_match(record)
            return record

        return self._retrying(attempt)

    def add_seat(
        self, match_id: int, user_id: int | None, name: str, computer_level: str | None = None
    ) -> MatchRecord:
        """Seat a person (``user_id``) or a computer (``computer_level``) in the next free seat.

        Only in the lobby (:class:`WrongStatus`); a person already seated raises
        :class:`AlreadySeated`, a full table (the game's most players) :class:`LobbyFull`: both
        decided under the match's row lock, so two instances seating at once cannot overfill it.
        Returns the match with the new seat and version.
        """
        _check_player(user_id, computer_level)
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            self._expect_lobby(row, "seats change only in the lobby")
            seats = self._seats(s, match_id)
            for seat in seats:
                if user_id is not None and seat.user_id == user_id:
                    raise AlreadySeated(
                        self.database, match_id, f"user {user_id} already sits in seat {seat.seat}"
                    )
            most = GAMES[row.game].seats[1]
            if len(seats) >= most:
                raise LobbyFull(self.database, match_id, f"all {most} seats are taken")
            new = _new_seat(match_id, len(seats), user_id, name, computer_level)
            s.add(new)
            self._touch(row)
            s.flush()
            record = _match_record(row, [*seats, new])
        self._kept.keep_match(record)
        return record

    def remove_seat(self, match_id: int, seat: int) -> MatchRecord:
        """Free a seat in the lobby; the seats after it move up by one. When the host leaves,
        the lobby passes to the next seated person (after them, else the first)."""
        return self._rearrange(match_id, seat_removed=seat, order=None)

    def reorder_seats(self, match_id: int, order: Sequence[int]) -> MatchRecord:
        """Seat the players in a new order: new seat ``i`` is the player now in ``order[i]``.

        This is how the lobby forms pairs (seats 0+2 against 1+3). ``order`` must name every
        current seat once (:class:`SeatError` otherwise). Only in the lobby.
        """
        return self._rearrange(match_id, seat_removed=None, order=order)

    def _rearrange(
        self, match_id: int, seat_removed: int | None, order: Sequence[int] | None
    ) -> MatchRecord:
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            self._expect_lobby(row, "seats change only in the lobby")
            seats = self._seats(s, match_id)
            numbers = [seat.seat for seat in seats]
            if seat_removed is not None:
                if seat_removed not in numbers:
                    raise SeatError(self.database, match_id, f"there is no seat {seat_removed}")
                kept = [seat for seat in seats if seat.seat != seat_removed]
                leaving = next(seat for seat in seats if seat.seat == seat_removed)
                if leaving.user_id is not None and leaving.user_id == row.creator_id:
                    row.creator_id = _next_host(kept, seat_removed, row.creator_id)
            else:
                assert order is not None
                if sorted(order) != numbers:
                    raise SeatError(
                        self.database,
                        match_id,
                        f"the new order {list(order)} must name each of seats {numbers} once",
                    )
                kept = [seats[number] for number in order]
            renumbered = self._reseat(s, row, seats, kept)
            record = _match_record(row, renumbered)
        self._kept.keep_match(record)
        return record

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

    def set_match_options(self, match_id: int, options: dict[str, Any]) -> MatchRecord:
        """Replace the options of a match in the lobby."""
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            self._expect_lobby(row, "options change only in the lobby")
            row.options = _dump(options)
            self._touch(row)
            s.flush()
            record = _match_record(row, self._seats(s, match_id))
        self._kept.keep_match(record)
        return record

    def initial_match(self, record: MatchRecord) -> GameMatch:
        """The engine match at its start, from the record's game, seats, seed and options.

        The bot starts a match with ``start_match(id, initial_match(record).to_json(), ...)``:
        :meth:`replay` starts from the same place. Raises the engine's ``ValueError`` when the
        options do not suit the players (e.g. pairs without 4 players).
        """
        return new_match(record.game, record.players, record.seed, dict(record.options))

    def start_match(self, match_id: int, state_json: str, expected_version: int) -> int:
        """Leave the lobby: store the engine's first snapshot, status playing; the new version.

        Raises :class:`StaleVersion` if the lobby changed since ``expected_version`` was read,
        :class:`WrongStatus` if the match is not in the lobby.
        """
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable)
                .where(
                    col(MatchTable.id) == match_id,
                    col(MatchTable.version) == expected_version,
                    col(MatchTable.status) == LOBBY,
                )
                .values(
                    status=PLAYING,
                    state=state_json,
                    version=expected_version + 1,
                    turn_version=expected_version + 1,
                    updated_at=_now(),
                )
            )
            if done.rowcount != 1:
                self._refuse(db, match_id, expected_version, "only a match in the lobby starts")
        return expected_version + 1

    def commit_move(
        self,
        match_id: int,
        expected_version: int,
        seat: int | None,
        action_text: str,
        state_json: str,
        *,
        status: str | None = None,
        deadline: datetime | Keep | None = KEEP,
        deadline_seat: int | None = None,
        reset_ui: bool = False,
        results: Iterable[PlayerResult] | None = None,
        turn_starts: bool = False,
        ui: SeatUI | None = None,
        work: Sequence[tuple[str, datetime]] | Keep = KEEP,
    ) -> int:
        """Store one accepted move and the match's new snapshot, atomically; the new version.

        In one transaction: the snapshot ``state_json`` (the engine's ``to_json()`` after the
        move) replaces the stored one, the version grows by one, and (``seat``, ``action_text``)
        is appended to the move log under the new version. ``action_text`` should be ``str()``
        of the action the engine's ``play`` returned, ``seat`` the seat passed to ``play`` (None:
        the seat to play). The bot answers the player only after this returns.

        ``status`` FINISHED or STOPPED ends the match (and clears the deadline), with
        ``results`` (FINISHED only) recorded in the same transaction. ``deadline`` replaces the
        turn deadline (None clears it; by default it is kept, as a Scala 40 turn has several
        moves). ``reset_ui`` clears the acting seat's selected cards and staged melds.
        ``turn_starts``: the move ends a turn and starts another (the bell rings for it), whose
        ``turn_version`` is the new version. ``ui`` is the acting seat's hand UI state the move
        leaves (its version grows by one, whatever it was: the move has won). ``work`` replaces
        the match's due work (kind, time), set at the new version; a move that ends the match
        clears it.

        Raises :class:`StaleVersion` (nothing written) if another write came first,
        :class:`WrongStatus` if the match is not being played, :class:`MatchNotFound`.
        """
        if status not in (None, FINISHED, STOPPED):
            raise ValueError(f"a move may only end a match (finished or stopped), not {status!r}")
        if results is not None and status != FINISHED:
            raise ValueError("results come with the move that finishes the match")
        _check_when(deadline if isinstance(deadline, datetime) else None)
        now = _now()
        version = expected_version + 1
        values: dict[str, Any] = {"state": state_json, "version": version, "updated_at": now}
        if status is not None:
            values |= {"status": status, "active_chat_id": None, "finished_at": now}
            values |= {"deadline": None, "deadline_seat": None}
        if not isinstance(deadline, Keep):
            values |= {"deadline": deadline, "deadline_seat": deadline_seat}
        if turn_starts:
            values["turn_version"] = version
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable)
                .where(
                    col(MatchTable.id) == match_id,
                    col(MatchTable.version) == expected_version,
                    col(MatchTable.status) == PLAYING,
                )
                .values(**values)
            )
            if done.rowcount != 1:
                self._refuse(db, match_id, expected_version, "it takes no moves")
            db.execute(
                insert(MoveTable).values(
                    match_id=match_id, version=version, seat=seat, action=action_text,
                    created_at=now,
                )
            )  # fmt: skip
            if ui is not None and seat is not None:
                db.execute(
                    update(SeatTable)
                    .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                    .values(**_ui_values(ui), ui_version=col(SeatTable.ui_version) + 1)
                )
            elif reset_ui and seat is not None:
                db.execute(
                    update(SeatTable)
                    .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                    .values(
                        ui_selected="[]",
                        ui_staged="[]",
                        ui_mode="",
                        ui_pending="",
                        ui_version=col(SeatTable.ui_version) + 1,
                    )
                )
            if results is not None:
                self._insert_results(db, match_id, results)
            if status is not None:
                replace_work(db, match_id, version, ())
            elif not isinstance(work, Keep):
                replace_work(db, match_id, version, work)
        if before is not None:
            self._kept.keep_match(_moved(before, values, seat, ui, reset_ui))
        return version

    def set_status(
        self, match_id: int, status: str, *, expected_version: int | None = None
    ) -> MatchRecord:
        """Finish or stop a match without a move: cancel a lobby, or close a broken match.

        Allowed: lobby → stopped, playing → finished or stopped. ``/stop`` during play is better
        a move (``commit_move(..., "stop", status=STOPPED)``) so the log has it. With
        ``expected_version`` a stale version raises :class:`StaleVersion`.
        """
        allowed = {LOBBY: (STOPPED,), PLAYING: (FINISHED, STOPPED)}
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            if expected_version is not None and row.version != expected_version:
                raise StaleVersion(self.database, match_id, expected_version, row.version)
            if status not in allowed.get(row.status, ()):
                raise WrongStatus(self.database, match_id, row.status, f"it cannot become {status}")
            self._end(s, row, status)
            record = _match_record(row, self._seats(s, match_id))
        self._kept.keep_match(record)
        return record

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

    def discard_lobby(self, match_id: int) -> bool:
        """Delete a lobby that was never shown (it has no table message): nobody saw it, so it
        leaves no trace (a group the bot is not in, or left as the lobby opened). Whether it
        was deleted (False: it was shown, or is no lobby any more)."""
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            if row.status != LOBBY or row.table_message_id is not None:
                return False
            s.exec(delete(SeatTable).where(col(SeatTable.match_id) == match_id))
            s.exec(delete(ConfirmationTable).where(col(ConfirmationTable.match_id) == match_id))
            s.delete(row)
        return True

    # --- Reading matches -----------------------------------------------------------------------

    def get_match(self, match_id: int) -> MatchRecord:
        """The match with its seats; :class:`MatchNotFound` if there is none."""
        kept = self._kept.match(match_id)
        if kept is not None:
            return kept
        with self._session() as s:
            row = s.get(MatchTable, match_id)
            if row is None:
                raise MatchNotFound(self.database, match_id)
            record = _match_record(row, self._seats(s, match_id))
        self._kept.keep_match(record)
        return record

    def _active_row(self, s: Session, chat_id: int) -> MatchTable | None:
        query = select(MatchTable).where(col(MatchTable.active_chat_id) == chat_id)
        return s.exec(query).first()

    def active_match_in_chat(self, chat_id: int) -> MatchRecord | None:
        """The chat's match in the lobby or being played, if any (there is at most one)."""
        with self._session() as s:
            row = self._active_row(s, chat_id)
            if row is None:
                return None
            assert row.id is not None
            return _match_record(row, self._seats(s, row.id))

    def last_match_in_chat(self, chat_id: int) -> MatchRecord | None:
        """The chat's most recent match, whatever its status (None: it never had one)."""
        with self._session() as s:
            query = (
                select(MatchTable)
                .where(col(MatchTable.chat_id) == chat_id)
                .order_by(col(MatchTable.id).desc())
                .limit(1)
            )
            row = s.exec(query).first()
            if row is None:
                return None
            assert row.id is not None
            return _match_record(row, self._seats(s, row.id))

    def unfinished_matches(self) -> list[MatchRecord]:
        """Every match in the lobby or playing, oldest first: what the bot resumes at start-up.

        Two queries whatever the number of matches.
        """
        with self._session() as s:
            rows = s.exec(
                select(MatchTable)
                .where(col(MatchTable.status).in_(ACTIVE))
                .order_by(col(MatchTable.id))
            ).all()
            seats = s.exec(
                select(SeatTable)
                .join(MatchTable, col(MatchTable.id) == col(SeatTable.match_id))
                .where(col(MatchTable.status).in_(ACTIVE))
                .order_by(col(SeatTable.match_id), col(SeatTable.seat))
            ).all()
        by_match: dict[int, list[SeatTable]] = {}
        for seat in seats:
            by_match.setdefault(seat.match_id, []).append(seat)
        return [_match_record(row, by_match.get(row.id or 0, [])) for row in rows]

    def ended_unsettled(self) -> list[int]:
        """Ended matches (finished, stopped) whose end was not shown, or whose seats still hold
        a turn bell: the bot stopped between a match's last move and those messages. Oldest
        first."""
        belled = (
            sa_select(col(SeatTable.match_id))
            .where(col(SeatTable.turn_message_id).is_not(None))
            .scalar_subquery()
        )
        with self._core() as db:
            ids = db.execute(
                sa_select(col(MatchTable.id))
                .where(
                    col(MatchTable.status).in_((FINISHED, STOPPED)),
                    col(MatchTable.state).is_not(None),
                    col(MatchTable.end_shown).is_(False) | col(MatchTable.id).in_(belled),
                )
                .order_by(col(MatchTable.id))
            ).scalars()
            return [int(match_id) for match_id in ids if match_id is not None]

    def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log in order (versions grow; they start after the lobby's)."""
        with self._session() as s:
            if s.get(MatchTable, match_id) is None:
                raise MatchNotFound(self.database, match_id)
            rows = s.exec(
                select(MoveTable)
                .where(col(MoveTable.match_id) == match_id)
                .order_by(col(MoveTable.version))
            ).all()
            return [MoveRecord(row.version, row.seat, row.action, row.created_at) for row in rows]

    def load_engine_match(self, record: MatchRecord) -> GameMatch:
        """The engine match from the record's snapshot, ready to take the next move.

        Raises :class:`StoreError` naming the database and the match if the snapshot cannot be
        read (damaged, or written by a newer engine), and :class:`WrongStatus` in the lobby.
        """
        if record.state_json is None:
            raise WrongStatus(self.database, record.id, record.status, "it has no saved state")
        try:
            return load_match(record.state_json)
        except SnapshotError as error:
            if error.code == "snapshot-too-new" and _has_format(record.state_json):
                why = f"was saved by a newer Tavolo ({error.message}): upgrade Tavolo to resume it"
            else:
                why = f"has a saved state that cannot be read ({error}): it is damaged"
            raise StoreError(self.database, f"match {record.id} {why}") from error

    def replay(self, match_id: int) -> GameMatch:
        """The match rebuilt from its seed, options and seats by replaying the whole move log.

        Equal to the stored snapshot (``replay(id).to_json() == get_match(id).state_json``): the
        log is the match's audit trail. Raises :class:`StoreError` if a logged move is refused.
        """
        record = self.get_match(match_id)
        try:
            match = self.initial_match(record)
        except ValueError as error:
            why = f"match {match_id} cannot be set up: {error}"
            raise StoreError(self.database, why) from error
        for move in self.moves(match_id):
            try:
                match.play(move.action, seat=move.seat)
            except EngineError as error:
                raise StoreError(
                    self.database,
                    f"match {match_id}: logged move {move.version} ({move.action!r} by seat "
                    f"{move.seat}) is refused on replay: {error}",
                ) from error
        return match

    # --- Messages the bot edits and deadlines ------------------------------------------------

    def _update_match(self, match_id: int, **values: Any) -> None:
        """Set columns of the match that are fields of its record, by the same names."""
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable).where(col(MatchTable.id) == match_id).values(**values)
            )
            if done.rowcount != 1:
                raise MatchNotFound(self.database, match_id)
        if before is not None:
            self._kept.keep_match(replace(before, **_as_read(values)))

    def _update_seat(self, match_id: int, seat: int, **values: Any) -> None:
        """Set columns of a seat that are fields of its record, by the same names."""
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(SeatTable)
                .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                .values(**values)
            )
            if done.rowcount != 1:
                self._no_seat(db, match_id, seat)
        if before is not None:
            self._kept.keep_match(with_seat(before, seat, lambda kept: replace(kept, **values)))

    def _no_seat(self, db: Connection, match_id: int, seat: int) -> NoReturn:
        query = sa_select(col(MatchTable.id)).where(col(MatchTable.id) == match_id)
        if db.execute(query).first() is None:
            raise MatchNotFound(self.database, match_id)
        raise SeatError(self.database, match_id, f"there is no seat {seat}")

    def _ui_of(self, db: Connection, match_id: int, seat: int) -> SeatUI:
        query = sa_select(*_UI_COLUMNS).where(
            col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat
        )
        found = db.execute(query).first()
        if found is None:
            self._no_seat(db, match_id, seat)
        return _ui(*found)

    def set_table_message(
        self,
        match_id: int,
        chat_id: int,
        message_id: int | None,
        digest: str | Unchanged | None = UNCHANGED,
    ) -> None:
        """Remember the group message showing the table (None: there is none now), with the
        ``digest`` of what it shows when it is new (one write: a bot stopped in between would
        know the message but not what it shows, and edit it to the same text)."""
        shows = (
            {}
            if isinstance(digest, Unchanged)
            else {"table_digest": digest, "table_pending": digest}
        )
        self._update_match(match_id, table_chat_id=chat_id, table_message_id=message_id, **shows)

    def set_table_digest(self, match_id: int, digest: str | None, pending: bool = False) -> None:
        """Remember what the table message shows now (a digest of its text and buttons), as
        Telegram confirmed it; ``pending``: an edit to ``digest`` is being sent."""
        if pending:
            self._update_match(match_id, table_pending=digest)
        else:
            self._update_match(match_id, table_digest=digest, table_pending=digest)

    def set_hand_digest(
        self, match_id: int, seat: int, digest: str | None, pending: bool = False
    ) -> None:
        """Remember what the seat's hand message shows now (``pending``: is being sent)."""
        if pending:
            self._update_seat(match_id, seat, hand_pending=digest)
        else:
            self._update_seat(match_id, seat, hand_digest=digest, hand_pending=digest)

    def show_hand_end(self, match_id: int, hand: int) -> bool:
        """Take the showing of hand ``hand``'s summary to the group: True once, for the first
        who asks (a process, an instance, or the same one after a restart), so the summary is
        posted once at most; its message is not known until :meth:`set_summary_message`."""
        newer = col(MatchTable.shown_hand).is_(None) | (col(MatchTable.shown_hand) < hand)
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable)
                .where(col(MatchTable.id) == match_id, newer)
                .values(shown_hand=hand, summary_message_id=None)
            )
        taken = bool(done.rowcount == 1)
        if before is not None:
            changed: dict[str, Any] = (
                {"shown_hand": hand, "summary_message_id": None} if taken else {}
            )
            self._kept.keep_match(replace(before, **changed))
        return taken

    def set_summary_message(self, match_id: int, message_id: int) -> None:
        """Remember the group's message of the latest hand's summary."""
        self._update_match(match_id, summary_message_id=message_id)

    def show_match_end(self, match_id: int) -> bool:
        """Take the showing of the match's end to the group: True once (as
        :meth:`show_hand_end`)."""
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable)
                .where(col(MatchTable.id) == match_id, col(MatchTable.end_shown).is_(False))
                .values(end_shown=True)
            )
        if before is not None:
            self._kept.keep_match(replace(before, end_shown=True))
        return bool(done.rowcount == 1)

    def set_recap_hand(self, match_id: int, seat: int, hand: int) -> None:
        """Remember that the seat's hand message turned into the recap of hand ``hand``."""
        self._update_seat(match_id, seat, recap_hand=hand)

    def set_hand_message(self, match_id: int, seat: int, message_id: int | None) -> None:
        """Remember the seat's hand message, in the player's private chat (id = user id)."""
        self._update_seat(match_id, seat, hand_message_id=message_id)

    def replace_hand_message(
        self,
        match_id: int,
        seat: int,
        old: int | None,
        message_id: int | None,
        digest: str | Unchanged | None = UNCHANGED,
    ) -> bool:
        """Remember ``message_id`` as the seat's hand message (None: it has none) if the stored
        one is still ``old`` (another instance may have posted and stored its own meanwhile),
        with the ``digest`` of what it shows (in the same write, as for the table); whether it
        was stored."""
        shows = (
            {} if isinstance(digest, Unchanged) else {"hand_digest": digest, "hand_pending": digest}
        )
        same = (
            col(SeatTable.hand_message_id).is_(None)
            if old is None
            else col(SeatTable.hand_message_id) == old
        )
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(SeatTable)
                .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat, same)
                .values(hand_message_id=message_id, **shows)
            )
        stored = bool(done.rowcount == 1)
        if before is not None and stored:
            changed: dict[str, Any] = {"hand_message_id": message_id, **shows}
            self._kept.keep_match(with_seat(before, seat, lambda kept: replace(kept, **changed)))
        return stored

    def set_turn_message(
        self,
        match_id: int,
        seat: int,
        chat_id: int | None,
        message_id: int | None,
        turn_version: int | None = None,
    ) -> None:
        """Remember the "your turn" notification sent for a seat and the turn it rings for
        (None, None: there is none)."""
        self._update_seat(
            match_id,
            seat,
            turn_chat_id=chat_id,
            turn_message_id=message_id,
            turn_version=None if message_id is None else turn_version,
        )

    def forget_turn_message(self, match_id: int, seat: int, message_id: int) -> None:
        """The seat's turn bell ``message_id`` is gone: forget it, unless a newer one is stored
        meanwhile."""
        before = self._kept.match(match_id)
        gone: dict[str, Any] = {"turn_chat_id": None, "turn_message_id": None, "turn_version": None}
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(SeatTable)
                .where(
                    col(SeatTable.match_id) == match_id,
                    col(SeatTable.seat) == seat,
                    col(SeatTable.turn_message_id) == message_id,
                )
                .values(**gone)
            )
        if before is not None:
            changed: dict[str, Any] = gone if done.rowcount == 1 else {}
            self._kept.keep_match(with_seat(before, seat, lambda kept: replace(kept, **changed)))

    def set_deadline(self, match_id: int, when: datetime | None, seat: int | None = None) -> None:
        """Set the turn deadline (timezone-aware) of ``seat``, or clear it with None."""
        _check_when(when)
        self._update_match(match_id, deadline=when, deadline_seat=None if when is None else seat)

    # --- Due work and match locks (several instances on one database) ----------------------

    def set_work(self, match_id: int, version: int, items: Sequence[tuple[str, datetime]]) -> None:
        """The match's due work becomes ``items`` (kind, time), set at match ``version``."""
        with self._core(write=True, touches=NOTHING) as db:
            replace_work(db, match_id, version, items)

    def work(self, match_id: int | None = None) -> list[Work]:
        """The stored due work (of one match), soonest first."""
        with self._core() as db:
            return pending(db, match_id)

    def claim_due(self, owner: str, now: datetime, lease: timedelta, limit: int = 20) -> list[Work]:
        """Claim for ``owner`` (an instance's name) the work due by ``now`` that nobody holds,
        for ``lease``; two instances never get the same row."""
        _check_when(now)
        with self._core(write=True, touches=NOTHING) as db:
            return claim_due(db, owner, now, lease, limit)

    def claim_work(
        self,
        owner: str,
        match_id: int,
        kind: str,
        now: datetime,
        lease: timedelta,
        *,
        due_at: datetime | None = None,
        version: int | None = None,
    ) -> Work | None:
        """Claim the match's work of ``kind`` for ``owner``: the piece due at ``due_at`` or set
        at ``version`` when given (None: there is none, or another instance holds it)."""
        _check_when(now)
        with self._core(write=True, touches=NOTHING) as db:
            return claim_one(db, owner, match_id, kind, now, lease, due_at=due_at, version=version)

    def finish_work(self, item: Work) -> None:
        """The claimed work is done (a move may have replaced it already)."""
        with self._core(write=True, touches=NOTHING) as db:
            finish(db, item)

    def release_work(self, item: Work, until: datetime | None = None) -> None:
        """Give claimed work back, undone: any instance may claim it again from ``until``
        (None: at once)."""
        _check_when(until)
        with self._core(write=True, touches=NOTHING) as db:
            release(db, item, until)

    def reserve_message(self, chat_id: int, interval: float, burst: int) -> float:
        """Take a place for one message in the chat's budget shared by the instances
        (``burst`` at once, then one every ``interval`` seconds): 0.0 when taken, else the
        seconds to wait before asking again."""
        with self._core(write=True, touches=NOTHING) as db:
            return reserve(db, chat_id, interval, burst)

    def try_lock_match(self, match_id: int) -> bool:
        """Take the match's lock across instances (PostgreSQL), if free; whether it was taken.
        Always taken on SQLite, used by one process."""
        try:
            return self._match_locks.try_lock(match_id)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def unlock_match(self, match_id: int) -> None:
        """Release the match's lock taken with :meth:`try_lock_match`."""
        try:
            self._match_locks.unlock(match_id)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def claim_delivery(self, key: tuple[int, str, int]) -> bool:
        """Claim the delivery of a live message, ``key`` = (match, kind, seat): the table
        (``"table"``, seat 0), a seat's ``"hand"`` or ``"bell"``, unless another instance holds
        it (PostgreSQL; always granted on SQLite, used by one process); whether it was
        claimed. A dead instance's claims go with its connection."""
        try:
            return self._match_locks.try_claim(key)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def release_delivery(self, key: tuple[int, str, int]) -> None:
        """Give back a delivery claimed with :meth:`claim_delivery`."""
        try:
            self._match_locks.release_claim(key)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def setting(self, name: str, make: Callable[[], str]) -> str:
        """The shared setting ``name``; the first instance to ask stores ``make()``."""

        def attempt() -> str:
            with self._session(write=True, touches=NOTHING) as s:
                row = s.get(SettingTable, name)
                if row is None:
                    row = SettingTable(name=name, value=make())
                    s.add(row)
                    s.flush()
                return row.value

        return self._retrying(attempt)

    # --- Hand UI state ---------------------------------------------------------------------------

    def update_seat_ui(
        self,
        match_id: int,
        seat: int,
        expected_version: int,
        *,
        selected: Sequence[str] | Keep = KEEP,
        staged: Sequence[Sequence[str]] | Keep = KEEP,
        order: Sequence[str] | Keep | None = KEEP,
        sort: str | Keep = KEEP,
        mode: str | Keep = KEEP,
        pending: str | Keep = KEEP,
    ) -> SeatUI:
        """Change the given parts of a seat's hand UI state; its version grows by one.

        ``mode`` and ``pending`` are the keyboard's current step (choosing a meld to attach to,
        declaring a joker, a capture choice) and what that step is about.

        Raises :class:`StaleVersion` (``seat`` set; nothing written) if the state changed since
        ``expected_version`` was read: a second press on an old keyboard. The state as stored is
        ``get_match(match_id).seats[seat].ui``.
        """
        values: dict[str, Any] = {"ui_version": expected_version + 1}
        if not isinstance(selected, Keep):
            values["ui_selected"] = _dump(list(selected))
        if not isinstance(staged, Keep):
            values["ui_staged"] = _dump([list(meld) for meld in staged])
        if not isinstance(order, Keep):
            values["ui_order"] = None if order is None else _dump(list(order))
        if not isinstance(sort, Keep):
            values["ui_sort"] = sort
        if not isinstance(mode, Keep):
            values["ui_mode"] = mode
        if not isinstance(pending, Keep):
            values["ui_pending"] = pending
        before = self._kept.match(match_id)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(SeatTable)
                .where(
                    col(SeatTable.match_id) == match_id,
                    col(SeatTable.seat) == seat,
                    col(SeatTable.ui_version) == expected_version,
                )
                .values(**values)
            )
            if done.rowcount == 1 and before is not None and seat < len(before.seats):
                # Kept, the seat's UI was at ``expected_version``: no need to read it back.
                ui = _changed_ui(before.seats[seat].ui, values)
            else:
                ui = self._ui_of(db, match_id, seat)
            if done.rowcount != 1:
                raise StaleVersion(self.database, match_id, expected_version, ui.version, seat)
        if before is not None:
            self._kept.keep_match(with_seat(before, seat, lambda kept: replace(kept, ui=ui)))
        return ui

    # --- Confirmations -------------------------------------------------------------------------

    def ask(self, chat_id: int, user_id: int, kind: str, match_id: int | None = None) -> int:
        """Record a yes/no question asked ``user_id`` in ``chat_id``; its id (for the buttons)."""
        with self._core(write=True, touches=NOTHING) as db:
            done = db.execute(
                insert(ConfirmationTable).values(
                    chat_id=chat_id, user_id=user_id, kind=kind, match_id=match_id,
                    created_at=_now(),
                )
            )  # fmt: skip
            key = done.inserted_primary_key
            assert key is not None
            return int(key[0])

    def confirmation(self, confirmation_id: int) -> Confirmation | None:
        """The question, answered or not; None if there is no such question."""
        with self._session() as s:
            row = s.get(ConfirmationTable, confirmation_id)
            return None if row is None else _confirmation(row)

    def answer(self, confirmation_id: int) -> bool:
        """Mark the question answered; False if it was answered already (or never asked), so
        exactly one answer wins even when two come at once."""
        with self._core(write=True, touches=NOTHING) as db:
            done = db.execute(
                update(ConfirmationTable)
                .where(
                    col(ConfirmationTable.id) == confirmation_id,
                    col(ConfirmationTable.answered_at).is_(None),
                )
                .values(answered_at=_now())
            )
            return done.rowcount == 1

    # --- Users and chats -------------------------------------------------------------------------

    def upsert_user(self, user_id: int, name: str, language_code: str | None = None) -> UserRecord:
        """Record a user the bot met (display name, Telegram's language code); keeps the choice
        of language made with :meth:`set_user_language`."""

        def attempt() -> UserRecord:
            with self._session(write=True, touches=(USER, user_id)) as s:
                row = s.get(UserTable, user_id)
                if row is None:
                    row = UserTable(user_id=user_id, name="", updated_at=_now())
                    s.add(row)
                row.name = _name(name)
                row.language_code = language_code
                row.updated_at = _now()
                s.flush()
                record = _user_record(row)
            self._kept.keep(USER, user_id, record)
            return record

        return self._retrying(attempt)

    def get_user(self, user_id: int) -> UserRecord | None:
        """The user, or None if the bot never recorded them."""
        kept = self._kept.user(user_id)
        if kept is not None:
            return None if isinstance(kept, Absent) else kept
        with self._session() as s:
            row = s.get(UserTable, user_id)
            record = None if row is None else _user_record(row)
        self._kept.keep(USER, user_id, ABSENT if record is None else record)
        return record

    def _change_row(
        self, table: type[_Row], key: int, fresh: Callable[[], _Row], change: Callable[[_Row], None]
    ) -> None:
        """Apply ``change`` to a user's or chat's row, creating it with ``fresh`` if missing."""

        touched = (USER if table is UserTable else CHAT, key)

        def attempt() -> None:
            with self._session(write=True, touches=touched) as s:
                row = s.get(table, key)
                if row is None:
                    row = fresh()
                    s.add(row)
                change(row)
                row.updated_at = _now()

        self._retrying(attempt)

    def _change_user(self, user_id: int, change: Callable[[UserTable], None]) -> None:
        """Apply ``change`` to the user's row (created if the bot never met the user)."""
        self._change_row(
            UserTable,
            user_id,
            lambda: UserTable(user_id=user_id, name="", updated_at=_now()),
            change,
        )

    def set_user_language(self, user_id: int, language: str | None) -> None:
        """The language the user chose (None: back to Telegram's language code)."""

        def change(row: UserTable) -> None:
            row.language = language

        self._change_user(user_id, change)

    def set_private_chat(self, user_id: int, open_: bool) -> None:
        """Whether the user has opened the private chat with the bot (``/start``)."""

        def change(row: UserTable) -> None:
            row.private_chat = open_

        self._change_user(user_id, change)

    def has_private_chat(self, user_id: int) -> bool:
        """Whether the bot may write to the user in private (they started the bot)."""
        user = self.get_user(user_id)
        return user is not None and user.private_chat

    def chat_settings(self, chat_id: int) -> ChatSettings:
        """A group's language and default options per game (empty settings if none were set)."""
        kept = self._kept.chat(chat_id)
        if kept is not None:
            return kept
        with self._session() as s:
            row = s.get(ChatTable, chat_id)
            settings = (
                ChatSettings(chat_id, None, {})
                if row is None
                else ChatSettings(chat_id, row.language, json.loads(row.default_options), row.title)
            )
        self._kept.keep(CHAT, chat_id, settings)
        return self._kept.chat(chat_id) or settings

    def _change_chat(self, chat_id: int, change: Callable[[ChatTable], None]) -> None:
        """Apply ``change`` to the group's settings row (created with empty settings)."""
        self._change_row(
            ChatTable,
            chat_id,
            lambda: ChatTable(chat_id=chat_id, default_options="{}", updated_at=_now()),
            change,
        )

    def set_chat_title(self, chat_id: int, title: str | None) -> None:
        """Remember a group's title (hands in private are labelled with it)."""

        def change(row: ChatTable) -> None:
            row.title = None if title is None else title[:255]

        self._change_chat(chat_id, change)

    def set_chat_language(self, chat_id: int, language: str | None) -> None:
        """The group's language (None: not chosen)."""

        def change(row: ChatTable) -> None:
            row.language = language

        self._change_chat(chat_id, change)

    def set_chat_default_options(
        self, chat_id: int, game: str, options: dict[str, Any] | None
    ) -> None:
        """The options new matches of ``game`` start with in this group (None: the defaults)."""
        _check_game(game)

        def change(row: ChatTable) -> None:
            defaults = json.loads(row.default_options)
            if options is None:
                defaults.pop(game, None)
            else:
                defaults[game] = options
            row.default_options = _dump(defaults)

        self._change_chat(chat_id, change)

    def migrate_chat(self, old_id: int, new_id: int) -> int:
        """A group became a supergroup: move its matches, settings and results to ``new_id``.

        Done in place (same match ids, logs and snapshots). Settings already made in the new
        chat win over the old ones. Raises :class:`ChatBusy` (nothing changed) if both chats
        have an active match. Running it again is harmless. Returns the number of matches moved.
        """
        if old_id == new_id:
            return 0
        with self._session(write=True) as s:
            old_active = self._active_row(s, old_id)
            new_active = self._active_row(s, new_id)
            if old_active is not None and new_active is not None:
                assert new_active.id is not None
                raise ChatBusy(self.database, new_id, new_active.id)
            old_chat = s.get(ChatTable, old_id)
            if old_chat is not None:
                new_chat = s.get(ChatTable, new_id)
                if new_chat is None:
                    new_chat = ChatTable(chat_id=new_id, default_options="{}", updated_at=_now())
                    s.add(new_chat)
                new_chat.language = new_chat.language or old_chat.language
                merged = json.loads(old_chat.default_options) | json.loads(new_chat.default_options)
                new_chat.default_options = _dump(merged)
                new_chat.updated_at = _now()
                s.delete(old_chat)
                s.flush()
            counts = [
                s.exec(
                    update(table)
                    .where(col(getattr(table, column)) == old_id)
                    .values({column: new_id})
                    .execution_options(synchronize_session=False)
                ).rowcount
                for table, column in _CHAT_COLUMNS
            ]
            return counts[0]

    # --- Results and leaderboards ----------------------------------------------------------------

    def record_results(self, match_id: int, rows: Iterable[PlayerResult]) -> bool:
        """Store each seat's result of a finished match, once: False if already stored.

        Only a finished match has results (a stopped one counts for nobody, docs/rules.md S40-13.3):
        :class:`WrongStatus` otherwise. ``commit_move(..., status=FINISHED, results=rows)``
        stores them with the last move.
        """
        with self._core(write=True, touches=NOTHING) as db:
            return self._insert_results(db, match_id, rows)

    def _insert_results(self, db: Connection, match_id: int, rows: Iterable[PlayerResult]) -> bool:
        query = (
            sa_select(
                col(MatchTable.status),
                col(MatchTable.chat_id),
                col(MatchTable.game),
                col(MatchTable.finished_at),
            )
            .where(col(MatchTable.id) == match_id)
            .with_for_update()
        )
        found = db.execute(query).first()
        if found is None:
            raise MatchNotFound(self.database, match_id)
        status, chat_id, game, finished_at = found
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
        return True

    def leaderboard(self, chat_id: int, game: str) -> list[LeaderboardEntry]:
        """The group's ranking for a game: people first, then computer players, each ranked by
        total MP, then VP (docs/rules.md S40-13.3). Entries carry matches played and won."""
        r = ResultTable
        computer_name = case((col(r.user_id).is_(None), col(r.name)), else_="")
        won = func.sum(case((col(r.won), 1), else_=0))
        query = (
            sa_select(
                col(r.computer),
                col(r.user_id),
                col(UserTable.name),
                func.max(r.name),
                func.count(),
                won,
                func.sum(r.mp),
                func.sum(r.vp),
                func.sum(r.hands_won),
            )
            .outerjoin(UserTable, col(UserTable.user_id) == col(r.user_id))
            .where(col(r.chat_id) == chat_id, col(r.game) == game)
            .group_by(col(r.computer), col(r.user_id), col(UserTable.name), computer_name)
        )
        with self._session() as s:
            # Nine columns: SQLAlchemy's row typing stops short of that, so the row is Any.
            rows: Sequence[Any] = s.connection().execute(query).all()
        entries = [
            LeaderboardEntry(
                rank=0,
                user_id=user_id,
                name=user_name or result_name,
                computer=bool(computer),
                matches=int(matches),
                won=int(wins),
                mp=int(mp),
                vp=int(vp),
                hands_won=int(hands),
            )
            for computer, user_id, user_name, result_name, matches, wins, mp, vp, hands in rows
        ]
        ranked: list[LeaderboardEntry] = []
        for kind in (False, True):
            group = sorted(
                (e for e in entries if e.computer == kind),
                key=lambda e: (-e.mp, -e.vp, -e.won, e.name, e.user_id or 0),
            )
            for position, entry in enumerate(group, start=1):
                previous = ranked[-1] if position > 1 else None
                tie = previous is not None and (previous.mp, previous.vp) == (entry.mp, entry.vp)
                rank = previous.rank if tie and previous is not None else position
                ranked.append(replace(entry, rank=rank))
        return ranked

    def user_stats(self, user_id: int) -> list[GameStats]:
        """A person's figures per game across every group (games they never played left out)."""
        r = ResultTable
        query = (
            sa_select(
                col(r.game),
                func.count(),
                func.sum(case((col(r.won), 1), else_=0)),
                func.sum(r.mp),
                func.sum(r.vp),
                func.sum(r.hands_won),
            )
            .where(col(r.user_id) == user_id, col(r.computer).is_(False))
            .group_by(col(r.game))
            .order_by(col(r.game))
        )
        with self._session() as s:
            rows: Sequence[Any] = s.connection().execute(query).all()
        return [
            GameStats(game, int(matches), int(wins), int(mp), int(vp), int(hands))
            for game, matches, wins, mp, vp, hands in rows
        ]

    def delete_user_data(self, user_id: int) -> list[int]:
        """Erase a person: profile, language, results. They leave every lobby (one they host
        passes to the next seated person, or is cancelled when no person is left); their seats
        in running and past matches become :data:`ANONYMOUS`, and a match they host passes to
        the next seated person (None: nobody). The ids of the lobbies changed.

        Match logs keep their moves (they name seats, not people), so replays still work.
        """
        with self._session(write=True) as s:
            lobbies = self._leave_lobbies(s, user_id)
            s.exec(delete(ResultTable).where(col(ResultTable.user_id) == user_id))
            s.exec(delete(ConfirmationTable).where(col(ConfirmationTable.user_id) == user_id))
            s.exec(delete(UserTable).where(col(UserTable.user_id) == user_id))
            s.exec(delete(ChatTable).where(col(ChatTable.chat_id) == user_id))
            next_host = (
                sa_select(col(SeatTable.user_id))
                .where(
                    col(SeatTable.match_id) == col(MatchTable.id),
                    col(SeatTable.user_id).is_not(None),
                    col(SeatTable.user_id) != user_id,
                )
                .order_by(col(SeatTable.seat))
                .limit(1)
                .scalar_subquery()
            )
            s.exec(
                update(MatchTable)
                .where(col(MatchTable.creator_id) == user_id)
                .values(creator_id=next_host)
                .execution_options(synchronize_session=False)
            )
            s.exec(
                update(SeatTable)
                .where(col(SeatTable.user_id) == user_id)
                .values(
                    user_id=None,
                    name=ANONYMOUS,
                    hand_message_id=None,
                    turn_chat_id=None,
                    turn_message_id=None,
                )
                .execution_options(synchronize_session=False)
            )
            s.exec(
                update(MatchTable)
                .where(col(MatchTable.table_chat_id) == user_id)
                .values(table_chat_id=None, table_message_id=None)
                .execution_options(synchronize_session=False)
            )
        return lobbies

    def _leave_lobbies(self, s: Session, user_id: int) -> list[int]:
        """An erased person leaves every lobby they sit at or host (:meth:`delete_user_data`);
        the ids of those lobbies."""
        seated = sa_select(col(SeatTable.match_id)).where(col(SeatTable.user_id) == user_id)
        query = select(MatchTable.id).where(
            col(MatchTable.status) == LOBBY,
            (col(MatchTable.creator_id) == user_id) | col(MatchTable.id).in_(seated),
        )
        lobbies = sorted(match_id for match_id in s.exec(query).all() if match_id is not None)
        for match_id in lobbies:
            row = self._lock(s, match_id)
            seats = self._seats(s, match_id)
            kept = [seat for seat in seats if seat.user_id != user_id]
            if row.creator_id == user_id:
                gone = [seat.seat for seat in seats if seat.user_id == user_id]
                people = any(seat.user_id is not None for seat in kept)
                row.creator_id = _next_host(kept, gone[0] if gone else -1, 0) if people else None
            self._reseat(s, row, seats, kept)
            if row.creator_id is None:  # nobody left who could start it
                self._end(s, row, STOPPED)
        return lobbies
