"""A running tournament's rounds (docs/rules.md T-1 to T-5): each round paired by the engine,
each table's match opened in its players' private chats (the group's budget could not carry a
round's tables: docs/performance.md), the next round paired once the last table of a round
ends, the end with its final standings; and each round's time (T-5.6): when it is up, the
tables still playing end as they stand (the core action ``END``, as when no person is left:
S40-14.5, SC-6.4).

Everything is read again from the store at each step (:meth:`Rounds.carry_on`), so a restart,
or another instance, carries on from what was stored: a round is paired once (its key is the
round's), a table's match is opened once (created and linked in one transaction). A round's
wake-up is the bot's scheduler's, armed again from the store at a start and at every poll of
due work (:meth:`Rounds.look`); ending a table is idempotent (the match's lock and status
decide).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from bot.background import Background
from bot.delivery import Outbox, Priority
from bot.i18n import isolated, t
from bot.matches import Matches, MatchHeld
from bot.moves import Moves
from bot.people import People
from bot.render import tournament as view
from bot.timers import Scheduler
from engine.actions import ABANDON, END, STOP
from engine.cards import secure_seed
from engine.games import GameMatch, game
from engine.tournament import next_round
from storage import MatchNotFound, MatchRecord, RoundPaired, TournamentRecord, WrongStatus

log = logging.getLogger(__name__)

Started = Callable[[MatchRecord, GameMatch], Awaitable[None]]
"""Told of a table's match just opened: its record and its engine (the bot starts it as a
lobby's)."""
Show = Callable[[TournamentRecord], None]
"""Shows a tournament's latest state in its group message (the board)."""

RETRIES = (2.0, 10.0, 60.0, 300.0)
"""Seconds before carrying a tournament on again after it failed (the store was away): a round
whose last table ended meanwhile is paired then, not at the next restart."""
ROUND_RETRY = 60.0
"""Seconds before a round whose time is up tries again to end a table it could not."""


