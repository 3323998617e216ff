"""Scopone computer players (docs/rules.md SC): ``facile`` and ``esperto``. Pure and seedable.

Both decide from what their seat may see, ``match.view(seat)`` (own hand, table, the public
history of the hand, counts and scores) and ``match.legal_actions()``; nothing else of the match
is read (``match.options`` only for the public rules: ``last_play_scopa``, ``primiera_all_suits``).

``facile``
    :mod:`engine.scopone.facile` (the timer's autoplay too, SC-6.1): greedy by capture value,
    the settebello taken whenever it can be, never an easy scopa left when avoidable.

``esperto``
    Determinized ("perfect information") Monte Carlo, the approach of Di Palma and Lanzi's
    Scopone study. Each *sample* deals the unseen cards at random to the other three hands,
    consistently with their hand sizes (any captured card not seen in this hand's history goes
    to its side's pile); the sample is built from the view alone, so nothing of the true hidden
    hands survives. Every legal action is then played out to the end of the hand in that same
    sample (common random numbers) with the ``facile`` policy for all four seats, on a compact
    integer simulator, and scored from the seat's side: its side's hand points minus the
    opponents'. The partner is on the same side, so the search maximizes the pair's total. The
    action of best average wins; ties go to the ``facile`` choice. ``budget`` is the number of
    playouts per decision (``DEFAULT_BUDGET``), shared by the legal actions.

Randomness comes only from ``seed`` (``random.Random``, mixed with the position's public
coordinates): the same view, legal actions and seed always give the same action.

>>> from engine import scopone
>>> m = scopone.new_match(seed=3)
>>> str(choose(m, "facile"))
'play QD take AD JS'
>>> choose(m, "esperto", seed=1, budget=60) in m.legal_actions()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from engine.ai import LEVELS
from engine.scopone.actions import Action
from engine.scopone.deck import DENARI, MAX_CAPTURE, primiera_value
from engine.scopone.facile import (
    DECK,
    INDEX,
    RISK,
    SCOPA_BONUS,
    SETTEBELLO_BONUS,
    SETTEBELLO_ID,
    VALUE,
    WEIGHT,
    facile_from_view,
)
from engine.scopone.match import Match
from engine.scopone.view import View

DEFAULT_BUDGET = 400
"""Playouts per ``esperto`` decision (spread over the legal actions, at least one sample each)."""

# --- cards as small integers -------------------------------------------------------------------

PRIMIERA: tuple[int, ...] = tuple(primiera_value(card) for card in DECK)
SUIT: tuple[int, ...] = tuple("SHDC".index(card.suit) for card in DECK)
IS_DENARO: tuple[bool, ...] = tuple(card.suit == DENARI for card in DECK)


@lru_cache(maxsize=1 << 16)
def _captures(table: tuple[int, ...]) -> dict[int, list[tuple[tuple[int, ...], int]]]:
    """For each capture value, the captures allowed on ``table`` (fewest cards, SC-3.4), each
    with the summed :data:`WEIGHT` of the cards it takes."""
    found: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    for size in range(1, len(table) + 1):
        for subset in combinations(table, size):
            total = sum(VALUE[c] for c in subset)
            if total > MAX_CAPTURE or (total in found and len(found[total][0][0]) < size):
                continue
            found.setdefault(total, []).append((subset, sum(WEIGHT[c] for c in subset)))
    return found


def facile(match: Match) -> Action:
    """The ``facile`` play of the seat to play (see the module docstring)."""
    seat = match.to_play
    if seat is None:
        raise ValueError("the match is over")
    actions = match.legal_actions()
    view = match.view(seat)
    return facile_from_view(view, actions, match.options.last_play_scopa)


# --- esperto: the determinized simulator ----------------------------------------------------------


class _Sim:
    """One determinized hand on integer cards, played to its end by the ``facile`` policy."""

    __slots__ = (
        "all_suits", "best", "cards", "denari", "hands", "last", "last_scopa", "left",
        "remaining", "scope", "settebello", "sides", "table", "to_play",
    )  # fmt: skip

    hands: list[list[int]]
    table: list[int]
    sides: Sequence[int]
    to_play: int
    last: int | None
    last_scopa: bool
    all_suits: bool
    scope: list[int]
    cards: list[int]
    denari: list[int]
    best: list[list[int]]
    settebello: int
    left: list[int]
    remaining: int

    @classmethod
    def start(
        cls,
        hands: list[list[int]],
        table: list[int],
        piles: Sequence[Sequence[int]],
        scope: Sequence[int],
        sides: Sequence[int],
        to_play: int,
        last_capturer: int | None,
        rules: tuple[bool, bool],
    ) -> _Sim:
        """A hand in progress; ``rules`` is (``last_play_scopa``, ``primiera_all_suits``)."""
        sim = cls()
        sim.hands, sim.table, sim.sides = hands, table, sides
        sim.to_play, sim.last = to_play, last_capturer
        sim.last_scopa, sim.all_suits = rules
        sim.scope = list(scope)
        sim.cards = [0] * len(piles)
        sim.denari = [0] * len(piles)
        sim.best = [[0, 0, 0, 0] for _ in piles]
        sim.settebello = -1
        for side, pile in enumerate(piles):
            sim._bank(side, pile)
        sim.left = [0] * (MAX_CAPTURE + 1)
        for hand in hands:
            for c in hand:
                sim.left[VALUE[c]] += 1
        sim.remaining = sum(len(hand) for hand in hands)
        return sim

    def copy(self) -> _Sim:
        """An independent copy, to play one action out."""
        sim = _Sim()
        sim.hands = [list(hand) for hand in self.hands]
        sim.table = list(self.table)
        sim.sides, sim.to_play, sim.last = self.sides, self.to_play, self.last
        sim.last_scopa, sim.all_suits = self.last_scopa, self.all_suits
        sim.scope, sim.cards, sim.denari = list(self.scope), list(self.cards), list(self.denari)
        sim.best = [list(best) for best in self.best]
        sim.settebello, sim.left, sim.remaining = self.settebello, list(self.left), self.remaining
        return sim

    def _bank(self, side: int, cards: Sequence[int]) -> None:
        """Add cards to a side's pile tallies."""
        best = self.best[side]
        self.cards[side] += len(cards)
        for c in cards:
            self.denari[side] += IS_DENARO[c]
            if PRIMIERA[c] > best[SUIT[c]]:
                best[SUIT[c]] = PRIMIERA[c]
            if c == SETTEBELLO_ID:
                self.settebello = side

    def play(self, card: int, take: Sequence[int]) -> None:
        """Apply one legal play of the seat to play and pass the turn."""
        seat = self.to_play
        self.hands[seat].remove(card)
        self.left[VALUE[card]] -= 1
        self.remaining -= 1
        if take:
            side = self.sides[seat]
            self.table = [c for c in self.table if c not in take]
            self._bank(side, (*take, card))
            self.last = seat
            if not self.table and (self.remaining or self.last_scopa):
                self.scope[side] += 1
        else:
            self.table.append(card)
        self.to_play = (seat - 1) % 4

    def facile_move(self) -> tuple[int, tuple[int, ...]]:
        """The ``facile`` play of the seat to play, from its own point of view.

        The same choice as :func:`_key` (tested), inlined on one integer key for speed.
        """
        seat = self.to_play
        hand = self.hands[seat]
        table = self.table
        options = _captures(tuple(sorted(table)))
        unseen = list(self.left)
        for c in hand:
            unseen[VALUE[c]] -= 1
        total = 0
        for c in table:
            total += VALUE[c]
        size = len(table)
        scopa = SCOPA_BONUS if self.last_scopa or self.remaining > 1 else 0
        danger = bool(self.hands[(seat - 1) % 4]) and (self.last_scopa or self.remaining > 2)
        best: tuple[int, tuple[int, ...]] = (hand[0], ())
        best_key = -(1 << 30)
        for card in hand:
            value = VALUE[card]
            takes = options.get(value)
            if takes is None:
                left = total + value
                key = -16 * WEIGHT[card] - value
                if danger and left <= MAX_CAPTURE:
                    key -= RISK * unseen[left]
                if key > best_key:
                    best, best_key = (card, ()), key
                continue
            left = total - value
            for take, weight in takes:
                key = 100 + WEIGHT[card] + weight
                if card == SETTEBELLO_ID or SETTEBELLO_ID in take:
                    key += SETTEBELLO_BONUS
                if len(take) == size:
                    key += scopa
                elif danger and left <= MAX_CAPTURE:
                    key -= RISK * unseen[left]
                if key > best_key:
                    best, best_key = (card, take), key
        return best

    def finish(self) -> list[int]:
        """Play out the hand with ``facile`` everywhere; return each side's hand points."""
        while self.remaining:
            card, take = self.facile_move()
            self.play(card, take)
        if self.last is not None and self.table:
            self._bank(self.sides[self.last], self.table)
            self.table = []
        return self.points()

    def points(self) -> list[int]:
        """Each side's points (SC-4): carte, denari, primiera, settebello, scope."""
        points = list(self.scope)
        primiera: list[int | None] = [
            None if self.all_suits and 0 in best else sum(best) for best in self.best
        ]
        for values in (self.cards, self.denari, primiera):
            leader = _strict_leader(values)
            if leader is not None:
                points[leader] += 1
        if self.settebello >= 0:
            points[self.settebello] += 1
        return points


