"""A greedy computer player: the best immediate capture, else the safest card to lay.

It drives the property tests and the benchmark (the timer's autoplay is the ``facile`` player,
:mod:`engine.scopone.facile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.cards import Card
from engine.scopone.actions import Action
from engine.scopone.deck import DENARI, MAX_CAPTURE, SETTEBELLO, capture_value, primiera_value
from engine.scopone.view import View

if TYPE_CHECKING:
    from engine.scopone.match import Match


def greedy_action(source: Match | View) -> Action:
    """The greedy move for the seat to play of a match, or for a view's seat on its turn.

    Raises ``ValueError`` when the view's seat is not to play.
    """
    if isinstance(source, View):
        if source.to_play != source.seat or not source.legal_actions:
            raise ValueError(f"seat {source.seat} is not to play")
        return choose_greedy(source.legal_actions, source.table)
    return choose_greedy(source.legal_actions(), source.table)


def choose_greedy(actions: Sequence[Action], table: Sequence[Card]) -> Action:
    """The first action of highest greedy score (deterministic)."""
    table_total = sum(capture_value(card) for card in table)
    best = actions[0]
    best_score = _score(best, len(table), table_total)
    for action in actions[1:]:
        score = _score(action, len(table), table_total)
        if score > best_score:
            best, best_score = action, score
    return best


def _score(action: Action, table_size: int, table_total: int) -> int:
    """Captures beat lays; sweeps, the settebello, denari and sevens make a capture better."""
    card = action.card
    assert card is not None
    if action.take:
        taken = (*action.take, card)
        return (
            1000
            + 500 * (len(action.take) == table_size)
            + 100 * (SETTEBELLO in taken)
            + 10 * sum(c.suit == DENARI for c in taken)
            + 5 * sum(c.rank == 7 for c in taken)
            + len(taken)
        )
    sweepable = 200 if table_total + capture_value(card) <= MAX_CAPTURE else 0
    return -(
        sweepable + primiera_value(card) + 100 * (card == SETTEBELLO) + 10 * (card.suit == DENARI)
    )
