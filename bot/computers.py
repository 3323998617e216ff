"""The computer players' turns: each after a short, human-looking pause, thought out of the
match's lock (a search may take a second, and presses in the match must not wait for it).

A computer's move is stored due work (:mod:`bot.work`): the instance that made the move before
it plays it after the pause, and another instance takes it over if that one dies.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from bot.background import Background
from bot.matches import Matches
from bot.moves import Moves
from bot.work import DueWork
from engine.games import GameMatch
from storage import DatabaseUnavailable, MatchRecord, Work

log = logging.getLogger(__name__)


class Computers:
    """Plays the seats the bot plays (computer players, and players who left in Scopone)."""

    def __init__(self, matches: Matches, moves: Moves, work: DueWork) -> None:
        self.matches = matches
        self.store = matches.store
        self.moves = moves
        self.work = work
        work.handlers["computer"] = self.play
        self.closing = False
        self._driving: set[int] = set()
        self.background = Background()
        """The computer turns in progress."""

    @property
    def pause(self) -> float:
        """Seconds a computer seat waits before its move."""
        return self.moves.computer_pause

    @pause.setter
    def pause(self, seconds: float) -> None:
        self.moves.computer_pause = seconds

    def follow(self, record: MatchRecord, match: GameMatch, timing: bool) -> None:
        """After a move: play on when the seat to play is the bot's."""
        seat = match.to_play
        if seat is not None and self.matches.is_computer(record, match, seat):
            self.drive(record.id)

    def drive(self, match_id: int) -> None:
        """Play the computer seats' turns of a match, until a person is to play."""
        if match_id not in self._driving and not self.closing:
            self._driving.add(match_id)
            self._spawn(self._turns(match_id))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        self.background.spawn(self._guarded(work))

    @staticmethod
    async def _guarded(work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except DatabaseUnavailable as error:
            log.error("a computer turn failed: %s", error)
        except Exception:
            log.exception("a computer turn failed")

    async def _turns(self, match_id: int) -> None:
        """After each pause, claim the computer's move and play it, while the bot is to play."""
        try:
            while True:
                await asyncio.sleep(self.pause)
                record = await self.matches.stored(match_id)
                item = await self.work.claim(match_id, "computer", version=record.version)
                if item is None:
                    return  # nothing due, or another instance plays it
                await self.work.run(item)
                if (await self.matches.stored(match_id)).version == record.version:
                    return  # no move was made
        finally:
            self._driving.discard(match_id)

    async def play(self, item: Work) -> None:
        """Play the claimed computer move: think without the match's lock, then move if
        nobody moved meanwhile."""
        record = await self.matches.stored(item.match_id)
        if record.status != "playing" or record.version != item.version:
            return
        match = self.matches.engine(record)
        seat = match.to_play
        if seat is None or not self.matches.is_computer(record, match, seat):
            return
        level = record.seats[seat].computer_level or "facile"
        seed = (record.seed + record.version) % 2**32  # reproducible per position
        # The search runs off the event loop, on a private copy of the position.
        private = self.store.load_engine_match(record)
        spec = self.matches.spec(record)
        action = await asyncio.to_thread(spec.choose, private, level, seed)
        async with self.matches.hold(item.match_id) as current:
            if current is not None and current.version == record.version:
                await self.moves.move(current, seat, str(action), "it")

    async def close(self) -> None:
        """Stop: no more computer moves."""
        self.closing = True
        await self.background.close()
