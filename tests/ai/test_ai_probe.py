"""The probes of ``python -m research.ai_probe`` (cheating players, never in ``engine/``)."""

from __future__ import annotations

from research.ai_probe import play


def test_seer_wins_a_hand_the_oracle_loses() -> None:
    """Deal 1001, probe in seat 0 against facile: the oracle (esperto's play, never feeding the
    next player) loses the hand by 29 points; the seer, seeing every hidden card and playing each
    discard out, closes it 26 points ahead."""
    assert play(1001, ("oracle", "facile"), whole=False) == (0.0, -29.0)
    assert play(1001, ("seer", "facile"), whole=False) == (1.0, 26.0)


def test_probe_figures_are_for_its_own_seat() -> None:
    """In seat 1 of deal 1002 the seer closes 47 points ahead (facile in seat 0 scores them)."""
    assert play(1002, ("facile", "seer"), whole=False) == (1.0, 47.0)
