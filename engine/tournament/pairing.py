"""Round-robin pairings (docs/rules.md T-2.1, T-2.2) and what a withdrawal leaves (T-4.3).

Entrants are ints, a person or a pair entered as one; the order of the list given is the
seeding, index 0 the top seed. A table is a tuple of entrants who play one match together, in
seat order; a :class:`Round` is the tables plus the entrants with a bye.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.tournament.standings import Result

TABLE_SIZES: Final = (2, 3, 4)
"""The table sizes a round robin is played at (T-1.2)."""

Table = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """One round (T-2): its number from 1, its tables in seat order, and who has a bye."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()

    @property
    def entrants(self) -> tuple[int, ...]:
        """Everyone in the round, at a table or on a bye."""
        return tuple(entrant for table in self.tables for entrant in table) + self.byes

    def bye_results(self) -> tuple[Result, ...]:
        """The results the byes of this round give (T-4.1)."""
        return tuple(Result.bye_for(self.number, entrant) for entrant in self.byes)


def round_robin(entrants: Sequence[int], table_size: int = 2) -> tuple[Round, ...]:
    """The whole schedule of a round robin (girone all'italiana, T-2.1 and T-2.2).

    Tables of 2 follow the Berger tables; tables of 3 or 4 are balanced groups.

    >>> [round.tables for round in round_robin([10, 20, 30, 40])]
    [((10, 40), (20, 30)), ((40, 30), (10, 20)), ((20, 40), (30, 10))]
    """
    _check_entrants(entrants)
    if table_size not in TABLE_SIZES:
        raise ValueError(f"tables of {table_size}: a round robin plays tables of 2, 3 or 4")
    if table_size == 2:
        return berger_rounds(entrants)
    return group_rounds(entrants, table_size)


