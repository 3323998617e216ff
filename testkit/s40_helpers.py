"""Helpers for the Scala 40 tests: exact positions built on a real match, and invariants.

A position is built by dealing a real match with :func:`new_match` and then overwriting its
zones (hands, stock, discard pile, melds, ...) with the given cards. Cards are written in the
docs/rules.md notation; :func:`ids` turns them into distinct physical copies (the first copy of a
face first, then its twin), and every card not named anywhere goes to the stock, so the 108
cards (104 without jokers) stay accounted for exactly once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pytest

from engine import IllegalAction
from engine.cards import FACES, scala40_deck, scala40_sort_key
from engine.scala40 import Match, Options, new_match
from engine.scala40.melds import build_meld, parse_specs, resolve

JOKER_IDS = (52, 53, 106, 107)


def ids(text: str, used: set[int] | None = None) -> list[int]:
    """Distinct physical ids for the cards of ``text`` (``"7H 8H JK"``).

    Each face takes its first copy not in ``used`` (deck 0 first, then deck 1); ``used`` is
    updated, so several calls sharing it never hand out the same physical card twice.
    """
    taken = set() if used is None else used
    out: list[int] = []
    for token in text.split():
        face = parse_specs(token.split("=")[0])[0][0]
        copies = JOKER_IDS if face == 52 else (face, face + 54)
        card = next((c for c in copies if c not in taken), None)
        if card is None:
            raise ValueError(f"no copy of {token} left")
        taken.add(card)
        out.append(card)
    return out


def text(cards: Iterable[int]) -> str:
    """Cards in notation, in hand order (suit then rank, jokers last)."""
    return " ".join(str(FACES[c]) for c in sorted(cards, key=scala40_sort_key))


def arrange(
    m: Match,
    hands: Sequence[str],
    *,
    melds: Sequence[tuple[int, str]] = (),
    discard: str = "",
    stock_top: str = "",
    aside: str = "",
    opened: Sequence[bool] | None = None,
    turns_done: Sequence[int] | None = None,
    to_play: int = 0,
    phase: str = "draw",
    stock: str | None = None,
) -> Match:
    """Put ``m`` (an existing match, totals and status kept) in the given position, in place.

    ``hands[seat]`` is each seat's hand; ``melds`` are ``(owner, "cards")`` laid in order
    (numbered from 1); ``discard`` is the pile from bottom to top (its last card is on top);
    ``stock_top`` lists the next cards to draw, first drawn first; the remaining cards are
    at the bottom of the stock, unless ``stock`` gives the whole stock (the rest then goes to
    the bottom of the discard pile). ``aside`` holds cards set aside (abandoned hands).
    Nothing is pending: no card taken this turn, no cut, an empty hand history.
    """
    used: set[int] = set()
    m.hands = [ids(h, used) for h in hands]
    m.melds = []
    for owner, cards_text in melds:
        cards = ids(cards_text, used)
        shape = resolve(parse_specs(cards_text))
        m.melds.append(build_meld(len(m.melds) + 1, owner, shape, cards))
    m.aside = ids(aside, used)
    pile = ids(discard, used)
    top = ids(stock_top, used)
    if stock is not None:
        bottom = ids(stock, used)
        rest = [c for c in scala40_deck(m.options.jokers) if c not in used]
        m.stock = bottom[::-1]
        m.discard = rest + pile
    else:
        rest = [c for c in scala40_deck(m.options.jokers) if c not in used]
        m.stock = rest + top[::-1]
        m.discard = pile
    m.opened = list(opened) if opened is not None else [False] * m.players
    m.turns_done = list(turns_done) if turns_done is not None else [0] * m.players
    m.to_play = to_play
    m.phase = phase
    m.taken = None
    m.opened_this_turn = False
    m.pending_cut = ""
    m.resume_seat = None
    m.history = []
    check_cards(m)
    return m


def position(
    hands: Sequence[str],
    *,
    options: Options | None = None,
    seed: int = 1,
    dealer: int | None = None,
    **kwargs: object,
) -> Match:
    """A new match of ``len(hands)`` players in the given position (see :func:`arrange`)."""
    m = new_match(players=len(hands), seed=seed, options=options or Options())
    to_play = kwargs.get("to_play", 0)
    assert isinstance(to_play, int)
    m.dealer = (to_play - 1) % len(hands) if dealer is None else dealer
    return arrange(m, hands, **kwargs)  # type: ignore[arg-type]


def all_cards(m: Match) -> list[int]:
    """Every physical card the match holds: hands, stock, discard pile, melds, aside."""
    cards = [c for hand in m.hands for c in hand] + m.stock + m.discard + m.aside
    return cards + [c for meld in m.melds for c in meld.cards]


def check_cards(m: Match) -> None:
    """S40-1.3: the 108 cards (104 without jokers) are each in exactly one place."""
    counts = Counter(all_cards(m))
    assert sorted(counts) == scala40_deck(m.options.jokers)
    assert set(counts.values()) == {1}


def hand_text(m: Match, seat: int) -> str:
    """A seat's hand in notation."""
    return text(m.hands[seat])


def faces(cards: Iterable[int]) -> list[str]:
    """The faces of physical cards, in the given order."""
    return [str(FACES[c]) for c in cards]


def rejected(m: Match, action: str, code: str, seat: int | None = None) -> IllegalAction:
    """The action is refused with ``code`` and leaves the match byte-identical."""
    before = m.to_json()
    with pytest.raises(IllegalAction) as caught:
        m.play(action, seat=seat)
    assert caught.value.code == code, caught.value
    assert m.to_json() == before
    return caught.value


def legal(m: Match) -> list[str]:
    """The legal actions as text."""
    return [str(a) for a in m.legal_actions()]
