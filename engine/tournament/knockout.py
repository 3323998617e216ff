"""Knock-out (eliminazione diretta, docs/rules.md T-2.3): a bracket at tables of 2.

A bracket is written as its slots for one round: a tuple of entrants, ``None`` where nobody
stands, whose neighbours (slots 0 and 1, 2 and 3, ...) meet. The first round's slots come
from :func:`bracket`; :func:`advance` gives the next round's from a round's results.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine.tournament.pairing import Round
from engine.tournament.standings import Result

Slots = tuple[int | None, ...]


def seeding_order(size: int) -> tuple[int, ...]:
    """The seeds (1 = top) in bracket order for a bracket of ``size``, a power of two: 1 meets
    ``size``, and the winners of each half meet as the two best seeds of that half would.

    >>> seeding_order(8)
    (1, 8, 4, 5, 2, 7, 3, 6)
    """
    if size < 1 or size & (size - 1):
        raise ValueError("a bracket holds a power of two")
    order: tuple[int, ...] = (1,)
    while len(order) < size:
        order = tuple(seed for top in order for seed in (top, 2 * len(order) + 1 - top))
    return order


def bracket(entrants: Sequence[int]) -> Slots:
    """The first round's slots (T-2.3): the next power of two, standard seeding, and the
    empty slots facing the top seeds, who have the byes.

    >>> bracket([10, 20, 30])
    (10, None, 20, 30)
    """
    if len(entrants) < 2 or len(set(entrants)) != len(entrants):
        raise ValueError("a knock-out needs at least 2 entrants, each entered once")
    size = 1 << (len(entrants) - 1).bit_length()
    return tuple(
        entrants[seed - 1] if seed <= len(entrants) else None for seed in seeding_order(size)
    )


def bracket_round(number: int, slots: Slots, withdrawn: Collection[int] = ()) -> Round:
    """The round the slots play (T-2.3, T-4.3): neighbours meet, seated in bracket order;
    one alone in its pair (its opponent absent or withdrawn) has a bye.

    >>> bracket_round(1, (10, None, 20, 30))
    Round(number=1, tables=((20, 30),), byes=(10,))
    """
    tables: list[tuple[int, ...]] = []
    byes: list[int] = []
    for pair in _pairs(slots):
        present = tuple(e for e in pair if e is not None and e not in withdrawn)
        if len(present) == 2:
            tables.append(present)
        elif present:
            byes.extend(present)
    return Round(number, tuple(tables), tuple(byes))


def advance(
    slots: Slots,
    results: Sequence[Result],
    entrants: Sequence[int],
    withdrawn: Collection[int] = (),
) -> Slots:
    """The next round's slots: who goes through from each pair (T-2.3, T-4.3).

    A pair that played goes to the winner of its match: more VP, then more MP in it, then the
    higher seed (``entrants`` is the seeding). One present alone goes through; nobody goes
    through from a pair of absentees. A pair whose two entrants are present needs a result.
    """
    seeds = {entrant: seed for seed, entrant in enumerate(entrants)}
    through: list[int | None] = []
    for pair in _pairs(slots):
        present = [e for e in pair if e is not None and e not in withdrawn]
        played = [r for r in results if not r.bye and set(r.entrants) == set(pair)]
        if played:
            through.append(_match_winner(played[-1], seeds))
        elif len(present) == 2:
            raise ValueError(f"no result for the match {present[0]} v {present[1]}")
        else:
            through.append(present[0] if present else None)
    return tuple(through)


def champion(slots: Slots) -> int | None:
    """The winner once one slot is left, else None."""
    return slots[0] if len(slots) == 1 else None


def rounds_to_play(entrants: int) -> int:
    """How many rounds a knock-out of ``entrants`` takes: log2 of its bracket.

    >>> rounds_to_play(16), rounds_to_play(9)
    (4, 4)
    """
    return (entrants - 1).bit_length()


def _match_winner(result: Result, seeds: dict[int, int]) -> int:
    """Who goes through a played match: VP, then MP, then the higher seed (T-2.3)."""
    return min(
        result.entrants,
        key=lambda e: (-result.vp_of(e), -result.mp_of(e), seeds[e]),
    )


def _pairs(slots: Slots) -> list[tuple[int | None, int | None]]:
    """The neighbouring slots that meet."""
    if len(slots) < 2 or len(slots) % 2:
        raise ValueError("a round of a bracket holds an even number of slots")
    return [(slots[i], slots[i + 1]) for i in range(0, len(slots), 2)]
