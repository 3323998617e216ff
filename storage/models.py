"""The database tables, as SQLModel classes. Portable: no SQLite-only types or SQL.

- ``matches``: one row per match: chat, game, options and seed, status, the engine's current
  snapshot (``to_json()`` text) with its ``version``, the table message, the turn deadline.
- ``seats``: who sits where (a Telegram user or a computer player), the seat's private hand
  message and turn notification, and the hand-UI state of an unfinished turn.
- ``moves``: the append-only log of every accepted action, one row per match version.
- ``users``, ``chats``: per-user language, per-group language and default options.
- ``results``: per-player results of finished matches, for leaderboards
  (docs/rules.md S40-13, SC-6).
- ``ratings``: each person's skill rating per category (docs/rules.md R-1 to R-6).
- ``confirmations``: the yes/no questions the bot asked (``/stop``, ``/abandon``, ...), each
  answerable once.
- ``work``: what is due at a time (a turn's reminder and timeout, a computer's move), claimed by
  one bot instance at a time, so that any instance runs it once and a dead one's is taken over.
- ``settings``: values the bot instances share (the webhook's secret token).
- ``chat_budgets``: each chat's message budget, shared by the bot instances (PostgreSQL).

JSON values (options, UI state) are stored as TEXT written by :func:`json.dumps`; times are
timezone-aware UTC (:class:`UTCDateTime`). The Alembic migrations in ``storage/migrations`` create
exactly these tables; a test compares them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlmodel import Field, SQLModel

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata: MetaData = SQLModel.metadata
"""The metadata of Tavolo's tables (constraint names follow a fixed convention for Alembic)."""


