"""Fixtures for the store's tests: real databases, never mocks.

Every store test runs on a SQLite file in a temporary folder, and also on PostgreSQL when
``TEST_DATABASE_URL`` names a server (``.ci/run`` sets it when one answers on 127.0.0.1:5432):
each PostgreSQL test gets a fresh schema of its own, dropped afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage import Store
from testkit.storage_helpers import scratch_schema

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file in the test's temporary folder (not created yet)."""
    return f"sqlite:///{tmp_path / 'tavolo.db'}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL schema (dropped afterwards); skipped without a server."""
    if not PG_URL:
        pytest.skip("TEST_DATABASE_URL is not set")
    with scratch_schema(PG_URL) as url:
        yield url


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test on a database runs on every backend; a test of the store also on SQLite as
    the bot alone opens it (``-kept``: the store keeps what it read, :mod:`storage.kept`),
    unless another instance (``other``) writes beside it."""
    names = metafunc.fixturenames
    if "db_url" in names:
        kept = [f"{b}-kept" for b in BACKENDS] if "store" in names and "other" not in names else []
        metafunc.parametrize("db_url", [*BACKENDS, *kept], indirect=True)


@pytest.fixture
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database: a SQLite file, then (with TEST_DATABASE_URL) a PostgreSQL schema."""
    postgresql = request.param.startswith("postgresql")
    url: str = request.getfixturevalue("pg_url" if postgresql else "sqlite_url")
    return url


@pytest.fixture
def store(db_url: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An open store on :func:`db_url`, closed afterwards (``-kept``: opened as the bot alone
    opens it, so every store test checks that what it keeps reads as the database does)."""
    exclusive = str(request.node.callspec.params.get("db_url")).endswith("-kept")
    opened = Store.open(db_url, exclusive=exclusive)
    try:
        yield opened
    finally:
        opened.close()
