"""What a Scala 40 seat reads of the cards it may see, for the computer players
(:mod:`engine.ai.scala40`, docs/ai.md).

Cards are faces here (0-51, or ``JOKER_FACE``; see :mod:`engine.cards`). From the seat's hand:
how many potential melds each card belongs to (``usefulness``, ``esperto_usefulness``). From
the public history of its view: what each player took, discarded and refused (``History``), how
much a discard may feed the next player (``danger``), the discard pile as far as it is known
(``known_pile``) and the copies of each face the seat has not seen (``unseen_faces``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.cards import JOKER_FACE
from engine.scala40.dealing import HAND_SIZE
from engine.scala40.melds import parse_spec
from engine.scala40.view import View

JOKER_USEFULNESS = 100.0
"""A joker's ``usefulness``: more than any natural card's."""
RUN_WEIGHT = 1.5
GAP_WEIGHT = 0.5
TWIN_DISCOUNT = 0.5
"""``esperto_usefulness``'s weights: see there."""
RECENT_TURNS = 2
"""How many of a player's last turns count as recent (``History.recent_discarded``)."""


# --- Card arithmetic on faces ---------------------------------------------------------------


def token_face(token: str) -> int:
    """The face (0-51, or ``JOKER_FACE``) of a card token: ``7H``, ``JK``, or ``JK=7H``."""
    return parse_spec(token)[0]


def penalty_points(face: int) -> int:
    """Penalty points of a face (S40-11.2, an ace counted 11)."""
    if face == JOKER_FACE:
        return 25
    rank = face % 13 + 1
    return 11 if rank == 1 else min(rank, 10)


def run_gap(a: int, b: int) -> int:
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
        near = sum(1 for g in naturals if run_gap(face, g) <= 2)
        out[face] = float(same_rank + near)
    if JOKER_FACE in hand:
        out[JOKER_FACE] = JOKER_USEFULNESS
    return out


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
            gap = run_gap(face, other)
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


def shift_face(face: int, ranks: int) -> int | None:
    """The face ``ranks`` away in the same suit (a king's +1 is the ace), None past the ends.

    An ace only looks upwards (A 2 3), as the weights were fitted with it.
    """
    rank = face % 13 + 1
    target = rank + ranks
    if (rank == 1 and ranks < 0) or not 1 <= target <= 14:
        return None
    return face // 13 * 13 + (target - 1) % 13


def other_suit_faces(face: int) -> list[int]:
    """The faces of ``face``'s rank in the three other suits."""
    return [suit * 13 + face % 13 for suit in range(4) if suit != face // 13]


def face_copies(face: int) -> tuple[int, ...]:
    """The physical ids of a face's copies: two of a natural face, four of the joker."""
    return (52, 53, 106, 107) if face == JOKER_FACE else (face, face + 54)


# --- What the public history tells ------------------------------------------------------------


class History:
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


def danger(face: int, view: View, history: History, melds_attach: bool) -> float:
    """How much the next player may use ``face`` if ``view.seat`` discards it (0 = safe)."""
    seat = view.seat
    following = next_seat_in(view, seat)
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
        if run_gap(face, taken) <= 2:
            score += 1.0
    for gone in history.discarded[following] + history.refused[following]:
        if gone == face:
            score -= 0.5
        elif gone % 13 == face % 13 or run_gap(face, gone) <= 1:
            score -= 0.25
    return score


def next_seat_in(view: View, seat: int) -> int | None:
    """The next seat still in after ``seat`` (the player a discard may feed), or None."""
    for step in range(1, view.players):
        other = (seat + step) % view.players
        if view.status[other] == "in":
            return other
    return None


# --- The cards the seat has not seen ----------------------------------------------------------


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
