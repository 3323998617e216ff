"""Skill ratings (docs/rules.md, "Skill levels"): a rating per person and category, updated
after every match that counts by openskill's Plackett-Luce model, and the level it shows.

Pure: the caller gives the seats of a finished match with their ratings, teams and results;
this module ranks the teams (R-3), asks openskill for the new ratings and returns the people's
(a computer's rating is fixed, R-4). It reads no clock and no store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

SCALA40: Final = "scala40"
"""Scala 40, each player for themselves (R-1)."""
SCALA40_PAIRS: Final = "scala40-pairs"
"""Scala 40 in pairs (option ``pairs``, S40-1.2)."""
SCOPONE_PAIRS: Final = "scopone-pairs"
"""Scopone, two pairs (SC-1)."""
CATEGORIES: Final = (SCALA40, SCALA40_PAIRS, SCOPONE_PAIRS)
"""Every rating category, in the order ``/stats`` shows them."""

_MODEL: Final = PlackettLuce()
"""The rating model, with openskill's defaults (mu 25, sigma 25/3, beta 25/6)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: ``mu`` the mean, ``sigma`` how uncertain it still is (openskill's)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative skill: mu - 3 sigma (openskill's ordinal), what levels are from."""
        return self.mu - 3 * self.sigma

    @property
    def points(self) -> int:
        """The number players see (R-5): 1000 + 40 x the ordinal, rounded (a newcomer 1000)."""
        return round(DISPLAY_BASE + DISPLAY_SCALE * self.ordinal)

    @property
    def level(self) -> str:
        """The named level of :attr:`points` (R-6): one of :data:`LEVELS`."""
        named = LEVELS[0]
        for name, lowest in zip(LEVELS, LEVEL_FLOORS, strict=True):
            if self.points >= lowest:
                named = name
        return named


NEW_RATING: Final = Rating(_MODEL.mu, _MODEL.sigma)
"""A person's rating before their first match in a category: openskill's default (R-2)."""

COMPUTER_RATINGS: Final[Mapping[str, Rating]] = {
    "facile": Rating(23.7, 1.5),
    "esperto": Rating(26.3, 1.5),
}
"""The computer levels' fixed ratings (R-4), measured: ``python -m bench ai`` rates their
matches against each other as people's are rated, both starting as newcomers (2026-11-28, 800
matches to 101: ``esperto`` mu 26.26, ``facile`` 23.74, sigma 1.48 each; ``esperto`` won
60.1%). So a newcomer's mean sits between them, and the gap is the one their results give."""

SCOPONE_COMPUTER_RATINGS: Final[Mapping[str, Rating]] = {
    "facile": Rating(22.8, 1.8),
    "esperto": Rating(27.2, 1.8),
}
"""The computer levels' fixed ratings at Scopone (R-4), measured as Scala 40's are, on whole
Scopone matches to 11 between an ``esperto`` pair and a ``facile`` pair (``python -m bench ai
--rating-deals 200``, 2026-11-28: 400 matches, ``esperto`` mu 27.19, ``facile`` 22.81, sigma
1.78 each; the ``esperto`` pair won 80.8%). Scopone's gap is wider than Scala 40's: its
``esperto`` searches the hand's play out, where Scala 40's luck of the draw weighs more."""


def computer_rating(category: str | None, level: str | None) -> Rating:
    """A computer level's fixed rating in a category (R-4): Scopone's are its own, Scala 40's
    (alone or in pairs) the Scala 40 matches'; a level without one rates as a newcomer."""
    ratings = SCOPONE_COMPUTER_RATINGS if category == SCOPONE_PAIRS else COMPUTER_RATINGS
    return ratings.get(level or "", NEW_RATING)


DISPLAY_BASE: Final = 1000
"""The number shown for an ordinal of 0 (a newcomer, R-5)."""
DISPLAY_SCALE: Final = 40
"""Shown points per unit of ordinal (R-5)."""

LEVELS: Final = ("beginner", "amateur", "expert", "master", "ace")
"""The named levels, lowest first (R-6); the bot's catalogs give their words."""
LEVEL_FLOORS: Final = (0, 1400, 1800, 2100, 2400)
"""The shown points each level starts at (below 0 is still a beginner, R-6)."""


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a finished match as the rating sees it: its ``team`` (the side: a pair's two
    seats share it), its ``rating`` before the match, its ``person`` (None: a computer or a
    player who erased their data, whose rating does not move), and its result."""

    seat: int
    team: int
    rating: Rating
    person: int | None
    won: bool
    mp: int
    abandoned: bool = False


def category_of(game: str, options: Mapping[str, object]) -> str | None:
    """The rating category of a match of ``game`` with ``options`` (R-1); None when it is not
    rated (an unknown game, Scopone with ``individual``)."""
    if game == "scala40":
        return SCALA40_PAIRS if options.get("pairs") else SCALA40
    if game == "scopone" and not options.get("individual"):
        return SCOPONE_PAIRS
    return None


def team_ranks(seats: Sequence[RatedSeat]) -> dict[int, int]:
    """Each team's place, 0 the best (R-3): the winners first, together; then the others by
    MP, most first; a team with a seat that abandoned after every team that did not; equal
    places for equal results."""
    keys: dict[int, tuple[int, int, int]] = {}
    for seat in seats:
        key = (0, 0, 0) if seat.won else (1, int(seat.abandoned), -seat.mp)
        keys[seat.team] = max(keys.get(seat.team, key), key)
    order = sorted(set(keys.values()))
    return {team: order.index(key) for team, key in keys.items()}


def rate(seats: Sequence[RatedSeat]) -> dict[int, Rating]:
    """The people's new ratings after a finished match, by person (R-3, R-4): openskill's
    Plackett-Luce update of every team by its place. Computers keep their fixed rating; a
    match of fewer than two teams moves nobody."""
    ranks = team_ranks(seats)
    if len(ranks) < 2 or not any(seat.person is not None for seat in seats):
        return {}
    teams = sorted(ranks)
    members = [[seat for seat in seats if seat.team == team] for team in teams]
    before = [[_MODEL.rating(mu=s.rating.mu, sigma=s.rating.sigma) for s in m] for m in members]
    after = _MODEL.rate(before, ranks=[float(ranks[team]) for team in teams])
    return {
        seat.person: Rating(new.mu, new.sigma)
        for team_seats, team_after in zip(members, after, strict=True)
        for seat, new in zip(team_seats, team_after, strict=True)
        if seat.person is not None
    }


def side_of(category_name: str, seat: int) -> int:
    """The team of ``seat`` in a category (R-1): a pair's line (seat % 2), else the seat."""
    return seat % 2 if category_name in (SCALA40_PAIRS, SCOPONE_PAIRS) else seat
