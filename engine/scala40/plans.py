"""The plays of a turn that lay cards, and what the turn's plays must leave (docs/rules.md S40-3.1,
S40-5 to S40-9).

:func:`lay` (an opening, a new meld, an attach, a joker swap) and :func:`take` (the discard pile's
top card, with its use) first bind the play to the cards of the hand and check it into a plan, and
only then lay it on the table: a play that breaks a rule raises
:class:`~engine.errors.IllegalAction` with the match untouched. :func:`leaves_discard` and
:func:`discard_error` are the checks of the discard (S40-8, S40-9) that plays and the legal
actions share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.cards import FACE_INDEX, JOKER_FACE
from engine.errors import IllegalAction, InvalidMeld
from engine.scala40 import legal
from engine.scala40.actions import Action
from engine.scala40.melds import (
    Meld,
    Shape,
    Spec,
    attach_shape,
    build_meld,
    face_text,
    parse_spec,
    resolve,
    swap_joker,
)

if TYPE_CHECKING:
    from engine.scala40.match import Match


def lay(match: Match, seat: int, action: Action) -> Action:
    """Play an ``open``, ``meld``, ``attach`` or ``swap`` of the play phase (S40-5 to S40-7);
    returns it in canonical form."""
    kind = action.kind
    hand = match.hands[seat]
    if kind == "open":
        if match.opened[seat]:
            raise IllegalAction("already-open", "you have already opened: use meld or attach")
        return _commit_open(match, seat, _plan_open(match, seat, hand, action.melds, None))
    _require_open(match, seat)
    # Card notation: a plain take's card (free_discard_take) is the copy a meld uses first.
    prefer = match.taken if match.taken in hand else None
    if kind == "meld":
        return _commit(match, seat, _plan_meld(match, seat, hand, action.melds[0], None, prefer))
    if kind == "attach":
        plan = _plan_attach(match, seat, hand, action.target, action.melds[0], None, prefer)
        return _commit(match, seat, plan)
    return _commit(match, seat, _plan_swap(match, seat, hand, action))


def take(match: Match, action: Action, seat: int) -> Action:
    """Take the discard pile's top card (S40-3.1): to open, meld or attach with it at once, or
    plainly with ``free_discard_take``; returns the take in canonical form."""
    if not match.discard:
        raise IllegalAction("discard-empty", "the discard pile is empty")
    top = match.discard[-1]
    hand = [*match.hands[seat], top]
    use = action.use
    if use is None:
        if not match.options.free_discard_take:
            raise IllegalAction(
                "take-needs-use", "say how you use the card: take open/meld/attach …"
            )
        _require_open(match, seat)
        match.discard.pop()
        match.hands[seat].append(top)
        match.taken = top
        match.phase = "play"
        return Action("take")
    if use.kind == "open":
        if match.opened[seat]:
            raise IllegalAction("already-open", "you have already opened: use meld or attach")
        plan = _plan_open(match, seat, hand, use.melds, top)
        match.discard.pop()
        match.phase = "play"
        return Action("take", use=_commit_open(match, seat, plan))
    if not match.opened[seat]:
        raise IllegalAction(
            "take-not-open", "before opening you may take the discard only to open with it"
        )
    if use.kind == "meld":
        plan = _plan_meld(match, seat, hand, use.melds[0], top)
    else:
        plan = _plan_attach(match, seat, hand, use.target, use.melds[0], top)
    match.discard.pop()
    match.phase = "play"
    return Action("take", use=_commit(match, seat, plan))


def _require_open(match: Match, seat: int) -> None:
    if not match.opened[seat]:
        raise IllegalAction("not-open", "open first: lay melds worth at least the threshold")


def leaves_discard(match: Match, seat: int, remaining: Sequence[int]) -> bool:
    """Whether a hand of ``remaining`` cards would still have a legal discard (S40-9.2)."""
    if not remaining:
        return False
    if len(remaining) == 1:
        card = remaining[0]
        if card == match.taken or match.first_round(seat):
            return False
        return FACE_INDEX[card] != JOKER_FACE or match.options.joker_close_doubles
    return any(card != match.taken for card in remaining)


def discard_error(
    match: Match, seat: int, card: int, cache: dict[int, bool] | None = None
) -> IllegalAction | None:
    """Why ``seat`` may not discard ``card`` now, or None (S40-8, S40-9.3).

    ``cache`` may carry, across calls on one position, whether each face attaches.
    """
    hand = match.hands[seat]
    if card == match.taken:
        return IllegalAction(
            "discard-taken", "you cannot discard the card you took from the discard pile"
        )
    closing = len(hand) == 1
    if closing and match.first_round(seat):
        return IllegalAction("close-first-round", "nobody may close in the first round")
    if closing and FACE_INDEX[card] == JOKER_FACE and not match.options.joker_close_doubles:
        return IllegalAction("close-with-joker", "you cannot close by discarding a joker")
    restricted = not match.opened[seat] or (match.options.strict_discard and not closing)
    known = {} if cache is None else cache

    def attaches(c: int) -> bool:
        face = FACE_INDEX[c]
        if face not in known:
            known[face] = legal.attachable(match.melds, c)
        return known[face]

    blocked = restricted and attaches(card)
    if blocked and any(c != match.taken and not attaches(c) for c in hand):
        return IllegalAction(
            "discard-attachable",
            f"{face_text(FACE_INDEX[card])} could be attached to a meld on the table",
            card=face_text(FACE_INDEX[card]),
        )
    return None


class _Plan:
    """A validated play, ready to commit: the hand after it and the table changes."""

    __slots__ = ("attached", "changed", "hand", "new", "swap", "swapped")

    def __init__(
        self,
        hand: list[int],
        new: list[Meld],
        changed: Meld | None,
        attached: list[int],
        swapped: Meld | None = None,
        swap: Action | None = None,
    ) -> None:
        self.hand = hand
        self.new = new
        self.changed = changed
        self.attached = attached
        self.swapped = swapped
        self.swap = swap


def _bind(
    hand: Sequence[int], tokens: Sequence[str], prefer: int | None
) -> tuple[list[int], list[Spec]]:
    """Physical cards for the tokens, from ``hand``; ``prefer`` is used first (S40 notation)."""
    free = list(hand)
    cards: list[int] = []
    specs: list[Spec] = []
    for token in tokens:
        face, declared = parse_spec(token)
        card = _pick_copy(free, face, prefer)
        if card is None:
            raise IllegalAction("card-not-in-hand", f"you do not hold {face_text(face)}")
        free.remove(card)
        cards.append(card)
        specs.append((face, declared))
    return cards, specs


def _plan_open(
    match: Match,
    seat: int,
    hand: list[int],
    melds: Sequence[Sequence[str]],
    taken: int | None,
) -> _Plan:
    """Validate an opening (S40-5): new melds only, at least the threshold in total."""
    remaining = list(hand)
    new: list[Meld] = []
    number = len(match.melds) + 1
    for tokens in melds:
        cards, specs = _bind(remaining, tokens, taken)
        shape = _resolve_or_illegal(specs)
        for card in cards:
            remaining.remove(card)
        new.append(build_meld(number + len(new), seat, shape, cards))
    if taken is not None and taken in remaining:
        raise IllegalAction(
            "take-unused", "the card taken from the discard pile must be used in the opening"
        )
    _check_threshold(match, new, len(remaining))
    _check_leaves_discard(match, seat, remaining)
    return _Plan(remaining, new, None, [])


def _check_threshold(match: Match, new: Sequence[Meld], left: int) -> None:
    """S40-5.5: the opening's melds reach ``opening_points`` (joker-free ones, with
    ``opening_without_joker``)."""
    options = match.options
    threshold = options.opening_points
    if options.close_in_hand_without_40 and left == 1:
        return  # S40-5.6: closing in hand needs no threshold
    total = sum(m.value for m in new)
    if total < threshold:
        raise IllegalAction(
            "opening-below-40",
            f"{total} points, {threshold} needed",
            points=total,
            needed=threshold,
        )
    if options.opening_without_joker and any(m.joker_index is not None for m in new):
        clean = sum(m.value for m in new if m.joker_index is None)
        if clean < threshold:
            raise IllegalAction(
                "opening-joker",
                f"jokers open only once joker-free melds reach {threshold} ({clean} now)",
            )


def _plan_meld(
    match: Match,
    seat: int,
    hand: list[int],
    tokens: Sequence[str],
    taken: int | None,
    prefer: int | None = None,
) -> _Plan:
    """A new meld; ``taken`` must be in it, ``prefer`` is bound first when it is named."""
    cards, specs = _bind(hand, tokens, taken if taken is not None else prefer)
    shape = _resolve_or_illegal(specs)
    remaining = _without(hand, cards)
    if taken is not None and taken not in cards:
        raise IllegalAction("take-unused", "the card taken from the discard pile must be used")
    _check_leaves_discard(match, seat, remaining)
    meld = build_meld(len(match.melds) + 1, seat, shape, cards)
    return _Plan(remaining, [meld], None, [])


def _plan_attach(
    match: Match,
    seat: int,
    hand: list[int],
    target: int,
    tokens: Sequence[str],
    taken: int | None,
    prefer: int | None = None,
    melds: list[Meld] | None = None,
) -> _Plan:
    """An attach to meld ``target`` (S40-6); ``taken`` must be in it, ``prefer`` is bound first.

    ``melds`` is the table to attach to when it is not the match's (after a joker swap).
    """
    table = match.melds if melds is None else melds
    if not 1 <= target <= len(table):
        raise IllegalAction("no-such-meld", f"there is no meld {target} on the table")
    old = table[target - 1]
    cards, specs = _bind(hand, tokens, taken if taken is not None else prefer)
    if taken is not None and taken not in cards:
        raise IllegalAction("take-unused", "the card taken from the discard pile must be used")
    try:
        shape = attach_shape(old, specs)
    except InvalidMeld as error:
        raise IllegalAction(error.code, error.message) from error
    remaining = _without(hand, cards)
    _check_leaves_discard(match, seat, remaining)
    meld = build_meld(old.number, old.owner, shape, [*old.cards, *cards])
    return _Plan(remaining, [], meld, cards)


def _plan_swap(match: Match, seat: int, hand: list[int], action: Action) -> _Plan:
    """A joker swap and the freed joker's use, as one play (S40-7)."""
    if not 1 <= action.target <= len(match.melds):
        raise IllegalAction("no-such-meld", f"there is no meld {action.target} on the table")
    if match.taken is not None and match.taken in hand:
        raise IllegalAction(
            "take-unused", "use the card taken from the discard pile before a joker swap"
        )
    face, declared = parse_spec(action.card)
    card = _pick_copy(hand, face, None) if declared is None else None
    if card is None or face == JOKER_FACE:
        raise IllegalAction("card-not-in-hand", f"you do not hold {action.card}")
    try:
        swapped, joker = swap_joker(match.melds[action.target - 1], card)
    except InvalidMeld as error:
        raise IllegalAction(error.code, error.message) from error
    hand_after = [*_without(hand, [card]), joker]
    table = list(match.melds)
    table[action.target - 1] = swapped
    use = action.use
    assert use is not None
    try:
        if use.kind == "meld":
            plan = _plan_meld(match, seat, hand_after, use.melds[0], joker)
            return _Plan(plan.hand, plan.new, None, [], swapped, action)
        plan = _plan_attach(match, seat, hand_after, use.target, use.melds[0], joker, melds=table)
    except IllegalAction as error:
        if error.code == "take-unused":
            raise IllegalAction("joker-unused", "the freed joker must be used this turn") from error
        raise
    return _Plan(plan.hand, [], plan.changed, plan.attached, swapped, action)


