"""Each game's face in the bot: its table, its private hand and the presses on it.

The bot's core never names a game: it asks the match's :class:`~bot.games.base.GameUI`
(:func:`ui_for`), as the engine's ``GameSpec`` answers for the rules. Adding a game is one
module here and one line in :data:`UIS` (``docs/adding-a-game.md``).
"""

from __future__ import annotations

from bot.games import scala40, scopone
from bot.games.base import GameUI, HandPress

UIS: dict[str, GameUI] = {"scala40": scala40.UI, "scopone": scopone.UI}
"""Every game's UI, by the game's name (as in ``engine.games.GAMES``)."""


def ui_for(game: str) -> GameUI:
    """The UI of a game, by name."""
    return UIS[game]


__all__ = ["UIS", "GameUI", "HandPress", "ui_for"]
