"""The lobby: seats, computer seats, options, pairs, start and cancel.

Every press is checked in the lobby's own chat, and (but for the :data:`HARMLESS` ones) against
its stored version; the lobby message shows the latest state (:class:`bot.shows.Shows`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import LobbyOp
from bot.delivery import Priority
from bot.i18n import isolated, t
from bot.matches import Matches
from bot.options_ui import changed as option_changed
from bot.people import People
from bot.render.table import labelled, names_list
from bot.shows import Shows
from bot.tables import Asked, Tables, seated_in
from engine.cards import secure_seed
from engine.games import GameMatch, game
from storage import AlreadySeated, ChatBusy, LobbyFull, MatchRecord, SeatedElsewhere


class LobbyPress(NamedTuple):
    """A lobby button press, as the lobby's handlers take it."""

    record: MatchRecord
    data: callbacks.Callback
    user_id: int
    name: str
    lang: str


HARMLESS = frozenset(
    {LobbyOp.JOIN, LobbyOp.LEAVE, LobbyOp.OPTIONS, LobbyOp.OPTIONS_BACK, LobbyOp.OPTION_VALUE}
)
"""Lobby presses applied also from a keyboard a change ago (the message not edited yet): what
they do is counted from the stored lobby (an option's next value from its stored value). The
others (start, seats, computers, cancel) need the lobby the player saw."""

Started = Callable[[MatchRecord, GameMatch], Awaitable[None]]
"""Told of a match that just started: its record and its engine."""


