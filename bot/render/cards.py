"""Card texts for display: French suit symbols, a joker glyph; the short form of a meld."""

from __future__ import annotations

from bot.i18n import t
from engine.cards import parse_card

STRETCH = 3
"""Consecutive cards of a run from which a short meld shows only the ends (``5♠–8♠``)."""

ACE_HIGH = 14
"""An ace after a king in a run (``Q K A``, S40-4.1)."""


def card(text: str) -> str:
    """``7H`` -> ``7♥``; ``JK`` -> ``🃏``; a declared joker ``JK=7H`` -> ``🃏(7♥)``."""
    if text.upper().startswith("JK="):
        return f"🃏({card(text[3:])})"
    return parse_card(text).pretty()


def cards(texts: list[str] | tuple[str, ...]) -> str:
    """Several cards, space separated."""
    return " ".join(card(t) for t in texts)


def meld(tokens: list[str] | tuple[str, ...], jokers: dict[int, str | None] | None = None) -> str:
    """A meld on the table; a joker shows what it stands for: ``🃏(7♥)``."""
    out = []
    for i, token in enumerate(tokens):
        if token.upper().startswith("JK"):
            stands = (jokers or {}).get(i) or token[3:]  # declared in the map or as "JK=7H"
            out.append(f"🃏({card(stands)})" if stands else "🃏")
        else:
            out.append(card(token))
    return " ".join(out)


def short_meld(
    tokens: list[str] | tuple[str, ...],
    jokers: dict[int, str | None] | None = None,
    dense: bool = False,
) -> str:
    """A meld as the table shows it, narrow enough for a phone: in a run, every stretch of
    :data:`STRETCH` or more consecutive cards as its ends and the joker bare, as its place says
    what it stands for (``🃏 8♠–J♠``); in a set, the joker with the card it stands for
    (``7♠ 7♥ 🃏(7♦)``), and (``dense``) a set without one as its rank and suits (``7♠♥♦``).
    Cards given out of order are shown as they come.

    >>> short_meld(["5S", "6S", "JK", "8S", "9S", "10S", "JS"])
    '5♠ 6♠ 🃏 8♠–J♠'
    >>> short_meld(["7S", "7H", "JK"], {2: "7D"})
    '7♠ 7♥ 🃏(7♦)'
    >>> short_meld(["7S", "7H", "7D"], dense=True)
    '7♠♥♦'
    """
    naturals = [parse_card(t) for t in tokens if not t.upper().startswith("JK")]
    if len({c.suit for c in naturals}) != 1 or len(naturals) < 2:
        if dense and len(naturals) == len(tokens):
            return card(tokens[0])[:-1] + "".join(card(t)[-1] for t in tokens)
        return meld(tokens, jokers)  # a set: every card, a joker's with what it stands for
    out: list[str] = []
    stretch: list[str] = []
    previous = 0
    for token in tokens:
        if token.upper().startswith("JK"):
            out += [*_stretch(stretch), "🃏"]
            stretch, previous = [], 0
            continue
        rank = parse_card(token).rank
        rank = ACE_HIGH if rank == 1 and previous == ACE_HIGH - 1 else rank
        if stretch and rank != previous + 1:
            out += _stretch(stretch)
            stretch = []
        stretch.append(card(token))
        previous = rank
    return " ".join(out + _stretch(stretch))


def _stretch(faces: list[str]) -> list[str]:
    """Consecutive cards of a run: all of them, or their ends when they are many."""
    return [f"{faces[0]}–{faces[-1]}"] if len(faces) >= STRETCH else faces


def spoken(lang: str, text: str, italian: bool = False) -> str:
    """A card as a screen reader says it: ``7H`` -> "sette di cuori"; ``italian``: the Italian
    deck's suits and its knight (Scopone: "sette di denari", "cavallo di spade"); a joker,
    declared or not ("jolly", "jolly (sette di cuori)")."""
    if text.upper().startswith("JK="):
        return t(lang, "card.joker_as", card=spoken(lang, text[3:], italian))
    face = parse_card(text)
    if face.is_joker:
        return str(t(lang, "card.joker"))
    deck = "it" if italian else "fr"
    rank = t(lang, f"card.rank.{deck}.{face.rank}" if face.rank == 12 else f"card.rank.{face.rank}")
    return str(t(lang, "card.spoken", rank=rank, suit=t(lang, f"card.suit.{deck}.{face.suit}")))
