"""The melds a hand can make (docs/rules.md S40-4): every run and set of a hand's cards, for the
opening solver (S40-5) and the legal actions.

Cards are physical ids (see :mod:`engine.cards`); a :class:`Candidate` names them by their index
in the hand, so one hand's candidates combine as bit masks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product

from engine.cards import FACE_INDEX, JOKER_FACE
from engine.scala40.melds import POSITION_VALUE, WILD, face_at, face_text, set_card_value


@dataclass(frozen=True, slots=True)
class Candidate:
    """A meld a hand can lay: hand indices in table order, its shape data and value."""

    indices: tuple[int, ...]
    kind: str
    key: int
    low: int
    stands: tuple[int, ...]
    value: int
    has_joker: bool

    @property
    def mask(self) -> int:
        """Bit mask of the hand indices used."""
        mask = 0
        for i in self.indices:
            mask |= 1 << i
        return mask

    def tokens(self, hand: Sequence[int]) -> list[str]:
        """The candidate in notation (run jokers bare, set jokers declared)."""
        out = []
        for i, stands in zip(self.indices, self.stands, strict=True):
            if FACE_INDEX[hand[i]] != JOKER_FACE:
                out.append(face_text(stands))
            elif self.kind == "set":
                out.append("JK=" + face_text(stands))
            else:
                out.append("JK")
        return out


def enumerate_melds(hand: Sequence[int], all_declarations: bool = False) -> list[Candidate]:
    """Every meld the cards of ``hand`` (physical ids) can form, as hand indices (S40-4).

    Runs (S40-4.1) take 3-13 natural cards, or a joker in any one place of the run: a gap, an
    end, or the place of a card the hand holds (that card may then go into another meld); the
    complete ``A..K`` also takes a joker as 14th card. Sets (S40-4.2) take 3-4 naturals of
    different suits, or 2-3 naturals and a joker declared as a missing suit. No meld holds two
    jokers (S40-4.3). Both copies of a card, and each joker, give separate candidates.

    With ``all_declarations`` every reading is listed: every place of a run's joker and every
    missing suit of a set's joker. Without it (what the opening solver needs, S40-5) the list
    keeps one candidate per set of hand cards, the one of highest value (S40-5.1), the first
    listed on a tie: a complete candidate list for the solver, without duplicate card sets.
    """
    faces = [FACE_INDEX[c] for c in hand]
    jokers = [i for i, f in enumerate(faces) if f == JOKER_FACE]
    by_face: dict[int, list[int]] = {}
    for i, face in enumerate(faces):
        if face != JOKER_FACE:
            by_face.setdefault(face, []).append(i)
    per_suit = [0] * 4
    per_rank = [0] * 13
    for face in by_face:
        per_suit[face // 13] += 1
        per_rank[face % 13] += 1
    out: list[Candidate] = []
    for suit in range(4):
        if per_suit[suit] >= 2:
            _enumerate_runs(suit, by_face, jokers, out)
    for rank in range(1, 14):
        if per_rank[rank - 1] >= 2:
            _enumerate_sets(rank, by_face, jokers, all_declarations, out)
    return out if all_declarations else _best_per_mask(out)


def _best_per_mask(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per set of hand cards: the highest value, the first on a tie (S40-5.1)."""
    out: list[Candidate] = []
    where: dict[int, int] = {}
    for cand in candidates:
        mask = cand.mask
        index = where.get(mask)
        if index is None:
            where[mask] = len(out)
            out.append(cand)
        elif cand.value > out[index].value:
            out[index] = cand
    return out


