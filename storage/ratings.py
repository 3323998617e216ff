"""The skill ratings' writes: a finished match's update, in the transaction of its results.

Called by :meth:`storage.base.StoreBase._insert_results` when it stores a match's results, so
the ratings move once per match, with the results (docs/rules.md R-3): a crash loses both or
neither, and results stored again (they are refused) move nothing. The store keeps no rating
(``kept.py``): a rating write touches no kept record, and every read goes to the database.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col

from engine.ratings import (
    NEW_RATING,
    RatedSeat,
    Rating,
    category_of,
    computer_rating,
    rate,
    side_of,
)
from storage.models import RatingTable, SeatTable
from storage.records import PlayerResult


def rate_match(
    db: Connection,
    match_id: int,
    game: str,
    options_json: str,
    results: Sequence[PlayerResult],
    now: datetime,
) -> None:
    """Move the ratings of the people of a finished match by its ``results`` (R-1 to R-4)."""
    options = json.loads(options_json or "{}")
    kind = category_of(game, options if isinstance(options, dict) else {})
    people = [r.user_id for r in results if r.user_id is not None and not r.computer]
    if kind is None or not people:
        return
    levels = _computer_levels(db, match_id)
    before = _lock_ratings(db, people, kind, now)
    seats = [
        RatedSeat(
            seat=r.seat,
            team=side_of(kind, r.seat),
            rating=_rating_of(r, kind, levels.get(r.seat), before),
            person=None if r.computer else r.user_id,
            won=r.won,
            mp=r.mp,
            abandoned=r.abandoned,
        )
        for r in results
    ]
    for person, after in rate(seats).items():
        db.execute(
            update(RatingTable)
            .where(col(RatingTable.user_id) == person, col(RatingTable.category) == kind)
            .values(
                mu=after.mu,
                sigma=after.sigma,
                matches=col(RatingTable.matches) + 1,
                updated_at=now,
            )
        )


def _rating_of(
    result: PlayerResult, kind: str, level: str | None, before: dict[int, Rating]
) -> Rating:
    """A seat's rating before the match: a person's own, a computer level's fixed one in the
    category (a level without one rates as a newcomer), a newcomer's for a seat whose person
    left."""
    if result.computer:
        return computer_rating(kind, level)
    if result.user_id is None:
        return NEW_RATING
    return before[result.user_id]


def _computer_levels(db: Connection, match_id: int) -> dict[int, str | None]:
    """The computer level of each seat of the match (None for a person)."""
    query = sa_select(col(SeatTable.seat), col(SeatTable.computer_level)).where(
        col(SeatTable.match_id) == match_id
    )
    return {int(seat): level for seat, level in db.execute(query).all()}


def _lock_ratings(
    db: Connection, people: Sequence[int], kind: str, now: datetime
) -> dict[int, Rating]:
    """The people's ratings in ``kind``, their rows created as a newcomer's where missing and
    locked until the transaction ends (PostgreSQL; SQLite writers queue): two matches ending
    together both count."""
    dialect = postgresql if db.dialect.name == "postgresql" else sqlite
    db.execute(
        dialect.insert(RatingTable)
        .values([_new_row(person, kind, now) for person in people])
        .on_conflict_do_nothing(index_elements=["user_id", "category"])
    )
    return _locked(db, people, kind)


def _new_row(person: int, kind: str, now: datetime) -> dict[str, object]:
    return {
        "user_id": person,
        "category": kind,
        "mu": NEW_RATING.mu,
        "sigma": NEW_RATING.sigma,
        "matches": 0,
        "updated_at": now,
    }


def _locked(db: Connection, people: Sequence[int], kind: str) -> dict[int, Rating]:
    """The people's ratings in ``kind``, their rows locked until the transaction ends."""
    query = (
        sa_select(col(RatingTable.user_id), col(RatingTable.mu), col(RatingTable.sigma))
        .where(col(RatingTable.user_id).in_(people), col(RatingTable.category) == kind)
        .with_for_update()
    )
    return {int(user): Rating(mu, sigma) for user, mu, sigma in db.execute(query).all()}
