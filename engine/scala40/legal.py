"""Legal-action generation for Scala 40 (kept apart from legality checking, as in python-chess).

:func:`legal_actions` lists what ``to_play`` may do now; :meth:`Match.play` checks any action on
its own, so the generator may stay a convenience: it lists every draw, discard, new meld, attach
and joker swap, and the solver's best opening.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from engine.cards import FACE_INDEX, JOKER_FACE
from engine.scala40.actions import Action
from engine.scala40.candidates import Candidate, enumerate_melds
from engine.scala40.melds import (
    WILD,
    Meld,
    face_text,
    positions_of,
    rank_of,
    suit_of,
    swap_joker,
)
from engine.scala40.solver import LEFT_JOKER, LEFT_NATURAL, LEFT_NONE, solve

if TYPE_CHECKING:
    from engine.scala40.match import Match

Filler = tuple[int, int]
"""(run position, hand index) of a card attached to a run."""


def legal_actions(match: Match) -> list[Action]:
    """The legal actions of ``match.to_play`` (see :meth:`Match.legal_actions`)."""
    phase = match.phase
    if phase == "over" or match.to_play is None:
        return []
    if phase == "cut":
        return [Action("cut", choice=c) for c in ("top", "middle", "bottom")]
    if phase == "rientro":
        return [Action("rientro", choice="yes"), Action("rientro", choice="no")]
    seat = match.to_play
    hand = match.hands[seat]
    if phase == "draw":
        return [Action("draw"), *_unique(_take_actions(match, seat, hand))]
    out: list[Action] = []
    if match.opened[seat]:
        out.extend(_meld_actions(match, seat, hand, None))
        out.extend(_attach_actions(match, seat, hand, None, match.melds))
        out.extend(_swap_actions(match, seat, hand))
    else:
        out.extend(_open_actions(match, seat, hand, None))
    out.extend(_discard_actions(match, seat, hand))
    return _unique(out)


def _unique(actions: Iterator[Action] | list[Action]) -> list[Action]:
    seen: set[Action] = set()
    out = []
    for action in actions:
        if action not in seen:
            seen.add(action)
            out.append(action)
    return out


def _take_actions(match: Match, seat: int, hand: list[int]) -> Iterator[Action]:
    if not match.discard:
        return
    top = match.discard[-1]
    extended = [*hand, top]
    index = len(hand)
    if match.opened[seat]:
        if match.options.free_discard_take:
            yield Action("take")
        for use in _meld_actions(match, seat, extended, index):
            yield Action("take", use=use)
        for use in _attach_actions(match, seat, extended, index, match.melds):
            yield Action("take", use=use)
        return
    for use in _open_actions(match, seat, extended, index):
        yield Action("take", use=use)


def _remaining(match: Match, hand: Sequence[int], used: Sequence[int]) -> list[int]:
    """The cards left after playing ``hand[i]`` for each ``i`` in ``used``, as
    :meth:`Match.play` binds them: the card taken from the discard pile first (Card notation)."""
    skip = set(used)
    left = [card for i, card in enumerate(hand) if i not in skip]
    taken = match.taken
    if taken in left:
        face = FACE_INDEX[taken]
        twin = next((hand[i] for i in used if FACE_INDEX[hand[i]] == face), None)
        if twin is not None:
            left[left.index(taken)] = twin
    return left


def _meld_actions(
    match: Match, seat: int, hand: Sequence[int], must_use: int | None
) -> Iterator[Action]:
    for cand in enumerate_melds(hand, all_declarations=True):
        if must_use is not None and must_use not in cand.indices:
            continue
        if match.leaves_discard(seat, _remaining(match, hand, cand.indices)):
            yield Action("meld", melds=(tuple(cand.tokens(hand)),))


def _open_actions(
    match: Match, seat: int, hand: Sequence[int], must_use: int | None
) -> Iterator[Action]:
    """The solver's best opening that leaves a legal discard (S40-5, S40-9.2)."""
    candidates = enumerate_melds(hand)
    if must_use is not None and not any(must_use in c.indices for c in candidates):
        return
    options = match.options
    threshold = options.opening_points
    closing_allowed = not match.first_round(seat)

    def accept(total: int, left: int, free: int, uses_joker: bool) -> bool:
        if left == LEFT_NONE or total == 0:
            return False
        if left in (LEFT_NATURAL, LEFT_JOKER):
            if not closing_allowed or (left == LEFT_JOKER and not options.joker_close_doubles):
                return False
            if options.close_in_hand_without_40:
                return True
        if total < threshold:
            return False
        return not (options.opening_without_joker and uses_joker and free < threshold)

    solution = solve(
        hand,
        accept,
        forced=0 if must_use is None else 1 << must_use,
        joker_free_threshold=threshold if options.opening_without_joker else None,
        candidates=candidates,
    )
    if solution is not None:
        yield Action("open", melds=tuple(tuple(c.tokens(hand)) for c in solution.melds))


