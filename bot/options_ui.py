"""The lobby's options panel: every option of a game (docs/rules.md), its value, the next one.

The engine's ``Options`` validates every change, so an invalid combination is refused with the
engine's own message.
"""

from __future__ import annotations

from typing import Any

from engine import games


def next_value(spec: games.GameSpec, name: str, value: Any) -> Any:
    """The value after ``value`` among the game's choices for the option (a flag flips)."""
    if isinstance(value, bool):
        return not value
    cycle = spec.choices.get(name, (value,))
    if value not in cycle:
        return cycle[0]
    return cycle[(cycle.index(value) + 1) % len(cycle)]


def changed(game: str, options: dict[str, Any], name: str, players: int | None) -> dict[str, Any]:
    """The options with ``name`` moved to its next value; ValueError if the engine refuses.

    ``players`` (when known) is checked too, e.g. ``pairs`` needs exactly 4 players.
    """
    spec = games.game(game)
    if name not in spec.option_names():
        raise ValueError(f"unknown option {name}")
    updated = {**options, name: next_value(spec, name, options.get(name))}
    return spec.checked_options(updated, players)


def value_text(value: Any, lang: str) -> str:
    """A short display of an option value."""
    if isinstance(value, bool):
        return ("sì" if value else "no") if lang == "it" else ("on" if value else "off")
    return str(value)
