"""The games Tavolo hosts, in one registry: a typed :class:`GameSpec` per game.

Storage and the bot treat every game alike through its spec: its names, how many seats, its
options, how to start a match or load one, the computer levels offered and how they choose.
Adding a game is one engine package and one line in :data:`GAMES` (and, for the bot, one module
under ``bot/games/``: ``docs/adding-a-game.md``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from engine import scala40, scopone
from engine.ai import LEVELS
from engine.ai import scala40 as ai_scala40
from engine.ai import scopone as ai_scopone
from engine.errors import SnapshotError
from engine.outcome import Outcome
from engine.scala40.options import CHOICES as SCALA40_CHOICES
from engine.scopone.options import CHOICES as SCOPONE_CHOICES


class GameView(Protocol):
    """What every game's view of a seat offers the core: the seat's cards, the dealer and the
    hand's number (the fair deals, :mod:`engine.fairness`), each seat's side and each side's
    score (``/score``). A game's view holds more, which its own UI reads."""

    @property
    def hand(self) -> Sequence[object]: ...

    @property
    def dealer(self) -> int: ...

    @property
    def hand_number(self) -> int: ...

    @property
    def sides(self) -> Sequence[int]: ...

    @property
    def scores(self) -> Sequence[int]: ...


class GameMatch(Protocol):
    """What every game's ``Match`` offers (OpenSpiel's contract plus ``view`` and ``outcome``)."""

    seed: int
    players: int

    @property
    def to_play(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def hand_number(self) -> int: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def computer_seats(self) -> tuple[int, ...]: ...

    @property
    def abandoned_seats(self) -> tuple[int, ...]: ...

    def legal_actions(self) -> list[Any]: ...

    def play(self, action: Any, seat: int | None = None) -> Any: ...

    def view(self, seat: int) -> GameView: ...

    def to_json(self) -> str: ...


class GameOptions(Protocol):
    """What every game's ``Options`` offers."""

    def to_dict(self) -> dict[str, Any]: ...

    def idle(self) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game: its names, seats, options, matches and computer players."""

    name: str
    """As stored and as typed after ``/newgame``."""
    aliases: tuple[str, ...]
    """Other words for it after ``/newgame``."""
    seats: tuple[int, int]
    """The fewest and the most players."""
    levels: tuple[str, ...]
    """The computer levels a lobby offers."""
    options_type: type[Any]
    """The game's ``Options`` dataclass (``from_dict``, ``to_dict``)."""
    start: Callable[[int, int | None, Any], GameMatch]
    """``(players, seed, Options)`` -> a new match."""
    load: Callable[[str], GameMatch]
    """A match from its ``to_json()`` text."""
    pick: Callable[[Any, str, int], Any]
    """``(match, level, seed)`` -> the computer's action."""
    choices: Mapping[str, tuple[object, ...]]
    """The values a lobby offers for each option that is not a flag, the default first."""
    check_players: Callable[[Any, int], None] = lambda _options, _players: None
    """Raises ValueError when the options do not suit that many players."""

    def parse_options(self, values: dict[str, Any]) -> GameOptions:
        """The game's ``Options`` from a dict; ValueError naming a bad one."""
        parsed: GameOptions = self.options_type.from_dict(values)
        return parsed

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value."""
        defaults: dict[str, Any] = self.options_type().to_dict()
        return defaults

    def option_names(self) -> list[str]:
        """The option fields, in declaration order."""
        return [f.name for f in fields(self.options_type)]

    def checked_options(self, values: dict[str, Any], players: int | None) -> dict[str, Any]:
        """``values`` validated (also against ``players``, when known) and completed."""
        parsed = self.parse_options(values)
        if players is not None and players >= self.seats[0]:
            self.check_players(parsed, players)
        return parsed.to_dict()

    def new_match(self, players: int, seed: int | None, options: dict[str, Any]) -> GameMatch:
        """A new match with options given as a dict."""
        return self.start(players, seed, self.parse_options(options))

    def choose(self, match: GameMatch, level: str, seed: int) -> Any:
        """The move of the computer seat to play, at ``level``, from ``seed``."""
        return self.pick(match, level, seed)


def _scala40_choose(match: Any, level: str, seed: int) -> Any:
    assert isinstance(match, scala40.Match)
    return ai_scala40.choose(match, level, seed)


def _scopone_choose(match: Any, level: str, seed: int) -> Any:
    assert isinstance(match, scopone.Match)
    return ai_scopone.choose(match, level, seed)


def _scala40_players(options: Any, players: int) -> None:
    assert isinstance(options, scala40.Options)
    options.check_players(players)


SCALA40 = GameSpec(
    "scala40",
    ("scala", "40"),
    (2, 6),
    LEVELS,
    scala40.Options,
    scala40.new_match,
    scala40.Match.from_json,
    _scala40_choose,
    SCALA40_CHOICES,
    _scala40_players,
)
SCOPONE = GameSpec(
    "scopone",
    ("scopa",),
    (4, 4),
    LEVELS,
    scopone.Options,
    scopone.new_match,
    scopone.Match.from_json,
    _scopone_choose,
    SCOPONE_CHOICES,
)

GAMES: dict[str, GameSpec] = {spec.name: spec for spec in (SCALA40, SCOPONE)}
"""Every game, by name (the first is the default of ``/newgame``)."""


def game(name: str) -> GameSpec:
    """The spec of a game by name; ValueError for an unknown one."""
    spec = GAMES.get(name)
    if spec is None:
        raise ValueError(f"unknown game {name!r}: use one of {', '.join(GAMES)}")
    return spec


def by_word(word: str) -> GameSpec | None:
    """The game a player means by ``word`` (its name or an alias, any case), if any."""
    word = word.lower()
    return next((g for g in GAMES.values() if word == g.name or word in g.aliases), None)


def new_match(game_name: str, players: int, seed: int | None, options: dict[str, Any]) -> GameMatch:
    """A new match of a game with options given as a dict (``Options.to_dict()``)."""
    return game(game_name).new_match(players, seed, options)


def load_match(text: str) -> GameMatch:
    """A match from ``to_json()`` text of any game; :class:`SnapshotError` if it cannot be."""
    try:
        name = json.loads(text).get("game")
    except (TypeError, ValueError, AttributeError) as error:
        raise SnapshotError("snapshot-unreadable", f"not a saved match: {error}") from error
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise SnapshotError("snapshot-wrong-game", f"unknown game {name!r}")
    return spec.load(text)


def default_options(game_name: str) -> dict[str, Any]:
    """The default options of a game, as a dict."""
    return game(game_name).default_options()