def _dump(value: Any) -> str:
    """A JSON column's text: compact, its keys sorted (the same value, the same text)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


NAME_LENGTH = 128
"""Display names are cut to this many characters."""


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend.

    Naive datetimes are refused when writing (a deadline must say which clock it is on); values
    read back are always aware and in UTC, also from SQLite, which keeps no time zone.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """UTC on the way in; naive UTC for SQLite, which stores no offset."""
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"a stored time must be timezone-aware, got {value!r}")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Aware UTC on the way out."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def _id(*, nullable: bool = True, index: bool = False, primary_key: bool = False) -> Any:
    """A Telegram id (user, chat or message): 64-bit."""
    return Field(
        sa_column=Column(
            BigInteger,
            nullable=nullable and not primary_key,
            index=index,
            primary_key=primary_key,
            autoincrement=False,
        )
    )


def _text(*, nullable: bool = False, length: int | None = None) -> Any:
    return Field(sa_column=Column(String(length) if length else Text, nullable=nullable))


def _int(*, nullable: bool = False) -> Any:
    return Field(sa_column=Column(Integer, nullable=nullable))


def _time(*, nullable: bool = False) -> Any:
    return Field(sa_column=Column(UTCDateTime(), nullable=nullable))


def _match_fk() -> Any:
    return Field(
        sa_column=Column(
            Integer,
            ForeignKey("matches.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        )
    )


class MatchTable(SQLModel, table=True):
    """A match: lobby, playing, finished or stopped. ``state`` is the engine's snapshot.

    ``version`` grows by one at every change of the match (seats, start, each move, status), and
    a write names the version it was based on (optimistic concurrency). ``active_chat_id`` equals
    ``chat_id`` while the match is in the lobby or playing and is NULL after: its unique
    constraint with ``table_number`` keeps one active match per table of a group on every
    backend.
    """

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_status_id", "status", "id"),
        UniqueConstraint("active_chat_id", "table_number"),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = _id(nullable=False, index=True)
    active_chat_id: int | None = _id()
    table_number: int = Field(
        default=1, sa_column=Column(Integer, nullable=False, server_default="1")
    )
    """The match's table in its group (1, 2, ...): unique among the group's active matches."""
    thread_id: int | None = _id()
    """The forum topic the match plays in (None: the group's main chat, or a private chat)."""
    tournament_id: int | None = _int(nullable=True)
    """The tournament this match is a table of (None: none): it plays in the players' private
    chats, and takes none of its group's tables."""
    game: str = _text(length=16)
    options: str = _text()
    seed: str = _text(length=40)
    """The match seed as decimal text: engine seeds are 128-bit (docs/rules.md S40-2.2)."""
    status: str = _text(length=16)
    creator_id: int | None = _id()
    version: int = _int()
    state: str | None = _text(nullable=True)
    table_chat_id: int | None = _id()
    table_message_id: int | None = _id()
    table_digest: str | None = _text(nullable=True, length=64)
    table_pending: str | None = _text(nullable=True, length=64)
    """The digest of the edit sent last: when it differs from ``table_digest``, the bot died
    before Telegram's answer came, and the message shows one of the two."""
    deadline: datetime | None = _time(nullable=True)
    deadline_seat: int | None = _int(nullable=True)
    turn_version: int | None = _int(nullable=True)
    """The version at which the current turn started (the turn its bell rings for)."""
    shown_hand: int | None = Field(default=0, sa_column=Column(Integer, nullable=True, default=0))
    """The latest hand whose summary the group has been shown (NULL: written by an older
    Tavolo, which kept it in memory): a resume shows the end of a later hand that ended."""
    end_shown: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    """Whether the group was sent the end of the match (the final ranking, or the stop): a
    resume sends it when the bot stopped before."""
    summary_message_id: int | None = _id()
    """The group's message of the latest hand's summary (or, where the bot stopped before
    storing it, the table posted below it at the resume): the next table goes below it."""
    created_at: datetime = _time()
    updated_at: datetime = _time()
    finished_at: datetime | None = _time(nullable=True)


class SeatTable(SQLModel, table=True):
    """A seat of a match: a Telegram user (``user_id``) or a computer (``computer_level``).

    The ``ui_*`` columns hold the hand keyboard's state between button presses (JSON text), and
    ``ui_version`` grows at every change of it.
    """

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("match_id", "user_id"),)

    match_id: int = _match_fk()
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    user_id: int | None = _id(index=True)
    name: str = _text(length=NAME_LENGTH)
    computer_level: str | None = _text(nullable=True, length=16)
    hand_message_id: int | None = _id()
    hand_digest: str | None = _text(nullable=True, length=64)
    hand_pending: str | None = _text(nullable=True, length=64)
    turn_chat_id: int | None = _id()
    turn_message_id: int | None = _id()
    turn_version: int | None = _int(nullable=True)
    """The turn (``matches.turn_version``) the seat's turn bell rings for."""
    recap_hand: int | None = Field(default=0, sa_column=Column(Integer, nullable=True, default=0))
    """The latest hand whose recap the seat's old hand message shows (NULL: older Tavolo)."""
    ui_selected: str = _text()
    ui_staged: str = _text()
    ui_order: str | None = _text(nullable=True)
    ui_sort: str = _text(length=16)
    ui_version: int = _int()
    ui_mode: str = Field(
        default="", sa_column=Column(String(16), nullable=False, server_default="")
    )
    ui_pending: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class MoveTable(SQLModel, table=True):
    """One accepted action: the match ``version`` it produced, the seat, its text, its time.

    Append-only. ``seat`` is NULL for an action taken "by the seat to play" on its behalf.
    """

    __tablename__ = "moves"

    match_id: int = _match_fk()
    version: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    seat: int | None = _int(nullable=True)
    action: str = _text()
    created_at: datetime = _time()


class UserTable(SQLModel, table=True):
    """A Telegram user the bot has met: name, chosen language, Telegram's language code."""

    __tablename__ = "users"

    user_id: int = _id(primary_key=True)
    name: str = _text(length=NAME_LENGTH)
    language: str | None = _text(nullable=True, length=16)
    language_code: str | None = _text(nullable=True, length=16)
    private_chat: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    updated_at: datetime = _time()