class Lobby:
    """Lobby presses, new lobbies, joins by link."""

    def __init__(
        self, matches: Matches, people: People, shows: Shows, tables: Tables, started: Started
    ) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.shows = shows
        self.tables = tables
        self.started = started

    async def open(self, asked: Asked, name: str, game_name: str, limit: int) -> None:
        """Open a lobby at the chat's lowest free table of ``limit`` (the caller checked there
        is one: :class:`storage.ChatBusy` if another instance took it meanwhile), in the forum
        topic where it was asked; the host sits at once when the bot can write to them, else
        joins through the deep link."""
        self.shows.table(await self.store.off(self._create, asked, name, game_name, limit))

    def _create(self, asked: Asked, name: str, game_name: str, limit: int) -> MatchRecord:
        """In the store's threads: the new lobby (see :meth:`open`)."""
        chat_id, user_id = asked.chat_id, asked.user_id
        options = self.store.chat_settings(chat_id).default_options.get(game_name)
        options = options or game(game_name).default_options()
        seed, thread = secure_seed(), asked.thread
        record = self.store.create_match(
            chat_id, game_name, options, user_id, name, seed, limit, thread
        )
        if not self.store.has_private_chat(user_id):
            record = self.store.remove_seat(record.id, 0)
        return record

    @staticmethod
    def waiting(active: list[MatchRecord], game_name: str) -> MatchRecord | None:
        """A lobby of ``game_name`` among a chat's ``active`` matches with a free seat: a new
        table of that game would only split its players."""
        return next(
            (
                m
                for m in active
                if m.status == "lobby"
                and m.game == game_name
                and len(m.seats) < game(game_name).seats[1]
            ),
            None,
        )

    async def refresh(self, match_id: int, options_panel: bool = False) -> None:
        """Show the lobby's latest state (or its options panel)."""
        self.shows.panels[match_id] = options_panel
        self.shows.table(await self.matches.stored(match_id))

    async def press(
        self, data: callbacks.Callback, user_id: int, name: str, chat_id: int, lang: str
    ) -> Answer:
        """A lobby button pressed in ``chat_id`` (only in the lobby's own chat), by a person
        who reads ``lang``; the lobby read once, under its lock."""
        async with self.matches.hold(data.match_id) as record:
            if record is None or record.status != "lobby" or record.chat_id != chat_id:
                return Answer(t(lang, "ans.stale"))
            if data.version != record.version and data.op not in HARMLESS:
                return Answer(t(lang, "ans.stale"))
            handler = self._handlers().get(data.op)
            if handler is None:
                return Answer(t(lang, "ans.stale"))
            return await handler(LobbyPress(record, data, user_id, name, lang))

    def _handlers(self) -> dict[str, Callable[[LobbyPress], Awaitable[Answer]]]:
        return {
            LobbyOp.JOIN: self._join,
            LobbyOp.LEAVE: self._leave,
            LobbyOp.OPTIONS: self._options,
            LobbyOp.OPTIONS_BACK: self._options,
            LobbyOp.OPTION_VALUE: self._option_value,
            LobbyOp.PARTNERS: self._partners,
            LobbyOp.COMPUTER: self._add_computer,
            LobbyOp.COMPUTER_REMOVE: self._remove_computer,
            LobbyOp.START: self._start,
            LobbyOp.CANCEL: self._cancel,
        }

    async def _join(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if record.seat_of(user_id) is not None:
            return Answer(t(lang, "ans.already_joined"))
        if len(record.seats) >= game(record.game).seats[1]:
            return Answer(t(lang, "ans.full"))
        if not self.store.has_private_chat(user_id):
            return Answer(t(lang, "ans.open_private"), url=self.people.deep_link(record.id))
        if not await self.people.is_member(record.chat_id, user_id):
            return Answer(t(lang, "ans.not_member"), alert=True)
        if await self.tables.seated(record.chat_id, user_id, but=record.id) is not None:
            return Answer(t(lang, "ans.seated_elsewhere"), alert=True)
        refused = await self._seat(record.id, user_id, press.name, None)
        if refused:
            return Answer(t(lang, refused))
        return Answer(t(lang, "ans.joined"))

    async def _seat(self, match_id: int, user_id: int | None, name: str, level: str | None) -> str:
        """Seat someone; the catalog key of the refusal ('' when seated). The store decides
        under the match's row lock: another instance may have filled the table meanwhile."""
        try:
            await self.store.off(self.store.add_seat, match_id, user_id, name, level)
        except AlreadySeated:
            return "ans.already_joined"
        except SeatedElsewhere:
            return "ans.seated_elsewhere"
        except LobbyFull:
            return "ans.full"
        await self.refresh(match_id)
        return ""

    async def join_from_link(self, match_id: int, user_id: int, name: str) -> str | None:
        """``/start j<match>`` in private: sit the user at that lobby if they belong to its
        group; the answer's catalog key (None: no such lobby)."""
        async with self.matches.hold(match_id) as record:
            if record is None or record.status != "lobby":
                return None
            if record.seat_of(user_id) is not None:
                return "ans.already_joined"
            if not await self.people.is_member(record.chat_id, user_id):
                return "ans.not_member"
            if len(record.seats) >= game(record.game).seats[1]:
                return "ans.full"
            if await self.tables.seated(record.chat_id, user_id, but=record.id) is not None:
                return "ans.seated_elsewhere"
            return await self._seat(record.id, user_id, name, None) or "ans.joined"

    async def _add_computer(self, press: LobbyPress) -> Answer:
        """The host adds a computer seat of the chosen level."""
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        spec = game(record.game)
        level = press.data.arg if press.data.arg in spec.levels else spec.levels[0]
        if len(record.seats) >= spec.seats[1]:
            return Answer(t(lang, "ans.full"))
        count = sum(1 for s in record.seats if s.is_computer) + 1
        group_lang = self.people.group_lang(record.chat_id)
        name = t(group_lang, "lobby.computer", number=count, level=t(group_lang, f"level.{level}"))
        refused = await self._seat(record.id, None, name, level)
        return Answer(t(lang, refused) if refused else "")

    async def _remove_computer(self, press: LobbyPress) -> Answer:
        """The host removes the last computer seat."""
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        computers = [s.seat for s in record.seats if s.is_computer]
        if computers:
            await self.store.off(self.store.remove_seat, record.id, computers[-1])
            await self.refresh(record.id)
        return Answer()

    async def _leave(self, press: LobbyPress) -> Answer:
        record, lang = press.record, press.lang
        seat = record.seat_of(press.user_id)
        if seat is None:
            return Answer(t(lang, "ans.not_joined"))
        await self.store.off(self.store.remove_seat, record.id, seat)
        await self.refresh(record.id)
        return Answer(t(lang, "ans.left"))

    async def _options(self, press: LobbyPress) -> Answer:
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        await self.refresh(record.id, options_panel=press.data.op == LobbyOp.OPTIONS)
        return Answer()

    async def _option_value(self, press: LobbyPress) -> Answer:
        record, data, lang = press.record, press.data, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        names = game(record.game).option_names()
        index = callbacks.button_index(data.arg)
        if index is None or index >= len(names):
            return Answer(t(lang, "ans.stale"))
        players = len(record.seats) or None
        try:
            options = option_changed(record.game, record.options, names[index], players)
        except ValueError as error:
            return Answer(t(lang, "ans.option_invalid", message=str(error)), alert=True)
        await self.store.off(self.store.set_match_options, record.id, options)
        await self.refresh(record.id, options_panel=True)
        return Answer()

    async def _partners(self, press: LobbyPress) -> Answer:
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        if len(record.seats) == 4:
            # Seats 0+2 play against 1+3: rotating seats 1-3 gives seat 0 each partner in turn.
            await self.store.off(self.store.reorder_seats, record.id, [0, 2, 3, 1])
        await self.refresh(record.id)
        return Answer()

    async def _cancel(self, press: LobbyPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        allowed = user_id == record.creator_id or await self.people.is_admin(
            record.chat_id, user_id
        )
        if not allowed:
            return Answer(t(lang, "ans.only_creator_admin"))
        self.shows.table(await self.store.off(self.store.set_status, record.id, "stopped"))
        return Answer()

    async def _start(self, press: LobbyPress) -> Answer:
        record, lang = press.record, press.lang
        if press.user_id != record.creator_id:
            return Answer(t(lang, "ans.only_creator"))
        spec = game(record.game)
        low, high = spec.seats
        if not low <= len(record.seats) <= high:
            return Answer(t(lang, "ans.seats", min=low, max=high), alert=True)
        if all(seat.is_computer for seat in record.seats):  # the host left: nobody would play
            return Answer(t(lang, "ans.no_person"), alert=True)
        try:
            match = spec.new_match(len(record.seats), record.seed, record.options)
        except ValueError as error:
            return Answer(t(lang, "ans.option_invalid", message=str(error)), alert=True)
        await self.store.off(self.store.start_match, record.id, match.to_json(), record.version)
        await self.started(await self.matches.stored(record.id), match)
        return Answer()

    async def rematch(self, match_id: int, user_id: int, chat_id: int, lang: str) -> Answer:
        """The rematch button (pressed in the match's chat): a new lobby with the same options,
        at the chat's next free table, the one who pressed and the computers seated, and the
        other players still in the group asked to join (``lang``: the presser's). A rematch
        already opened by another of them is pointed at, not opened again."""
        async with self.matches.hold(match_id) as record:
            if record is None or record.status != "finished" or record.chat_id != chat_id:
                return Answer(t(lang, "ans.stale"))
            if record.tournament_id is not None:  # a tournament's table has no rematch
                return Answer(t(lang, "ans.stale"))
            presser = record.seat_of(user_id)
            if presser is None:
                return Answer(t(lang, "ans.not_joined"))
            active = await self.tables.active(chat_id)
            opened = rematch_of(record, active)
            if opened is not None:
                seated = opened.seat_of(user_id) is not None
                return Answer(t(lang, "ans.already_joined" if seated else "ans.rematch_open"))
            if seated_in(active, user_id) is not None:
                return Answer(t(lang, "ans.seated_elsewhere"), alert=True)
            try:
                new = await self.store.off(self._open_rematch, record, presser)
            except ChatBusy:  # every table taken, or its topic holds a new one (ST-7)
                taken = record.thread_id is not None and self.tables.in_topic(
                    await self.tables.active(chat_id), record.thread_id
                )
                return Answer(
                    t(lang, "ans.topic_taken" if taken else "ans.tables_full"), alert=True
                )
            except SeatedElsewhere:
                return Answer(t(lang, "ans.seated_elsewhere"), alert=True)
            asked = [
                s.name
                for s in record.seats
                if s.seat != presser
                and s.user_id
                and await self.people.is_member(chat_id, s.user_id)
            ]
            self.shows.table(new)
            if asked:
                self._ask_rematch(new, record.seats[presser].name, asked)
        return Answer()

    def _open_rematch(self, ended: MatchRecord, presser: int) -> MatchRecord:
        """The rematch's lobby: the ended match's game, options and topic, at the chat's next
        free table, hosted by the one who pressed, with its computers seated (store work, run
        off the event loop)."""
        host = ended.seats[presser]
        assert host.user_id is not None
        new = self.store.create_match(
            ended.chat_id,
            ended.game,
            ended.options,
            host.user_id,
            host.name,
            secure_seed(),
            self.tables.limit(ended.chat_id),
            ended.thread_id,
        )
        for seat in ended.seats:
            if seat.is_computer:
                new = self.store.add_seat(new.id, None, seat.name, seat.computer_level)
        return new

    def _ask_rematch(self, new: MatchRecord, host: str, asked: list[str]) -> None:
        """Ask the other players of the last match, in the group (where the rematch plays),
        to join it."""
        chat_id = new.chat_id
        group_lang = self.people.group_lang(chat_id)
        players = names_list(group_lang, [isolated(name) for name in asked])
        text = t(
            group_lang, "lobby.rematch", host=isolated(host), players=players, count=len(asked)
        )
        text = labelled(group_lang, new, text)
        self.shows.outbox.send(chat_id, text, priority=Priority.NOTICE, thread=new.thread_id)


def rematch_of(ended: MatchRecord, active: list[MatchRecord]) -> MatchRecord | None:
    """The rematch of a match that ended, already open among its chat's ``active`` matches: a
    lobby of the same game, opened after it ended by one of its people (its options may have
    changed)."""
    people = {seat.user_id for seat in ended.seats if seat.user_id is not None}
    finished = ended.finished_at or ended.updated_at
    return next(
        (
            m
            for m in active
            if m.status == "lobby"
            and m.game == ended.game
            and m.creator_id in people
            and m.created_at >= finished
        ),
        None,
    )
