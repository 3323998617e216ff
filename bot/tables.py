"""A group's tables: how many matches it hosts at once, which one a command concerns and, when
that cannot be told, the question with a button per table (docs/rules-notes.md, "Several
tables in a group").

A command about a match (``/tavolo``, ``/punti``, ``/regole``, ``/stop``, ``/verifica``) acts on
the table whose message it replies to, else on the table where the one who typed it sits, else
on the group's only table; with several and none of those, the group is asked which.
"""

from __future__ import annotations

from typing import NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.background import Background
from bot.delivery import Outbox, Priority
from bot.i18n import t
from bot.matches import Matches
from bot.people import People
from bot.render.table import table_button
from storage import MatchRecord


class Asked(NamedTuple):
    """A command: where and by whom it was typed, the message to reply to (None in private),
    the message it replies to (None: none), whether the one who typed it administers the
    group, and the forum topic it was typed in (None: the chat itself)."""

    chat_id: int
    user_id: int
    reply_to: int | None
    replied: int | None = None
    admin: bool = False
    thread: int | None = None
    to_bot: bool = False
    """Whether the message it replies to is the bot's."""
    forum: bool = False
    """Whether the group is a forum (a group with topics)."""


Concerned = MatchRecord | list[MatchRecord] | None
"""The match a command concerns; several: the group is to be asked; None: there is none."""


class Tables:
    """How many tables a chat hosts, and which one a command or a button names."""

    def __init__(self, matches: Matches, people: People, outbox: Outbox) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.moving = Background()
        """The tables being moved out of a topic that is gone."""

    @staticmethod
    def next_number(active: list[MatchRecord]) -> int:
        """The number the chat's next table takes: the lowest free one."""
        taken = {m.table_number for m in active}
        return next(number for number in range(1, len(taken) + 2) if number not in taken)

    def limit(self, chat_id: int) -> int:
        """How many matches the chat hosts at once: a group's setting (as read before the
        update or the render at hand, never on the loop), one in private."""
        return self.store.known_chat(chat_id).tables if chat_id < 0 else 1

    async def active(self, chat_id: int) -> list[MatchRecord]:
        """The chat's matches in the lobby or playing, by table (read off the event loop)."""
        return await self.store.read(self.store.active_matches_in_chat, chat_id)

    async def seated(
        self, chat_id: int, user_id: int, but: int | None = None
    ) -> MatchRecord | None:
        """The chat's active match where the person sits (other than the match ``but``)."""
        return seated_in(await self.active(chat_id), user_id, but)

    async def concerned(self, asked: Asked, ended: bool = False) -> Concerned:
        """The match a command concerns: the one whose message it replies to (whatever its
        status), else the one playing in the forum topic where it was typed, else the active
        one where the person sits, else the chat's only active one; with ``ended``, a chat
        with none names its latest match (read off the event loop)."""
        return await self.store.read(self._concerned, asked, ended)

    def _concerned(self, asked: Asked, ended: bool = False) -> Concerned:
        """In the store's threads: :meth:`concerned`."""
        if asked.replied is not None:
            shown = self.store.match_of_message(asked.chat_id, asked.replied)
            if shown is not None:
                return shown
        active = self.store.active_matches_in_chat(asked.chat_id)
        here = self.in_topic(active, asked.thread)
        if here is not None:
            return here
        if len(active) > 1 and asked.to_bot:
            return active  # a reply to another message of the bot's: it may be any table's
        if len(active) > 1:
            own = [m for m in active if m.seat_of(asked.user_id) is not None]
            return own[0] if len(own) == 1 else active
        if active:
            return active[0]
        return self.store.last_match_in_chat(asked.chat_id) if ended else None

    @staticmethod
    def in_topic(active: list[MatchRecord], thread: int | None) -> MatchRecord | None:
        """The active match that plays in the forum topic ``thread`` (None: none, or no
        topic)."""
        if thread is None:
            return None
        return next((m for m in active if m.thread_id == thread), None)

    def ask_which(self, command: str, tables: list[MatchRecord], asked: Asked) -> None:
        """Ask the group which table a command is about: a button per table, which anyone
        may press for themselves (it does what the command does, with their powers)."""
        lang = self.people.group_lang(asked.chat_id)
        rows = [
            [
                InlineKeyboardButton(
                    table_button(lang, r), callback_data=callbacks.table(r.id, command)
                )
            ]
            for r in tables
        ]
        markup = InlineKeyboardMarkup(rows)
        text = t(lang, "tables.which")
        self.outbox.send(asked.chat_id, text, markup, Priority.REPLY, reply_to=asked.reply_to)

    def topic_gone(self, chat_id: int, thread: int) -> None:
        """A forum topic is gone (deleted or closed): its tables play in the group itself (in
        the background: the store's work runs off the event loop)."""
        self.moving.spawn(self._out_of_topic(chat_id, thread))

    async def _out_of_topic(self, chat_id: int, thread: int) -> None:
        for record in await self.active(chat_id):
            if record.thread_id == thread:
                await self.store.off(self.store.set_thread, record.id, None)

    async def chosen(self, match_id: int, chat_id: int) -> MatchRecord | None:
        """The match a table's button names, when pressed in that match's chat (else None:
        a forged or misplaced button)."""
        record = await self.matches.load(match_id)
        if record is None or record.tournament_id is not None:  # a tournament's: in private
            return None
        return record if record.chat_id == chat_id else None


def seated_in(
    active: list[MatchRecord], user_id: int, but: int | None = None
) -> MatchRecord | None:
    """The match among a chat's ``active`` ones where the person sits (other than ``but``)."""
    return next((m for m in active if m.id != but and m.seat_of(user_id) is not None), None)
