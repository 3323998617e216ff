"""Scala 40 scoring (docs/rules.md S40-11, S40-13, S40-14): penalty points, MP, VP."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import FACE_INDEX, JOKER_FACE

JOKER_PENALTY = 25
FLAT_UNOPENED = 100
ABANDON_PENALTY = 50
VP_WIN, VP_DRAW, VP_LOSS = 20, 10, 0


def card_penalty(card: int) -> int:
    """Penalty of one card: joker 25, ace 11, J Q K 10, others face value (S40-11.2)."""
    face = FACE_INDEX[card]
    if face == JOKER_FACE:
        return JOKER_PENALTY
    rank = face % 13 + 1
    return 11 if rank == 1 else min(rank, 10)


def hand_penalty(cards: Sequence[int], ace_penalty: str = "single_ace_is_1") -> int:
    """Penalty points of the cards left in a hand, with the ace option of S40-11.2.

    ``single_ace_is_1``: exactly one ace in hand counts 1; ``last_card_is_1``: an ace counts 1
    only as the only card left; ``always_11``: every ace 11.
    """
    aces = sum(1 for card in cards if FACE_INDEX[card] != JOKER_FACE and FACE_INDEX[card] % 13 == 0)
    total = sum(card_penalty(card) for card in cards)
    cheap_ace = (ace_penalty == "single_ace_is_1" and aces == 1) or (
        ace_penalty == "last_card_is_1" and aces == 1 and len(cards) == 1
    )
    return total - 10 if cheap_ace else total


def seat_hand_score(cards: Sequence[int], opened: bool, doubled: bool, ace_penalty: str) -> int:
    """A non-closing player's hand score (S40-11.2-4): the flat 100 when never opened (not
    doubled), else the cards' penalty, doubled after a chiusura in mano or a joker close."""
    if not opened:
        return FLAT_UNOPENED
    points = hand_penalty(cards, ace_penalty)
    return points * 2 if doubled else points


def match_points(totals: Sequence[int]) -> list[int]:
    """MP of each side from the final totals (S40-13.1): sum over others of (theirs - mine)."""
    grand = sum(totals)
    count = len(totals)
    return [grand - count * mine for mine in totals]


def ranked_match_points(totals: Sequence[int], ranks: Sequence[int]) -> list[int]:
    """MP of each side when hands won decide the match (S40-13.1 for ``hands`` and ``race``).

    Seed 000: the MP are "the points totalled by the losing line", so between two sides the
    one ranked lower (higher ``ranks`` value) pays its own total to the other, whatever the
    winner's total; equal ranks settle nothing. With more sides every pair settles so
    (**Decision**, docs/rules-notes.md): whole numbers, zero-sum, never negative for the first.

    >>> ranked_match_points([100, 19], [0, 1])
    [19, -19]
    """
    count = len(totals)
    return [
        sum(totals[j] for j in range(count) if ranks[j] > ranks[i])
        - sum(totals[i] for j in range(count) if ranks[j] < ranks[i])
        for i in range(count)
    ]


def abandon_difference(loser_total: int, in_hand: int, opponent_total: int) -> int:
    """Point difference D after an abandonment or timeout (S40-14.1), never below 0."""
    return max(0, loser_total + in_hand + ABANDON_PENALTY - opponent_total)
