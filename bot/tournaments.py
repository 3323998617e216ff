"""Tournaments in a group (docs/rules.md T-1 to T-4): ``/torneo`` opens the registration, the
organiser (or an admin) starts it, and from then on the bot carries it: each round paired by
the engine, each table's match opened in its players' private chats (the group's budget could
not carry a round's tables: docs/performance.md), the board in the group edited as tables end,
the next round paired once the last table of a round ends, the final standings at the end.

Everything is read again from the store at each step (:meth:`Tournaments.carry_on`), so a
restart, or another instance, carries on from what was stored: a round is paired once (its key
is the round's), a table's match is opened once (created and linked in one transaction).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, NamedTuple

from bot import callbacks
from bot.answer import Answer
from bot.background import Background
from bot.callbacks import TournamentOp
from bot.delivery import Outbox, Priority
from bot.delivery.work import Render
from bot.i18n import isolated, t
from bot.matches import Matches
from bot.moves import Moves
from bot.options_ui import changed as option_changed
from bot.options_ui import next_value
from bot.people import People
from bot.render import tournament as view
from bot.rounds import RoundClock
from bot.tables import Asked
from bot.timers import Scheduler
from engine.cards import secure_seed
from engine.games import GameMatch, game
from engine.ratings import COMPUTER_RATINGS, NEW_RATING, Rating, category_of
from engine.tournament import FORMATS, next_round, seeding
from storage import (
    AlreadySeated,
    ChatBusy,
    EntryRecord,
    MatchRecord,
    RoundPaired,
    SeatError,
    StaleVersion,
    TournamentNotFound,
    TournamentRecord,
    WrongStatus,
)

log = logging.getLogger(__name__)

Started = Callable[[MatchRecord, GameMatch], None]
"""Told of a table's match just opened: its record and its engine (the bot starts it as a
lobby's)."""

GAMES = ("scala40", "scopone")
"""The games a tournament is played at: Scala 40 (alone or in pairs), Scopone (in pairs)."""
SIZE_CYCLE = (2, 3, 4)
MOST_ENTRANTS = 32
"""The most entrants a tournament takes (people and computers): 16 tables a round."""
RETRIES = (2.0, 10.0, 60.0, 300.0)
"""Seconds before carrying a tournament on again after it failed (the store was away): a round
whose last table ended meanwhile is paired then, not at the next restart."""
ANSWERED = (StaleVersion, WrongStatus, SeatError, TournamentNotFound, AlreadySeated)
"""What a press that lost a race meets: answered as stale."""


class TournamentPress(NamedTuple):
    """A tournament button pressed: the tournament as stored, what, by whom, in which language."""

    record: TournamentRecord
    data: callbacks.Callback
    user_id: int
    name: str
    lang: str


