"""The games Tavolo hosts, behind one small registry so storage and the bot treat them alike."""

from __future__ import annotations

import json
from typing import Any, Protocol

from engine import scala40, scopone
from engine.errors import SnapshotError


class GameMatch(Protocol):
    """What both games' ``Match`` objects offer (OpenSpiel-like contract plus ``view``)."""

    seed: int
    players: int

    @property
    def to_play(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def result(self) -> Any: ...

    def legal_actions(self) -> list[Any]: ...

    def play(self, action: Any, seat: int | None = None) -> Any: ...

    def view(self, seat: int) -> Any: ...

    def to_json(self) -> str: ...


GAMES = ("scala40", "scopone")
"""Game names, as stored and as typed after ``/newgame``."""


def new_match(game: str, players: int, seed: int | None, options: dict[str, Any]) -> GameMatch:
    """A new match of ``game`` with options given as a dict (``Options.to_dict()``)."""
    if game == "scala40":
        return scala40.new_match(players, seed, scala40.Options.from_dict(options))
    if game == "scopone":
        return scopone.new_match(players, seed, scopone.Options.from_dict(options))
    raise ValueError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")


def load_match(text: str) -> GameMatch:
    """A match from ``to_json()`` text of either game; :class:`SnapshotError` if it cannot be."""
    try:
        game = json.loads(text).get("game")
    except (TypeError, ValueError, AttributeError) as error:
        raise SnapshotError("snapshot-unreadable", f"not a saved match: {error}") from error
    if game == "scala40":
        return scala40.Match.from_json(text)
    if game == "scopone":
        return scopone.Match.from_json(text)
    raise SnapshotError("snapshot-wrong-game", f"unknown game {game!r}")


def default_options(game: str) -> dict[str, Any]:
    """The default options of a game, as a dict."""
    if game == "scala40":
        return scala40.Options().to_dict()
    if game == "scopone":
        return scopone.Options().to_dict()
    raise ValueError(f"unknown game {game!r}")
