"""Captures (docs/rules.md SC-3.3, SC-3.4): which table cards a played card must take.

A played card takes one table card of equal value, or several whose values add up to it; among
the possible captures the player must take one with the fewest cards, and chooses among those.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.scopone.deck import MAX_CAPTURE, CardsLike, capture_value, card_key, to_card, to_cards

Capture = tuple[Card, ...]
"""The table cards one capture takes, in canonical order."""


def table_captures(table: Sequence[Card]) -> dict[int, list[Capture]]:
    """For each capture value, the allowed captures on ``table``: those with the fewest cards.

    Values with no capture are absent. Each capture and each list are in canonical order.
    """
    cards = sorted(table, key=card_key)
    values = [capture_value(card) for card in cards]
    found: dict[int, list[Capture]] = {}
    stack: list[tuple[int, int, Capture]] = [(0, 0, ())]
    while stack:
        start, total, chosen = stack.pop()
        for index in range(start, len(cards)):
            subtotal = total + values[index]
            if subtotal > MAX_CAPTURE:
                break
            picked = (*chosen, cards[index])
            _record(found, subtotal, picked)
            stack.append((index + 1, subtotal, picked))
    for options in found.values():
        options.sort(key=lambda option: [card_key(card) for card in option])
    return found


def _record(found: dict[int, list[Capture]], value: int, capture: Capture) -> None:
    """Keep ``capture`` for ``value`` when it has no more cards than the best one so far."""
    best = found.get(value)
    if best is None or len(capture) < len(best[0]):
        found[value] = [capture]
    elif len(capture) == len(best[0]):
        best.append(capture)


def captures_for(table: Sequence[Card], card: Card) -> list[Capture]:
    """The captures ``card`` may make on ``table`` (SC-3.4); empty when it captures nothing."""
    return table_captures(table).get(capture_value(card), [])


def capture_options(table: CardsLike, card: Card | str) -> list[list[str]]:
    """The captures a card may make, as lists of card texts in canonical order (SC-3.3, SC-3.4).

    Seed example (SC-3.4): on A 3 4 5 J a Q (9) takes A+J or 4+5, never A+3+5.

    >>> capture_options("AH 3H 4S 5D JC", "QH")
    [['AH', 'JC'], ['4S', '5D']]
    >>> capture_options("5S 2H 3H", "5H")
    [['5S']]
    """
    options = captures_for(to_cards(table), to_card(card))
    return [[str(taken) for taken in option] for option in options]
