"""The end of a Scala 40 hand and of the match (docs/rules.md S40-10.2 to S40-14).

A closed hand is scored (S40-11) and the sides over the limit go out (S40-12.1); a stalled one is
annulled (S40-10.2). Then :func:`match_decided` asks whether the format's goal is reached
(S40-12); :func:`finish` ends the match with its match points (S40-13.1), victory points and
ranking. Each function takes the :class:`~engine.scala40.match.Match` and changes it in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cards import FACE_INDEX, JOKER_FACE, scala40_sort_key
from engine.scala40.melds import face_text
from engine.scala40.results import HandResult, MatchResult
from engine.scala40.scoring import (
    VP_DRAW,
    VP_LOSS,
    VP_WIN,
    abandon_difference,
    hand_penalty,
    match_points,
    ranked_match_points,
    seat_hand_score,
)

if TYPE_CHECKING:
    from engine.scala40.match import Match

RACE_WINS = 3
"""Hands a side must win to win a match of the ``race`` format (S40-12.3)."""


def score_closed_hand(match: Match, closer: int, card: int) -> None:
    """S40-11: score the hand closed by ``closer`` discarding ``card``, add it to the totals, put
    out the sides over the limit (S40-12.1) and record it as ``last_hand``."""
    joker_close = FACE_INDEX[card] == JOKER_FACE
    in_mano = match.opened_this_turn
    doubled = in_mano or (joker_close and match.options.joker_close_doubles)
    points: list[int | None] = [None] * match.players
    for seat in range(match.players):
        if match.active(seat):
            points[seat] = (
                0
                if seat == closer
                else seat_hand_score(
                    match.hands[seat], match.opened[seat], doubled, match.options.ace_penalty
                )
            )
    closing_side = match.side_of(closer)
    side_points = [0] * match.sides
    for seat, value in enumerate(points):
        if value is not None and match.side_of(seat) != closing_side:
            side_points[match.side_of(seat)] += value
    for side in range(match.sides):
        match.totals[side] += side_points[side]
    match.hands_won[closing_side] += 1
    match.counted_hands += 1
    eliminated = _eliminate(match)
    match.last_hand = HandResult(
        match.hand_number,
        closer,
        False,
        in_mano,
        joker_close,
        [[face_text(FACE_INDEX[c]) for c in sorted(h, key=scala40_sort_key)] for h in match.hands],
        points,
        side_points,
        list(match.totals),
        eliminated,
        discard=face_text(FACE_INDEX[card]),
        opened=list(match.opened),
        card_points=[
            hand_penalty(match.hands[s], match.options.ace_penalty) if p is not None else None
            for s, p in enumerate(points)
        ],
        hands_won=list(match.hands_won),
    )


def _eliminate(match: Match) -> list[int]:
    """S40-12.1: sides reaching the limit are out (points format only)."""
    if match.options.format != "points":
        return []
    out = []
    for side in match.active_sides():
        if match.totals[side] >= match.options.limit:
            for seat in match.seats_of(side):
                if match.active(seat):
                    match.status[seat] = "out"
                    out.append(seat)
            match.out_order.append(side)
    return out


def annul_hand(match: Match) -> None:
    """S40-10.2: a stalled hand is annulled with no points; it is recorded as ``last_hand``."""
    match.last_hand = HandResult(
        match.hand_number,
        None,
        True,
        side_points=[0] * match.sides,
        totals=list(match.totals),
        cards=[[] for _ in range(match.players)],
        points=[None] * match.players,
        hands_won=list(match.hands_won),
    )


def match_decided(match: Match) -> bool:
    """Whether the hand just ended decides the match (S40-12.1 points, S40-12.2 hands, S40-12.3
    race); a decided match is finished."""
    fmt = match.options.format
    sides = match.active_sides()
    if fmt == "points" and len(sides) <= 1:
        finish(match, "points", sides)
        return True
    if fmt == "race" and max(match.hands_won) >= RACE_WINS:
        finish(match, "race", [match.hands_won.index(max(match.hands_won))])
        return True
    if fmt == "hands":
        return _hands_decided(match, sides)
    return False


def _hands_decided(match: Match, sides: list[int]) -> bool:
    """S40-12.2: stop once nobody can catch up; a tie goes to the lowest total."""
    if len(sides) <= 1:
        finish(match, "hands", sides)
        return True
    left = match.options.hands - match.counted_hands
    wins = sorted((match.hands_won[s] for s in sides), reverse=True)
    if left > 0 and wins[1] + left >= wins[0]:
        return False
    best = max(match.hands_won[s] for s in sides)
    leaders = [s for s in sides if match.hands_won[s] == best]
    lowest = min(match.totals[s] for s in leaders)
    finish(match, "hands", [s for s in leaders if match.totals[s] == lowest])
    return True


def abandon_two_sides(match: Match, seat: int, side: int, in_hand: int) -> None:
    """S40-14.1: ``seat`` of ``side``, holding ``in_hand`` penalty points, abandons a match of two
    sides: it loses, the other side wins by the difference of the totals."""
    other = 1 - side if match.options.pairs else match.next_active(seat)
    other_side = match.side_of(other)
    difference = abandon_difference(match.totals[side], in_hand, match.totals[other_side])
    mp = [0] * match.players
    vp = [0] * match.players
    for s in range(match.players):
        if match.side_of(s) == side:
            mp[s], vp[s] = -difference, VP_LOSS
        elif match.side_of(s) == other_side:
            mp[s], vp[s] = difference, VP_WIN
    match.status[seat] = "abandoned"
    match.history.append((seat, "abandon"))
    winners = match.seats_of(other_side)
    ranking = winners + [s for s in range(match.players) if s not in winners]
    _set_result(
        match,
        MatchResult(
            "abandon", winners, list(match.totals), mp, vp, ranking, abandoned_seats(match)
        ),
    )


def finish_by_clock(match: Match, reason: str = "clock") -> None:
    """S40-12.3: the match ends now, won by the sides still in with most hands won, then fewest
    penalty points in hand; ``reason`` names the ending (``abandon`` once no person plays on)."""
    sides = match.active_sides()
    best = max(match.hands_won[s] for s in sides)
    leaders = [s for s in sides if match.hands_won[s] == best]
    in_hand = {
        s: sum(hand_penalty(match.hands[p], match.options.ace_penalty) for p in match.seats_of(s))
        for s in leaders
    }
    lowest = min(in_hand.values())
    finish(match, reason, [s for s in leaders if in_hand[s] == lowest])


def finish(match: Match, reason: str, winning_sides: list[int]) -> None:
    """End the match: MP from the totals (S40-13.1), VP win 20, draw 10, loss 0."""
    if match.options.format == "points":
        side_mp = match_points(match.totals)
    else:  # decided by hands won: the losers' totals go to those ranked above them
        side_mp = ranked_match_points(match.totals, _side_ranks(match, winning_sides))
    winners = [s for s in range(match.players) if match.side_of(s) in winning_sides]
    draw = len(winning_sides) > 1
    mp = (
        [0] * match.players
        if reason == "stopped"
        else [side_mp[match.side_of(s)] for s in range(match.players)]
    )
    vp = [(VP_DRAW if draw else VP_WIN) if s in winners else VP_LOSS for s in range(match.players)]
    if reason == "stopped":
        vp = [0] * match.players
    ranking = _ranking(match, winning_sides)
    _set_result(
        match,
        MatchResult(reason, winners, list(match.totals), mp, vp, ranking, abandoned_seats(match)),
    )


def abandoned_seats(match: Match) -> list[int]:
    """Seats that abandoned, in seat order."""
    return [s for s in range(match.players) if match.status[s] == "abandoned"]


def _ranking(match: Match, winning_sides: list[int]) -> list[int]:
    """Seats best first: winners, then sides still in (by hands won where they decide,
    then by total), then the last out first."""
    ranks = _side_ranks(match, winning_sides)
    order = sorted(range(match.sides), key=lambda side: (ranks[side], side))
    return [seat for side in order for seat in match.seats_of(side)]


def _side_ranks(match: Match, winning_sides: list[int]) -> list[int]:
    """Each side's place at the end, 0 for the winners; equal standing, equal place."""
    in_sides = match.active_sides()
    by_hands = match.options.format != "points"

    def standing(side: int) -> tuple[int, int, int]:
        if side in winning_sides:
            return (0, 0, 0)
        if side in in_sides:
            return (1, -match.hands_won[side] if by_hands else 0, match.totals[side])
        gone = match.out_order[::-1]  # the last out ranks first
        return (2, gone.index(side) if side in gone else len(gone), 0)

    keys = [standing(side) for side in range(match.sides)]
    places = sorted(set(keys))
    return [places.index(key) for key in keys]


def _set_result(match: Match, result: MatchResult) -> None:
    """Record the result: the match is over and nobody is to play."""
    match.result = result
    match.phase = "over"
    match.to_play = None
    match.clock_pending = False
