"""The bot's core: lobby, moves and rendering, between Telegram, the engines and the store.

Every handler funnels into :class:`Tavolo`. A move follows one path: check the press, play it on
the engine under the match's lock, commit it to the store (the store's version check refuses a
racing writer), then answer and schedule the renders. Nothing lives only in memory: caches here
are rebuilt from the store after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from html import escape
from typing import Any, NamedTuple

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from bot import callbacks
from bot.hand_ui import (
    FREED,
    TOP,
    HandUI,
    attach_action,
    cleared,
    declare_first_joker,
    display,
    meld_action,
    move_selected_first,
    open_action,
    toggle,
    tokens,
)
from bot.i18n import error_text, language_for, t
from bot.options_ui import changed as option_changed
from bot.options_ui import option_names, value_text
from bot.publisher import Publisher, Rendered
from bot.render import hand as hand_render
from bot.render import table as table_render
from bot.render.cards import card as show_card
from bot.timers import Scheduler, utc_now
from engine import games, scala40, scopone
from engine.ai import LEVELS
from engine.cards import secure_seed
from engine.errors import IllegalAction, InvalidMeld
from engine.scala40.greedy import greedy_action as scala40_greedy
from engine.scala40.hints import action_joker_choices, meld_joker_choices
from storage import MatchNotFound, MatchRecord, PlayerResult, SeatRecord, StaleVersion, Store

log = logging.getLogger(__name__)

SEATS = {"scala40": (2, 6), "scopone": (4, 4)}
TABLE_DELAY = 0.3
"""Seconds a table edit waits for more moves to show at once; end-to-end tests set it to 0."""
GROUP_SPACING = 3.0
"""Seconds between two table edits in one group: Telegram takes about 20 messages a minute per
group, so edits are paced here, rendering the latest state when the slot comes, instead of
queueing stale states in the rate limiter."""
COMPUTER_PAUSE = 1.2
"""Seconds a computer seat waits before its move, so the table reads like a game."""
LENIENT_OPS = ("t", "ss", "sr")
MID_TURN = ("draw", "take", "open", "meld", "attach", "swap", "clock")
"""Scala 40 actions inside a turn: the turn's deadline stays as it is."""
"""Hand presses accepted from an older keyboard: a card toggle names its card, not a position,
so quick taps on several cards all count; sorting is idempotent."""


class LobbyPress(NamedTuple):
    """A lobby button press, as the lobby's handlers take it."""

    record: MatchRecord
    data: callbacks.Callback
    user_id: int
    name: str
    lang: str
    admin: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """The short answer to a button press (answerCallbackQuery)."""

    text: str = ""
    url: str | None = None
    alert: bool = False


def ui_of(seat: SeatRecord) -> HandUI:
    """The stored seat UI as the bot's :class:`HandUI`."""
    ui = seat.ui
    return HandUI(
        selected=tuple(ui.selected),
        staged=tuple(tuple(m) for m in ui.staged),
        order=tuple(ui.order or ()),
        sort=ui.sort,
        mode=ui.mode,
        pending=ui.pending,
        version=ui.version,
    )


def ui_changes(ui: HandUI) -> dict[str, Any]:
    """The fields of a :class:`HandUI` as the store's ``update_seat_ui`` takes them."""
    return {
        "selected": list(ui.selected),
        "staged": [list(m) for m in ui.staged],
        "order": list(ui.order) or None,
        "sort": ui.sort,
        "mode": ui.mode,
        "pending": ui.pending,
    }