def _strict_leader(values: Sequence[int | None]) -> int | None:
    """The index of the value strictly above all others, or None on a tie (SC-4)."""
    ranked = sorted((v, i) for i, v in enumerate(values) if v is not None)
    if not ranked or (len(ranked) > 1 and ranked[-1][0] == ranked[-2][0]):
        return None
    return ranked[-1][1]


# --- esperto: sampling and search ---------------------------------------------------------------


class _Public:
    """What a seat knows of the hand in progress, from its view only, on integer cards."""

    def __init__(self, view: View, rules: tuple[bool, bool]) -> None:
        self.view = view
        self.rules = rules
        self.sides = view.sides
        known: list[list[int]] = [[] for _ in view.captured]
        seen = {INDEX[c] for c in view.hand} | {INDEX[c] for c in view.table}
        for record in view.history:
            card = record.action.card
            assert card is not None
            seen.add(INDEX[card])
            if record.action.take:
                taken = [INDEX[c] for c in (*record.action.take, card)]
                known[view.sides[record.seat]].extend(taken)
                seen.update(taken)
        self.known_piles = known
        self.unknown_in_pile = [
            count - len(pile) for count, pile in zip(view.captured, known, strict=True)
        ]
        self.unseen = [c for c in range(len(DECK)) if c not in seen]
        self.hand = [INDEX[c] for c in view.hand]
        self.table = [INDEX[c] for c in view.table]
        needed = sum(size for s, size in enumerate(view.hand_sizes) if s != view.seat)
        if needed + sum(self.unknown_in_pile) != len(self.unseen):
            raise ValueError("the view's counts do not add up to the 40 cards")

    def sample(self, rng: random.Random) -> _Sim:
        """A determinization: the unseen cards dealt at random to the other hands and piles."""
        view = self.view
        cards = list(self.unseen)
        rng.shuffle(cards)
        hands: list[list[int]] = []
        position = 0
        for seat, size in enumerate(view.hand_sizes):
            if seat == view.seat:
                hands.append(list(self.hand))
            else:
                hands.append(cards[position : position + size])
                position += size
        piles: list[list[int]] = []
        for known, extra in zip(self.known_piles, self.unknown_in_pile, strict=True):
            piles.append(known + cards[position : position + extra])
            position += extra
        assert view.to_play is not None
        return _Sim.start(
            hands, list(self.table), piles, view.scope, self.sides, view.to_play,
            view.last_capturer, self.rules,
        )  # fmt: skip

    def margin(self, points: Sequence[int]) -> float:
        """The seat's side's points minus the opponents' (their mean when ``individual``)."""
        mine = self.sides[self.view.seat]
        others = [p for side, p in enumerate(points) if side != mine]
        return points[mine] - sum(others) / len(others)


