"""Result records of a Scala 40 hand and match, JSON-friendly."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engine.outcome import ABANDONED, FINISHED, STOPPED, TIMED_OUT


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended (docs/rules.md S40-11, S40-15): every seat's remaining cards and points.

    ``points[seat]`` is None for a seat that was not in the hand; ``side_points`` and
    ``totals`` are per side (a line in pairs, else a player). What decides it, for the
    players to read: ``discard`` is the closer's last card, ``opened`` who had laid down
    (S40-11.3: who had not pays a flat 100), ``card_points`` what each seat's cards count by
    themselves (S40-11.2, not doubled), ``hands_won`` per side after this hand (S40-12.2).
    Hands stored before these fields load with them empty.
    """

    hand_number: int
    closer: int | None
    annulled: bool = False
    in_mano: bool = False
    joker_close: bool = False
    cards: list[list[str]] = field(default_factory=list)
    points: list[int | None] = field(default_factory=list)
    side_points: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)
    discard: str | None = None
    opened: list[bool] = field(default_factory=list)
    card_points: list[int | None] = field(default_factory=list)
    hands_won: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandResult:
        """Read back :meth:`to_dict`."""
        return cls(**data)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended (docs/rules.md S40-12 to S40-14).

    ``reason`` is ``points``, ``hands``, ``race``, ``clock``, ``abandon`` or ``stopped``;
    ``winners`` are seats (both players of a winning line; several on a draw; none when
    stopped); ``totals`` per side; ``mp`` and ``vp`` per seat; ``ranking`` seats best first.
    """

    reason: str
    winners: list[int]
    totals: list[int]
    mp: list[int]
    vp: list[int]
    ranking: list[int]
    abandoned: list[int] = field(default_factory=list)

    @property
    def stopped(self) -> bool:
        """Whether the match was stopped before its end (it counts for nobody, S40-13.3)."""
        return self.reason == "stopped"

    @property
    def ending(self) -> str:
        """Why it ended, as :class:`~engine.outcome.Outcome` says it (``points``, ``hands``
        and ``race`` are played to their end; ``clock`` is the match's clock)."""
        return {"stopped": STOPPED, "abandon": ABANDONED, "clock": TIMED_OUT}.get(
            self.reason, FINISHED
        )

    def to_dict(self) -> dict[str, Any]:
        """A plain dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        """Read back :meth:`to_dict`."""
        return cls(**data)
