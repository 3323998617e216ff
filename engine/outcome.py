"""How a match ended, in one shape for every game: what rankings and the bot read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

FINISHED: Final = "finished"
"""Played to its end: a limit, a target, the hands agreed (docs/rules.md S40-12, SC-5)."""
STOPPED: Final = "stopped"
"""Stopped by its host or an admin: it counts for nobody (S40-13.3)."""
ABANDONED: Final = "abandoned"
"""Ended because players left it (S40-14.1, S40-14.5, SC-6.2, SC-6.4)."""
TIMED_OUT: Final = "timed out"
"""The match's own clock ran out (``match_minutes``, S40-12.3)."""
REASONS: Final = (FINISHED, STOPPED, ABANDONED, TIMED_OUT)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished or stopped match: the winning *seats* (both players of a winning pair; none
    when stopped), match points and victory points per seat, whether it was stopped (it
    counts for nobody), the hands each seat's side won (0 where a game does not count them),
    and why it ended (one of :data:`REASONS`)."""

    winners: tuple[int, ...]
    mp: tuple[int, ...]
    vp: tuple[int, ...]
    stopped: bool
    hands_won: tuple[int, ...]
    reason: str = FINISHED

    def __post_init__(self) -> None:
        if self.reason not in REASONS or self.stopped != (self.reason == STOPPED):
            raise ValueError(f"an outcome {self.reason!r} cannot have stopped={self.stopped}")
