"""Scala 40 computer players (docs/rules.md S40): ``facile`` and ``esperto``, pure and seedable.

>>> from engine.scala40 import new_match
>>> m = new_match(players=2, seed=7)
>>> choose(m, "facile") in m.legal_actions()
True

Both levels decide for ``match.to_play`` from what that seat may see: ``match.view(seat)`` and
``match.legal_actions()`` (which depends only on the seat's own hand and public information).
Randomness comes only from ``seed``; the same match, level, seed and budget give the same action.

``facile`` opens as soon as the opening solver reaches the threshold, lays and attaches all it
can (``facile_play``), takes the discard only to use it at once (``useful_takes``), and discards
its least useful card (``usefulness``: the potential melds a card belongs to; ties go to the card
with most penalty points). It is deterministic.

``esperto`` plays like ``facile`` but for two things, both read from the seat's view and the
public history (``view.history``: what each player discarded, took, or refused to take):

- Its discard maximises ``discard_value``: ``discard_score``, a linear score of the card's
  ``discard_features`` (its potential melds in hand, penalty points, the ``danger`` of feeding
  the next player, unseen cards that would complete it, ...) estimating the points the discard
  brings, less ``FEED_COST`` points times ``feed_chance``, a linear probability that the next
  player takes the card (``feed_features``; one model before that player opens, one after). A
  card the open next player could attach to the table goes last; ties keep the hand-made order
  (``heuristic_key``).
- When it could open, an opponent is open (a chiusura in mano doubles only open players' points,
  S40-11.4) and after laying all it can it would hold 2 to ``CHIUSURA_LEFT`` cards, the chiusura
  search (``holding_pays``) decides whether to hold its melds back this turn. It draws
  ``budget // 2`` private worlds (``private_world``: every card the seat cannot see dealt afresh
  from the unseen cards and the match seed replaced, so nothing of the true hidden state
  survives) and plays each out twice to the end of the hand (``hand_value``: holding back, and
  opening now; the seat then plays ``esperto_plain``, the others ``facile``; worth the others'
  points minus its side's, ``MATCH_BONUS`` more or less when the hand decides the match).
  Holding back wins when its mean is higher. ``budget`` counts play-outs (``DEFAULT_BUDGET``),
  never seconds.

The discard's models live in :mod:`engine.ai.scala40_discard`, what the seat reads of its cards
and of the public history (``usefulness``, ``danger``, ``known_pile``, ...) in
:mod:`engine.ai.scala40_reading`; the players and the chiusura search are here.

The weights of the two linear models are learned offline and shipped as data files,
``engine/ai/weights/scala40_discard.json`` (``DISCARD_WEIGHTS``) and ``scala40_feed.json``
(``FEED_WEIGHTS``), each with how it was made; ``engine.ai.learned`` loads them at import and
checks that their features are exactly ``DISCARD_FEATURES`` and ``FEED_FEATURES``. The trainers
that write them are in ``research/``, outside the package.

How these were chosen, what they bring against ``facile`` and the experiments that did not help
are in docs/ai.md; the figures and the commands that print them in docs/performance.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.ai import LEVELS
from engine.ai.scala40_discard import DiscardContext, best_scored_discard
from engine.ai.scala40_reading import (
    face_copies,
    known_pile,
    penalty_points,
    token_face,
    usefulness,
)
from engine.cards import FACE_INDEX, scala40_deck
from engine.scala40.actions import Action
from engine.scala40.legal import attachable
from engine.scala40.match import Match
from engine.scala40.scoring import hand_penalty
from engine.scala40.solver import solve
from engine.scala40.view import View

DEFAULT_BUDGET = 40
"""Play-outs of esperto's chiusura search at the default budget (two per private world)."""
CHIUSURA_LEFT = 5
"""esperto weighs holding back for a chiusura in mano only when, after opening and laying all it
can, it would hold at most this many cards (one of them the discard)."""
MATCH_BONUS = 60.0
"""Points a play-out adds when the hand wins the match for the seat (subtracts when it loses it):
doubled points matter most when they push an opponent past the limit."""
MAX_PLAY_OUT = 3000

_PLAY_ORDER = {"open": 0, "meld": 1, "swap": 2, "attach": 3}


def choose(match: Match, level: str = "facile", seed: int = 0, budget: int | None = None) -> Action:
    """The action of ``match.to_play`` at ``level`` (one of ``match.legal_actions()``).

    Raises ``ValueError`` for an unknown level or when nobody is to play.
    """
    if level == "facile":
        return facile(match, seed)
    if level == "esperto":
        return esperto(match, seed, budget)
    raise ValueError(f"unknown level {level!r}: use one of {', '.join(LEVELS)}")


