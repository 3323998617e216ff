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
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from engine.ai import LEVELS, learned
from engine.cards import FACE_INDEX, JOKER_FACE, scala40_deck
from engine.scala40.actions import Action
from engine.scala40.legal import attachable
from engine.scala40.match import HAND_SIZE, Match
from engine.scala40.melds import Meld, parse_spec
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

JOKER_USEFULNESS = 100.0
DANGER_WEIGHT = 1.0
RUN_WEIGHT = 1.5
GAP_WEIGHT = 0.5
TWIN_DISCOUNT = 0.5
_PLAY_ORDER = {"open": 0, "meld": 1, "swap": 2, "attach": 3}

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


def choose(match: Match, level: str = "facile", seed: int = 0, budget: int | None = None) -> Action:
    """The action of ``match.to_play`` at ``level`` (one of ``match.legal_actions()``).

    Raises ``ValueError`` for an unknown level or when nobody is to play.
    """
    if level == "facile":
        return facile(match, seed)
    if level == "esperto":
        return esperto(match, seed, budget)
    raise ValueError(f"unknown level {level!r}: use one of {', '.join(LEVELS)}")


# --- Card arithmetic on faces ---------------------------------------------------------------


def token_face(token: str) -> int:
    """The face (0-51, or ``JOKER_FACE``) of a card token: ``7H``, ``JK``, or ``JK=7H``."""
    return parse_spec(token)[0]


def _penalty(face: int) -> int:
    """Penalty points of a face (S40-11.2, an ace counted 11)."""
    if face == JOKER_FACE:
        return 25
    rank = face % 13 + 1
    return 11 if rank == 1 else min(rank, 10)


def _run_gap(a: int, b: int) -> int:
    """Rank distance of two faces of one suit in a run (the ace low or high), large otherwise."""
    if a // 13 != b // 13 or a == b:
        return 99
    ra, rb = a % 13 + 1, b % 13 + 1
    best = abs(ra - rb)
    if ra == 1:
        best = min(best, 14 - rb)
    if rb == 1:
        best = min(best, 14 - ra)
    return best


def usefulness(hand: Sequence[int]) -> dict[int, float]:
    """How many potential melds each face of ``hand`` (faces) belongs to, as ``facile`` counts.

    Cards of the same rank in other suits (a pair or set), cards of the same suit within a gap of
    one rank (a near run); a joker is the most useful card.

    >>> from engine.cards import parse_cards, face_index
    >>> u = usefulness([face_index(c) for c in parse_cards("7H 8H 7S KD JK")])
    >>> u[face_index(parse_cards("7H")[0])], u[face_index(parse_cards("KD")[0])], u[52]
    (2.0, 0.0, 100.0)
    """
    naturals = sorted({f for f in hand if f != JOKER_FACE})
    out: dict[int, float] = {}
    for face in naturals:
        same_rank = sum(1 for g in naturals if g != face and g % 13 == face % 13)
        near = sum(1 for g in naturals if _run_gap(face, g) <= 2)
        out[face] = float(same_rank + near)
    if JOKER_FACE in hand:
        out[JOKER_FACE] = JOKER_USEFULNESS
    return out


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
        key=lambda a: (use.get(token_face(a.card), 0.0), -_penalty(token_face(a.card)), a.card),
    )


# --- What the public history tells ------------------------------------------------------------


RECENT_TURNS = 2
"""How many of a player's last turns count as recent (``_History.recent_discarded``)."""


class _History:
    """Per seat: faces taken from the discard pile, faces discarded, faces refused; and the
    faces discarded and refused in the seat's last ``RECENT_TURNS`` turns."""

    def __init__(self, view: View) -> None:
        players = view.players
        self.taken: list[list[int]] = [[] for _ in range(players)]
        self.discarded: list[list[int]] = [[] for _ in range(players)]
        self.refused: list[list[int]] = [[] for _ in range(players)]
        turns = [0] * players
        discarded_at: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        refused_at: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        top: int | None = None
        for seat, text in view.history:
            if text.startswith("discard"):
                top = token_face(text.split()[1])
                self.discarded[seat].append(top)
                discarded_at[seat].append((turns[seat], top))
                turns[seat] += 1
            elif text.startswith("take"):
                if top is not None:
                    self.taken[seat].append(top)
                top = None
            elif text == "draw" and top is not None:
                self.refused[seat].append(top)
                refused_at[seat].append((turns[seat], top))
        self.recent_discarded = [
            [f for turn, f in discarded_at[s] if turns[s] - turn <= RECENT_TURNS]
            for s in range(players)
        ]
        self.recent_refused = [
            [f for turn, f in refused_at[s] if turns[s] - turn <= RECENT_TURNS]
            for s in range(players)
        ]


