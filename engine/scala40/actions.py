"""Scala 40 actions and their text, the one grammar that logs, tests and the bot share.

Turn actions: ``draw``; ``discard 5C``; ``open 9H 9S 9D | 10C JC QC``; ``meld 7H 8H 9H``;
``attach 3 10H JH``; ``take open …`` / ``take meld …`` / ``take attach 3 …`` (plain ``take``
only with ``free_discard_take``); ``swap 3 7H meld JK 8S 9S`` / ``swap 3 7H attach 5 JK``.
Outside the turn: ``abandon``, ``timeout``, ``cut top|middle|bottom``, ``rientro yes|no``,
``clock``, ``stop``, ``end``. Cards use docs/rules.md notation; a joker is ``JK`` or ``JK=7H``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import ABANDON, END, STOP, TIMEOUT
from engine.errors import IllegalAction
from engine.scala40.melds import face_text, parse_spec

SIMPLE = ("draw", ABANDON, TIMEOUT, "clock", STOP, END)
CHOICES = {"cut": ("top", "middle", "bottom"), "rientro": ("yes", "no")}
TURN_KINDS = ("draw", "discard", "open", "meld", "attach", "take", "swap")
"""Actions only the seat to play may take, in its turn."""


@dataclass(frozen=True, slots=True)
class Action:
    """One move. ``str(action)`` is its canonical text; :func:`parse_action` reads it back.

    ``melds`` holds the cards of ``open`` (several melds), ``meld`` and ``attach`` (one);
    ``target`` is the table meld number of ``attach`` and ``swap``; ``card`` the card of
    ``discard`` and ``swap``; ``use`` the inner action of ``take`` and ``swap``; ``choice``
    the answer of ``cut`` and ``rientro``.
    """

    kind: str
    melds: tuple[tuple[str, ...], ...] = ()
    target: int = 0
    card: str = ""
    use: Action | None = None
    choice: str = ""

    def __str__(self) -> str:
        kind = self.kind
        if kind in SIMPLE:
            return kind
        if kind in CHOICES:
            return f"{kind} {self.choice}"
        if kind == "discard":
            return f"discard {self.card}"
        if kind == "open":
            return "open " + " | ".join(" ".join(m) for m in self.melds)
        if kind == "meld":
            return "meld " + " ".join(self.melds[0])
        if kind == "attach":
            return f"attach {self.target} " + " ".join(self.melds[0])
        if kind == "take":
            return "take" if self.use is None else f"take {self.use}"
        return f"swap {self.target} {self.card} {self.use}"

    @property
    def cards(self) -> tuple[str, ...]:
        """Every card token the action names (the inner action's included)."""
        own = tuple(token for meld in self.melds for token in meld)
        if self.card:
            own = (self.card, *own)
        return own + (self.use.cards if self.use is not None else ())


def _token(text: str) -> str:
    """Canonical text of one card token (``10h`` -> ``10H``, ``jk=7h`` -> ``JK=7H``)."""
    face, declared = parse_spec(text)
    if declared is not None:
        return "JK=" + face_text(declared)
    return face_text(face)


def _bad(text: str, why: str) -> IllegalAction:
    return IllegalAction("bad-action", f"{why}: {text!r}")


def _cards(words: list[str], text: str) -> tuple[str, ...]:
    if not words:
        raise _bad(text, "cards expected")
    try:
        return tuple(_token(word) for word in words)
    except ValueError as error:
        raise IllegalAction("bad-card", str(error)) from error


def _number(word: str, text: str) -> int:
    if not (word.isascii() and word.isdigit()) or int(word) < 1:
        raise _bad(text, "a meld number expected")
    return int(word)


def parse_action(text: str | Action) -> Action:
    """Read an action from its text (case-insensitive), or check an :class:`Action` by reading
    its text back; anything malformed raises IllegalAction ``bad-action`` (or ``bad-card``).

    >>> str(parse_action("OPEN 9h 9s 9d | th jh qh"))
    'open 9H 9S 9D | 10H JH QH'
    """
    if isinstance(text, Action):
        try:
            text = str(text)
        except Exception as error:  # fields of the wrong types: nothing a player could mean
            raise IllegalAction("bad-action", f"not a well-formed action: {text!r}") from error
    if not isinstance(text, str):
        raise IllegalAction("bad-action", f"not an action: {text!r}")
    words = text.replace("|", " | ").split()
    if not words:
        raise _bad(text, "empty action")
    return _parse_words([w.lower() if i == 0 else w for i, w in enumerate(words)], text)


def _parse_words(words: list[str], text: str) -> Action:
    kind, rest = words[0].lower(), words[1:]
    if kind in SIMPLE:
        if rest:
            raise _bad(text, f"{kind} takes nothing after it")
        return Action(kind)
    if kind in CHOICES:
        if len(rest) != 1 or rest[0].lower() not in CHOICES[kind]:
            raise _bad(text, f"{kind} takes one of {', '.join(CHOICES[kind])}")
        return Action(kind, choice=rest[0].lower())
    if kind == "discard":
        if len(rest) != 1:
            raise _bad(text, "discard takes one card")
        return Action("discard", card=_cards(rest, text)[0])
    if kind == "open":
        return Action("open", melds=_split_melds(rest, text))
    if kind == "meld":
        return Action("meld", melds=(_cards(rest, text),))
    if kind == "attach":
        if len(rest) < 2:
            raise _bad(text, "attach takes a meld number and cards")
        return Action("attach", target=_number(rest[0], text), melds=(_cards(rest[1:], text),))
    if kind == "take":
        return _parse_take(rest, text)
    if kind == "swap":
        return _parse_swap(rest, text)
    raise _bad(text, "unknown action")


def _split_melds(words: list[str], text: str) -> tuple[tuple[str, ...], ...]:
    melds: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            melds.append([])
        else:
            melds[-1].append(word)
    return tuple(_cards(m, text) for m in melds)


def _parse_take(rest: list[str], text: str) -> Action:
    if not rest:
        return Action("take")
    use = _parse_words(rest, text)
    if use.kind not in ("open", "meld", "attach"):
        raise _bad(text, "take is followed by open, meld or attach")
    return Action("take", use=use)


def _parse_swap(rest: list[str], text: str) -> Action:
    if len(rest) < 4:
        raise _bad(text, "swap takes a meld number, a card, then meld … or attach …")
    target = _number(rest[0], text)
    card = _cards(rest[1:2], text)[0]
    use = _parse_words(rest[2:], text)
    if use.kind not in ("meld", "attach"):
        raise _bad(text, "the freed joker is used with meld … or attach …")
    return Action("swap", target=target, card=card, use=use)
