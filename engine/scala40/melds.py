"""Melds (docs/rules.md S40-4, S40-5.1): runs and sets, jokers, values, attaching and joker swaps.

Cards here are *specs*: ``(face, declared)`` where ``face`` is a face index (0-51, 52 = joker,
see :mod:`engine.cards`) and ``declared`` the face a joker was declared to stand for (or None).
A run's cards sit at *positions*: 1 is the low ace, 2-13 the ranks, 14 the high ace; the joker
that completes the 14-card run ``A..K`` (S40-4.1) sits at 0 or 14 and stands for no card.

The melds a whole hand can make are listed by :mod:`engine.scala40.candidates`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise, product

from engine.cards import FACE_INDEX, FACES, JOKER_FACE, SUITS, parse_card
from engine.errors import InvalidMeld

Spec = tuple[int, int | None]
"""A card of a meld: its face index and, for a joker, the declared face (or None)."""

WILD = -1
"""``stands`` value of the 14th-card joker, which stands for no natural card (S40-4.1)."""

POSITION_VALUE = (11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)
"""Meld value of the card at each run position (S40-5.1); 0 is the 14th joker, worth 11."""


def rank_of(face: int) -> int:
    """Rank (1-13) of a natural face index."""
    return face % 13 + 1


def suit_of(face: int) -> int:
    """Suit index (0-3, ``SHDC``) of a natural face index."""
    return face // 13


def set_card_value(rank: int) -> int:
    """Value of one card of a set: ace 11, J Q K 10, others face value (S40-5.1)."""
    return 11 if rank == 1 else min(rank, 10)


def face_at(suit: int, position: int) -> int:
    """The face index standing at a run position of a suit."""
    return suit * 13 + (0 if position == 14 else position - 1)


def positions_of(rank: int) -> tuple[int, ...]:
    """Run positions a rank may take: the ace is low (1) or high (14)."""
    return (1, 14) if rank == 1 else (rank,)


def face_text(face: int) -> str:
    """Notation of a face index."""
    return "JK" if face == JOKER_FACE else str(FACES[face])


def parse_spec(token: str) -> Spec:
    """Parse one meld token: a card, ``JK``, or ``JK=7H`` (a joker declared as 7H)."""
    text = token.strip()
    if "=" in text:
        left, right = text.split("=", 1)
        if not parse_card(left).is_joker:
            raise ValueError(f"bad card {token!r}: only a joker takes a declaration (JK=7H)")
        declared = parse_card(right)
        if declared.is_joker:
            raise ValueError(f"bad card {token!r}: a joker cannot stand for a joker")
        return JOKER_FACE, SUITS.index(declared.suit) * 13 + declared.rank - 1
    card = parse_card(text)
    return (JOKER_FACE if card.is_joker else SUITS.index(card.suit) * 13 + card.rank - 1), None


def parse_specs(text: str | Sequence[str]) -> list[Spec]:
    """Parse meld tokens from text or a token list."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_spec(token) for token in tokens]


@dataclass(frozen=True, slots=True)
class Shape:
    """A resolved meld, independent of physical copies.

    ``order`` lists the indices of the input specs in table order; ``stands`` gives, in table
    order, the face each card stands for (a joker's meaning, ``WILD`` for the 14th joker).
    For a run ``key`` is the suit and ``low`` the position of the first card; for a set ``key``
    is the rank and ``low`` is 0.
    """

    kind: str
    key: int
    low: int
    order: tuple[int, ...]
    stands: tuple[int, ...]

    @property
    def value(self) -> int:
        """Meld value (S40-5.1)."""
        if self.kind == "set":
            return set_card_value(self.key) * len(self.order)
        return sum(POSITION_VALUE[p] for p in range(self.low, self.low + len(self.order)))


def resolve(specs: Sequence[Spec]) -> Shape:
    """Resolve cards into a valid meld, or raise :class:`InvalidMeld` saying why (S40-4).

    A joker stands for what its position implies (``JK 8H 9H`` is 7H 8H 9H) or what it was
    declared as; a set's joker must be declared unless only one suit is missing.
    """
    if len(specs) < 3:
        raise InvalidMeld("too-few-cards", "a meld needs at least 3 cards")
    jokers = [i for i, (face, _) in enumerate(specs) if face == JOKER_FACE]
    if len(jokers) > 1:
        raise InvalidMeld("too-many-jokers", "a meld may hold at most one joker")
    naturals = [face for face, _ in specs if face != JOKER_FACE]
    ranks = {rank_of(f) for f in naturals}
    suits = {suit_of(f) for f in naturals}
    if len(ranks) == 1 and len(suits) > 1:
        return _resolve_set(specs, jokers[0] if jokers else None)
    if len(suits) == 1:
        return _resolve_run(specs, jokers[0] if jokers else None)
    raise InvalidMeld("not-a-meld", "the cards are neither a run of one suit nor a set of one rank")


