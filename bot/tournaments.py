"""Tournaments in a group (docs/rules.md T-1 to T-5): ``/torneo`` opens the registration (its
rules, the matches' options, people entering alone or in pairs, computers), the organiser (or
an admin) starts it with its seeding, and the group's message shows it: the registration, then
the board. From the start :class:`bot.rounds.Rounds` carries it on; ``/tornei`` lists them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, NamedTuple

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import TournamentOp
from bot.delivery import Outbox, Priority
from bot.delivery.work import Render
from bot.i18n import isolated, t
from bot.matches import Matches, MatchHeld
from bot.moves import Moves
from bot.options_ui import changed as option_changed
from bot.options_ui import next_value
from bot.people import People
from bot.render import tournament as view
from bot.rounds import Rounds, Started, table_options
from bot.tables import Asked
from bot.timers import Scheduler
from bot.work import DueWork
from engine.games import game
from engine.ratings import category_of, computer_rating
from engine.tournament import FORMATS, pair_strength, seeding
from storage import (
    AlreadySeated,
    ChatBusy,
    EntryRecord,
    MatchRecord,
    SeatError,
    StaleVersion,
    TournamentNotFound,
    TournamentRecord,
    WrongStatus,
)

GAMES = ("scala40", "scopone")
"""The games a tournament is played at: Scala 40 (alone or in pairs), Scopone (in pairs)."""
SIZE_CYCLE = (2, 3, 4)
MOST_ENTRANTS = 32
"""The most entrants a tournament takes (people and computers): 16 tables a round."""
ANSWERED = (StaleVersion, WrongStatus, SeatError, TournamentNotFound, AlreadySeated, ValueError)
"""What a press that lost a race meets (another instance changed the tournament first, or a
forged button asked for rules no tournament plays): answered as stale."""


class TournamentPress(NamedTuple):
    """A tournament button pressed: the tournament as stored, what, by whom, in which language."""

    record: TournamentRecord
    data: callbacks.Callback
    user_id: int
    name: str
    lang: str


class Tournaments:
    """``/torneo``, the registration's presses, the board's, ``/tornei``; the rounds are
    :class:`bot.rounds.Rounds`'."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        outbox: Outbox,
        moves: Moves,
        scheduler: Scheduler,
        work: DueWork,
        started: Started,
    ) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.rounds = Rounds(matches, people, outbox, moves, scheduler, started, self.show)
        work.every_minute.append(self.rounds.look)
        self.panels: dict[int, bool] = {}
        """Tournaments whose registration shows the matches' options."""

    # --- the registration --------------------------------------------------------------------

    async def open(self, asked: Asked, name: str, game_name: str) -> None:
        """``/torneo [game]`` in a group: the registration message, the organiser entered when
        the bot can write to them; one tournament at a time per group (a second ``/torneo``
        points at the one there is)."""
        lang = self.people.group_lang(asked.chat_id)
        if game_name not in GAMES:
            self._reply(asked, t(lang, "tourn.game_not_yet", game=t(lang, f"game.{game_name}")))
            return
        try:
            record = await self.store.off(self._create, asked, name, game_name)
        except ChatBusy as busy:
            there = await self.store.read(self.store.get_tournament, busy.match_id)
            self._point_at(there, asked, lang)
            return
        self.show(record)

    def _create(self, asked: Asked, name: str, game_name: str) -> TournamentRecord:
        """In the store's threads: the new tournament, its organiser entered when the bot can
        write to them (:class:`storage.ChatBusy` when the group has one already)."""
        chat_id = asked.chat_id
        options = _entry_free(game_name, self.store.chat_settings(chat_id).default_options)
        pairs = view.always_pairs(game_name)
        record = self.store.create_tournament(
            chat_id, game_name, "robin", options, organiser_id=asked.user_id,
            thread_id=asked.thread, alone=True, pairs=pairs,
        )  # fmt: skip
        if self.store.has_private_chat(asked.user_id):
            record = self.store.enter_tournament(record.id, asked.user_id, name)
        return record

    async def current(self, chat_id: int) -> TournamentRecord | None:
        """The group's tournament open for registration or under way, if any."""
        return await self.store.read(self.store.current_tournament, chat_id)

    def _point_at(self, record: TournamentRecord, asked: Asked, lang: str) -> None:
        """A second ``/torneo``: the answer replies to the tournament's message."""
        if record.message_id is None:
            self.show(record)
            return
        text = t(lang, "tourn.already")
        self.outbox.send(asked.chat_id, text, reply_to=record.message_id, thread=record.thread_id)

    def _reply(self, asked: Asked, text: str) -> None:
        self.outbox.send(asked.chat_id, text, reply_to=asked.reply_to, thread=asked.thread)

    def show(self, record: TournamentRecord) -> None:
        """Show the tournament's latest state in its message (the registration, then the
        board)."""
        tournament_id, chat_id = record.id, record.chat_id
        self.outbox.put(
            chat_id,
            ("tournament", tournament_id),
            functools.partial(self._render, tournament_id),
            lambda message_id, shown: self._shown(tournament_id, message_id, shown),
            Priority.REPLY if record.status == "open" else Priority.NOTICE,
            thread=record.thread_id,
        )

    async def _render(self, tournament_id: int) -> Render | None:
        read = functools.partial(self.store.get_tournament, tournament_id)
        record = await self.store.read_after(read)
        await self.people.load((), [record.chat_id])
        lang = self.people.group_lang(record.chat_id)
        if record.status == "open":
            text, markup = view.registration_view(record, lang, self.panels.get(record.id, False))
        else:
            text, markup = view.board_view(record, lang, self._total_rounds(record))
        return Render(record.message_id, record.message_digest, text, markup)

    def _shown(
        self, tournament_id: int, message_id: int | None, shown: str | None
    ) -> Callable[[], None] | None:
        """The message shows ``shown``: the write that stores it, when it changed (off the
        event loop)."""
        if message_id is None:
            return None
        return functools.partial(self._store_shown, tournament_id, message_id, shown)

    def _store_shown(self, tournament_id: int, message_id: int, shown: str | None) -> None:
        record = self.store.get_tournament(tournament_id)
        if (message_id, shown) != (record.message_id, record.message_digest):
            self.store.set_tournament_message(tournament_id, message_id, shown)

    @staticmethod
    def _total_rounds(record: TournamentRecord) -> int:
        seeded = sum(1 for e in record.entries if e.seed is not None)
        return view.facts(record).frame.total_rounds(seeded)

    # --- presses -----------------------------------------------------------------------------

    async def press(
        self, data: callbacks.Callback, user_id: int, name: str, chat_id: int, lang: str
    ) -> Answer:
        """A tournament's button, pressed in its group; checked against its stored version
        but for joining, leaving and withdrawing (counted from the stored state)."""
        async with self.rounds.lock(data.match_id):
            try:
                record = await self.store.read(self.store.get_tournament, data.match_id)
            except TournamentNotFound:
                return Answer(t(lang, "ans.stale"))
            harmless = data.op in (TournamentOp.JOIN, TournamentOp.LEAVE, TournamentOp.WITHDRAW)
            if record.chat_id != chat_id or (data.version != record.version and not harmless):
                return Answer(t(lang, "ans.stale"))
            handler = self._handlers().get(data.op)
            if handler is None:
                return Answer(t(lang, "ans.stale"))
            try:
                return await handler(TournamentPress(record, data, user_id, name, lang))
            except ANSWERED:
                return Answer(t(lang, "ans.stale"))

    def _handlers(self) -> dict[str, Callable[[TournamentPress], Coroutine[Any, Any, Answer]]]:
        return {
            TournamentOp.JOIN: self._join,
            TournamentOp.LEAVE: self._leave,
            TournamentOp.FORMAT: self._format,
            TournamentOp.TABLE_SIZE: self._table_size,
            TournamentOp.ROUNDS: self._rounds,
            TournamentOp.ROUND_TIME: self._round_time,
            TournamentOp.OPTIONS: self._options,
            TournamentOp.OPTIONS_BACK: self._options,
            TournamentOp.OPTION_VALUE: self._option_value,
            TournamentOp.COMPUTER: self._add_computer,
            TournamentOp.COMPUTER_REMOVE: self._remove_computer,
            TournamentOp.START: self._start,
            TournamentOp.CANCEL: self._cancel,
            TournamentOp.WITHDRAW: self._withdraw,
            TournamentOp.PAIRS: self._pairs,
        }

    async def _join(self, press: TournamentPress) -> Answer:
        record, user_id, lang = press.record, press.user_id, press.lang
        if record.status != "open":
            return Answer(t(lang, "ans.stale"))
        if any(user_id in (e.user_id, e.partner_id) for e in record.entries):
            return Answer(t(lang, "ans.tourn_already"))
        completes = record.pairs and any(e.waiting for e in record.entries)  # no new entry
        if len(record.entries) >= MOST_ENTRANTS and not completes:
            return Answer(t(lang, "ans.tourn_full", count=MOST_ENTRANTS), alert=True)
        if not self.store.has_private_chat(user_id):
            return Answer(t(lang, "ans.tourn_open_private"), url=self.people.bot_link())
        if not await self.people.is_member(record.chat_id, user_id):
            return Answer(t(lang, "ans.not_member"), alert=True)
        entered = await self.store.off(self.store.enter_tournament, record.id, user_id, press.name)
        self._changed(entered)
        mine = entered.entry_of(user_id)
        if not entered.pairs or mine is None:
            return Answer(t(lang, "ans.tourn_joined"))
        if mine.partner_id == user_id and mine.user_id is not None:
            await self.people.load([mine.user_id])  # the partner, read off the loop
            self._tell_partner(entered, mine.user_id, press.name)
            return Answer(t(lang, "ans.tourn_paired", name=mine.name))
        return Answer(t(lang, "ans.tourn_waiting"))

    def _tell_partner(self, record: TournamentRecord, user_id: int, partner: str) -> None:
        """A waiting player is told privately who completed their pair."""
        lang = self.people.user_lang(user_id)
        group = self.people.group_title(record.chat_id)
        game_title = t(lang, f"game.{record.game}")
        text = t(lang, "tourn.partner_joined", name=isolated(partner), game=game_title, group=group)
        self.outbox.send(user_id, text, priority=Priority.NOTICE)

    async def _leave(self, press: TournamentPress) -> Answer:
        record, lang = press.record, press.lang
        if record.status != "open":
            return Answer(t(lang, "ans.stale"))
        if record.entry_of(press.user_id) is None:
            return Answer(t(lang, "ans.tourn_not_entered"))
        self._changed(
            await self.store.off(self.store.withdraw_from_tournament, record.id, press.user_id)
        )
        return Answer(t(lang, "ans.tourn_left"))

    async def _withdraw(self, press: TournamentPress) -> Answer:
        """A player leaves a running tournament: the rounds to come skip them (T-4.3); the
        match they are playing goes on (they may abandon it)."""
        record, lang = press.record, press.lang
        entry = record.entry_of(press.user_id)
        if record.status != "running" or entry is None:
            return Answer(t(lang, "ans.tourn_not_entered"))
        if entry.withdrawn_round is not None:
            return Answer(t(lang, "ans.tourn_withdrawn"))
        await self.store.off(self.store.withdraw_from_tournament, record.id, press.user_id)
        self.rounds.background.spawn(self.rounds.carry_on(record.id))
        return Answer(t(lang, "ans.tourn_withdrawn"))

    async def _organiser(self, press: TournamentPress) -> bool:
        """Whether the presser may change the tournament: its organiser, or an admin."""
        record = press.record
        if press.user_id == record.organiser_id:
            return True
        return await self.people.is_admin(record.chat_id, press.user_id)

    async def _rules(self, press: TournamentPress, **rules: Any) -> Answer:
        """The organiser changes the rules (during the registration)."""
        if not await self._organiser(press):
            return Answer(t(press.lang, "ans.tourn_only_organiser"))
        record = press.record
        try:
            changed = await self.store.off(
                self.store.set_tournament_rules, record.id, record.version, **rules
            )
        except ValueError:  # rules no tournament plays: a forged or stale button
            return Answer(t(press.lang, "ans.stale"))
        self._changed(changed)
        return Answer()

    async def _format(self, press: TournamentPress) -> Answer:
        frame = view.facts(press.record).frame
        after = frame.in_format(_after(FORMATS, frame.format))
        rules = {"format": after.format, "table_size": after.table_size, "rounds": after.rounds}
        return await self._rules(press, **rules)

    async def _pairs(self, press: TournamentPress) -> Answer:
        """Alone or in pairs (Scala 40; pairs meet at tables of 2): only while no pair has
        formed, or no computer entered alone (the store refuses otherwise)."""
        record = press.record
        alone = replace(record, pairs=not record.pairs)
        try:
            game(record.game).checked_options(table_options(alone), None)
        except ValueError:  # a race needs pairs: the organiser changes the format first
            return Answer(t(press.lang, "ans.stale"))
        if view.always_pairs(record.game):
            return Answer(t(press.lang, "ans.stale"))
        return await self._rules(press, pairs=alone.pairs, table_size=2)

    async def _table_size(self, press: TournamentPress) -> Answer:
        size = press.record.table_size
        return await self._rules(press, table_size=_after(SIZE_CYCLE, size))

    async def _rounds(self, press: TournamentPress) -> Answer:
        rounds = press.record.rounds or view.DANISH_ROUNDS[0]
        return await self._rules(press, rounds=_after(view.DANISH_ROUNDS, rounds))

    async def _round_time(self, press: TournamentPress) -> Answer:
        seconds = press.record.round_seconds
        return await self._rules(press, round_seconds=_after(view.ROUND_TIMES, seconds))

    async def _options(self, press: TournamentPress) -> Answer:
        if not await self._organiser(press):
            return Answer(t(press.lang, "ans.tourn_only_organiser"))
        self.panels[press.record.id] = press.data.op == TournamentOp.OPTIONS
        self.show(press.record)
        return Answer()

    async def _option_value(self, press: TournamentPress) -> Answer:
        record, lang = press.record, press.lang
        names = view.match_options(record.game)
        index = callbacks.button_index(press.data.arg)
        if index is None or index >= len(names):
            return Answer(t(lang, "ans.stale"))
        options = _next_options(record, names[index])
        if options is None:
            return Answer(t(lang, "ans.stale"))
        return await self._rules(press, options=options)

    async def _add_computer(self, press: TournamentPress) -> Answer:
        record, lang = press.record, press.lang
        if not await self._organiser(press):
            return Answer(t(lang, "ans.tourn_only_organiser"))
        if len(record.entries) >= MOST_ENTRANTS:
            return Answer(t(lang, "ans.tourn_full", count=MOST_ENTRANTS), alert=True)
        spec = game(record.game)
        level = press.data.arg if press.data.arg in spec.levels else spec.levels[0]
        count = sum(1 + record.pairs for e in record.entries if e.computer_level) + 1
        group_lang = self.people.group_lang(record.chat_id)
        named = [
            t(group_lang, "lobby.computer", number=n, level=t(group_lang, f"level.{level}"))
            for n in (count, count + 1)
        ]
        partner = named[1] if record.pairs else None
        entered = await self.store.off(
            self.store.enter_computer, record.id, named[0], level, partner
        )
        self._changed(entered)
        return Answer()

    async def _remove_computer(self, press: TournamentPress) -> Answer:
        if not await self._organiser(press):
            return Answer(t(press.lang, "ans.tourn_only_organiser"))
        self._changed(await self.store.off(self.store.remove_computer, press.record.id))
        return Answer()

    async def _cancel(self, press: TournamentPress) -> Answer:
        if not await self._organiser(press):
            return Answer(t(press.lang, "ans.tourn_only_organiser"))
        record = press.record
        self._changed(await self.store.off(self.store.end_tournament, record.id, "cancelled"))
        return Answer()

    async def _start(self, press: TournamentPress) -> Answer:
        """The organiser starts it: the seeding (by rating, T-5), then the first round."""
        record, lang = press.record, press.lang
        if not await self._organiser(press):
            return Answer(t(lang, "ans.tourn_only_organiser"))
        if len(record.entries) < 2:
            return Answer(t(lang, "ans.tourn_few"), alert=True)
        waiting = [e for e in record.entries if record.pairs and e.waiting]
        if waiting:
            return Answer(t(lang, "ans.tourn_alone", name=waiting[0].name), alert=True)
        order = await self.store.read(self.seeding, record)  # the ratings, read off the loop
        started = await self.store.off(
            self.store.start_tournament, record.id, order, record.version
        )
        self.panels.pop(record.id, None)
        self.show(started)
        # Not under this press's lock: it takes it.
        self.rounds.background.spawn(self.rounds.carry_on(record.id))
        return Answer()

    def seeding(self, record: TournamentRecord) -> list[int]:
        """The entries, the top seed first: the higher rating in the tournament's category
        (a computer at its fixed rating, a newcomer at the newcomers'), then who entered
        first (T-5). Store work: run off the event loop."""
        category = category_of(record.game, table_options(record))

        def rating(user: int | None, level: str | None) -> float:
            if level is not None:
                return computer_rating(category, level).ordinal
            return self.people.rating(user, category or "").ordinal

        def strength(entry: EntryRecord) -> float:
            players = [entry.user_id] + ([entry.partner_id] if record.pairs else [])
            return pair_strength([rating(p, entry.computer_level) for p in players])

        return seeding({e.entry: strength(e) for e in record.entries})

    def _changed(self, record: TournamentRecord) -> None:
        self.show(record)

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """A player left the group: their entry in its registration goes; from its running
        tournament they withdraw (T-4.3), abandoning the table they play (S40-14, SC-6)."""
        record = await self.current(chat_id)
        if record is None or record.entry_of(user_id) is None:
            return
        try:
            async with self.rounds.lock(record.id):  # no table opens meanwhile
                withdraw = self.store.withdraw_from_tournament
                record = await self.store.off(withdraw, record.id, user_id)
                for table in record.tables:
                    if table.round == record.round and table.match_id and table.result is None:
                        await self.rounds.abandon(table.match_id, user_id)
        except (*ANSWERED, MatchHeld):  # another instance changed it first: nothing to do
            return
        self.show(record)
        self.rounds.background.spawn(self.rounds.carry_on(record.id))

    async def chat_closed(self, chat_id: int) -> list[MatchRecord]:
        """The bot is no longer in the group: its tournament is cancelled, and the tables still
        playing stop (recorded, not ranked); those tables."""
        record = await self.current(chat_id)
        if record is None:
            return []
        stopped: list[MatchRecord] = []
        async with self.rounds.lock(record.id):
            try:
                record = await self.store.off(self.store.end_tournament, record.id, "cancelled")
            except WrongStatus:  # another instance ended it
                return []
            for table in record.tables:
                if table.match_id and table.result is None:
                    match = await self.rounds.stop(table.match_id)
                    stopped += [match] if match is not None else []
        return stopped

    # --- /tornei -----------------------------------------------------------------------------

    async def list_text(self, chat_id: int, lang: str) -> str:
        """``/tornei``: the group's tournaments, past and running."""
        listed = await self.store.read(self.store.tournaments_in_chat, chat_id)
        return view.list_text(listed, lang)


