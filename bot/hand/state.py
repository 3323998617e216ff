"""The private hand's UI state and how button presses turn into engine actions.

Pure translation, no rules: which cards are selected, which melds are staged for the opening,
the player's card order; the engine decides whether the resulting action is legal.
Keys of displayed cards: ``7H#0`` (the first copy of 7H in hand), ``^`` (the discard pile's top,
selectable in the draw phase), ``J`` (the joker just freed by a swap).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from engine.cards import parse_card

TOP = "^"
FREED = "J"


class Op(StrEnum):
    """What a hand button does: the one vocabulary of the keyboards and the presses."""

    TOGGLE = "t"
    SORT_SUIT = "ss"
    SORT_RANK = "sr"
    MOVE_LEFT = "mv"
    CLEAR = "cl"
    UNSTAGE = "us"
    STAGE = "sg"
    DRAW = "dr"
    HINT = "hn"
    OPEN = "op"
    DECLARE = "jd"
    MELD = "md"
    ATTACH = "at"
    ATTACH_TO = "a"
    DISCARD = "ds"
    SWAP = "sw"
    PLAY = "p"
    CAPTURE = "c"
    ORDER = "or"
    """The hand in an order of the player's own, all of it at once (a drag in the Mini App)."""


@dataclass(frozen=True, slots=True)
class Swap:
    """A table joker being swapped: the meld it is in, and the card that replaces it."""

    meld: int
    card: str

    def __str__(self) -> str:
        return f"{self.meld} {self.card}"


@dataclass(frozen=True, slots=True)
class Attach:
    """Choosing the meld to attach the selected cards to (after a ``swap``, with its joker)."""

    swap: Swap | None = None


@dataclass(frozen=True, slots=True)
class Declare:
    """Choosing what a joker stands for among ``choices``, to complete ``action`` (an engine
    action) or to stage ``stage`` (the meld's tokens)."""

    choices: tuple[str, ...]
    action: str = ""
    stage: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Capture:
    """Choosing which capture ``card`` makes (Scopone)."""

    card: str


Step = Swap | Attach | Declare | Capture | None
"""The step the keyboard is in, beyond selecting cards (None: none)."""


@dataclass(frozen=True, slots=True)
class HandUI:
    """One seat's hand UI (stored per seat; ``version`` grows at every change of it)."""

    selected: tuple[str, ...] = ()
    staged: tuple[tuple[str, ...], ...] = ()
    order: tuple[str, ...] = ()
    sort: str = "suit"
    step: Step = None
    version: int = 0

    @property
    def mode(self) -> str:
        """The step's stored name (:func:`encode_step`)."""
        return encode_step(self.step)[0]


def encode_step(step: Step) -> tuple[str, str]:
    """A step as the store keeps it: ``(mode, pending)`` text. The one codec (with
    :func:`decode_step`); its formats are the ones stored matches already hold."""
    if step is None:
        return "", ""
    if isinstance(step, Swap):
        return "swap", str(step)
    if isinstance(step, Attach):
        return "attach", "" if step.swap is None else f"{step.swap}|swap"
    if isinstance(step, Capture):
        return "capture", step.card
    target = f"stage:{' '.join(step.stage)}" if step.stage else step.action
    return "joker", f"{' '.join(step.choices)}|{target}"


def decode_step(mode: str, pending: str) -> Step:
    """The step of stored ``(mode, pending)`` text; an unreadable one is no step."""
    try:
        if mode == "swap":
            return _swap(pending)
        if mode == "attach":
            return Attach(_swap(pending.split("|", 1)[0]) if "|" in pending else None)
        if mode == "capture" and pending:
            return Capture(pending)
        if mode == "joker" and "|" in pending:
            choices, target = pending.split("|", 1)
            if target.startswith("stage:"):
                return Declare(tuple(choices.split()), stage=tuple(target[6:].split()))
            return Declare(tuple(choices.split()), action=target)
    except ValueError:
        pass
    return None


def _swap(text: str) -> Swap:
    number, card = text.split()
    return Swap(int(number), card)


def context_token(hand: Sequence[object], ui: HandUI) -> str:
    """Six letters naming the context a hand keyboard is drawn in: the cards in hand (in the
    engine's order) and the pending step (``mode`` and ``pending``).

    A press is judged against the stored state, not against the keyboard it came from: while
    the context is the same, a keyboard a few renders old (its edits paced by Telegram's
    limits) still means what it says, so quick taps all count. A move, a new deal or another
    step changes the context, and the older keyboard's presses are refused as stale.
    """
    mode, pending = encode_step(ui.step)
    text = "\x00".join([mode, pending, " ".join(str(card) for card in hand)])
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
    elif ui.sort == "suit":  # the engine's order, the jokers on the left (S40-15)
        remaining.sort(key=lambda face: not parse_card(face).is_joker)
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
    return replace(ui, selected=(), step=None, staged=staged)


def tokens(ui: HandUI, top: str | None) -> list[str]:
    """The selected cards as engine tokens, in selection order."""
    return [face_of(key, top) for key in ui.selected]


def move_selected_first(ui: HandUI, shown: list[tuple[str, str]]) -> HandUI:
    """Custom order: the selected cards move to the left end (S40-15)."""
    chosen = [face for key, face in shown if key in ui.selected and key not in (TOP, FREED)]
    rest = [face for key, face in shown if key not in ui.selected and key not in (TOP, FREED)]
    return replace(ui, order=tuple(chosen + rest), sort="custom", selected=())


def reordered(ui: HandUI, shown: list[tuple[str, str]], faces: Sequence[str]) -> HandUI | None:
    """Custom order: the shown cards in the order ``faces`` gives (None: ``faces`` are not
    the shown cards, each once); the selection goes, as after :func:`move_selected_first`."""
    if sorted(faces) != sorted(face for _, face in shown):
        return None
    return replace(ui, order=tuple(faces), sort="custom", selected=())


def meld_action(ui: HandUI, top: str | None) -> str:
    """``meld …``, ``take meld …`` (the discard's top selected) or a swap's ``meld JK …``."""
    cards = " ".join(tokens(ui, top))
    if isinstance(ui.step, Swap):
        return f"swap {ui.step} meld {cards}"
    if TOP in ui.selected:
        return f"take meld {cards}"
    return f"meld {cards}"


def attach_action(ui: HandUI, top: str | None, number: int) -> str:
    """``attach N …``, ``take attach N …`` or a swap's ``attach N JK …``."""
    cards = " ".join(tokens(ui, top))
    if isinstance(ui.step, Attach) and ui.step.swap is not None:
        return f"swap {ui.step.swap} attach {number} {cards}"
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
