"""``python -m research.ai_learn``: the positions it records and the regression it fits."""

from __future__ import annotations

import random

import pytest

from engine.ai.scala40_discard import DISCARD_FEATURES
from research.ai_learn import deal_positions, evaluate, fit


def test_fit_recovers_known_weights() -> None:
    """Points made of two features (3 x useful - 2 x penalty) plus a per-position constant."""
    rng = random.Random(5)
    size = len(DISCARD_FEATURES)
    positions = []
    for _ in range(300):
        offset = rng.uniform(-50, 50)
        rows = []
        for _ in range(rng.randint(2, 6)):
            x = tuple(rng.uniform(0, 3) for _ in range(size))
            rows.append((x, offset + 3 * x[0] - 2 * x[6], False))
        positions.append(rows)
    weights = fit(positions, ridge=1e-6)
    assert weights[0] == pytest.approx(3.0, abs=1e-6)
    assert weights[6] == pytest.approx(-2.0, abs=1e-6)
    assert all(w == pytest.approx(0.0, abs=1e-6) for i, w in enumerate(weights) if i not in (0, 6))
    fitted, chosen, best = evaluate(positions, weights)
    assert fitted == pytest.approx(best)
    assert chosen == pytest.approx(sum(p[0][1] for p in positions) / len(positions))


def test_positions_of_a_deal_hold_every_distinct_discard_once() -> None:
    """Deal 100000, heuristic behaviour: each position lists distinct discards, one chosen."""
    positions = deal_positions((100000, "heuristic"))
    assert positions
    for rows in positions:
        assert len(rows) >= 2
        assert sum(mine for _, _, mine in rows) == 1
        assert all(len(features) == len(DISCARD_FEATURES) for features, _, _ in rows)
