"""The service behind every handler: the bot's parts, composed, and the commands and events.

Each part has one job: :class:`~bot.matches.Matches` (engines and locks), :class:`~bot.people.
People` (languages, titles, powers), :class:`~bot.shows.Shows` (what the players see),
:class:`~bot.moves.Moves` (one path for every move), :class:`~bot.timers.TurnTimers`,
:class:`~bot.computers.Computers`, :class:`~bot.lobby.Lobby`, :class:`~bot.hands.Hands`,
:class:`~bot.questions.Questions` and :class:`~bot.guide.Guide` (what newcomers read). Every
message goes out through the outbox (:mod:`bot.delivery`), which keeps Telegram's limits;
nothing here waits for it. Nothing lives only in memory: caches are rebuilt from the store after
a restart.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from html import unescape

from telegram import Bot, InlineKeyboardMarkup

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import TableCommand
from bot.computers import Computers
from bot.delivery import Outbox, Pace, Priority, Then
from bot.endings import Endings
from bot.guide import Guide
from bot.hands import Hands
from bot.i18n import Html, html_lines, isolated, t
from bot.languages import Languages
from bot.lobby import Lobby
from bot.matches import Matches, MatchHeld, answered
from bot.moves import Moves
from bot.options_ui import rules_lines
from bot.pages import Pages
from bot.people import People
from bot.questions import Questions
from bot.render.table import labelled, message_link, side_name
from bot.seasons import Seasons
from bot.settings import GroupSettings
from bot.shows import Shows
from bot.tables import Asked, Tables, seated_in
from bot.timers import Scheduler, TurnTimers, utc_now
from bot.tournaments import Tournaments
from bot.work import DueWork
from engine import fairness
from engine.actions import ABANDON, STOP
from engine.games import GameMatch
from storage import (
    ChatBusy,
    Conflict,
    DatabaseUnavailable,
    MatchRecord,
    SeatedElsewhere,
    Store,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Pressed:
    """A button pressed, as a front end reports it: what (``data``, decoded), who (the user's
    id, display name and language), where (the chat, and the message with the text it showed,
    when known)."""

    data: callbacks.Callback
    user_id: int
    name: str
    lang: str
    chat_id: int
    message_id: int | None = None
    shown: str | None = None


def says_it_all(error: BaseException) -> bool:
    """Whether a failure's message says all there is to log (the database cannot work now:
    a full disk, a read-only file), so no traceback is needed."""
    return isinstance(error, DatabaseUnavailable)


class Tavolo:
    """The bot's parts, composed; what the handlers call."""

    def __init__(
        self,
        store: Store,
        bot: Bot,
        scheduler: Scheduler,
        clock: Callable[[], datetime] = utc_now,
        pace: Pace | None = None,
    ) -> None:
        self.store = store
        self.bot = bot
        self.outbox = Outbox(
            bot,
            pace,
            shared=store.reserve_message if store.shared else None,
            unavailable=(DatabaseUnavailable,),
            off=store.off_after,
        )
        self.matches = Matches(store)
        self.people = People(store, bot)
        self.shows = Shows(self.matches, self.people, self.outbox, clock)
        self.endings = Endings(self.shows)
        self.moves = Moves(self.matches, self.shows, self.endings, clock)
        self.work = DueWork(store, clock)
        self.timers = TurnTimers(
            scheduler, clock, self.matches, self.people, self.outbox, self.moves, self.work
        )
        self.computers = Computers(self.matches, self.moves, self.work)
        self.seasons = Seasons(store, self.people, self.outbox, clock)
        self.settings = GroupSettings(store, self.people, self.outbox)
        self.settings.changed = self._settings_changed
        self.work.announce = self.seasons.announce
        self.tables = Tables(self.matches, self.people, self.outbox)
        self.lobby = Lobby(self.matches, self.people, self.shows, self.tables, self._started)
        self.tournaments = Tournaments(
            self.matches, self.people, self.outbox, self.moves, scheduler, self.work, self._started
        )
        followers = (self.timers.follow, self.computers.follow, self.tournaments.rounds.follow)
        self.moves.followers += followers
        self.hands = Hands(self.matches, self.shows, self.moves)
        self.pages = Pages(self.matches, self.people, self.shows, self._page_press, clock)
        self.questions = Questions(self.matches, self.people, self.outbox, self.moves)
        self.languages = Languages(store, self.people, self.outbox)
        self.guide = Guide(self.people, self.reply)
        self.outbox.on_closed = self.chat_closed
        self.outbox.on_topic_gone = self.tables.topic_gone
        self.outbox.pointer = lambda chat_id: t(self.group_lang(chat_id), "cmd.see_above")

    # --- what tests and handlers read --------------------------------------------------------

    def engine(self, record: MatchRecord) -> GameMatch:
        """The engine match of a stored match."""
        return self.matches.engine(record)

    @property
    def titles(self) -> dict[int, str]:
        """Group titles remembered from updates."""
        return self.people.titles

    def user_lang(self, user_id: int, code: str | None = None) -> str:
        """A user's language."""
        return self.people.user_lang(user_id, code)

    def group_lang(self, chat_id: int) -> str:
        """A chat's language."""
        return self.people.group_lang(chat_id)

    async def drain(self) -> None:
        """Wait until every computer turn is played and every message is out."""
        parts = (self.computers, self.work, self.tournaments.rounds)
        background = [p.background for p in parts] + [self.tables.moving, self.shows.reporting]
        while any(tasks.busy for tasks in background) or not self.outbox.idle:
            await asyncio.gather(*(tasks.settle() for tasks in background))
            await self.outbox.drain()

    async def close(self, grace: float) -> None:
        """Stop: no more computer moves, then ``grace`` seconds for the messages still
        waiting (a restart shows the stored state anyway)."""
        await self.computers.close()
        await self.work.close()
        await self.tournaments.rounds.close()
        await self.shows.reporting.close(cancel=False)  # what failed later is not told
        await self.outbox.close(grace)
        await self.matches.given_back()

    # --- presses -------------------------------------------------------------------------------

    async def press(self, pressed: Pressed) -> Answer:
        """A button, to the part of the bot its kind belongs to (:func:`answered`)."""
        return await answered(self._dispatch(pressed), pressed.lang)

    async def _page_press(self, data: callbacks.Callback, user_id: int, lang: str) -> Answer:
        """A tap in the Mini App, as a press on the seat's hand (:mod:`bot.pages`)."""
        return await answered(self.hands.press(data, user_id, lang, page=True), lang)

    async def _dispatch(self, pressed: Pressed) -> Answer:
        data, user_id, chat_id = pressed.data, pressed.user_id, pressed.chat_id
        if data.kind == "h":
            return await self.hands.press(data, user_id, pressed.lang)
        if data.kind == "l":
            return await self.lobby.press(data, user_id, pressed.name, chat_id, pressed.lang)
        if data.kind == "k":
            return await self.confirm_press(
                data, user_id, chat_id, pressed.message_id, pressed.shown
            )
        if data.kind == "g":
            return await self.languages.choose(chat_id, user_id, data.op, pressed.message_id)
        if data.kind == "s":
            return await self.settings.choose(pressed)
        if data.kind == "t":
            return await self.table_chosen(pressed)
        if data.kind == "u":
            return await self.tournaments.press(data, user_id, pressed.name, chat_id, pressed.lang)
        return await self.rematch(data.match_id, user_id, chat_id, pressed.lang)

    async def _settings_changed(self, chat_id: int) -> None:
        """A group's settings changed: its open lobbies show them (the players' levels)."""
        for record in await self.tables.active(chat_id):
            if record.status == "lobby":
                self.shows.table(record)

    async def confirm_press(
        self,
        data: callbacks.Callback,
        user_id: int,
        chat_id: int,
        message_id: int | None,
        shown: str | None,
    ) -> Answer:
        """A yes or no to a question."""
        return await self.questions.answer(data, user_id, chat_id, message_id, shown)

    async def rematch(self, match_id: int, user_id: int, chat_id: int, lang: str) -> Answer:
        """The rematch button (:meth:`bot.lobby.Lobby.rematch`)."""
        return await self.lobby.rematch(match_id, user_id, chat_id, lang)

    # --- commands ------------------------------------------------------------------------------

    def reply(
        self,
        chat_id: int,
        text: str,
        reply_to: int | None = None,
        markup: InlineKeyboardMarkup | None = None,
    ) -> None:
        """A command's reply, before the table (merged with an identical one waiting, pointing
        up at one sent lately, dropped if the chat has no budget for it soon:
        :attr:`bot.delivery.Priority.REPLY`). In a private chat where a match is
        played, the player's hand goes below the reply again: it stays the last message."""
        done = functools.partial(self._hand_below, chat_id) if chat_id > 0 else None
        self.outbox.send(chat_id, text, markup, reply_to=reply_to, done=done)

    def _hand_below(self, user_id: int, message_id: int | None) -> Then | None:
        """A reply went out in a private chat: where a match is played there, the hand goes
        below it (the match read off the event loop)."""
        if message_id is None:
            return None
        find = functools.partial(self.store.active_match_in_chat, user_id)
        return Then(find, functools.partial(self._hand_below_reply, user_id))

    def _hand_below_reply(self, user_id: int, record: object) -> None:
        if isinstance(record, MatchRecord) and record.status == "playing":
            seat = record.seat_of(user_id)
            if seat is not None:
                self.shows.hand(record, seat, fresh=True, retire=True)

    async def words(self, user_id: int, lang: str) -> None:
        """A message in words in private: the short guide (once in a while during a match
        there: :meth:`bot.guide.Guide.words`)."""
        record = await self.store.read(self.store.active_match_in_chat, user_id)
        playing = record is not None and record.status == "playing"
        self.guide.words(user_id, lang, playing)

    def refuse(self, chat_id: int, user_id: int, key: str, reply_to: int | None) -> None:
        """The refusal ``key``, which concerns only the one who asked: in private, in their
        language, when the bot can write to them, else in the chat
        (:meth:`bot.questions.Questions.refuse`)."""
        self.questions.refuse(chat_id, user_id, key, reply_to)

    async def new_game(self, asked: Asked, name: str, game_name: str) -> None:
        """``/newgame``: open a lobby at the chat's next free table (in the forum topic where
        it was typed), whose host sits at once when the bot can write to them (a group that
        never chose a language speaks its host's). Instead, point at the table where the
        person sits already, at the topic's own table, or at a lobby of that game with a free
        seat; with every table taken, say so. Typed in a forum's General topic, where the bot
        may manage topics, the table opens a topic of its own."""
        chat_id, user_id = asked.chat_id, asked.user_id
        active, limit = await self.tables.active(chat_id), self.tables.limit(chat_id)
        here = [m for m in active if m.thread_id == asked.thread]  # a forum: this topic's
        there = (
            seated_in(active, user_id)
            or self.tables.in_topic(active, asked.thread)
            or self.lobby.waiting(here, game_name)
        )
        if there is None and len(active) >= limit and limit == 1:
            there = active[0]
        if there is not None:
            self.point_at(there, asked)
        elif len(active) >= limit:
            text = t(self.group_lang(chat_id), "cmd.tables_full", count=limit)
            self.reply(chat_id, text, reply_to=asked.reply_to)
        else:
            if asked.forum and asked.thread is None:
                asked = await self._own_topic(asked, active, game_name)
            await self._open(asked, name, game_name, limit)

    async def _own_topic(self, asked: Asked, active: list[MatchRecord], game_name: str) -> Asked:
        """A new table typed in a forum's General topic: a topic of its own when the bot may
        open one, and the person who asked pointed at it (``asked``, in that topic)."""
        chat_id, lang = asked.chat_id, self.group_lang(asked.chat_id)
        number, game_title = self.tables.next_number(active), t(lang, f"game.{game_name}")
        title = unescape(t(lang, "tables.topic", number=number, game=game_title))
        thread = await self.people.open_topic(chat_id, title)
        if thread is None:
            return asked
        link = Html(f'<a href="{message_link(chat_id, thread)}">➡️</a>')
        self.reply(chat_id, t(lang, "tables.topic_opened", link=link), reply_to=asked.reply_to)
        return asked._replace(thread=thread)

    async def _open(self, asked: Asked, name: str, game_name: str, limit: int) -> None:
        """Open the lobby ``new_game`` decided on; another instance (or a join) that took the
        last table, or sat the person elsewhere, meanwhile is said as such."""
        chat_id, user_id = asked.chat_id, asked.user_id
        await self.store.off(self.languages.adopt, chat_id, user_id)
        try:
            await self.lobby.open(asked, name, game_name, limit)
        except (ChatBusy, Conflict):
            text = t(self.group_lang(chat_id), "cmd.tables_full", count=limit)
            self.reply(chat_id, text, reply_to=asked.reply_to)
        except SeatedElsewhere:
            self.refuse(chat_id, user_id, "ans.seated_elsewhere", asked.reply_to)

    async def private_chat_opened(self, user_id: int) -> None:
        """The person wrote to the bot in private: the bot may write to them there."""
        if not self.store.has_private_chat(user_id):
            await self.store.off(self.store.set_private_chat, user_id, True)

    async def join_from_link(self, match_id: int, user_id: int, name: str) -> str | None:
        """``/start j<match>``: sit the user at that lobby; the answer's catalog key."""
        return await self.lobby.join_from_link(match_id, user_id, name)

    def point_at(self, record: MatchRecord, asked: Asked) -> None:
        """A ``/newgame`` that opens no table points at the one it names: where the person
        sits, a lobby waiting for players, or the running match of a one-table chat (in a
        forum, from another topic, with a link to it)."""
        lang = self.group_lang(record.chat_id)
        if record.seat_of(asked.user_id) is not None and self.tables.limit(record.chat_id) > 1:
            key = "cmd.already_seated"
        else:
            key = "cmd.lobby_open" if record.status == "lobby" else "cmd.running"
        posted = record.table_message_id
        if posted is None or record.thread_id == asked.thread:
            text = t(lang, key, link="⬆️")
            self.reply(record.chat_id, text, reply_to=posted or asked.reply_to)
            return
        link = Html(f'<a href="{message_link(record.chat_id, posted, record.thread_id)}">➡️</a>')
        self.reply(record.chat_id, t(lang, key, link=link), reply_to=asked.reply_to)

    # --- the commands about one match ----------------------------------------------------------

    async def table_command(self, command: str, asked: Asked) -> None:
        """A command about one match (:class:`bot.callbacks.TableCommand`), on the table it
        concerns (:meth:`bot.tables.Tables.concerned`); with several, the group is asked."""
        found = await self.tables.concerned(asked, ended=command == TableCommand.VERIFY)
        if isinstance(found, list):
            self.tables.ask_which(command, found, asked)
            return
        await self._on_table(command, found, asked)

    async def table_chosen(self, pressed: Pressed) -> Answer:
        """A table's button, pressed to say which table a command is about: the command, on
        that table, for the one who pressed (with their own powers)."""
        data, chat_id, user_id = pressed.data, pressed.chat_id, pressed.user_id
        record = await self.tables.chosen(data.match_id, chat_id)
        if record is None or data.op not in tuple(TableCommand):
            return Answer(t(pressed.lang, "ans.stale"))
        admin = data.op == TableCommand.STOP and await self.people.is_admin(chat_id, user_id)
        await self._on_table(
            data.op, record, Asked(chat_id, user_id, pressed.message_id, None, admin)
        )
        return Answer()

    async def _on_table(self, command: str, record: MatchRecord | None, asked: Asked) -> None:
        chat_id, reply_to = asked.chat_id, asked.reply_to
        if command == TableCommand.TABLE:
            self.repost_table(chat_id, record, reply_to)
        elif command == TableCommand.SCORE:
            self.reply(chat_id, self.score_text(chat_id, record), reply_to)
        elif command == TableCommand.RULES:
            self.reply(chat_id, self.rules_text(chat_id, record), reply_to)
        elif command == TableCommand.STOP:
            await self.questions.ask_stop(record, asked)
        else:
            await self.verify(chat_id, record, reply_to)

    def repost_table(self, chat_id: int, record: MatchRecord | None, reply_to: int | None) -> None:
        """``/table``: the table again at the bottom; the new message is the one edited."""
        if record is None or record.status not in ("lobby", "playing"):
            self.reply(chat_id, t(self.group_lang(chat_id), "cmd.no_match"), reply_to)
            return
        self.shows.repost(record)

    def score_text(self, chat_id: int, record: MatchRecord | None) -> str:
        """``/score``: each side's points."""
        lang = self.group_lang(chat_id)
        if record is None or record.status != "playing":
            return t(lang, "cmd.no_match")
        view = self.engine(record).view(0)
        names, sides = self.matches.names(record), list(view.sides)
        lines = [
            f"{side_name(names, sides, side)}: {score}" for side, score in enumerate(view.scores)
        ]
        return labelled(lang, record, t(lang, "cmd.score", scores="\n".join(lines)))

    def rules_text(self, chat_id: int, record: MatchRecord | None) -> str:
        """``/rules``: the match's options that apply, the changed ones first."""
        lang = self.group_lang(chat_id)
        if record is None or record.status not in ("lobby", "playing"):
            return t(lang, "cmd.no_match")
        lines = rules_lines(record.game, record.options, lang)
        return labelled(lang, record, t(lang, "cmd.rules", options=html_lines(lines)))

    async def ask_abandon(self, user_id: int) -> None:
        """``/abandon``: one question per running match of the user."""
        await self.questions.ask_abandon(user_id)

    async def ask_delete(self, user_id: int, lang: str) -> None:
        """``/deletemydata``: ask for a confirmation."""
        await self.questions.ask_delete(user_id, lang)

    async def resend_hands(self, user_id: int) -> int:
        """``/hand``: every running match of the user gets a fresh hand message, and the old
        one goes (or, too old to delete, loses its buttons and points down); how many."""
        count = 0
        for record in await self.store.read(self.store.unfinished_matches):
            seat = record.seat_of(user_id)
            if record.status == "playing" and seat is not None:
                self.shows.hand(record, seat, fresh=True, retire=True)
                count += 1
        return count

    async def verify(self, chat_id: int, record: MatchRecord | None, reply_to: int | None) -> None:
        """``/verify``: while a match is on, the commitment to its secret seed; after it, the
        seed and the match file that rebuilds every deal (:mod:`engine.fairness`)."""
        lang = self.group_lang(chat_id)
        if record is None or (record.status not in ("lobby", "playing") and not record.state_json):
            # a lobby cancelled before the start dealt nothing: there is nothing to verify
            self.reply(chat_id, t(lang, "cmd.verify_none"), reply_to)
            return
        full = fairness.commitment(record.seed)
        if record.status in ("lobby", "playing"):
            text = labelled(lang, record, t(lang, "cmd.verify_running", commitment=full))
            self.reply(chat_id, text, reply_to)
            return
        moves = [
            (move.seat, move.action) for move in await self.store.read(self.store.moves, record.id)
        ]
        content = fairness.match_file(
            record.game, len(record.seats), record.options, record.seed, moves, record.state_json
        )
        name = f"tavolo-{record.id}.json"
        caption = t(lang, "cmd.verify_done", seed=str(record.seed), commitment=full, file=name)
        caption = labelled(lang, record, caption)
        self.outbox.send(chat_id, caption, reply_to=reply_to, document=(name, content.encode()))

    # --- Telegram's own events ---------------------------------------------------------------

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its matches move to the new id."""
        await self.store.off(self.store.migrate_chat, old_id, new_id)
        if old_id in self.titles:
            self.titles[new_id] = self.titles.pop(old_id)

    async def chat_closed(self, chat_id: int) -> None:
        """The bot can no longer write in the chat (removed from the group, the group gone, a
        player who blocked it): nothing more goes to a group, and the chat's match ends. A
        lobby nobody saw leaves no trace, a lobby is cancelled, a match is stopped like any
        (recorded, not ranked: timers off, bells gone, hands finished) and, in a group, its
        players are told why in private."""
        if chat_id < 0:
            self.outbox.close_chat(chat_id)
            for stopped in await self.tournaments.chat_closed(chat_id):
                self._tell_removed(stopped)  # its players hear why, as a group match's
        for record in await self.tables.active(chat_id):
            await self._closed(record, chat_id)

    async def _closed(self, record: MatchRecord, chat_id: int) -> None:
        """A match of a chat closed to the bot ends (:meth:`chat_closed`)."""
        async with self.matches.hold(record.id) as held:
            if held is None:
                return
            record = held
            if record.status == "lobby":
                if not await self.store.off(self.store.discard_lobby, record.id):
                    await self.store.off(self.store.set_status, record.id, "stopped")
                self.shows.panels.pop(record.id, None)
                return
            if record.status != "playing":
                return
            await self.moves.move(record, 0, STOP, self.group_lang(chat_id))
        if chat_id < 0:
            self._tell_removed(record)

    def _tell_removed(self, record: MatchRecord) -> None:
        """Each person at a match stopped because the bot left its group hears why."""
        for seat in record.seats:
            if seat.user_id is not None:
                lang = self.user_lang(seat.user_id)
                where = self.people.group_title(record.chat_id)
                text = t(lang, "notify.removed", group=where)
                self.outbox.send(seat.user_id, text, priority=Priority.NOTICE)

    def chat_opened(self, chat_id: int) -> None:
        """The bot is in the group (again): messages go there."""
        self.outbox.reopen_chat(chat_id)

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """A player left the group: they leave a lobby, abandon a match, quit a tournament."""
        await self.tournaments.member_left(chat_id, user_id)
        record = await self.tables.seated(chat_id, user_id)
        if record is None:
            return
        async with self.matches.hold(record.id) as held:
            if held is None:
                return
            record = held
            seat = record.seat_of(user_id)
            if seat is None:
                return
            if record.status == "lobby":
                await self.store.off(self.store.remove_seat, record.id, seat)
                await self.lobby.refresh(record.id)
                return
            lang = self.group_lang(chat_id)
            text = t(lang, "cmd.player_left", name=isolated(record.seats[seat].name))
            text = labelled(lang, record, text)
            self.outbox.send(chat_id, text, priority=Priority.NOTICE, thread=record.thread_id)
            await self.moves.move(record, seat, ABANDON, lang)

    # --- starting and resuming ---------------------------------------------------------------

    async def _started(self, record: MatchRecord, match: GameMatch) -> None:
        """A match just started: its first deadline and due work stored (off the loop), shown."""
        deadline, deadline_seat = self.moves.next_deadline(record, match)
        self.matches.keep(record.id, record.version, match)  # a deadline moves no version
        await self.store.off(self.store.set_deadline, record.id, deadline, deadline_seat)
        record = await self.matches.stored(record.id)
        await self.store.off(self._set_work, record, self.engine(record))  # as stored now
        await self._show_running(record)

    def _set_work(self, record: MatchRecord, match: GameMatch) -> None:
        """Store the work the position makes due (at a start; at a resume without any)."""
        due = self.moves.due(record, match, record.deadline, turn_starts=True)
        assert isinstance(due, list)
        self.store.set_work(record.id, record.version, due)

    async def _show_running(self, record: MatchRecord) -> None:
        self.timers.arm(record)
        await self.endings.everything(record)
        self.computers.follow(record, self.engine(record), False)

    async def _resume(self, record: MatchRecord) -> None:
        """Show a running match again at the start-up (under its hold: no move changes its
        engine meanwhile)."""
        try:
            await self._show_running(record)
        except DatabaseUnavailable:
            raise
        except Exception:  # one match's fault must not keep every other one down
            log.exception("match %s could not be shown at the resume", record.id)

    async def _with_deadline(self, record: MatchRecord) -> MatchRecord:
        """A running match stored without a deadline while timers are on gets one now, and
        one stored without due work (written by an older Tavolo) gets it (off the loop)."""
        if record.deadline is None:
            deadline, seat = self.moves.next_deadline(record, self.engine(record))
            if deadline is not None:
                await self.store.off(self.store.set_deadline, record.id, deadline, seat)
                record = await self.matches.stored(record.id)
                await self.store.off(self._set_work, record, self.engine(record))
                return record
        if not await self.store.read(self.store.work, record.id):
            await self.store.off(self._set_work, record, self.engine(record))
        return record

    async def resume_all(self) -> int:
        """At start-up: every unfinished match shows its current state again, and a match
        that ended as the bot stopped shows its end, and loses its bells and its hands'
        buttons."""
        for match_id in await self.store.read(self.store.ended_unsettled):
            await self.endings.match_end(await self.matches.stored(match_id))
        count = 0
        for record in await self.store.read(self.store.unfinished_matches):
            if record.status == "lobby":
                await self.lobby.refresh(record.id)
            else:
                try:  # another instance may be playing it: read it again under its lock
                    async with self.matches.hold(record.id) as held:
                        if held is None:
                            continue
                        await self._resume(await self._with_deadline(held))
                except MatchHeld:
                    continue
            count += 1
            await asyncio.sleep(0)  # let the outbox work between matches
        await self.tournaments.rounds.resume_all()
        return count
