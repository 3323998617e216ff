"""Duello: a tiny third game, for the tests only, that proves the game seam: a game is an
engine, a ``GameSpec``, a ``GameUI`` and its texts, and the bot's core needs no change.

Rules: 2 or 3 players get 3 cards each from ten (1 to 10, shuffled from the match seed); in
turn each plays a card, and when every player still in has played, the highest card takes the
trick (1 point) and its player leads the next. After three tricks the match is over: the most
points win. The core's words (:mod:`engine.actions`) work as the real games': ``stop`` ends it
for nobody, ``abandon`` takes a seat out, ``timeout`` plays the lowest card, ``end`` ends it.

:func:`registered` adds it to the registries (engine, bot, texts) for a test, and takes it out
afterwards.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from telegram import InlineKeyboardMarkup

from bot import games as bot_games
from bot.answer import Answer
from bot.games.base import HandPress
from bot.games.page import Page
from bot.hand.keys import HandKeys
from bot.hand.state import HandUI, Op, cleared
from bot.i18n import CATALOGS
from bot.render import Rendered
from engine import games
from engine.actions import ABANDON, END, STOP, TIMEOUT
from engine.ai import LEVELS
from engine.cards import seeded_shuffle
from engine.errors import IllegalAction
from engine.games import GameMatch, GameSpec
from engine.options import OptionsBase, check_types
from engine.outcome import ABANDONED, FINISHED, STOPPED, Outcome
from storage import MatchRecord

NAME = "duello"
TRICKS = 3


@dataclass(frozen=True, slots=True)
class Options(OptionsBase):
    """The turn timer, as every game has one."""

    turn_seconds: int = 0
    timeout_policy: str = "autoplay"

    def __post_init__(self) -> None:
        check_types(self)


@dataclass(frozen=True, slots=True)
class View:
    """What a seat sees."""

    hand: tuple[int, ...]
    sides: tuple[int, ...]
    scores: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]
    to_play: int | None
    dealer: int = 0
    hand_number: int = 1


class Match:
    """A match of Duello: its state is its seed and its log, replayed."""

    def __init__(self, players: int, seed: int, options: Options) -> None:
        if not 2 <= players <= 3:
            raise ValueError(f"Duello is for 2 or 3 players, not {players}")
        self.players, self.seed, self.options = players, seed, options
        deck = seeded_shuffle(list(range(1, 11)), seed, "duello-1")
        self.hands = [sorted(deck[3 * s : 3 * s + 3]) for s in range(players)]
        self.points = [0] * players
        self.trick: list[tuple[int, int]] = []
        self.lead = 0
        self.tricks = 0
        self.left: list[int] = []
        self.history: list[tuple[int | None, str]] = []
        self.ended: Outcome | None = None

    # --- the contract ----------------------------------------------------------------------

    @property
    def to_play(self) -> int | None:
        """The seat to play (None: the match is over)."""
        if self.ended is not None:
            return None
        seat = (self.lead + len(self.trick)) % self.players
        while seat in self.left:
            seat = (seat + 1) % self.players
        return seat

    @property
    def is_over(self) -> bool:
        """Whether the match ended."""
        return self.ended is not None

    @property
    def hand_number(self) -> int:
        """One hand, the whole match."""
        return 1

    @property
    def outcome(self) -> Outcome | None:
        """How it ended."""
        return self.ended

    @property
    def computer_seats(self) -> tuple[int, ...]:
        """None: the bot plays no seat of its own."""
        return ()

    @property
    def abandoned_seats(self) -> tuple[int, ...]:
        """The seats that left."""
        return tuple(self.left)

    def legal_actions(self) -> list[str]:
        """The cards the seat to play may play."""
        seat = self.to_play
        return [] if seat is None else [f"play {card}" for card in self.hands[seat]]

    def play(self, action: Any, seat: int | None = None) -> str:
        """Play ``action`` (its text) for ``seat`` (None: the seat to play)."""
        text = str(action)
        mover = self.to_play if seat is None else seat
        if self.ended is not None:
            raise IllegalAction("match-over", "the match is over")
        if text == STOP:
            self._end(stopped=True)
        elif text == END:
            self._end(stopped=False)
        elif text == ABANDON and mover is not None:
            self.left.append(mover)
            if len(self.left) >= self.players - 1:
                self._end(stopped=False)
        elif text == TIMEOUT and mover == self.to_play and mover is not None:
            self._play_card(mover, min(self.hands[mover]))
        elif text.startswith("play ") and mover == self.to_play and mover is not None:
            card = int(text.removeprefix("play ")) if text[5:].isdigit() else 0
            if card not in self.hands[mover]:
                raise IllegalAction("not-in-hand", f"{card} is not in the hand")
            self._play_card(mover, card)
        else:
            raise IllegalAction("not-your-turn", f"{text!r} is not a move of seat {mover} now")
        self.history.append((mover, text))
        return text

    def view(self, seat: int) -> View:
        """What ``seat`` sees: its cards, the points, the trick on the table."""
        return View(
            tuple(self.hands[seat]),
            tuple(range(self.players)),
            tuple(self.points),
            tuple(self.trick),
            self.to_play,
        )

    def to_json(self) -> str:
        """The match as text: its seed, players, options and log."""
        return json.dumps(
            {
                "game": NAME,
                "players": self.players,
                "seed": self.seed,
                "options": self.options.to_dict(),
                "history": self.history,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Match:
        """The match its ``to_json()`` text describes (the log replayed)."""
        data = json.loads(text)
        match = cls(data["players"], data["seed"], Options.from_dict(data["options"]))
        for seat, action in data["history"]:
            match.play(action, seat=seat)
        return match

    # --- the rules ---------------------------------------------------------------------------

    def _play_card(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < self.players - len(self.left):
            return
        winner = max(self.trick, key=lambda played: played[1])[0]
        self.points[winner] += 1
        self.trick, self.lead = [], winner
        self.tricks += 1
        if self.tricks == TRICKS:
            self._end(stopped=False)

    def _end(self, stopped: bool) -> None:
        still = [s for s in range(self.players) if s not in self.left]
        best = max(self.points[s] for s in still)
        winners = () if stopped else tuple(s for s in still if self.points[s] == best)
        vp = tuple(20 if s in winners else 0 for s in range(self.players))
        mp = tuple(self.points)
        why = STOPPED if stopped else ABANDONED if self.left else FINISHED
        self.ended = Outcome(winners, mp, vp, stopped, (0,) * self.players, why)


def new_match(players: int, seed: int | None, options: Any) -> Match:
    """A new match (a seed of 0 when none is given)."""
    return Match(players, seed or 0, options)


SPEC = GameSpec(
    NAME,
    ("duel",),
    (2, 3),
    LEVELS,
    Options,
    new_match,
    Match.from_json,
    lambda match, level, seed: match.legal_actions()[0],
    {},
)


# --- the bot's face ---------------------------------------------------------------------------


class UI:
    """Duello's messages: a short table, a hand of card buttons, a tap plays the card."""

    def table(
        self, match: GameMatch, names: list[str], lang: str, left: timedelta | None, seal: str
    ) -> str:
        """Each player's points, the trick, whose turn."""
        assert isinstance(match, Match)
        lines = ["🎴 Duello"]
        lines += [f"{names[s]}: {match.points[s]}" for s in range(match.players)]
        lines.append("🂠 " + " ".join(f"{names[s]} {card}" for s, card in match.trick))
        seat = match.to_play
        lines.append("🏁" if seat is None else f"👉 {names[seat]}")
        if not match.history or match.is_over:
            lines.append(seal)
        return "\n".join(lines)

    def hand(
        self,
        match_id: int,
        seat: int,
        match: GameMatch,
        ui: HandUI,
        names: list[str],
        group: str,
        lang: str,
        left: timedelta | None = None,
    ) -> Rendered:
        """The seat's cards, as buttons on its turn."""
        assert isinstance(match, Match)
        view = match.view(seat)
        keys = HandKeys(match_id, seat, ui, lang, view.hand)
        text = f"🎴 Duello · {group}\n" + " ".join(str(card) for card in view.hand)
        if match.to_play != seat:
            return text, None
        row = [keys.button(str(card), Op.PLAY, card) for card in view.hand]
        return text + "\n👉", InlineKeyboardMarkup([row])

    def turn_facts(self, match: GameMatch, seat: int, lang: str) -> str:
        """The trick on the table."""
        assert isinstance(match, Match)
        return " ".join(str(card) for _, card in match.trick) or "—"

    def hand_result(self, match: GameMatch, names: list[str], lang: str) -> str:
        """No hands but the one: nothing to say between hands."""
        return ""

    def hand_recap(self, match: GameMatch, seat: int, names: list[str], lang: str) -> str:
        """As :meth:`hand_result`."""
        return ""

    def closed_hand(self, match: GameMatch) -> int | None:
        """The one hand ends with the match."""
        return 1 if match.is_over else None

    async def press(self, press: HandPress) -> Answer:
        """A card tapped: played."""
        if press.op != Op.PLAY:
            return Answer("?")
        return await press.move(f"play {press.arg}", cleared(press.ui, keep_staged=False))

    def page(self, match: GameMatch, seat: int, ui: HandUI, names: list[str], lang: str) -> Page:
        """No drawing of its own: the Mini App shows the hand's text and buttons."""
        return {}

    def touched_hands(self, match: GameMatch, mover: int) -> list[int]:
        """Only the mover's hand shows the move at once."""
        return [mover]

    def lobby_lines(self, record: MatchRecord, lang: str) -> list[str]:
        """Nothing beyond the seats."""
        return []

    def has_partners(self, options: dict[str, Any]) -> bool:
        """No pairs."""
        return False

    def headline_option(self, options: dict[str, Any]) -> str:
        """No option the lobby always names."""
        return ""


