"""Scopone actions and their exact text form (docs/rules.md SC-4.6, "The match log").

Grammar (case-insensitive, any whitespace; cards in docs/rules.md notation, ``T`` and suit symbols
accepted; the taken cards in any order, written back in canonical order)::

    action := "play" CARD [ "take" CARD { CARD } ]   a turn: play a card, capturing or not
            | "abandon"                              any seat, any time (SC-6.2)
            | "timeout"                              the turn timer of the seat to play ran out
            | "stop"                                 the match is stopped, counts for nobody
            | "end"                                  no person is left: it ends now (SC-6.4)

``str()`` is canonical: ``play 7D`` when nothing is captured, ``play QH take AH JC`` when AH and
JC are captured. As input, ``play QH`` also stands for the only capture QH is allowed to make.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import ABANDON, END, STOP, TIMEOUT
from engine.cards import Card
from engine.errors import IllegalAction
from engine.scopone.deck import card_key, to_card

PLAY = "play"
KINDS = (PLAY, ABANDON, TIMEOUT, STOP, END)
TURN_KINDS = (PLAY, TIMEOUT)
"""Actions that only the seat to play may take."""


@dataclass(frozen=True, slots=True)
class Action:
    """One action of the match log: a play (``card``, ``take``) or ``abandon``/``timeout``/``stop``.

    ``take`` is kept in canonical order, so equal actions compare equal.

    >>> str(Action(PLAY, Card(12, "H"), (Card(11, "C"), Card(1, "H"))))
    'play QH take AH JC'
    """

    kind: str
    card: Card | None = None
    take: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}")
        if (self.kind == PLAY) != (self.card is not None) or (self.take and self.kind != PLAY):
            raise ValueError(f"{self.kind} action with card {self.card} and take {self.take}")
        if len(set(self.take)) != len(self.take):
            raise ValueError("a card is taken twice")
        object.__setattr__(self, "take", tuple(sorted(self.take, key=card_key)))

    @classmethod
    def play(cls, card: Card, take: tuple[Card, ...] = ()) -> Action:
        """A play of ``card`` capturing ``take`` (empty: nothing captured)."""
        return cls(PLAY, card, take)

    @property
    def is_play(self) -> bool:
        """Whether this is a play of a card (not ``abandon``, ``timeout`` or ``stop``)."""
        return self.kind == PLAY

    def __str__(self) -> str:
        if self.card is None:
            return self.kind
        text = f"{PLAY} {self.card}"
        return f"{text} take {' '.join(str(c) for c in self.take)}" if self.take else text


def parse_action(text: str | Action) -> Action:
    """Parse an action in the grammar of this module, or check an :class:`Action` by reading
    its text back; ``IllegalAction("bad-action")`` for anything malformed.

    >>> str(parse_action("PLAY qh TAKE jc ah"))
    'play QH take AH JC'
    """
    if isinstance(text, Action):
        try:
            text = str(text)
        except Exception as error:  # fields of the wrong types
            raise IllegalAction("bad-action", f"not a well-formed action: {text!r}") from error
    if not isinstance(text, str):
        raise IllegalAction("bad-action", f"not an action: {text!r}")
    words = text.split()
    if not words:
        raise IllegalAction("bad-action", "empty action")
    kind = words[0].lower()
    if kind in (ABANDON, TIMEOUT, STOP, END) and len(words) == 1:
        return Action(kind)
    if kind != PLAY or len(words) < 2:
        raise IllegalAction("bad-action", f"not an action: {text!r}")
    card = _card(words[1], text)
    if len(words) == 2:
        return Action(PLAY, card)
    if words[2].lower() != "take" or len(words) == 3:
        raise IllegalAction("bad-action", f"expected 'play CARD take CARD ...', got {text!r}")
    take = tuple(_card(word, text) for word in words[3:])
    if len(set(take)) != len(take):
        raise IllegalAction("bad-action", f"a card is taken twice in {text!r}")
    return Action(PLAY, card, take)


def _card(token: str, text: str) -> Card:
    try:
        return to_card(token)
    except ValueError as error:
        raise IllegalAction("bad-action", f"{error} (in {text!r})") from error
