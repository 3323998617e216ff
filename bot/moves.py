"""Moves: play an action on the engine, commit it, then show it. One path for every move.

The caller holds the match's lock. The engine decides (a refusal changes nothing and is answered
in words); the store commits the move with the new snapshot, the player's hand keyboard as the
move leaves it, the turn's deadline and its due work (:mod:`bot.work`) and, at the end, the
results, in one transaction, and refuses a racing writer; only then is the press
answered and what the move shows scheduled (:class:`bot.shows.Shows`); the followers (the turn
timers, the computer players) hear of it last.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from bot.answer import Answer, engine_error
from bot.endings import Endings
from bot.games import ui_for
from bot.hand.state import HandUI, cleared
from bot.i18n import t
from bot.matches import Matches, MatchHeld, save_ui, seat_ui, ui_of
from bot.shows import Shows
from engine.actions import END
from engine.errors import IllegalAction
from engine.games import GameMatch
from storage import KEEP, DatabaseUnavailable, Keep, MatchRecord, PlayerResult, StaleVersion

COMPUTER_PAUSE = 1.2
"""Seconds a computer seat waits before its move, so the table reads like a game."""

BACK_FIRST, BACK_LAST = 0.5, 8.0
"""Seconds between tries to show a move the database went away after: doubling, up to the
last."""

DueItems = list[tuple[str, datetime]]
"""Work a move makes due: (kind, time), see :mod:`bot.work`."""

log = logging.getLogger(__name__)

Follower = Callable[[MatchRecord, GameMatch, bool], None]
"""Told of every committed move: the stored match, its engine, whether a new turn started."""


class Moves:
    """The move runner."""

    def __init__(
        self, matches: Matches, shows: Shows, endings: Endings, clock: Callable[[], datetime]
    ) -> None:
        self.matches = matches
        self.store = matches.store
        self.shows = shows
        self.endings = endings
        self.clock = clock
        self.computer_pause = COMPUTER_PAUSE
        self.followers: list[Follower] = []
        self._later: set[asyncio.Task[None]] = set()
        """Shows of committed moves waiting for the database (:meth:`_show_when_back`)."""

    async def move(
        self,
        record: MatchRecord,
        seat: int | None,
        action: str,
        lang: str,
        ui_after: HandUI | None = None,
    ) -> Answer:
        """Play ``action`` for ``seat``, commit it, then show it (``ui_after``: the seat's UI
        state the move leaves). The caller holds the lock."""
        match = self.matches.engine(record)
        ui = ui_for(record.game)
        before_to_play, before_hand = match.to_play, match.hand_number
        before_closed = ui.closed_hand(match)
        try:
            applied = match.play(action, seat=seat)
        except IllegalAction as error:
            return Answer(engine_error(lang, error), alert=error.code != "not-your-turn")
        new_hand = match.hand_number != before_hand
        closed = ui.closed_hand(match) != before_closed
        turn_starts = not match.is_over and (match.to_play != before_to_play or new_hand)
        timing: dict[str, Any] = {}
        if turn_starts:
            deadline, deadline_seat = self.next_deadline(record, match)
            timing = {"deadline": deadline, "deadline_seat": deadline_seat}
        work = self.due(record, match, timing.get("deadline"), turn_starts)
        # The engine is ahead of the store until the commit ends: meanwhile what renders this
        # match (another chat's work goes on while the database works) reads the stored one.
        self.matches.forget(record.id)
        commit = functools.partial(
            self.store.commit_move,
            record.id,
            record.version,
            seat,
            str(applied),
            match.to_json(),
            turn_starts=turn_starts,
            ui=None if ui_after is None else seat_ui(ui_after),
            work=work,
            **self._ending(record, match),
            **timing,
        )
        try:
            version, stored = await self.store.off(self._commit_and_read, record.id, commit)
        except StaleVersion:
            return Answer(t(lang, "ans.stale"))
        self.matches.keep(record.id, version, match)
        quiet = not turn_starts and not match.is_over
        if stored is None:  # the move is committed: it is shown once the database is back
            task = asyncio.create_task(
                self._show_when_back(record.id, version, seat, new_hand, closed)
            )
            self._later.add(task)
            task.add_done_callback(self._later.discard)
            return Answer()
        record = stored
        await self._show(record, match, seat, new_hand, quiet, closed)
        for follower in self.followers:
            follower(record, match, bool(timing) or match.is_over)
        if nobody_left(record, match):  # S40-14.5, SC-6.4: computers play on for nobody
            return await self.move(record, seat, END, lang)
        return Answer()

    def _commit_and_read(
        self, match_id: int, commit: Callable[[], int]
    ) -> tuple[int, MatchRecord | None]:
        """In the store's threads: commit the move, then read the match as it left it, with
        its people (None when the database went away after the commit: the move is committed
        all the same). The committed version."""
        version = commit()
        try:
            return version, self.matches.read(match_id)
        except DatabaseUnavailable as error:
            log.warning("match %d: the database went away after a move (%s)", match_id, error)
            return version, None

    async def _show_when_back(
        self, match_id: int, version: int, mover: int | None, new_hand: bool, closed: bool
    ) -> None:
        """Show a committed move once the store answers again, rendered from the store: the
        table, the hands and the bells; the end of the match only if no move followed (stored
        work drives the timers and the computers meanwhile), the end of a hand if not shown.
        Under the match's hold: no move changes its engine while it is shown."""
        wait = BACK_FIRST
        while True:
            await asyncio.sleep(wait)
            wait = min(wait * 2, BACK_LAST)
            try:
                async with self.matches.hold(match_id) as record:
                    if record is None:
                        return
                    match = self.matches.engine(record)
                    if record.version != version:
                        await self.endings.everything(record)
                        return
                    await self._show(record, match, mover, new_hand, quiet=False, closed=closed)
                    for follower in self.followers:
                        follower(record, match, True)
                    return
            except (DatabaseUnavailable, MatchHeld):
                continue

    def _ending(self, record: MatchRecord, match: GameMatch) -> dict[str, Any]:
        """The status and the results a move that ends the match commits with it."""
        outcome = match.outcome
        if outcome is None:
            return {}
        if outcome.stopped:
            return {"status": "stopped"}
        abandoned = set(match.abandoned_seats)
        results = [
            PlayerResult(
                s.seat,
                s.user_id,
                s.name,
                s.is_computer,
                outcome.mp[s.seat],
                outcome.vp[s.seat],
                s.seat in outcome.winners,
                outcome.hands_won[s.seat],
                s.seat in abandoned,
            )
            for s in record.seats
        ]
        return {"status": "finished", "results": results}

    async def _show(
        self,
        record: MatchRecord,
        match: GameMatch,
        mover: int | None,
        new_hand: bool,
        quiet: bool,
        closed: bool = False,
    ) -> None:
        """Schedule what a committed move shows: the table, the hands that changed, the end of
        a hand or match in the group, the bells. A move within a turn is ``quiet``: its table
        edit waits a little longer, so the move that ends the turn often joins it. A move that
        ``closed`` a hand shows its end first: the summary in the group, then the next
        table below it; each person's recap in their hand, then the new hand below it."""
        await self.endings.summaries(record, match, closed)
        if closed and not match.is_over:
            self.endings.recap(record, match)
        if closed or match.is_over:
            record = await self.matches.stored(record.id)  # as the end of the hand left it
        self.shows.table(record, quiet)
        if new_hand and not match.is_over:
            await self.store.off(self._clear_hands, record)
        # Every hand shows the table as the last change of turn left it. The mover's hand (and
        # a partner's that shows it) and the hand whose turn starts change at once; when the
        # turn passes, the others follow a little later (a move within a turn waits for it).
        now: set[int] = set(range(len(record.seats))) if new_hand or match.is_over else set()
        if mover is not None:
            now.update(ui_for(record.game).touched_hands(match, mover))
        if match.to_play is not None:
            now.add(match.to_play)
        for seat in range(len(record.seats)):
            if seat in now or not quiet:
                self.shows.hand(record, seat, watch=seat not in now)
        if match.is_over:
            self.matches.forget(record.id)  # a finished match is never played again
            self.shows.panels.pop(record.id, None)
        self.shows.ring(record)

    def _clear_hands(self, record: MatchRecord) -> None:
        """A new deal: every player's selection, staged melds and pending step go (store work,
        run off the event loop)."""
        for seat in record.seats:
            ui = ui_of(seat)
            if seat.user_id is not None and (ui.selected or ui.staged or ui.step is not None):
                self._clear_hand(record.id, seat.seat, ui)

    def due(
        self, record: MatchRecord, match: GameMatch, deadline: datetime | None, turn_starts: bool
    ) -> DueItems | Keep:
        """The work the position makes due: a computer's move, or a new turn's reminder (at
        half time) and timeout; a move within a person's turn keeps the turn's (KEEP)."""
        seat = match.to_play
        if match.is_over or seat is None:
            return []
        if self.matches.is_computer(record, match, seat):
            return [("computer", self.clock() + timedelta(seconds=self.computer_pause))]
        if not turn_starts:
            return KEEP
        return self.timer_work(record, deadline)

    @staticmethod
    def timer_work(record: MatchRecord, deadline: datetime | None) -> DueItems:
        """A turn's reminder at half time and its timeout at ``deadline`` (none without it)."""
        if deadline is None:
            return []
        return [("remind", reminder_at(record, deadline)), ("timeout", deadline)]

    def _clear_hand(self, match_id: int, seat: int, ui: HandUI) -> None:
        """Clear a seat's keyboard for the new deal; a press on another instance may change it
        meanwhile: clear what it left (the move is committed already, so never raise)."""
        for _ in range(3):
            try:
                save_ui(self.store, match_id, seat, cleared(ui, keep_staged=False))
                return
            except StaleVersion:
                ui = ui_of(self.store.get_match(match_id).seats[seat])
        log.warning("the keyboard of seat %d of match %d was not cleared", seat, match_id)

    def next_deadline(
        self, record: MatchRecord, match: GameMatch
    ) -> tuple[datetime | None, int | None]:
        """The deadline of the turn starting now, or None (no timer, a computer, the end)."""
        seconds = int(record.options.get("turn_seconds", 0) or 0)
        seat = match.to_play
        if not seconds or seat is None or match.is_over:
            return None, None
        if self.matches.is_computer(record, match, seat):
            return None, None
        return self.clock() + timedelta(seconds=seconds), seat


def nobody_left(record: MatchRecord, match: GameMatch) -> bool:
    """Whether a running match has no person left at the table: every person abandoned."""
    people = [seat.seat for seat in record.seats if seat.user_id is not None]
    left = match.abandoned_seats
    return not match.is_over and bool(left) and all(seat in left for seat in people)


def reminder_at(record: MatchRecord, deadline: datetime) -> datetime:
    """When the reminder of a turn ending at ``deadline`` rings: at half its time."""
    seconds = int(record.options.get("turn_seconds", 0) or 0)
    return deadline - timedelta(seconds=seconds / 2)
