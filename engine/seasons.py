"""Seasons: a group's monthly standings (docs/rules.md SE-1 to SE-3).

A season is a calendar month in Italy's time (Europe/Rome): the month a match belongs to is the
one in which it finished there. Pure: the caller passes the instants.

>>> from datetime import UTC, datetime
>>> season_of(datetime(2026, 11, 30, 23, 30, tzinfo=UTC))  # 00:30 on 1 December in Rome
'2026-12'
>>> previous_season("2026-01")
'2025-12'
>>> start, end = season_bounds("2026-11")
>>> start.isoformat(), end.isoformat()
('2026-10-31T23:00:00+00:00', '2026-11-30T23:00:00+00:00')
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final
from zoneinfo import ZoneInfo

SEASON_ZONE: Final = ZoneInfo("Europe/Rome")
"""Where a month begins and ends: the players' own midnight (SE-1)."""

_PERIOD = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])")


def season_of(when: datetime) -> str:
    """The season (``YYYY-MM``) of an instant (timezone-aware)."""
    if when.tzinfo is None:
        raise ValueError(f"an instant must be timezone-aware, got {when!r}")
    local = when.astimezone(SEASON_ZONE)
    return f"{local.year:04d}-{local.month:02d}"


def season_bounds(period: str) -> tuple[datetime, datetime]:
    """The first instant of a season and the first of the next one, in UTC."""
    year, month = _parse(period)
    start = datetime(year, month, 1, tzinfo=SEASON_ZONE)
    following = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=SEASON_ZONE)
    return start.astimezone(UTC), following.astimezone(UTC)


def previous_season(period: str) -> str:
    """The season before ``period``."""
    year, month = _parse(period)
    return f"{year - 1:04d}-12" if month == 1 else f"{year:04d}-{month - 1:02d}"


def month_of(period: str) -> tuple[int, int]:
    """A season's year and month."""
    return _parse(period)


def _parse(period: str) -> tuple[int, int]:
    found = _PERIOD.fullmatch(period)
    if found is None:
        raise ValueError(f"a season is written YYYY-MM, got {period!r}")
    return int(found.group(1)), int(found.group(2))