TEXTS = {
    "it": {
        f"game.{NAME}": "Duello",
        f"game.{NAME}.play": "a Duello",
        f"help.{NAME}": "🎴 <b>Duello</b> (in 2 o 3, 3 carte a testa)\n1.\n2.\n3.\n4.\n5.\n6.",
        f"newgame.{NAME}": "/nuova duello per il Duello",
    },
    "en": {
        f"game.{NAME}": "Duello",
        f"game.{NAME}.play": "Duello",
        f"help.{NAME}": "🎴 <b>Duello</b> (2 or 3 players, 3 cards each)\n1.\n2.\n3.\n4.\n5.\n6.",
        f"newgame.{NAME}": "/newgame duello for Duello",
    },
}
"""Duello's texts, as a game brings them to both catalogs (docs/adding-a-game.md)."""


@contextlib.contextmanager
def registered() -> Iterator[GameSpec]:
    """Duello in the engine's registry, the bot's and the catalogs, for the time of a test."""
    games.GAMES[NAME] = SPEC
    bot_games.UIS[NAME] = UI()
    for lang, texts in TEXTS.items():
        CATALOGS[lang].update(texts)
    try:
        yield SPEC
    finally:
        del games.GAMES[NAME]
        del bot_games.UIS[NAME]
        for lang, texts in TEXTS.items():
            for key in texts:
                del CATALOGS[lang][key]