def danger(face: int, view: View, history: _History, melds_attach: bool) -> float:
    """How much the next player may use ``face`` if ``view.seat`` discards it (0 = safe)."""
    seat = view.seat
    following = _next_in(view, seat)
    if following is None or (view.players == 4 and view.sides[following] == view.sides[seat]):
        return 0.0
    if face == JOKER_FACE:
        return 5.0
    score = 0.0
    if melds_attach and view.opened[following]:
        score += 3.0
    for taken in history.taken[following]:
        if taken % 13 == face % 13 and taken != face:
            score += 1.0
        if _run_gap(face, taken) <= 2:
            score += 1.0
    for gone in history.discarded[following] + history.refused[following]:
        if gone == face:
            score -= 0.5
        elif gone % 13 == face % 13 or _run_gap(face, gone) <= 1:
            score -= 0.25
    return score


def _next_in(view: View, seat: int) -> int | None:
    for step in range(1, view.players):
        other = (seat + step) % view.players
        if view.status[other] == "in":
            return other
    return None


# --- Determinization ------------------------------------------------------------------------


def _copies(face: int) -> tuple[int, ...]:
    return (52, 53, 106, 107) if face == JOKER_FACE else (face, face + 54)


class _Ids:
    """Hands out physical ids for faces canonically: the lowest free copy first."""

    def __init__(self, deck: Sequence[int]) -> None:
        self.free = set(deck)

    def take(self, face: int) -> int | None:
        for card in _copies(face):
            if card in self.free:
                self.free.discard(card)
                return card
        return None

    def need(self, face: int) -> int:
        card = self.take(face)
        if card is None:
            raise ValueError("inconsistent view: a face seen more often than it exists")
        return card


def known_pile(view: View, jokers: bool) -> list[int | None]:
    """The discard pile bottom to top as far as the public history tells (None: not known).

    Replays this hand's draws, takes and discards from the deal, with the restocks of S40-10.1;
    when the replay does not agree with the view's counts, only the top card is taken as known.
    """
    dealt = sum(1 for s in view.status if s == "in")
    dealt += sum(1 for _, text in view.history if text == "abandon")
    stock = (108 if jokers else 104) - HAND_SIZE * dealt - 1
    pile: list[int | None] = [None]
    for _, text in view.history:
        if text == "draw":
            stock -= 1
        elif text.startswith("take"):
            if pile:
                pile.pop()
        elif text.startswith("discard"):
            pile.append(token_face(text.split()[1]))
            if stock == 0 and len(pile) >= 3:
                stock = len(pile) - 1
                pile = pile[-1:]
    top = None if view.discard_top is None else token_face(view.discard_top)
    if len(pile) != view.discard_size or stock != view.stock_size:
        pile = [None] * view.discard_size
    if pile:
        pile[-1] = top
    return pile


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


