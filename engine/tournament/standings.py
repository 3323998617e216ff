"""Tournament results and standings (docs/rules.md T-3, T-4): what a board prints.

A tournament's record is a list of :class:`Result` values, one per match or bye; the
standings are computed from it afresh, so nothing is stored twice.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Final

from engine.outcome import Outcome

VP_BYE: Final = 20
"""A bye is worth a win's VP (T-4.1; seed 000's table: Vittoria 20)."""
MP_BYE: Final = 0
"""A bye is worth no MP: nobody's points were settled (T-4.1)."""


@dataclass(frozen=True, slots=True)
class Result:
    """One match of a tournament, or one bye (T-3.1).

    ``entrants`` are those who sat at the table, in seat order; ``vp[i]`` and ``mp[i]`` are
    what ``entrants[i]`` earned in it. A bye has one entrant, :data:`VP_BYE` and
    :data:`MP_BYE`. Rounds are numbered from 1.

    >>> Result(1, (7, 3), vp=(20, 0), mp=(55, -55)).vp_of(3)
    0
    """

    round: int
    entrants: tuple[int, ...]
    vp: tuple[int, ...]
    mp: tuple[int, ...]
    bye: bool = False

    def __post_init__(self) -> None:
        sizes = {len(self.entrants), len(self.vp), len(self.mp)}
        if len(sizes) != 1:
            raise ValueError("a result needs one VP and one MP per entrant")
        if len(set(self.entrants)) != len(self.entrants):
            raise ValueError("an entrant sits at a table once")
        if self.round < 1:
            raise ValueError("rounds are numbered from 1")
        if self.bye != (len(self.entrants) == 1):
            raise ValueError("a bye has exactly one entrant, and a match at least two")

    @classmethod
    def bye_for(cls, round_number: int, entrant: int) -> Result:
        """The bye of ``entrant`` in a round: a win's VP, no MP (T-4.1)."""
        return cls(round_number, (entrant,), (VP_BYE,), (MP_BYE,), bye=True)

    @classmethod
    def from_outcome(
        cls, round_number: int, seat_entrants: Sequence[int], outcome: Outcome
    ) -> Result:
        """The result of a played match from its :class:`~engine.outcome.Outcome` (T-3.1).

        ``seat_entrants[seat]`` is the entrant playing that seat; an entrant that is a pair
        holds two seats, whose VP and MP are the line's (S40-13.1, SC-6.3), so the first of
        them is read. A stopped match counts for nobody (S40-13.3) and has no result.

        >>> finished = Outcome((1,), mp=(-30, 30), vp=(0, 20), stopped=False, hands_won=(0, 0))
        >>> Result.from_outcome(2, (8, 5), finished)
        Result(round=2, entrants=(8, 5), vp=(0, 20), mp=(-30, 30), bye=False)
        """
        if outcome.stopped:
            raise ValueError("a stopped match counts for nobody (S40-13.3)")
        if len(seat_entrants) != len(outcome.vp):
            raise ValueError("one entrant per seat of the outcome")
        first_seat = {entrant: seat for seat, entrant in reversed(list(enumerate(seat_entrants)))}
        table = tuple(sorted(first_seat, key=first_seat.__getitem__))
        return cls(
            round_number,
            table,
            tuple(outcome.vp[first_seat[entrant]] for entrant in table),
            tuple(outcome.mp[first_seat[entrant]] for entrant in table),
        )

    def vp_of(self, entrant: int) -> int:
        """The VP ``entrant`` earned here."""
        return self.vp[self.entrants.index(entrant)]

    def mp_of(self, entrant: int) -> int:
        """The MP ``entrant`` earned here."""
        return self.mp[self.entrants.index(entrant)]

    def won_by(self, entrant: int) -> bool:
        """Whether ``entrant`` won this match: alone on the most VP at the table (T-3.2)."""
        return (
            not self.bye
            and self.vp_of(entrant) == max(self.vp)
            and self.vp.count(max(self.vp)) == 1
        )

    def drawn_by(self, entrant: int) -> bool:
        """Whether ``entrant`` shared the most VP at the table with another (T-3.2)."""
        return (
            not self.bye and self.vp_of(entrant) == max(self.vp) and self.vp.count(max(self.vp)) > 1
        )


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the board (T-3.2): the entrant, its seed (0 = top seed), its place from 1,
    and its totals. ``played`` counts matches, not byes; ``vp`` and ``mp`` include the byes'."""

    place: int
    entrant: int
    seed: int
    played: int
    won: int
    drawn: int
    lost: int
    byes: int
    vp: int
    mp: int
    withdrawn: bool


