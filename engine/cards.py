"""Cards, decks, the docs/rules.md card notation and seeded shuffles.

Notation (docs/rules.md "Card notation"): rank then suit, ``AH``, ``10S``, ``QD``; ``JK`` is
a joker.
Parsing is case-insensitive, accepts ``T`` for ``10`` and the suit symbols ``♠♥♦♣``.

Scala 40 tracks physical cards: two 54-card decks, so every card exists twice and there are four
jokers. A physical card is an ``int`` id ``deck * 54 + k`` where ``k`` is the face index
(``suit * 13 + rank - 1`` for natural cards, 52 and 53 for the deck's jokers). Faces are
:class:`Card` values; two copies of one card share a face.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

SUITS = "SHDC"
"""Suit letters in sorting order: spades, hearts, diamonds, clubs."""

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Rank names indexed by rank number (1 = ace ... 13 = king); index 0 is unused."""

JOKER_RANK = 0
_SYMBOL_TO_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
_RANK_BY_NAME = {name: number for number, name in enumerate(RANK_NAMES) if name}
_RANK_BY_NAME["T"] = 10


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card face: ``rank`` 1 (ace) to 13 (king) and ``suit`` one of ``SHDC``; a joker is rank 0.

    >>> str(Card(10, "H")), str(JOKER)
    ('10H', 'JK')
    """

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        """Whether this is a joker."""
        return self.rank == JOKER_RANK

    def __str__(self) -> str:
        return "JK" if self.rank == JOKER_RANK else RANK_NAMES[self.rank] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def pretty(self) -> str:
        """The card with a suit symbol, e.g. ``10♥``; a joker is ``🃏``."""
        return "🃏" if self.is_joker else RANK_NAMES[self.rank] + SUIT_SYMBOLS[self.suit]


JOKER = Card(JOKER_RANK, "")


def parse_card(token: str) -> Card:
    """Parse one card in docs/rules.md notation (``AH``, ``10s``, ``TH``, ``q♦``, ``JK``).

    Raises ``ValueError`` naming the token when it is not a card.
    """
    text = token.strip().replace("\ufe0f", "").upper()
    if text in ("JK", "JOKER", "🃏"):
        return JOKER
    if len(text) < 2:
        raise ValueError(f"bad card {token!r}: expected rank and suit, e.g. 7H or 10S")
    rank_text, suit_text = text[:-1], text[-1]
    suit = _SYMBOL_TO_SUIT.get(suit_text, suit_text)
    if suit not in SUITS:
        raise ValueError(f"bad card {token!r}: unknown suit {suit_text!r} (use S H D C)")
    rank = _RANK_BY_NAME.get(rank_text)
    if rank is None:
        raise ValueError(f"bad card {token!r}: unknown rank {rank_text!r} (use A 2-10 J Q K)")
    return Card(rank, suit)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse space-separated cards (or an iterable of tokens) into a list of faces."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, space separated."""
    return " ".join(str(card) for card in cards)


# --- Scala 40 physical cards -------------------------------------------------------------

DECK_SIZE = 54
JOKER_FACE = 52
"""Face index shared by every joker."""

FACES: tuple[Card, ...] = tuple(
    Card(k % 13 + 1, SUITS[k // 13]) if k < 52 else JOKER
    for deck in range(2)
    for k in range(DECK_SIZE)
)
"""``FACES[card_id]``: the face of each of the 108 physical Scala 40 cards."""

FACE_INDEX: tuple[int, ...] = tuple(min(card_id % DECK_SIZE, JOKER_FACE) for card_id in range(108))
"""``FACE_INDEX[card_id]``: 0-51 for natural faces (``suit * 13 + rank - 1``), 52 for jokers."""


def face_index(card: Card) -> int:
    """The face index of a face: ``suit * 13 + rank - 1``, or 52 for a joker."""
    return JOKER_FACE if card.is_joker else SUITS.index(card.suit) * 13 + card.rank - 1


def is_joker_id(card_id: int) -> bool:
    """Whether a physical Scala 40 card is a joker."""
    return card_id % DECK_SIZE >= 52


def scala40_deck(jokers: bool = True) -> list[int]:
    """The 108 physical card ids (104 without jokers, docs/rules.md S40-1.3), in id order."""
    return [i for i in range(108) if jokers or not is_joker_id(i)]


def scala40_sort_key(card: int) -> tuple[int, int]:
    """Hand order of a physical Scala 40 card: by suit and rank (jokers last), then copy."""
    return FACE_INDEX[card], card


# --- Scopone deck ---------------------------------------------------------------------------

SCOPONE_RANKS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)
"""Ranks of the 40-card deck: A-7, J (fante), Q (cavallo), K (re)."""


def scopone_deck() -> list[Card]:
    """The 40 Scopone cards (docs/rules.md SC-1.2), suit by suit."""
    return [Card(rank, suit) for suit in SUITS for rank in SCOPONE_RANKS]


# --- Seeds and shuffles ---------------------------------------------------------------------

T = TypeVar("T")


def secure_seed() -> int:
    """A fresh 128-bit match seed from the operating system's secure source (docs/rules.md
    S40-2.2)."""
    return secrets.randbits(128)


class SeededStream:
    """Deterministic random integers from SHA-256 in counter mode over ``seed`` and ``label``.

    Each (seed, label) pair is an independent stream, so every shuffle of a match can be derived
    from the match seed alone (docs/rules.md S40-2.2) and nobody can predict it from cards they saw.
    """

    def __init__(self, seed: int, label: str) -> None:
        self._key = f"{seed}:{label}".encode()
        self._counter = 0
        self._buffer = b""

    def _bytes(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` (rejection sampling, no modulo bias)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        bits = max(1, (bound - 1).bit_length())
        nbytes = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self._bytes(nbytes), "big") & mask
            if value < bound:
                return value


def seeded_shuffle(items: Sequence[T], seed: int, label: str) -> list[T]:
    """A Fisher-Yates shuffle of ``items`` driven by :class:`SeededStream` (seed, label)."""
    stream = SeededStream(seed, label)
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def seeded_choice(count: int, seed: int, label: str) -> int:
    """A uniform index in ``[0, count)`` derived from (seed, label)."""
    return SeededStream(seed, label).below(count)
