"""``python -m research.ai_feed``: the labels it records and the regression it fits."""

from __future__ import annotations

import random

import pytest

from engine.ai.scala40_discard import FEED_FEATURES
from engine.scala40 import Action
from research.ai_feed import deal_positions, fed, fit, within_auc
from testkit.s40_helpers import position


def test_a_discard_that_lets_the_next_player_open_is_a_feed() -> None:
    # Seat 1 holds KS KH KC (30) and QH QC: the QD makes a second set, 60 points (S40-5).
    m = position(["QD 4S 9C", "QH QC KS KH KC 2D 7S"], phase="play", turns_done=[1, 1])
    assert fed(m, Action("discard", card="QD")) == 1
    assert fed(m, Action("discard", card="4S")) == 0


def test_a_discard_that_closes_the_hand_has_no_label() -> None:
    m = position(
        ["QD", "QH QC KS KH KC 2D 7S"],
        melds=[(0, "2C 3C 4C")],
        opened=[True, False],
        phase="play",
        turns_done=[1, 1],
    )
    assert fed(m, Action("discard", card="QD")) is None


def test_fit_recovers_known_weights() -> None:
    """Labels made of the bias and two features: 0.1 + 0.05 x penalty - 0.2 x thrown."""
    rng = random.Random(3)
    size = len(FEED_FEATURES)
    penalty, thrown = FEED_FEATURES.index("penalty"), FEED_FEATURES.index("thrown")
    positions = []
    for _ in range(200):
        candidates = []
        for _ in range(rng.randint(2, 6)):
            x = (1.0, *(rng.uniform(0, 3) for _ in range(size - 1)))
            label = 0.1 + 0.05 * x[penalty] - 0.2 * x[thrown]
            candidates.append((x, label, False))
        positions.append((rng.choice(["closed", "open"]), candidates))
    for regime in ("closed", "open"):
        weights = fit(positions, regime, ridge=1e-9)  # type: ignore[arg-type]
        expected = [0.0] * size
        expected[0], expected[penalty], expected[thrown] = 0.1, 0.05, -0.2
        assert weights == pytest.approx(expected, abs=1e-6)


def test_within_auc_counts_pairs_of_one_position() -> None:
    # Position 1: the feeding card (0.9) above both safe ones; position 2: below one, tied with
    # the other. 2 + 0 + 0.5 of 4 pairs.
    scored = [[(0.9, 1), (0.2, 0), (0.5, 0)], [(0.3, 1), (0.4, 0), (0.3, 0)]]
    assert within_auc(scored) == pytest.approx(2.5 / 4)
    assert within_auc([[(0.1, 0), (0.2, 0)]]) == 0.5


def test_positions_of_a_deal_label_every_distinct_discard() -> None:
    """Deal 200000, heuristic behaviour: distinct discards, one chosen, labels 0 or 1."""
    positions = deal_positions((200000, "heuristic"))
    assert positions
    for regime, candidates in positions:
        assert regime in ("closed", "open")
        assert len(candidates) >= 2
        assert sum(chosen for _, _, chosen in candidates) == 1
        assert {label for _, label, _ in candidates} <= {0, 1}
        assert all(len(features) == len(FEED_FEATURES) for features, _, _ in candidates)