def _resolve_set(specs: Sequence[Spec], joker: int | None) -> Shape:
    if len(specs) > 4:
        raise InvalidMeld("set-too-many", "a set has at most 4 cards")
    rank = rank_of(next(face for face, _ in specs if face != JOKER_FACE))
    natural_suits = [suit_of(face) for face, _ in specs if face != JOKER_FACE]
    if len(set(natural_suits)) != len(natural_suits):
        raise InvalidMeld("set-duplicate-suit", "the cards of a set must all be of different suits")
    stands_by_index = {i: face for i, (face, _) in enumerate(specs) if face != JOKER_FACE}
    if joker is not None:
        stands_by_index[joker] = _set_joker_face(rank, natural_suits, specs[joker][1])
    order = tuple(sorted(stands_by_index, key=lambda i: stands_by_index[i]))
    return Shape("set", rank, 0, order, tuple(stands_by_index[i] for i in order))


def _set_joker_face(rank: int, taken_suits: Sequence[int], declared: int | None) -> int:
    missing = [s for s in range(4) if s not in taken_suits]
    if declared is None:
        if len(missing) == 1:
            return missing[0] * 13 + rank - 1
        example = face_text(missing[0] * 13 + rank - 1)
        raise InvalidMeld(
            "joker-undeclared", f"declare the suit the joker stands for, e.g. JK={example}"
        )
    if rank_of(declared) != rank or suit_of(declared) not in missing:
        raise InvalidMeld(
            "joker-declaration-invalid",
            f"the joker cannot stand for {face_text(declared)} in this set",
        )
    return declared


def _run_candidates(specs: Sequence[Spec], joker: int | None) -> Iterator[tuple[int, ...]]:
    """Every assignment of positions to the specs that makes a valid run."""
    options: list[Sequence[int]] = []
    for face, declared in specs:
        if face != JOKER_FACE:
            options.append(positions_of(rank_of(face)))
        elif declared is not None:
            options.append(positions_of(rank_of(declared)))
        else:
            options.append(range(15))
    for positions in product(*options):
        if valid_run_positions(positions, joker):
            yield positions


def valid_run_positions(positions: Sequence[int], joker: int | None) -> bool:
    """Whether cards at these positions form a run (``joker``: index of the joker, or None)."""
    n = len(positions)
    distinct = set(positions)
    if len(distinct) != n:
        return False
    if joker is not None and n == 14:
        naturals = sorted(p for i, p in enumerate(positions) if i != joker)
        return naturals == list(range(1, 14)) and positions[joker] in (0, 14)
    low, high = min(distinct), max(distinct)
    return low >= 1 and high <= 14 and high - low + 1 == n and not (low == 1 and high == 14)


def _resolve_run(specs: Sequence[Spec], joker: int | None) -> Shape:
    suit = suit_of(next(face for face, _ in specs if face != JOKER_FACE))
    if joker is not None and specs[joker][1] is not None:
        declared = specs[joker][1]
        assert declared is not None
        if suit_of(declared) != suit:
            raise InvalidMeld(
                "joker-declaration-invalid", "the joker must stand for a card of the run"
            )
    natural_ranks = [rank_of(face) for face, _ in specs if face != JOKER_FACE]
    if len(set(natural_ranks)) != len(natural_ranks):
        raise InvalidMeld("run-duplicate-rank", "a run cannot hold the same rank twice")
    if len(specs) > 14:
        raise InvalidMeld("run-too-long", "a run has at most 14 cards")
    candidates = list(_run_candidates(specs, joker))
    declared = specs[joker][1] if joker is not None else None
    if not candidates and declared is not None and len(specs) < 14:
        # The run's naturals fit without it (or not at all): the declaration is what is wrong.
        why = (
            "that card is already in the run"
            if rank_of(declared) in natural_ranks
            else ("it does not continue this run")
        )
        raise InvalidMeld(
            "joker-declaration-invalid",
            f"the joker cannot stand for {face_text(declared)}: {why}",
            card=face_text(declared),
        )
    if not candidates:
        raise _run_error(natural_ranks, joker is not None)
    chosen = _pick_candidate(candidates, specs, joker)
    order = tuple(sorted(range(len(specs)), key=lambda i: chosen[i]))
    low = chosen[order[0]]
    stands = tuple(_run_stand(suit, chosen[i], i == joker, len(specs)) for i in order)
    return Shape("run", suit, low, order, stands)


def _run_stand(suit: int, position: int, is_joker: bool, length: int) -> int:
    if is_joker and length == 14:
        return WILD
    return face_at(suit, position)


