"""The mutable state of a Scopone match and the deal (docs/rules.md SC-1, SC-2).

Seats are numbered clockwise from 0; play goes counterclockwise, so the next seat is
``(seat - 1) % 4``, "the player on the right" (SC-1.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, scopone_deck, seeded_shuffle
from engine.scopone.actions import Action, parse_action
from engine.scopone.deck import sort_cards
from engine.scopone.scoring import HandScore

PLAYERS = 4
STANDARD_DEAL = (("table", 2), ("each", 3), ("table", 2), ("each", 3), ("each", 3))
"""SC-2.2: 2 to the table, 3 to each player, twice; then 3 more to each: 9 each, 4 on the table."""
SCIENTIFICO_DEAL = (("each", 3), ("each", 3), ("each", 4))
"""SC-2.3: 10 cards each, none on the table (dealt 3, 3, 4)."""


def next_seat(seat: int) -> int:
    """The next seat in play order: the player on the right, counterclockwise (SC-1.2)."""
    return (seat - 1) % PLAYERS


def deal_order(dealer: int) -> list[int]:
    """The seats in dealing and playing order: from the dealer's right, ending with the dealer."""
    return [(dealer - 1 - step) % PLAYERS for step in range(PLAYERS)]


def deal(
    seed: int, hand_number: int, dealer: int, style: str
) -> tuple[list[list[Card]], list[Card]]:
    """Shuffle hand ``hand_number``'s deck from the seed and deal it (SC-2.2, SC-2.3).

    Returns the four hands (in canonical order) and the table cards (in the order laid).
    """
    deck = seeded_shuffle(scopone_deck(), seed, f"hand:{hand_number}")
    hands: list[list[Card]] = [[] for _ in range(PLAYERS)]
    table: list[Card] = []
    position = 0
    for target, count in SCIENTIFICO_DEAL if style == "scientifico" else STANDARD_DEAL:
        receivers = [table] if target == "table" else [hands[seat] for seat in deal_order(dealer)]
        for receiver in receivers:
            receiver.extend(deck[position : position + count])
            position += count
    return [sort_cards(hand) for hand in hands], table


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """One play of the current hand, public to everyone: who played what and what it took."""

    seat: int
    action: Action
    scopa: bool = False
    """Whether the play swept the table and scored a scopa (SC-3.5)."""
    auto: bool = False
    """Whether the play was made by the timer's autoplay (S40-14.3)."""

    def __str__(self) -> str:
        return f"{self.seat}: {self.action}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "seat": self.seat,
            "action": str(self.action),
            "scopa": self.scopa,
            "auto": self.auto,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayRecord:
        """The inverse of :meth:`to_dict`."""
        return cls(int(data["seat"]), parse_action(data["action"]), data["scopa"], data["auto"])


@dataclass(slots=True)
class MatchState:
    """Everything that changes during a match; :class:`~engine.scopone.match.Match` owns one."""

    hand_number: int
    dealer: int
    to_play: int | None
    hands: list[list[Card]]
    table: list[Card]
    piles: list[list[Card]]
    """Cards captured in the current hand, per side, in the order taken."""
    scope: list[int]
    """Scope made in the current hand, per side."""
    scores: list[int]
    """Match points so far, per side."""
    last_capturer: int | None = None
    history: list[PlayRecord] = field(default_factory=list)
    last_hand: HandScore | None = None
    abandoned: list[int] = field(default_factory=list)
    """Seats that abandoned, in order; they are played by the computer (SC-6.2)."""
    timeouts: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    """Consecutive autoplays per seat (S40-14.3)."""
    stopped: bool = False
    over: bool = False

    def cards_in_play(self) -> list[Card]:
        """Every card of the deck where it is now: hands, table and piles."""
        cards = [card for hand in self.hands for card in hand] + list(self.table)
        return cards + [card for pile in self.piles for card in pile]


def opening_state(seed: int, dealer: int, sides: int, style: str) -> MatchState:
    """The state at the start of a match: hand 1 dealt by ``dealer``."""
    hands, table = deal(seed, 1, dealer, style)
    return MatchState(
        hand_number=1,
        dealer=dealer,
        to_play=next_seat(dealer),
        hands=hands,
        table=table,
        piles=[[] for _ in range(sides)],
        scope=[0] * sides,
        scores=[0] * sides,
    )
