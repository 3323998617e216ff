"""The store's people and groups: users and languages, group settings, yes/no questions,
erasure and supergroup upgrades."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from sqlalchemy import delete, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel, col, select

from storage.base import StoreBase, _check_game, _name, _next_host, _now
from storage.errors import ChatBusy
from storage.kept import ABSENT, CHAT, NOTHING, USER, Absent
from storage.models import (
    ChatTable,
    ConfirmationTable,
    EntryTable,
    MatchTable,
    RatingTable,
    ResultTable,
    SeasonTable,
    SeatTable,
    TournamentTable,
    UserTable,
    _dump,
)
from storage.records import (
    ANONYMOUS,
    LOBBY,
    MOST_TABLES,
    STOPPED,
    TABLES,
    ChatSettings,
    Confirmation,
    UserRecord,
)
from storage.rows import _confirmation, _user_record

_Row = TypeVar("_Row", UserTable, ChatTable)


_CHAT_COLUMNS: tuple[tuple[type[SQLModel], str], ...] = (
    (MatchTable, "chat_id"),  # first: its count is the number of matches moved
    (MatchTable, "active_chat_id"),
    (MatchTable, "table_chat_id"),
    (SeatTable, "turn_chat_id"),
    (ResultTable, "chat_id"),
    (ConfirmationTable, "chat_id"),
    (SeasonTable, "chat_id"),
    (TournamentTable, "chat_id"),
)
"""Every column holding a group's chat id (a supergroup upgrade changes them in place)."""