def _discard_actions(match: Match, seat: int, hand: Sequence[int]) -> Iterator[Action]:
    seen: set[int] = set()
    cache: dict[int, bool] = {}
    for card in sorted(hand, key=lambda c: (FACE_INDEX[c], c == match.taken)):
        face = FACE_INDEX[card]
        if face in seen:
            continue
        seen.add(face)
        if match.discard_error(seat, card, cache) is None:
            yield Action("discard", card=face_text(face))


def attachable(melds: Sequence[Meld], card: int) -> bool:
    """Whether ``card`` alone attaches to some meld on the table (S40-8.3 Decision)."""
    return any(attaches_alone(meld, card) for meld in melds)


def attaches_alone(meld: Meld, card: int) -> bool:
    """Whether ``card`` alone, attached to ``meld``, leaves a valid meld (not by a joker swap)."""
    face = FACE_INDEX[card]
    size = len(meld.cards)
    has_joker = meld.joker_index is not None
    if meld.kind == "set":
        if size >= 4:
            return False
        if face == JOKER_FACE:
            return not has_joker
        return rank_of(face) == meld.key and suit_of(face) not in {suit_of(s) for s in meld.stands}
    if size >= 14:
        return False
    if face == JOKER_FACE:
        return not has_joker
    if suit_of(face) != meld.key:
        return False
    joker = meld.joker_index
    if size == 13 and joker is not None and face == meld.stands[joker]:
        return True  # the natural completes A..K and the joker becomes the 14th card
    if face in meld.stands:
        return False
    high = meld.low + size - 1
    for position in positions_of(rank_of(face)):
        low2, high2 = min(meld.low, position), max(high, position)
        adjacent = position in (meld.low - 1, high + 1)
        if adjacent and low2 >= 1 and high2 <= 14 and not (low2 == 1 and high2 == 14):
            return True
    return False


def _attach_actions(
    match: Match,
    seat: int,
    hand: Sequence[int],
    must_use: int | None,
    table: Sequence[Meld],
) -> Iterator[Action]:
    jokers = [i for i, card in enumerate(hand) if FACE_INDEX[card] == JOKER_FACE]
    by_face: dict[int, int] = {}
    for i, card in enumerate(hand):
        face = FACE_INDEX[card]
        if face != JOKER_FACE and (face not in by_face or i == must_use):
            by_face[face] = i
    for meld in table:
        if meld.kind == "set":
            groups = _set_attaches(meld, by_face, jokers)
        else:
            groups = _run_attaches(meld, by_face, jokers)
        for group in groups:
            indices = [i for i, _ in group]
            if must_use is not None and must_use not in indices:
                continue
            if match.leaves_discard(seat, _remaining(match, hand, indices)):
                yield Action("attach", target=meld.number, melds=(tuple(t for _, t in group),))


