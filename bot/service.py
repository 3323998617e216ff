"""The bot's core: lobby, moves and rendering, between Telegram, the engines and the store.

Every handler funnels into :class:`Tavolo`. A move follows one path: check the press, play it on
the engine under the match's lock, commit it to the store (the store's version check refuses a
racing writer), then answer and schedule the renders. Every message goes out through the outbox
(:mod:`bot.delivery`), which keeps Telegram's limits; nothing here waits for it. Nothing lives
only in memory: caches here are rebuilt from the store after a restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.core import Answer, Core, computer_action, engine_error
from bot.delivery import Priority, Render
from bot.hands import Hands
from bot.i18n import Html, html_lines, t
from bot.lobby import Lobby
from bot.options_ui import option_names, value_text
from bot.render import table as table_render
from engine import fairness
from engine.cards import secure_seed
from storage import MatchRecord

log = logging.getLogger(__name__)


class Tavolo(Hands, Lobby):
    """The service behind every handler: commands and Telegram's events here; the lobby,
    the hands and the core in their own modules."""

    # --- commands --------------------------------------------------------------------------------

    def reply(self, chat_id: int, text: str, reply_to: int | None = None) -> None:
        """A command's reply (merged with an identical one, dropped if the chat has no budget
        for it soon: :attr:`bot.delivery.Priority.REPLY`)."""
        self.outbox.send(chat_id, text, reply_to=reply_to)

    def point_at(self, record: MatchRecord, reply_to: int) -> None:
        """A second ``/newgame`` points at the running match's message."""
        lang = self.group_lang(record.chat_id)
        self.reply(
            record.chat_id,
            t(lang, "cmd.running", link="⬆️"),
            reply_to=record.table_message_id or reply_to,
        )

    def repost_table(self, chat_id: int) -> None:
        """``/table``: the table again at the bottom; the new message is the one edited.

        Within ``Pace.repost_gap`` seconds of the last repost the table is only brought up to
        date, so a flood of ``/table`` posts it once."""
        record = self.store.active_match_in_chat(chat_id)
        if record is None:
            self.reply(chat_id, t(self.group_lang(chat_id), "cmd.no_match"))
            return
        now = asyncio.get_running_loop().time()
        last = self._reposted.get(record.id)
        fresh = last is None or now - last >= self.outbox.pace.repost_gap
        if fresh:
            self._reposted[record.id] = now
        self.request_table(record.id, fresh=fresh)

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
        return t(lang, "cmd.rules", options=html_lines(lines))

    def ask_stop(self, chat_id: int, user_id: int, admin: bool, reply_to: int) -> None:
        """``/stop``: ask the creator or an admin to confirm."""
        record = self.store.active_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None:
            self.reply(chat_id, t(lang, "cmd.no_match"), reply_to)
            return
        if user_id != record.creator_id and not admin:
            self.reply(chat_id, t(lang, "ans.only_creator_admin"), reply_to)
            return
        self._ask(chat_id, user_id, "stop", record.id, t(lang, "cmd.stop_confirm"), lang, reply_to)

    def ask_abandon(self, user_id: int) -> None:
        """``/abandon`` in private: one confirmation per running match of the user."""
        lang = self.user_lang(user_id)
        records = [
            r
            for r in self.store.unfinished_matches()
            if r.status == "playing" and r.seat_of(user_id) is not None
        ]
        if not records:
            self.reply(user_id, t(lang, "cmd.no_match"))
            return
        for record in records:
            text = t(lang, "cmd.abandon_confirm", group=self.group_title(record.chat_id))
            self._ask(user_id, user_id, "abandon", record.id, text, lang)

    def ask_delete(self, user_id: int, lang: str) -> None:
        """``/deletemydata``: ask for a confirmation."""
        self._ask(user_id, user_id, "delete", None, t(lang, "cmd.delete_confirm"), lang)

    def _ask(
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
        question = self.store.ask(chat_id, user_id, kind, match_id)
        markup = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t(lang, "btn.yes"), callback_data=callbacks.confirm(question, "y")
                    ),
                    InlineKeyboardButton(
                        t(lang, "btn.no"), callback_data=callbacks.confirm(question, "n")
                    ),
                ]
            ]
        )
        self.outbox.send(chat_id, text, markup, Priority.REPLY, reply_to=reply_to)

    async def confirm_press(
        self,
        data: callbacks.Callback,
        user_id: int,
        chat_id: int,
        message_id: int | None,
        shown: str | None,
    ) -> Answer:
        """The yes or no of a question (``/stop``, ``/abandon``, ``/deletemydata``): only in the
        chat it was asked in, only by the user it asked, only once. The first answer takes
        the buttons away (``message_id`` and ``shown``: the question's message and its HTML)."""
        lang = self.user_lang(user_id)
        question = self.store.confirmation(data.match_id)
        if question is None or question.chat_id != chat_id or data.op not in ("y", "n"):
            return Answer(t(lang, "ans.stale"))
        if question.user_id != user_id:
            return Answer(t(lang, "ans.not_yours"))
        if not self.store.answer(question.id):
            return Answer(t(lang, "ans.answered"))
        if message_id is not None and shown is not None:
            self._answered(chat_id, message_id, shown, lang, data.op == "y")
        if data.op == "n":
            return Answer(t(lang, "ans.ok"))
        if question.kind == "delete":
            self.store.delete_user_data(user_id)
            return Answer(t(lang, "ans.deleted"))
        return await self._confirmed(question.kind, question.match_id or 0, user_id, lang)

    def _answered(self, chat_id: int, message_id: int, text: str, lang: str, yes: bool) -> None:
        """The question keeps its text, with the answer instead of the buttons."""
        answered = html_lines([Html(text), t(lang, "btn.yes" if yes else "btn.no")])
        self.outbox.put(
            chat_id,
            ("question", message_id),
            lambda: Render(message_id, None, answered),
            lambda _id, _shown: None,
            Priority.NOTICE,
        )

    async def _confirmed(self, kind: str, match_id: int, user_id: int, lang: str) -> Answer:
        """Stop or abandon the match, as confirmed (the powers checked again, in its group)."""
        async with self.lock(match_id):
            record = self.record_or_none(match_id)
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            seat = record.seat_of(user_id)
            if kind == "stop":
                allowed = user_id == record.creator_id or await self.is_admin(
                    record.chat_id, user_id
                )
                if not allowed:
                    return Answer(t(lang, "ans.only_creator_admin"))
                await self.move(record, seat or 0, "stop", lang)
                return Answer(t(lang, "ans.stopped"))
            if kind == "abandon" and seat is not None:
                await self.move(record, seat, "abandon", lang)
                return Answer(t(lang, "ans.abandoned"))
        return Answer(t(lang, "ans.stale"))

    def resend_hands(self, user_id: int) -> int:
        """``/hand``: every running match of the user gets a fresh hand message; how many."""
        count = 0
        for record in self.store.unfinished_matches():
            seat = record.seat_of(user_id)
            if record.status == "playing" and seat is not None:
                self.request_hand(record.id, seat, fresh=True)
                count += 1
        return count

    async def rematch(self, match_id: int, user_id: int, chat_id: int) -> Answer:
        """The rematch button (pressed in the match's chat): a new lobby with the same
        players (those still in the group; the computers), seats and options."""
        lang = self.user_lang(user_id)
        async with self.lock(match_id):
            record = self.record_or_none(match_id)
            if record is None or record.status != "finished" or record.chat_id != chat_id:
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
            others = [
                s
                for s in record.seats
                if s.seat != presser
                and (s.is_computer or (s.user_id and await self.is_member(chat_id, s.user_id)))
            ]
            for seat in others:
                new = self.store.add_seat(new.id, seat.user_id, seat.name, seat.computer_level)
            # new seat 0 is the presser, then the others in order: put everyone back in place
            kept = [s for s in record.seats if s.seat == presser or s in others]
            order = [0 if s.seat == presser else 1 + others.index(s) for s in kept]
            new = self.store.reorder_seats(new.id, order)
            self.request_table(new.id)
        return Answer()

    def verify(self, chat_id: int, reply_to: int | None) -> None:
        """``/verify``: while a match is on, the commitment to its secret seed; after it, the
        seed and the match file that rebuilds every deal (:mod:`engine.fairness`)."""
        record = self.store.last_match_in_chat(chat_id)
        lang = self.group_lang(chat_id)
        if record is None:
            self.reply(chat_id, t(lang, "cmd.verify_none"), reply_to)
            return
        full = fairness.commitment(record.seed)
        if record.status in ("lobby", "playing"):
            self.reply(chat_id, t(lang, "cmd.verify_running", commitment=full), reply_to)
            return
        moves = [(move.seat, move.action) for move in self.store.moves(record.id)]
        players = len(record.seats)
        content = fairness.match_file(
            record.game, players, record.options, record.seed, moves, record.state_json
        )
        name = f"tavolo-{record.id}.json"
        caption = t(lang, "cmd.verify_done", seed=str(record.seed), commitment=full, file=name)
        self.outbox.send(chat_id, caption, reply_to=reply_to, document=(name, content.encode()))

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
            # Stopped like any match (timers off, bells gone, hands finished); what goes to the
            # group is refused by Telegram now, and dropped.
            await self.move(record, 0, "stop", self.group_lang(chat_id))

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
                self.refresh_lobby(record.id)
                return
            lang = self.group_lang(chat_id)
            text = t(lang, "cmd.player_left", name=record.seats[seat].name)
            self.outbox.send(chat_id, text, priority=Priority.NOTICE)
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
                self.refresh_lobby(record.id)
            else:
                self.render_all(record)
                self.arm_timer(await self._with_deadline(record))
            count += 1
        return count


__all__: Sequence[str] = ["Answer", "Core", "Tavolo", "computer_action", "engine_error"]