# --- facile -----------------------------------------------------------------------------------


def facile(match: Match, seed: int = 0) -> Action:
    """The ``facile`` choice (see the module docstring); ``seed`` is accepted for symmetry."""
    del seed  # facile is deterministic
    actions = match.legal_actions()
    if not actions or match.to_play is None:
        raise ValueError("nobody is to play")
    return _facile_from(match, actions)


def _facile_from(match: Match, actions: list[Action]) -> Action:
    phase = match.phase
    if phase == "draw":
        return _facile_draw(actions)
    if phase == "play":
        play = facile_play(match, actions)
        if play is not None:
            return play
        return _facile_discard(match, actions)
    if phase == "cut":
        return Action("cut", choice="middle")
    if phase == "rientro":
        return Action("rientro", choice="yes")
    return actions[0]


def _take_score(action: Action) -> tuple[int, int, int]:
    use = action.use
    assert use is not None
    jokers = sum(1 for t in use.cards if t.startswith("JK"))
    return (1 if use.kind == "open" else 0, -jokers, len(use.cards))


def useful_takes(actions: Sequence[Action]) -> list[Action]:
    """The takes among ``actions`` that use the card at once (``facile``'s only takes), best
    first: an opening, then fewest jokers, then most cards; a joker from hand only to open."""
    out = []
    for action in actions:
        if action.kind != "take" or action.use is None:
            continue
        if action.use.kind != "open" and any(t.startswith("JK") for t in action.use.cards):
            continue
        out.append(action)
    return sorted(out, key=_take_score, reverse=True)


def _facile_draw(actions: Sequence[Action]) -> Action:
    takes = useful_takes(actions)
    return takes[0] if takes else Action("draw")


def _wasteful(action: Action, hand_size: int) -> bool:
    """A lone joker attached to a meld: kept for a meld of its own unless the hand is small."""
    cards = action.cards if action.kind != "swap" else ()
    return bool(cards) and all(t.startswith("JK") for t in cards) and hand_size > 3


def _play_key(action: Action) -> tuple[int, int, int, str]:
    jokers = sum(1 for t in action.cards if t.startswith("JK"))
    return (_PLAY_ORDER[action.kind], jokers, -len(action.cards), str(action))


def facile_play(match: Match, actions: Sequence[Action]) -> Action | None:
    """``facile``'s lay among ``actions`` (the legal actions of the play phase): open, then
    meld, swap a joker, attach, in that order (fewest jokers and most cards first); a lone joker
    is not attached while the hand holds more than 3 cards. None when there is nothing to lay.
    """
    seat = match.to_play
    assert seat is not None
    size = len(match.hands[seat])
    plays = [a for a in actions if a.kind in _PLAY_ORDER and not _wasteful(a, size)]
    return min(plays, key=_play_key) if plays else None


def discard_options(actions: Sequence[Action]) -> list[Action]:
    """The discards among ``actions``, in their order."""
    return [a for a in actions if a.kind == "discard"]


def _facile_discard(match: Match, actions: Sequence[Action]) -> Action:
    seat = match.to_play
    assert seat is not None
    hand = [FACE_INDEX[c] for c in match.hands[seat]]
    use = usefulness(hand)
    discards = discard_options(actions)
    return min(
        discards,
        key=lambda a: (
            use.get(token_face(a.card), 0.0),
            -penalty_points(token_face(a.card)),
            a.card,
        ),
    )


# --- Determinization ------------------------------------------------------------------------


class _Ids:
    """Hands out physical ids for faces canonically: the lowest free copy first."""

    def __init__(self, deck: Sequence[int]) -> None:
        self.free = set(deck)

    def take(self, face: int) -> int | None:
        for card in face_copies(face):
            if card in self.free:
                self.free.discard(card)
                return card
        return None

    def need(self, face: int) -> int:
        card = self.take(face)
        if card is None:
            raise ValueError("inconsistent view: a face seen more often than it exists")
        return card


