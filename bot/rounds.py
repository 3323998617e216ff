"""A tournament round's time (docs/rules.md T-5.7): the organiser gives each round an hour to a
week; when it is up, every table of the round still playing ends as it stands (the core action
``END``, as when no person is left: S40-14.4, SC-6.4), so the next round is paired.

The wake-up is the bot's scheduler's (the JobQueue), armed again from the store at every start:
any instance may fire it, and ending a table is idempotent (the match's lock and status decide,
a table that ended meanwhile is left alone)."""

from __future__ import annotations

import logging

from bot.matches import Matches, MatchHeld
from bot.moves import Moves
from bot.people import People
from bot.render.tournament import round_end
from bot.timers import Scheduler
from engine.actions import END
from storage import Conflict, StaleVersion, TournamentRecord

log = logging.getLogger(__name__)


class RoundClock:
    """Ends a round's tables when its time is up."""

    def __init__(self, matches: Matches, people: People, moves: Moves, scheduler: Scheduler):
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.moves = moves
        self.scheduler = scheduler

    def arm(self, record: TournamentRecord) -> None:
        """Wake up when the tournament's current round's time is up (at once if it is)."""
        ends = round_end(record)
        if record.status != "running" or ends is None:
            return
        number = record.round

        async def up() -> None:
            await self.up(record.id, number)

        self.scheduler.schedule(f"round:{record.id}", ends, up)

    async def up(self, tournament_id: int, number: int) -> None:
        """Round ``number``'s time is up: its tables still playing end as they stand."""
        record = self.store.get_tournament(tournament_id)
        if record.status != "running" or record.round != number:
            return
        for table in record.tables:
            if table.round == number and table.result is None and table.match_id is not None:
                await self._end(table.match_id)

    async def _end(self, match_id: int) -> None:
        try:
            async with self.matches.lock(match_id):
                match = self.store.get_match(match_id)
                if match.status == "playing":
                    lang = self.people.group_lang(match.chat_id)
                    await self.moves.move(match, None, END, lang)
        except (MatchHeld, StaleVersion, Conflict):  # another instance ends it, or a move did
            log.info("the table of match %s ended elsewhere at its round's end", match_id)
