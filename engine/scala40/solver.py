"""The opening solver: the disjoint melds of a hand with the highest total value (S40-5).

A dynamic programme over the hand's cards: each card is either left in hand or used in one of
the candidate melds whose lowest card it is. Results are kept per *leftover class* (how many
cards stay in hand: none, one natural, one joker, two or more) so that callers can ask for the
best opening that still leaves a legal discard (S40-9.2). With ``opening_without_joker`` the
results are also kept per joker-free total (capped at the threshold, S40-5.5).

The answer is exact when the candidates are every meld the hand can form (S40-4), as
:func:`~engine.scala40.candidates.enumerate_melds` lists them: a joker may stand in any place of a
run, also for a card the hand holds and uses elsewhere. Identical cards (the two copies of a
face, the jokers) are interchangeable, so a meld may use a copy only when no earlier copy of the
same face is still free: this cuts the symmetric duplicates without losing any total.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.cards import FACE_INDEX, JOKER_FACE, parse_cards
from engine.scala40.candidates import Candidate, enumerate_melds

LEFT_NONE, LEFT_NATURAL, LEFT_JOKER, LEFT_MANY = 0, 1, 2, 3

Key = tuple[int, int]
"""(leftover class, joker-free total capped at the threshold, or 0 when not tracked)."""

Picks = tuple[Candidate, ...]


def _add_left(left: int, card_is_joker: bool) -> int:
    if left == LEFT_NONE:
        return LEFT_JOKER if card_is_joker else LEFT_NATURAL
    return LEFT_MANY


@dataclass(frozen=True, slots=True)
class Solution:
    """Best disjoint melds: ``melds`` as hand-index candidates, their ``total`` value."""

    melds: Picks
    total: int
    left: int


class _Solver:
    def __init__(
        self,
        hand: Sequence[int],
        candidates: Sequence[Candidate],
        forced: int,
        threshold: int | None,
    ) -> None:
        self.n = len(hand)
        self.jokers = [FACE_INDEX[c] == JOKER_FACE for c in hand]
        earlier = _earlier_copies(hand, forced)
        self.by_low: list[list[tuple[int, int, Candidate]]] = [[] for _ in range(self.n)]
        for cand in candidates:
            mask = cand.mask
            low = (mask & -mask).bit_length() - 1
            needs = 0
            for i in cand.indices:
                needs |= earlier[i]
            self.by_low[low].append((mask, needs & ~mask, cand))
        self.forced = forced
        self.threshold = threshold
        self.memo: dict[tuple[int, int], dict[Key, tuple[int, Picks]]] = {}

    def best(self, i: int, used: int) -> dict[Key, tuple[int, Picks]]:
        while i < self.n and used >> i & 1:
            i += 1
        if i == self.n:
            return {(LEFT_NONE, 0): (0, ())}
        memo_key = (i, used >> i)
        cached = self.memo.get(memo_key)
        if cached is not None:
            return cached
        out: dict[Key, tuple[int, Picks]] = {}
        if not self.forced >> i & 1:
            for (left, free), (value, picks) in self.best(i + 1, used).items():
                self._offer(out, (_add_left(left, self.jokers[i]), free), value, picks)
        for mask, needs, cand in self.by_low[i]:
            if mask & used or needs >> i & ~(used >> i):
                continue  # a card is taken, or an earlier identical copy is still free
            for (left, free), (value, picks) in self.best(i + 1, used | mask).items():
                if self.threshold is not None and not cand.has_joker:
                    free = min(self.threshold, free + cand.value)
                self._offer(out, (left, free), value + cand.value, (cand, *picks))
        self.memo[memo_key] = out
        return out

    @staticmethod
    def _offer(out: dict[Key, tuple[int, Picks]], key: Key, value: int, picks: Picks) -> None:
        current = out.get(key)
        if current is None or value > current[0]:
            out[key] = (value, picks)


def _earlier_copies(hand: Sequence[int], forced: int) -> list[int]:
    """For each hand index, the mask of earlier indices holding the same face (jokers alike).

    A forced card (S40-3.1b) must stay in its meld, so it is never swapped for a copy: its mask
    is empty.
    """
    seen: dict[int, int] = {}
    out = []
    for i, card in enumerate(hand):
        face = FACE_INDEX[card]
        out.append(0 if forced >> i & 1 else seen.get(face, 0))
        seen[face] = seen.get(face, 0) | 1 << i
    return out


def solve(
    hand: Sequence[int],
    accept: Callable[[int, int, int, bool], bool] | None = None,
    forced: int = 0,
    joker_free_threshold: int | None = None,
    candidates: Sequence[Candidate] | None = None,
) -> Solution | None:
    """The highest-valued set of disjoint melds from ``hand`` (physical ids) that ``accept``s.

    ``accept(total, left, joker_free_total, uses_joker)`` filters the final choice (None: any);
    ``forced`` is a bit mask of hand indices that must be used (a card taken from the discard
    pile, S40-3.1b); ``joker_free_threshold`` turns on tracking of the joker-free total.
    Returns None when nothing is acceptable.
    """
    cands = enumerate_melds(hand) if candidates is None else candidates
    solver = _Solver(hand, cands, forced, joker_free_threshold)
    results = solver.best(0, 0)
    best: Solution | None = None
    for (left, free), (value, picks) in results.items():
        uses_joker = any(c.has_joker for c in picks)
        if accept is not None and not accept(value, left, free, uses_joker):
            continue
        if best is None or value > best.total or (value == best.total and left > best.left):
            best = Solution(picks, value, left)
    return best


@dataclass(frozen=True, slots=True)
class Opening:
    """The solver's answer for a hand: the melds in notation, their total, and the verdict."""

    melds: tuple[str, ...]
    total: int
    threshold: int
    reaches: bool

    def __str__(self) -> str:
        return " | ".join(self.melds)


def best_opening(hand: str | Sequence[str], threshold: int = 40) -> Opening:
    """The disjoint melds of ``hand`` with the highest total value, and whether they open.

    >>> best_opening("9H 9S 9D 10C JC QC 2S").total
    57
    """
    faces = parse_cards(hand)
    ids = _physical_ids(faces)
    solution = solve(ids)
    assert solution is not None  # laying nothing is always a solution
    melds = tuple(" ".join(c.tokens(ids)) for c in solution.melds)
    return Opening(melds, solution.total, threshold, solution.total >= threshold)


def _physical_ids(faces: Sequence[object]) -> list[int]:
    """Give each face a distinct physical id (two copies, four jokers)."""
    from engine.cards import Card, face_index

    used: dict[int, int] = {}
    out = []
    for face in faces:
        assert isinstance(face, Card)
        index = face_index(face)
        count = used.get(index, 0)
        if index == JOKER_FACE:
            if count >= 4:
                raise ValueError("a hand holds at most 4 jokers")
            card_id = (52, 53, 106, 107)[count]
        else:
            if count >= 2:
                raise ValueError(f"a card exists only twice: {face}")
            card_id = index + 54 * count
        used[index] = count + 1
        out.append(card_id)
    return out
