"""The private hand's UI state and how button presses turn into engine actions.

Pure translation, no rules: which cards are selected, which melds are staged for the opening,
the player's card order; the engine decides whether the resulting action is legal.
Keys of displayed cards: ``7H#0`` (the first copy of 7H in hand), ``^`` (the discard pile's top,
selectable in the draw phase), ``J`` (the joker just freed by a swap).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from engine.cards import parse_card

TOP = "^"
FREED = "J"
SORTS = ("suit", "rank", "custom")


@dataclass(frozen=True, slots=True)
class HandUI:
    """One seat's hand UI (stored per seat; ``version`` guards against stale buttons)."""

    selected: tuple[str, ...] = ()
    staged: tuple[tuple[str, ...], ...] = ()
    order: tuple[str, ...] = ()
    sort: str = "suit"
    mode: str = ""
    pending: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class Press:
    """What a press means: a UI change, an engine action, or an answer only."""

    ui: HandUI | None = None
    action: str = ""
    answer: str = ""
    fields: dict[str, object] = field(default_factory=dict)


def context_token(hand: Sequence[object], ui: HandUI) -> str:
    """Six letters naming the context a hand keyboard is drawn in: the cards in hand (in the
    engine's order) and the pending step (``mode`` and ``pending``).

    A press is judged against the stored state, not against the keyboard it came from: while
    the context is the same, a keyboard a few renders old (its edits paced by Telegram's
    limits) still means what it says, so quick taps all count. A move, a new deal or another
    step changes the context, and the older keyboard's presses are refused as stale.
    """
    text = "\x00".join([ui.mode, ui.pending, " ".join(str(card) for card in hand)])
    value = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    letters = []
    for _ in range(6):
        value, index = divmod(value, 26)
        letters.append(chr(ord("a") + index))
    return "".join(letters)


def face_of(key: str, top: str | None) -> str:
    """The card text of a display key."""
    if key == TOP:
        return top or ""
    if key == FREED:
        return "JK"
    return key.split("#", 1)[0]


def _rank_key(face: str) -> tuple[int, int]:
    card = parse_card(face)
    if card.is_joker:
        return (-1, 0)
    return (card.rank, "SHDC".index(card.suit))


def display(hand: Sequence[str], ui: HandUI) -> list[tuple[str, str]]:
    """The hand's cards to show, as (key, face): staged cards left out, in the chosen order."""
    remaining = list(hand)
    for meld in ui.staged:
        for token in meld:
            if token not in (TOP, FREED) and token in remaining:
                remaining.remove(token)
    if ui.sort == "rank":
        remaining.sort(key=_rank_key)
    elif ui.sort == "custom" and ui.order:
        remaining = _custom(remaining, ui.order)
    seen: dict[str, int] = {}
    out = []
    for face in remaining:
        copy = seen.get(face, 0)
        seen[face] = copy + 1
        out.append((f"{face}#{copy}", face))
    return out


def _custom(cards: list[str], order: Sequence[str]) -> list[str]:
    pool = list(cards)
    out = []
    for face in order:
        if face in pool:
            pool.remove(face)
            out.append(face)
    return out + pool


def toggle(ui: HandUI, key: str) -> HandUI:
    """Select or unselect one displayed card."""
    selected = tuple(k for k in ui.selected if k != key)
    if len(selected) == len(ui.selected):
        selected = (*ui.selected, key)
    return replace(ui, selected=selected)


def cleared(ui: HandUI, keep_staged: bool = True) -> HandUI:
    """No selection, no pending mode (after a move, or on cancel)."""
    staged = tuple(m for m in ui.staged if TOP not in m) if keep_staged else ()
    return replace(ui, selected=(), mode="", pending="", staged=staged)


def tokens(ui: HandUI, top: str | None) -> list[str]:
    """The selected cards as engine tokens, in selection order."""
    return [face_of(key, top) for key in ui.selected]


def move_selected_first(ui: HandUI, shown: list[tuple[str, str]]) -> HandUI:
    """Custom order: the selected cards move to the left end (S40-15)."""
    chosen = [face for key, face in shown if key in ui.selected and key not in (TOP, FREED)]
    rest = [face for key, face in shown if key not in ui.selected and key not in (TOP, FREED)]
    return replace(ui, order=tuple(chosen + rest), sort="custom", selected=())


def meld_action(ui: HandUI, top: str | None) -> str:
    """``meld …``, ``take meld …`` (the discard's top selected) or a swap's ``meld JK …``."""
    cards = " ".join(tokens(ui, top))
    if ui.mode == "swap":
        return f"swap {ui.pending} meld {cards}"
    if TOP in ui.selected:
        return f"take meld {cards}"
    return f"meld {cards}"


def attach_action(ui: HandUI, top: str | None, number: int) -> str:
    """``attach N …``, ``take attach N …`` or a swap's ``attach N JK …``."""
    cards = " ".join(tokens(ui, top))
    swap = ui.pending.split("|", 1)[0] if ui.mode == "attach" and "|" in ui.pending else ""
    if swap:
        return f"swap {swap} attach {number} {cards}"
    if TOP in ui.selected:
        return f"take attach {number} {cards}"
    return f"attach {number} {cards}"


def open_action(ui: HandUI, top: str | None) -> str:
    """``open A | B`` from the staged melds, or ``take open …`` when one uses the discard."""
    melds = " | ".join(" ".join(top or "" if t == TOP else t for t in meld) for meld in ui.staged)
    uses_top = any(TOP in meld for meld in ui.staged)
    return f"take open {melds}" if uses_top else f"open {melds}"


def staged_tokens(ui: HandUI, top: str | None) -> list[list[str]]:
    """The staged melds as engine tokens."""
    return [[top or "" if t == TOP else t for t in meld] for meld in ui.staged]


def declare_first_joker(action: str, declared: str) -> str:
    """The action text with its first bare ``JK`` declared as ``declared`` (``JK=7H``)."""
    words = action.split()
    for i, word in enumerate(words):
        if word.upper() == "JK":
            words[i] = f"JK={declared}"
            break
    return " ".join(words)