class Tavolo:
    """The service behind every handler."""

    def __init__(
        self,
        store: Store,
        bot: Bot,
        scheduler: Scheduler | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.store = store
        self.bot = bot
        self.publisher = Publisher(bot)
        self.scheduler = scheduler
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._engines: dict[int, tuple[int, games.GameMatch]] = {}
        self.table_delay = TABLE_DELAY
        self._table_due: dict[int, float] = {}
        self._table_edited: dict[int, float] = {}
        self._table_wake: dict[int, asyncio.Event] = {}
        self._panels: dict[int, bool] = {}
        self._blocked: set[tuple[int, int]] = set()
        self._driving: set[int] = set()
        self.computer_pause = COMPUTER_PAUSE
        self._background: set[asyncio.Task[None]] = set()
        self.titles: dict[int, str] = {}

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run event messages (bells, results) after the answer, tracked for :meth:`drain`."""
        task = asyncio.create_task(self._guarded(work))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @staticmethod
    async def _guarded(work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:
            log.exception("background work failed")

    async def drain(self) -> None:
        """Wait until every scheduled render and event message is done."""
        while self._background or any(not t.done() for t in self.publisher._tasks.values()):
            if self._background:
                await asyncio.gather(*list(self._background), return_exceptions=True)
            await self.publisher.drain()

    # --- small helpers -------------------------------------------------------------------------

    def lock(self, match_id: int) -> asyncio.Lock:
        """The per-match lock that serialises moves in this process."""
        return self._locks.setdefault(match_id, asyncio.Lock())

    def engine(self, record: MatchRecord) -> games.GameMatch:
        """The engine match of a record (cached per version; a private copy per version)."""
        cached = self._engines.get(record.id)
        if cached is not None and cached[0] == record.version:
            return cached[1]
        match = self.store.load_engine_match(record)
        self._engines[record.id] = (record.version, match)
        return match

    def record_or_none(self, match_id: int) -> MatchRecord | None:
        """The stored match, or None when there is no such match (a forged button)."""
        try:
            return self.store.get_match(match_id)
        except MatchNotFound:
            return None

    def forget(self, match_id: int) -> None:
        """Drop the cached engine (after a failed commit it may be ahead of the store)."""
        self._engines.pop(match_id, None)

    def group_lang(self, chat_id: int) -> str:
        """The group's language (set with /language; Italian by default); in a private chat,
        where a player plays against the computer, the player's own."""
        if chat_id > 0:
            return self.user_lang(chat_id)
        return self.store.chat_settings(chat_id).language or "it"

    def user_lang(self, user_id: int, code: str | None = None) -> str:
        """A user's language: chosen with /language, else from Telegram's language code."""
        user = self.store.get_user(user_id)
        if user is not None and user.language:
            return user.language
        return language_for(
            code if user is None or user.language_code is None else user.language_code
        )

    def names(self, record: MatchRecord) -> list[str]:
        """Seat display names, in seat order."""
        return [seat.name for seat in record.seats]

    def group_title(self, chat_id: int) -> str:
        """The group's title for labelling hands (remembered from updates)."""
        if chat_id > 0:
            return t(self.user_lang(chat_id), "private.title")
        return self.titles.get(chat_id) or self.store.chat_settings(chat_id).title or str(chat_id)

    def deep_link(self, match_id: int) -> str:
        """``t.me/<bot>?start=j<match>``: opens the private chat and joins the match."""
        return f"https://t.me/{self.bot.username}?start=j{match_id}"

    # --- lobby -----------------------------------------------------------------------------------

    async def new_lobby(
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
        lang = self.group_lang(chat_id)
        message_id = await self.publisher.send(chat_id, *self.lobby_view(record, lang))
        if message_id is not None:
            self.store.set_table_message(record.id, chat_id, message_id)
        return self.store.get_match(record.id)

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
            lines.append(t(lang, "lobby.creator", name=escape(creator)))
        lines.append(t(lang, "lobby.players", count=len(record.seats), min=low, max=high))
        if record.seats:
            lines += [
                t(lang, "lobby.seat", position=i + 1, name=escape(s.name))
                for i, s in enumerate(record.seats)
            ]
        else:
            lines.append(t(lang, "lobby.nobody"))
        if record.game == "scala40" and record.options.get("pairs") and len(record.seats) == 4:
            names = [escape(s.name) for s in record.seats]
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
            [computer("facile"), computer("esperto")],
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
        return ", ".join([base, *[c for c in changed if not c.startswith(base.split()[0])]])

    async def lobby_press(
        self, data: callbacks.Callback, user_id: int, name: str, is_admin: bool
    ) -> Answer:
        """A lobby button: join, leave, options, partners, start, cancel."""
        async with self.lock(data.match_id):
            record = self.record_or_none(data.match_id)
            if record is None or record.status != "lobby":
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
            return await handler(LobbyPress(record, data, user_id, name, lang, is_admin))

    async def _refresh_lobby(self, match_id: int, options_panel: bool = False) -> None:
        """Schedule an edit of the lobby message (coalesced: the latest state is shown)."""
        self._panels[match_id] = options_panel

        async def job() -> None:
            record = self.store.get_match(match_id)
            if record.status != "lobby" or record.table_message_id is None:
                return
            lang = self.group_lang(record.chat_id)
            rendered = self.lobby_view(record, lang, self._panels.get(match_id, False))
            chat_id = record.table_chat_id or record.chat_id
            await self.publisher.put(chat_id, record.table_message_id, rendered)

        self.publisher.coalesce(("lobby", match_id), job)

    async def _join(self, press: LobbyPress) -> Answer:
        record, user_id, name, lang = press.record, press.user_id, press.name, press.lang
        if record.seat_of(user_id) is not None:
            return Answer(t(lang, "ans.already_joined"))
        if len(record.seats) >= SEATS[record.game][1]:
            return Answer(t(lang, "ans.full"))
        if not self.store.has_private_chat(user_id):
            return Answer(t(lang, "ans.open_private"), url=self.deep_link(record.id))
        self.store.add_seat(record.id, user_id, name, None)
        await self._refresh_lobby(record.id)
        return Answer(t(lang, "ans.joined"))

    async def join_from_link(self, match_id: int, user_id: int, name: str) -> bool:
        """``/start j<match>`` in private: sit the user at that lobby; whether it worked."""
        async with self.lock(match_id):
            record = self.record_or_none(match_id)
            if record is None or record.status != "lobby":
                return False
            if record.seat_of(user_id) is None and len(record.seats) < SEATS[record.game][1]:
                self.store.add_seat(record.id, user_id, name, None)
                await self._refresh_lobby(record.id)
            return True

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
        await self._refresh_lobby(record.id)
        return Answer()

    async def _remove_computer(self, press: LobbyPress) -> Answer:
        """The host removes the last computer seat."""
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        computers = [s.seat for s in record.seats if s.is_computer]
        if computers:
            self.store.remove_seat(record.id, computers[-1])
            await self._refresh_lobby(record.id)
        return Answer()

    async def _leave(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        seat = record.seat_of(user_id)
        if seat is None:
            return Answer(t(lang, "ans.not_joined"))
        self.store.remove_seat(record.id, seat)
        await self._refresh_lobby(record.id)
        return Answer(t(lang, "ans.left"))

    async def _options(self, press: LobbyPress) -> Answer:
        record, data, user_id, lang = press.record, press.data, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        await self._refresh_lobby(record.id, options_panel=data.op == "o")
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
        await self._refresh_lobby(record.id, options_panel=True)
        return Answer()

    async def _partners(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        if len(record.seats) == 4:
            # Seats 0+2 play against 1+3: rotating seats 1-3 gives seat 0 each partner in turn.
            self.store.reorder_seats(record.id, [0, 2, 3, 1])
        await self._refresh_lobby(record.id)
        return Answer()

    async def _cancel(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if user_id != record.creator_id and not press.admin:
            return Answer(t(lang, "ans.only_creator_admin"))
        self.store.set_status(record.id, "stopped")
        if record.table_chat_id is not None and record.table_message_id is not None:
            await self.publisher.put(
                record.table_chat_id,
                record.table_message_id,
                (t(self.group_lang(record.chat_id), "lobby.cancelled"), None),
            )
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
        self.render_all(record, previous_to_play=None)
        return Answer()

    # --- rendering -----------------------------------------------------------------------------

    def table_view(self, record: MatchRecord) -> Rendered:
        """The table message of a running or finished match."""
        match = self.engine(record)
        lang = self.group_lang(record.chat_id)
        names = self.names(record)
        if isinstance(match, scala40.Match):
            text = table_render.scala40_table(match.view(0), names, lang, record.deadline)
        else:
            assert isinstance(match, scopone.Match)
            text = table_render.scopone_table(match.view(0), names, lang, record.deadline)
        return text, None

    def hand_view(self, record: MatchRecord, seat: int) -> Rendered:
        """The private hand message of a seat."""
        match = self.engine(record)
        seat_record = record.seats[seat]
        lang = self.user_lang(seat_record.user_id or 0)
        names = self.names(record)
        title = self.group_title(record.chat_id)
        ui = ui_of(seat_record)
        if isinstance(match, scala40.Match):
            return hand_render.scala40_hand(
                record.id,
                seat,
                match.view(seat),
                ui,
                names,
                title,
                lang,
                match.options.opening_points,
            )
        assert isinstance(match, scopone.Match)
        return hand_render.scopone_hand(record.id, seat, match.view(seat), ui, names, title, lang)

    def request_table(self, match_id: int, quiet: bool = False) -> None:
        """Schedule a (coalesced) edit of the group's table message.

        The edit waits ``table_delay`` seconds so that moves made meanwhile join it (a group
        takes about 20 messages a minute); a ``quiet`` move (a draw) waits three times as long,
        so it often shows together with the discard that follows it.
        """
        loop = asyncio.get_running_loop()
        due = loop.time() + self.table_delay * (3 if quiet else 1)
        if self.table_delay:
            due = max(due, self._table_edited.get(match_id, 0.0) + GROUP_SPACING)
        if due < self._table_due.get(match_id, float("inf")):
            self._table_due[match_id] = due
            self._table_wake.setdefault(match_id, asyncio.Event()).set()

        async def job() -> None:
            await self._until_due(match_id)
            self._table_edited[match_id] = asyncio.get_running_loop().time()
            record = self.store.get_match(match_id)
            chat_id = record.table_chat_id or record.chat_id
            rendered = self.table_view(record)
            self.publisher.remember(chat_id, record.table_message_id, record.table_digest)
            message_id = await self.publisher.put(chat_id, record.table_message_id, rendered)
            if message_id is not None and message_id != record.table_message_id:
                self.store.set_table_message(match_id, chat_id, message_id)
            shown = self.publisher.showing(chat_id, message_id)
            if shown != record.table_digest:
                self.store.set_table_digest(match_id, shown)

        self.publisher.coalesce(("table", match_id), job)

    async def _until_due(self, match_id: int) -> None:
        loop = asyncio.get_running_loop()
        wake = self._table_wake.setdefault(match_id, asyncio.Event())
        while (remaining := self._table_due.get(match_id, 0.0) - loop.time()) > 0:
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), remaining)
        self._table_due.pop(match_id, None)

    def request_hand(self, match_id: int, seat: int) -> None:
        """Schedule an edit (or a send) of one seat's hand message, coalesced."""

        async def job() -> None:
            record = self.store.get_match(match_id)
            seat_record = record.seats[seat]
            if seat_record.user_id is None or record.status not in (
                "playing",
                "finished",
                "stopped",
            ):
                return
            rendered = self.hand_view(record, seat)
            chat_id = seat_record.user_id
            self.publisher.remember(chat_id, seat_record.hand_message_id, seat_record.hand_digest)
            message_id = await self.publisher.put(chat_id, seat_record.hand_message_id, rendered)
            if message_id is None:
                await self.report_blocked(record, seat)
                return
            self._blocked.discard((record.id, seat))
            if message_id != seat_record.hand_message_id:
                self.store.set_hand_message(record.id, seat, message_id)
            shown = self.publisher.showing(chat_id, message_id)
            if shown != seat_record.hand_digest:
                self.store.set_hand_digest(record.id, seat, shown)

        self.publisher.coalesce(("hand", match_id, seat), job)

    async def report_blocked(self, record: MatchRecord, seat: int) -> None:
        """A player the bot cannot write to: say so in the group with the deep link, once
        (until a message to that player gets through again)."""
        if (record.id, seat) in self._blocked:
            return
        self._blocked.add((record.id, seat))
        lang = self.group_lang(record.chat_id)
        text = t(
            lang,
            "notify.blocked",
            name=escape(record.seats[seat].name),
            link=self.deep_link(record.id),
        )
        await self.publisher.send(record.chat_id, text)

    async def notify_turn(self, match_id: int, seat: int) -> None:
        """A new short message rings the player whose turn starts; the earlier one goes."""
        record = self.store.get_match(match_id)
        seat_record = record.seats[seat]
        if seat_record.user_id is None:
            return
        if seat_record.turn_message_id is not None and seat_record.turn_chat_id is not None:
            await self.publisher.delete(seat_record.turn_chat_id, seat_record.turn_message_id)
        lang = self.user_lang(seat_record.user_id)
        text = t(lang, "notify.turn", group=escape(self.group_title(record.chat_id)))
        text += table_render.deadline_text(lang, record.deadline)
        text += "\n" + self.turn_facts(record, seat, lang)
        message_id = await self.publisher.send(seat_record.user_id, text)
        if message_id is None:
            await self.report_blocked(record, seat)
        self.store.set_turn_message(
            record.id, seat, seat_record.user_id if message_id else None, message_id
        )

    def turn_facts(self, record: MatchRecord, seat: int, lang: str) -> str:
        """What the bell shows: the discard pile (Scala 40) or the table's cards (Scopone)."""
        match = self.engine(record)
        if isinstance(match, scala40.Match):
            view = match.view(seat)
            top = show_card(view.discard_top) if view.discard_top else "—"
            return t(lang, "hand.piles", card=top, stock=view.stock_size)
        assert isinstance(match, scopone.Match)
        cards = " ".join(show_card(str(c)) for c in match.view(seat).table) or "—"
        return t(lang, "hand.scopone_table", cards=cards)

    def render_all(self, record: MatchRecord, previous_to_play: int | None) -> None:
        """After a start or a resume: the table, every hand, and the turn notification."""
        self.request_table(record.id)
        for seat in range(len(record.seats)):
            self.request_hand(record.id, seat)
        match = self.engine(record)
        if match.to_play is not None and self.is_computer(record, match, match.to_play):
            self.drive_computers(record.id)
        elif match.to_play is not None and match.to_play != previous_to_play:
            self.spawn(self._announce(record.id, record.chat_id, [], match.to_play))

    # --- moves ----------------------------------------------------------------------------------

    async def hand_press(self, data: callbacks.Callback, user_id: int) -> Answer:
        """A hand button: check who and when, then a UI change or a move."""
        async with self.lock(data.match_id):
            record = self.record_or_none(data.match_id)
            lang = self.user_lang(user_id)
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            if not 0 <= data.seat < len(record.seats) or record.seats[data.seat].user_id != user_id:
                return Answer(t(lang, "ans.not_yours"))
            seat_record = record.seats[data.seat]
            if data.version != seat_record.ui.version and data.op not in LENIENT_OPS:
                return Answer(t(lang, "ans.stale"))
            match = self.engine(record)
            if isinstance(match, scala40.Match):
                return await self._scala40_press(record, match, data, lang)
            assert isinstance(match, scopone.Match)
            return await self._scopone_press(record, match, data, lang)

    async def _set_ui(self, record: MatchRecord, seat: int, ui: HandUI) -> None:
        self.store.update_seat_ui(record.id, seat, ui.version, **ui_changes(ui))
        self.request_hand(record.id, seat)

    async def _scala40_press(
        self, record: MatchRecord, match: scala40.Match, data: callbacks.Callback, lang: str
    ) -> Answer:
        seat = data.seat
        ui = ui_of(record.seats[seat])
        view = match.view(seat)
        my_turn = match.to_play == seat
        top = view.discard_top if my_turn and view.phase == "draw" else None
        op, arg = data.op, data.arg
        shown = display(view.hand, ui)
        if op == "t":
            key = arg.replace(".", "#")
            valid = {k for k, _ in shown}
            if top is not None:
                valid.add(TOP)
            if ui.mode == "swap":
                valid.add(FREED)
            if key not in valid:
                return Answer(t(lang, "ans.stale"))
            await self._set_ui(record, seat, toggle(ui, key))
            return Answer()
        if op in ("ss", "sr"):
            await self._set_ui(record, seat, replace(ui, sort="suit" if op == "ss" else "rank"))
            return Answer()
        if op == "mv":
            await self._set_ui(record, seat, move_selected_first(ui, shown))
            return Answer()
        if op == "cl":
            await self._set_ui(record, seat, cleared(ui))
            return Answer()
        if not my_turn:
            return Answer(t(lang, "ans.not_your_turn"))
        return await self._scala40_turn_press(record, match, seat, ui, op, arg, top, lang)

    async def _scala40_turn_press(
        self,
        record: MatchRecord,
        match: scala40.Match,
        seat: int,
        ui: HandUI,
        op: str,
        arg: str,
        top: str | None,
        lang: str,
    ) -> Answer:
        if op == "dr":
            return await self.move(record, seat, "draw", lang, cleared(ui))
        if op == "hn":
            return await self._scala40_hint(record, match, seat, ui, lang)
        if op == "us":
            await self._set_ui(record, seat, replace(ui, staged=(), selected=()))
            return Answer()
        if op == "op":
            return await self._try_move(record, match, seat, open_action(ui, top), lang, ui)
        if op == "jd":
            pending = ui.pending.split("|", 1)[1] if "|" in ui.pending else ""
            if pending.startswith("stage:"):
                staged_meld = tuple(declare_first_joker(pending[6:], arg).split())
                await self._set_ui(
                    record, seat, replace(cleared(ui), staged=(*ui.staged, staged_meld))
                )
                return Answer()
            return await self._try_move(
                record, match, seat, declare_first_joker(pending, arg), lang, ui
            )
        if not ui.selected:
            return Answer(t(lang, "ans.select_cards"))
        if op == "md":
            return await self._try_move(record, match, seat, meld_action(ui, top), lang, ui)
        if op == "at":
            pending = f"{ui.pending}|swap" if ui.mode == "swap" else ""
            await self._set_ui(record, seat, replace(ui, mode="attach", pending=pending))
            return Answer()
        if op == "a" and arg.isdigit():
            return await self._try_move(
                record, match, seat, attach_action(ui, top, int(arg)), lang, ui
            )
        if op == "sg":
            return await self._stage(record, seat, ui, top, lang)
        if op == "ds" and len(ui.selected) == 1:
            return await self.move(record, seat, f"discard {tokens(ui, top)[0]}", lang, cleared(ui))
        if op == "sw" and len(ui.selected) == 1:
            return await self._swap_target(record, match, seat, ui, tokens(ui, top)[0], lang)
        return Answer(t(lang, "ans.select_one"))

    async def _stage(
        self, record: MatchRecord, seat: int, ui: HandUI, top: str | None, lang: str
    ) -> Answer:
        meld = tuple(TOP if key == TOP else key.split("#")[0] for key in ui.selected)
        cards = [top or "" if token == TOP else token for token in meld]
        try:
            scala40.meld_value(cards)
        except InvalidMeld as error:
            if error.code in ("joker-ambiguous", "joker-undeclared"):
                choices = meld_joker_choices(cards)
                if choices:
                    pending = " ".join(choices) + "|stage:" + " ".join(meld)
                    await self._set_ui(record, seat, replace(ui, mode="joker", pending=pending))
                    return Answer(engine_error(lang, error))
            return Answer(engine_error(lang, error), alert=True)
        await self._set_ui(record, seat, replace(cleared(ui), staged=(*ui.staged, meld)))
        return Answer()

    async def _swap_target(
        self, record: MatchRecord, match: scala40.Match, seat: int, ui: HandUI, card: str, lang: str
    ) -> Answer:
        for meld in match.view(seat).melds:
            if card in meld.jokers.values():
                pending = f"{meld.number} {card}"
                await self._set_ui(
                    record, seat, replace(ui, mode="swap", pending=pending, selected=(FREED,))
                )
                return Answer()
        return Answer(error_text(lang, "no-joker"), alert=True)

    async def _scala40_hint(
        self, record: MatchRecord, match: scala40.Match, seat: int, ui: HandUI, lang: str
    ) -> Answer:
        actions = match.legal_actions()
        opening = next(
            (
                a
                for a in actions
                if a.kind == "open" or (a.kind == "take" and a.use and a.use.kind == "open")
            ),
            None,
        )
        if opening is not None:
            use = opening.use if opening.kind == "take" and opening.use else opening
            top = match.view(seat).discard_top
            staged = tuple(
                tuple(
                    TOP if opening.kind == "take" and tok == top and i == 0 else tok
                    for i, tok in enumerate(m)
                )
                for m in use.melds
            )
            await self._set_ui(record, seat, replace(cleared(ui), staged=staged))
            total = sum(scala40.meld_value(list(m)) for m in use.melds)
            return Answer(t(lang, "ans.hint_open", total=total))
        plays = [a for a in actions if a.kind in ("meld", "attach")]
        if plays:
            return Answer(t(lang, "ans.hint_play", action=str(plays[0])))
        if not match.opened[seat]:
            best = scala40.best_opening(match.view(seat).hand, match.options.opening_points)
            return Answer(t(lang, "ans.hint_none", total=best.total))
        return Answer(t(lang, "ans.hint_nothing"))

    async def _try_move(
        self,
        record: MatchRecord,
        match: scala40.Match,
        seat: int,
        action: str,
        lang: str,
        ui: HandUI,
    ) -> Answer:
        """A move that may need a joker declaration first (the declaration panel)."""
        try:
            match.copy().play(action, seat=seat)
        except IllegalAction as error:
            if error.code in ("joker-ambiguous", "joker-undeclared"):
                choices = action_joker_choices(match, action, seat)
                if choices:
                    await self._set_ui(
                        record,
                        seat,
                        replace(ui, mode="joker", pending=" ".join(choices) + "|" + action),
                    )
                    return Answer(engine_error(lang, error))
            return Answer(engine_error(lang, error), alert=True)
        return await self.move(
            record,
            seat,
            action,
            lang,
            cleared(ui, keep_staged=action.split()[0] not in ("open", "take")),
        )

    async def _scopone_press(
        self, record: MatchRecord, match: scopone.Match, data: callbacks.Callback, lang: str
    ) -> Answer:
        seat = data.seat
        ui = ui_of(record.seats[seat])
        if data.op == "cl":
            await self._set_ui(record, seat, cleared(ui))
            return Answer()
        if match.to_play != seat:
            return Answer(t(lang, "ans.not_your_turn"))
        view = match.view(seat)
        if data.op == "p" and data.arg.isdigit() and int(data.arg) < len(view.hand):
            card = str(view.hand[int(data.arg)])
            options = [str(a) for a in view.legal_actions if str(a.card) == card]
            if len(options) > 1:
                await self._set_ui(record, seat, replace(ui, mode="capture", pending=card))
                return Answer()
            return await self.move(
                record, seat, options[0] if options else f"play {card}", lang, cleared(ui)
            )
        if data.op == "c" and ui.mode == "capture" and data.arg.isdigit():
            options = [str(a) for a in view.legal_actions if str(a.card) == ui.pending]
            if int(data.arg) < len(options):
                return await self.move(record, seat, options[int(data.arg)], lang, cleared(ui))
        return Answer(t(lang, "ans.stale"))

    async def move(
        self,
        record: MatchRecord,
        seat: int | None,
        action: str,
        lang: str,
        ui_after: HandUI | None = None,
    ) -> Answer:
        """Play ``action`` for ``seat``, commit it, then render. The caller holds the lock."""
        match = self.engine(record)
        before_to_play = match.to_play
        before_hand = getattr(match, "hand_number", 0)
        try:
            applied = match.play(action, seat=seat)
        except IllegalAction as error:
            return Answer(engine_error(lang, error), alert=error.code != "not-your-turn")
        status = None
        results = None
        if match.is_over:
            winners, mp, vp, stopped = result_figures(match)
            status = "stopped" if stopped else "finished"
            if not stopped:
                results = [
                    PlayerResult(
                        s.seat,
                        s.user_id,
                        s.name,
                        s.is_computer,
                        mp[s.seat],
                        vp[s.seat],
                        s.seat in winners,
                        hands_won(match, s.seat),
                    )
                    for s in record.seats
                ]
        timing: dict[str, Any] = {}
        if match.to_play != before_to_play or applied.kind not in MID_TURN:
            deadline, deadline_seat = self.next_deadline(record, match)
            timing = {"deadline": deadline, "deadline_seat": deadline_seat}
        try:
            version = self.store.commit_move(
                record.id,
                record.version,
                seat,
                str(applied),
                match.to_json(),
                status=status,
                results=results,
                **timing,
            )
        except StaleVersion:
            self.forget(record.id)
            return Answer(t(lang, "ans.stale"))
        except BaseException:
            self.forget(record.id)  # the cached engine is ahead of the store now
            raise
        self._engines[record.id] = (version, match)
        if ui_after is not None and seat is not None:
            self.store.update_seat_ui(record.id, seat, ui_after.version, **ui_changes(ui_after))
        record = self.store.get_match(record.id)
        if timing:
            self.arm_timer(record)
        quiet = getattr(applied, "kind", "") == "draw"
        self.after_move(record, match, seat, before_to_play, before_hand, quiet)
        return Answer()

    def after_move(
        self,
        record: MatchRecord,
        match: games.GameMatch,
        mover: int | None,
        before_to_play: int | None,
        before_hand: int,
        quiet: bool = False,
    ) -> None:
        """Schedule what a committed move shows: the table, the hands that changed, the end of
        a hand or match in the group, the next player's bell. Texts are rendered now, from
        this very state; the sending happens after the press is answered."""
        self.request_table(record.id, quiet)
        new_hand = getattr(match, "hand_number", 0) != before_hand
        messages: list[Rendered] = []
        if new_hand or match.is_over:
            summary = self.hand_result_text(record, match)
            if summary:
                messages.append((summary, None))
            seats = list(range(len(record.seats)))
        else:
            # Other hands do not show others' moves: only the mover's hand changes.
            seats = [mover] if mover is not None else []
        for seat in seats:
            self.request_hand(record.id, seat)
        if match.is_over:
            messages.append(self.final_ranking(record, match))
        bell = match.to_play if match.to_play != before_to_play and not match.is_over else None
        if match.to_play is not None and self.is_computer(record, match, match.to_play):
            bell = None
            self.drive_computers(record.id)
        self.spawn(self._announce(record.id, record.chat_id, messages, bell))

    # --- turn timers (RULES.md S40-14.3, SC-6.1) -------------------------------------------------

    def next_deadline(
        self, record: MatchRecord, match: games.GameMatch
    ) -> tuple[datetime | None, int | None]:
        """The deadline of the turn starting now, or None (no timer, a computer, the end)."""
        seconds = int(record.options.get("turn_seconds", 0) or 0)
        seat = match.to_play
        if not seconds or seat is None or match.is_over or self.is_computer(record, match, seat):
            return None, None
        return self.clock() + timedelta(seconds=seconds), seat

    def arm_timer(self, record: MatchRecord) -> None:
        """Schedule the reminder at half time and the timeout at the stored deadline."""
        if self.scheduler is None:
            return
        remind, expire = f"remind:{record.id}", f"timeout:{record.id}"
        deadline = record.deadline
        if deadline is None or record.status != "playing":
            self.scheduler.cancel(remind)
            self.scheduler.cancel(expire)
            return
        seconds = int(record.options.get("turn_seconds", 0) or 0)
        half = deadline - timedelta(seconds=seconds / 2)
        if half > self.clock():
            self.scheduler.schedule(remind, half, lambda: self._remind(record.id, deadline))
        else:
            self.scheduler.cancel(remind)
        self.scheduler.schedule(expire, deadline, lambda: self._expire(record.id, deadline))

    async def _remind(self, match_id: int, deadline: datetime) -> None:
        record = self.store.get_match(match_id)
        seat = record.deadline_seat
        if record.deadline != deadline or seat is None or record.seats[seat].user_id is None:
            return
        user = record.seats[seat].user_id or 0
        lang = self.user_lang(user)
        left = max(0, int((deadline - self.clock()).total_seconds()))
        group = escape(self.group_title(record.chat_id))
        await self.publisher.send(user, t(lang, "notify.reminder", seconds=left, group=group))

    async def _expire(self, match_id: int, deadline: datetime) -> None:
        """The turn timer ran out: the engine applies ``timeout_policy`` (autoplay/forfeit)."""
        async with self.lock(match_id):
            record = self.store.get_match(match_id)
            if record.status != "playing" or record.deadline != deadline:
                return
            match = self.engine(record)
            seat = match.to_play
            if seat is None:
                return
            ui = ui_of(record.seats[seat])  # autoplay takes the staged melds back
            await self.move(record, seat, "timeout", "it", cleared(ui, keep_staged=False))

    # --- computer seats ---------------------------------------------------------------------

    @staticmethod
    def is_computer(record: MatchRecord, match: games.GameMatch, seat: int) -> bool:
        """A seat the bot plays: a computer player, or a Scopone seat whose player abandoned."""
        if record.seats[seat].is_computer:
            return True
        return isinstance(match, scopone.Match) and seat in match.computer_seats

    def drive_computers(self, match_id: int) -> None:
        """Play the computer seats' turns, each after a short, human-looking pause."""
        if match_id not in self._driving:
            self._driving.add(match_id)
            self.spawn(self._computer_turns(match_id))

    async def _computer_turns(self, match_id: int) -> None:
        try:
            while True:
                await asyncio.sleep(self.computer_pause)
                async with self.lock(match_id):
                    record = self.store.get_match(match_id)
                    if record.status != "playing":
                        return
                    match = self.engine(record)
                    seat = match.to_play
                    if seat is None or not self.is_computer(record, match, seat):
                        return
                    level = record.seats[seat].computer_level or "facile"
                    seed = (record.seed + record.version) % 2**32  # reproducible per position
                    action = computer_action(match, level, seed)
                    await self.move(record, seat, str(action), "it")
        finally:
            self._driving.discard(match_id)

    async def _announce(
        self, match_id: int, chat_id: int, messages: list[Rendered], bell: int | None
    ) -> None:
        for text, markup in messages:
            await self.publisher.send(chat_id, text, markup)
        if bell is not None:
            await self.publisher.wait(("hand", match_id, bell))  # the bell rings last
            await self.notify_turn(match_id, bell)

    def hand_result_text(self, record: MatchRecord, match: games.GameMatch) -> str:
        """The end of a hand in the group: everyone's cards and points (S40-15, SC-5.3)."""
        lang = self.group_lang(record.chat_id)
        names = self.names(record)
        if isinstance(match, scala40.Match) and match.last_hand is not None:
            return table_render.scala40_hand_result(match.last_hand, names, lang)
        if isinstance(match, scopone.Match) and match.last_hand is not None:
            sides = list(match.view(0).sides)
            return table_render.scopone_hand_result(match.last_hand, names, sides, lang)
        return ""

    def final_ranking(self, record: MatchRecord, match: games.GameMatch) -> Rendered:
        """The ranking at the end of the match, with the rematch button."""
        lang = self.group_lang(record.chat_id)
        winners, mp, vp, stopped = result_figures(match)
        text = table_render.match_result_text(mp, vp, winners, self.names(record), lang, stopped)
        if stopped:
            return text, None
        button = InlineKeyboardButton(
            t(lang, "btn.rematch"), callback_data=callbacks.rematch(record.id)
        )
        return text, InlineKeyboardMarkup([[button]])

    # --- commands --------------------------------------------------------------------------------

    async def point_at(self, record: MatchRecord, reply_to: int) -> None:
        """A second ``/newgame`` points at the running match's message."""
        lang = self.group_lang(record.chat_id)
        text = t(lang, "cmd.running", link="⬆️")
        try:
            await self.bot.send_message(
                record.chat_id, text, reply_to_message_id=record.table_message_id or reply_to
            )
        except TelegramError:
            await self.publisher.send(record.chat_id, text)

    async def repost_table(self, chat_id: int) -> None:
        """``/table``: the table again at the bottom; the new message is the one edited."""
        record = self.store.active_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None:
            await self.publisher.send(chat_id, t(lang, "cmd.no_match"))
            return
        async with self.lock(record.id):
            record = self.store.get_match(record.id)
            if record.status == "lobby":
                rendered = self.lobby_view(record, lang)
            else:
                rendered = self.table_view(record)
            message_id = await self.publisher.send(chat_id, *rendered)
            if message_id is not None:
                self.store.set_table_message(record.id, chat_id, message_id)

    def score_text(self, chat_id: int) -> str:
        """``/score``: each side's points (and hands won)."""
        record = self.store.active_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None or record.status != "playing":
            return t(lang, "cmd.no_match")
        match = self.engine(record)
        names = self.names(record)
        view: Any = match.view(0)
        sides = list(view.sides)
        lines = [
            f"{table_render._side_name(names, sides, side)}: {score}"
            for side, score in enumerate(view.scores)
        ]
        return t(lang, "cmd.score", scores="\n".join(lines))

    def rules_text(self, chat_id: int) -> str:
        """``/rules``: the running match's options."""
        record = self.store.active_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None:
            return t(lang, "cmd.no_match")
        lines = [
            t(
                lang,
                "opt.line",
                label=t(lang, f"opt.{name}"),
                value=value_text(record.options.get(name), lang),
            )
            for name in option_names(record.game)
        ]
        return t(lang, "cmd.rules", options="\n".join(lines))

    async def ask_stop(self, chat_id: int, user_id: int, admin: bool, reply_to: int) -> None:
        """``/stop``: ask the creator or an admin to confirm."""
        record = self.store.active_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None:
            await self.publisher.send(chat_id, t(lang, "cmd.no_match"))
            return
        if user_id != record.creator_id and not admin:
            await self.publisher.send(chat_id, t(lang, "ans.only_creator_admin"))
            return
        markup = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t(lang, "btn.yes"), callback_data=callbacks.confirm(record.id, "st")
                    ),
                    InlineKeyboardButton(
                        t(lang, "btn.no"), callback_data=callbacks.confirm(record.id, "no")
                    ),
                ]
            ]
        )
        await self.publisher.send(chat_id, t(lang, "cmd.stop_confirm"), markup)

    async def ask_abandon(self, user_id: int) -> None:
        """``/abandon`` in private: one confirmation per running match of the user."""
        lang = self.user_lang(user_id)
        records = [
            r
            for r in self.store.unfinished_matches()
            if r.status == "playing" and r.seat_of(user_id) is not None
        ]
        if not records:
            await self.publisher.send(user_id, t(lang, "cmd.no_match"))
            return
        for record in records:
            markup = InlineKeyboardMarkup(
                [
                    [
                        InlineKeyboardButton(
                            t(lang, "btn.yes"), callback_data=callbacks.confirm(record.id, "ab")
                        ),
                        InlineKeyboardButton(
                            t(lang, "btn.no"), callback_data=callbacks.confirm(record.id, "no")
                        ),
                    ]
                ]
            )
            text = t(lang, "cmd.abandon_confirm", group=escape(self.group_title(record.chat_id)))
            await self.publisher.send(user_id, text, markup)

    async def ask_delete(self, user_id: int, lang: str) -> None:
        """``/deletemydata``: ask for a confirmation."""
        markup = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t(lang, "btn.yes"), callback_data=callbacks.confirm(0, "dd")
                    ),
                    InlineKeyboardButton(
                        t(lang, "btn.no"), callback_data=callbacks.confirm(0, "no")
                    ),
                ]
            ]
        )
        await self.publisher.send(user_id, t(lang, "cmd.delete_confirm"), markup)

    async def confirm_press(self, data: callbacks.Callback, user_id: int, admin: bool) -> Answer:
        """The yes/no of ``/stop``, ``/abandon`` and ``/deletemydata``."""
        lang = self.user_lang(user_id)
        if data.op == "dd":
            self.store.delete_user_data(user_id)
            return Answer(t(lang, "ans.deleted"))
        if data.match_id == 0:
            return Answer(t(lang, "ans.ok"))
        async with self.lock(data.match_id):
            record = self.record_or_none(data.match_id)
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            if data.op == "no":
                return Answer(t(lang, "ans.ok"))
            if data.op == "st":
                if user_id != record.creator_id and not admin:
                    return Answer(t(lang, "ans.only_creator_admin"))
                await self.move(record, record.seat_of(user_id) or 0, "stop", lang)
                return Answer(t(lang, "ans.stopped"))
            seat = record.seat_of(user_id)
            if data.op == "ab" and seat is not None:
                await self.move(record, seat, "abandon", lang)
                return Answer(t(lang, "ans.abandoned"))
        return Answer(t(lang, "ans.stale"))

    async def resend_hands(self, user_id: int) -> int:
        """``/hand``: every running match of the user gets a fresh hand message."""
        count = 0
        for record in self.store.unfinished_matches():
            seat = record.seat_of(user_id)
            if record.status != "playing" or seat is None:
                continue
            async with self.lock(record.id):
                record = self.store.get_match(record.id)
                message_id = await self.publisher.send(user_id, *self.hand_view(record, seat))
                if message_id is not None:
                    self.store.set_hand_message(record.id, seat, message_id)
                    count += 1
        return count

    async def rematch(self, match_id: int, user_id: int) -> Answer:
        """The rematch button: a new lobby with the same players, seats and options."""
        lang = self.user_lang(user_id)
        async with self.lock(match_id):
            record = self.record_or_none(match_id)
            if record is None or record.status != "finished":
                return Answer(t(lang, "ans.stale"))
            presser = record.seat_of(user_id)
            if presser is None:
                return Answer(t(lang, "ans.not_joined"))
            if self.store.active_match_in_chat(record.chat_id) is not None:
                return Answer(t(lang, "ans.stale"))
            new = self.store.create_match(
                record.chat_id,
                record.game,
                record.options,
                user_id,
                record.seats[presser].name,
                secure_seed(),
            )
            others = [s for s in record.seats if s.seat != presser]
            for seat in others:
                new = self.store.add_seat(new.id, seat.user_id, seat.name, seat.computer_level)
            # new seat 0 is the presser, then the others in order: put everyone back in place
            order = [0 if s.seat == presser else 1 + others.index(s) for s in record.seats]
            new = self.store.reorder_seats(new.id, order)
            rendered = self.lobby_view(new, self.group_lang(new.chat_id))
            message_id = await self.publisher.send(new.chat_id, *rendered)
            if message_id is not None:
                self.store.set_table_message(new.id, new.chat_id, message_id)
        return Answer()

    # --- Telegram's own events -------------------------------------------------------------------

    def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its matches move to the new id."""
        self.store.migrate_chat(old_id, new_id)
        if old_id in self.titles:
            self.titles[new_id] = self.titles.pop(old_id)

    async def bot_removed(self, chat_id: int) -> None:
        """The bot left the group: its match is stopped (recorded, not ranked)."""
        record = self.store.active_match_in_chat(chat_id)
        if record is None:
            return
        async with self.lock(record.id):
            record = self.store.get_match(record.id)
            if record.status == "lobby":
                self.store.set_status(record.id, "stopped")
                return
            match = self.engine(record)
            match.play("stop", seat=0)
            self.store.commit_move(
                record.id, record.version, 0, "stop", match.to_json(), status="stopped"
            )
            self.forget(record.id)

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """A player left the group: in the lobby they leave; in a match they abandon."""
        record = self.store.active_match_in_chat(chat_id)
        if record is None or record.seat_of(user_id) is None:
            return
        async with self.lock(record.id):
            record = self.store.get_match(record.id)
            seat = record.seat_of(user_id)
            if seat is None:
                return
            if record.status == "lobby":
                self.store.remove_seat(record.id, seat)
                await self._refresh_lobby(record.id)
                return
            lang = self.group_lang(chat_id)
            await self.publisher.send(
                chat_id, t(lang, "cmd.player_left", name=escape(record.seats[seat].name))
            )
            await self.move(record, seat, "abandon", lang)

    async def _with_deadline(self, record: MatchRecord) -> MatchRecord:
        """A running match stored without a deadline while timers are on gets one now."""
        if record.deadline is not None:
            return record
        deadline, seat = self.next_deadline(record, self.engine(record))
        if deadline is None:
            return record
        self.store.set_deadline(record.id, deadline, seat)
        return self.store.get_match(record.id)

    async def resume_all(self) -> int:
        """At start-up: every unfinished match shows its current state again."""
        count = 0
        for record in self.store.unfinished_matches():
            if record.status == "lobby":
                await self._refresh_lobby(record.id)
            else:
                self.request_table(record.id)
                for seat in range(len(record.seats)):
                    self.request_hand(record.id, seat)
                self.drive_computers(record.id)
                self.arm_timer(await self._with_deadline(record))
            count += 1
        return count


def engine_error(lang: str, error: IllegalAction | InvalidMeld) -> str:
    """The translated text of an engine refusal, cards shown with suit symbols."""
    details = {
        key: show_card(value) if key == "card" and isinstance(value, str) else value
        for key, value in error.details.items()
    }
    return error_text(lang, error.code, error.message, **details)


def computer_action(match: games.GameMatch, level: str, seed: int) -> Any:
    """The move of the computer seat to play, at its level, from a seed."""
    del level, seed  # the engines' greedy players until engine.ai lands
    if isinstance(match, scala40.Match):
        return scala40_greedy(match)
    assert isinstance(match, scopone.Match)
    return scopone.greedy_action(match)


def hands_won(match: games.GameMatch, seat: int) -> int:
    """Hands the seat's side closed (Scala 40) or won (Scopone: hands are not counted; 0)."""
    if isinstance(match, scala40.Match):
        return match.hands_won[match.side_of(seat)]
    return 0


def result_figures(match: games.GameMatch) -> tuple[list[int], list[int], list[int], bool]:
    """Winners (seats), MP and VP per seat, and whether the match was stopped."""
    result: Any = match.result
    players = match.players
    if result is None:
        return [], [0] * players, [0] * players, True
    if isinstance(match, scala40.Match):
        return list(result.winners), list(result.mp), list(result.vp), result.stopped
    return list(result.winner_seats), list(result.mp), list(result.vp), bool(result.stopped)


__all__: Sequence[str] = ["Answer", "Tavolo"]
