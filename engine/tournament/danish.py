"""The Danish system (sistema danese, docs/rules.md T-2.4): tables of 2, each round pairing
entrants of similar standing, with no rematch while one can be avoided."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import combinations

from engine.tournament.pairing import Round
from engine.tournament.standings import Result, standings


def danish_round(
    number: int,
    entrants: Sequence[int],
    results: Sequence[Result],
    withdrawn: Collection[int] = (),
) -> Round:
    """The pairings of round ``number`` (T-2.4, T-4.1, T-4.3).

    Before any match, the top half of the seeding meets the bottom half (1 v n/2+1, ...).
    Afterwards the order is the standings (T-3): 1st v 2nd, 3rd v 4th, ..., searched in that
    order for the pairing with the fewest rematches. With an odd count the bye goes to the
    lowest-ranked entrant among those with the fewest byes. Withdrawn entrants are not paired.

    >>> danish_round(1, [1, 2, 3, 4, 5], [])
    Round(number=1, tables=((1, 3), (2, 4)), byes=(5,))
    """
    active = [e for e in entrants if e not in withdrawn]
    if len(active) < 2:
        raise ValueError("fewer than 2 entrants are left to pair")
    if not any(not result.bye for result in results):
        return _seeded_round(number, active)
    board = [line.entrant for line in standings(entrants, results, withdrawn)]
    order = [entrant for entrant in board if entrant not in withdrawn]
    met = {frozenset(pair) for r in results for pair in combinations(r.entrants, 2)}
    byes = {entrant: sum(r.bye and entrant in r.entrants for r in results) for entrant in order}
    candidates: list[int | None] = [None]
    if len(order) % 2:
        fewest = min(byes.values())
        candidates = [e for e in reversed(order) if byes[e] == fewest]
    for budget in range(len(order) // 2 + 1):
        for bye in candidates:
            pairs = _pairing([e for e in order if e != bye], met, budget)
            if pairs is not None:
                return Round(number, tuple(pairs), () if bye is None else (bye,))
    raise AssertionError("every pairing is possible with enough rematches")


def rematches(round_: Round, results: Sequence[Result]) -> int:
    """How many tables of the round pair entrants who have already met."""
    met = {frozenset(pair) for r in results for pair in combinations(r.entrants, 2)}
    return sum(frozenset(table) in met for table in round_.tables)


def _seeded_round(number: int, active: Sequence[int]) -> Round:
    """Round 1: the lowest seed has the bye when the count is odd; the top half meets the
    bottom half in seeding order."""
    bye = tuple(active[-1:]) if len(active) % 2 else ()
    playing = active[: len(active) - len(bye)]
    half = len(playing) // 2
    return Round(number, tuple(zip(playing[:half], playing[half:], strict=True)), bye)


def _pairing(
    order: Sequence[int], met: set[frozenset[int]], budget: int
) -> list[tuple[int, int]] | None:
    """The first pairing in standings order (the top entrant with the highest-placed partner
    it may meet, backtracking) with at most ``budget`` rematches, or None."""
    if not order:
        return []
    if _rematches_forced(order, met) > budget:
        return None
    first, rest = order[0], order[1:]
    for partner in rest:
        cost = frozenset((first, partner)) in met
        if cost > budget:
            continue
        remaining = [e for e in rest if e != partner]
        pairs = _pairing(remaining, met, budget - cost)
        if pairs is not None:
            return [(first, partner), *pairs]
    return None


def _rematches_forced(order: Sequence[int], met: set[frozenset[int]]) -> int:
    """A lower bound on the rematches among ``order``: each entrant who has met all the others
    needs one, and a rematch serves two."""
    stuck = sum(all(frozenset((a, b)) in met for b in order if b != a) for a in order)
    return (stuck + 1) // 2
