"""The options in words: the lobby's panel (every option of a game, docs/rules.md, its value,
the next one) and what ``/rules`` lists (the options that apply, the changed ones first).

The engine's ``Options`` validates every change, so an invalid combination is refused with the
engine's own message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from telegram import InlineKeyboardButton

from bot.i18n import Html, t
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


UNITS = {"turn_seconds": "val.seconds", "match_minutes": "val.minutes"}
"""Options that are a duration, and the text of their unit (0: no limit)."""


def option_rows(
    options: dict[str, Any], names: list[str], lang: str, data: Callable[[int], str]
) -> list[list[InlineKeyboardButton]]:
    """The options panel's buttons: each option of ``names`` with its value ("Formato: a
    punti"), a row each; ``data`` gives the callback data of the ``i``-th."""
    return [
        [InlineKeyboardButton(option_line(name, options.get(name), lang), callback_data=data(i))]
        for i, name in enumerate(names)
    ]


def value_text(name: str, value: Any, lang: str) -> str:
    """An option's value in words: "sì", "a punti", "120 s", "senza limite", "101"."""
    if isinstance(value, bool):
        return t(lang, "val.yes" if value else "val.no")
    if isinstance(value, str):
        return t(lang, f"val.{name}.{value}")
    if name in UNITS:
        return t(lang, UNITS[name], value=value) if value else t(lang, "val.off")
    return str(value)


def option_line(name: str, value: Any, lang: str) -> Html:
    """An option and its value: "Limite punti: 101"."""
    return t(lang, "opt.line", label=t(lang, f"opt.{name}"), value=value_text(name, value, lang))


def rules_lines(game: str, options: dict[str, Any], lang: str) -> list[Html]:
    """What ``/rules`` lists of a match: the options that apply to it (another format's limit,
    say, does not), those changed from the game's defaults first, each group in the order of
    docs/rules.md."""
    spec = games.game(game)
    parsed = spec.parse_options(options)
    values, defaults, idle = parsed.to_dict(), spec.default_options(), parsed.idle()
    names = [name for name in spec.option_names() if name not in idle]
    names.sort(key=lambda name: values[name] == defaults[name])  # stable: the changed first
    return [option_line(name, values[name], lang) for name in names]
