"""The computer players never choose an illegal action over thousands of seeded hands.

The issue's property test: ``bench.ai_sweep`` plays whole matches with a computer player in every
seat (facile and esperto mixed, 2 to 6 players for Scala 40, every option variant in turn) and
checks each chosen action against ``match.legal_actions()``. ``python -m bench ai-sweep`` runs
the same sweep at any size.
"""

from __future__ import annotations

import pytest

from bench.ai_sweep import sweep_scala40, sweep_scopone

SCALA40_HANDS = 2000
SCOPONE_HANDS = 500
SCALA40_BUDGET = 4
"""Two private worlds per esperto chiusura search: hold-backs still happen, at a fifth the cost."""


@pytest.mark.slow
def test_scala40_computer_players_stay_legal_over_two_thousand_hands() -> None:
    sweep = sweep_scala40(SCALA40_HANDS, budget=SCALA40_BUDGET, seed=1)
    assert sweep.reports == []
    assert (sweep.illegal, sweep.errors, sweep.stuck) == (0, 0, 0)
    assert sweep.hands >= SCALA40_HANDS
    assert sweep.players == {2, 3, 4, 5, 6}
    assert sweep.moves["facile"] > 10_000 and sweep.moves["esperto"] > 10_000


@pytest.mark.slow
def test_scopone_computer_players_stay_legal_over_five_hundred_hands() -> None:
    sweep = sweep_scopone(SCOPONE_HANDS, budget=20, seed=1)
    assert sweep.reports == []
    assert (sweep.illegal, sweep.errors, sweep.stuck) == (0, 0, 0)
    assert sweep.hands >= SCOPONE_HANDS
    assert sweep.moves["facile"] > 1_000 and sweep.moves["esperto"] > 1_000
