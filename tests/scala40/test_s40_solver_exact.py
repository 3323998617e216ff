"""The opening solver is exact: docs/rules.md S40-4 (melds, jokers) and S40-5 (values, opening).

``best_opening`` is checked against an exhaustive search written from docs/rules.md alone, without
the engine's meld enumeration: every subset of the hand that is a valid meld, then the best
packing of disjoint melds by a dynamic programme over bit masks.
"""

from __future__ import annotations

import random
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.scala40 import best_opening, meld_value
from engine.scala40.solver import LEFT_JOKER, LEFT_MANY, LEFT_NATURAL, LEFT_NONE, solve
from testkit.s40_helpers import ids, legal, position

SUITS = "HDCS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "JK"

Card = tuple[int, int]
"""A natural card as (rank 1-13, suit index), or ``JOKER_CARD``."""

JOKER_CARD: Card = (0, -1)

REVIEWER_HAND = "6H 7H 8H 7S JK JK 2C 4D 9C QC KD AS 10D 5C"
"""The reviewer's hand: 30 before the fix, 42 with the joker standing for the 7H in the run."""


def place_value(place: int) -> int:
    """S40-5.1: value of a run card at a place (1 low ace ... 13 king, 14 high ace)."""
    if place == 1:
        return 1
    if place == 14:
        return 11
    return min(place, 10)


def set_value(rank: int) -> int:
    """S40-5.1: value of a set card: ace 11, J Q K 10, others their face."""
    return 11 if rank == 1 else min(rank, 10)


def meld_worth(cards: list[Card]) -> int | None:
    """The value of ``cards`` as one meld (S40-4, S40-5.1), or None when they make none.

    At most one joker (S40-4.3). A set: 3-4 cards of one rank, different suits (S40-4.2).
    A run: 3-13 consecutive places of one suit, no wrap, the joker in any one place; or
    ``A..K`` with a joker as 14th card, worth 11 (S40-4.1).
    """
    naturals = [c for c in cards if c != JOKER_CARD]
    jokers = len(cards) - len(naturals)
    size = len(cards)
    if size < 3 or jokers > 1 or not naturals:
        return None
    ranks = {r for r, _ in naturals}
    suits = [s for _, s in naturals]
    if len(ranks) == 1 and len(set(suits)) == len(suits) and size <= 4:
        return set_value(naturals[0][0]) * size
    if len(set(suits)) != 1 or len(ranks) != len(naturals):
        return None
    if size == 14:
        return sum(place_value(p) for p in range(1, 14)) + 11 if len(ranks) == 13 else None
    best: int | None = None
    for low in range(1, 16 - size):
        high = low + size - 1
        if low == 1 and high == 14:
            continue
        places = set()
        for rank in ranks:
            place = (1 if low == 1 else 14) if rank == 1 else rank
            if not low <= place <= high:
                break
            places.add(place)
        else:
            if len(places) == len(naturals):
                worth = sum(place_value(p) for p in range(low, high + 1))
                best = worth if best is None else max(best, worth)
    return best


def all_melds(hand: list[Card]) -> list[tuple[int, int]]:
    """Every subset of the hand that is a valid meld, as (bit mask, value).

    Only subsets with at most one joker whose naturals share a suit or a rank can be melds;
    within those every subset is tried.
    """
    jokers = [i for i, c in enumerate(hand) if c == JOKER_CARD]
    groups: list[list[int]] = []
    for suit in range(4):
        groups.append([i for i, c in enumerate(hand) if c != JOKER_CARD and c[1] == suit])
    for rank in range(1, 14):
        groups.append([i for i, c in enumerate(hand) if c != JOKER_CARD and c[0] == rank])
    found: dict[int, int] = {}
    for group in groups:
        for bits in range(1, 1 << len(group)):
            chosen = [group[k] for k in range(len(group)) if bits >> k & 1]
            if len(chosen) < 2:
                continue
            mask = sum(1 << i for i in chosen)
            for extra in [None, *jokers]:
                cards = [hand[i] for i in chosen]
                full = mask
                if extra is not None:
                    cards.append(JOKER_CARD)
                    full |= 1 << extra
                worth = meld_worth(cards)
                if worth is not None:
                    found[full] = max(found.get(full, 0), worth)
    return list(found.items())