def _check_leaves_discard(match: Match, seat: int, remaining: Sequence[int]) -> None:
    """S40-9.2: a play may not leave the player without a legal discard."""
    if not leaves_discard(match, seat, remaining):
        raise IllegalAction(
            "no-discard-left", "that would leave you without a card you may discard"
        )


def _commit_open(match: Match, seat: int, plan: _Plan) -> Action:
    """Lay an opening planned by :func:`_plan_open` (S40-5); returns it in canonical form."""
    match.opened[seat] = True
    match.opened_this_turn = True
    _commit(match, seat, plan)
    return Action("open", melds=tuple(tuple(m.tokens()) for m in plan.new))


def _commit(match: Match, seat: int, plan: _Plan) -> Action:
    """Lay a planned meld, attach or swap on the table; returns it in canonical form."""
    match.hands[seat] = plan.hand
    if match.taken is not None and match.taken not in plan.hand:
        match.taken = None
    if plan.swapped is not None:
        match.melds[plan.swapped.number - 1] = plan.swapped
    match.melds.extend(plan.new)
    if plan.changed is not None:
        match.melds[plan.changed.number - 1] = plan.changed
    if plan.new:
        used = Action("meld", melds=(tuple(plan.new[0].tokens()),))
    else:
        assert plan.changed is not None
        tokens = _attached_tokens(plan.changed, plan.attached)
        used = Action("attach", target=plan.changed.number, melds=(tokens,))
    if plan.swap is not None:
        return Action("swap", target=plan.swap.target, card=plan.swap.card, use=used)
    return used


def _pick_copy(cards: Sequence[int], face: int, prefer: int | None) -> int | None:
    if prefer is not None and prefer in cards and FACE_INDEX[prefer] == face:
        return prefer
    return next((c for c in cards if FACE_INDEX[c] == face), None)


def _without(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    remaining = list(hand)
    for card in cards:
        remaining.remove(card)
    return remaining


def _resolve_or_illegal(specs: Sequence[Spec]) -> Shape:
    try:
        return resolve(specs)
    except InvalidMeld as error:
        raise IllegalAction(error.code, error.message) from error


def _attached_tokens(meld: Meld, attached: Sequence[int]) -> tuple[str, ...]:
    """The attached cards in table order; a joker always with what it stands for."""
    out = []
    for card, stands in zip(meld.cards, meld.stands, strict=True):
        if card in attached:
            if FACE_INDEX[card] != JOKER_FACE:
                out.append(face_text(stands))
            else:
                out.append("JK" if stands < 0 else "JK=" + face_text(stands))
    return tuple(out)
