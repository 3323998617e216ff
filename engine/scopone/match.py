"""The Scopone match: turns, captures, scope, hands and the match's end (docs/rules.md SC-2..SC-6).

>>> m = new_match(seed=3)
>>> len(m.legal_actions()) > 0, m.hand_number, m.is_over
(True, 1, False)
"""

from __future__ import annotations

from engine.actions import ABANDON, END, STOP, TIMEOUT
from engine.cards import Card, secure_seed, seeded_choice
from engine.errors import IllegalAction
from engine.outcome import ABANDONED, FINISHED, STOPPED, Outcome
from engine.scopone.actions import PLAY, Action, parse_action
from engine.scopone.captures import Capture, table_captures
from engine.scopone.deck import capture_value
from engine.scopone.facile import facile_from_view
from engine.scopone.options import Options
from engine.scopone.result import MatchResult, match_result
from engine.scopone.scoring import HandScore, score_hand
from engine.scopone.snapshot import dump, load
from engine.scopone.state import PLAYERS, MatchState, PlayRecord, deal, next_seat, opening_state
from engine.scopone.view import View

SEVEN = 7
"""The rank of the sevens, counted per side during a hand (the primiera's best cards, SC-4.3)."""

AUTOPLAY_LIMIT = 3
"""The third consecutive autoplay of a seat counts as abandonment (S40-14.3)."""


