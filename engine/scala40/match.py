"""The Scala 40 match: the state machine of hands and turns (docs/rules.md S40-2 to S40-14).

:class:`Match` is the whole contract: ``to_play``, ``legal_actions()``, ``play()``, ``view()``,
``result``, ``to_json()`` / ``from_json()``. Every change of state is an action played through
:meth:`Match.play`, so a match replays exactly from its seed, options and log of actions.
A rejected action raises :class:`IllegalAction` before anything is changed.

Here are the seats, the dispatch of actions and the flow of turns and hands; the match's parts
have modules of their own: the deal and the stock (:mod:`~engine.scala40.dealing`), the plays
that lay cards and the discard's checks (:mod:`~engine.scala40.plans`), the end of a hand and of
the match (:mod:`~engine.scala40.ending`), and saving (:mod:`~engine.scala40.snapshot`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import FACE_INDEX, scala40_sort_key, secure_seed
from engine.errors import IllegalAction
from engine.outcome import Outcome
from engine.scala40 import dealing, ending, legal, plans, snapshot
from engine.scala40.actions import TURN_KINDS, Action, parse_action
from engine.scala40.dealing import CUT_POINTS
from engine.scala40.melds import Meld, face_text, parse_spec
from engine.scala40.options import Options
from engine.scala40.results import HandResult, MatchResult
from engine.scala40.scoring import ABANDON_PENALTY, hand_penalty
from engine.scala40.view import View, build_view


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
        return tuple(ending.abandoned_seats(self))

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
            ending.finish(self, "stopped", [])
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
            dealing.cut(self, CUT_POINTS[action.choice])
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
            applied = self._draw(seat) if kind == "draw" else plans.take(self, action, seat)
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
        if action.kind == "discard":
            applied = self._discard(seat, action.card)
            self.autoplays[seat] = 0  # a discard of the player's own resets the timeouts' count
            return applied
        return plans.lay(self, seat, action)

    # --- Draw phase (S40-3.1) ------------------------------------------------------------------

    def _draw(self, seat: int) -> Action:
        self.drawn = self.stock.pop()
        self.hands[seat].append(self.drawn)
        self.phase = "play"
        return Action("draw")

    # --- Discard, the end of the turn and of the hand (S40-8 to S40-12) ------------------------

    def leaves_discard(self, seat: int, remaining: Sequence[int]) -> bool:
        """Whether a hand of ``remaining`` cards would still have a legal discard (S40-9.2)."""
        return plans.leaves_discard(self, seat, remaining)

    def discard_error(
        self, seat: int, card: int, cache: dict[int, bool] | None = None
    ) -> IllegalAction | None:
        """Why ``seat`` may not discard ``card`` now, or None (S40-8, S40-9.3).

        ``cache`` may carry, across calls on one position, whether each face attaches.
        """
        return plans.discard_error(self, seat, card, cache)

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
            ending.score_closed_hand(self, seat, card)
            self._after_hand()
        else:
            self._end_turn(seat)
        return applied

    def _end_turn(self, seat: int) -> None:
        self.turns_done[seat] += 1
        self.taken = None
        self.drawn = None
        self.opened_this_turn = False
        if self.clock_pending:
            ending.finish_by_clock(self)
            return
        following = self.next_active(seat)
        if not self.stock:
            self._restock(following)
            return
        dealing.begin_turn(self, following)

    def _restock(self, following: int) -> None:
        """S40-10: rebuild the stock from the discard pile, or annul the stalled hand."""
        if not dealing.restock(self, following):
            ending.annul_hand(self)
            self._after_hand()

    def _after_hand(self) -> None:
        if ending.match_decided(self):
            return
        if self.clock_pending:  # S40-12.3: the clock ran out during the closing turn
            ending.finish_by_clock(self)
            return
        if self.options.rientro:
            self.rientro_queue = [
                s
                for s in range(self.players)
                if self.status[s] == "out" and not self.rientro_used[s]
            ]
        self._next_hand()

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
        dealing.start_hand(self, first=False)

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
            ending.abandon_two_sides(self, seat, side, in_hand)
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
            ending.finish(self, "abandon", self.active_sides())
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
                dealing.begin_turn(self, following)
        elif self.phase == "cut":
            self.to_play = (
                self.previous_active(self.dealer)
                if self.pending_cut == "deal"
                else self.next_active(self.dealer)
            )
        elif self.phase == "rientro":
            self._next_hand()

    def _timeout(self, seat: int) -> None:
        """S40-14.3: the turn timer expired; apply ``timeout_policy`` (0 seconds: no timer)."""
        if self.options.turn_seconds == 0:
            raise IllegalAction("no-timer", "this match has no turn timer")
        if self.phase == "cut":
            dealing.cut(self, CUT_POINTS["middle"])
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
                c for c in sorted(hand, key=scala40_sort_key) if self.discard_error(seat, c) is None
            )
        self._discard(seat, face_text(FACE_INDEX[choice]))

    def _clock(self) -> None:
        """S40-12.3: the match clock ran out; the current turn is finished first."""
        if self.options.match_minutes == 0:
            raise IllegalAction("no-clock", "this match has no clock")
        if self.phase == "play":
            self.clock_pending = True
            return
        ending.finish_by_clock(self)

    def _end(self) -> None:
        """S40-14.5: no person is left at the table (only computers play on): the match ends
        now, decided among those still in as when the clock runs out (S40-12.3); who left
        keeps the loss of their abandonment."""
        if self.phase == "over":
            raise IllegalAction("match-over", "the match is over")
        ending.finish_by_clock(self, "abandon")

    # --- Serialisation (engine/scala40/snapshot.py) ---------------------------------------------

    def to_json(self) -> str:
        """The whole state as JSON (with ``format``); :meth:`from_json` restores it exactly."""
        return snapshot.dump(self)

    @classmethod
    def from_json(cls, text: str) -> Match:
        """Restore a match saved with :meth:`to_json`; :class:`SnapshotError` if it cannot be."""
        return snapshot.load(text, cls)


def new_match(players: int = 2, seed: int | None = None, options: Options | None = None) -> Match:
    """A new Scala 40 match, dealt and ready (or waiting for the manual cut).

    ``seed`` defaults to a fresh secure seed (docs/rules.md S40-2.2); tests pass their own.
    """
    match = Match(players, secure_seed() if seed is None else seed, options or Options())
    dealing.start_hand(match, first=True)
    return match


__all__ = ["Match", "new_match"]