class ChatTable(SQLModel, table=True):
    """A group's settings: language, per game the default options (JSON object), whether
    matches against computers move ratings, whether the lobby shows levels."""

    __tablename__ = "chats"

    chat_id: int = _id(primary_key=True)
    language: str | None = _text(nullable=True, length=16)
    default_options: str = _text()
    title: str | None = _text(nullable=True, length=255)
    updated_at: datetime = _time()
    rate_computers: bool | None = Field(default=None, sa_column=Column(Boolean, nullable=True))
    """Whether matches with a computer seat move ratings (None: the default, they do)."""
    levels_in_lobby: bool | None = Field(default=None, sa_column=Column(Boolean, nullable=True))
    """Whether the lobby shows each player's level (None: the default, it does not)."""
    tables: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    """How many matches the group allows at once (None: :data:`storage.records.TABLES`)."""


class ResultTable(SQLModel, table=True):
    """One seat's result in a finished match (MP, VP, won, hands won), for the leaderboards."""

    __tablename__ = "results"
    __table_args__ = (Index("ix_results_chat_id_game", "chat_id", "game"),)

    match_id: int = _match_fk()
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    chat_id: int = _id(nullable=False)
    game: str = _text(length=16)
    user_id: int | None = _id(index=True)
    name: str = _text(length=NAME_LENGTH)
    computer: bool = Field(sa_column=Column(Boolean, nullable=False))
    mp: int = _int()
    vp: int = _int()
    won: bool = Field(sa_column=Column(Boolean, nullable=False))
    hands_won: int = _int()
    finished_at: datetime = _time()


class RatingTable(SQLModel, table=True):
    """A person's skill rating in one category (``engine.ratings.CATEGORIES``): openskill's
    ``mu`` and ``sigma``, and the rated matches it comes from (docs/rules.md R-1 to R-4)."""

    __tablename__ = "ratings"

    user_id: int = _id(primary_key=True)
    category: str = Field(sa_column=Column(String(16), primary_key=True))
    mu: float = Field(sa_column=Column(Float, nullable=False))
    sigma: float = Field(sa_column=Column(Float, nullable=False))
    matches: int = _int()
    updated_at: datetime = _time()


class ConfirmationTable(SQLModel, table=True):
    """A yes/no question the bot asked ``user_id`` in ``chat_id`` (``kind``: stop, abandon,
    delete); ``answered_at`` is set by the first answer, and a later one is refused."""

    __tablename__ = "confirmations"

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = _id(nullable=False)
    user_id: int = _id(nullable=False)
    kind: str = _text(length=16)
    match_id: int | None = _int(nullable=True)
    created_at: datetime = _time()
    answered_at: datetime | None = _time(nullable=True)


class WorkTable(SQLModel, table=True):
    """Work due at ``due_at`` for a match: ``kind`` is ``remind``, ``timeout`` or ``computer``.

    ``version`` is the match version the work was set at (a move replaces the match's work).
    An instance claims a row by writing its name in ``claimed_by`` and a lease in
    ``claimed_until``; a lease that ran out (its instance died) may be claimed again.
    """

    __tablename__ = "work"
    __table_args__ = (Index("ix_work_due_at", "due_at"),)

    match_id: int = _match_fk()
    kind: str = Field(sa_column=Column(String(16), primary_key=True))
    version: int = _int()
    due_at: datetime = _time()
    claimed_by: str | None = _text(nullable=True, length=64)
    claimed_until: datetime | None = _time(nullable=True)


class SeasonTable(SQLModel, table=True):
    """A month (``period``, ``YYYY-MM``) in which a match of group ``chat_id`` finished: its
    standings are announced to the group once it is over (docs/rules.md SE-3). An instance
    claims the row as it claims work; ``announced_at`` is set as the announcement is sent."""

    __tablename__ = "seasons"
    __table_args__ = (Index("ix_seasons_due_at", "due_at"),)

    chat_id: int = _id(primary_key=True)
    period: str = Field(sa_column=Column(String(7), primary_key=True))
    due_at: datetime = _time()
    claimed_by: str | None = _text(nullable=True, length=64)
    claimed_until: datetime | None = _time(nullable=True)
    announced_at: datetime | None = _time(nullable=True)


