"""Hand scoring by category (docs/rules.md SC-4): carte, denari, primiera, settebello, scope.

A *side* is a pair (seats 0+2 are side 0, seats 1+3 side 1) or, with Option ``individual``, a
single player (side = seat). "Most" means strictly more than every other side; a tie scores
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import SUITS, Card
from engine.scopone.deck import DENARI, SETTEBELLO, CardsLike, primiera_value, to_cards

CATEGORIES = ("carte", "denari", "primiera", "settebello", "scope")
"""The scoring categories of a hand, in the order of :attr:`SideScore.points`."""


def primiera(cards: CardsLike) -> int:
    """The primiera of captured cards (SC-4.3): the best card of each suit, summed.

    A suit with no card adds 0 (the seed's literal rule). Seed example: 81 beats 75.

    >>> primiera("7H 7C 7D 6S"), primiera("7S 6H 6C 6D")
    (81, 75)
    """
    best: dict[str, int] = {}
    for card in to_cards(cards):
        best[card.suit] = max(best.get(card.suit, 0), primiera_value(card))
    return sum(best.values())


def has_all_suits(cards: Sequence[Card]) -> bool:
    """Whether the cards hold every suit (Option ``primiera_all_suits``, SC-4.3)."""
    return len({card.suit for card in cards}) == len(SUITS)


def strict_leader(values: Sequence[int | None]) -> int | None:
    """The index of the value strictly greater than every other, or None (a tie, SC-4).

    ``None`` marks a side that cannot win the category.

    >>> strict_leader([5, 3]), strict_leader([4, 4]), strict_leader([None, 2, 1, 2])
    (0, None, None)
    """
    ranked = sorted((v, i) for i, v in enumerate(values) if v is not None)
    if not ranked or (len(ranked) > 1 and ranked[-1][0] == ranked[-2][0]):
        return None
    return ranked[-1][1]


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side's captures in a hand and the points they earn, by category (SC-4, SC-5.3)."""

    side: int
    pile: tuple[Card, ...]
    scope: int
    points: tuple[int, ...]
    """Points in :data:`CATEGORIES` order: carte, denari, primiera, settebello, scope."""

    @property
    def cards(self) -> int:
        """How many cards the side captured (SC-4.1)."""
        return len(self.pile)

    @property
    def denari(self) -> int:
        """How many denari the side captured (SC-4.2)."""
        return sum(card.suit == DENARI for card in self.pile)

    @property
    def primiera(self) -> int:
        """The side's primiera (SC-4.3)."""
        return primiera(self.pile)

    @property
    def settebello(self) -> bool:
        """Whether the side captured the 7 of denari (SC-4.4)."""
        return SETTEBELLO in self.pile

    @property
    def total(self) -> int:
        """The side's points in this hand: the sum of its category points."""
        return sum(self.points)

    def points_by_category(self) -> dict[str, int]:
        """The points as ``{"carte": 1, "denari": 0, ...}``."""
        return dict(zip(CATEGORIES, self.points, strict=True))

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: the pile, the tallies and the points by category."""
        return {
            "side": self.side,
            "pile": [str(card) for card in self.pile],
            "cards": self.cards,
            "denari": self.denari,
            "primiera": self.primiera,
            "settebello": self.settebello,
            "scope": self.scope,
            "points": self.points_by_category(),
            "total": self.total,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SideScore:
        """The inverse of :meth:`to_dict` (derived fields are recomputed, not read)."""
        points = data["points"]
        return cls(
            side=int(data["side"]),
            pile=tuple(to_cards(data["pile"])),
            scope=int(data["scope"]),
            points=tuple(int(points[name]) for name in CATEGORIES),
        )


@dataclass(frozen=True, slots=True)
class HandScore:
    """The score of one finished hand: every side's pile and points (SC-4, SC-5.3)."""

    hand_number: int
    sides: tuple[SideScore, ...]
    last_capturer: int | None
    """The seat that captured last and took the cards left on the table (SC-3.6)."""
    leftover: tuple[Card, ...]
    """The cards left on the table at the end, added to the last capturer's pile (no scopa)."""

    @property
    def totals(self) -> tuple[int, ...]:
        """Each side's points in this hand."""
        return tuple(side.total for side in self.sides)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (the breakdown the bot shows at the end of a hand, SC-5.3)."""
        return {
            "hand_number": self.hand_number,
            "last_capturer": self.last_capturer,
            "leftover": [str(card) for card in self.leftover],
            "sides": [side.to_dict() for side in self.sides],
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandScore:
        """The inverse of :meth:`to_dict`."""
        last = data["last_capturer"]
        return cls(
            hand_number=int(data["hand_number"]),
            sides=tuple(SideScore.from_dict(side) for side in data["sides"]),
            last_capturer=None if last is None else int(last),
            leftover=tuple(to_cards(data["leftover"])),
        )


def hand_points(
    piles: Sequence[Sequence[Card]], scope: Sequence[int], primiera_all_suits: bool = False
) -> list[tuple[int, ...]]:
    """Each side's points by category (SC-4) from its pile and its scope.

    >>> hand_points([to_cards("7D 7H AS"), to_cards("KC")], [1, 0])
    [(1, 1, 1, 1, 1), (0, 0, 0, 0, 0)]
    """
    cards = [set(pile) for pile in piles]
    winners = {
        "carte": strict_leader([len(pile) for pile in piles]),
        "denari": strict_leader([sum(c.suit == DENARI for c in pile) for pile in piles]),
        "primiera": strict_leader([_primiera_entry(pile, primiera_all_suits) for pile in piles]),
    }
    rows = []
    for side in range(len(piles)):
        mazzo = tuple(int(winners[name] == side) for name in CATEGORIES[:3])
        rows.append((*mazzo, int(SETTEBELLO in cards[side]), scope[side]))
    return rows


def _primiera_entry(pile: Sequence[Card], all_suits: bool) -> int | None:
    """A side's primiera for the comparison; None when ``all_suits`` and a suit is missing."""
    if all_suits and not has_all_suits(pile):
        return None
    return primiera(pile)


def score_hand(
    hand_number: int,
    piles: Sequence[Sequence[Card]],
    scope: Sequence[int],
    last_capturer: int | None = None,
    leftover: Sequence[Card] = (),
    primiera_all_suits: bool = False,
) -> HandScore:
    """Score a finished hand (SC-4); ``piles`` already include the leftover (SC-3.6).

    >>> score_hand(1, [to_cards("7D 7H 7C 6S"), to_cards("7S 6H 6C 6D")], [0, 2]).totals
    (2, 2)
    """
    rows = hand_points(piles, scope, primiera_all_suits)
    sides = tuple(
        SideScore(side, tuple(pile), scope[side], rows[side]) for side, pile in enumerate(piles)
    )
    return HandScore(hand_number, sides, last_capturer, tuple(leftover))