def _run_error(natural_ranks: Sequence[int], has_joker: bool) -> InvalidMeld:
    ranks = set(natural_ranks)
    if 1 in ranks and 13 in ranks and 2 in ranks and len(ranks) < 13:
        return InvalidMeld("run-wraps", "a run cannot wrap around the ace (K A 2)")
    gap = "more than one joker would be needed" if has_joker else "the ranks are not consecutive"
    return InvalidMeld("run-not-consecutive", gap)


def _ambiguous(suit: int, positions: Sequence[int], also: str = "") -> InvalidMeld:
    """The refusal of a joker that could stand for several cards, naming them (never a card
    the run already holds: they are the joker's own possible places)."""
    choices = sorted(set(positions))
    names = " or ".join(f"JK={face_text(face_at(suit, p))}" for p in choices)
    message = f"say what the joker stands for: {names}" + (f", {also}" if also else "")
    return InvalidMeld("joker-ambiguous", message, choices=names)


def _pick_candidate(
    candidates: list[tuple[int, ...]], specs: Sequence[Spec], joker: int | None
) -> tuple[int, ...]:
    """Choose among valid readings: the one matching the written order, else the best value."""
    if len(candidates) == 1:
        return candidates[0]
    in_order = [c for c in candidates if all(a < b for a, b in pairwise(c))]
    if len(in_order) == 1:
        return in_order[0]
    pool = in_order or candidates
    if joker is not None and len({c[joker] if len(c) < 14 else WILD for c in pool}) > 1:
        suit = suit_of(next(face for face, _ in specs if face != JOKER_FACE))
        raise _ambiguous(suit, [c[joker] for c in pool], "or write the run in order")
    return max(pool, key=lambda c: sum(POSITION_VALUE[p] for p in c))


def meld_value(text: str | Sequence[str]) -> int:
    """The value of a meld written in notation (S40-5.1); raises :class:`InvalidMeld`.

    >>> meld_value("10H JH QH")
    30
    """
    try:
        specs = parse_specs(text)
    except ValueError as error:
        raise InvalidMeld("bad-card", str(error)) from error
    return resolve(specs).value