class PeopleStore(StoreBase):
    """People and groups: users, their languages, group settings, questions asked, erasure,
    supergroup upgrades."""

    def ask(self, chat_id: int, user_id: int, kind: str, match_id: int | None = None) -> int:
        """Record a yes/no question asked ``user_id`` in ``chat_id``; its id (for the buttons)."""
        with self._core(write=True, touches=NOTHING) as db:
            done = db.execute(
                insert(ConfirmationTable).values(
                    chat_id=chat_id, user_id=user_id, kind=kind, match_id=match_id,
                    created_at=_now(),
                )
            )  # fmt: skip
            key = done.inserted_primary_key
            assert key is not None
            return int(key[0])

    def confirmation(self, confirmation_id: int) -> Confirmation | None:
        """The question, answered or not; None if there is no such question."""
        with self._session() as s:
            row = s.get(ConfirmationTable, confirmation_id)
            return None if row is None else _confirmation(row)

    def answer(self, confirmation_id: int) -> bool:
        """Mark the question answered; False if it was answered already (or never asked), so
        exactly one answer wins even when two come at once."""
        with self._core(write=True, touches=NOTHING) as db:
            done = db.execute(
                update(ConfirmationTable)
                .where(
                    col(ConfirmationTable.id) == confirmation_id,
                    col(ConfirmationTable.answered_at).is_(None),
                )
                .values(answered_at=_now())
            )
            return done.rowcount == 1

    def upsert_user(self, user_id: int, name: str, language_code: str | None = None) -> UserRecord:
        """Record a user the bot met (display name, Telegram's language code); keeps the choice
        of language made with :meth:`set_user_language`."""

        def attempt() -> UserRecord:
            with self._session(write=True, touches=(USER, user_id)) as s:
                since = self._kept.stamp()
                row = s.get(UserTable, user_id)
                if row is None:
                    row = UserTable(user_id=user_id, name="", updated_at=_now())
                    s.add(row)
                row.name = _name(name)
                row.language_code = language_code
                row.updated_at = _now()
                s.flush()
                record = _user_record(row)
                self._kept.keep(USER, user_id, record, since, wrote=True)
            return record

        record = self._retrying(attempt)
        if self._kept.enabled and not self._kept.serial:
            self._read_user(user_id)  # see :meth:`_change_row`
        return record

    def keeps(self, users: Iterable[int] = (), chats: Iterable[int] = ()) -> bool:
        """Whether this store keeps in memory what it knows of all these people and chats
        (:mod:`storage.kept`), for a while yet, reading nothing: then :meth:`get_user` and
        :meth:`chat_settings` answer them without the database."""
        kept = self._kept
        return all(kept.lasts(USER, u) for u in users) and all(kept.lasts(CHAT, c) for c in chats)

    def read_people(self, users: Iterable[int] = (), chats: Iterable[int] = ()) -> None:
        """Read these people and chats (a store that keeps what it reads keeps them: what
        follows reads them from memory, :meth:`keeps`)."""
        for user_id in users:
            if not self._kept.lasts(USER, user_id):
                self._read_user(user_id)
        for chat_id in chats:
            if not self._kept.lasts(CHAT, chat_id):
                self._read_chat(chat_id)

    def known_user(self, user_id: int) -> UserRecord | None:
        """The user as this store last read them, reading nothing when it ever did (on a
        shared database perhaps a little older than :meth:`get_user` would say: what
        :meth:`read_people` refreshed just before); else as :meth:`get_user` reads them."""
        last = self._kept.last(USER, user_id)
        if isinstance(last, UserRecord):
            return last
        return None if isinstance(last, Absent) else self.get_user(user_id)

    def known_chat(self, chat_id: int) -> ChatSettings:
        """A group's settings as this store last read them (see :meth:`known_user`)."""
        last = self._kept.last(CHAT, chat_id)
        return last if isinstance(last, ChatSettings) else self.chat_settings(chat_id)

    def get_user(self, user_id: int) -> UserRecord | None:
        """The user, or None if the bot never recorded them."""
        kept = self._kept.user(user_id)
        if kept is not None:
            return None if isinstance(kept, Absent) else kept
        return self._read_user(user_id)

    def _read_user(self, user_id: int) -> UserRecord | None:
        since = self._kept.stamp()
        with self._session() as s:
            row = s.get(UserTable, user_id)
            record = None if row is None else _user_record(row)
        self._kept.keep(USER, user_id, ABSENT if record is None else record, since)
        return record

    def _change_row(
        self, table: type[_Row], key: int, fresh: Callable[[], _Row], change: Callable[[_Row], None]
    ) -> None:
        """Apply ``change`` to a user's or chat's row, creating it with ``fresh`` if missing;
        then read it back, in the caller's thread (the store's, for the bot), so that what the
        store keeps of it is what was written: a write keeps nothing it wrote here, and the
        bot's next read of the person or the group, on the event loop, finds it kept."""

        touched = (USER if table is UserTable else CHAT, key)

        def attempt() -> None:
            with self._session(write=True, touches=touched) as s:
                row = s.get(table, key)
                if row is None:
                    row = fresh()
                    s.add(row)
                change(row)
                row.updated_at = _now()

        self._retrying(attempt)
        if self._kept.enabled and table is UserTable:
            self._read_user(key)
        elif self._kept.enabled:
            self._read_chat(key)

    def _change_user(self, user_id: int, change: Callable[[UserTable], None]) -> None:
        """Apply ``change`` to the user's row (created if the bot never met the user)."""
        self._change_row(
            UserTable,
            user_id,
            lambda: UserTable(user_id=user_id, name="", updated_at=_now()),
            change,
        )

    def set_user_language(self, user_id: int, language: str | None) -> None:
        """The language the user chose (None: back to Telegram's language code)."""

        def change(row: UserTable) -> None:
            row.language = language

        self._change_user(user_id, change)

    def set_private_chat(self, user_id: int, open_: bool) -> None:
        """Whether the user has opened the private chat with the bot (``/start``)."""

        def change(row: UserTable) -> None:
            row.private_chat = open_

        self._change_user(user_id, change)

    def has_private_chat(self, user_id: int) -> bool:
        """Whether the bot may write to the user in private (they started the bot), as this
        store last read them (:meth:`known_user`: the asker is read before each update)."""
        user = self.known_user(user_id)
        return user is not None and user.private_chat

    def chat_settings(self, chat_id: int) -> ChatSettings:
        """A group's language and default options per game (empty settings if none were set)."""
        kept = self._kept.chat(chat_id)
        if kept is not None:
            return kept
        return self._read_chat(chat_id)

    def _read_chat(self, chat_id: int) -> ChatSettings:
        since = self._kept.stamp()
        with self._session() as s:
            row = s.get(ChatTable, chat_id)
            settings = (
                ChatSettings(chat_id, None, {})
                if row is None
                else ChatSettings(
                    chat_id,
                    row.language,
                    json.loads(row.default_options),
                    row.title,
                    row.rate_computers is not False,
                    row.levels_in_lobby is True,
                    TABLES if row.tables is None else row.tables,
                )
            )
        self._kept.keep(CHAT, chat_id, settings, since)
        return self._kept.chat(chat_id) or settings

    def _change_chat(self, chat_id: int, change: Callable[[ChatTable], None]) -> None:
        """Apply ``change`` to the group's settings row (created with empty settings)."""
        self._change_row(
            ChatTable,
            chat_id,
            lambda: ChatTable(chat_id=chat_id, default_options="{}", updated_at=_now()),
            change,
        )

    def set_chat_title(self, chat_id: int, title: str | None) -> None:
        """Remember a group's title (hands in private are labelled with it)."""

        def change(row: ChatTable) -> None:
            row.title = None if title is None else title[:255]

        self._change_chat(chat_id, change)

    def set_chat_language(
        self, chat_id: int, language: str | None, unless_chosen: bool = False
    ) -> None:
        """The group's language (None: not chosen); ``unless_chosen``: only if none is (a
        group's first lobby adopts its host's, and never undoes a choice another instance
        stored meanwhile)."""

        def change(row: ChatTable) -> None:
            if not (unless_chosen and row.language is not None):
                row.language = language

        self._change_chat(chat_id, change)

    def set_rate_computers(self, chat_id: int, rated: bool) -> None:
        """Whether the group's matches against computer players move ratings (R-4.2)."""

        def change(row: ChatTable) -> None:
            row.rate_computers = rated

        self._change_chat(chat_id, change)

    def set_levels_in_lobby(self, chat_id: int, shown: bool) -> None:
        """Whether the group's lobbies show each player's level next to their name (R-6.3)."""

        def change(row: ChatTable) -> None:
            row.levels_in_lobby = shown

        self._change_chat(chat_id, change)

    def set_tables(self, chat_id: int, tables: int) -> None:
        """How many matches the group hosts at once (1 to :data:`MOST_TABLES`); the matches
        running keep their tables."""
        if not 1 <= tables <= MOST_TABLES:
            raise ValueError(f"a group hosts 1 to {MOST_TABLES} tables, not {tables}")

        def change(row: ChatTable) -> None:
            row.tables = tables

        self._change_chat(chat_id, change)

    def set_chat_default_options(
        self, chat_id: int, game: str, options: dict[str, Any] | None
    ) -> None:
        """The options new matches of ``game`` start with in this group (None: the defaults)."""
        _check_game(game)

        def change(row: ChatTable) -> None:
            defaults = json.loads(row.default_options)
            if options is None:
                defaults.pop(game, None)
            else:
                defaults[game] = options
            row.default_options = _dump(defaults)

        self._change_chat(chat_id, change)

    def migrate_chat(self, old_id: int, new_id: int) -> int:
        """A group became a supergroup: move its matches, settings, results and tournaments to
        ``new_id``.

        Done in place (same match ids, logs and snapshots). Settings already made in the new
        chat win over the old ones. Raises :class:`ChatBusy` (nothing changed) if both chats
        have an active match. Running it again is harmless. Returns the number of matches moved.
        """
        if old_id == new_id:
            return 0
        with self._session(write=True) as s:
            old_active = self._active_rows(s, old_id)
            new_active = self._active_rows(s, new_id)
            if old_active and new_active:
                assert new_active[0].id is not None
                raise ChatBusy(self.database, new_id, new_active[0].id)
            old_chat = s.get(ChatTable, old_id)
            if old_chat is not None:
                new_chat = s.get(ChatTable, new_id)
                if new_chat is None:
                    new_chat = ChatTable(chat_id=new_id, default_options="{}", updated_at=_now())
                    s.add(new_chat)
                new_chat.language = new_chat.language or old_chat.language
                if new_chat.rate_computers is None:
                    new_chat.rate_computers = old_chat.rate_computers
                if new_chat.levels_in_lobby is None:
                    new_chat.levels_in_lobby = old_chat.levels_in_lobby
                if new_chat.tables is None:
                    new_chat.tables = old_chat.tables
                merged = json.loads(old_chat.default_options) | json.loads(new_chat.default_options)
                new_chat.default_options = _dump(merged)
                new_chat.updated_at = _now()
                s.delete(old_chat)
                s.flush()
            both = sa_select(col(SeasonTable.period)).where(col(SeasonTable.chat_id) == new_id)
            s.exec(  # a month both chats played in: the new chat's row stands for both
                delete(SeasonTable).where(
                    col(SeasonTable.chat_id) == old_id, col(SeasonTable.period).in_(both)
                )
            )
            counts = [
                s.exec(
                    update(table)
                    .where(col(getattr(table, column)) == old_id)
                    .values({column: new_id})
                    .execution_options(synchronize_session=False)
                ).rowcount
                for table, column in _CHAT_COLUMNS
            ]
            return counts[0]

    @staticmethod
    def _anonymise_entries(s: Session, user_id: int) -> None:
        """A person's tournament entries (alone or in a pair): gone from a registration still
        open (a partner stays, waiting for another); else withdrawn at the round the
        tournament is at, and in its standings as "a former player" (a partner keeps their
        name). The tournaments they organise have no organiser."""
        mine = (col(EntryTable.user_id) == user_id) | (col(EntryTable.partner_id) == user_id)
        rows = s.exec(select(EntryTable, TournamentTable).join(TournamentTable).where(mine)).all()
        for entry, tournament in rows:
            second = entry.partner_id == user_id
            if tournament.status == "open" and entry.partner_id is None:
                s.delete(entry)
                continue
            if tournament.status == "open":  # the partner stays, waiting for another
                if not second:
                    entry.user_id, entry.name = entry.partner_id, entry.partner_name or ANONYMOUS
                entry.partner_id = entry.partner_name = None
                continue
            if second:
                entry.partner_id, entry.partner_name = None, ANONYMOUS
            else:
                entry.user_id, entry.name = None, ANONYMOUS
            if entry.withdrawn_round is None and tournament.status == "running":
                entry.withdrawn_round = tournament.round
        s.exec(
            update(TournamentTable)
            .where(col(TournamentTable.organiser_id) == user_id)
            .values(organiser_id=None)
            .execution_options(synchronize_session=False)
        )
        s.flush()

    def delete_user_data(self, user_id: int) -> list[int]:
        """Erase a person: profile, language, results, ratings, tournament entries (a
        registration's go, the others stay as "a former player"). They leave every lobby (one they
        host passes to the next seated person, or is cancelled when no person is left); their seats
        in running and past matches become :data:`ANONYMOUS`, and a match they host passes to
        the next seated person (None: nobody). The ids of the lobbies changed.

        Match logs keep their moves (they name seats, not people), so replays still work.
        """
        with self._session(write=True) as s:
            lobbies = self._leave_lobbies(s, user_id)
            s.exec(delete(ResultTable).where(col(ResultTable.user_id) == user_id))
            s.exec(delete(RatingTable).where(col(RatingTable.user_id) == user_id))
            self._anonymise_entries(s, user_id)
            s.exec(delete(ConfirmationTable).where(col(ConfirmationTable.user_id) == user_id))
            s.exec(delete(UserTable).where(col(UserTable.user_id) == user_id))
            s.exec(delete(ChatTable).where(col(ChatTable.chat_id) == user_id))
            next_host = (
                sa_select(col(SeatTable.user_id))
                .where(
                    col(SeatTable.match_id) == col(MatchTable.id),
                    col(SeatTable.user_id).is_not(None),
                    col(SeatTable.user_id) != user_id,
                )
                .order_by(col(SeatTable.seat))
                .limit(1)
                .scalar_subquery()
            )
            s.exec(
                update(MatchTable)
                .where(col(MatchTable.creator_id) == user_id)
                .values(creator_id=next_host)
                .execution_options(synchronize_session=False)
            )
            s.exec(
                update(SeatTable)
                .where(col(SeatTable.user_id) == user_id)
                .values(
                    user_id=None,
                    name=ANONYMOUS,
                    hand_message_id=None,
                    turn_chat_id=None,
                    turn_message_id=None,
                )
                .execution_options(synchronize_session=False)
            )
            s.exec(
                update(MatchTable)
                .where(col(MatchTable.table_chat_id) == user_id)
                .values(table_chat_id=None, table_message_id=None)
                .execution_options(synchronize_session=False)
            )
        return lobbies

    def _leave_lobbies(self, s: Session, user_id: int) -> list[int]:
        """An erased person leaves every lobby they sit at or host (:meth:`delete_user_data`);
        the ids of those lobbies."""
        seated = sa_select(col(SeatTable.match_id)).where(col(SeatTable.user_id) == user_id)
        query = select(MatchTable.id).where(
            col(MatchTable.status) == LOBBY,
            (col(MatchTable.creator_id) == user_id) | col(MatchTable.id).in_(seated),
        )
        lobbies = sorted(match_id for match_id in s.exec(query).all() if match_id is not None)
        for match_id in lobbies:
            row = self._lock(s, match_id)
            seats = self._seats(s, match_id)
            kept = [seat for seat in seats if seat.user_id != user_id]
            if row.creator_id == user_id:
                gone = [seat.seat for seat in seats if seat.user_id == user_id]
                people = any(seat.user_id is not None for seat in kept)
                row.creator_id = _next_host(kept, gone[0] if gone else -1, 0) if people else None
            self._reseat(s, row, seats, kept)
            if row.creator_id is None:  # nobody left who could start it
                self._end(s, row, STOPPED)
        return lobbies