def berger_rounds(entrants: Sequence[int]) -> tuple[Round, ...]:
    """Tables of 2 by the circle method, in the Berger tables' order (T-2.1).

    With n entrants numbered 1..n by seed (a missing n-th number being the bye, when n is
    odd), round 1 pairs 1-n, 2-(n-1), ...; each later round adds n/2 to every number but n,
    modulo n-1, and n changes its seat every round. Every pair meets once, in n-1 rounds.
    """
    _check_entrants(entrants)
    players: list[int | None] = list(entrants)
    if len(players) % 2:
        players.append(None)
    count = len(players)
    rounds = []
    for index in range(count - 1):

        def moved(number: int, index: int = index) -> int:
            return (number - 1 + index * count // 2) % (count - 1) + 1

        numbered = [(moved(1), count) if index % 2 == 0 else (count, moved(1))]
        numbered += [(moved(i), moved(count + 1 - i)) for i in range(2, count // 2 + 1)]
        pairs = [(players[a - 1], players[b - 1]) for a, b in numbered]
        tables = tuple((a, b) for a, b in pairs if a is not None and b is not None)
        byes = tuple(a if b is None else b for a, b in pairs if a is None or b is None)
        rounds.append(Round(index + 1, tables, tuple(bye for bye in byes if bye is not None)))
    return tuple(rounds)


def table_sizes(count: int, table_size: int) -> tuple[int, ...]:
    """How ``count`` entrants sit at tables of at most ``table_size`` (T-2.2): the fewest
    tables, sizes differing by at most one, larger tables first.

    >>> table_sizes(7, 3), table_sizes(10, 4), table_sizes(4, 3)
    ((3, 2, 2), (4, 3, 3), (2, 2))
    """
    if count < 2 or table_size < 2:
        raise ValueError("a table seats at least 2")
    tables = -(-count // table_size)
    base, extra = divmod(count, tables)
    return (base + 1,) * extra + (base,) * (tables - extra)


def group_rounds(entrants: Sequence[int], table_size: int) -> tuple[Round, ...]:
    """Round robin at tables of 3 or 4 (T-2.2): rounds of balanced tables until every pair of
    entrants has met at least once. Each round is built greedily for first meetings, then
    improved by swaps; deterministic: the same entrants give the same rounds.
    """
    _check_entrants(entrants)
    schedule = _greedy_groups(entrants, table_sizes(len(entrants), table_size))
    return tuple(Round(number, tables) for number, tables in enumerate(schedule, start=1))


class _Ledger:
    """Who has met whom so far in a schedule of groups: the working state of T-2.2."""

    def __init__(self, entrants: Sequence[int]) -> None:
        self.seed = {entrant: index for index, entrant in enumerate(entrants)}
        self.unmet = {entrant: set(entrants) - {entrant} for entrant in entrants}
        self.meetings: dict[frozenset[int], int] = {}

    def times_met(self, a: int, b: int) -> int:
        """How often ``a`` and ``b`` have sat at one table."""
        return self.meetings.get(frozenset((a, b)), 0)

    def join_key(self, candidate: int, table: Sequence[int], free: set[int]) -> tuple[int, ...]:
        """Who joins a table first (lowest key): most first meetings there, fewest repeats,
        most opponents still to meet among the free, the higher seed."""
        new = sum(candidate in self.unmet[member] for member in table)
        seen = sum(self.times_met(candidate, member) for member in table)
        return (-new, seen, -len(self.unmet[candidate] & free), self.seed[candidate])

    def score(self, tables: Sequence[Table]) -> int:
        """A round's worth: a first meeting counts far more than a repeated one costs."""
        return sum(
            1000 if b in self.unmet[a] else -self.times_met(a, b)
            for table in tables
            for a, b in combinations(table, 2)
        )

    def record(self, tables: Sequence[Table]) -> None:
        """The round's tables have been played."""
        for table in tables:
            for a, b in combinations(table, 2):
                self.unmet[a].discard(b)
                self.unmet[b].discard(a)
                self.meetings[frozenset((a, b))] = self.times_met(a, b) + 1


def _greedy_groups(entrants: Sequence[int], sizes: Sequence[int]) -> list[tuple[Table, ...]]:
    """The schedule of T-2.2: each table starts from the free entrant with the most opponents
    still to meet among the free and grows by :meth:`_Ledger.join_key`; then swaps between
    the round's tables improve it (:func:`_improved`)."""
    ledger = _Ledger(entrants)
    schedule: list[tuple[Table, ...]] = []
    while any(ledger.unmet.values()):
        free = set(entrants)
        tables: list[Table] = []
        for size in sizes:
            table = [min(free, key=lambda e: (-len(ledger.unmet[e] & free), ledger.seed[e]))]
            free.remove(table[0])
            while len(table) < size:
                table.append(min(free, key=lambda e: ledger.join_key(e, table, free)))
                free.remove(table[-1])
            tables.append(tuple(table))
        round_tables = tuple(
            tuple(sorted(table, key=ledger.seed.__getitem__)) for table in _improved(tables, ledger)
        )
        ledger.record(round_tables)
        schedule.append(round_tables)
    return schedule


def _swapped(tables: Sequence[Table], left: int, i: int, right: int, j: int) -> list[Table]:
    """The tables with seat ``i`` of table ``left`` and seat ``j`` of ``right`` exchanged."""
    swapped = list(tables)
    a, b = tables[left][i], tables[right][j]
    swapped[left] = (*tables[left][:i], b, *tables[left][i + 1 :])
    swapped[right] = (*tables[right][:j], a, *tables[right][j + 1 :])
    return swapped


def _improved(tables: Sequence[Table], ledger: _Ledger) -> list[Table]:
    """The round after exchanging two entrants of different tables while an exchange adds
    first meetings (or, as many, saves repeats): a hill climb from the greedy round."""
    current = list(tables)
    score = ledger.score(current)
    while True:
        for trial in _exchanges(current):
            if ledger.score(trial) > score:
                current, score = trial, ledger.score(trial)
                break
        else:
            return current


def _exchanges(tables: Sequence[Table]) -> Iterator[list[Table]]:
    """Every round one exchange of two entrants away, in a fixed order."""
    for left, right in combinations(range(len(tables)), 2):
        for i in range(len(tables[left])):
            for j in range(len(tables[right])):
                yield _swapped(tables, left, i, right, j)


def _repeats(schedule: Sequence[tuple[Table, ...]]) -> int:
    """Meetings beyond the first of each pair."""
    pairs = [frozenset(pair) for tables in schedule for t in tables for pair in combinations(t, 2)]
    return len(pairs) - len(set(pairs))


def without_withdrawn(round_: Round, withdrawn: Collection[int]) -> Round:
    """A scheduled round once ``withdrawn`` entrants have left (T-4.3): they are not paired;
    a table left with one entrant gives it a bye, a larger one is played by those left.

    >>> without_withdrawn(Round(3, ((1, 2), (3, 4, 5))), {2, 4})
    Round(number=3, tables=((3, 5),), byes=(1,))
    """
    tables = [tuple(e for e in table if e not in withdrawn) for table in round_.tables]
    byes = [table[0] for table in tables if len(table) == 1]
    byes += [entrant for entrant in round_.byes if entrant not in withdrawn]
    return Round(round_.number, tuple(t for t in tables if len(t) > 1), tuple(byes))


def _check_entrants(entrants: Sequence[int]) -> None:
    """At least two entrants, each entered once."""
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least 2 entrants")
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is entered once")
