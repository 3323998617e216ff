"""Helpers for front ends: what a joker may be declared as (S40-4, the declaration panel), and
which melds a selection can be attached to (the attach panel)."""

from __future__ import annotations

from engine.cards import SUITS, parse_card
from engine.errors import IllegalAction, InvalidMeld
from engine.scala40.actions import Action, parse_action
from engine.scala40.match import Match
from engine.scala40.melds import meld_value

_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_FACES = [f"{rank}{suit}" for suit in SUITS for rank in _RANKS]


def _candidates(tokens: list[str]) -> list[str]:
    """Faces sharing a suit or a rank with the natural cards: what a joker could stand for."""
    naturals = [parse_card(t) for t in tokens if not t.upper().startswith("JK")]
    suits = {c.suit for c in naturals}
    ranks = {c.rank for c in naturals}
    return [f for f in _FACES if parse_card(f).suit in suits or parse_card(f).rank in ranks]


def meld_joker_choices(tokens: list[str]) -> list[str]:
    """The declarations (``7H``) that make ``tokens`` with its bare joker a valid meld."""
    if "JK" not in [t.upper() for t in tokens]:
        return []
    index = [t.upper() for t in tokens].index("JK")
    out = []
    for face in _candidates(tokens):
        trial = [*tokens[:index], f"JK={face}", *tokens[index + 1 :]]
        try:
            meld_value(trial)
        except InvalidMeld:
            continue
        out.append(face)
    return out


def action_joker_choices(match: Match, action: str | Action, seat: int) -> list[str]:
    """The declarations of the first bare joker of ``action`` that make it legal for ``seat``."""
    text = str(parse_action(action))
    words = text.split()
    if "JK" not in words:
        return []
    index = words.index("JK")
    cards = [w for w in words if _is_card(w)]
    for target in _targets(parse_action(text)):
        if 1 <= target <= len(match.melds):
            cards += [w for w in match.melds[target - 1].tokens() if _is_card(w)]
    out = []
    for face in _candidates(cards):
        trial = " ".join([*words[:index], f"JK={face}", *words[index + 1 :]])
        try:
            match.copy().play(trial, seat=seat)
        except IllegalAction:
            continue
        out.append(face)
    return out


def fits(match: Match, action: str, seat: int) -> bool:
    """Whether ``action`` is legal for ``seat`` now, or becomes so once its first bare joker is
    declared (the attach panel offers only the melds the selected cards fit, S40-6)."""
    try:
        match.copy().play(action, seat=seat)
    except IllegalAction as error:
        if error.code in ("joker-ambiguous", "joker-undeclared"):
            return bool(action_joker_choices(match, action, seat))
        return False
    return True


def _targets(action: Action) -> list[int]:
    """The table melds an action (or its inner use) attaches to or swaps from."""
    out = [action.target] if action.kind in ("attach", "swap") else []
    return out + (_targets(action.use) if action.use is not None else [])


def _is_card(word: str) -> bool:
    try:
        parse_card(word.split("=", 1)[0])
    except ValueError:
        return False
    return not word.upper().startswith("JK")