LEFT_CLASSES = {0: LEFT_NONE, 1: LEFT_NATURAL, 2: LEFT_JOKER, 3: LEFT_MANY}
"""Leftover classes below (0 none, 1 one natural, 2 one joker, 3 two or more) to the solver's."""


def exhaustive_best(hand: list[Card], forced: int | None = None) -> dict[int, int]:
    """The highest total of disjoint melds (S40-5.2) for each leftover class, by brute force.

    Classes: 0 no card left, 1 one natural, 2 one joker, 3 two or more (S40-9.2 needs a card to
    discard). A ``forced`` hand index must go into a meld (S40-3.1b).
    """
    by_low: dict[int, list[tuple[int, int]]] = {}
    for mask, worth in all_melds(hand):
        by_low.setdefault((mask & -mask).bit_length() - 1, []).append((mask, worth))

    def leave(cls: int, card: Card) -> int:
        if cls == 0:
            return 2 if card == JOKER_CARD else 1
        return 3

    @cache
    def best(free: int) -> dict[int, int]:
        if free == 0:
            return {0: 0}
        low = (free & -free).bit_length() - 1
        out: dict[int, int] = {}
        if low != forced:
            for cls, total in best(free & ~(1 << low)).items():
                key = leave(cls, hand[low])
                out[key] = max(out.get(key, -1), total)
        for mask, worth in by_low.get(low, []):
            if mask & free == mask:
                for cls, total in best(free & ~mask).items():
                    out[cls] = max(out.get(cls, -1), total + worth)
        return out

    return best((1 << len(hand)) - 1)


def notation(card: Card) -> str:
    """A card in docs/rules.md notation."""
    return JOKER if card == JOKER_CARD else RANKS[card[0] - 1] + SUITS[card[1]]


def card_of(token: str) -> Card:
    """A card from docs/rules.md notation (``10H``, ``JK``)."""
    return JOKER_CARD if token == JOKER else (RANKS.index(token[:-1]) + 1, SUITS.index(token[-1]))


@st.composite
def hands(draw: st.DrawFn) -> list[Card]:
    """13-15 cards with 0-2 jokers, built from runs and pairs so that openings are common."""
    size = draw(st.integers(min_value=13, max_value=15))
    joker_count = draw(st.sampled_from([0, 1, 1, 2, 2]))
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    copies: dict[Card, int] = {}
    out: list[Card] = []

    def add(card: Card) -> None:
        if len(out) < size - joker_count and copies.get(card, 0) < 2:
            copies[card] = copies.get(card, 0) + 1
            out.append(card)

    for _ in range(rng.randint(0, 3)):
        suit, low, length = rng.randrange(4), rng.randint(1, 13), rng.randint(2, 6)
        for _ in range(rng.choice([1, 1, 2])):  # sometimes twice: both copies of each card
            for place in range(low, min(low + length, 15)):
                add((1 if place == 14 else place, suit))
    for _ in range(rng.randint(0, 3)):
        rank = rng.randint(1, 13)
        for suit in rng.sample(range(4), rng.randint(2, 3)):
            add((rank, suit))
    while len(out) < size - joker_count:
        add((rng.randint(1, 13), rng.randrange(4)))
    out.extend([JOKER_CARD] * joker_count)
    rng.shuffle(out)
    return out


