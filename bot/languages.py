"""Choosing a language: ``/language`` offers a choice; in a group, only the host of its match
or an admin changes it; a new group speaks the language of whoever opens its first lobby."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.answer import Answer
from bot.delivery import Outbox, Priority, Render
from bot.i18n import LANGUAGES, t
from bot.people import People
from storage import Store

NAMES = {"it": "🇮🇹 Italiano", "en": "🇬🇧 English"}
"""Each language by its own name, as language choosers show it."""


class Languages:
    """The group's language and each player's own."""

    def __init__(self, store: Store, people: People, outbox: Outbox) -> None:
        self.store = store
        self.people = people
        self.outbox = outbox

    def adopt(self, chat_id: int, user_id: int) -> None:
        """A group that never chose a language takes the language of ``user_id`` (the host of
        its first lobby)."""
        if chat_id < 0 and self.store.chat_settings(chat_id).language is None:
            lang = self.people.user_lang(user_id)
            self.store.set_chat_language(chat_id, lang, unless_chosen=True)

    def ask(self, chat_id: int, user_id: int, reply_to: int | None) -> None:
        """``/language``: the choice, as buttons (in a group, the group's language)."""
        lang = self.current(chat_id, user_id)
        key = "cmd.language_group" if chat_id < 0 else "cmd.language"
        buttons = [
            InlineKeyboardButton(("✓ " if code == lang else "") + NAMES[code],
                                 callback_data=callbacks.language(code))
            for code in LANGUAGES
        ]  # fmt: skip
        markup = InlineKeyboardMarkup([buttons])
        self.outbox.send(chat_id, t(lang, key), markup, Priority.REPLY, reply_to=reply_to)

    async def choose(
        self, chat_id: int, user_id: int, choice: str, message_id: int | None
    ) -> Answer:
        """A language chosen, by a button or by ``/language en``: for the group when pressed in
        a group (by its match's host or an admin), else for the user."""
        lang = self.current(chat_id, user_id)
        if choice not in LANGUAGES:
            return Answer(t(lang, "ans.stale"))
        if chat_id < 0:
            if not await self.may_change(chat_id, user_id):
                return Answer(t(lang, "ans.only_creator_admin"), alert=True)
            await self.store.off(self.store.set_chat_language, chat_id, choice)
        else:
            await self.store.off(self.store.set_user_language, user_id, choice)
        done = t(choice, "cmd.language_set_group" if chat_id < 0 else "cmd.language_set")
        if message_id is not None:
            self.outbox.put(
                chat_id,
                ("language", message_id),
                Render(message_id, None, done),
                lambda _id, _shown: None,
                Priority.NOTICE,
            )
        else:
            self.outbox.send(chat_id, done)
        return Answer(t(choice, "ans.ok"))

    def current(self, chat_id: int, user_id: int) -> str:
        """The language of the chat: the group's, or in private the user's."""
        return self.people.group_lang(chat_id) if chat_id < 0 else self.people.user_lang(user_id)

    async def may_change(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` may change the group's language: the host of one of its current
        matches or lobbies, or an admin of the group."""
        active = await self.store.read(self.store.active_matches_in_chat, chat_id)
        if any(m.creator_id == user_id for m in active):
            return True
        return await self.people.is_admin(chat_id, user_id)
