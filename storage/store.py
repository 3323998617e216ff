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

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, insert, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col

from storage.base import _DAMAGED, _error_name, _now, _reason
from storage.database import (
    Claimed,
    claim,
    create_store_engine,
    database_label,
    is_sqlite,
    resolve_url,
    sqlite_path,
    write_trouble,
)
from storage.due import DueStore
from storage.errors import DatabaseUnavailable, StoreError
from storage.kept import SHARED_LASTING, Kept
from storage.lobbies import LobbyStore
from storage.matches import MatchStore
from storage.messages import MessageStore
from storage.models import SettingTable
from storage.people import PeopleStore
from storage.results import ResultStore
from storage.rounds import RoundStore
from storage.tournaments import TournamentStore
from storage.work import Hold, MatchLocks

MIGRATIONS: Final = Path(__file__).with_name("migrations")
"""The Alembic script folder, inside the package so an installed Tavolo finds it."""


_MIGRATION_LOCK: Final = 0x7A701
"""PostgreSQL advisory lock key held while the schema is checked and upgraded."""


OPEN_ATTEMPTS: Final = 5
"""Tries to open a SQLite file that another process is creating at the same moment."""


OPENED_SETTING: Final = "opened_at"
"""The setting :meth:`Store.open` writes (when it last opened the database) to prove it can."""


def alembic_config(connection: Any = None) -> Config:
    """The Alembic configuration of Tavolo's migrations, built in code (no ini file needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@contextmanager
def _constraints_deferred(connection: Connection) -> Iterator[None]:
    """On SQLite, foreign keys off while the schema changes: a migration that rebuilds a table
    (Alembic's batch mode) drops the old one, and with foreign keys on, dropping it would
    delete every row that refers to it (seats, moves, results) through ON DELETE CASCADE.
    The pragma works only outside a transaction: it is set on the driver's connection."""
    if connection.dialect.name != "sqlite":
        yield
        return
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys = ON")


def _check_references(connection: Connection) -> None:
    """After a migration on SQLite (foreign keys off meanwhile): every reference still holds,
    else the transaction is undone."""
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
        if broken:
            raise CommandError(f"the migration broke references: {broken[:3]}")


def schema_head() -> str:
    """The newest schema revision this code knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


class Store(
    LobbyStore,
    MatchStore,
    MessageStore,
    DueStore,
    PeopleStore,
    ResultStore,
    TournamentStore,
    RoundStore,
):
    """Tavolo's persistent state, on SQLite (the default) or any SQLAlchemy database.

    Open it with :meth:`Store.open`, which also brings the schema up to date; share one store
    between threads (each call takes its own connection); :meth:`close` it at shutdown.
    """

    @classmethod
    def open(
        cls, url: str | None = None, *, exclusive: bool = False, instance: bool = False
    ) -> Store:
        """Open the database at ``url`` (None: ``DATABASE_URL``, else ``sqlite:///tavolo.db``).

        The schema is upgraded to this code's newest revision (an empty database gets every
        table; an up-to-date one is left alone), then the store writes once, so that a database
        it cannot write is refused now. Raises :class:`StoreError` naming the database when it
        cannot be opened, is not a Tavolo database or is damaged, or was written by a newer
        Tavolo; nothing is changed then. It is a :class:`DatabaseUnavailable` when the file
        system is at fault (a full disk, a read-only file or folder), and says so.

        ``exclusive`` (the bot alone): a SQLite file is for one process, so the store holds a
        lock beside it (``<file>.lock``) until :meth:`close` or the process's end, and refuses
        the file another process holds so; on PostgreSQL it holds the schema alone (an
        advisory lock) and refuses one that bots hold. Its only writer, the store then keeps
        the records it read (:mod:`storage.kept`), and shares nothing (no match locks, no
        claims of deliveries, no shared budgets). ``instance`` (one of several bot instances
        on PostgreSQL): it holds the schema with the others, and refuses one a bot holds
        alone; it keeps people and group settings it read for a few seconds, and no match
        (:mod:`storage.kept`). A tool or a test opens it with neither: it holds and keeps
        nothing.
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
            if (exclusive or instance) and store.shared:
                store._hold(alone=exclusive)
            store._upgrade_schema_retrying()
            store._check_writes()
        except BaseException:
            store.close()
            raise
        if exclusive or instance:
            store._kept = Kept(enabled=True, lasting=None if exclusive else SHARED_LASTING)
        return store

    def _hold(self, alone: bool) -> None:
        """Hold the PostgreSQL schema alone or with the other instances (see :meth:`open`)."""
        hold = Hold(self._engine)
        if not hold.take(alone):
            why = (
                "another Tavolo is using this database: stop it first, or run them all as "
                "instances with BOT_INSTANCES (README, Deployment)"
                if alone
                else "a Tavolo is using this database alone (BOT_INSTANCES=1): stop it first, "
                "or run every instance with BOT_INSTANCES (README, Deployment)"
            )
            raise StoreError(self.database, why)
        self._holding = hold
        if alone:  # the only writer: nothing to share with another instance
            self.shared = False
            self._match_locks.close()
            self._match_locks = MatchLocks(self._engine, shared=False)

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
            with self._writer.connect() as connection, _constraints_deferred(connection):
                self._upgrade(connection, known, head)
        except StoreError:
            raise
        except (SQLAlchemyError, CommandError) as error:
            raise self._open_failure(error) from error

    def _upgrade(self, connection: Connection, known: set[str], head: str | None) -> None:
        """Upgrade the schema to ``head`` in one transaction (refusing a newer one)."""
        with connection.begin():
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
                _check_references(connection)

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

    def close(self) -> None:
        """Close every connection, and let go of the file (see :meth:`open`). The store cannot
        be used afterwards."""
        self._stop_threads()
        self._match_locks.close()
        if self._holding is not None:
            self._holding.release()
            self._holding = None
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
