"""Scopone cards: capture and primiera values, the canonical order, parsing (docs/rules.md SC-1.2).

The canonical order of cards, used everywhere a list of cards is written (hands, captures, action
text): by rank (A 2 ... 7 J Q K), then by suit in ``S H D C`` order.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import SCOPONE_RANKS, SUITS, Card, parse_card

CAPTURE_VALUE: dict[int, int] = {rank: rank if rank <= 7 else rank - 3 for rank in SCOPONE_RANKS}
"""Capture value by rank (SC-3.2): A=1, 2-7 face value, J=8, Q=9, K=10."""

PRIMIERA_VALUE: dict[int, int] = {
    7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 11: 10, 12: 10, 13: 10,
}  # fmt: skip
"""Primiera value by rank (SC-4.3): 7=21, 6=18, A=16, 5=15, 4=14, 3=13, 2=12, J Q K=10."""

DENARI = "D"
"""The denari suit (SC-4.2), written ``D``."""

SETTEBELLO = Card(7, DENARI)
"""The settebello, 7 of denari (SC-4.4)."""

MAX_CAPTURE = 10
"""The highest capture value (a king)."""

CardsLike = str | Iterable[Card | str]
"""Cards given as notation text (``"AH 3H"``) or as an iterable of cards or card texts."""


def capture_value(card: Card) -> int:
    """The capture value of a card (SC-3.2): ``capture_value(Card(12, "H")) == 9``."""
    return CAPTURE_VALUE[card.rank]


def primiera_value(card: Card) -> int:
    """The primiera value of a card (SC-4.3): ``primiera_value(Card(7, "S")) == 21``."""
    return PRIMIERA_VALUE[card.rank]


def card_key(card: Card) -> tuple[int, int]:
    """Sort key of the canonical order: rank, then suit in ``SHDC`` order."""
    return card.rank, SUITS.index(card.suit)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """The cards in canonical order."""
    return sorted(cards, key=card_key)


def to_card(card: Card | str) -> Card:
    """A card of the 40-card deck, from a :class:`Card` or its notation.

    Raises ``ValueError`` for text that is not a card, and for 8, 9, 10 and jokers.
    """
    value = parse_card(card) if isinstance(card, str) else card
    if value.rank not in CAPTURE_VALUE or value.suit not in SUITS:
        raise ValueError(f"{value} is not a card of the 40-card Scopone deck")
    return value


def to_cards(cards: CardsLike) -> list[Card]:
    """Distinct cards of the 40-card deck from text or an iterable (see :func:`to_card`)."""
    tokens: Iterable[Card | str] = cards.split() if isinstance(cards, str) else cards
    out = [to_card(token) for token in tokens]
    if len(set(out)) != len(out):
        raise ValueError(f"a card appears twice in {' '.join(str(c) for c in out)}")
    return out