def _set_attaches(
    meld: Meld, by_face: dict[int, int], jokers: list[int]
) -> Iterator[list[tuple[int, str]]]:
    if len(meld.cards) >= 4:
        return
    taken = {suit_of(s) for s in meld.stands}
    for suit in range(4):
        if suit in taken:
            continue
        face = suit * 13 + meld.key - 1
        if face in by_face:
            yield [(by_face[face], face_text(face))]
        if meld.joker_index is None:
            for joker in jokers[:1]:
                yield [(joker, "JK=" + face_text(face))]


def _run_attaches(
    meld: Meld, by_face: dict[int, int], jokers: list[int]
) -> Iterator[list[tuple[int, str]]]:
    size = len(meld.cards)
    if size >= 14:
        return
    suit = meld.key
    free_jokers = jokers[:1] if meld.joker_index is None else []
    naturals = size - (0 if meld.joker_index is None else 1)
    if naturals == 13:
        for joker in free_jokers:
            yield [(joker, "JK")]
        return
    own = meld.swappable_joker()
    if size == 13 and own is not None and own[1] in by_face:
        yield [(by_face[own[1]], face_text(own[1]))]
    high = meld.low + size - 1
    lows = _extensions(suit, range(meld.low - 1, 0, -1), by_face, free_jokers, high == 14)
    highs = _extensions(suit, range(high + 1, 15), by_face, free_jokers, meld.low == 1)
    for low in lows:
        for up in highs:
            added = low + up
            if not added or size + len(added) > 13:
                continue
            if sum(1 for _, i in added if i in free_jokers) > 1:
                continue
            added.sort()
            yield [(i, _run_token(suit, p, i in free_jokers)) for p, i in added]


def _run_token(suit: int, position: int, is_joker: bool) -> str:
    face = suit * 13 + (0 if position == 14 else position - 1)
    return "JK=" + face_text(face) if is_joker else face_text(face)


def _extensions(
    suit: int,
    positions: range,
    by_face: dict[int, int],
    jokers: list[int],
    other_end_is_ace: bool,
) -> list[list[Filler]]:
    """Every way to extend one end of a run outward, card by card (a joker at most once)."""
    out: list[list[Filler]] = [[]]
    frontier: list[list[Filler]] = [[]]
    for position in positions:
        if other_end_is_ace and position in (1, 14):
            break
        face = suit * 13 + (0 if position == 14 else position - 1)
        grown: list[list[Filler]] = []
        for seq in frontier:
            if face in by_face:
                grown.append([*seq, (position, by_face[face])])
            for joker in jokers:
                if all(i != joker for _, i in seq):
                    grown.append([*seq, (position, joker)])
        if not grown:
            break
        out.extend(grown)
        frontier = grown
    return out


def _swap_actions(match: Match, seat: int, hand: list[int]) -> Iterator[Action]:
    """Each joker swap (S40-7) with each use of the freed joker: alone or in a new meld."""
    if match.taken is not None and match.taken in hand:
        return  # the card taken from the discard pile must be used first (S40-7.1)
    for meld in match.melds:
        found = meld.swappable_joker()
        if found is None:
            continue
        _, face = found
        card = next((c for c in hand if FACE_INDEX[c] == face), None)
        if card is None:
            continue
        swapped, joker = swap_joker(meld, card)
        rest = [c for c in hand if c != card]
        with_joker = [*rest, joker]
        table = list(match.melds)
        table[meld.number - 1] = swapped
        joker_index = len(rest)
        uses = [
            *_meld_actions(match, seat, with_joker, joker_index),
            *(
                a
                for a in _attach_actions(match, seat, with_joker, joker_index, table)
                if len(a.melds[0]) == 1
            ),
        ]
        for use in uses:
            yield Action("swap", target=meld.number, card=face_text(face), use=use)


__all__ = ["WILD", "Candidate", "attachable", "legal_actions"]
