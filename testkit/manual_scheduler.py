"""A scheduler whose clock moves only when a test says so (the bot's turn timers run on it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.timers import Callback


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
