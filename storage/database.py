"""Opening the database: the URL, its name in messages, and the engine with SQLite's settings.

Every SQLite connection runs in WAL mode with ``synchronous=FULL`` (a committed move survives a
power cut, not only a crash), foreign keys on and a busy timeout. Transactions that write start
with ``BEGIN IMMEDIATE``, so two writers queue on the busy timeout instead of one failing half way
(pysqlite's own transaction handling is turned off for that, as the SQLAlchemy docs describe).
Any other SQLAlchemy URL (PostgreSQL for large deployments) is used as it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

DEFAULT_URL: Final = "sqlite:///tavolo.db"
"""The database when neither the caller nor ``DATABASE_URL`` names one: a file in the cwd."""
BUSY_TIMEOUT_MS: Final = 10_000
"""How long a SQLite connection waits for another writer before giving up."""
WRITE_OPTION: Final = "tavolo_write"
"""Execution option marking a connection whose transactions write (``BEGIN IMMEDIATE``)."""


_KEEPALIVES: Final = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


def resolve_url(url: str | None) -> str:
    """``url`` if given, else the environment's ``DATABASE_URL``, else :data:`DEFAULT_URL`."""
    return url or os.environ.get("DATABASE_URL") or DEFAULT_URL


def is_sqlite(url: str | URL) -> bool:
    """Whether the URL names a SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def _is_memory(url: URL) -> bool:
    return url.database in (None, "", ":memory:")


def database_label(url: str | URL) -> str:
    """How messages name the database: a SQLite file's absolute path, else the URL without password.

    >>> database_label("postgresql+psycopg://bot:secret@db.example/tavolo")
    'postgresql+psycopg://bot:***@db.example/tavolo'
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if _is_memory(parsed):
            return "in-memory SQLite database"
        assert parsed.database is not None
        return str(Path(parsed.database).expanduser().resolve())
    return parsed.render_as_string(hide_password=True)


def _sqlite_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN itself
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    write = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def create_store_engine(url: str) -> Engine:
    """An engine for ``url``; for SQLite with the pragmas and transaction handling above.

    Nothing is connected yet: errors about the file come at the first use.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() == "psycopg":
        # TCP keepalives: a dead instance's session (and its match locks) ends within a minute.
        return create_engine(parsed, pool_pre_ping=True, connect_args=_KEEPALIVES)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    options: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if _is_memory(parsed):
        options["poolclass"] = StaticPool  # one connection, or every one is a new empty database
    engine = create_engine(parsed, **options)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine
