"""Scopone positions built through the public snapshot format (shared with the e2e tests)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.cards import scopone_deck
from engine.scopone import Match, Options
from engine.scopone.deck import to_cards


def build_position(
    hands: Sequence[str],
    table: str = "",
    *,
    to_play: int = 0,
    dealer: int = 1,
    options: Options | None = None,
    piles: Sequence[str] | None = None,
    rest_side: int = 0,
    scope: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    last_capturer: int | None = None,
    hand_number: int = 1,
    seed: int = 7,
) -> Match:
    """A match in the given position; cards named nowhere are already in ``rest_side``'s pile."""
    opts = options or Options()
    sides = opts.sides
    pile_cards = [to_cards(p) for p in piles] if piles else [[] for _ in range(sides)]
    used = {c for text in [*hands, table] for c in to_cards(text)}
    used |= {c for pile in pile_cards for c in pile}
    pile_cards[rest_side] += [c for c in scopone_deck() if c not in used]
    state: dict[str, Any] = {
        "hand_number": hand_number,
        "dealer": dealer,
        "to_play": to_play,
        "hands": [[str(c) for c in to_cards(h)] for h in hands],
        "table": [str(c) for c in to_cards(table)],
        "piles": [[str(c) for c in pile] for pile in pile_cards],
        "scope": list(scope or [0] * sides),
        "scores": list(scores or [0] * sides),
        "last_capturer": last_capturer,
        "history": [],
        "last_hand": None,
        "abandoned": [],
        "timeouts": [0, 0, 0, 0],
        "stopped": False,
        "over": False,
    }
    data = {"game": "scopone", "format": 1, "seed": seed, "players": 4}
    data |= {"options": opts.to_dict(), "state": state}
    return Match.from_json(json.dumps(data))
