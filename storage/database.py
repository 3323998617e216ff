"""Opening the database: the URL, its name in messages, and the engine with SQLite's settings.

Every SQLite connection runs in WAL mode with ``synchronous=FULL`` (a committed move survives a
power cut, not only a crash), foreign keys on and a busy timeout. Transactions that write start
with ``BEGIN IMMEDIATE``, so two writers queue on the busy timeout instead of one failing half way
(pysqlite's own transaction handling is turned off for that, as the SQLAlchemy docs describe).
The write-ahead log is checkpointed into the file every :data:`WAL_PAGES` pages and kept no
larger than that, so that it cannot fill a small disk before SQLite's own first checkpoint
(4 MB). Any other SQLAlchemy URL (PostgreSQL for large deployments) is used as it is.

When SQLite cannot write, :func:`write_trouble` tells why from the file system (a full disk, a
read-only mount or folder or file), and :func:`claim` keeps a SQLite file to one process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
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
WAL_PAGES: Final = 100
"""Pages (4 KiB each) the write-ahead log may hold before it is checkpointed into the file (and
its size it is cut back to): about 400 KiB of disk beside the database, not SQLite's 4 MB."""
LOW_SPACE: Final = 64 * 1024
"""Free bytes under which a disk counts as full (a move writes a few pages)."""
_DOES_NOT_WRITE: Final = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR")
"""The SQLite error names whose cause may be the file system's (see :func:`write_trouble`)."""


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
        cursor.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES}")
        cursor.execute(f"PRAGMA journal_size_limit = {WAL_PAGES * 4096}")
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


def sqlite_path(url: str | URL) -> Path | None:
    """The file of a SQLite URL (absolute), None for another database or an in-memory one."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or _is_memory(parsed):
        return None
    assert parsed.database is not None
    return Path(parsed.database).expanduser().resolve()


def _size(count: int) -> str:
    return f"{count // 1024} KiB" if count >= 1024 else f"{count} bytes"


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK, effective_ids=True)


def write_trouble(path: Path, error_name: str | None = None) -> str | None:
    """Why this process cannot write the SQLite database ``path``, with what to do, if the file
    system tells: a full disk, a read-only file system, a folder or file it may not write.
    ``error_name`` is SQLite's (``SQLITE_FULL``, ...): only a full disk or an error about
    opening, permissions or I/O is looked into; None when nothing explains it.

    The folder must be writable too: SQLite keeps the ``-wal`` and ``-shm`` files beside the
    database."""
    if error_name is not None and not error_name.startswith(("SQLITE_FULL", *_DOES_NOT_WRITE)):
        return None
    folder = path.parent
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
        free = shutil.disk_usage(folder).free
    except OSError:
        return None  # no such folder: SQLite's own words say enough
    if read_only:
        return f"the file system holding {folder} is mounted read-only: mount it read-write"
    if not _writable(folder):
        return (
            f"this process may not write in the folder {folder}, where SQLite keeps "
            f"{path.name}-wal and {path.name}-shm beside the database: give it write permission"
        )
    for file in (path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
        if file.exists() and not _writable(file):
            return f"this process may not write {file}: give it write permission"
    if free < LOW_SPACE or (error_name or "").startswith("SQLITE_FULL"):
        return f"the disk holding {folder} is full ({_size(free)} free): free some space there"
    return None


class Claimed(Exception):
    """Another process holds the SQLite file (:func:`claim`); ``holder`` is its process id as
    it wrote it, or empty."""

    def __init__(self, holder: str) -> None:
        self.holder = holder
        super().__init__(holder)


def claim(path: Path) -> int:
    """Take ``<path>.lock`` for this process alone: an exclusive ``flock`` on it, held until
    the returned descriptor is closed or the process ends (a killed process lets go at once).
    The file holds the holder's process id. Raises :class:`Claimed` if another process holds it,
    ``OSError`` if the lock file cannot be made."""
    lock = os.open(path.with_name(f"{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(lock, 32, 0).decode(errors="replace").strip()
        os.close(lock)
        raise Claimed(holder) from None
    except BaseException:
        os.close(lock)
        raise
    with contextlib.suppress(OSError):  # a full disk: opening the database will say so
        os.ftruncate(lock, 0)
        os.pwrite(lock, f"{os.getpid()}\n".encode(), 0)
    return lock
