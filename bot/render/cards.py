"""Card texts for display: French suit symbols, a joker glyph."""

from __future__ import annotations

from engine.cards import parse_card


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
            stands = (jokers or {}).get(i)
            out.append(f"🃏({card(stands)})" if stands else "🃏")
        else:
            out.append(card(token))
    return " ".join(out)
