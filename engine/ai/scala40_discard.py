"""``esperto``'s discard (docs/ai.md): a learned score of each discard, less the cost of feeding
the next player, over the hand-made order it breaks ties with.

``discard_score`` is ``DISCARD_WEIGHTS`` times the ``discard_features`` of a card (a ridge
regression of the points a discard brought); ``feed_chance`` is ``FEED_WEIGHTS`` times its
``feed_features`` (a linear probability that the next player takes it, one model before that
player opens and one after); ``discard_value`` puts them together. Both read a
``DiscardContext``, computed once per decision from the seat's view. The weights are data files
(``engine/ai/weights/``) loaded by ``engine.ai.learned``; the trainers are in ``research/``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.ai import learned
from engine.ai.scala40_reading import (
    History,
    danger,
    esperto_usefulness,
    face_copies,
    next_seat_in,
    other_suit_faces,
    penalty_points,
    run_gap,
    shift_face,
    token_face,
    unseen_faces,
    usefulness,
)
from engine.cards import FACE_INDEX, JOKER_FACE
from engine.scala40.actions import Action
from engine.scala40.dealing import HAND_SIZE
from engine.scala40.legal import attachable
from engine.scala40.match import Match
from engine.scala40.melds import Meld
from engine.scala40.view import View

DANGER_WEIGHT = 1.0
"""The weight of ``danger`` in the hand-made discard order (``heuristic_key``)."""

DISCARD_FEATURES = (
    "useful",  # esperto_usefulness of the card
    "facile_useful",  # usefulness of the card (facile's count)
    "same_rank",  # cards of its rank in other suits in hand
    "run_neighbours",  # run neighbours in hand
    "gap_neighbours",  # cards of its suit two ranks away in hand
    "twin",  # 1 when the hand holds the card twice
    "penalty",  # penalty points / 10
    "penalty_open",  # penalty points / 10 once open
    "danger",  # danger (feeding the next player)
    "set_feed",  # pairs of other suits of its rank still unseen
    "run_feed",  # runs of three through it whose two other cards are unseen
    "outs",  # unseen cards that would make it a meld of three with one card in hand
    "thrown_near",  # cards near it the next player threw or refused
    "taken_near",  # cards near it the next player took
    "open_feed",  # set_feed + run_feed when the next player is open
    "high_closed",  # 1 for a card from 10 to ace before opening
    "penalty_late",  # penalty points / 10 times how few cards the next player holds
    "useful_open",  # useful once open
    "danger_open",  # danger once open
    "joker",  # 1 for a joker
    "set_feed_late",  # set_feed times how far the stock is drawn
    "run_feed_late",  # run_feed times how far the stock is drawn
)
"""What ``discard_features`` measures of a discard, in order (see ``DISCARD_WEIGHTS``)."""

DISCARD_WEIGHTS: dict[str, float] = learned.load_linear("scala40_discard", DISCARD_FEATURES)
"""The weight of each of ``DISCARD_FEATURES`` in ``discard_score``, from
``weights/scala40_discard.json`` (a ridge regression of the points a discard brought, against the
other discards of the same position, on real hands against ``facile``; the file says how it was
made: ``python -m research.ai_learn``)."""


def heuristic_key(context: DiscardContext) -> Callable[[Action], tuple[float, int, str]]:
    """The hand-made discard order: ``esperto_usefulness`` plus ``danger``, then penalty points.

    Ties go to the card with most penalty points once open (fewer points lost if the hand ends),
    to the card with fewest before opening (high cards reach the opening threshold sooner).
    """
    sign = -1 if context.opened else 1

    def key(action: Action) -> tuple[float, int, str]:
        face = token_face(action.card)
        value = context.useful.get(face, 0.0)
        if face != JOKER_FACE:
            risk = context.risk(face)[1]
            value += DANGER_WEIGHT * max(0.0, risk)
        return (value, sign * penalty_points(face), action.card)

    return key


def best_scored_discard(
    match: Match, view: View, discards: Sequence[Action], context: DiscardContext | None = None
) -> Action:
    """The one of ``discards`` with the highest ``discard_value`` (ties: the hand-made order)."""
    if context is None:
        context = DiscardContext.of(match, view)
    ordered = sorted(discards, key=heuristic_key(context))
    scores = [discard_value(context, token_face(a.card)) for a in ordered]
    best = max(range(len(ordered)), key=lambda i: (scores[i], -i))
    return ordered[best]


# --- The learned discard score ----------------------------------------------------------------


@dataclass(frozen=True)
class DiscardContext:
    """What ``discard_features`` reads, computed once per decision from the seat's view."""

    view: View
    hand: tuple[int, ...]
    history: History
    unseen: Counter[int]
    melds: tuple[Meld, ...]
    following: int | None
    useful: dict[int, float]
    facile_useful: dict[int, float]
    _risks: dict[int, tuple[bool, float, float, float]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def of(cls, match: Match, view: View) -> DiscardContext:
        """The context of ``view.seat`` deciding its discard in ``match``."""
        hand = [FACE_INDEX[c] for c in match.hands[view.seat]]
        return cls(
            view=view,
            hand=tuple(hand),
            history=History(view),
            unseen=unseen_faces(view, match.options.jokers),
            melds=tuple(match.melds),
            following=next_seat_in(view, view.seat),
            useful=esperto_usefulness(hand),
            facile_useful=usefulness(hand),
        )

    @property
    def opened(self) -> bool:
        """Whether the deciding seat has opened."""
        return self.view.opened[self.view.seat]

    def risk(self, face: int) -> tuple[bool, float, float, float]:
        """Of a natural ``face``: whether it attaches to the table, its ``danger``, and the sets
        and runs it could start from unseen cards (``_feeds``); computed once per face."""
        known = self._risks.get(face)
        if known is None:
            attaches = attachable(self.melds, face_copies(face)[0])
            known = (attaches, danger(face, self.view, self.history, attaches), *_feeds(self, face))
            self._risks[face] = known
        return known


def _outs(context: DiscardContext, face: int, naturals: set[int]) -> int:
    """Unseen faces that would make ``face`` a meld of three with one card of the hand."""
    outs = 0
    others = other_suit_faces(face)
    for other in others:
        if context.unseen[other] > 0 and any(h in naturals for h in others if h != other):
            outs += 1
    for step in (-2, -1, 1, 2):
        out = shift_face(face, step)
        if out is None or context.unseen[out] == 0:
            continue
        for held_step in (-2, -1, 1, 2):
            held = shift_face(face, held_step)
            span = sorted((0, step, held_step))
            if held is not None and held != out and held in naturals and span[2] - span[0] == 2:
                outs += 1
                break
    return outs


def _opponent_near(context: DiscardContext, face: int) -> tuple[float, float]:
    """Faces near ``face`` (same rank, or two ranks of its suit) that the next player threw or
    refused, and that it took."""
    following = context.following
    if following is None:
        return 0.0, 0.0
    history = context.history
    gone = sum(
        1.0
        for g in history.discarded[following] + history.refused[following]
        if g == face or g % 13 == face % 13 or run_gap(face, g) <= 2
    )
    took = sum(
        1.0 for g in history.taken[following] if g % 13 == face % 13 or run_gap(face, g) <= 2
    )
    return gone, took


def _feeds(context: DiscardContext, face: int) -> tuple[float, float]:
    """Melds of three ``face`` could start for another player from unseen cards alone: sets
    (pairs of other suits of its rank with a copy unseen) and runs (two unseen faces of its
    suit next to it)."""
    live_suits = sum(1 for g in other_suit_faces(face) if context.unseen[g] > 0)
    run_feed = 0.0
    for low, high in ((-2, -1), (-1, 1), (1, 2)):
        a, b = shift_face(face, low), shift_face(face, high)
        if a is not None and b is not None and context.unseen[a] > 0 and context.unseen[b] > 0:
            run_feed += 1
    return live_suits * (live_suits - 1) / 2, run_feed


def discard_features(context: DiscardContext, face: int) -> tuple[float, ...]:
    """The features of discarding ``face``, in the order of ``DISCARD_FEATURES``."""
    opened = float(context.opened)
    if face == JOKER_FACE:
        values = dict.fromkeys(DISCARD_FEATURES, 0.0)
        values.update(joker=1.0, penalty=2.5, penalty_open=2.5 * opened)
        return tuple(values.values())
    view = context.view
    hand = context.hand
    naturals = {g for g in hand if g != JOKER_FACE}
    penalty = penalty_points(face) / 10
    _, risk, set_feed, run_feed = context.risk(face)
    gone, took = _opponent_near(context, face)
    following = context.following
    opponent_open = following is not None and view.opened[following]
    opponent_cards = view.hand_sizes[following] if following is not None else HAND_SIZE
    high = face % 13 == 0 or face % 13 >= 9
    late = max(0.0, 1 - view.stock_size / 60)
    useful = context.useful.get(face, 0.0)
    return (
        useful,
        context.facile_useful.get(face, 0.0),
        float(sum(1 for g in naturals if g != face and g % 13 == face % 13)),
        float(sum(1 for g in naturals if run_gap(face, g) == 1)),
        float(sum(1 for g in naturals if run_gap(face, g) == 2)),
        1.0 if hand.count(face) > 1 else 0.0,
        penalty,
        penalty * opened,
        risk,
        set_feed,
        run_feed,
        float(_outs(context, face, naturals)),
        gone,
        took,
        float(opponent_open) * (set_feed + run_feed),
        float(high and not opened),
        penalty * (HAND_SIZE - opponent_cards) / HAND_SIZE,
        opened * useful,
        opened * risk,
        0.0,
        set_feed * late,
        run_feed * late,
    )


def discard_score(context: DiscardContext, face: int) -> float:
    """How good discarding ``face`` is: ``DISCARD_WEIGHTS`` times ``discard_features``."""
    features = discard_features(context, face)
    return sum(
        DISCARD_WEIGHTS[name] * x for name, x in zip(DISCARD_FEATURES, features, strict=True)
    )


# --- The feed model ---------------------------------------------------------------------------

FEED_FEATURES = (
    "bias",
    "joker",
    "penalty",
    "ace",
    "unseen_rank",
    "unseen_minus2",
    "unseen_minus1",
    "unseen_plus1",
    "unseen_plus2",
    "set_feed",
    "run_feed",
    "danger",
    "attachable",
    "thrown",
    "thrown_recent",
    "refused_recent",
)
"""What ``feed_features`` measures of a discard, in order (see ``FEED_WEIGHTS``)."""

FEED_REGIMES = ("closed", "open")
"""The feed models: the next player not yet open, and open (``feed_regime``)."""

FEED_WEIGHTS: dict[str, dict[str, float]] = learned.load_regimes(
    "scala40_feed", FEED_REGIMES, FEED_FEATURES
)
"""Linear probability that the next player takes a discard, one model while that player has not
opened (``closed``) and one once it has (``open``), from ``weights/scala40_feed.json`` (fitted on
what ``facile`` really took in real hands; the file says how: ``python -m research.ai_feed``)."""

FEED_COST: dict[str, float] = {"closed": 12.0, "open": 12.0}
"""Points a discard's ``feed_chance`` costs in ``esperto``'s discard (chosen by paired matches)."""


def feed_features(context: DiscardContext, face: int) -> tuple[float, ...]:
    """The features of ``face`` for the feed model, in the order of ``FEED_FEATURES``."""
    if face == JOKER_FACE:
        return (1.0, 1.0) + (0.0,) * (len(FEED_FEATURES) - 2)
    unseen = context.unseen
    neighbours = []
    for step in (-2, -1, 1, 2):
        near = shift_face(face, step)
        neighbours.append(0.0 if near is None else float(unseen[near]))
    attaches, risk, set_feed, run_feed = context.risk(face)
    history, following = context.history, context.following
    recent_thrown = recent_refused = thrown = 0.0
    if following is not None:
        thrown = float(history.discarded[following].count(face))
        recent_thrown = float(history.recent_discarded[following].count(face))
        recent_refused = float(history.recent_refused[following].count(face))
    return (
        1.0,
        0.0,
        penalty_points(face) / 10,
        1.0 if face % 13 == 0 else 0.0,
        float(sum(unseen[g] for g in other_suit_faces(face))),
        *neighbours,
        set_feed,
        run_feed,
        risk,
        float(attaches),
        thrown,
        recent_thrown,
        recent_refused,
    )


def feed_regime(context: DiscardContext) -> str | None:
    """Which feed model applies: ``closed`` or ``open`` by whether the next player has opened;
    None when the next player is on the seat's side (or there is none)."""
    following = context.following
    view = context.view
    if following is None or view.sides[following] == view.sides[view.seat]:
        return None
    return "open" if view.opened[following] else "closed"


def feed_chance(context: DiscardContext, face: int) -> float:
    """The chance that the next player takes ``face`` if the seat discards it (a linear
    probability, ``FEED_WEIGHTS``); 0 when the next player is a partner."""
    regime = feed_regime(context)
    return 0.0 if regime is None else _regime_chance(context, face, regime)


def _regime_chance(context: DiscardContext, face: int, regime: str) -> float:
    """``feed_chance`` under the model of ``regime``."""
    weights = FEED_WEIGHTS[regime]
    features = feed_features(context, face)
    return sum(weights[name] * x for name, x in zip(FEED_FEATURES, features, strict=True))


def discard_value(context: DiscardContext, face: int) -> float:
    """How good discarding ``face`` is for ``esperto``: its ``discard_score`` less the
    ``FEED_COST`` of the regime times its ``feed_chance``."""
    regime = feed_regime(context)
    value = discard_score(context, face)
    if regime is not None:
        value -= FEED_COST[regime] * _regime_chance(context, face, regime)
    return value
