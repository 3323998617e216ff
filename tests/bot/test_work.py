"""Due work runs once: done work goes, failed or cancelled work is given back for another try;
a match another instance holds too long is refused, not waited for forever."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import matches as matches_module
from bot.matches import Matches, MatchHeld
from bot.work import LEASE, RETRY, DueWork
from storage import Store, Work
from testkit.storage_helpers import scratch_schema, started

NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PG_URL = os.environ.get("TEST_DATABASE_URL", "")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'tavolo.db'}")
    yield opened
    opened.close()


def due_work(store: Store, clock: list[datetime]) -> tuple[DueWork, int, Work]:
    """A match with a timeout due at noon, and a DueWork whose clock is ``clock[0]``."""
    record, _ = started(store, "scopone", 4)
    store.set_work(record.id, record.version, [("timeout", NOON)])
    work = DueWork(store, lambda: clock[0])
    return work, record.id, Work(record.id, "timeout", record.version, NOON)


async def test_done_work_goes(store: Store) -> None:
    clock = [NOON]
    work, match_id, item = due_work(store, clock)
    ran: list[Work] = []

    async def handler(got: Work) -> None:
        ran.append(got)

    work.handlers["timeout"] = handler
    assert await work.poll() == 1
    await work.background.settle()
    assert ran == [item]
    assert store.work(match_id) == []


async def test_failed_work_is_given_back_and_tried_again_later(store: Store) -> None:
    clock = [NOON]
    work, match_id, item = due_work(store, clock)
    calls: list[Work] = []

    async def handler(got: Work) -> None:
        calls.append(got)
        if len(calls) == 1:
            raise RuntimeError("the database went away")

    work.handlers["timeout"] = handler
    with pytest.raises(RuntimeError):
        await work.run_local(match_id, "timeout", NOON)
    assert store.work(match_id) == [item]
    clock[0] = NOON + RETRY - timedelta(seconds=1)
    assert await work.poll() == 0  # not before RETRY
    clock[0] = NOON + RETRY + timedelta(seconds=1)
    assert await work.poll() == 1
    await work.background.settle()
    assert calls == [item, item]
    assert store.work(match_id) == []


async def test_work_cancelled_as_the_instance_stops_is_free_at_once(store: Store) -> None:
    clock = [NOON]
    work, match_id, item = due_work(store, clock)
    started_ = asyncio.Event()

    async def handler(got: Work) -> None:
        started_.set()
        await asyncio.sleep(3600)

    work.handlers["timeout"] = handler
    task = asyncio.create_task(work.run_local(match_id, "timeout", NOON))
    await started_.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    other = DueWork(store, lambda: NOON)  # another instance, well before the lease's end
    assert store.claim_due(other.owner, NOON + LEASE / 10, LEASE) == [item]


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")
async def test_a_match_held_elsewhere_too_long_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(matches_module, "LOCK_WAIT", 0.05)
    with scratch_schema(PG_URL) as url:
        mine, theirs = Store.open(url), Store.open(url)
        try:
            record, _ = started(mine, "scopone", 4)
            assert theirs.try_lock_match(record.id)
            matches = Matches(mine)
            with pytest.raises(MatchHeld, match=f"match {record.id} is held"):
                async with matches.hold(record.id):
                    pass
            theirs.unlock_match(record.id)
            async with matches.hold(record.id) as held:
                assert held is not None and held.id == record.id
                assert not theirs.try_lock_match(record.id)
            await matches.given_back()
            assert theirs.try_lock_match(record.id)
            theirs.unlock_match(record.id)
        finally:
            mine.close()
            theirs.close()


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")
def test_a_lock_given_back_late_spares_one_taken_since_on_a_new_connection() -> None:
    """The lock connection broke while a press held a match: its lock went with it. A press
    that takes the match since, on a new connection, keeps it when the first one's late give
    back comes (it names the generation of the connection it took its lock on)."""
    with scratch_schema(PG_URL) as url:
        mine, theirs = Store.open(url), Store.open(url)
        try:
            record, _ = started(mine, "scopone", 4)
            first = mine.take_match_lock(record.id)
            assert first is not None
            mine._match_locks.close()  # the connection broke: the lock went with it
            second = mine.take_match_lock(record.id)
            assert second is not None and second != first
            mine.unlock_match(record.id, first)  # the first press gives back, late
            assert not theirs.try_lock_match(record.id)  # the second still holds it
            mine.unlock_match(record.id, second)
            assert theirs.try_lock_match(record.id)
            theirs.unlock_match(record.id)
        finally:
            mine.close()
            theirs.close()