def private_world(match: Match, seat: int, rng: random.Random) -> Match:
    """A copy of ``match`` whose hidden information is entirely re-sampled for ``seat``.

    Built from ``view(seat)`` alone: the table, the seat's hand (and a partner's open hand) and
    the discard pile cards known from the history keep their faces, renumbered canonically; the
    other hands, the rest of the pile, the stock and the cards set aside are a fresh random deal
    of the unseen cards; the seed of the copy is replaced.
    """
    view = match.view(seat)
    world = Match.from_json(match.to_json())
    ids = _Ids(scala40_deck(match.options.jokers))
    world.melds = [
        replace(meld, cards=tuple(ids.need(FACE_INDEX[c]) for c in meld.cards))
        for meld in world.melds
    ]
    pile_faces = known_pile(view, match.options.jokers)
    pile: list[int | None] = [None if f is None else ids.take(f) for f in pile_faces]
    own = [ids.need(token_face(t)) for t in view.hand]
    partner: int | None = None
    partner_cards: list[int] = []
    if view.partner_hand is not None:
        partner = (seat + 2) % 4
        partner_cards = [ids.need(token_face(t)) for t in view.partner_hand]
    unseen = sorted(ids.free)
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for other, size in enumerate(view.hand_sizes):
        if other == seat:
            hands.append(own)
        elif other == partner:
            hands.append(partner_cards)
        else:
            hands.append([unseen.pop() for _ in range(size)])
    world.hands = hands
    world.discard = [unseen.pop() if c is None else c for c in pile]
    world.stock = [unseen.pop() for _ in range(view.stock_size)]
    world.aside = unseen
    world.seed = rng.getrandbits(64)
    world.drawn = None
    world.taken = None
    if view.taken is not None:
        taken_face = token_face(view.taken)
        world.taken = next(c for c in reversed(own) if FACE_INDEX[c] == taken_face)
    return world


# --- Play-outs and the chiusura search --------------------------------------------------------


def finish_hand(match: Match, seat: int, policy: Callable[[Match], Action]) -> None:
    """Play ``match`` to the end of its current hand: ``policy`` for ``seat``, ``facile`` for
    every other seat (at most ``MAX_PLAY_OUT`` actions)."""
    hand_number, count = match.hand_number, 0
    while not match.is_over and match.hand_number == hand_number and count < MAX_PLAY_OUT:
        match.play(policy(match) if match.to_play == seat else facile(match))
        count += 1


def _estimate(match: Match, seat: int) -> float:
    """Expected penalty of a seat's hand if the hand ended later: cards outside its melds."""
    hand = match.hands[seat]
    if not hand:
        return 0.0
    best = solve(hand)
    used = {i for cand in (best.melds if best else ()) for i in cand.indices}
    loose = [c for i, c in enumerate(hand) if i not in used]
    deadwood = hand_penalty(loose, match.options.ace_penalty)
    total = best.total if best else 0
    if match.opened[seat]:
        return deadwood + 1.5 * len(hand)
    if total >= match.options.opening_points:
        return deadwood + 1.5 * len(hand) + 8.0
    return 55.0 + 0.3 * deadwood


def _score(match: Match, seat: int, hand_number: int) -> float:
    """The seat's outcome: the others' average points minus its side's own (higher is better)."""
    mine = match.side_of(seat)
    last = match.last_hand
    if match.hand_number != hand_number or match.is_over:
        if last is None or last.hand_number != hand_number or last.annulled:
            return 0.0
        own = [p for s, p in enumerate(last.points) if p is not None and match.side_of(s) == mine]
        rest = [p for s, p in enumerate(last.points) if p is not None and match.side_of(s) != mine]
        return (sum(rest) / max(1, len(rest))) - (sum(own) / max(1, len(own)))
    seats = [s for s in range(match.players) if match.active(s)]
    own_est = [_estimate(match, s) for s in seats if match.side_of(s) == mine]
    rest_est = [_estimate(match, s) for s in seats if match.side_of(s) != mine]
    return (sum(rest_est) / max(1, len(rest_est))) - (sum(own_est) / max(1, len(own_est)))


def hand_value(match: Match, seat: int) -> float:
    """What the rest of the hand brings ``seat``: played out by ``esperto``'s plain policy for the
    seat and ``facile`` elsewhere, the others' average points minus its side's, plus
    ``MATCH_BONUS`` when the hand wins the match for it (minus when it loses it)."""
    hand_number = match.hand_number
    finish_hand(match, seat, esperto_plain)
    value = _score(match, seat, hand_number)
    result = match.result
    if result is not None:
        value += MATCH_BONUS if seat in result.winners else -MATCH_BONUS
    return value


def _left_after_opening(world: Match, seat: int) -> int:
    """Cards ``seat`` would still hold after opening (taking the discard for it in the draw
    phase) and laying all it can, as ``facile`` plays."""
    if world.phase == "draw":
        world.play(_facile_draw(world.legal_actions()))
    while (play := facile_play(world, world.legal_actions())) is not None:
        world.play(play)
    return len(world.hands[seat])


