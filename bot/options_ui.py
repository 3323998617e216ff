"""The lobby's options panel: every RULES.md Option of a game, its value, and the next value.

The engine's ``Options`` validates every change, so an invalid combination is refused with the
engine's own message.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from engine import scala40, scopone

CYCLES: dict[str, tuple[Any, ...]] = {
    "opening_points": (40, 50, 60, 30),
    "max_restocks": (3, 4, 5, 0, 1, 2),
    "hands": (3, 5, 7, 1),
    "match_minutes": (0, 15, 30, 45, 60),
    "turn_seconds": (120, 60, 90, 180, 300, 0),
    "limit": scala40.options.LIMITS,
    "ace_penalty": scala40.options.ACE_PENALTIES,
    "format": scala40.options.FORMATS,
    "timeout_policy": scala40.options.TIMEOUT_POLICIES,
    "target": (11, 16, 21),
    "deal": ("standard", "scientifico"),
}


def option_names(game: str) -> list[str]:
    """The option fields of a game, in declaration order."""
    cls = scala40.Options if game == "scala40" else scopone.Options
    return [f.name for f in fields(cls)]


def next_value(name: str, value: Any) -> Any:
    """The value after ``value`` in the option's cycle (a bool flips)."""
    if isinstance(value, bool):
        return not value
    cycle = CYCLES.get(name, (value,))
    if value not in cycle:
        return cycle[0]
    return cycle[(cycle.index(value) + 1) % len(cycle)]


def changed(game: str, options: dict[str, Any], name: str, players: int | None) -> dict[str, Any]:
    """The options with ``name`` moved to its next value; ValueError if the engine refuses.

    ``players`` (when known) is checked too, e.g. ``pairs`` needs exactly 4 players.
    """
    if name not in option_names(game):
        raise ValueError(f"unknown option {name}")
    updated = {**options, name: next_value(name, options.get(name))}
    if game == "scala40":
        parsed = scala40.Options.from_dict(updated)
        if players is not None and players >= 2:
            parsed.check_players(players)
        return parsed.to_dict()
    return scopone.Options.from_dict(updated).to_dict()


def value_text(value: Any, lang: str) -> str:
    """A short display of an option value."""
    if isinstance(value, bool):
        return ("sì" if value else "no") if lang == "it" else ("on" if value else "off")
    return str(value)
