"""How a match ended, in one shape for every game: what rankings and the bot read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished or stopped match: the winning *seats* (both players of a winning pair; none
    when stopped), match points and victory points per seat, whether it was stopped (it
    counts for nobody), and the hands each seat's side won (0 where a game does not count
    them)."""

    winners: tuple[int, ...]
    mp: tuple[int, ...]
    vp: tuple[int, ...]
    stopped: bool
    hands_won: tuple[int, ...]