def standings(
    entrants: Sequence[int],
    results: Iterable[Result],
    withdrawn: Collection[int] = (),
) -> tuple[Standing, ...]:
    """The board, best first (T-3.2, T-3.3): VP, then MP, then the result among the tied.

    Entrants level on VP and MP are ordered by the VP, then the MP, they earned in the matches
    played among exactly them (every entrant at the table one of the tied); then by seed. A
    withdrawn entrant keeps its place and its matches (T-4.3).

    >>> board = standings([1, 2], [Result(1, (1, 2), vp=(10, 10), mp=(0, 0))])
    >>> [(line.place, line.entrant, line.drawn, line.vp) for line in board]
    [(1, 1, 1, 10), (2, 2, 1, 10)]
    """
    seeds = {entrant: seed for seed, entrant in enumerate(entrants)}
    if len(seeds) != len(entrants):
        raise ValueError("an entrant is entered once")
    record = tuple(results)
    for result in record:
        unknown = set(result.entrants) - seeds.keys()
        if unknown:
            raise ValueError(f"not entered: {sorted(unknown)}")
    totals = {entrant: _totals(entrant, record) for entrant in entrants}
    ordered = sorted(entrants, key=lambda entrant: (-totals[entrant][0], -totals[entrant][1]))
    board = [
        entrant
        for _, level in groupby(ordered, key=totals.__getitem__)
        for entrant in _break_tie(list(level), record, seeds)
    ]
    return tuple(
        _standing(place, entrant, seeds[entrant], record, totals[entrant], entrant in withdrawn)
        for place, entrant in enumerate(board, start=1)
    )


def _totals(entrant: int, record: Sequence[Result]) -> tuple[int, int]:
    """The entrant's VP and MP over the whole record."""
    own = [result for result in record if entrant in result.entrants]
    return sum(r.vp_of(entrant) for r in own), sum(r.mp_of(entrant) for r in own)


def _break_tie(group: Sequence[int], record: Sequence[Result], seeds: dict[int, int]) -> list[int]:
    """A level group ordered by the matches among exactly them, then by seed (T-3.3)."""
    if len(group) == 1:
        return list(group)
    tied = set(group)
    among = [r for r in record if not r.bye and tied.issuperset(r.entrants)]
    head_to_head = {entrant: _totals(entrant, among) for entrant in group}
    return sorted(
        group,
        key=lambda entrant: (
            -head_to_head[entrant][0],
            -head_to_head[entrant][1],
            seeds[entrant],
        ),
    )


def _standing(
    place: int,
    entrant: int,
    seed: int,
    record: Sequence[Result],
    totals: tuple[int, int],
    withdrawn: bool,
) -> Standing:
    """One line of the board (``totals``: its VP and MP, byes included)."""
    own = [result for result in record if entrant in result.entrants]
    matches = [result for result in own if not result.bye]
    won = sum(result.won_by(entrant) for result in matches)
    drawn = sum(result.drawn_by(entrant) for result in matches)
    vp, mp = totals
    return Standing(
        place=place,
        entrant=entrant,
        seed=seed,
        played=len(matches),
        won=won,
        drawn=drawn,
        lost=len(matches) - won - drawn,
        byes=len(own) - len(matches),
        vp=vp,
        mp=mp,
        withdrawn=withdrawn,
    )