def _entry_free(game_name: str, defaults: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The group's options for the game's matches (else the game's own), without what the
    tournament's entry decides (alone or in pairs: set per table, :func:`table_options`)."""
    spec = game(game_name)
    options = {**spec.default_options(), **defaults.get(game_name, {})}
    options = {k: v for k, v in options.items() if k not in view.ENTRY_OPTIONS}
    try:
        return spec.checked_options(options, None)
    except ValueError:  # the group's defaults need pairs (a race): the game's own
        return {k: v for k, v in spec.default_options().items() if k not in view.ENTRY_OPTIONS}


def _next_options(record: TournamentRecord, name: str) -> dict[str, Any] | None:
    """The matches' options with ``name`` at its next value they can take: values the engine
    refuses (a Scala 40 race alone) are passed over, and so is a turn without a timer, since
    the turn timers are what ends every table (T-4.2). None: no such value."""
    spec, options = game(record.game), table_options(record)
    for _ in range(len(spec.choices.get(name, ())) + 2):
        try:
            options = option_changed(record.game, options, name, None)
        except ValueError:
            options = {**options, name: next_value(spec, name, options.get(name))}
            continue
        if options.get("turn_seconds") != 0:
            return {k: v for k, v in options.items() if k not in view.ENTRY_OPTIONS}
    return None


def _after(cycle: tuple[Any, ...], value: Any) -> Any:
    """The value after ``value`` in ``cycle`` (its first when ``value`` is not in it)."""
    if value not in cycle:
        return cycle[0]
    return cycle[(cycle.index(value) + 1) % len(cycle)]
