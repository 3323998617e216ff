"""What a tournament plays next, from what it has played (docs/rules.md T-1 to T-4).

A tournament's whole state is its format, its seeding, the results so far and who withdrew;
:func:`next_round` gives the round to pair after them, or None once the tournament is over,
and :func:`winner` who won it. A restart, or another instance, computes the same from the same
stored facts.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from engine.tournament.danish import danish_round
from engine.tournament.knockout import advance, bracket, bracket_round, champion
from engine.tournament.pairing import Round, round_robin, without_withdrawn
from engine.tournament.standings import Result, standings

FORMATS = ("robin", "knockout", "danish")
"""Round robin (girone all'italiana), knock-out (eliminazione diretta), the Danish system."""
DANISH_ROUNDS = 3
"""The rounds a Danish tournament plays unless its organiser says otherwise."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A tournament's rules: its format, the size of its tables (T-1.2), and how many rounds
    the Danish system plays (the others' rounds follow from the entrants)."""

    format: str
    table_size: int = 2
    rounds: int | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"no such format: {self.format}")
        if self.format != "robin" and self.table_size != 2:
            raise ValueError(f"a {self.format} tournament is played at tables of 2")
        if self.format == "danish" and (self.rounds is None or self.rounds < 1):
            raise ValueError("the Danish system needs its number of rounds")

    def in_format(self, format: str) -> Frame:
        """The same tournament in another format: tables of 2 unless a round robin (T-1.2),
        the Danish system's rounds kept, or :data:`DANISH_ROUNDS`."""
        size = self.table_size if format == "robin" else 2
        rounds = self.rounds or DANISH_ROUNDS if format == "danish" else self.rounds
        return replace(self, format=format, table_size=size, rounds=rounds)

    def total_rounds(self, entrants: int) -> int:
        """How many rounds the tournament plays with ``entrants`` entrants (withdrawals aside:
        a knock-out may end sooner when nobody is left to meet)."""
        if entrants < 2:
            return 0
        if self.format == "danish":
            return self.rounds or 0
        if self.format == "knockout":
            return (entrants - 1).bit_length()
        return _robin_rounds(entrants, self.table_size)


@functools.lru_cache(maxsize=64)
def _robin_rounds(entrants: int, table_size: int) -> int:
    """The rounds of a round robin of ``entrants`` (their count alone decides it)."""
    return len(round_robin(list(range(entrants)), table_size))


def pair_strength(players: Sequence[float]) -> float:
    """An entrant's strength from its players' (T-5.5): a pair's is their mean.

    >>> pair_strength([2.0, 4.0])
    3.0
    """
    return sum(players) / len(players)


def seeding(strengths: Mapping[int, float]) -> list[int]:
    """The seeding of entrants by strength (T-5.2): the strongest first, then the one entered
    first (the lower entry number).

    >>> seeding({1: 0.0, 2: 3.5, 3: 0.0})
    [2, 1, 3]
    """
    return sorted(strengths, key=lambda entry: (-strengths[entry], entry))


def next_round(
    frame: Frame,
    seeding: Sequence[int],
    results: Sequence[Result],
    withdrawn: Collection[int] = (),
) -> Round | None:
    """The round after those ``results`` (matches and byes) cover, paired as ``frame`` says;
    None when the tournament is over: every round played, one champion left, or fewer than
    two entrants still in."""
    number = max((result.round for result in results), default=0) + 1
    still_in = [entrant for entrant in seeding if entrant not in withdrawn]
    if len(still_in) < 2 or number > frame.total_rounds(len(seeding)):
        return None
    if frame.format == "robin":
        round_ = round_robin(seeding, frame.table_size)[number - 1]
        round_ = without_withdrawn(round_, withdrawn)
        return round_ if round_.tables or round_.byes else None
    if frame.format == "danish":
        return danish_round(number, seeding, results, withdrawn)
    slots = _bracket_after(seeding, results, withdrawn, number)
    present = [s for s in slots if s is not None and s not in withdrawn]
    if champion(slots) is not None or len(present) < 2:
        return None  # a champion, or nobody left to meet (the last ones withdrew)
    return bracket_round(number, slots, withdrawn)


def winner(
    frame: Frame,
    seeding: Sequence[int],
    results: Sequence[Result],
    withdrawn: Collection[int] = (),
) -> int | None:
    """Who won the tournament once it is over: a knock-out's champion (the last one standing),
    else the top of the standings (T-3); None while a round is still to play."""
    if next_round(frame, seeding, results, withdrawn) is not None or not results:
        return None
    if frame.format == "knockout":
        number = max(result.round for result in results) + 1
        slots = _bracket_after(seeding, results, withdrawn, number)
        left = [s for s in slots if s is not None and s not in withdrawn]
        return left[0] if len(left) == 1 else None
    return standings(seeding, results, withdrawn)[0].entrant


def _bracket_after(
    seeding: Sequence[int], results: Sequence[Result], withdrawn: Collection[int], number: int
) -> tuple[int | None, ...]:
    """The bracket's slots for round ``number``, advanced through the rounds before it."""
    slots = bracket(seeding)
    for played in range(1, number):
        if len(slots) < 2:
            break
        of_round = [result for result in results if result.round == played]
        slots = advance(slots, of_round, seeding, withdrawn)
    return slots
