"""The skill ratings (docs/rules.md R-1 to R-6): openskill's own numbers, fixed computers."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from engine.ratings import (
    COMPUTER_RATINGS,
    NEW_RATING,
    SCALA40,
    SCALA40_PAIRS,
    SCOPONE_PAIRS,
    RatedSeat,
    Rating,
    category_of,
    rate,
    side_of,
    team_ranks,
)

MODEL = PlackettLuce()
ESPERTO = COMPUTER_RATINGS["esperto"]


def test_categories() -> None:
    assert category_of("scala40", {}) == SCALA40
    assert category_of("scala40", {"pairs": True}) == SCALA40_PAIRS
    assert category_of("scopone", {"target": 21}) == SCOPONE_PAIRS
    assert category_of("scopone", {"individual": True}) is None
    assert category_of("tressette", {}) is None
    assert [side_of(SCOPONE_PAIRS, s) for s in range(4)] == [0, 1, 0, 1]
    assert [side_of(SCALA40, s) for s in range(4)] == [0, 1, 2, 3]


def test_a_newcomer_has_openskills_default() -> None:
    assert Rating(MODEL.rating().mu, MODEL.rating().sigma) == NEW_RATING
    assert (NEW_RATING.points, NEW_RATING.level) == (1000, "beginner")
    assert COMPUTER_RATINGS["facile"].mu < NEW_RATING.mu < ESPERTO.mu


def test_levels_by_points() -> None:
    def at(points: int) -> str:
        return Rating((points - 1000) / 40, 0.0).level

    assert [at(p) for p in (-200, 1399, 1400, 1799, 1800, 2100, 2399, 2400, 3000)] == [
        "beginner", "beginner", "amateur", "amateur", "expert", "master", "master", "ace", "ace",
    ]  # fmt: skip


def test_the_computers_read_as_their_names() -> None:
    """Measured, the computers sit either side of the esperto floor (R-4, R-6): facile reads
    dilettante, esperto reads esperto."""
    facile, esperto = COMPUTER_RATINGS["facile"], COMPUTER_RATINGS["esperto"]
    assert (facile.points, facile.level) == (1768, "amateur")
    assert (esperto.points, esperto.level) == (1872, "expert")


def test_three_players_equal_openskill_by_mp() -> None:
    anna, bea, ciro = Rating(27.0, 6.0), Rating(24.0, 7.5), NEW_RATING
    seats = [
        RatedSeat(0, 0, anna, 1, won=False, mp=-55),
        RatedSeat(1, 1, bea, 2, won=True, mp=75),
        RatedSeat(2, 2, ciro, 3, won=False, mp=-20),
    ]
    assert team_ranks(seats) == {0: 2, 1: 0, 2: 1}
    expected = MODEL.rate(
        [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in (anna, bea, ciro)], ranks=[2.0, 0.0, 1.0]
    )
    after = rate(seats)
    assert after == {
        person: Rating(team[0].mu, team[0].sigma)
        for person, team in zip((1, 2, 3), expected, strict=True)
    }


def test_pairs_move_both_partners_and_computers_never() -> None:
    seats = [
        RatedSeat(0, 0, NEW_RATING, 1, won=True, mp=6),
        RatedSeat(1, 1, ESPERTO, None, won=False, mp=-6),
        RatedSeat(2, 0, Rating(30.0, 5.0), 3, won=True, mp=6),
        RatedSeat(3, 1, ESPERTO, None, won=False, mp=-6),
    ]
    after = rate(seats)
    assert set(after) == {1, 3}  # the computers are not returned: their rating is fixed
    winners, _ = MODEL.rate(
        [
            [MODEL.rating(mu=25.0, sigma=25 / 3), MODEL.rating(mu=30.0, sigma=5.0)],
            [MODEL.rating(mu=ESPERTO.mu, sigma=ESPERTO.sigma) for _ in range(2)],
        ],
        ranks=[0.0, 1.0],
    )
    assert after[1] == Rating(winners[0].mu, winners[0].sigma)
    assert after[3] == Rating(winners[1].mu, winners[1].sigma)
    assert after[1].mu > 25.0 and after[3].mu > 30.0


def test_an_abandonment_is_a_loss() -> None:
    # Three players: Bea abandoned with better MP than Ciro, and still places last.
    seats = [
        RatedSeat(0, 0, NEW_RATING, 1, won=True, mp=100),
        RatedSeat(1, 1, NEW_RATING, 2, won=False, mp=-10, abandoned=True),
        RatedSeat(2, 2, NEW_RATING, 3, won=False, mp=-90),
    ]
    assert team_ranks(seats) == {0: 0, 1: 2, 2: 1}
    after = rate(seats)
    assert after[2].mu < after[3].mu < after[1].mu


def test_a_draw_moves_equals_nowhere() -> None:
    seats = [
        RatedSeat(0, 0, NEW_RATING, 1, won=True, mp=0),
        RatedSeat(1, 1, NEW_RATING, 2, won=True, mp=0),
    ]
    after = rate(seats)
    assert after[1] == after[2]
    assert after[1].mu == pytest.approx(25.0)


def test_beating_esperto_again_and_again_ends_above_it() -> None:
    anna = NEW_RATING
    for _ in range(30):
        seats = [
            RatedSeat(0, 0, anna, 1, won=True, mp=50),
            RatedSeat(1, 1, ESPERTO, None, won=False, mp=-50),
        ]
        anna = rate(seats)[1]
    assert anna.ordinal > ESPERTO.ordinal
    assert anna.points > ESPERTO.points
    assert anna.mu > ESPERTO.mu


def test_only_computers_or_one_team_move_nobody() -> None:
    assert (
        rate([RatedSeat(0, 0, ESPERTO, None, True, 5), RatedSeat(1, 1, ESPERTO, None, False, -5)])
        == {}
    )
    assert rate([RatedSeat(0, 0, NEW_RATING, 1, True, 0)]) == {}
