"""The deal and the stock of a Scala 40 hand (docs/rules.md S40-2, S40-10.1).

A hand's deck is shuffled from the match seed, cut (by a player with ``manual_cut``, else at a
seeded point) and dealt; an empty stock is rebuilt from the discard pile and cut again. Each
function takes the :class:`~engine.scala40.match.Match` and changes it in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cards import scala40_deck, seeded_choice, seeded_shuffle

if TYPE_CHECKING:
    from engine.scala40.match import Match

HAND_SIZE = 13
"""Cards dealt to each seat (S40-2.3)."""
CUT_POINTS = {"top": 1, "middle": 3, "bottom": 5}
"""Cut point as sixths of the deck: the middle of the top, middle and bottom thirds."""


def start_hand(match: Match, first: bool) -> None:
    """Shuffle a new hand's deck and have it cut and dealt (S40-2); the first hand's dealer is
    drawn from the seed, each later one is the next seat still in (S40-2.1)."""
    if first:
        match.dealer = seeded_choice(match.players, match.seed, "dealer")
    else:
        match.dealer = match.next_active(match.dealer)
    match.hand_number += 1
    match.restocks = 0
    match.melds = []
    match.aside = []
    match.hands = [[] for _ in range(match.players)]
    deck = seeded_shuffle(
        scala40_deck(match.options.jokers), match.seed, f"hand:{match.hand_number}"
    )
    match.stock = deck[::-1]
    match.discard = []
    match.history = []
    match.taken = None
    match.drawn = None
    match.opened = [False] * match.players
    match.opened_this_turn = False
    match.turns_done = [0] * match.players
    match.pending_cut = "deal"
    if match.options.manual_cut:
        match.phase = "cut"
        match.to_play = match.previous_active(match.dealer)
        return
    cut(match, None)


def restock(match: Match, following: int) -> bool:
    """S40-10.1: rebuild the stock from the discard pile; ``following`` plays once it is cut.

    False, changing nothing, when the hand is stalled instead (S40-10.2: no restock left, or too
    few cards in the pile): the caller annuls it.
    """
    if match.restocks >= match.options.max_restocks or len(match.discard) < 3:
        return False
    match.restocks += 1
    pile = seeded_shuffle(
        match.discard[:-1], match.seed, f"restock:{match.hand_number}:{match.restocks}"
    )
    match.discard = match.discard[-1:]
    match.stock = pile[::-1]
    match.resume_seat = following
    match.pending_cut = "restock"
    if match.options.manual_cut:
        match.phase = "cut"
        match.to_play = match.next_active(match.dealer)
        return True
    cut(match, None)
    return True


def cut(match: Match, sixths: int | None) -> None:
    """Cut the stock (S40-2.2, S40-10.1), then deal or go on with the turn."""
    deck = match.stock[::-1]  # top card first
    if sixths is None:
        point = 1 + seeded_choice(
            len(deck) - 1, match.seed, f"cut:{match.hand_number}:{match.restocks}"
        )
    else:
        point = len(deck) * sixths // 6
    match.stock = (deck[point:] + deck[:point])[::-1]
    if match.pending_cut == "restock":
        match.pending_cut = ""
        seat = match.resume_seat
        assert seat is not None
        match.resume_seat = None
        begin_turn(match, seat)
        return
    match.pending_cut = ""
    _deal(match)


def _deal(match: Match) -> None:
    """S40-2.3: 13 cards each from the dealer's left, one face up, the rest the stock."""
    seats = [s for s in range(match.players) if match.active(s)]
    order = sorted(seats, key=lambda s: (s - match.dealer - 1) % match.players)
    for _ in range(HAND_SIZE):
        for seat in order:
            match.hands[seat].append(match.stock.pop())
    match.discard = [match.stock.pop()]
    begin_turn(match, order[0])


def begin_turn(match: Match, seat: int) -> None:
    """``seat`` is to play, starting with the draw (S40-3.1)."""
    match.phase = "draw"
    match.to_play = seat
