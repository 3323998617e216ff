"""The store's threads: where the bot's database work runs off its event loop (issue 26).

A press's own writes (its move, its hand keyboard) go first; what the outbox notes about its
messages (an edit about to be sent, what a message shows now) waits behind them. On a SQLite
file one thread does all of it, since the file takes one writer at a time: two writer threads
only make each wait for the other's lock (SQLite's busy handler sleeps), and a press's commit
queued behind the notes of a hundred messages waits for all of them (measured in
docs/performance.md). A database server takes several writers at once: there a few threads
share the queue.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Final

FIRST: Final = 0
"""The priority of a press's own work."""
AFTER: Final = 1
"""The priority of the outbox's notes."""


@dataclass(order=True)
class _Job:
    priority: int
    number: int
    call: Callable[[], Any] | None = field(compare=False)
    future: Future[Any] = field(compare=False)


class StoreThreads:
    """``workers`` threads that run store calls by priority, then in the order given."""

    def __init__(self, workers: int) -> None:
        self._jobs: queue.PriorityQueue[_Job] = queue.PriorityQueue()
        self._numbers = itertools.count()
        self._threads = [
            threading.Thread(target=self._work, name=f"tavolo-store-{n}", daemon=True)
            for n in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, call: Callable[[], Any], priority: int = FIRST) -> Future[Any]:
        """Run ``call`` in a store thread; its future."""
        future: Future[Any] = Future()
        self._jobs.put(_Job(priority, next(self._numbers), call, future))
        return future

    def close(self) -> None:
        """Let the threads finish what they were given, then end them."""
        for _ in self._threads:
            self._jobs.put(_Job(AFTER + 1, next(self._numbers), None, Future()))
        for thread in self._threads:
            thread.join()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job.call is None:
                return
            if not job.future.set_running_or_notify_cancel():
                continue
            try:
                job.future.set_result(job.call())
            except BaseException as error:  # handed to the caller, who awaits it
                job.future.set_exception(error)
