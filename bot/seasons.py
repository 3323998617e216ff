"""Seasons: each group's standings (docs/rules.md SE-1 to SE-3), of all time and by month, and
the skill levels.

``/classifica`` shows the rankings of all time, ``/classifica livelli`` the levels, ``/stats``
a person's own figures; ``/classifica mese`` shows the month so far; when a month is over,
every group that finished a match in it is sent its final standings, once (stored due work:
whichever instance claims the month sends it, and the store says yes to one sending only).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime

from babel.dates import format_date

from bot.delivery import Outbox, Priority
from bot.i18n import DEFAULT, LANGUAGES, isolated, t
from bot.people import People
from bot.rankings import leaderboard_text, levels_text, stats_text
from engine.games import GAMES
from engine.seasons import month_of, previous_season, season_of
from storage import Season, Store

log = logging.getLogger(__name__)

MONTH_WORDS = frozenset({"mese", "month"})
"""What after ``/classifica`` asks for the month's standings."""
LAST_WORDS = frozenset({"scorso", "precedente", "last", "previous"})
"""What, with a month word, asks for the month before this one."""


def month_name(period: str, lang: str) -> str:
    """``novembre 2026``, ``November 2026``: a season as its players say it."""
    year, month = month_of(period)
    locale = lang if lang in LANGUAGES else DEFAULT
    return format_date(date(year, month, 1), "LLLL yyyy", locale=locale)


class Seasons:
    """The months' standings, and their announcements."""

    def __init__(
        self, store: Store, people: People, outbox: Outbox, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.people = people
        self.outbox = outbox
        self.clock = clock

    async def standings_text(
        self, chat_id: int, games: list[str], lang: str, previous: bool = False
    ) -> str:
        """``/classifica mese``: the group's ranking of each game in the month so far
        (``previous``, ``/classifica mese scorso``: in the month before)."""
        period = season_of(self.clock())
        if previous:
            period = previous_season(period)
        texts = [await self._ranking(chat_id, game, period, lang) for game in games]
        return "\n\n".join(texts)

    async def _ranking(self, chat_id: int, game: str, period: str, lang: str) -> str:
        entries = await self.store.read(self.store.leaderboard, chat_id, game, period)
        month = month_name(period, lang)
        if not entries:
            return t(lang, "season.empty", game=t(lang, f"game.{game}"), month=month)
        title = t(lang, "season.title", game=t(lang, f"game.{game}"), month=month)
        return leaderboard_text(entries, game, lang, title)

    async def rankings_text(self, chat_id: int, games: list[str], lang: str) -> str:
        """``/rankings``: the group's ranking of each game, of all time."""
        texts = []
        for name in games:
            board = await self.store.read(self.store.leaderboard, chat_id, name)
            texts.append(leaderboard_text(board, name, lang))
        return "\n\n".join(texts)

    async def levels_text(self, chat_id: int, lang: str) -> str:
        """``/rankings levels``: the group's people by skill rating, per category."""
        return levels_text(await self.store.read(self.store.group_ratings, chat_id), lang)

    async def stats_text(self, user_id: int, lang: str) -> str:
        """``/stats``: the person's own figures across groups, and their skill levels."""
        figures = await self.store.read(self.store.user_stats, user_id)
        ratings = await self.store.read(self.store.user_ratings, user_id)
        return stats_text(figures, ratings, lang)

    async def announce(self, season: Season) -> None:
        """A month is over: its final standings go to the group, once (SE-3)."""
        await self.people.load((), [season.chat_id])  # read off the loop
        lang = self.people.group_lang(season.chat_id)
        text = await self.store.read(self.final_text, season, lang)
        if text is None:  # no result left in the month (erased): nothing to announce
            await self.store.off(self.store.take_season, season)
            return
        self.outbox.send(
            season.chat_id,
            text,
            priority=Priority.NOTICE,
            sending=lambda: self.store.take_season(season),
        )

    def final_text(self, season: Season, lang: str) -> str | None:
        """The announcement of a month that is over: its champions, then each game's final
        ranking (None: no game has a result in it); store work, run off the event loop."""
        month = month_name(season.period, lang)
        parts: list[str] = []
        champions: list[str] = []
        for game in GAMES:
            entries = self.store.leaderboard(season.chat_id, game, season.period)
            if not entries:
                continue
            name = t(lang, f"game.{game}")
            first = [isolated(e.name) for e in entries if e.rank == 1 and not e.computer]
            if first:  # equal at the top, they share the title
                champions.append(t(lang, "season.champion", game=name, name=", ".join(first)))
            title = t(lang, "season.title", game=name, month=month)
            parts.append(leaderboard_text(entries, game, lang, title))
        if not parts:
            return None
        head = "\n".join([t(lang, "season.over", month=month), *champions])
        return "\n\n".join([head, *parts])
