"""Turn timers (docs/rules.md S40-14.3, SC-6.1): the reminder at half time and the timeout.

The deadline and the turn's due work (:mod:`bot.work`) are stored with the move that starts the
turn; :class:`TurnTimers` arms a :class:`Scheduler` on them in the instance that made the move,
and whoever runs the reminder or the timeout (this instance, or another that took it over)
claims it first. In production the scheduler is python-telegram-bot's JobQueue; tests inject
their own (testkit/manual_scheduler.py), with a clock that moves only when they say.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.delivery import Outbox, Priority
from bot.hand.state import cleared
from bot.i18n import t
from bot.matches import Matches, ui_of
from bot.moves import Moves, reminder_at
from bot.people import People
from bot.work import DueWork
from engine.actions import TIMEOUT
from engine.games import GameMatch
from storage import MatchRecord, Work

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


class TurnTimers:
    """Arms the reminder and the timeout of the turn in play; a move re-arms them."""

    def __init__(
        self,
        scheduler: Scheduler,
        clock: Callable[[], datetime],
        matches: Matches,
        people: People,
        outbox: Outbox,
        moves: Moves,
        work: DueWork,
    ) -> None:
        self.scheduler = scheduler
        self.clock = clock
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.moves = moves
        self.work = work
        work.handlers["remind"] = self.remind
        work.handlers["timeout"] = self.expire

    def follow(self, record: MatchRecord, match: GameMatch, timing: bool) -> None:
        """After a move: re-arm when it started a turn (or ended the match)."""
        if timing:
            self.arm(record)

    def arm(self, record: MatchRecord) -> None:
        """Schedule the reminder at half time and the timeout at the stored deadline."""
        remind, expire = f"remind:{record.id}", f"timeout:{record.id}"
        deadline = record.deadline
        if deadline is None or record.status != "playing":
            self.scheduler.cancel(remind)
            self.scheduler.cancel(expire)
            return
        half = reminder_at(record, deadline)
        match_id = record.id
        if half > self.clock():
            self.scheduler.schedule(
                remind, half, lambda: self.work.run_local(match_id, "remind", half)
            )
        else:  # armed late (a restart): no reminder of a turn half over
            self.scheduler.cancel(remind)
            self.work.skip(match_id, "remind", half)
        self.scheduler.schedule(
            expire, deadline, lambda: self.work.run_local(match_id, "timeout", deadline)
        )

    async def remind(self, item: Work) -> None:
        """The turn is half over (claimed work): tell the player how long is left, and show
        the time left again in the table and in the player's hand (its "at most" halves)."""
        record = await self.matches.stored(item.match_id)
        seat, deadline = record.deadline_seat, record.deadline
        if deadline is None or record.status != "playing" or seat is None:
            return
        if reminder_at(record, deadline) != item.due_at:
            return  # the reminder of an earlier turn
        self.moves.shows.table(record)
        if record.seats[seat].user_id is None:
            return
        self.moves.shows.hand(record, seat)
        match_id = record.id
        user = record.seats[seat].user_id or 0
        lang = self.people.user_lang(user)
        left = max(0, int((deadline - self.clock()).total_seconds()))
        where = self.people.where(record.chat_id, lang)
        text = t(lang, "notify.reminder", count=left, where=where)
        self.outbox.send(user, text, priority=Priority.HAND, key=("remind", match_id))

    async def expire(self, item: Work) -> None:
        """The turn timer ran out (claimed work): the engine applies ``timeout_policy``
        (autoplay/forfeit)."""
        match_id = item.match_id
        async with self.matches.hold(match_id) as record:
            if record is None or record.status != "playing" or record.deadline != item.due_at:
                return
            seat = self.matches.engine(record).to_play
            if seat is None:
                return
            ui = ui_of(record.seats[seat])  # autoplay takes the staged melds back
            await self.moves.move(record, seat, TIMEOUT, "it", cleared(ui, keep_staged=False))
            self._tell_expired(await self.matches.stored(match_id), seat)

    def _tell_expired(self, record: MatchRecord, seat: int) -> None:
        """Tell the player their time ran out, and what the bot did for them."""
        user = record.seats[seat].user_id
        if user is None or record.state_json is None:
            return
        lang = self.people.user_lang(user)
        out = seat in self.matches.engine(record).abandoned_seats
        key = "notify.timeout_out" if out else "notify.timeout"
        text = t(lang, key, where=self.people.where(record.chat_id, lang))
        self.outbox.send(user, text, priority=Priority.HAND)