@settings(max_examples=300, deadline=None)
@given(hands())
def test_best_opening_is_exact(hand: list[Card]) -> None:
    """S40-5: ``best_opening`` totals the best packing of disjoint melds (S40-4, S40-5.1).

    The melds it returns are each valid, worth what the engine says, and use the hand's cards.
    """
    text = [notation(c) for c in hand]
    total = max(exhaustive_best(hand).values())
    result = best_opening(text)
    assert result.total == total, (" ".join(text), str(result))
    assert sum(meld_value(meld) for meld in result.melds) == total
    used = [token.split("=")[0] for meld in result.melds for token in meld.split()]
    for token in set(used):
        assert used.count(token) <= text.count(token)


@settings(max_examples=150, deadline=None)
@given(hands(), st.data())
def test_solver_per_leftover_and_forced_card(hand: list[Card], data: st.DataObject) -> None:
    """S40-5, S40-9.2, S40-3.1b: the solver is exact for each leftover class (what a legal
    opening must leave to discard), also when a card taken from the discard pile must be used.
    """
    forced = data.draw(st.none() | st.integers(min_value=0, max_value=len(hand) - 1))
    expected = exhaustive_best(hand, forced)
    cards = ids(" ".join(notation(c) for c in hand))
    for cls, left in LEFT_CLASSES.items():
        found = solve(
            cards,
            lambda _total, got, _free, _joker, left=left: got == left,
            forced=0 if forced is None else 1 << forced,
        )
        assert (None if found is None else found.total) == expected.get(cls), (cls, forced)


class TestWitness:
    """The exhaustive search itself, on hands checked by hand (S40-4, S40-5.1)."""

    def test_validator(self) -> None:
        """S40-4.1, S40-4.2, S40-5.1: a few melds and non-melds."""
        assert meld_worth([(12, 0), (13, 0), JOKER_CARD]) == 31
        assert meld_worth([(1, 0), (2, 0), (3, 0)]) == 6
        assert meld_worth([(13, 0), (1, 0), (2, 0)]) is None
        assert meld_worth([(7, 0), (7, 1), JOKER_CARD]) == 21
        assert meld_worth([(7, 0), JOKER_CARD, JOKER_CARD]) is None
        assert meld_worth([(7, 0), (7, 0), (7, 1)]) is None
        full = [(r, 2) for r in range(1, 14)]
        assert meld_worth([*full, JOKER_CARD]) == 96
        assert meld_worth([(r, 2) for r in range(2, 14)] + [(1, 2)]) == 95

    def test_reviewer_hand(self) -> None:
        """S40-5.2: 6H JK 8H (21) + 7S 7H JK=7D (21) = 42."""
        cards = [card_of(token) for token in REVIEWER_HAND.split()]
        assert max(exhaustive_best(cards).values()) == 42


class TestRegression:
    """S40-5: openings the solver used to miss."""

    HAND = REVIEWER_HAND

    def test_joker_for_a_card_used_in_a_set(self) -> None:
        """S40-4.1, S40-5.2: the joker takes 7H's place in the run while 7H goes to the set."""
        result = best_opening(self.HAND)
        assert (result.total, result.reaches) == (42, True)

    def test_opening_is_listed(self) -> None:
        """S40-5: the opening of 42 is among the legal actions."""
        m = position([self.HAND, "AD 2D 3S 6C 8S"], phase="play", turns_done=[1, 1])
        opens = [a for a in legal(m) if a.startswith("open ")]
        assert len(opens) == 1
        applied = m.play(opens[0])
        assert m.opened[0]
        assert sum(meld.value for meld in m.melds) == 42, str(applied)

    def test_joker_at_the_richer_end(self) -> None:
        """S40-5.1: 10H JH + joker as QH (30), the QH in QH KH AH (31): 61, not 60."""
        result = best_opening("10H JH QH KH AH JK")
        assert (result.melds, result.total) == (("10H JH JK", "QH KH AH"), 61)

    def test_joker_for_the_twin_of_a_card(self) -> None:
        """S40-4.1: 3H 4H 5H and 3H JK 5H (the joker as the second 4H): 24."""
        assert best_opening("3H 4H 5H 3H 5H JK").total == 24
