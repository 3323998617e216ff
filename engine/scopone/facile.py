"""The ``facile`` Scopone player: the timer's autoplay (SC-6.1, S40-14.3) and the easy computer.

Greedy by capture value: a scopa first, then the settebello, denari, the primiera cards (7s, 6s,
aces) and the number of cards taken. It never leaves an *easy scopa* when it can avoid it: after
its play, if the table adds up to a value 1-10 of which a card is still unseen (not in its hand,
not on the table, not played in this hand), the next player, an opponent, could sweep it with
that single card. Among plays that all leave one it leaves the value with the fewest unseen
cards. A capture of the settebello comes before that risk: an easy player still takes it. When
nothing else matters it lays its lowest card.

It decides from a seat's view and the legal actions only, and is deterministic;
``engine.ai.scopone`` offers it as a computer level and builds ``esperto`` on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, scopone_deck
from engine.scopone.actions import Action
from engine.scopone.deck import DENARI, MAX_CAPTURE, SETTEBELLO, capture_value
from engine.scopone.view import View

DECK: tuple[Card, ...] = tuple(scopone_deck())
INDEX: dict[Card, int] = {card: i for i, card in enumerate(DECK)}
VALUE: tuple[int, ...] = tuple(capture_value(card) for card in DECK)
SETTEBELLO_ID = INDEX[SETTEBELLO]

SCOPA_BONUS = 1000
"""Greedy weight of a scopa: above any other capture."""
_RANK_WEIGHT = {7: 12, 6: 6, 1: 4}
WEIGHT: tuple[int, ...] = tuple(
    2 + 8 * (card.suit == DENARI) + _RANK_WEIGHT.get(card.rank, 0) + 200 * (card == SETTEBELLO)
    for card in DECK
)
"""Greedy worth of one card in a pile: carte 2, a denaro 8, a 7/6/A 12/6/4, the settebello 200."""


RISK = 1 << 16
"""The ``facile`` key's unit of easy-scopa risk: above any greedy worth (lexicographic order)."""
SETTEBELLO_BONUS = 8 * RISK
"""The ``facile`` key's bonus for taking the settebello: above any easy-scopa risk."""


def play_key(
    card: int,
    take: Sequence[int],
    table_total: int,
    table_size: int,
    unseen: Sequence[int],
    scopa_counts: bool,
    danger_possible: bool,
) -> int:
    """The ``facile`` key of one play: its greedy worth, minus :data:`RISK` per unseen card that
    could sweep the table it leaves (so the risk comes first, the worth breaks ties), plus
    :data:`SETTEBELLO_BONUS` for a capture that takes the settebello (it comes before any risk).

    ``unseen[v]`` counts the cards of value v the mover has not seen; ``danger_possible`` is
    whether the next player still has a card that could sweep for a scopa.
    """
    if take:
        left_total = table_total - sum(VALUE[c] for c in take)
        left_size = table_size - len(take)
        worth = 100 + WEIGHT[card] + sum(WEIGHT[c] for c in take)
        if left_size == 0 and scopa_counts:
            worth += SCOPA_BONUS
        if card == SETTEBELLO_ID or SETTEBELLO_ID in take:
            worth += SETTEBELLO_BONUS
    else:
        left_total = table_total + VALUE[card]
        left_size = table_size + 1
        worth = -16 * WEIGHT[card] - VALUE[card]
    if danger_possible and left_size and left_total <= MAX_CAPTURE:
        worth -= RISK * unseen[left_total]
    return worth


def unseen_by_value(view: View) -> list[int]:
    """Per capture value, how many cards the seat has not seen (hand, table, this hand's plays)."""
    seen = set(view.hand) | set(view.table)
    for record in view.history:
        card = record.action.card
        assert card is not None
        seen.add(card)
        seen.update(record.action.take)
    counts = [0] * (MAX_CAPTURE + 1)
    for card in DECK:
        if card not in seen:
            counts[capture_value(card)] += 1
    return counts


def danger_possible(view: View, last_play_scopa: bool) -> bool:
    """Whether the next player will have a card, and a sweep by it would score a scopa."""
    seat = view.seat
    nxt = (seat - 1) % 4
    if view.hand_sizes[nxt] == 0:
        return False
    remaining = sum(view.hand_sizes) - 1  # after this play
    return last_play_scopa or remaining > 1


def facile_from_view(view: View, actions: Sequence[Action], last_play_scopa: bool) -> Action:
    """The ``facile`` play among ``actions`` for the seat of ``view`` (on its turn)."""
    unseen = unseen_by_value(view)
    table_total = sum(capture_value(c) for c in view.table)
    scopa_counts = last_play_scopa or sum(view.hand_sizes) > 1
    danger = danger_possible(view, last_play_scopa)
    best = actions[0]
    best_key: int | None = None
    for action in actions:
        assert action.card is not None
        key = play_key(
            INDEX[action.card],
            [INDEX[c] for c in action.take],
            table_total,
            len(view.table),
            unseen,
            scopa_counts,
            danger,
        )
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best
