""" "Perft"-style regression records (STYLE.md): for fixed seeds, the exact number of legal
actions along a fixed line of play, the number of action sequences to a small depth, and the
exact state after N actions. A change to any of these numbers is a rules change (or a change of
the deck derivation, S40-2.2) and must be deliberate.

The numbers were produced by the engine and checked by hand where a hand check is practical:

* seed 1, 2 players: the first player (seat 1) holds 3S 4S 4S 5S 7S 2D 4D 6D QD AC 3C 5C JK
  with 9C face up. The 9C fits no opening of 40, so the draw phase offers only ``draw`` (1);
  the draw brings the second AC and 12 distinct faces may be discarded, with no opening of 40
  possible (the best is 3S 4S 5S JK 7S = 25): 12. After each of those 12 discards seat 0 may
  draw, and after the joker also ``take open 8C 9C JK JC QC`` (47): 13 sequences of depth 3.
  The first hand is closed by seat 0 while seat 1 holds AC 2C 5C 7C: one ace counts 1, so
  1 + 2 + 5 + 7 = 15 (S40-11.2).
* seed 2, 3 players: seat 2 draws JD and may open 8C JK 10C (27) + JH JD JC (30) = 57, or
  discard any of its 14 distinct faces: 15; after the opening 8 cards remain, none attachable:
  8. The second hand ends with seat 1 holding AC 3C 5C 5C 6C 6C (26) and seat 2 2C 4C (6).
* seed 3, 4 players: the second hand ends with seat 1 holding 2H AC AC QC, two aces at 11
  each: 34; seats 2 and 3 never opened: the flat 100 each (S40-11.3), which takes them to 200
  and 111, past 101: both are out (S40-12.1).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.scala40 import Match, Options, new_match


def perft(m: Match, depth: int) -> int:
    """The number of legal action sequences of length ``depth`` (fewer if the match ends)."""
    if depth == 0 or m.to_play is None:
        return 1
    total = 0
    for action in m.legal_actions():
        child = m.copy()
        child.play(action)
        total += perft(child, depth - 1)
    return total


def summary(m: Match) -> dict[str, Any]:
    """The state after a line of play, in a few exact numbers."""
    return {
        "hand_number": m.hand_number,
        "dealer": m.dealer,
        "to_play": m.to_play,
        "phase": m.phase,
        "totals": m.totals,
        "hands_won": m.hands_won,
        "stock": len(m.stock),
        "discard": len(m.discard),
        "melds": len(m.melds),
        "hand_sizes": [len(h) for h in m.hands],
        "restocks": m.restocks,
        "reason": m.result.reason if m.result else None,
    }


class TestPerft:
    """Action sequences from the deal, by depth (default options)."""

    @pytest.mark.parametrize(
        ("seed", "players", "expected"),
        [
            (1, 2, [1, 12, 13, 177, 194]),
            (2, 3, [1, 15, 26, 254, 470]),
            (3, 4, [1, 11, 14, 182, 392]),
        ],
    )
    def test_perft(self, seed: int, players: int, expected: list[int]) -> None:
        """S40-3, S40-5, S40-8: draw (1), then discards and openings, then the next draw."""
        m = new_match(players=players, seed=seed)
        assert [perft(m, depth) for depth in range(1, 6)] == expected


class TestFirstActionLine:
    """Always the first legal action, for 200 actions."""

    @pytest.mark.parametrize(
        ("seed", "players", "counts", "closes", "final"),
        [
            (
                1,
                2,
                [1, 12, 1, 14, 1, 12, 1, 14, 1, 13, 2, 15, 7, 1, 9, 1],
                [(111, 0, [0, 15])],
                {
                    "hand_number": 2,
                    "dealer": 1,
                    "to_play": 0,
                    "phase": "play",
                    "totals": [0, 15],
                    "hands_won": [1, 0],
                    "stock": 40,
                    "discard": 41,
                    "melds": 6,
                    "hand_sizes": [2, 1],
                    "restocks": 0,
                    "reason": None,
                },
            ),
            (
                2,
                3,
                [1, 15, 8, 1, 14, 7, 1, 11, 1, 8, 1, 15, 4, 2, 11, 1],
                [(63, 0, [0, 26, 18]), (168, 0, [0, 26, 6])],
                {
                    "hand_number": 3,
                    "dealer": 0,
                    "to_play": 0,
                    "phase": "play",
                    "totals": [0, 52, 24],
                    "hands_won": [2, 0, 0],
                    "stock": 53,
                    "discard": 15,
                    "melds": 4,
                    "hand_sizes": [14, 13, 1],
                    "restocks": 0,
                    "reason": None,
                },
            ),
            (
                3,
                4,
                [1, 11, 1, 15, 8, 2, 10, 7, 1, 13, 1, 8, 2, 8, 1, 7],
                [(93, 1, [6, 0, 100, 11]), (133, 0, [0, 34, 100, 100])],
                {
                    "hand_number": 3,
                    "dealer": 0,
                    "to_play": 1,
                    "phase": "play",
                    "totals": [6, 34, 200, 111],
                    "hands_won": [1, 1, 0, 0],
                    "stock": 52,
                    "discard": 29,
                    "melds": 5,
                    "hand_sizes": [1, 5, 0, 0],
                    "restocks": 0,
                    "reason": None,
                },
            ),
        ],
    )
    def test_line(
        self,
        seed: int,
        players: int,
        counts: list[int],
        closes: list[tuple[int, int, list[int]]],
        final: dict[str, Any],
    ) -> None:
        """S40-3 .. S40-12: legal-action counts of the first 16 positions, each hand's
        closer and points, and the state after 200 actions."""
        m = new_match(players=players, seed=seed)
        seen: list[int] = []
        ends: list[tuple[int, int, list[int]]] = []
        for step in range(200):
            actions = m.legal_actions()
            if step < 16:
                seen.append(len(actions))
            hand = m.hand_number
            m.play(actions[0])
            if m.hand_number != hand:
                assert m.last_hand is not None
                assert m.last_hand.closer is not None
                ends.append((step, m.last_hand.closer, list(m.last_hand.points)))  # type: ignore[arg-type]
        assert seen == counts
        assert ends == closes
        assert summary(m) == final


class TestRandomLine:
    """A seeded random choice among the legal actions, for 300 actions, with options."""

    @pytest.mark.parametrize(
        ("seed", "players", "options", "counts", "final"),
        [
            (
                11,
                2,
                Options(),
                [1, 12, 2, 7, 1, 11, 1, 7, 1, 11, 1, 7],
                {
                    "hand_number": 3,
                    "dealer": 1,
                    "to_play": 1,
                    "phase": "play",
                    "totals": [22, 10],
                    "hands_won": [1, 1],
                    "stock": 52,
                    "discard": 29,
                    "melds": 2,
                    "hand_sizes": [13, 7],
                    "restocks": 0,
                    "reason": None,
                },
            ),
            (
                12,
                5,
                Options(jokers=False),
                [1, 13, 1, 14, 1, 14, 1, 15, 1, 13, 1, 14],
                {
                    "hand_number": 1,
                    "dealer": 3,
                    "to_play": 4,
                    "phase": "play",
                    "totals": [0, 0, 0, 0, 0],
                    "hands_won": [0, 0, 0, 0, 0],
                    "stock": 18,
                    "discard": 20,
                    "melds": 13,
                    "hand_sizes": [4, 1, 3, 3, 2],
                    "restocks": 3,
                    "reason": None,
                },
            ),
            (
                13,
                4,
                Options(pairs=True),
                [1, 14, 1, 13, 2, 13, 1, 13, 1, 15, 2, 13],
                {
                    "hand_number": 2,
                    "dealer": 1,
                    "to_play": None,
                    "phase": "over",
                    "totals": [220, 0],
                    "hands_won": [0, 2],
                    "stock": 48,
                    "discard": 8,
                    "melds": 7,
                    "hand_sizes": [13, 3, 13, 0],
                    "restocks": 0,
                    "reason": "points",
                },
            ),
        ],
    )
    def test_line(
        self,
        seed: int,
        players: int,
        options: Options,
        counts: list[int],
        final: dict[str, Any],
    ) -> None:
        """S40-1 .. S40-12 with ``jokers`` off (5 players, 3 restocks) and ``pairs``."""
        m = new_match(players=players, seed=seed, options=options)
        rng = random.Random(seed)
        seen: list[int] = []
        for step in range(300):
            if m.to_play is None:
                break
            actions = m.legal_actions()
            if step < 12:
                seen.append(len(actions))
            m.play(rng.choice(actions))
        assert seen == counts
        assert summary(m) == final