def esperto(match: Match, seed: int = 0, budget: int | None = None) -> Action:
    """The ``esperto`` play of the seat to play (see the module docstring)."""
    seat = match.to_play
    if seat is None:
        raise ValueError("the match is over")
    actions = match.legal_actions()
    view = match.view(seat)
    rules = (match.options.last_play_scopa, match.options.primiera_all_suits)
    return _esperto_from_view(view, actions, rules, seed, budget)


def _esperto_from_view(
    view: View,
    actions: Sequence[Action],
    rules: tuple[bool, bool],
    seed: int,
    budget: int | None,
) -> Action:
    fallback = facile_from_view(view, actions, rules[0])
    if len(actions) == 1:
        return actions[0]
    public = _Public(view, rules)
    moves = [(INDEX[a.card], tuple(INDEX[c] for c in a.take)) for a in actions if a.card]
    playouts = DEFAULT_BUDGET if budget is None else budget
    samples = max(1, playouts // len(actions))
    rng = random.Random(f"scopone:{seed}:{view.hand_number}:{len(view.history)}:{view.seat}")
    totals = [0.0] * len(actions)
    for _ in range(samples):
        root = public.sample(rng)
        for index, (card, take) in enumerate(moves):
            sim = root.copy()
            sim.play(card, take)
            totals[index] += public.margin(sim.finish())
    best = actions.index(fallback)
    for index, total in enumerate(totals):
        if total > totals[best]:
            best = index
    return actions[best]


# --- the entry point ------------------------------------------------------------------------------


def choose(match: Match, level: str = "facile", seed: int = 0, budget: int | None = None) -> Action:
    """One of ``match.legal_actions()`` for ``match.to_play``, at ``level`` (``LEVELS``).

    ``seed`` drives the randomness of ``esperto``; ``budget`` is its playouts per decision
    (default :data:`DEFAULT_BUDGET`). ``facile`` ignores both. ValueError when the match is over
    or the level is unknown.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    if level == "facile":
        return facile(match)
    return esperto(match, seed, budget)