def _hold_turn(world: Match, seat: int) -> None:
    """Play ``seat``'s turn holding its melds back: draw from the stock (in the draw phase), then
    discard without opening unless the hand now closes in mano (``hand_value`` then does it)."""
    if world.phase == "draw":
        world.play(Action("draw"))
    if _left_after_opening(world.copy(), seat) > 1:
        world.play(_esperto_discard(world, world.view(seat), world.legal_actions()))


def _opponent_opened(match: Match, seat: int) -> bool:
    """Whether an active seat of another side has opened: only their points can be doubled."""
    mine = match.side_of(seat)
    return any(
        match.opened[s] and match.active(s) and match.side_of(s) != mine
        for s in range(match.players)
    )


def holding_pays(match: Match, seed: int, budget: int) -> bool:
    """The chiusura search: is holding the melds back this turn worth more than opening now?

    Asked when the seat could open (in the play phase, or by taking the discard in the draw
    phase) and an opponent is open (S40-11.4 doubles the points of open players only).
    ``budget // 2`` private worlds (``private_world``, from the seat's view and ``seed``) are each
    played out twice to the end of the hand (``hand_value``): holding back this turn
    (``_hold_turn``: draw from the stock instead of taking, discard without opening) and opening
    now with all the seat can lay. Holding is chosen when its mean is higher. When the seat would
    still hold more than ``CHIUSURA_LEFT`` cards after laying, a chiusura in mano is too far away,
    and when it would hold one card opening now closes in mano; no play-out is spent then.
    """
    seat = match.to_play
    assert seat is not None
    rng = random.Random(seed)
    worlds = [private_world(match, seat, rng)]
    if not 1 < _left_after_opening(worlds[0].copy(), seat) <= CHIUSURA_LEFT:
        return False  # one card left: opening now is the chiusura in mano
    worlds += [private_world(match, seat, rng) for _ in range(max(1, budget // 2) - 1)]
    gain = 0.0
    for world in worlds:
        state = world.to_json()
        held = Match.from_json(state)
        _hold_turn(held, seat)
        gain += hand_value(held, seat) - hand_value(Match.from_json(state), seat)
    return gain > 0


# --- esperto ---------------------------------------------------------------------------------


def esperto(match: Match, seed: int = 0, budget: int | None = None) -> Action:
    """The ``esperto`` choice (see the module docstring).

    ``budget`` counts the play-outs of the chiusura search (``holding_pays``, default
    ``DEFAULT_BUDGET``), ``seed`` seeds its private worlds; every other decision is deterministic
    and costs no play-out.
    """
    actions = match.legal_actions()
    seat = match.to_play
    if not actions or seat is None:
        raise ValueError("nobody is to play")
    choice = esperto_plain(match, actions)
    opens = choice.kind == "open" or (choice.use is not None and choice.use.kind == "open")
    if opens and _opponent_opened(match, seat):
        spent = DEFAULT_BUDGET if budget is None else budget
        if holding_pays(match, seed, spent):
            if match.phase == "draw":
                return Action("draw")
            return _esperto_discard(match, match.view(seat), actions)
    return choice


def esperto_plain(match: Match, actions: list[Action] | None = None) -> Action:
    """``esperto`` without the chiusura search: it opens as soon as it can (the play-out policy).

    ``actions`` are the legal actions when the caller has them already.
    """
    if actions is None:
        actions = match.legal_actions()
    seat = match.to_play
    assert seat is not None
    if match.phase != "play":
        return _facile_from(match, actions)
    play = facile_play(match, actions)
    if play is not None:
        return play
    return _esperto_discard(match, match.view(seat), actions)


def _esperto_discard(match: Match, view: View, actions: Sequence[Action]) -> Action:
    """The discard with the highest learned score (``discard_score``); ties keep the hand-made
    order of ``heuristic_key``.

    A card the next player, open, could attach to the table goes only when every card could: the
    score never saw one (an open player attaches such cards itself, one not open may not throw
    them, S40-8.3), and throwing it hands that player a free card.
    """
    discards = discard_options(actions)
    if len(discards) == 1:
        return discards[0]
    context = DiscardContext.of(match, view)
    following = context.following
    if (
        following is not None
        and view.opened[following]
        and view.sides[following] != view.sides[view.seat]
    ):
        safe = [
            a for a in discards if not attachable(match.melds, face_copies(token_face(a.card))[0])
        ]
        discards = safe or discards
    return best_scored_discard(match, view, discards, context)
