"""The Scala 40 match: the state machine of hands and turns (docs/rules.md S40-2 to S40-14).

:class:`Match` is the whole contract: ``to_play``, ``legal_actions()``, ``play()``, ``view()``,
``result``, ``to_json()`` / ``from_json()``. Every change of state is an action played through
:meth:`Match.play`, so a match replays exactly from its seed, options and log of actions.
A rejected action raises :class:`IllegalAction` before anything is changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.cards import (
    FACE_INDEX,
    FACES,
    JOKER_FACE,
    scala40_deck,
    secure_seed,
    seeded_choice,
    seeded_shuffle,
)
from engine.errors import IllegalAction, InvalidMeld, SnapshotError
from engine.outcome import Outcome
from engine.scala40 import legal
from engine.scala40.actions import TURN_KINDS, Action, parse_action
from engine.scala40.melds import (
    Meld,
    Spec,
    attach_shape,
    build_meld,
    face_text,
    parse_spec,
    resolve,
    swap_joker,
)
from engine.scala40.options import Options
from engine.scala40.results import HandResult, MatchResult
from engine.scala40.scoring import (
    ABANDON_PENALTY,
    VP_DRAW,
    VP_LOSS,
    VP_WIN,
    abandon_difference,
    hand_penalty,
    match_points,
    ranked_match_points,
    seat_hand_score,
)
from engine.scala40.view import View, build_view

FORMAT_VERSION = 1
HAND_SIZE = 13
RACE_WINS = 3
_PLAIN_STATE = (
    "hand_number",
    "counted_hands",
    "dealer",
    "phase",
    "to_play",
    "hands",
    "stock",
    "discard",
    "aside",
    "opened",
    "opened_this_turn",
    "turns_done",
    "taken",
    "drawn",
    "restocks",
    "status",
    "totals",
    "hands_won",
    "rientro_used",
    "rientro_queue",
    "autoplays",
    "clock_pending",
    "pending_cut",
    "resume_seat",
    "out_order",
)
"""State fields saved in JSON as they are."""

CUT_POINTS = {"top": 1, "middle": 3, "bottom": 5}
"""Cut point as sixths of the deck: the middle of the top, middle and bottom thirds."""


def sort_key(card: int) -> tuple[int, int]:
    """Hand order: by suit and rank (jokers last), then copy."""
    return FACE_INDEX[card], card


class Match:
    """A Scala 40 match. Create one with :func:`new_match`.

    >>> m = new_match(players=2, seed=7)
    >>> m.to_play is not None and "draw" in [str(a) for a in m.legal_actions()]
    True
    """

    def __init__(self, players: int, seed: int, options: Options) -> None:
        options.check_players(players)
        self.players = players
        self.seed = seed
        self.options = options
        self.sides = 2 if options.pairs else players
        self.hand_number = 0
        self.counted_hands = 0
        self.dealer = 0
        self.phase = "cut"
        self.to_play: int | None = None
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.aside: list[int] = []
        self.melds: list[Meld] = []
        self.opened = [False] * players
        self.opened_this_turn = False
        self.turns_done = [0] * players
        self.taken: int | None = None
        self.drawn: int | None = None
        self.restocks = 0
        self.status = ["in"] * players
        self.totals = [0] * self.sides
        self.hands_won = [0] * self.sides
        self.rientro_used = [False] * players
        self.rientro_queue: list[int] = []
        self.autoplays = [0] * players
        self.clock_pending = False
        self.pending_cut = ""
        self.resume_seat: int | None = None
        self.history: list[tuple[int, str]] = []
        self.last_hand: HandResult | None = None
        self.result: MatchResult | None = None
        self.out_order: list[int] = []

    # --- Seats and sides -------------------------------------------------------------------

    def side_of(self, seat: int) -> int:
        """The side of a seat: its line (seat % 2) in pairs, else the seat itself."""
        return seat % 2 if self.options.pairs else seat

    def seats_of(self, side: int) -> list[int]:
        """The seats of a side."""
        return [s for s in range(self.players) if self.side_of(s) == side]

    def active(self, seat: int) -> bool:
        """Whether a seat is still in the match (not eliminated, not abandoned)."""
        return self.status[seat] == "in"

    def next_active(self, seat: int) -> int:
        """The next seat still in, clockwise (to the left) of ``seat`` (S40-12.0)."""
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if self.active(candidate):
                return candidate
        raise AssertionError("no seat is in")

    def previous_active(self, seat: int) -> int:
        """The previous seat still in (to the right of ``seat``)."""
        for step in range(1, self.players + 1):
            candidate = (seat - step) % self.players
            if self.active(candidate):
                return candidate
        raise AssertionError("no seat is in")

    def active_sides(self) -> list[int]:
        """Sides with at least one seat still in."""
        return sorted({self.side_of(s) for s in range(self.players) if self.active(s)})

    @property
    def is_over(self) -> bool:
        """Whether the match has ended (``to_play`` is then None)."""
        return self.phase == "over"

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, in the shape every game shares (None while it goes on)."""
        result = self.result
        if result is None:
            return None
        won = tuple(self.hands_won[self.side_of(seat)] for seat in range(self.players))
        mp, vp = tuple(result.mp), tuple(result.vp)
        return Outcome(tuple(result.winners), mp, vp, result.stopped, won, result.ending)

    @property
    def computer_seats(self) -> tuple[int, ...]:
        """Seats the engine plays for a player who left (none in Scala 40: they are out)."""
        return ()

    @property
    def abandoned_seats(self) -> tuple[int, ...]:
        """Seats whose player abandoned (S40-14), by choice or by their turn timer."""
        return tuple(self._abandoned())

    def first_round(self, seat: int) -> bool:
        """Whether ``seat`` is in its first turn of the hand: it may not close (S40-9.3)."""
        return self.turns_done[seat] == 0

    # --- Public contract ---------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """The legal actions of ``to_play`` now (empty once the match is over).

        Never empty while a seat is to play (S40-9.2). Complete for draws, discards, new melds,
        attaches and joker swaps (a swap's freed joker used alone, or in a new meld); openings
        (``open`` and ``take open``) are limited to the solver's best one. Actions any seat may
        take outside the turn (``abandon``, ``timeout``, ``clock``, ``stop``) are not listed.
        """
        return legal.legal_actions(self)

    def play(self, action: Action | str, seat: int | None = None) -> Action:
        """Apply an action (an :class:`Action` or its text) and return it in canonical form.

        ``seat`` defaults to ``to_play``; ``abandon``, ``stop`` and ``clock`` may be played by
        any seat. Raises :class:`IllegalAction` and changes nothing when it is not legal.
        """
        if self.phase == "over":
            raise IllegalAction("match-over", "the match is over")
        parsed = parse_action(action)
        actor = self._actor(parsed, seat)
        return self._dispatch(parsed, actor)

    def view(self, seat: int) -> View:
        """Everything ``seat`` may know now (see :class:`View`)."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player match")
        return build_view(self, seat)

    def copy(self) -> Match:
        """An independent copy (through the exact JSON round trip)."""
        return Match.from_json(self.to_json())

    # --- Dispatch ----------------------------------------------------------------------------

    def _actor(self, action: Action, seat: int | None) -> int:
        valid = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.players
        if seat is not None and not valid:
            raise IllegalAction("bad-seat", f"there is no seat {seat!r}")
        if action.kind in ("abandon", "stop", "clock", "end"):
            actor = self.to_play if seat is None else seat
            if actor is None:
                raise IllegalAction("bad-seat", "say which seat takes this action")
            return actor
        if self.to_play is None or (seat is not None and seat != self.to_play):
            raise IllegalAction("not-your-turn", "it is not your turn")
        return self.to_play

    def _dispatch(self, action: Action, seat: int) -> Action:
        kind = action.kind
        if kind == "abandon":
            self._abandon(seat)
            return action
        if kind == "stop":
            self._finish("stopped", [])
            return action
        if kind == "clock":
            self._clock()
            return action
        if kind == "end":
            self._end()
            return action
        if kind == "timeout":
            self._timeout(seat)
            return action
        if kind == "cut":
            self._expect_phase("cut", "there is nothing to cut now")
            self._cut(CUT_POINTS[action.choice])
            return action
        if kind == "rientro":
            self._expect_phase("rientro", "nobody is offered to re-enter now")
            self._rientro(seat, action.choice == "yes")
            return action
        assert kind in TURN_KINDS
        return self._turn_action(action, seat)

    def _expect_phase(self, phase: str, why: str) -> None:
        if self.phase != phase:
            raise IllegalAction(f"not-{phase}-phase", why)

    def _turn_action(self, action: Action, seat: int) -> Action:
        kind = action.kind
        if kind in ("draw", "take"):
            self._expect_phase_draw()
            applied = self._draw(seat) if kind == "draw" else self._take(action, seat)
        else:
            if self.phase == "draw":
                raise IllegalAction("draw-first", "draw from the stock or take the discard first")
            if self.phase != "play":
                raise IllegalAction("not-play-phase", "you cannot play now")
            applied = self._play_phase(action, seat)
        if kind != "discard":
            self.history.append((seat, str(applied)))
        return applied

    def _expect_phase_draw(self) -> None:
        if self.phase == "play":
            raise IllegalAction("already-drawn", "you have already drawn this turn")
        if self.phase != "draw":
            raise IllegalAction("not-draw-phase", f"answer the {self.phase} first")

    def _play_phase(self, action: Action, seat: int) -> Action:
        kind = action.kind
        if kind == "discard":
            applied = self._discard(seat, action.card)
            self.autoplays[seat] = 0  # a discard of the player's own resets the timeouts' count
            return applied
        hand = self.hands[seat]
        if kind == "open":
            if self.opened[seat]:
                raise IllegalAction("already-open", "you have already opened: use meld or attach")
            return self._commit_open(seat, self._plan_open(seat, hand, action.melds, None))
        self._require_open(seat)
        # Card notation: a plain take's card (free_discard_take) is the copy a meld uses first.
        prefer = self.taken if self.taken in hand else None
        if kind == "meld":
            return self._commit(seat, self._plan_meld(seat, hand, action.melds[0], None, prefer))
        if kind == "attach":
            plan = self._plan_attach(seat, hand, action.target, action.melds[0], None, prefer)
            return self._commit(seat, plan)
        return self._commit(seat, self._plan_swap(seat, hand, action))

    def _require_open(self, seat: int) -> None:
        if not self.opened[seat]:
            raise IllegalAction("not-open", "open first: lay melds worth at least the threshold")

    # --- Draw phase (S40-3.1) ------------------------------------------------------------------

    def _draw(self, seat: int) -> Action:
        self.drawn = self.stock.pop()
        self.hands[seat].append(self.drawn)
        self.phase = "play"
        return Action("draw")

    def _take(self, action: Action, seat: int) -> Action:
        if not self.discard:
            raise IllegalAction("discard-empty", "the discard pile is empty")
        top = self.discard[-1]
        hand = [*self.hands[seat], top]
        use = action.use
        if use is None:
            if not self.options.free_discard_take:
                raise IllegalAction(
                    "take-needs-use", "say how you use the card: take open/meld/attach …"
                )
            self._require_open(seat)
            self.discard.pop()
            self.hands[seat].append(top)
            self.taken = top
            self.phase = "play"
            return Action("take")
        if use.kind == "open":
            if self.opened[seat]:
                raise IllegalAction("already-open", "you have already opened: use meld or attach")
            plan = self._plan_open(seat, hand, use.melds, top)
            self.discard.pop()
            self.phase = "play"
            return Action("take", use=self._commit_open(seat, plan))
        if not self.opened[seat]:
            raise IllegalAction(
                "take-not-open", "before opening you may take the discard only to open with it"
            )
        if use.kind == "meld":
            plan = self._plan_meld(seat, hand, use.melds[0], top)
        else:
            plan = self._plan_attach(seat, hand, use.target, use.melds[0], top)
        self.discard.pop()
        self.phase = "play"
        return Action("take", use=self._commit(seat, plan))

    # --- Planning plays (no state change until commit) -----------------------------------------

    def _bind(
        self, hand: Sequence[int], tokens: Sequence[str], prefer: int | None
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
        self,
        seat: int,
        hand: list[int],
        melds: Sequence[Sequence[str]],
        taken: int | None,
    ) -> _Plan:
        """Validate an opening (S40-5): new melds only, at least the threshold in total."""
        remaining = list(hand)
        new: list[Meld] = []
        number = len(self.melds) + 1
        for tokens in melds:
            cards, specs = self._bind(remaining, tokens, taken)
            shape = _resolve_or_illegal(specs)
            for card in cards:
                remaining.remove(card)
            new.append(build_meld(number + len(new), seat, shape, cards))
        if taken is not None and taken in remaining:
            raise IllegalAction(
                "take-unused", "the card taken from the discard pile must be used in the opening"
            )
        self._check_threshold(new, len(remaining))
        self._check_leaves_discard(seat, remaining)
        return _Plan(remaining, new, None, [])

    def _check_threshold(self, new: Sequence[Meld], left: int) -> None:
        threshold = self.options.opening_points
        if self.options.close_in_hand_without_40 and left == 1:
            return  # S40-5.6: closing in hand needs no threshold
        total = sum(m.value for m in new)
        if total < threshold:
            raise IllegalAction(
                "opening-below-40",
                f"{total} points, {threshold} needed",
                points=total,
                needed=threshold,
            )
        if self.options.opening_without_joker and any(m.joker_index is not None for m in new):
            clean = sum(m.value for m in new if m.joker_index is None)
            if clean < threshold:
                raise IllegalAction(
                    "opening-joker",
                    f"jokers open only once joker-free melds reach {threshold} ({clean} now)",
                )

    def _plan_meld(
        self,
        seat: int,
        hand: list[int],
        tokens: Sequence[str],
        taken: int | None,
        prefer: int | None = None,
    ) -> _Plan:
        """A new meld; ``taken`` must be in it, ``prefer`` is bound first when it is named."""
        cards, specs = self._bind(hand, tokens, taken if taken is not None else prefer)
        shape = _resolve_or_illegal(specs)
        remaining = _without(hand, cards)
        if taken is not None and taken not in cards:
            raise IllegalAction("take-unused", "the card taken from the discard pile must be used")
        self._check_leaves_discard(seat, remaining)
        meld = build_meld(len(self.melds) + 1, seat, shape, cards)
        return _Plan(remaining, [meld], None, [])

    def _plan_attach(
        self,
        seat: int,
        hand: list[int],
        target: int,
        tokens: Sequence[str],
        taken: int | None,
        prefer: int | None = None,
        melds: list[Meld] | None = None,
    ) -> _Plan:
        """An attach to meld ``target``; ``taken`` must be in it, ``prefer`` is bound first."""
        table = self.melds if melds is None else melds
        if not 1 <= target <= len(table):
            raise IllegalAction("no-such-meld", f"there is no meld {target} on the table")
        old = table[target - 1]
        cards, specs = self._bind(hand, tokens, taken if taken is not None else prefer)
        if taken is not None and taken not in cards:
            raise IllegalAction("take-unused", "the card taken from the discard pile must be used")
        try:
            shape = attach_shape(old, specs)
        except InvalidMeld as error:
            raise IllegalAction(error.code, error.message) from error
        remaining = _without(hand, cards)
        self._check_leaves_discard(seat, remaining)
        meld = build_meld(old.number, old.owner, shape, [*old.cards, *cards])
        return _Plan(remaining, [], meld, cards)

    def _plan_swap(self, seat: int, hand: list[int], action: Action) -> _Plan:
        """A joker swap and the freed joker's use, as one play (S40-7)."""
        if not 1 <= action.target <= len(self.melds):
            raise IllegalAction("no-such-meld", f"there is no meld {action.target} on the table")
        if self.taken is not None and self.taken in hand:
            raise IllegalAction(
                "take-unused", "use the card taken from the discard pile before a joker swap"
            )
        face, declared = parse_spec(action.card)
        card = _pick_copy(hand, face, None) if declared is None else None
        if card is None or face == JOKER_FACE:
            raise IllegalAction("card-not-in-hand", f"you do not hold {action.card}")
        try:
            swapped, joker = swap_joker(self.melds[action.target - 1], card)
        except InvalidMeld as error:
            raise IllegalAction(error.code, error.message) from error
        hand_after = [*_without(hand, [card]), joker]
        table = list(self.melds)
        table[action.target - 1] = swapped
        use = action.use
        assert use is not None
        try:
            if use.kind == "meld":
                plan = self._plan_meld(seat, hand_after, use.melds[0], joker)
                return _Plan(plan.hand, plan.new, None, [], swapped, action)
            plan = self._plan_attach(seat, hand_after, use.target, use.melds[0], joker, melds=table)
        except IllegalAction as error:
            if error.code == "take-unused":
                raise IllegalAction(
                    "joker-unused", "the freed joker must be used this turn"
                ) from error
            raise
        return _Plan(plan.hand, [], plan.changed, plan.attached, swapped, action)

    def _check_leaves_discard(self, seat: int, remaining: Sequence[int]) -> None:
        """S40-9.2: a play may not leave the player without a legal discard."""
        if not self.leaves_discard(seat, remaining):
            raise IllegalAction(
                "no-discard-left", "that would leave you without a card you may discard"
            )

    def leaves_discard(self, seat: int, remaining: Sequence[int]) -> bool:
        """Whether a hand of ``remaining`` cards would still have a legal discard (S40-9.2)."""
        if not remaining:
            return False
        if len(remaining) == 1:
            card = remaining[0]
            if card == self.taken or self.first_round(seat):
                return False
            return FACE_INDEX[card] != JOKER_FACE or self.options.joker_close_doubles
        return any(card != self.taken for card in remaining)

    # --- Committing plays ------------------------------------------------------------------

    def _commit_open(self, seat: int, plan: _Plan) -> Action:
        self.opened[seat] = True
        self.opened_this_turn = True
        self._commit(seat, plan)
        return Action("open", melds=tuple(tuple(m.tokens()) for m in plan.new))

    def _commit(self, seat: int, plan: _Plan) -> Action:
        self.hands[seat] = plan.hand
        if self.taken is not None and self.taken not in plan.hand:
            self.taken = None
        if plan.swapped is not None:
            self.melds[plan.swapped.number - 1] = plan.swapped
        self.melds.extend(plan.new)
        if plan.changed is not None:
            self.melds[plan.changed.number - 1] = plan.changed
        if plan.new:
            used = Action("meld", melds=(tuple(plan.new[0].tokens()),))
        else:
            assert plan.changed is not None
            tokens = _attached_tokens(plan.changed, plan.attached)
            used = Action("attach", target=plan.changed.number, melds=(tokens,))
        if plan.swap is not None:
            return Action("swap", target=plan.swap.target, card=plan.swap.card, use=used)
        return used

    # --- Discard, closing, end of turn (S40-8 to S40-10) -------------------------------------

    def discard_error(
        self, seat: int, card: int, cache: dict[int, bool] | None = None
    ) -> IllegalAction | None:
        """Why ``seat`` may not discard ``card`` now, or None (S40-8, S40-9.3).

        ``cache`` may carry, across calls on one position, whether each face attaches.
        """
        hand = self.hands[seat]
        if card == self.taken:
            return IllegalAction(
                "discard-taken", "you cannot discard the card you took from the discard pile"
            )
        closing = len(hand) == 1
        if closing and self.first_round(seat):
            return IllegalAction("close-first-round", "nobody may close in the first round")
        if closing and FACE_INDEX[card] == JOKER_FACE and not self.options.joker_close_doubles:
            return IllegalAction("close-with-joker", "you cannot close by discarding a joker")
        restricted = not self.opened[seat] or (self.options.strict_discard and not closing)
        known = {} if cache is None else cache

        def attaches(c: int) -> bool:
            face = FACE_INDEX[c]
            if face not in known:
                known[face] = legal.attachable(self.melds, c)
            return known[face]

        blocked = restricted and attaches(card)
        if blocked and any(c != self.taken and not attaches(c) for c in hand):
            return IllegalAction(
                "discard-attachable",
                f"{face_text(FACE_INDEX[card])} could be attached to a meld on the table",
                card=face_text(FACE_INDEX[card]),
            )
        return None

    def _discard(self, seat: int, token: str) -> Action:
        face, _ = parse_spec(token)
        hand = self.hands[seat]
        copies = [c for c in hand if FACE_INDEX[c] == face]
        if not copies:
            raise IllegalAction("card-not-in-hand", f"you do not hold {face_text(face)}")
        copies.sort(key=lambda c: c == self.taken)  # discard the twin, not the taken copy
        error = self.discard_error(seat, copies[0])
        if error is not None:
            raise error
        card = copies[0]
        hand.remove(card)
        self.discard.append(card)
        applied = Action("discard", card=face_text(face))
        self.history.append((seat, str(applied)))
        if not hand:
            self._close_hand(seat, card)
        else:
            self._end_turn(seat)
        return applied

    def _end_turn(self, seat: int) -> None:
        self.turns_done[seat] += 1
        self.taken = None
        self.drawn = None
        self.opened_this_turn = False
        if self.clock_pending:
            self._finish_by_clock()
            return
        following = self.next_active(seat)
        if not self.stock:
            self._restock(following)
            return
        self._begin_turn(following)

    def _begin_turn(self, seat: int) -> None:
        self.phase = "draw"
        self.to_play = seat

    def _restock(self, following: int) -> None:
        """S40-10: rebuild the stock from the discard pile, or annul the stalled hand."""
        if self.restocks >= self.options.max_restocks or len(self.discard) < 3:
            self._annul_hand()
            return
        self.restocks += 1
        pile = seeded_shuffle(
            self.discard[:-1], self.seed, f"restock:{self.hand_number}:{self.restocks}"
        )
        self.discard = self.discard[-1:]
        self.stock = pile[::-1]
        self.resume_seat = following
        self.pending_cut = "restock"
        if self.options.manual_cut:
            self.phase = "cut"
            self.to_play = self.next_active(self.dealer)
            return
        self._cut(None)

    def _cut(self, sixths: int | None) -> None:
        """Cut the stock (S40-2.2, S40-10.1), then deal or go on with the turn."""
        deck = self.stock[::-1]  # top card first
        if sixths is None:
            point = 1 + seeded_choice(
                len(deck) - 1, self.seed, f"cut:{self.hand_number}:{self.restocks}"
            )
        else:
            point = len(deck) * sixths // 6
        self.stock = (deck[point:] + deck[:point])[::-1]
        if self.pending_cut == "restock":
            self.pending_cut = ""
            seat = self.resume_seat
            assert seat is not None
            self.resume_seat = None
            self._begin_turn(seat)
            return
        self.pending_cut = ""
        self._deal()

    def _deal(self) -> None:
        """S40-2.3: 13 cards each from the dealer's left, one face up, the rest the stock."""
        seats = [s for s in range(self.players) if self.active(s)]
        order = sorted(seats, key=lambda s: (s - self.dealer - 1) % self.players)
        for _ in range(HAND_SIZE):
            for seat in order:
                self.hands[seat].append(self.stock.pop())
        self.discard = [self.stock.pop()]
        self._begin_turn(order[0])

    def _close_hand(self, closer: int, card: int) -> None:
        """S40-11: score the hand closed by ``closer`` discarding ``card``; then the match goes
        on or ends."""
        joker_close = FACE_INDEX[card] == JOKER_FACE
        in_mano = self.opened_this_turn
        doubled = in_mano or (joker_close and self.options.joker_close_doubles)
        points: list[int | None] = [None] * self.players
        for seat in range(self.players):
            if self.active(seat):
                points[seat] = (
                    0
                    if seat == closer
                    else seat_hand_score(
                        self.hands[seat], self.opened[seat], doubled, self.options.ace_penalty
                    )
                )
        closing_side = self.side_of(closer)
        side_points = [0] * self.sides
        for seat, value in enumerate(points):
            if value is not None and self.side_of(seat) != closing_side:
                side_points[self.side_of(seat)] += value
        for side in range(self.sides):
            self.totals[side] += side_points[side]
        self.hands_won[closing_side] += 1
        self.counted_hands += 1
        eliminated = self._eliminate()
        self.last_hand = HandResult(
            self.hand_number,
            closer,
            False,
            in_mano,
            joker_close,
            [[face_text(FACE_INDEX[c]) for c in sorted(h, key=sort_key)] for h in self.hands],
            points,
            side_points,
            list(self.totals),
            eliminated,
            discard=face_text(FACE_INDEX[card]),
            opened=list(self.opened),
            card_points=[
                hand_penalty(self.hands[s], self.options.ace_penalty) if p is not None else None
                for s, p in enumerate(points)
            ],
            hands_won=list(self.hands_won),
        )
        self._after_hand()

    def _eliminate(self) -> list[int]:
        """S40-12.1: sides reaching the limit are out (points format only)."""
        if self.options.format != "points":
            return []
        out = []
        for side in self.active_sides():
            if self.totals[side] >= self.options.limit:
                for seat in self.seats_of(side):
                    if self.active(seat):
                        self.status[seat] = "out"
                        out.append(seat)
                self.out_order.append(side)
        return out

    def _annul_hand(self) -> None:
        """S40-10.2: a stalled hand is annulled with no points."""
        self.last_hand = HandResult(
            self.hand_number,
            None,
            True,
            side_points=[0] * self.sides,
            totals=list(self.totals),
            cards=[[] for _ in range(self.players)],
            points=[None] * self.players,
            hands_won=list(self.hands_won),
        )
        self._after_hand()

    def _after_hand(self) -> None:
        if self._match_decided():
            return
        if self.clock_pending:  # S40-12.3: the clock ran out during the closing turn
            self._finish_by_clock()
            return
        if self.options.rientro:
            self.rientro_queue = [
                s
                for s in range(self.players)
                if self.status[s] == "out" and not self.rientro_used[s]
            ]
        self._next_hand()

    def _match_decided(self) -> bool:
        fmt = self.options.format
        sides = self.active_sides()
        if fmt == "points" and len(sides) <= 1:
            self._finish("points", sides)
            return True
        if fmt == "race" and max(self.hands_won) >= RACE_WINS:
            self._finish("race", [self.hands_won.index(max(self.hands_won))])
            return True
        if fmt == "hands":
            return self._hands_decided(sides)
        return False

    def _hands_decided(self, sides: list[int]) -> bool:
        """S40-12.2: stop once nobody can catch up; a tie goes to the lowest total."""
        if len(sides) <= 1:
            self._finish("hands", sides)
            return True
        left = self.options.hands - self.counted_hands
        wins = sorted((self.hands_won[s] for s in sides), reverse=True)
        if left > 0 and wins[1] + left >= wins[0]:
            return False
        best = max(self.hands_won[s] for s in sides)
        leaders = [s for s in sides if self.hands_won[s] == best]
        lowest = min(self.totals[s] for s in leaders)
        self._finish("hands", [s for s in leaders if self.totals[s] == lowest])
        return True

    def _next_hand(self) -> None:
        """Offer rientro (S40-12.4), then move the deal to the left (S40-2.1) and deal."""
        while self.rientro_queue:
            seat = self.rientro_queue[0]
            others_in = sum(1 for s in range(self.players) if self.active(s) and s != seat)
            if self.status[seat] == "out" and not self.rientro_used[seat] and others_in >= 2:
                self.phase = "rientro"
                self.to_play = seat
                return
            self.rientro_queue.pop(0)
        self._start_hand(first=False)

    def _start_hand(self, first: bool) -> None:
        if first:
            self.dealer = seeded_choice(self.players, self.seed, "dealer")
        else:
            self.dealer = self.next_active(self.dealer)
        self.hand_number += 1
        self.restocks = 0
        self.melds = []
        self.aside = []
        self.hands = [[] for _ in range(self.players)]
        deck = seeded_shuffle(
            scala40_deck(self.options.jokers), self.seed, f"hand:{self.hand_number}"
        )
        self.stock = deck[::-1]
        self.discard = []
        self.history = []
        self.taken = None
        self.drawn = None
        self.opened = [False] * self.players
        self.opened_this_turn = False
        self.turns_done = [0] * self.players
        self.pending_cut = "deal"
        if self.options.manual_cut:
            self.phase = "cut"
            self.to_play = self.previous_active(self.dealer)
            return
        self._cut(None)

    # --- Outside the turn: rientro, abandon, timeout, clock, stop ---------------------------------

    def _rientro(self, seat: int, accept: bool) -> None:
        """S40-12.4: an eliminated player re-enters once, taking the highest score still in."""
        self.rientro_queue.pop(0)
        self.rientro_used[seat] = True
        if accept:
            self.totals[self.side_of(seat)] = max(
                self.totals[self.side_of(s)] for s in range(self.players) if self.active(s)
            )
            self.status[seat] = "in"
            self.out_order.remove(self.side_of(seat))
        self._next_hand()

    def _abandon(self, seat: int) -> None:
        """S40-14.1-2: abandoning loses the match (2 sides) or leaves it (3+ players)."""
        if not self.active(seat):
            raise IllegalAction("not-in-match", "that seat is no longer in the match")
        in_hand = hand_penalty(self.hands[seat], self.options.ace_penalty)
        side = self.side_of(seat)
        if self.options.pairs or self.players == 2:
            self._abandon_two_sides(seat, side, in_hand)
            return
        self.totals[side] += in_hand + ABANDON_PENALTY
        if self.options.format == "points":  # never better than an elimination (S40-14.2)
            self.totals[side] = max(self.totals[side], self.options.limit)
        self.status[seat] = "abandoned"
        self.out_order.append(side)
        self.aside.extend(self.hands[seat])
        self.hands[seat] = []
        self.history.append((seat, "abandon"))
        self.rientro_queue = [s for s in self.rientro_queue if s != seat]
        if len(self.active_sides()) <= 1:
            self._finish("abandon", self.active_sides())
            return
        self._continue_after_leaving(seat)

    def _continue_after_leaving(self, seat: int) -> None:
        if self.resume_seat == seat:
            self.resume_seat = self.next_active(seat)  # it was next to play after the restock
        if self.to_play != seat:
            return
        if self.phase in ("draw", "play"):
            self.taken = None
            self.opened_this_turn = False
            following = self.next_active(seat)
            if not self.stock:
                self._restock(following)
            else:
                self._begin_turn(following)
        elif self.phase == "cut":
            self.to_play = (
                self.previous_active(self.dealer)
                if self.pending_cut == "deal"
                else self.next_active(self.dealer)
            )
        elif self.phase == "rientro":
            self._next_hand()

    def _abandon_two_sides(self, seat: int, side: int, in_hand: int) -> None:
        other = 1 - side if self.options.pairs else self.next_active(seat)
        other_side = self.side_of(other)
        difference = abandon_difference(self.totals[side], in_hand, self.totals[other_side])
        mp = [0] * self.players
        vp = [0] * self.players
        for s in range(self.players):
            if self.side_of(s) == side:
                mp[s], vp[s] = -difference, VP_LOSS
            elif self.side_of(s) == other_side:
                mp[s], vp[s] = difference, VP_WIN
        self.status[seat] = "abandoned"
        self.history.append((seat, "abandon"))
        winners = self.seats_of(other_side)
        ranking = winners + [s for s in range(self.players) if s not in winners]
        self._set_result(
            MatchResult("abandon", winners, list(self.totals), mp, vp, ranking, self._abandoned())
        )

    def _timeout(self, seat: int) -> None:
        """S40-14.3: the turn timer expired; apply ``timeout_policy`` (0 seconds: no timer)."""
        if self.options.turn_seconds == 0:
            raise IllegalAction("no-timer", "this match has no turn timer")
        if self.phase == "cut":
            self._cut(CUT_POINTS["middle"])
            return
        if self.phase == "rientro":
            self._rientro(seat, False)
            return
        self.autoplays[seat] += 1
        self.history.append((seat, "timeout"))  # the public history says why the bot played
        if self.options.timeout_policy == "forfeit" or self.autoplays[seat] >= 3:
            self._abandon(seat)
            return
        if self.phase == "draw":
            self._draw(seat)
            self.history.append((seat, "draw"))
        hand = self.hands[seat]
        drawn = self.drawn if self.drawn in hand else None
        if drawn is not None and self.discard_error(seat, drawn) is None:
            choice = drawn
        else:
            choice = next(
                c for c in sorted(hand, key=sort_key) if self.discard_error(seat, c) is None
            )
        self._discard(seat, face_text(FACE_INDEX[choice]))

    def _clock(self) -> None:
        """S40-12.3: the match clock ran out; the current turn is finished first."""
        if self.options.match_minutes == 0:
            raise IllegalAction("no-clock", "this match has no clock")
        if self.phase == "play":
            self.clock_pending = True
            return
        self._finish_by_clock()

    def _end(self) -> None:
        """S40-14.4: no person is left at the table (only computers play on): the match ends
        now, decided among those still in as when the clock runs out (S40-12.3); who left
        keeps the loss of their abandonment."""
        if self.phase == "over":
            raise IllegalAction("match-over", "the match is over")
        self._finish_by_clock("abandon")

    def _finish_by_clock(self, reason: str = "clock") -> None:
        sides = self.active_sides()
        best = max(self.hands_won[s] for s in sides)
        leaders = [s for s in sides if self.hands_won[s] == best]
        in_hand = {
            s: sum(hand_penalty(self.hands[p], self.options.ace_penalty) for p in self.seats_of(s))
            for s in leaders
        }
        lowest = min(in_hand.values())
        self._finish(reason, [s for s in leaders if in_hand[s] == lowest])

    def _finish(self, reason: str, winning_sides: list[int]) -> None:
        """End the match: MP from the totals (S40-13.1), VP win 20, draw 10, loss 0."""
        if self.options.format == "points":
            side_mp = match_points(self.totals)
        else:  # decided by hands won: the losers' totals go to those ranked above them
            side_mp = ranked_match_points(self.totals, self._side_ranks(winning_sides))
        winners = [s for s in range(self.players) if self.side_of(s) in winning_sides]
        draw = len(winning_sides) > 1
        mp = (
            [0] * self.players
            if reason == "stopped"
            else [side_mp[self.side_of(s)] for s in range(self.players)]
        )
        vp = [
            (VP_DRAW if draw else VP_WIN) if s in winners else VP_LOSS for s in range(self.players)
        ]
        if reason == "stopped":
            vp = [0] * self.players
        ranking = self._ranking(winning_sides)
        self._set_result(
            MatchResult(reason, winners, list(self.totals), mp, vp, ranking, self._abandoned())
        )

    def _abandoned(self) -> list[int]:
        """Seats that abandoned, in seat order."""
        return [s for s in range(self.players) if self.status[s] == "abandoned"]

    def _ranking(self, winning_sides: list[int]) -> list[int]:
        """Seats best first: winners, then sides still in (by hands won where they decide,
        then by total), then the last out first."""
        ranks = self._side_ranks(winning_sides)
        order = sorted(range(self.sides), key=lambda side: (ranks[side], side))
        return [seat for side in order for seat in self.seats_of(side)]

    def _side_ranks(self, winning_sides: list[int]) -> list[int]:
        """Each side's place at the end, 0 for the winners; equal standing, equal place."""
        in_sides = self.active_sides()
        by_hands = self.options.format != "points"

        def standing(side: int) -> tuple[int, int, int]:
            if side in winning_sides:
                return (0, 0, 0)
            if side in in_sides:
                return (1, -self.hands_won[side] if by_hands else 0, self.totals[side])
            gone = self.out_order[::-1]  # the last out ranks first
            return (2, gone.index(side) if side in gone else len(gone), 0)

        keys = [standing(side) for side in range(self.sides)]
        places = sorted(set(keys))
        return [places.index(key) for key in keys]

    def _set_result(self, result: MatchResult) -> None:
        self.result = result
        self.phase = "over"
        self.to_play = None
        self.clock_pending = False

    # --- Serialisation -------------------------------------------------------------------------

    def to_json(self) -> str:
        """The whole state as JSON (with ``format``); :meth:`from_json` restores it exactly."""
        return json.dumps(self._state(), separators=(",", ":"), sort_keys=True)

    def _state(self) -> dict[str, Any]:
        state: dict[str, Any] = {name: getattr(self, name) for name in _PLAIN_STATE}
        state.update(
            game="scala40",
            format=FORMAT_VERSION,
            players=self.players,
            seed=self.seed,
            options=self.options.to_dict(),
            melds=[_meld_state(m) for m in self.melds],
            history=[list(h) for h in self.history],
            last_hand=None if self.last_hand is None else self.last_hand.to_dict(),
            result=None if self.result is None else self.result.to_dict(),
        )
        return state

    @classmethod
    def from_json(cls, text: str) -> Match:
        """Restore a match saved with :meth:`to_json`; :class:`SnapshotError` if it cannot be."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as error:
            raise SnapshotError("snapshot-unreadable", f"not a saved match: {error}") from error
        if not isinstance(data, dict) or data.get("game") != "scala40":
            raise SnapshotError("snapshot-wrong-game", "not a saved Scala 40 match")
        version = data.get("format")
        if not isinstance(version, int):
            raise SnapshotError("snapshot-corrupt", "saved match has no format version")
        if version > FORMAT_VERSION:
            raise SnapshotError(
                "snapshot-too-new",
                f"saved with format {version}, this engine reads up to {FORMAT_VERSION}",
            )
        try:
            return cls._from_state(data)
        except (KeyError, TypeError, ValueError) as error:
            raise SnapshotError("snapshot-corrupt", f"saved match is damaged: {error!r}") from error

    @classmethod
    def _from_state(cls, data: dict[str, Any]) -> Match:
        match = cls(data["players"], data["seed"], Options.from_dict(data["options"]))
        plain = _PLAIN_STATE
        for name in plain:
            setattr(match, name, data[name])
        match.melds = [
            Meld(**{**m, "cards": tuple(m["cards"]), "stands": tuple(m["stands"])})
            for m in data["melds"]
        ]
        match.history = [(int(s), str(t)) for s, t in data["history"]]
        match.last_hand = (
            None if data["last_hand"] is None else HandResult.from_dict(data["last_hand"])
        )
        match.result = None if data["result"] is None else MatchResult.from_dict(data["result"])
        return match


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


def _pick_copy(cards: Sequence[int], face: int, prefer: int | None) -> int | None:
    if prefer is not None and prefer in cards and FACE_INDEX[prefer] == face:
        return prefer
    return next((c for c in cards if FACE_INDEX[c] == face), None)


def _without(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    remaining = list(hand)
    for card in cards:
        remaining.remove(card)
    return remaining


def _resolve_or_illegal(specs: Sequence[Spec]) -> Any:
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


def _meld_state(meld: Meld) -> dict[str, Any]:
    return {
        "number": meld.number,
        "owner": meld.owner,
        "kind": meld.kind,
        "key": meld.key,
        "low": meld.low,
        "cards": list(meld.cards),
        "stands": list(meld.stands),
    }


def new_match(players: int = 2, seed: int | None = None, options: Options | None = None) -> Match:
    """A new Scala 40 match, dealt and ready (or waiting for the manual cut).

    ``seed`` defaults to a fresh secure seed (docs/rules.md S40-2.2); tests pass their own.
    """
    match = Match(players, secure_seed() if seed is None else seed, options or Options())
    match._start_hand(first=True)
    return match


__all__ = ["FACES", "Match", "new_match", "sort_key"]
