"""Turn timers (RULES.md S40-14.3, SC-6.1): a scheduler the service arms, and a clock.

In production the scheduler is python-telegram-bot's JobQueue; tests inject
:class:`ManualScheduler` with its own clock and advance time by hand, never waiting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

Callback = Callable[[], Awaitable[None]]


def utc_now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class Scheduler(Protocol):
    """Runs callbacks at a time; a new job replaces the one of the same name."""

    def schedule(self, name: str, when: datetime, callback: Callback) -> None:
        """Run ``callback`` at ``when`` (at once if it is past)."""

    def cancel(self, name: str) -> None:
        """Drop the job called ``name``, if any."""


class JobQueueScheduler:
    """:class:`Scheduler` on python-telegram-bot's JobQueue (APScheduler underneath)."""

    def __init__(self, job_queue: Any, clock: Callable[[], datetime] = utc_now) -> None:
        self.job_queue = job_queue
        self.clock = clock

    def schedule(self, name: str, when: datetime, callback: Callback) -> None:
        """Run ``callback`` at ``when`` through the JobQueue."""
        self.cancel(name)

        async def job(_context: Any) -> None:
            await callback()

        delay = max(0.0, (when - self.clock()).total_seconds())
        self.job_queue.run_once(job, when=delay, name=name)

    def cancel(self, name: str) -> None:
        """Drop the JobQueue's jobs called ``name``."""
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()


class ManualScheduler:
    """A scheduler with a clock that only moves when told (for tests)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.time = start or datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
        self.jobs: dict[str, tuple[datetime, Callback]] = {}

    def now(self) -> datetime:
        """The manual clock's time."""
        return self.time

    def schedule(self, name: str, when: datetime, callback: Callback) -> None:
        """Remember the job."""
        self.jobs[name] = (when, callback)

    def cancel(self, name: str) -> None:
        """Forget the job."""
        self.jobs.pop(name, None)

    def due(self, name: str) -> datetime | None:
        """When the job called ``name`` runs, if one is scheduled."""
        job = self.jobs.get(name)
        return None if job is None else job[0]

    async def advance(self, seconds: float) -> None:
        """Move the clock forward, running every job that comes due, in time order."""
        end = self.time + timedelta(seconds=seconds)
        while True:
            due = sorted((when, name) for name, (when, _) in self.jobs.items() if when <= end)
            if not due:
                break
            when, name = due[0]
            self.time = max(self.time, when)
            _, callback = self.jobs.pop(name)
            await callback()
        self.time = end
