"""Work a part of the bot runs in the background (a computer's turn, due work, a tournament
carried on, a table moved out of a gone topic): tracked, so that :meth:`Background.settle`
waits for it (``Tavolo.drain``) and :meth:`Background.close` ends it at a stop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Background:
    """A part's background tasks."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[None]] = set()
        self._closed = False

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (once closed: nothing, the bot is stopping)."""
        if self._closed:
            work.close()
            return
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def busy(self) -> bool:
        """Whether a task is running."""
        return bool(self._tasks)

    async def settle(self) -> None:
        """Wait until no task runs (those that start meanwhile included)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self, cancel: bool = True) -> None:
        """End the tasks (``cancel``: at once; else let them finish); start no more."""
        self._closed = True
        tasks = list(self._tasks)
        if cancel:
            for task in tasks:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
