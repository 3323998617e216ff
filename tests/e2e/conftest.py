"""Fixtures for the end-to-end tests: a fake Telegram Bot API server per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fake_telegram import FakeTelegramServer


@pytest.fixture
async def fake_telegram() -> AsyncIterator[FakeTelegramServer]:
    """A started :class:`FakeTelegramServer` (stopped after the test).

    The test fails if the server hit a bug of its own or if a request was still in flight
    (other than a parked getUpdates) when the test ended.
    """
    server = FakeTelegramServer()
    await server.start()
    try:
        yield server
    finally:
        in_flight = [c.summary() for c in server.calls if not c.done and c.method != "getUpdates"]
        await server.stop()
    assert not server.internal_errors, f"fake Telegram server bugs: {server.internal_errors!r}"
    assert not in_flight, f"requests still in flight at the end of the test: {in_flight}"
