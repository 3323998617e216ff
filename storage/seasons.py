"""Seasons in the store: the months in which each group played, and their announcements.

A match's results note its group's month (:func:`note_season`, in the results' transaction), due
at the month's end (docs/rules.md SE-1, SE-3). Once it is over an instance claims the month, as
it claims due work (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, a lease), and the announcement is
sent once: :func:`take` is asked just before it goes, and says yes once. The store's methods
are in :class:`storage.due.DueStore`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Connection, and_, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from engine.seasons import season_bounds, season_of
from storage.models import SeasonTable
from storage.records import Season
from storage.work import released, unclaimed


def note_season(db: Connection, chat_id: int, finished_at: datetime) -> None:
    """A match of ``chat_id`` finished at ``finished_at``: its month is to be announced when
    it ends (once, however many matches the month has)."""
    period = season_of(finished_at)
    dialect = postgresql if db.dialect.name == "postgresql" else sqlite
    db.execute(
        dialect.insert(SeasonTable)
        .values(chat_id=chat_id, period=period, due_at=season_bounds(period)[1])
        .on_conflict_do_nothing(index_elements=["chat_id", "period"])
    )


def claim_due(
    db: Connection, owner: str, now: datetime, lease: timedelta, limit: int
) -> list[Season]:
    """Claim up to ``limit`` months that ended by ``now``, unannounced and held by nobody."""
    s = SeasonTable
    query = (
        sa_select(col(s.chat_id), col(s.period))
        .where(col(s.due_at) <= now, col(s.announced_at).is_(None), unclaimed(s.claimed_until, now))
        .order_by(col(s.due_at))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    found = [Season(int(chat), str(period)) for chat, period in db.execute(query).all()]
    for season in found:
        db.execute(
            update(s).where(_the(season)).values(claimed_by=owner, claimed_until=now + lease)
        )
    return found


def release(db: Connection, season: Season, until: datetime | None) -> None:
    """Give a claimed month back, unannounced: free again at ``until`` (None: at once)."""
    db.execute(update(SeasonTable).where(_the(season)).values(**released(until)))


def take(db: Connection, season: Season, now: datetime) -> bool:
    """Mark the month announced, if it was not: whether this call did."""
    done = db.execute(
        update(SeasonTable)
        .where(_the(season), col(SeasonTable.announced_at).is_(None))
        .values(announced_at=now)
    )
    return bool(done.rowcount == 1)


def of_chat(db: Connection, chat_id: int) -> list[tuple[str, datetime | None]]:
    """The group's months with results, oldest first, and when each was announced."""
    s = SeasonTable
    query = (
        sa_select(col(s.period), col(s.announced_at))
        .where(col(s.chat_id) == chat_id)
        .order_by(col(s.period))
    )
    return [(str(period), announced) for period, announced in db.execute(query).all()]


def _the(season: Season) -> ColumnElement[bool]:
    return and_(
        col(SeasonTable.chat_id) == season.chat_id, col(SeasonTable.period) == season.period
    )