class TournamentTable(SQLModel, table=True):
    """A group's tournament (docs/rules.md T-1 to T-4): its rules, its status and the round it
    is at (0 before it starts). ``options`` are the matches' (JSON); ``message_id`` the group's
    registration message, then its board."""

    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = _id(nullable=False, index=True)
    thread_id: int | None = _id()
    organiser_id: int | None = _id()
    game: str = _text(length=16)
    format: str = _text(length=16)
    pairs: bool = Field(sa_column=Column(Boolean, nullable=False))
    table_size: int = _int()
    options: str = _text()
    rounds: int | None = _int(nullable=True)
    round_seconds: int = _int()
    computers: str | None = _text(nullable=True, length=16)
    """The computer level that fills an odd count (None: none)."""
    status: str = _text(length=16)
    round: int = _int()
    message_id: int | None = _id()
    message_digest: str | None = _text(nullable=True, length=64)
    """A digest of what the message shows (the bot skips an identical edit, a restart too)."""
    version: int = _int()
    created_at: datetime = _time()
    updated_at: datetime = _time()
    finished_at: datetime | None = _time(nullable=True)


class EntryTable(SQLModel, table=True):
    """An entrant of a tournament: a person, a pair (``partner_id``) or a computer; ``entry``
    numbers them in the order they entered, ``seed`` in the seeding fixed at the start."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id"),)

    tournament_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        )
    )
    entry: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    user_id: int | None = _id(index=True)
    partner_id: int | None = _id(index=True)
    name: str = _text(length=NAME_LENGTH)
    computer_level: str | None = _text(nullable=True, length=16)
    seed: int | None = _int(nullable=True)
    withdrawn_round: int | None = _int(nullable=True)
    """The round the entrant left at (0: before the first; None: still in): the rounds after it
    skip it, the ones before keep what it played (docs/rules.md T-4)."""
    partner_name: str | None = _text(nullable=True, length=NAME_LENGTH)
    """The pair's second player's name (a person's, or a computers' pair's second computer)."""


class RoundTable(SQLModel, table=True):
    """A round of a tournament, paired once (its key): who has a bye (JSON, T-4.1) and when it
    started (its deadline counts from then)."""

    __tablename__ = "tournament_rounds"

    tournament_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        )
    )
    round: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    byes: str = _text()
    started_at: datetime = _time()


class PairingTable(SQLModel, table=True):
    """A table of a tournament's round: its entrants in seat order (JSON), its match once
    opened, and each entrant's VP and MP once it ended (JSON ``{entry: [vp, mp]}``). The key
    pairs a round once."""

    __tablename__ = "tournament_tables"

    tournament_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        )
    )
    round: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    table_number: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    entries: str = _text()
    match_id: int | None = Field(
        default=None,
        sa_column=Column(
            Integer, ForeignKey("matches.id", ondelete="SET NULL"), nullable=True, unique=True
        ),
    )
    result: str | None = _text(nullable=True)


class SettingTable(SQLModel, table=True):
    """A value every bot instance on the database shares, by name."""

    __tablename__ = "settings"

    name: str = Field(sa_column=Column(String(64), primary_key=True))
    value: str = _text()


class ChatBudgetTable(SQLModel, table=True):
    """A chat's message budget shared by the bot instances, as a GCRA: ``tat`` is the
    theoretical arrival time (seconds since the epoch, on the database's clock) of the next
    message that keeps to the chat's rate."""

    __tablename__ = "chat_budgets"

    chat_id: int = _id(primary_key=True)
    tat: float = Field(sa_column=Column(Float, nullable=False))