class Tournaments:
    """Registration presses, the rounds, the board, ``/tornei``."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        outbox: Outbox,
        moves: Moves,
        scheduler: Scheduler,
        started: Started,
    ) -> None:
        self.matches = matches
        self.rounds = RoundClock(matches, people, moves, scheduler)
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.started = started
        self.panels: dict[int, bool] = {}
        """Tournaments whose registration shows the matches' options."""
        self._locks: dict[int, asyncio.Lock] = {}
        self.background = Background()
        """The tournaments being carried on (at a stop, what waits to try again is dropped:
        a restart carries every tournament on)."""
        self.spawn = self.background.spawn
        self.retries = RETRIES

    # --- the registration --------------------------------------------------------------------

    def open(self, asked: Asked, name: str, game_name: str) -> None:
        """``/torneo [game]`` in a group: the registration message, the organiser entered when
        the bot can write to them; one tournament at a time per group (a second ``/torneo``
        points at the one there is)."""
        chat_id, lang = asked.chat_id, self.people.group_lang(asked.chat_id)
        if game_name not in GAMES:
            self._reply(asked, t(lang, "tourn.game_not_yet", game=t(lang, f"game.{game_name}")))
            return
        options = _entry_free(game_name, self.store.chat_settings(chat_id).default_options)
        pairs = view.always_pairs(game_name)
        try:
            record = self.store.create_tournament(
                chat_id, game_name, "robin", options, organiser_id=asked.user_id,
                thread_id=asked.thread, alone=True, pairs=pairs,
            )  # fmt: skip
        except ChatBusy as busy:
            self._point_at(self.store.get_tournament(busy.match_id), asked, lang)
            return
        if self.store.has_private_chat(asked.user_id):
            record = self.store.enter_tournament(record.id, asked.user_id, name)
        self.show(record)

    def current(self, chat_id: int) -> TournamentRecord | None:
        """The group's tournament open for registration or under way, if any."""
        return next(
            (r for r in self.store.tournaments_in_chat(chat_id) if r.status in ("open", "running")),
            None,
        )

    def _point_at(self, record: TournamentRecord, asked: Asked, lang: str) -> None:
        """A second ``/torneo``: the answer replies to the tournament's message."""
        if record.message_id is None:
            self.show(record)
            return
        text = t(lang, "tourn.already")
        self.outbox.send(asked.chat_id, text, reply_to=record.message_id, thread=record.thread_id)

    def _reply(self, asked: Asked, text: str) -> None:
        self.outbox.send(asked.chat_id, text, reply_to=asked.reply_to, thread=asked.thread)

    def show(self, record: TournamentRecord, fresh: bool = False) -> None:
        """Show the tournament's latest state in its message (the registration, then the
        board); ``fresh``: post it anew below (the old one deleted)."""
        tournament_id, chat_id = record.id, record.chat_id
        self.outbox.put(
            chat_id,
            ("tournament", tournament_id),
            lambda: self._render(tournament_id),
            lambda message_id, shown: self._shown(tournament_id, message_id, shown),
            Priority.REPLY if record.status == "open" else Priority.NOTICE,
            fresh=fresh,
            retire=fresh and record.message_id is not None,
            thread=record.thread_id,
        )

    def _render(self, tournament_id: int) -> Render | None:
        record = self.store.get_tournament(tournament_id)
        lang = self.people.group_lang(record.chat_id)
        if record.status == "open":
            text, markup = view.registration_view(record, lang, self.panels.get(record.id, False))
        else:
            text, markup = view.board_view(record, lang, self._total_rounds(record))
        return Render(record.message_id, record.message_digest, text, markup)

    def _shown(
        self, tournament_id: int, message_id: int | None, shown: str | None
    ) -> Callable[[], None] | None:
        """The message shows ``shown``: the write that stores it (off the event loop)."""
        record = self.store.get_tournament(tournament_id)
        if message_id is None or (message_id, shown) == (record.message_id, record.message_digest):
            return None
        return lambda: self.store.set_tournament_message(tournament_id, message_id, shown)

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
        async with self._lock(data.match_id):
            try:
                record = self.store.get_tournament(data.match_id)
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
        if len(record.entries) >= MOST_ENTRANTS:
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
        if mine.partner_id == user_id:
            return Answer(t(lang, "ans.tourn_paired", name=mine.name))
        return Answer(t(lang, "ans.tourn_waiting"))

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
        self.spawn(self.carry_on(record.id))
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
            game(record.game).checked_options(_table_options(alone), None)
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
        order = self.seeding(record)
        started = await self.store.off(
            self.store.start_tournament, record.id, order, record.version
        )
        self.panels.pop(record.id, None)
        self.show(started)
        self.spawn(self.carry_on(record.id))  # not under this press's lock: it takes it
        return Answer()

    def seeding(self, record: TournamentRecord) -> list[int]:
        """The entries, the top seed first: the higher rating in the tournament's category
        (a computer at its fixed rating, a newcomer at the newcomers'), then who entered
        first (T-5)."""
        category = category_of(record.game, _table_options(record))

        def rating(user: int | None, level: str | None) -> float:
            if level is not None:
                return COMPUTER_RATINGS.get(level, NEW_RATING).ordinal
            rated = [r for r in self.store.user_ratings(user or 0) if r.category == category]
            return Rating(rated[0].mu, rated[0].sigma).ordinal if rated else NEW_RATING.ordinal

        def strength(entry: EntryRecord) -> float:  # a pair's: its two players' mean
            players = [entry.user_id] + ([entry.partner_id] if record.pairs else [])
            return sum(rating(p, entry.computer_level) for p in players) / len(players)

        return seeding({e.entry: strength(e) for e in record.entries})

    def _changed(self, record: TournamentRecord) -> None:
        self.show(record)

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    # --- the rounds --------------------------------------------------------------------------

    def follow(self, record: MatchRecord, match: GameMatch, timing: bool) -> None:
        """After a move: a tournament's table that just ended has the tournament carry on."""
        if record.tournament_id is not None and match.is_over:
            self.spawn(self.carry_on(record.tournament_id))

    async def resume_all(self) -> int:
        """At start-up: every tournament under way carries on from what was stored, and every
        tournament's message shows its state."""
        records = self.store.unfinished_tournaments()
        for record in records:
            self.show(record)
            if record.status == "running":
                self.spawn(self.carry_on(record.id))
        return len(records)

    async def carry_on(self, tournament_id: int) -> None:
        """Bring a running tournament up to date with its stored state: open the current
        round's tables that have no match yet, and once every table of the round has its
        result, pair the next round (or end the tournament). Safe to repeat, and to run on
        several instances: the store pairs a round once and opens a table's match once."""
        for wait in (0.0, *self.retries):
            await asyncio.sleep(wait)
            async with self._lock(tournament_id):
                try:
                    await self._carry_on(tournament_id)
                    return
                except Exception:  # one tournament's fault must not stop the others
                    log.exception("tournament %s could not carry on", tournament_id)

    async def _carry_on(self, tournament_id: int) -> None:
        while True:
            record = self.store.get_tournament(tournament_id)
            if record.status != "running":
                return
            tables = [p for p in record.tables if p.round == record.round]
            for pairing in tables:
                if pairing.match_id is None:
                    await self._open_table(record, pairing.round, pairing.table)
            if any(p.result is None for p in tables):
                waiting = self.store.get_tournament(tournament_id)
                self.rounds.arm(waiting)
                self.show(waiting)
                return
            found = view.facts(record)
            upcoming = next_round(found.frame, found.seeding, found.results, found.withdrawn)
            if upcoming is None:
                await self._finish(record)
                return
            if upcoming.number != record.round + 1:  # the stored rounds say otherwise: stop
                log.error(
                    "tournament %s: round %s after round %s",
                    record.id,
                    upcoming.number,
                    record.round,
                )
                return
            try:
                await self.store.off(
                    self.store.pair_round,
                    tournament_id,
                    upcoming.number,
                    upcoming.tables,
                    upcoming.byes,
                )
            except RoundPaired:
                continue  # another instance paired it: carry on from what it stored

    async def _open_table(self, record: TournamentRecord, round_: int, table: int) -> None:
        """Open a round's table: its match, started, in its players' private chats, and
        each player told where and against whom (only by the instance that opened it)."""
        pairing = next(p for p in record.tables if p.round == round_ and p.table == table)
        entries = {e.entry: e for e in record.entries}
        players = [
            (entries[e].user_id, entries[e].name, entries[e].computer_level)
            for e in pairing.entries
        ]
        if record.pairs:  # seat i and i + 2 are partners (S40-1.2, SC-1.1)
            players += [
                (entries[e].partner_id, entries[e].partner_name or "", entries[e].computer_level)
                for e in pairing.entries
            ]
        seed = secure_seed()
        match = game(record.game).new_match(len(players), seed, _table_options(record))
        match_id, opened = await self.store.off(
            self.store.open_table_match, record.id, round_, table, players, seed, match.to_json()
        )
        if not opened:
            return
        group = self.people.group_title(record.chat_id)
        for entry in pairing.entries:  # told first: the hand goes below, as the hand's pace
            for user in (entries[entry].user_id, entries[entry].partner_id):
                if user is not None:
                    lang = self.people.user_lang(user)
                    text = view.table_notice(record, round_, table, entry, user, lang, group)
                    self.outbox.send(user, text, priority=Priority.HAND)
        self.started(self.store.get_match(match_id), match)

    async def _finish(self, record: TournamentRecord) -> None:
        """Every round played: the tournament ends, the board shows the final standings, and
        the group is told who won (a new message: the board may be far up)."""
        try:
            ended = await self.store.off(self.store.end_tournament, record.id)
        except WrongStatus:
            return  # another instance ended it
        self.show(ended)
        lang = self.people.group_lang(record.chat_id)
        found, called = view.facts(ended), view.names(ended)
        champion = found.winner()
        lines = [str(view.title(ended, lang))]
        if champion is not None:
            lines.append(t(lang, "tourn.winner", name=isolated(called[champion])))
        lines += view.standings_lines(found.board(), called, lang)
        self.outbox.send(
            record.chat_id, "\n".join(lines), priority=Priority.NOTICE, thread=record.thread_id
        )

    # --- /tornei -----------------------------------------------------------------------------

    def list_text(self, chat_id: int, lang: str) -> str:
        """``/tornei``: the group's tournaments, past and running."""
        return view.list_text(self.store.tournaments_in_chat(chat_id), lang)