def _enumerate_runs(
    suit: int, by_face: dict[int, list[int]], jokers: list[int], out: list[Candidate]
) -> None:
    """The runs of one suit (S40-4.1): every window of 3-13 places, held whole or but one."""
    held = [by_face.get(face_at(suit, p), []) for p in range(15)]
    held[0] = []
    if sum(1 for p in range(1, 14) if held[p]) < 2:
        return
    for low in range(1, 13):
        if not held[low] and not jokers:
            continue
        missing: list[int] = []
        for high in range(low, min(low + 12, 14) + 1):
            if low == 1 and high == 14:
                break
            if not held[high]:
                missing.append(high)
                if len(missing) > (1 if jokers else 0):
                    break
            if high - low >= 2:
                _emit_run(suit, low, high, missing, held, jokers, out)
    if jokers and all(held[p] for p in range(1, 14)):
        _emit_full_run(suit, held, jokers, out)


def _emit_run(
    suit: int,
    low: int,
    high: int,
    missing: list[int],
    held: list[list[int]],
    jokers: list[int],
    out: list[Candidate],
) -> None:
    """The runs on places ``low..high``: naturals only, and a joker in each possible place.

    With one place ``missing`` from the hand the joker must take it; with none, the natural
    run comes first, then the joker in each place in turn (the card of that place stays free).
    """
    places = range(low, high + 1)
    value = sum(POSITION_VALUE[p] for p in places)
    stands = tuple(face_at(suit, p) for p in places)
    if missing:
        joker_places: Sequence[int] = missing
    else:
        for chosen in product(*(held[p] for p in places)):
            out.append(Candidate(tuple(chosen), "run", suit, low, stands, value, False))
        joker_places = places if jokers else ()
    for place in joker_places:
        slots = [jokers if p == place else held[p] for p in places]
        for chosen in product(*slots):
            out.append(Candidate(tuple(chosen), "run", suit, low, stands, value, True))


def _emit_full_run(
    suit: int, held: list[list[int]], jokers: list[int], out: list[Candidate]
) -> None:
    """The 14-card run ``A..K`` with a joker as 14th card (S40-4.1), every copy of each card."""
    stands = (*tuple(face_at(suit, p) for p in range(1, 14)), WILD)
    value = sum(POSITION_VALUE[p] for p in range(1, 14)) + POSITION_VALUE[0]
    for joker in jokers:
        for naturals in product(*(held[p] for p in range(1, 14))):
            out.append(Candidate((*naturals, joker), "run", suit, 1, stands, value, True))


def _enumerate_sets(
    rank: int,
    by_face: dict[int, list[int]],
    jokers: list[int],
    all_declarations: bool,
    out: list[Candidate],
) -> None:
    suits = [s for s in range(4) if by_face.get(s * 13 + rank - 1)]
    if len(suits) < 2:
        return
    card_value = set_card_value(rank)
    for size in (2, 3, 4):
        for chosen_suits in combinations(suits, size):
            copies = [by_face[s * 13 + rank - 1] for s in chosen_suits]
            faces = [s * 13 + rank - 1 for s in chosen_suits]
            for chosen in product(*copies):
                if size >= 3:
                    out.append(
                        Candidate(
                            tuple(chosen), "set", rank, 0, tuple(faces), card_value * size, False
                        )
                    )
                if size <= 3 and jokers:
                    _emit_joker_sets(rank, chosen_suits, chosen, jokers, all_declarations, out)


def _emit_joker_sets(
    rank: int,
    chosen_suits: tuple[int, ...],
    chosen: tuple[int, ...],
    jokers: list[int],
    all_declarations: bool,
    out: list[Candidate],
) -> None:
    missing = [s for s in range(4) if s not in chosen_suits]
    if not all_declarations:
        missing = missing[:1]
    value = set_card_value(rank) * (len(chosen) + 1)
    for joker in jokers:
        for declared_suit in missing:
            pairs = sorted([*zip(chosen_suits, chosen, strict=True), (declared_suit, joker)])
            indices = tuple(i for _, i in pairs)
            stands = tuple(s * 13 + rank - 1 for s, _ in pairs)
            out.append(Candidate(indices, "set", rank, 0, stands, value, True))
