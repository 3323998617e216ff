"""The result of a finished or stopped match (docs/rules.md SC-5, SC-6.2, SC-6.3, S40-13.3).

Sides are ranked by points, except that a side with a seat that abandoned (SC-6.2) loses to every
side without one; between two such sides, the one that abandoned first loses. Match points (MP)
settle every pair of sides: normally the point difference; when abandonment decides the order, the
winner gets the difference only if it is ahead (else 0), as in S40-14.1. A side's MP go to each of
its players. Victory points (VP): 20 to the winners' seats, 0 to the others. A stopped match counts
for nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

VP_WIN = 20
VP_DRAW = 10
"""Each side's VP when the match ends level (only an end as it stands can: SC-6.4)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended: winner sides, points, MP and VP per seat (SC-5, SC-6)."""

    stopped: bool
    winners: tuple[int, ...]
    """The winning side(s); empty when the match was stopped."""
    scores: tuple[int, ...]
    """Final points per side."""
    forfeited: tuple[int, ...]
    """Sides that lose for the rankings because one of their seats abandoned, in order."""
    abandoned: tuple[int, ...]
    """Seats that abandoned, in order."""
    mp: tuple[int, ...]
    """Match points per seat."""
    vp: tuple[int, ...]
    """Victory points per seat."""
    hands: int
    """Hands played (the last one included)."""
    sides: tuple[int, ...]
    """The side of each seat."""

    @property
    def winner_seats(self) -> tuple[int, ...]:
        """The seats of the winning side(s)."""
        return tuple(seat for seat, side in enumerate(self.sides) if side in self.winners)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "stopped": self.stopped,
            "winners": list(self.winners),
            "winner_seats": list(self.winner_seats),
            "scores": list(self.scores),
            "forfeited": list(self.forfeited),
            "abandoned": list(self.abandoned),
            "mp": list(self.mp),
            "vp": list(self.vp),
            "hands": self.hands,
        }


def match_result(
    scores: Sequence[int],
    sides: Sequence[int],
    abandoned: Sequence[int],
    stopped: bool,
    hands: int,
) -> MatchResult:
    """The result from the final scores, the side of each seat and the abandonments in order."""
    forfeited: list[int] = []
    for seat in abandoned:
        if sides[seat] not in forfeited:
            forfeited.append(sides[seat])
    if stopped:
        zeros = (0,) * len(sides)
        return MatchResult(
            True, (), tuple(scores), tuple(forfeited), tuple(abandoned), zeros, zeros, hands,
            tuple(sides),
        )  # fmt: skip
    keys = [_rank_key(side, scores, forfeited) for side in range(len(scores))]
    best = max(keys)
    winners = tuple(side for side, key in enumerate(keys) if key == best)
    side_mp = [
        sum(_settle(keys[i], keys[j], scores[i], scores[j]) for j in range(len(scores)) if j != i)
        for i in range(len(scores))
    ]
    return MatchResult(
        stopped=False,
        winners=winners,
        scores=tuple(scores),
        forfeited=tuple(forfeited),
        abandoned=tuple(abandoned),
        mp=tuple(side_mp[side] for side in sides),
        vp=tuple(
            (VP_WIN if len(winners) == 1 else VP_DRAW) if side in winners else 0 for side in sides
        ),
        hands=hands,
        sides=tuple(sides),
    )


def _rank_key(side: int, scores: Sequence[int], forfeited: Sequence[int]) -> tuple[int, int]:
    """Higher ranks better: sides that did not abandon by points, then later abandonments."""
    if side in forfeited:
        return (0, forfeited.index(side))
    return (1, scores[side])


def _settle(key: tuple[int, int], other: tuple[int, int], points: int, other_points: int) -> int:
    """The MP one side gets from another (zero-sum over the pair)."""
    difference = points - other_points
    if key[0] == 1 and other[0] == 1:
        return difference
    if key > other:
        return max(0, difference)
    return min(0, difference)
