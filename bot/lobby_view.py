"""The lobby message: the seats, the options, and the buttons to join, add computers, start."""

from __future__ import annotations

from collections.abc import Mapping

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.callbacks import LobbyOp
from bot.games import ui_for
from bot.i18n import Html, html_lines, isolated, t
from bot.options_ui import option_rows, value_text
from bot.rankings import level_words
from bot.render import Rendered
from bot.render.table import PAIRED_SEATS
from engine.games import game
from engine.ratings import Rating
from storage import MatchRecord


def lobby_view(
    record: MatchRecord,
    lang: str,
    options_panel: bool = False,
    levels: Mapping[int, Rating] | None = None,
) -> Rendered:
    """The lobby message and its buttons (or the options panel); ``levels``: the seats whose
    player's level is shown next to their name (R-6.3)."""
    if options_panel:
        return _options_panel(record, lang)
    spec, ui = game(record.game), ui_for(record.game)
    low, high = spec.seats
    creator = next((s.name for s in record.seats if s.user_id == record.creator_id), None)
    creator = None if creator is None else isolated(creator)
    lines: list[str] = [t(lang, "lobby.title", game=t(lang, f"game.{record.game}"))]
    if creator:
        lines.append(t(lang, "lobby.creator", name=creator))
    lines.append(t(lang, "lobby.players", count=len(record.seats), min=low, max=high))
    if record.seats:
        lines += [
            _seat_line(i, s.name, (levels or {}).get(i), lang) for i, s in enumerate(record.seats)
        ]
    else:
        lines.append(t(lang, "lobby.nobody"))
    lines += ui.lobby_lines(record, lang)
    lines.append(t(lang, "lobby.options", summary=options_summary(record, lang)))
    private = record.chat_id > 0  # a match against the computer: one human
    lines.append(t(lang, "lobby.hint_private" if private else "lobby.hint"))

    def button(key: str, op: LobbyOp) -> InlineKeyboardButton:
        data = callbacks.lobby(record.id, record.version, op)
        return InlineKeyboardButton(t(lang, key), callback_data=data)

    def computer(level: str) -> InlineKeyboardButton:
        data = callbacks.lobby(record.id, record.version, LobbyOp.COMPUTER, level)
        return InlineKeyboardButton(t(lang, f"btn.computer_{level}"), callback_data=data)

    computers = [computer(level) for level in spec.levels]
    if any(s.is_computer for s in record.seats):
        computers.append(button("btn.computer_remove", LobbyOp.COMPUTER_REMOVE))
    last = [button("btn.cancel", LobbyOp.CANCEL)]
    if ui.has_partners(record.options) and len(record.seats) == PAIRED_SEATS:
        last.insert(0, button("btn.partners", LobbyOp.PARTNERS))
    keyboard = [
        [button("btn.join", LobbyOp.JOIN), button("btn.leave", LobbyOp.LEAVE)],
        computers,
        [button("btn.options", LobbyOp.OPTIONS), button("btn.start", LobbyOp.START)],
        last,
    ]
    if private:
        keyboard = keyboard[1:]
    return "\n".join(lines), InlineKeyboardMarkup(keyboard)


def _seat_line(seat: int, name: str, rating: Rating | None, lang: str) -> str:
    """``2. Bea``, or with the player's level ``2. Bea · dilettante (1.512)``."""
    if rating is None:
        return t(lang, "lobby.seat", position=seat + 1, name=isolated(name))
    level, points = level_words(rating, lang)
    return t(
        lang, "lobby.seat_level", position=seat + 1, name=isolated(name), level=level, points=points
    )


def _options_panel(record: MatchRecord, lang: str) -> Rendered:
    lines = [t(lang, "lobby.options_title", game=t(lang, f"game.{record.game}"))]
    names = game(record.game).option_names()
    buttons = option_rows(
        record.options,
        names,
        lang,
        lambda index: callbacks.lobby(record.id, record.version, LobbyOp.OPTION_VALUE, index),
    )
    back = callbacks.lobby(record.id, record.version, LobbyOp.OPTIONS_BACK)
    buttons.append([InlineKeyboardButton(t(lang, "btn.back"), callback_data=back)])
    return "\n".join(lines), InlineKeyboardMarkup(buttons)


def options_summary(record: MatchRecord, lang: str) -> Html:
    """The option that decides the match (the limit, the hands, the target), then those that
    differ from the game's defaults and apply (no other format's limit)."""
    spec = game(record.game)
    defaults, idle = spec.default_options(), spec.parse_options(record.options).idle()
    headline = ui_for(record.game).headline_option(record.options)
    named = [headline] if headline else []
    named += [
        name
        for name, value in record.options.items()
        if defaults.get(name) != value and name != headline and name not in idle
    ]
    if not named:  # a game with no option it always names, left as it comes
        return t(lang, "opt.defaults")
    return html_lines(
        [
            f"{t(lang, f'opt.{name}')} {value_text(name, record.options.get(name), lang)}"
            for name in named
        ],
        ", ",
    )