class Match:
    """A Scopone match: the one state object. Build it with :func:`new_match` or :meth:`from_json`.

    ``play()`` applies an action or raises :class:`~engine.errors.IllegalAction` and changes
    nothing; ``legal_actions()`` lists the plays of the seat to play.
    """

    players = PLAYERS

    def __init__(self, seed: int, options: Options, state: MatchState) -> None:
        self.seed = seed
        self.options = options
        self._state = state
        self._captures: dict[int, list[Capture]] | None = None
        self._legal: list[Action] | None = None

    # --- reading the state ----------------------------------------------------------------

    @property
    def to_play(self) -> int | None:
        """The seat whose turn it is; None once the match is over."""
        return self._state.to_play

    @property
    def is_over(self) -> bool:
        """Whether the match ended (a side won, SC-5.2, or it was stopped)."""
        return self._state.over

    @property
    def phase(self) -> str:
        """``"playing"``, ``"over"`` or ``"stopped"``."""
        if self._state.stopped:
            return "stopped"
        return "over" if self._state.over else "playing"

    @property
    def hand_number(self) -> int:
        """The current hand, from 1."""
        return self._state.hand_number

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return self._state.dealer

    @property
    def scores(self) -> tuple[int, ...]:
        """Points per side."""
        return tuple(self._state.scores)

    @property
    def last_hand(self) -> HandScore | None:
        """The last finished hand's score breakdown, or None before the first hand ends."""
        return self._state.last_hand

    @property
    def table(self) -> tuple[Card, ...]:
        """The cards on the table, in the order they were laid."""
        return tuple(self._state.table)

    @property
    def history(self) -> tuple[PlayRecord, ...]:
        """The plays of the current hand, in order."""
        return tuple(self._state.history)

    @property
    def computer_seats(self) -> tuple[int, ...]:
        """Seats played by the computer since their player abandoned (SC-6.2)."""
        return tuple(sorted(self._state.abandoned))

    @property
    def abandoned_seats(self) -> tuple[int, ...]:
        """Seats whose player abandoned (SC-6.2), by choice or by their turn timer."""
        return tuple(sorted(self._state.abandoned))

    @property
    def sides(self) -> int:
        """How many sides score: 2 pairs, or 4 with ``individual`` (SC-1.1)."""
        return self.options.sides

    def side_of(self, seat: int) -> int:
        """The side of a seat: partners 0+2 and 1+3 face each other (SC-1.1)."""
        return seat if self.options.individual else seat % 2

    def hand(self, seat: int) -> tuple[Card, ...]:
        """A seat's hand, in canonical order (not for showing to other seats)."""
        return tuple(self._state.hands[seat])

    # --- legal actions ----------------------------------------------------------------------

    def _table_captures(self) -> dict[int, list[Capture]]:
        if self._captures is None:
            self._captures = table_captures(self._state.table)
        return self._captures

    def legal_actions(self) -> list[Action]:
        """The plays of the seat to play (SC-3): each card, with each capture it may make.

        ``abandon``, ``timeout`` and ``stop`` are not listed: they are outside the turn.
        Empty only once the match is over.
        """
        if self._legal is None:
            seat = self._state.to_play
            hand = [] if seat is None else self._state.hands[seat]
            captures = self._table_captures()
            self._legal = [
                Action(PLAY, card, option)
                for card in hand
                for option in captures.get(capture_value(card), [()])
            ]
        return list(self._legal)

    def _resolve(self, seat: int, action: Action) -> Action:
        """The canonical play for ``action``, or IllegalAction (SC-3.3, SC-3.4, SC-4.6)."""
        card = action.card
        assert card is not None
        if card not in self._state.hands[seat]:
            raise IllegalAction("card-not-in-hand", f"{card} is not in seat {seat}'s hand")
        options = self._table_captures().get(capture_value(card), [])
        if action.take:
            self._check_take(card, action.take, options)
            return action
        if len(options) > 1:
            choices = " or ".join(str(Action(PLAY, card, option)) for option in options)
            raise IllegalAction(
                "capture-ambiguous", f"{card} can capture in several ways: {choices}"
            )
        return Action(PLAY, card, options[0]) if options else action

    def _check_take(self, card: Card, take: tuple[Card, ...], options: list[Capture]) -> None:
        missing = [str(c) for c in take if c not in self._state.table]
        if missing:
            raise IllegalAction("card-not-on-table", f"{' '.join(missing)} not on the table")
        total = sum(capture_value(c) for c in take)
        if total != capture_value(card):
            raise IllegalAction(
                "capture-wrong-sum",
                f"{card} is worth {capture_value(card)}, the cards taken add up to {total}",
            )
        if len(take) != len(options[0]):
            raise IllegalAction(
                "capture-not-fewest",
                f"must take {len(options[0])} cards, not {len(take)}",
                needed=len(options[0]),
                given=len(take),
            )

    # --- actions ------------------------------------------------------------------------------

    def play(self, action: Action | str, seat: int | None = None) -> Action:
        """Apply an action for ``seat`` (default: the seat to play); return the canonical action.

        Turn actions (a play, ``timeout``) need the seat to play; ``abandon`` and ``stop`` may
        come from any seat at any time. Raises IllegalAction and changes nothing when illegal.
        """
        act = parse_action(action)
        state = self._state
        if state.over or state.to_play is None:
            raise IllegalAction("match-over", "the match is over")
        if seat is not None and (not _is_int(seat) or not 0 <= seat < PLAYERS):
            raise IllegalAction("bad-seat", f"no seat {seat!r}")
        actor = state.to_play if seat is None else seat
        if act.kind == STOP:
            self._finish(stopped=True)
        elif act.kind == END:  # SC-6.4: no person is left, the match counts as it stands
            self._finish(stopped=False)
        elif act.kind == ABANDON:
            self._abandon(actor)
        elif actor != state.to_play:
            raise IllegalAction("not-your-turn", f"seat {state.to_play} is to play, not {actor}")
        elif act.kind == TIMEOUT:
            self._timeout(actor)
        else:
            act = self._resolve(actor, act)
            self._apply(actor, act, auto=False)
        return act

    def _abandon(self, seat: int) -> None:
        """SC-6.2: the seat passes to the computer; its side loses for the rankings."""
        if seat in self._state.abandoned:
            raise IllegalAction("already-abandoned", f"seat {seat} has already abandoned")
        self._state.abandoned.append(seat)

    def _timeout(self, seat: int) -> None:
        """SC-6.1, S40-14.3: the ``facile`` computer move is played; forfeit or a third autoplay
        is an abandonment."""
        if self.options.turn_seconds == 0:
            raise IllegalAction("no-timer", "this match has no turn timer")
        move = facile_from_view(self.view(seat), self.legal_actions(), self.options.last_play_scopa)
        if seat not in self._state.abandoned:
            self._state.timeouts[seat] += 1
            forfeit = self.options.timeout_policy == "forfeit"
            if forfeit or self._state.timeouts[seat] >= AUTOPLAY_LIMIT:
                self._abandon(seat)
        self._apply(seat, move, auto=True)

    def _apply(self, seat: int, move: Action, auto: bool) -> None:
        """Play a resolved, legal move (SC-3) and pass the turn or end the hand."""
        state = self._state
        card = move.card
        assert card is not None
        state.hands[seat].remove(card)
        scopa = False
        if move.take:
            side = self.side_of(seat)
            state.table = [c for c in state.table if c not in move.take]
            state.piles[side].extend((*move.take, card))
            state.last_capturer = seat
            last_play = not any(state.hands)
            scopa = not state.table and (not last_play or self.options.last_play_scopa)
            state.scope[side] += int(scopa)
        else:
            state.table.append(card)
        state.history.append(PlayRecord(seat, move, scopa, auto))
        if not auto:
            state.timeouts[seat] = 0
        self._captures = self._legal = None
        if any(state.hands):
            state.to_play = next_seat(seat)
        else:
            self._end_hand()

    def _end_hand(self) -> None:
        """SC-3.6 leftover to the last capturer, SC-4 scoring, SC-5.2 the match's end."""
        state = self._state
        leftover = tuple(state.table)
        if state.last_capturer is not None:
            state.piles[self.side_of(state.last_capturer)].extend(leftover)
            state.table = []
        score = score_hand(
            state.hand_number, state.piles, state.scope, state.last_capturer, leftover,
            self.options.primiera_all_suits,
        )  # fmt: skip
        state.last_hand = score
        state.scores = [
            total + gained for total, gained in zip(state.scores, score.totals, strict=True)
        ]
        best = max(state.scores)
        if best >= self.options.target and state.scores.count(best) == 1:
            self._finish(stopped=False)
        else:
            self._next_hand()

    def _next_hand(self) -> None:
        """SC-2.1: the dealer moves one seat to the right; a new deck is dealt from the seed."""
        state = self._state
        state.hand_number += 1
        state.dealer = next_seat(state.dealer)
        state.hands, state.table = deal(
            self.seed, state.hand_number, state.dealer, self.options.deal
        )
        state.to_play = next_seat(state.dealer)
        state.piles = [[] for _ in state.piles]
        state.scope = [0] * len(state.scope)
        state.last_capturer = None
        state.history = []

    def _finish(self, stopped: bool) -> None:
        self._state.over = True
        self._state.stopped = stopped
        self._state.to_play = None
        self._captures = self._legal = None

    # --- results, views, snapshots ---------------------------------------------------------------

    @property
    def result(self) -> MatchResult | None:
        """None while the match runs; then winners, MP and VP (SC-5, SC-6.2, SC-6.3)."""
        state = self._state
        if not state.over:
            return None
        sides = [self.side_of(seat) for seat in range(PLAYERS)]
        return match_result(state.scores, sides, state.abandoned, state.stopped, state.hand_number)

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, in the shape every game shares (None while it goes on); hands
        are not counted per side in Scopone."""
        result = self.result
        if result is None:
            return None
        none = (0,) * PLAYERS
        why = STOPPED if result.stopped else ABANDONED if result.forfeited else FINISHED
        return Outcome(result.winner_seats, result.mp, result.vp, result.stopped, none, why)

    def view(self, seat: int) -> View:
        """What ``seat`` may see: its own hand and everything public (SC-5.3)."""
        if not 0 <= seat < PLAYERS:
            raise ValueError(f"no seat {seat}")
        state = self._state
        return View(
            seat=seat,
            phase=self.phase,
            to_play=state.to_play,
            hand=tuple(state.hands[seat]),
            table=tuple(state.table),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            captured=tuple(len(pile) for pile in state.piles),
            scope=tuple(state.scope),
            denari=tuple(sum(card.suit == "D" for card in pile) for pile in state.piles),
            sevens=tuple(sum(card.rank == SEVEN for card in pile) for pile in state.piles),
            dealer=state.dealer,
            hand_number=state.hand_number,
            scores=tuple(state.scores),
            target=self.options.target,
            sides=tuple(self.side_of(s) for s in range(PLAYERS)),
            computer=self.computer_seats,
            last_capturer=state.last_capturer,
            history=tuple(state.history),
            legal_actions=tuple(self.legal_actions()) if seat == state.to_play else (),
            last_hand=state.last_hand,
            result=self.result,
        )

    def to_json(self) -> str:
        """The whole match as JSON text: game, format, seed, options and state."""
        return dump(self.seed, self.options, self._state)

    @classmethod
    def from_json(cls, text: str) -> Match:
        """Restore a match saved by :meth:`to_json`; SnapshotError when malformed or too new."""
        seed, options, state = load(text)
        return cls(seed, options, state)

    def __repr__(self) -> str:
        return f"<Match scopone seed={self.seed} hand={self.hand_number} to_play={self.to_play}>"


def new_match(players: int = 4, seed: int | None = None, options: Options | None = None) -> Match:
    """A new match: the first dealer drawn from the seed, hand 1 dealt (SC-2).

    ``seed`` None draws a secure random seed (S40-2.2); tests pass their own.
    """
    if players != PLAYERS:
        raise ValueError(f"Scopone is for exactly 4 players, not {players}")
    chosen = options if options is not None else Options()
    match_seed = secure_seed() if seed is None else seed
    dealer = seeded_choice(PLAYERS, match_seed, "dealer")
    return Match(match_seed, chosen, opening_state(match_seed, dealer, chosen.sides, chosen.deal))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
