"""The limits the bot keeps: how fast (:class:`Pace`), and the counters that keep it.

A chat's :class:`TokenBucket` and the overall :class:`SlidingWindow` count a request from the
moment its answer arrives (the window, also while it is in flight): Telegram counts it when it
arrives, which is never later, so the bot never goes past a limit however late its requests
reach Telegram (``tests/bot/test_delivery.py`` checks it over random latencies).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Pace:
    """The limits the bot keeps, a little under Telegram's (the defaults), and how it waits.

    A group's bucket (``group_burst`` + ``group_rate`` a second) sends at most 19 messages in
    any minute; a private chat's, ``private_burst`` then about one a second; overall at most
    ``overall`` requests in any ``overall_window`` seconds.
    """

    group_burst: int = 3
    group_rate: float = 16 / 60
    private_burst: int = 3
    private_rate: float = 1.0
    overall: int = 28
    overall_window: float = 1.0
    reply_ttl: float = 20.0
    """Seconds a command reply may wait for its chat's budget before it is dropped; also how
    long an identical reply is not sent again."""
    aging: float = 2.0
    """Seconds of waiting that raise an entry by one priority level."""
    patience: float = 8.0
    """Seconds after which anything waiting ranks with what someone asked for (and the table
    no longer leaves a token for it): longer than the table waits for its two tokens in a
    group whose budget is spent (7.5 s), so a tap goes first unless taps kept the table out."""
    gather: float = 0.4
    """Seconds a burst of taps is gathered into one edit (:meth:`Outbox.put`)."""
    repost_gap: float = 10.0
    """Seconds after a live message was posted again at the bottom during which another such
    request only edits it (so a flood of ``/table`` costs one message)."""
    point_gap: float = 5.0
    """Seconds after a pointer up at a reply sent lately during which the same command gets no
    other (the pointer is in sight; a flood of ``/score`` costs one message every 5 s)."""
    retries: int = 3
    """Attempts after a network failure before an entry is given up."""

    def shared(self, instances: int) -> Pace:
        """The limits of one of ``instances`` bot instances: Telegram counts the overall
        budget per bot, so each instance keeps its share of it. (A chat's own budget is kept
        by each instance that writes to it; a rare excess is met by Telegram's "retry after".)
        """
        if instances < 1:
            raise ValueError(f"instances must be at least 1, not {instances}")
        return replace(self, overall=max(1, self.overall // instances))

    def faster(self, factor: float) -> Pace:
        """The same limits with time running ``factor`` times faster (tests)."""
        return replace(
            self,
            group_rate=self.group_rate * factor,
            private_rate=self.private_rate * factor,
            overall_window=self.overall_window / factor,
            reply_ttl=self.reply_ttl / factor,
            aging=self.aging / factor,
            patience=self.patience / factor,
            gather=self.gather / factor,
            repost_gap=self.repost_gap / factor,
            point_gap=self.point_gap / factor,
        )


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` a second; a request spends one when it is done."""

    def __init__(self, burst: int, rate: float, now: float) -> None:
        self.burst, self.rate = burst, rate
        self.level, self.stamp = float(burst), now

    def tokens(self, now: float) -> float:
        """Tokens available at ``now``."""
        return min(float(self.burst), self.level + (now - self.stamp) * self.rate)

    def delay(self, now: float, reserve: int = 0) -> float:
        """Seconds until a request may start while leaving ``reserve`` tokens."""
        need = min(1 + reserve, self.burst)
        return max(0.0, (need - self.tokens(now)) / self.rate)

    def spend(self, now: float) -> None:
        """A request finished at ``now``."""
        self.level, self.stamp = self.tokens(now) - 1, now


class SlidingWindow:
    """At most ``limit`` requests in any ``seconds``: those in flight and those finished then."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self.finished: deque[float] = deque()
        self.in_flight = 0

    def delay(self, now: float) -> float | None:
        """Seconds until a request may start (0: now; None: when one in flight finishes)."""
        # The same sum decides both, so a request is never let in a float's width early.
        while self.finished and self.finished[0] + self.seconds <= now:
            self.finished.popleft()
        if len(self.finished) + self.in_flight < self.limit:
            return 0.0
        if not self.finished:
            return None
        return self.finished[0] + self.seconds - now

    def start(self) -> None:
        """A request starts."""
        self.in_flight += 1

    def finish(self, now: float, counted: bool = True) -> None:
        """A request finished at ``now`` (not ``counted``: it was never sent)."""
        self.in_flight -= 1
        if counted:
            self.finished.append(now)


class Changes:
    """Wake-ups for tasks waiting on shared state: ``wait`` returns at the next ``notify``."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        """Wake every waiter."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait(self, timeout: float | None) -> None:
        """Until the next notification, or ``timeout`` seconds (None: no limit). Cancelled,
        it raises, also when a notification came in the same turn: ``asyncio.wait_for`` (on
        Python 3.11) returned then instead, and a table waiting for the overall budget, told
        to make way for a reply, kept its place ahead of it for seconds."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._event.wait()


def overdue(since: float, now: float, pace: Pace) -> bool:
    """Whether an entry waiting since ``since`` waited longer than ``Pace.patience``."""
    return now - since > pace.patience


def rank(priority: int, since: float, now: float, pace: Pace) -> tuple[bool, float]:
    """Lower goes first: priority 0 (what someone just asked for, and looks at: few) before
    anything else, then the priority, raised by one for every ``Pace.aging`` seconds waited.
    What waited longer than ``Pace.patience`` ranks with priority 0, so a stream of replies
    never holds a table, a summary or a hand for longer than that."""
    return (priority > 0 and not overdue(since, now, pace), priority - (now - since) / pace.aging)


class Gate:
    """The overall budget, shared by every chat; the best-ranked waiter goes first, but what
    someone asked for (priority 0) goes before anything, however long that waited, unless the
    place before went to it too: with a backlog of hands and tables for good (a hundred
    matches) a lobby tap or a command still goes at once, and a storm of replies leaves the
    rest every other place.

    Whenever a place may have opened (a waiter came or went, a request finished, the window
    moved on), the best waiter is chosen once and only it is woken: with hundreds of chats
    waiting, waking them all to compare themselves with each other cost the loop more than
    the requests (a hundred matches at once)."""

    def __init__(self, pace: Pace, clock: Clock) -> None:
        self.window = SlidingWindow(pace.overall, pace.overall_window)
        self.pace = pace
        self.clock = clock
        self._waiting: dict[int, tuple[int, float]] = {}
        self._turns: dict[int, asyncio.Event] = {}
        self._tickets = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._replied = False
        """Whether the latest place went to a reply."""

    def _best(self, now: float) -> int:
        def ranked(ticket: int) -> tuple[bool, float, int]:
            return (*rank(*self._waiting[ticket], now, self.pace), ticket)

        if not self._replied:
            replies = [t for t, (priority, _) in self._waiting.items() if priority == 0]
            if replies:
                return min(replies, key=ranked)
        return min(self._waiting, key=ranked)

    def _let_in(self, ticket: int) -> None:
        self.window.start()
        self._replied = self._waiting[ticket][0] == 0

    async def enter(self, priority: int, since: float) -> None:
        """Wait for a place in the overall budget; :meth:`leave` when the request is done."""
        ticket = next(self._tickets)
        turn = self._turns[ticket] = asyncio.Event()
        self._waiting[ticket] = (priority, since)
        try:
            while True:
                self.changed()
                await turn.wait()
                turn.clear()
                now = self.clock()
                if self.window.delay(now) == 0 and self._best(now) == ticket:
                    self._let_in(ticket)
                    return
        finally:
            del self._waiting[ticket], self._turns[ticket]
            self.changed()

    def leave(self, counted: bool = True) -> None:
        """The request let in by :meth:`enter` is done (not ``counted``: never sent)."""
        self.window.finish(self.clock(), counted)
        self.changed()

    def changed(self) -> None:
        """A place may have opened: wake the best waiter if the window lets one in now, or
        look again when it will (a request in flight that finishes calls :meth:`leave`)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._waiting:
            return
        now = self.clock()
        delay = self.window.delay(now)
        if delay == 0:
            self._turns[self._best(now)].set()
        elif delay is not None:
            self._timer = asyncio.get_running_loop().call_later(delay, self._look_again)

    def _look_again(self) -> None:
        self._timer = None
        self.changed()
