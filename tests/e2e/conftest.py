"""Fixtures for the end-to-end tests: a fake Telegram Bot API server per test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from testkit.bot_harness import SPEED
from testkit.fake_telegram import FakeTelegramServer, FloodLimits
from testkit.storage_helpers import scratch_schema


@pytest.fixture
async def fake_telegram() -> AsyncIterator[FakeTelegramServer]:
    """A started :class:`FakeTelegramServer` (stopped after the test), enforcing Telegram's
    flood limits at the end-to-end tests' speed (:data:`bot_harness.SPEED`).

    The test fails if the server hit a bug of its own or if a request was still in flight
    (other than a parked getUpdates) when the test ended.
    """
    server = FakeTelegramServer(flood_limits=FloodLimits().faster(SPEED))
    await server.start()
    try:
        yield server
    finally:
        in_flight = [c.summary() for c in server.calls if not c.done and c.method != "getUpdates"]
        await server.stop()
    assert not server.internal_errors, f"fake Telegram server bugs: {server.internal_errors!r}"
    assert not in_flight, f"requests still in flight at the end of the test: {in_flight}"


@pytest.fixture
def url() -> Iterator[str]:
    """A fresh schema on the PostgreSQL server ``TEST_DATABASE_URL`` names (dropped after the
    test), for the tests of several instances; they skip without one."""
    with scratch_schema(os.environ["TEST_DATABASE_URL"]) as schema:
        yield schema