class Rounds:
    """Carries running tournaments on: rounds, tables, the round's time, the end."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        outbox: Outbox,
        moves: Moves,
        scheduler: Scheduler,
        started: Started,
        show: Show,
    ) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.moves = moves
        self.scheduler = scheduler
        self.started = started
        self.show = show
        self.background = Background()
        """The tournaments being carried on: a stop lets them finish their step."""
        self.later = Background()
        """Carry-ons waiting to try again: a stop drops them (a restart carries on)."""
        self.retries = RETRIES
        self.closing = False
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, tournament_id: int) -> asyncio.Lock:
        """The tournament's lock in this instance: one step at a time."""
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    def follow(self, record: MatchRecord, match: GameMatch, timing: bool) -> None:
        """After a move: a tournament's table that just ended has the tournament carry on."""
        if record.tournament_id is not None and match.is_over:
            self.background.spawn(self.carry_on(record.tournament_id))

    async def close(self) -> None:
        """Stop: what waits to try again is dropped; a step under way ends first."""
        self.closing = True
        await self.later.close()
        await self.background.close(cancel=False)

    async def resume_all(self) -> int:
        """At start-up: every tournament's message shows its state, and every tournament under
        way carries on from what was stored."""
        records = await self.store.read(self.store.unfinished_tournaments)
        for record in records:
            self.show(record)
            if record.status == "running":
                self.background.spawn(self.carry_on(record.id))
        return len(records)

    async def look(self) -> None:
        """Once a minute (at the poll of due work): arm every running tournament's round time
        (a round another instance paired has its time kept here too), and carry on one whose
        round ended or has a table to open (its carry-on failed for longer than its retries)."""
        for record in await self.store.read(self.store.unfinished_tournaments):
            if record.status != "running":
                continue
            self.arm(record)
            tables = [p for p in record.tables if p.round == record.round]
            if all(p.result is not None for p in tables) or any(not p.match_id for p in tables):
                self.background.spawn(self.carry_on(record.id))

    async def carry_on(self, tournament_id: int, attempt: int = 0) -> None:
        """Bring a running tournament up to date with its stored state: open the current
        round's tables that have no match yet, and once every table of the round has its
        result, pair the next round (or end the tournament). Safe to repeat, and to run on
        several instances: the store pairs a round once and opens a table's match once. One
        that fails tries again later (:data:`RETRIES`)."""
        async with self.lock(tournament_id):
            try:
                await self._carry_on(tournament_id)
                return
            except Exception:  # one tournament's fault must not stop the others
                log.exception("tournament %s could not carry on", tournament_id)
        if attempt < len(self.retries) and not self.closing:
            self.later.spawn(self._again(tournament_id, attempt))

    async def _again(self, tournament_id: int, attempt: int) -> None:
        await asyncio.sleep(self.retries[attempt])
        self.background.spawn(self.carry_on(tournament_id, attempt + 1))

    async def _carry_on(self, tournament_id: int) -> None:
        while True:
            record = await self.store.read(self.store.get_tournament, tournament_id)
            if record.status != "running":
                return
            tables = [p for p in record.tables if p.round == record.round]
            for pairing in tables:
                if pairing.match_id is None:
                    await self._open_table(record, pairing.round, pairing.table)
            if any(p.result is None for p in tables):
                waiting = await self.store.read(self.store.get_tournament, tournament_id)
                self.arm(waiting)
                self.show(waiting)
                return
            found = view.facts(record)
            upcoming = next_round(found.frame, found.seeding, found.results, found.withdrawn)
            if upcoming is None:
                await self._finish(record)
                return
            if upcoming.number != record.round + 1:  # the stored rounds say otherwise: stop
                log.error("tournament %s: round %s next", record.id, upcoming.number)
                return
            try:
                await self.store.off(
                    self.store.pair_round,
                    tournament_id,
                    upcoming.number,
                    upcoming.tables,
                    upcoming.byes,
                )
            except RoundPaired:
                continue  # another instance paired it: carry on from what it stored

    async def _open_table(self, record: TournamentRecord, round_: int, table: int) -> None:
        """Open a round's table: its match, started, in its players' private chats, and
        each player told where and against whom (only by the instance that opened it)."""
        pairing = next(p for p in record.tables if p.round == round_ and p.table == table)
        entries = {e.entry: e for e in record.entries}
        seated = [entries[e] for e in pairing.entries]
        players = [(e.user_id, e.name, e.computer_level) for e in seated]
        if record.pairs:  # seat i and i + 2 are partners (S40-1.2, SC-1.1)
            players += [(e.partner_id, e.partner_name or "", e.computer_level) for e in seated]
        seed, options = secure_seed(), table_options(record)
        match = game(record.game).new_match(len(players), seed, options)
        match_id, opened = await self.store.off(
            self.store.open_table_match,
            record.id,
            round_,
            table,
            players,
            seed,
            match.to_json(),
            options,
        )
        if not opened:
            return
        users = [u for e in seated for u in (e.user_id, e.partner_id) if u is not None]
        await self.people.load(users, [record.chat_id])  # read off the loop
        group = self.people.group_title(record.chat_id)
        for entry in seated:  # told first: the hand goes below, at the hand's pace
            for user in (entry.user_id, entry.partner_id):
                if user is not None:
                    lang = self.people.user_lang(user)
                    text = view.table_notice(record, round_, table, entry.entry, user, lang, group)
                    self.outbox.send(user, text, priority=Priority.HAND)
        try:
            async with self.matches.hold(match_id) as held:  # nothing moves it as it starts
                if held is None:  # as good as a database that did not answer: tried again
                    raise MatchNotFound(self.store.database, match_id)
                await self.started(held, match)
        except MatchHeld:  # another instance acts on it already: it has started there
            log.info("table match %s is held elsewhere as it starts", match_id)

    async def _finish(self, record: TournamentRecord) -> None:
        """Every round played: the tournament ends, the board shows the final standings, and
        the group is told who won (a new message: the board may be far up)."""
        try:
            ended = await self.store.off(self.store.end_tournament, record.id)
        except WrongStatus:
            return  # another instance ended it
        self.show(ended)
        await self.people.load((), [record.chat_id])  # read off the loop
        lang = self.people.group_lang(record.chat_id)
        found, called = view.facts(ended), view.names(ended)
        champion = found.winner()
        lines = [str(view.title(ended, lang))]
        if champion is not None:
            lines.append(t(lang, "tourn.winner", name=isolated(called[champion])))
        lines += view.standings_lines(found.board(), called, lang)
        self.outbox.send(
            record.chat_id, "\n".join(lines), priority=Priority.NOTICE, thread=record.thread_id
        )

    # --- the round's time --------------------------------------------------------------------

    def arm(self, record: TournamentRecord) -> None:
        """Wake up when the tournament's current round's time is up (at once if it is)."""
        ends = view.round_end(record)
        if record.status != "running" or ends is None:
            return
        number = record.round

        async def up() -> None:
            await self.up(record.id, number)

        self.scheduler.schedule(f"round:{record.id}", ends, up)

    async def up(self, tournament_id: int, number: int) -> None:
        """Round ``number``'s time is up: its tables still playing end as they stand (not one
        opened after the time was up: the bot was away; its turn timers end it). Under the
        tournament's lock, so that no table is being opened meanwhile; a table that could not
        be ended is tried again after :data:`ROUND_RETRY` seconds."""
        async with self.lock(tournament_id):
            record = await self.store.read(self.store.get_tournament, tournament_id)
            ends = view.round_end(record)
            if record.status != "running" or record.round != number or ends is None:
                return
            failed = False
            for table in record.tables:
                if table.round == number and table.result is None and table.match_id:
                    failed |= not await self._end(table.match_id, ends)
        if failed:
            when = self.moves.clock() + timedelta(seconds=ROUND_RETRY)

            async def again() -> None:
                await self.up(tournament_id, number)

            self.scheduler.schedule(f"round:{tournament_id}", when, again)

    async def abandon(self, match_id: int, user_id: int) -> None:
        """A person who left the group abandons the table they play (S40-14, SC-6)."""
        async with self.matches.hold(match_id) as match:
            seat = None if match is None else match.seat_of(user_id)
            if match is not None and match.status == "playing" and seat is not None:
                lang = self.people.group_lang(match.chat_id)
                await self.moves.move(match, seat, ABANDON, lang)

    async def stop(self, match_id: int) -> MatchRecord | None:
        """Stop a table whose tournament was cancelled with its group gone (recorded, not
        ranked): the match, or None when it was not playing."""
        async with self.matches.hold(match_id) as match:
            if match is None or match.status != "playing":
                return None
            await self.moves.move(match, None, STOP, self.people.group_lang(match.chat_id))
            return match

    async def _end(self, match_id: int, ends: datetime) -> bool:
        """End a table as it stands; whether it is ended (or needs no ending)."""
        try:
            async with self.matches.hold(match_id) as match:
                if match is None or match.status != "playing" or match.created_at > ends:
                    return True
                lang = self.people.group_lang(match.chat_id)
                await self.moves.move(match, None, END, lang)
                return (await self.matches.stored(match_id)).status != "playing"
        except MatchHeld:
            return False  # another instance is moving it: try again
        except Exception:  # one table's fault must not keep the others of the round going
            log.exception("the table of match %s could not end at its round's end", match_id)
            return False


def table_options(record: TournamentRecord) -> dict[str, Any]:
    """The options of a table's match: the tournament's, and how its players sit (Scala 40's
    ``pairs``; Scopone's ``individual``: a Scopone tournament is of pairs)."""
    names = game(record.game).option_names()
    entry = {"pairs": record.pairs} if "pairs" in names else {"individual": False}
    return {**record.options, **entry}
