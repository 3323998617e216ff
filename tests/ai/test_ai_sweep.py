"""The computer players never choose an illegal action over thousands of seeded hands.

The property test: ``bench.ai_sweep`` plays whole matches with a computer player in every seat
(facile and esperto mixed, 2 to 6 players for Scala 40, every option variant in turn) and checks
each chosen action against ``match.legal_actions()``. CI runs a small sweep (every variant and
player count at least once); ``python -m bench ai-sweep`` runs the full one (2,000 Scala 40 and
1,000 Scopone hands by default) or any size.
"""

from __future__ import annotations

import pytest

from bench.ai_sweep import SCALA40_VARIANTS, SCOPONE_VARIANTS, sweep_scala40, sweep_scopone

SCALA40_HANDS = 400
SCOPONE_HANDS = 200
SCALA40_BUDGET = 4
"""Two private worlds per esperto chiusura search: hold-backs still happen, at a fifth the cost."""


@pytest.mark.slow
def test_scala40_computer_players_stay_legal_over_four_hundred_hands() -> None:
    sweep = sweep_scala40(SCALA40_HANDS, budget=SCALA40_BUDGET, seed=1)
    assert sweep.reports == []
    assert (sweep.illegal, sweep.errors, sweep.stuck) == (0, 0, 0)
    assert sweep.hands >= SCALA40_HANDS
    assert sweep.players == {2, 3, 4, 5, 6}
    assert sweep.variants == {name for name, _, _ in SCALA40_VARIANTS}
    assert sweep.moves["facile"] > 5_000 and sweep.moves["esperto"] > 5_000


@pytest.mark.slow
def test_scopone_computer_players_stay_legal_over_two_hundred_hands() -> None:
    sweep = sweep_scopone(SCOPONE_HANDS, budget=20, seed=1)
    assert sweep.reports == []
    assert (sweep.illegal, sweep.errors, sweep.stuck) == (0, 0, 0)
    assert sweep.hands >= SCOPONE_HANDS
    assert sweep.variants == {name for name, _ in SCOPONE_VARIANTS}
    assert sweep.moves["facile"] > 2_000 and sweep.moves["esperto"] > 2_000
