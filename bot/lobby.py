"""The lobby: seats, computer seats, options, pairs, start and cancel (and its message)."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.core import SEATS, Answer, Core, LobbyPress
from bot.delivery import Render, Rendered
from bot.i18n import html_lines, t
from bot.options_ui import changed as option_changed
from bot.options_ui import option_names, value_text
from engine import games
from engine.ai import LEVELS
from engine.cards import secure_seed
from storage import MatchRecord

log = logging.getLogger(__name__)


OFFERED_LEVELS = {"scala40": ("facile", "esperto"), "scopone": ("facile", "esperto")}
"""Computer levels the lobby offers per game (both beat ``facile`` in python -m bench ai)."""


class Lobby(Core):
    """Lobby presses and the lobby message."""

    def new_lobby(
        self, chat_id: int, user_id: int, name: str, game: str, private_ok: bool
    ) -> MatchRecord:
        """Open a lobby in a group (the caller checked there is no active match)."""
        options = self.store.chat_settings(chat_id).default_options.get(
            game
        ) or games.default_options(game)
        record = self.store.create_match(chat_id, game, options, user_id, name, secure_seed())
        if not private_ok:
            # The host joins like everyone else, through the private chat's deep link.
            record = self.store.remove_seat(record.id, 0)
        self.request_table(record.id)
        return record

    def table_render(self, match_id: int) -> Render | None:
        """The lobby message while the match waits to start; then the table."""
        record = self.store.get_match(match_id)
        if record.status != "lobby":
            return super().table_render(match_id)
        lang = self.group_lang(record.chat_id)
        rendered = self.lobby_view(record, lang, self._panels.get(match_id, False))
        return Render(record.table_message_id, record.table_digest, *rendered, record.table_pending)

    def lobby_view(self, record: MatchRecord, lang: str, options_panel: bool = False) -> Rendered:
        """The lobby message and its buttons (or the options panel)."""
        low, high = SEATS[record.game]
        game = t(lang, f"game.{record.game}")
        version = record.version
        if options_panel:
            lines = [t(lang, "lobby.options_title", game=game)]
            buttons = [
                [
                    InlineKeyboardButton(
                        t(
                            lang,
                            "opt.line",
                            label=t(lang, f"opt.{name}"),
                            value=value_text(record.options.get(name), lang),
                        ),
                        callback_data=callbacks.lobby(record.id, version, "ov", index),
                    )
                ]
                for index, name in enumerate(option_names(record.game))
            ]
            buttons.append(
                [
                    InlineKeyboardButton(
                        t(lang, "btn.back"), callback_data=callbacks.lobby(record.id, version, "ob")
                    )
                ]
            )
            return "\n".join(lines), InlineKeyboardMarkup(buttons)
        creator = next((s.name for s in record.seats if s.user_id == record.creator_id), None)
        lines = [t(lang, "lobby.title", game=game)]
        if creator:
            lines.append(t(lang, "lobby.creator", name=creator))
        lines.append(t(lang, "lobby.players", count=len(record.seats), min=low, max=high))
        if record.seats:
            lines += [
                t(lang, "lobby.seat", position=i + 1, name=s.name)
                for i, s in enumerate(record.seats)
            ]
        else:
            lines.append(t(lang, "lobby.nobody"))
        if record.game == "scala40" and record.options.get("pairs") and len(record.seats) == 4:
            names = [s.name for s in record.seats]
            lines.append(
                t(lang, "lobby.pairs", a=f"{names[0]} + {names[2]}", b=f"{names[1]} + {names[3]}")
            )
        lines.append(t(lang, "lobby.options", summary=self.options_summary(record, lang)))
        lines.append(t(lang, "lobby.hint"))

        def button(key: str, op: str) -> InlineKeyboardButton:
            return InlineKeyboardButton(
                t(lang, key), callback_data=callbacks.lobby(record.id, version, op)
            )

        def computer(level: str) -> InlineKeyboardButton:
            data = callbacks.lobby(record.id, version, "c", level)
            return InlineKeyboardButton(t(lang, f"btn.computer_{level}"), callback_data=data)

        keyboard = [
            [button("btn.join", "j"), button("btn.leave", "l")],
            [computer(level) for level in OFFERED_LEVELS[record.game]],
            [button("btn.options", "o"), button("btn.start", "s")],
            [button("btn.cancel", "x")],
        ]
        if any(s.is_computer for s in record.seats):
            keyboard[1].append(button("btn.computer_remove", "cr"))
        if record.game == "scopone" or record.options.get("pairs"):
            keyboard[3].insert(0, button("btn.partners", "p"))
        if record.game == "scopone" or record.options.get("pairs"):
            keyboard[2].insert(0, button("btn.partners", "p"))
        return "\n".join(lines), InlineKeyboardMarkup(keyboard)

    def options_summary(self, record: MatchRecord, lang: str) -> str:
        """The options that differ from the game's defaults (or the format and limit)."""
        defaults = games.default_options(record.game)
        changed = [
            f"{t(lang, f'opt.{name}')} {value_text(value, lang)}"
            for name, value in record.options.items()
            if defaults.get(name) != value
        ]
        if record.game == "scala40":
            base = f"{t(lang, 'opt.limit')} {record.options.get('limit')}"
        else:
            base = f"{t(lang, 'opt.target')} {record.options.get('target')}"
        return html_lines([base, *[c for c in changed if not c.startswith(base.split()[0])]], ", ")

    async def lobby_press(
        self, data: callbacks.Callback, user_id: int, name: str, chat_id: int
    ) -> Answer:
        """A lobby button pressed in ``chat_id``: join, leave, options, partners, start, cancel
        (only in the lobby's own chat)."""
        if self.record_or_none(data.match_id) is None:  # no lock for a match that is not
            return Answer(t(self.user_lang(user_id), "ans.stale"))
        async with self.lock(data.match_id):
            record = self.record_or_none(data.match_id)
            if record is None or record.status != "lobby" or record.chat_id != chat_id:
                return Answer(t(self.user_lang(user_id), "ans.stale"))
            lang = self.user_lang(user_id)
            if data.version != record.version and data.op not in ("j", "l"):
                return Answer(t(lang, "ans.stale"))
            handler = {
                "j": self._join,
                "l": self._leave,
                "o": self._options,
                "ob": self._options,
                "ov": self._option_value,
                "p": self._partners,
                "c": self._add_computer,
                "cr": self._remove_computer,
                "s": self._start,
                "x": self._cancel,
            }.get(data.op)
            if handler is None:
                return Answer(t(lang, "ans.stale"))
            return await handler(LobbyPress(record, data, user_id, name, lang))

    def refresh_lobby(self, match_id: int, options_panel: bool = False) -> None:
        """Schedule an edit of the lobby message (coalesced: the latest state is shown)."""
        self._panels[match_id] = options_panel
        self.request_table(match_id)

    async def _join(self, press: LobbyPress) -> Answer:
        record, user_id, name, lang = press.record, press.user_id, press.name, press.lang
        if record.seat_of(user_id) is not None:
            return Answer(t(lang, "ans.already_joined"))
        if len(record.seats) >= SEATS[record.game][1]:
            return Answer(t(lang, "ans.full"))
        if not self.store.has_private_chat(user_id):
            return Answer(t(lang, "ans.open_private"), url=self.deep_link(record.id))
        if not await self.is_member(record.chat_id, user_id):
            return Answer(t(lang, "ans.not_member"), alert=True)
        self.store.add_seat(record.id, user_id, name, None)
        self.refresh_lobby(record.id)
        return Answer(t(lang, "ans.joined"))

    async def join_from_link(self, match_id: int, user_id: int, name: str) -> str | None:
        """``/start j<match>`` in private: sit the user at that lobby if they belong to its
        group; the answer's catalog key (None: no such lobby)."""
        if self.record_or_none(match_id) is None:
            return None
        async with self.lock(match_id):
            record = self.record_or_none(match_id)
            if record is None or record.status != "lobby":
                return None
            if record.seat_of(user_id) is not None:
                return "ans.already_joined"
            if not await self.is_member(record.chat_id, user_id):
                return "ans.not_member"
            if len(record.seats) >= SEATS[record.game][1]:
                return "ans.full"
            self.store.add_seat(record.id, user_id, name, None)
            self.refresh_lobby(record.id)
            return "ans.joined"

    async def _add_computer(self, press: LobbyPress) -> Answer:
        """The host adds a computer seat of the chosen level."""
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        level = press.data.arg if press.data.arg in LEVELS else "facile"
        if len(record.seats) >= SEATS[record.game][1]:
            return Answer(t(lang, "ans.full"))
        count = sum(1 for s in record.seats if s.is_computer) + 1
        name = t(self.group_lang(record.chat_id), "lobby.computer", number=count, level=level)
        self.store.add_seat(record.id, None, name, level)
        self.refresh_lobby(record.id)
        return Answer()

    async def _remove_computer(self, press: LobbyPress) -> Answer:
        """The host removes the last computer seat."""
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        computers = [s.seat for s in record.seats if s.is_computer]
        if computers:
            self.store.remove_seat(record.id, computers[-1])
            self.refresh_lobby(record.id)
        return Answer()

    async def _leave(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        seat = record.seat_of(user_id)
        if seat is None:
            return Answer(t(lang, "ans.not_joined"))
        self.store.remove_seat(record.id, seat)
        self.refresh_lobby(record.id)
        return Answer(t(lang, "ans.left"))

    async def _options(self, press: LobbyPress) -> Answer:
        record, data, user_id, lang = press.record, press.data, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        self.refresh_lobby(record.id, options_panel=data.op == "o")
        return Answer()

    async def _option_value(self, press: LobbyPress) -> Answer:
        record, data, user_id, lang = press.record, press.data, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        names = option_names(record.game)
        if not data.arg.isdigit() or int(data.arg) >= len(names):
            return Answer(t(lang, "ans.stale"))
        try:
            options = option_changed(
                record.game, record.options, names[int(data.arg)], len(record.seats) or None
            )
        except ValueError as error:
            return Answer(t(lang, "ans.option_invalid", message=str(error)), alert=True)
        self.store.set_match_options(record.id, options)
        self.refresh_lobby(record.id, options_panel=True)
        return Answer()

    async def _partners(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        if len(record.seats) == 4:
            # Seats 0+2 play against 1+3: rotating seats 1-3 gives seat 0 each partner in turn.
            self.store.reorder_seats(record.id, [0, 2, 3, 1])
        self.refresh_lobby(record.id)
        return Answer()

    async def _cancel(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if user_id != record.creator_id and not await self.is_admin(record.chat_id, user_id):
            return Answer(t(lang, "ans.only_creator_admin"))
        self.store.set_status(record.id, "stopped")
        self.request_table(record.id)
        return Answer()

    async def _start(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        low, high = SEATS[record.game]
        if not low <= len(record.seats) <= high:
            return Answer(t(lang, "ans.seats", min=low, max=high), alert=True)
        try:
            match = games.new_match(record.game, len(record.seats), record.seed, record.options)
        except ValueError as error:
            return Answer(t(lang, "ans.option_invalid", message=str(error)), alert=True)
        self.store.start_match(record.id, match.to_json(), record.version)
        deadline, deadline_seat = self.next_deadline(record, match)
        self.store.set_deadline(record.id, deadline, deadline_seat)
        record = self.store.get_match(record.id)
        self._engines[record.id] = (record.version, match)
        self.arm_timer(record)
        self.render_all(record)
        return Answer()