def esperto_usefulness(hand: Sequence[int]) -> dict[int, float]:
    """``esperto``'s weighing of each face of ``hand`` (faces): ``usefulness`` refined.

    A neighbour in a run counts ``RUN_WEIGHT``, a neighbour one gap away ``GAP_WEIGHT`` (a single
    rank completes it instead of two ends), a card of the same rank in another suit 1; a face held
    twice loses ``TWIN_DISCOUNT`` (its twin keeps the same melds possible); a joker counts most.

    >>> from engine.cards import parse_cards, face_index
    >>> u = esperto_usefulness([face_index(c) for c in parse_cards("7H 8H 9H 7S 7S KD")])
    >>> [u[face_index(parse_cards(t)[0])] for t in ("7H", "8H", "9H", "7S", "KD")]
    [3.0, 3.0, 2.0, 0.5, 0.0]
    """
    naturals = sorted({f for f in hand if f != JOKER_FACE})
    out: dict[int, float] = {}
    for face in naturals:
        value = float(sum(1 for g in naturals if g != face and g % 13 == face % 13))
        for other in naturals:
            gap = _run_gap(face, other)
            if gap == 1:
                value += RUN_WEIGHT
            elif gap == 2:
                value += GAP_WEIGHT
        if hand.count(face) > 1:
            value -= TWIN_DISCOUNT
        out[face] = value
    if JOKER_FACE in hand:
        out[JOKER_FACE] = JOKER_USEFULNESS
    return out


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
        return (value, sign * _penalty(face), action.card)

    return key


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
        safe = [a for a in discards if not attachable(match.melds, _copies(token_face(a.card))[0])]
        discards = safe or discards
    return best_scored_discard(match, view, discards, context)


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
    history: _History
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
            history=_History(view),
            unseen=unseen_faces(view, match.options.jokers),
            melds=tuple(match.melds),
            following=_next_in(view, view.seat),
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
            attaches = attachable(self.melds, _copies(face)[0])
            known = (attaches, danger(face, self.view, self.history, attaches), *_feeds(self, face))
            self._risks[face] = known
        return known


def unseen_faces(view: View, jokers: bool) -> Counter[int]:
    """How many copies of each face the seat has not seen (hand, table, known discard pile)."""
    counts: Counter[int] = Counter(dict.fromkeys(range(JOKER_FACE), 2))
    if jokers:
        counts[JOKER_FACE] = 4
    for token in view.hand:
        counts[token_face(token)] -= 1
    for meld in view.melds:
        for token in meld.cards:
            counts[token_face(token)] -= 1
    for face in known_pile(view, jokers):
        if face is not None:
            counts[face] -= 1
    return counts


def _shift(face: int, ranks: int) -> int | None:
    """The face ``ranks`` away in the same suit (a king's +1 is the ace), None past the ends.

    An ace only looks upwards (A 2 3), as the weights were fitted with it.
    """
    rank = face % 13 + 1
    target = rank + ranks
    if (rank == 1 and ranks < 0) or not 1 <= target <= 14:
        return None
    return face // 13 * 13 + (target - 1) % 13


def _outs(context: DiscardContext, face: int, naturals: set[int]) -> int:
    """Unseen faces that would make ``face`` a meld of three with one card of the hand."""
    outs = 0
    others = _other_suits(face)
    for other in others:
        if context.unseen[other] > 0 and any(h in naturals for h in others if h != other):
            outs += 1
    for step in (-2, -1, 1, 2):
        out = _shift(face, step)
        if out is None or context.unseen[out] == 0:
            continue
        for held_step in (-2, -1, 1, 2):
            held = _shift(face, held_step)
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
        if g == face or g % 13 == face % 13 or _run_gap(face, g) <= 2
    )
    took = sum(
        1.0 for g in history.taken[following] if g % 13 == face % 13 or _run_gap(face, g) <= 2
    )
    return gone, took


def _other_suits(face: int) -> list[int]:
    """The faces of ``face``'s rank in the three other suits."""
    return [suit * 13 + face % 13 for suit in range(4) if suit != face // 13]


def _feeds(context: DiscardContext, face: int) -> tuple[float, float]:
    """Melds of three ``face`` could start for another player from unseen cards alone: sets
    (pairs of other suits of its rank with a copy unseen) and runs (two unseen faces of its
    suit next to it)."""
    live_suits = sum(1 for g in _other_suits(face) if context.unseen[g] > 0)
    run_feed = 0.0
    for low, high in ((-2, -1), (-1, 1), (1, 2)):
        a, b = _shift(face, low), _shift(face, high)
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
    penalty = _penalty(face) / 10
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
        float(sum(1 for g in naturals if _run_gap(face, g) == 1)),
        float(sum(1 for g in naturals if _run_gap(face, g) == 2)),
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
        near = _shift(face, step)
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
        _penalty(face) / 10,
        1.0 if face % 13 == 0 else 0.0,
        float(sum(unseen[g] for g in _other_suits(face))),
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
