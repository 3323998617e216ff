"""The yes/no questions (``/stop``, ``/abandon``, ``/deletemydata``): stored, so that each is
answered once, by the user it asks, in the chat it was asked in; the first answer takes its
buttons away."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import Reply
from bot.delivery import Outbox, Priority, Render
from bot.i18n import Html, html_lines, t
from bot.matches import Matches
from bot.moves import Moves
from bot.people import People
from bot.render.table import labelled
from bot.tables import Asked
from engine.actions import ABANDON, STOP
from storage import MatchRecord


class Questions:
    """Asking, and answering once."""

    def __init__(self, matches: Matches, people: People, outbox: Outbox, moves: Moves) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.moves = moves

    async def ask_stop(self, record: MatchRecord | None, asked: Asked) -> None:
        """``/stop`` of the match ``record`` (the one the command concerns): ask its creator,
        or an admin, to confirm."""
        chat_id, user_id, reply_to = asked.chat_id, asked.user_id, asked.reply_to
        lang = self.people.group_lang(chat_id)
        if record is None or record.status not in ("lobby", "playing"):
            self.outbox.send(chat_id, t(lang, "cmd.no_match"), reply_to=reply_to)
            return
        if user_id != record.creator_id and not asked.admin:
            self.refuse(chat_id, user_id, "ans.only_creator_admin", reply_to)
            return
        text = labelled(lang, record, t(lang, "cmd.stop_confirm"))
        await self._ask(chat_id, user_id, "stop", record.id, text, lang, reply_to)

    def refuse(self, chat_id: int, user_id: int, key: str, reply_to: int | None) -> None:
        """The refusal ``key`` in ``chat_id``, which concerns only the one who asked: told in
        private, naming the group, in their own language, when the bot can write to them;
        else (also when Telegram refuses the private message) in the chat, replying."""
        text = t(self.people.group_lang(chat_id), key)

        def in_chat() -> None:
            self.outbox.send(chat_id, text, reply_to=reply_to)

        if chat_id > 0 or not self.store.has_private_chat(user_id):
            in_chat()
            return
        lang = self.people.user_lang(user_id)
        group = self.people.group_title(chat_id)
        told = t(lang, "cmd.in_group", group=group, text=t(lang, key))
        self.outbox.send(user_id, told, done=lambda sent: in_chat() if sent is None else None)

    async def ask_abandon(self, user_id: int) -> None:
        """``/abandon`` in private: one confirmation per running match of the user."""
        lang = self.people.user_lang(user_id)
        records = [
            r
            for r in await self.store.read(self.store.unfinished_matches)
            if r.status == "playing" and r.seat_of(user_id) is not None
        ]
        if not records:
            self.outbox.send(user_id, t(lang, "cmd.no_match"))
            return
        await self.people.load((), [r.chat_id for r in records])  # their groups, off the loop
        for record in records:
            if record.chat_id > 0:  # against the computer, /stop ends it without a loss
                text = t(lang, "cmd.abandon_confirm_private")
            else:
                group = self.people.group_title(record.chat_id)
                text = t(lang, "cmd.abandon_confirm", group=group)
            await self._ask(user_id, user_id, "abandon", record.id, text, lang)

    async def ask_delete(self, user_id: int, lang: str) -> None:
        """``/deletemydata``: ask for a confirmation."""
        await self._ask(user_id, user_id, "delete", None, t(lang, "cmd.delete_confirm"), lang)

    async def _ask(
        self,
        chat_id: int,
        user_id: int,
        kind: str,
        match_id: int | None,
        text: str,
        lang: str,
        reply_to: int | None = None,
    ) -> None:
        """A yes/no question, stored so that it is answered once, by the user it asks."""
        question = await self.store.off(self.store.ask, chat_id, user_id, kind, match_id)
        yes = InlineKeyboardButton(
            t(lang, "btn.yes"), callback_data=callbacks.confirm(question, Reply.YES)
        )
        no = InlineKeyboardButton(
            t(lang, "btn.no"), callback_data=callbacks.confirm(question, Reply.NO)
        )
        markup = InlineKeyboardMarkup([[yes, no]])
        self.outbox.send(chat_id, text, markup, Priority.REPLY, reply_to=reply_to)

    async def answer(
        self,
        data: callbacks.Callback,
        user_id: int,
        chat_id: int,
        message_id: int | None,
        shown: str | None,
    ) -> Answer:
        """The yes or no of a question: only in the chat it was asked in, only by the user it
        asked, only once. The first answer takes the buttons away (``message_id`` and
        ``shown``: the question's message and its HTML)."""
        lang = self.people.user_lang(user_id)
        question = await self.store.read(self.store.confirmation, data.match_id)
        valid = data.op in (Reply.YES, Reply.NO)
        if question is None or question.chat_id != chat_id or not valid:
            return Answer(t(lang, "ans.stale"))
        if question.user_id != user_id:
            return Answer(t(lang, "ans.not_yours"))
        if not await self.store.off(self.store.answer, question.id):
            return Answer(t(lang, "ans.answered"))
        yes = data.op == Reply.YES
        if message_id is not None and shown is not None:
            self._answered(chat_id, message_id, shown, lang, yes)
        if not yes:
            return Answer(t(lang, "ans.ok"))
        if question.kind == "delete":
            self.people.forget(user_id)
            left = await self.store.off(self.store.delete_user_data, user_id)
            for lobby in left:  # left, passed on or cancelled
                self.moves.shows.table(await self.matches.stored(lobby))
            return Answer(t(lang, "ans.deleted"))
        return await self._confirmed(question.kind, question.match_id or 0, user_id, lang)

    def _answered(self, chat_id: int, message_id: int, text: str, lang: str, yes: bool) -> None:
        """The question keeps its text, with the answer instead of the buttons."""
        answered = html_lines([Html(text), t(lang, "btn.yes" if yes else "btn.no")])
        self.outbox.put(
            chat_id,
            ("question", message_id),
            Render(message_id, None, answered),
            lambda _id, _shown: None,
            Priority.NOTICE,
        )

    async def _confirmed(self, kind: str, match_id: int, user_id: int, lang: str) -> Answer:
        """Stop or abandon the match, as confirmed (the powers checked again, in its group)."""
        async with self.matches.hold(match_id) as record:
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            seat = record.seat_of(user_id)
            if kind == "stop":
                allowed = user_id == record.creator_id or await self.people.is_admin(
                    record.chat_id, user_id
                )
                if not allowed:
                    return Answer(t(lang, "ans.only_creator_admin"))
                await self.moves.move(record, seat or 0, STOP, lang)
                return Answer(t(lang, "ans.stopped"))
            if kind == "abandon" and seat is not None:
                await self.moves.move(record, seat, ABANDON, lang)
                return Answer(t(lang, "ans.abandoned"))
        return Answer(t(lang, "ans.stale"))