def _entry_free(game_name: str, defaults: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The group's options for the game's matches (else the game's own), without what the
    tournament's entry decides (alone or in pairs: set per table, :func:`_table_options`)."""
    spec = game(game_name)
    options = {**spec.default_options(), **defaults.get(game_name, {})}
    options = {k: v for k, v in options.items() if k not in view.ENTRY_OPTIONS}
    try:
        return spec.checked_options({**options, **_entry(game_name, False)}, None)
    except ValueError:  # the group's defaults need pairs (a race): the game's own
        return {k: v for k, v in spec.default_options().items() if k not in view.ENTRY_OPTIONS}


def _entry(game_name: str, pairs: bool) -> dict[str, Any]:
    """The entry options of a table's match: Scala 40's ``pairs``, Scopone's ``individual``
    (a Scopone tournament is of pairs)."""
    names = game(game_name).option_names()
    return {"pairs": pairs} if "pairs" in names else {"individual": False}


def _table_options(record: TournamentRecord) -> dict[str, Any]:
    """The options of a table's match: the tournament's, and how its players sit."""
    return {**record.options, **_entry(record.game, record.pairs)}


def _next_options(record: TournamentRecord, name: str) -> dict[str, Any] | None:
    """The matches' options with ``name`` at its next value they can take: values the engine
    refuses (a Scala 40 race alone) are passed over, and so is a turn without a timer, since
    the turn timers are what ends every table (T-4.2). None: no such value."""
    spec, options = game(record.game), _table_options(record)
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
