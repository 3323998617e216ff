"""What one seat may see of a match (docs/rules.md SC-5.3): never another seat's hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.scopone.actions import Action
from engine.scopone.result import MatchResult
from engine.scopone.scoring import HandScore
from engine.scopone.state import PlayRecord


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the match: own hand, table, public counts, history and scores."""

    seat: int
    phase: str
    """``"playing"``, ``"over"`` (a side won) or ``"stopped"``."""
    to_play: int | None
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    """Cards in hand per seat."""
    captured: tuple[int, ...]
    """Cards captured so far in this hand, per side."""
    scope: tuple[int, ...]
    """Scope so far in this hand, per side."""
    denari: tuple[int, ...]
    """Denari (D cards) captured so far in this hand, per side (SC-4.2)."""
    sevens: tuple[int, ...]
    """Sevens captured so far in this hand, per side (the heart of the primiera, SC-4.3)."""
    dealer: int
    hand_number: int
    scores: tuple[int, ...]
    """Match points per side."""
    target: int
    sides: tuple[int, ...]
    """The side of each seat: partners share a side (SC-1.1)."""
    computer: tuple[int, ...]
    """Seats played by the computer after an abandonment (SC-6.2)."""
    last_capturer: int | None
    history: tuple[PlayRecord, ...]
    """The plays of the current hand, in order."""
    legal_actions: tuple[Action, ...]
    """This seat's legal plays when it is to play, else empty."""
    last_hand: HandScore | None
    """The last finished hand: every side's pile and the breakdown (SC-5.3)."""
    result: MatchResult | None
    game: str = "scopone"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form, cards and actions as docs/rules.md text."""
        return {
            "game": self.game,
            "seat": self.seat,
            "phase": self.phase,
            "to_play": self.to_play,
            "hand": [str(card) for card in self.hand],
            "table": [str(card) for card in self.table],
            "hand_sizes": list(self.hand_sizes),
            "captured": list(self.captured),
            "scope": list(self.scope),
            "denari": list(self.denari),
            "sevens": list(self.sevens),
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "target": self.target,
            "sides": list(self.sides),
            "computer": list(self.computer),
            "last_capturer": self.last_capturer,
            "history": [record.to_dict() for record in self.history],
            "legal_actions": [str(action) for action in self.legal_actions],
            "last_hand": None if self.last_hand is None else self.last_hand.to_dict(),
            "result": None if self.result is None else self.result.to_dict(),
        }