# --- Melds on the table ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table (S40-4.5): its number, who laid it, its physical cards in order.

    ``stands[i]`` is the face card ``i`` stands for (itself for a natural card; a joker's
    meaning; ``WILD`` for the 14th joker). Melds are immutable: attaching makes a new one.
    """

    number: int
    owner: int
    kind: str
    key: int
    low: int
    cards: tuple[int, ...]
    stands: tuple[int, ...]

    @property
    def value(self) -> int:
        """Meld value (S40-5.1)."""
        return Shape(
            self.kind, self.key, self.low, tuple(range(len(self.cards))), self.stands
        ).value

    joker: int = field(init=False, default=-1, compare=False)

    def __post_init__(self) -> None:
        for i, card in enumerate(self.cards):
            if FACE_INDEX[card] == JOKER_FACE:
                object.__setattr__(self, "joker", i)

    @property
    def joker_index(self) -> int | None:
        """Index of the joker in ``cards``, or None."""
        return None if self.joker < 0 else self.joker

    def tokens(self) -> list[str]:
        """The meld in notation: a set's joker declared (``JK=9D``), a run's joker bare."""
        return [self._token(i) for i in range(len(self.cards))]

    def _token(self, i: int) -> str:
        if FACE_INDEX[self.cards[i]] != JOKER_FACE:
            return face_text(self.stands[i])
        if self.kind == "set":
            return "JK=" + face_text(self.stands[i])
        return "JK"

    def text(self) -> str:
        """The meld in notation, space separated."""
        return " ".join(self.tokens())

    def swappable_joker(self) -> tuple[int, int] | None:
        """``(index, face)`` of a joker that a natural card may replace (S40-7), or None."""
        index = self.joker_index
        if index is None or self.stands[index] == WILD:
            return None
        return index, self.stands[index]


def build_meld(number: int, owner: int, shape: Shape, cards: Sequence[int]) -> Meld:
    """A table meld from a shape and the physical cards of its specs (in spec order)."""
    ordered = tuple(cards[i] for i in shape.order)
    return Meld(number, owner, shape.kind, shape.key, shape.low, ordered, shape.stands)


def attach_shape(meld: Meld, specs: Sequence[Spec]) -> Shape:
    """The shape of ``meld`` with the cards ``specs`` attached (S40-6), or InvalidMeld.

    The result lists the meld's cards first (spec indices ``0..len(meld)-1``), then ``specs``.
    Attaching never moves a joker already on the table, except into the 14th place when the
    run's natural cards become the whole ``A..K`` (S40-4.1).
    """
    own: list[Spec] = [
        (FACE_INDEX[card], stands if FACE_INDEX[card] == JOKER_FACE else None)
        for card, stands in zip(meld.cards, meld.stands, strict=True)
    ]
    combined = own + list(specs)
    if sum(1 for face, _ in combined if face == JOKER_FACE) > 1:
        raise InvalidMeld("too-many-jokers", "a meld may hold at most one joker")
    if meld.kind == "set":
        return _attach_set(meld, combined)
    return _attach_run(meld, combined)


def _attach_set(meld: Meld, combined: list[Spec]) -> Shape:
    own_joker = meld.joker_index
    for face, _ in combined[len(meld.cards) :]:
        if face != JOKER_FACE and rank_of(face) != meld.key:
            raise InvalidMeld(
                "set-mixed-ranks", f"only cards of rank {face_text(meld.key - 1)[:-1]}"
            )
    if own_joker is not None:
        declared = meld.stands[own_joker]
        natural_suits = [suit_of(f) for f, _ in combined if f != JOKER_FACE]
        if suit_of(declared) in natural_suits:
            raise InvalidMeld("joker-swap-needed", "that card replaces the joker: swap it instead")
    if len(combined) > 4:
        raise InvalidMeld("set-too-many", "a set has at most 4 cards")
    return _resolve_set(combined, _joker_of(combined))


def _joker_of(specs: Sequence[Spec]) -> int | None:
    return next((i for i, (face, _) in enumerate(specs) if face == JOKER_FACE), None)


def _attach_run(meld: Meld, combined: list[Spec]) -> Shape:
    suit = meld.key
    for face, declared in combined[len(meld.cards) :]:
        checked = declared if face == JOKER_FACE else face
        if checked is not None and suit_of(checked) != suit:
            raise InvalidMeld("run-mixed-suits", "only cards of the run's suit can be attached")
    joker = _joker_of(combined)
    ranks = [rank_of(f) for f, _ in combined if f != JOKER_FACE]
    if len(set(ranks)) != len(ranks):
        code, why = "run-duplicate-rank", "the run already holds that rank"
        own = meld.swappable_joker()
        if own is not None and own[1] in [f for f, _ in combined[len(meld.cards) :]]:
            code, why = "joker-swap-needed", "that card replaces the joker: swap it instead"
        raise InvalidMeld(code, why)
    if len(ranks) == 13 and joker is not None:
        return _full_run(suit, combined, joker, at_low=joker == 0)
    own = meld.swappable_joker()
    if own is not None and own[1] in [face for face, _ in combined[len(meld.cards) :]]:
        raise InvalidMeld("joker-swap-needed", "that card replaces the joker: swap it instead")
    options: list[Sequence[int]] = [(meld.low + i,) for i in range(len(meld.cards))]
    for face, declared in combined[len(meld.cards) :]:
        if face != JOKER_FACE:
            options.append(positions_of(rank_of(face)))
        elif declared is not None:
            options.append(positions_of(rank_of(declared)))
        else:
            options.append(range(15))
    candidates = [p for p in product(*options) if valid_run_positions(p, joker)]
    if not candidates:
        raise InvalidMeld("attach-invalid", "those cards do not extend this run")
    if joker is not None and len({face_at(suit, c[joker]) for c in candidates}) > 1:
        # Attached cards have no written position among the meld's: both ends are possible.
        raise _ambiguous(suit, [c[joker] for c in candidates])
    chosen = max(candidates, key=lambda c: sum(POSITION_VALUE[p] for p in c))
    order = tuple(sorted(range(len(combined)), key=lambda i: chosen[i]))
    stands = tuple(_run_stand(suit, chosen[i], i == joker, len(combined)) for i in order)
    return Shape("run", suit, chosen[order[0]], order, stands)


def _full_run(suit: int, combined: Sequence[Spec], joker: int, at_low: bool) -> Shape:
    """The 14-card run: ``A..K`` natural and the joker as 14th card at one end (S40-4.1)."""
    position = {
        i: (0 if at_low else 14) if i == joker else rank_of(f) for i, (f, _) in enumerate(combined)
    }
    order = tuple(sorted(position, key=position.__getitem__))
    stands = tuple(WILD if i == joker else combined[i][0] for i in order)
    return Shape("run", suit, position[order[0]], order, stands)


def swap_joker(meld: Meld, card: int) -> tuple[Meld, int]:
    """Replace the meld's joker with the natural ``card`` it stands for (S40-6.2, S40-7.1).

    Returns the new meld and the freed joker; raises InvalidMeld when that card does not
    replace a joker of this meld.
    """
    found = meld.swappable_joker()
    if found is None:
        raise InvalidMeld("no-joker", f"meld {meld.number} has no joker to replace")
    index, face = found
    if FACE_INDEX[card] != face:
        raise InvalidMeld(
            "swap-wrong-card", f"the joker of meld {meld.number} stands for {face_text(face)}"
        )
    cards = list(meld.cards)
    joker = cards[index]
    cards[index] = card
    return (
        Meld(meld.number, meld.owner, meld.kind, meld.key, meld.low, tuple(cards), meld.stands),
        joker,
    )
