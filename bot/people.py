"""Who is who: the languages of people and groups, group titles, admins and members."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from telegram import Bot
from telegram.error import TelegramError

from bot.i18n import isolated, language_for, t
from engine.ratings import NEW_RATING, Rating, category_of
from storage import MatchRecord, Store

log = logging.getLogger(__name__)

ADMINS = ("creator", "administrator")
MEMBERS = (*ADMINS, "member", "restricted")
MET_AGAIN = 600.0
"""Seconds after which a person met again is written again though nothing changed (another
instance may have erased them meanwhile)."""
MET_KEPT = 20_000
"""People whose name and language code are remembered in memory, the latest met."""


class People:
    """Languages and titles from the store; membership and powers asked of Telegram."""

    def __init__(self, store: Store, bot: Bot, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.bot = bot
        self.clock = clock
        self.titles: dict[int, str] = {}
        self._met: dict[int, tuple[str, str | None, float]] = {}

    async def load(self, users: Iterable[int] = (), chats: Iterable[int] = ()) -> None:
        """Have these people and chats ready in the store's memory, read off the event loop
        when it does not keep them: what follows at once (an update's handler, a render)
        reads them without waiting for the database."""
        users = {*users, *(chat for chat in chats if chat > 0)}
        groups = {chat for chat in chats if chat < 0}
        if not self.store.keeps(users, groups):
            await self.store.read(self.store.read_people, users, groups)

    async def met(self, user_id: int, name: str, code: str | None) -> None:
        """A person pressed or typed a command: their name and Telegram's language code are
        kept in the store, written only when they changed (or ``MET_AGAIN`` seconds passed)."""
        now = self.clock()
        known = self._met.pop(user_id, None)
        if known is None and self._stored_as(user_id, name, code):
            known = (name, code, now)  # met before a restart, unchanged: nothing to write
        if known is None or known[:2] != (name, code) or now - known[2] > MET_AGAIN:
            await self.store.off(self.store.upsert_user, user_id, name, code)
            known = (name, code, now)
        self._met[user_id] = known
        if len(self._met) > MET_KEPT:
            del self._met[next(iter(self._met))]

    def _stored_as(self, user_id: int, name: str, code: str | None) -> bool:
        """Whether the store has the person with this name and language code already."""
        user = self.store.known_user(user_id)
        return user is not None and (user.name, user.language_code) == (name, code)

    def forget(self, user_id: int) -> None:
        """A person erased their data: met again, they are written again."""
        self._met.pop(user_id, None)

    async def titled(self, chat_id: int, title: str) -> None:
        """A group's title as an update showed it, stored when it changed."""
        if self.titles.get(chat_id) != title:
            self.titles[chat_id] = title
            if self.store.known_chat(chat_id).title != title:  # else known before a restart
                await self.store.off(self.store.set_chat_title, chat_id, title)

    def user_lang(self, user_id: int, code: str | None = None) -> str:
        """A user's language: chosen with /language, else from Telegram's language code."""
        user = self.store.known_user(user_id)
        if user is not None and user.language:
            return user.language
        return language_for(
            code if user is None or user.language_code is None else user.language_code
        )

    def group_lang(self, chat_id: int) -> str:
        """The group's language (set with /language; Italian by default); in a private chat,
        where a player plays against the computer, the player's own."""
        if chat_id > 0:
            return self.user_lang(chat_id)
        return self.store.known_chat(chat_id).language or "it"

    def reply_lang(self, chat_id: int, user_id: int, code: str | None = None) -> str:
        """The language to answer someone in: a group's own, or, in a group that never chose
        one (no match was ever set up there), the asker's; in private the user's."""
        chosen = self.store.known_chat(chat_id).language if chat_id < 0 else None
        return chosen or self.user_lang(user_id, code)

    def group_title(self, chat_id: int) -> str:
        """The group's title for labelling hands (remembered from updates), isolated."""
        if chat_id > 0:
            return t(self.user_lang(chat_id), "private.title")
        return isolated(self.title(chat_id))

    def title(self, chat_id: int) -> str:
        """The group's title as typed (remembered from updates), or its id when unknown."""
        return self.titles.get(chat_id) or self.store.known_chat(chat_id).title or str(chat_id)

    def where(self, chat_id: int, lang: str) -> str:
        """Where a match is played, as a sentence says it: "in Amici" or "nella tua partita"."""
        if chat_id > 0:
            return t(lang, "where.private")
        return t(lang, "where.group", group=self.group_title(chat_id))

    def deep_link(self, match_id: int) -> str:
        """``t.me/<bot>?start=j<match>``: opens the private chat and joins the match."""
        return f"https://t.me/{self.bot.username}?start=j{match_id}"

    def bot_link(self) -> str:
        """``t.me/<bot>?start=hi``: opens the private chat with the bot."""
        return f"https://t.me/{self.bot.username}?start=hi"

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` administers the group ``chat_id`` (asked of Telegram there)."""
        return await self._status(chat_id, user_id) in ADMINS

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is in the group ``chat_id`` (a private chat: is its user)."""
        if chat_id > 0:
            return chat_id == user_id
        return await self._status(chat_id, user_id) in MEMBERS

    async def _status(self, chat_id: int, user_id: int) -> str:
        if chat_id > 0:
            return ""
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.info("membership of %s in %s unknown: %s", user_id, chat_id, error)
            return ""
        if member.status == "restricted" and not getattr(member, "is_member", False):
            return "left"
        return str(member.status)

    async def open_topic(self, chat_id: int, name: str) -> int | None:
        """A forum topic the bot opens for a new table, named ``name``: its thread, or None
        when the bot may not manage the forum's topics (or Telegram refused)."""
        try:
            member = await self.bot.get_chat_member(chat_id, self.bot.id)
            if not getattr(member, "can_manage_topics", False):
                return None
            topic = await self.bot.create_forum_topic(chat_id, name)
        except TelegramError as error:
            log.info("no topic opened in %s: %s", chat_id, error)
            return None
        return topic.message_thread_id

    async def lobby_levels(self, record: MatchRecord) -> dict[int, Rating]:
        """Each seated person's rating in the category the match is rated in, when the group
        shows levels in its lobbies (R-6.3); a person never rated there is a newcomer (read
        off the event loop)."""
        category = category_of(record.game, record.options)
        if category is None or not self.store.known_chat(record.chat_id).levels_in_lobby:
            return {}
        return await self.store.read(self._levels, record, category)

    def _levels(self, record: MatchRecord, category: str) -> dict[int, Rating]:
        return {
            seat.seat: self.rating(seat.user_id, category)
            for seat in record.seats
            if seat.user_id is not None
        }

    def rating(self, user_id: int | None, category: str) -> Rating:
        """A person's rating in a category (a newcomer's where they were never rated, or
        for nobody: a seat whose person erased their data)."""
        rated = [r for r in self.store.user_ratings(user_id or 0) if r.category == category]
        return Rating(rated[0].mu, rated[0].sigma) if rated else NEW_RATING
