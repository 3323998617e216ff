"""The store's results: each finished match's, the rankings, a person's statistics and skill
ratings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import ColumnElement, case, func
from sqlalchemy import select as sa_select
from sqlmodel import col

from engine.seasons import season_bounds
from storage.base import StoreBase
from storage.kept import NOTHING
from storage.models import RatingTable, ResultTable, UserTable
from storage.records import (
    GameStats,
    LeaderboardEntry,
    PlayerResult,
    RatedPerson,
    RatingRecord,
)


class ResultStore(StoreBase):
    """Results of finished matches, the groups' rankings and each person's statistics."""

    def record_results(self, match_id: int, rows: Iterable[PlayerResult]) -> bool:
        """Store each seat's result of a finished match, once: False if already stored.

        Only a finished match has results (a stopped one counts for nobody, docs/rules.md S40-13.3):
        :class:`WrongStatus` otherwise. ``commit_move(..., status=FINISHED, results=rows)``
        stores them with the last move.
        """
        with self._core(write=True, touches=NOTHING) as db:
            return self._insert_results(db, match_id, rows)

    def leaderboard(
        self, chat_id: int, game: str, season: str | None = None
    ) -> list[LeaderboardEntry]:
        """The group's ranking for a game: people first, then computer players, each ranked by
        total MP, then VP (docs/rules.md S40-13.3). Entries carry matches played and won.
        ``season`` (``YYYY-MM``): only the matches that finished in that month (SE-2)."""
        r = ResultTable
        computer_name = case((col(r.user_id).is_(None), col(r.name)), else_="")
        won = func.sum(case((col(r.won), 1), else_=0))
        query = (
            sa_select(
                col(r.computer),
                col(r.user_id),
                col(UserTable.name),
                func.max(r.name),
                func.count(),
                won,
                func.sum(r.mp),
                func.sum(r.vp),
                func.sum(r.hands_won),
            )
            .outerjoin(UserTable, col(UserTable.user_id) == col(r.user_id))
            .where(col(r.chat_id) == chat_id, col(r.game) == game)
            .where(*_within(season))
            .group_by(col(r.computer), col(r.user_id), col(UserTable.name), computer_name)
        )
        with self._session() as s:
            # Nine columns: SQLAlchemy's row typing stops short of that, so the row is Any.
            rows: Sequence[Any] = s.connection().execute(query).all()
        entries = [
            LeaderboardEntry(
                rank=0,
                user_id=user_id,
                name=user_name or result_name,
                computer=bool(computer),
                matches=int(matches),
                won=int(wins),
                mp=int(mp),
                vp=int(vp),
                hands_won=int(hands),
            )
            for computer, user_id, user_name, result_name, matches, wins, mp, vp, hands in rows
        ]
        ranked: list[LeaderboardEntry] = []
        for kind in (False, True):
            group = sorted(
                (e for e in entries if e.computer == kind),
                key=lambda e: (-e.mp, -e.vp, -e.won, e.name, e.user_id or 0),
            )
            for position, entry in enumerate(group, start=1):
                previous = ranked[-1] if position > 1 else None
                tie = previous is not None and (previous.mp, previous.vp) == (entry.mp, entry.vp)
                rank = previous.rank if tie and previous is not None else position
                ranked.append(replace(entry, rank=rank))
        return ranked

    def user_stats(self, user_id: int) -> list[GameStats]:
        """A person's figures per game across every group (games they never played left out)."""
        r = ResultTable
        query = (
            sa_select(
                col(r.game),
                func.count(),
                func.sum(case((col(r.won), 1), else_=0)),
                func.sum(r.mp),
                func.sum(r.vp),
                func.sum(r.hands_won),
            )
            .where(col(r.user_id) == user_id, col(r.computer).is_(False))
            .group_by(col(r.game))
            .order_by(col(r.game))
        )
        with self._session() as s:
            rows: Sequence[Any] = s.connection().execute(query).all()
        return [
            GameStats(game, int(matches), int(wins), int(mp), int(vp), int(hands))
            for game, matches, wins, mp, vp, hands in rows
        ]

    def user_ratings(self, user_id: int) -> list[RatingRecord]:
        """A person's skill ratings, one per category they were rated in (docs/rules.md R-1),
        ordered by category; categories they never played are left out."""
        r = RatingTable
        query = (
            sa_select(col(r.category), col(r.mu), col(r.sigma), col(r.matches), col(r.updated_at))
            .where(col(r.user_id) == user_id)
            .order_by(col(r.category))
        )
        with self._session() as s:
            rows = s.connection().execute(query).all()
        return [RatingRecord(*row) for row in rows]

    def group_ratings(self, chat_id: int) -> list[RatedPerson]:
        """The skill ratings of the people who finished a match in the group, in every
        category they were rated in (docs/rules.md R-6), by category then by name."""
        r, u, results = RatingTable, UserTable, ResultTable
        members = (
            sa_select(col(results.user_id), func.max(results.name).label("played_as"))
            .where(col(results.chat_id) == chat_id, col(results.computer).is_(False))
            .group_by(col(results.user_id))
            .subquery()
        )
        name = func.coalesce(col(u.name), members.c.played_as)
        query = (
            sa_select(
                col(r.user_id),
                name,
                col(r.category),
                col(r.mu),
                col(r.sigma),
                col(r.matches),
                col(r.updated_at),
            )
            .join(members, members.c.user_id == col(r.user_id))
            .outerjoin(u, col(u.user_id) == col(r.user_id))
            .order_by(col(r.category), name)
        )
        with self._core() as db:
            rows: Sequence[Any] = db.execute(query).all()
        return [
            RatedPerson(int(user), str(name), RatingRecord(category, mu, sigma, matches, when))
            for user, name, category, mu, sigma, matches, when in rows
        ]


def _within(season: str | None) -> list[ColumnElement[bool]]:
    """The results of a season (all of them: None)."""
    if season is None:
        return []
    start, end = season_bounds(season)
    finished = col(ResultTable.finished_at)
    return [finished >= start, finished < end]
