"""A simple greedy Scala 40 policy: the baseline for benchmarks and property tests.

It opens with the solver's best opening as soon as it can, lays and attaches what it can, and
discards its most expensive legal card. It decides from ``legal_actions()`` only.
"""

from __future__ import annotations

from engine.cards import parse_card
from engine.scala40.actions import Action
from engine.scala40.match import Match

_ORDER = {"open": 0, "meld": 1, "attach": 2, "swap": 3}


def _penalty(card_text: str) -> int:
    card = parse_card(card_text)
    if card.is_joker:
        return 25
    return 11 if card.rank == 1 else min(card.rank, 10)


def greedy_action(match: Match) -> Action:
    """The greedy choice for ``match.to_play`` among ``match.legal_actions()``."""
    actions = match.legal_actions()
    if match.phase != "play":
        takes = [a for a in actions if a.kind == "take" and a.use is not None]
        if takes:
            return max(takes, key=lambda a: len(a.cards))
        return actions[0]
    plays = [a for a in actions if a.kind in _ORDER and a.kind != "swap"]
    if plays:
        return min(plays, key=lambda a: (_ORDER[a.kind], -len(a.cards)))
    discards = [a for a in actions if a.kind == "discard"]
    return max(discards, key=lambda a: (_penalty(a.card), a.card))
