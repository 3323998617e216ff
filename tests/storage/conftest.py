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
from storage_helpers import scratch_schema

from storage import Store

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


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database: a SQLite file, then (with TEST_DATABASE_URL) a PostgreSQL schema."""
    url: str = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    return url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """An open store on :func:`db_url`, closed afterwards."""
    opened = Store.open(db_url)
    try:
        yield opened
    finally:
        opened.close()
