"""What the store hands out and takes in: plain frozen values, never live database objects.

The bot can keep them, pass them between threads and compare them; to change anything it calls
the :class:`~storage.store.Store` again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Final, NamedTuple

LOBBY: Final = "lobby"
"""Players are joining; options can change. No engine state yet."""
PLAYING: Final = "playing"
"""Started: the match has an engine snapshot and takes moves."""
FINISHED: Final = "finished"
"""Over, with a result."""
STOPPED: Final = "stopped"
"""Cancelled in the lobby or stopped by ``/stop``; counts for nobody (docs/rules.md S40-13.3)."""
STATUSES: Final = (LOBBY, PLAYING, FINISHED, STOPPED)
ACTIVE: Final = (LOBBY, PLAYING)
"""The statuses of an unfinished match: at most one per chat, all resumed at start-up."""

ANONYMOUS: Final = "anonymous"
"""The name a seat takes when its player erases their data (:meth:`Store.delete_user_data`)."""

DEFAULT_SORT: Final = "suit"
"""The hand order a new seat starts with (docs/rules.md S40-15: by suit or by value)."""
TABLES: Final = 3
"""How many matches a group hosts at once unless its admins chose otherwise."""
MOST_TABLES: Final = 4
"""The most matches a group may host at once (they share the group's message budget)."""


class Keep(Enum):
    """The type of :data:`KEEP`: "leave this field as it is" where None is a real value."""

    KEEP = "keep"


KEEP: Final = Keep.KEEP


@dataclass(frozen=True, slots=True)
class SeatUI:
    """A seat's hand keyboard between presses, so an interrupted turn resumes as it was left.

    ``selected``: the cards picked so far; ``staged``: melds built but not yet laid, each a list
    of cards; ``order``: the player's own card order (None: use ``sort``); ``sort``: ``suit``,
    ``value`` or another name the bot uses; ``version`` grows at every change and guards
    concurrent presses (:meth:`Store.update_seat_ui`). Cards are in docs/rules.md notation.
    """

    selected: tuple[str, ...] = ()
    staged: tuple[tuple[str, ...], ...] = ()
    order: tuple[str, ...] | None = None
    sort: str = DEFAULT_SORT
    version: int = 0
    mode: str = ""
    pending: str = ""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat: who sits there, the messages the bot edits for it, and its hand-UI state.

    Exactly one of ``user_id`` (a person) and ``computer_level`` (a computer player) is set,
    except for a seat whose player erased their data (both None, name :data:`ANONYMOUS`). The
    hand message lives in the player's private chat, whose id is ``user_id``.
    """

    seat: int
    user_id: int | None
    name: str
    computer_level: str | None
    hand_message_id: int | None
    turn_chat_id: int | None
    turn_message_id: int | None
    ui: SeatUI

    hand_digest: str | None = None
    """A digest of what the hand message shows (the bot skips identical edits)."""
    hand_pending: str | None = None
    """The digest of the edit sent last (it differs from ``hand_digest`` while unconfirmed)."""
    turn_version: int | None = None
    """The turn (:attr:`MatchRecord.turn_version`) the stored turn bell rings for."""
    recap_hand: int | None = 0
    """The latest hand whose recap the seat's hand message turned into (None: not known, a
    match stored by an older Tavolo)."""

    @property
    def is_computer(self) -> bool:
        """Whether a computer plays this seat."""
        return self.computer_level is not None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match as stored: identity, options, status, snapshot with its version, seats, messages.

    ``state_json`` is the engine's ``to_json()`` text (None in the lobby); ``version`` is the
    number to pass back when writing (:meth:`Store.commit_move`). ``seed`` is the engine seed
    (128-bit). Times are timezone-aware UTC. ``options`` is a fresh dict: changing it changes
    nothing stored.
    """

    id: int
    chat_id: int
    game: str
    options: dict[str, Any]
    seed: int
    status: str
    creator_id: int | None
    version: int
    state_json: str | None
    seats: tuple[SeatRecord, ...]
    table_chat_id: int | None
    table_message_id: int | None
    deadline: datetime | None
    deadline_seat: int | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    table_digest: str | None = None
    """A digest of what the table message shows (the bot skips identical edits)."""
    table_pending: str | None = None
    """The digest of the edit sent last (it differs from ``table_digest`` while unconfirmed)."""
    turn_version: int | None = None
    """The version at which the current turn started (None: no turn, or not known)."""
    shown_hand: int | None = 0
    """The latest hand whose summary the group was shown (None: not known, a match stored by
    an older Tavolo)."""
    end_shown: bool = False
    """Whether the group was sent the end of the match (the final ranking, or the stop)."""
    summary_message_id: int | None = None
    """The group's message of the latest hand's summary, or one known to be below it (None:
    none, or not known)."""
    table_number: int = 1
    """The match's table in its group (1, 2, ...; a private chat has only table 1)."""
    thread_id: int | None = None
    """The forum topic the match plays in: its group messages go there (None: the chat)."""
    tournament_id: int | None = None
    """The tournament this match is a table of: it plays in its players' private chats."""

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.seats)

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a user, or None if the user does not sit at this match."""
        for seat in self.seats:
            if seat.user_id == user_id:
                return seat.seat
        return None


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One entry of a match's log: the version it produced, the seat, the action text, the time.

    ``seat`` None means the action was played for the seat to play (``play(action)``).
    """

    version: int
    seat: int | None
    action: str
    at: datetime


TOURNAMENT_STATUSES: Final = ("open", "running", "finished", "cancelled")
"""A tournament's life: registration, rounds, its end (or cancelled before it ended)."""


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """A tournament's entrant: a person (with ``partner_id``, a pair) or a computer
    (``computer_level``), numbered as it entered; ``seed`` once the tournament started."""

    entry: int
    user_id: int | None
    partner_id: int | None
    name: str
    computer_level: str | None = None
    seed: int | None = None
    withdrawn_round: int | None = None
    """The round it left at (0: before the first; None: still in)."""
    partner_name: str | None = None
    """The name of the pair's second player (a person, or the second computer of a computers'
    pair); None: an entrant alone, or a pair still waiting for its partner."""

    @property
    def waiting(self) -> bool:
        """A person in a pairs tournament whose partner has not entered yet."""
        return self.user_id is not None and self.partner_id is None

    @property
    def display_name(self) -> str:
        """The entrant as the board names it: ``Anna & Bea`` for a pair."""
        return self.name if self.partner_name is None else f"{self.name} & {self.partner_name}"


@dataclass(frozen=True, slots=True)
class PairingRecord:
    """A table of a tournament's round: its entrants in seat order, its match once opened,
    and each entrant's (VP, MP) once that ended (None: not yet)."""

    round: int
    table: int
    entries: tuple[int, ...]
    match_id: int | None = None
    result: Mapping[int, tuple[int, int]] | None = None


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A group's tournament as stored (docs/rules.md T-1 to T-4): its rules, status, the round
    it is at (0 before the start), its entrants and the tables of its rounds so far.
    ``options`` are its matches' (a fresh dict)."""

    id: int
    chat_id: int
    thread_id: int | None
    organiser_id: int | None
    game: str
    format: str
    pairs: bool
    table_size: int
    options: dict[str, Any]
    rounds: int | None
    round_seconds: int
    computers: str | None
    status: str
    round: int
    message_id: int | None
    version: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    entries: tuple[EntryRecord, ...]
    tables: tuple[PairingRecord, ...]
    byes: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    """Each paired round's byes (T-4.1), by round."""
    message_digest: str | None = None
    """A digest of what the group's message shows (an identical edit is skipped)."""
    started: Mapping[int, datetime] = field(default_factory=dict)
    """When each paired round started (its time counts from then), by round."""

    def entry_of(self, user_id: int) -> EntryRecord | None:
        """The entry of a person (alone, or in a pair), if they entered."""
        return next((e for e in self.entries if user_id in (e.user_id, e.partner_id)), None)


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A Telegram user: display name, chosen language and the language code Telegram reports."""

    user_id: int
    name: str
    language: str | None
    language_code: str | None
    private_chat: bool = False


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """A group's settings: its language (None: not chosen), default options per game,
    whether matches against computer players move ratings (docs/rules.md R-4.2), whether
    the lobby shows each player's level (R-6.3) and how many matches it hosts at once."""

    chat_id: int
    language: str | None
    default_options: dict[str, dict[str, Any]]
    title: str | None = None
    rate_computers: bool = True
    levels_in_lobby: bool = False
    tables: int = TABLES


class PlayerResult(NamedTuple):
    """One seat's result at the end of a match, as given to :meth:`Store.record_results`.

    ``mp`` and ``vp`` are the match points and victory points of docs/rules.md S40-13 / SC-6;
    ``won`` whether the seat is among the winners; ``hands_won`` the hands its side closed
    (Scala 40) or won (Scopone). A plain tuple in this order works too.
    """

    seat: int
    user_id: int | None
    name: str
    computer: bool
    mp: int
    vp: int
    won: bool
    hands_won: int
    abandoned: bool = False
    """The seat left the match (S40-14, SC-6.2): last place for its rating (R-3)."""


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """A line of a group's leaderboard for one game.

    People and computer players are ranked apart (docs/rules.md S40-13.3): ``rank`` counts within
    the entry's kind (``computer``). Entries with equal MP and VP share a rank (1, 1, 3).
    """

    rank: int
    user_id: int | None
    name: str
    computer: bool
    matches: int
    won: int
    mp: int
    vp: int
    hands_won: int


@dataclass(frozen=True, slots=True)
class GameStats:
    """A person's figures for one game across all groups."""

    game: str
    matches: int
    won: int
    mp: int
    vp: int
    hands_won: int


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A person's skill rating in one category (docs/rules.md R-1 to R-6): openskill's ``mu``
    and ``sigma``, the rated ``matches`` behind it and when it last changed."""

    category: str
    mu: float
    sigma: float
    matches: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class RatedPerson:
    """A person of a group and their rating in one category (``/classifica livelli``)."""

    user_id: int
    name: str
    rating: RatingRecord


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A yes/no question the bot asked ``user_id`` in ``chat_id``: ``kind`` (stop, abandon,
    delete) about ``match_id``; ``answered_at`` once answered (a question is answered once)."""

    id: int
    chat_id: int
    user_id: int
    kind: str
    match_id: int | None
    created_at: datetime
    answered_at: datetime | None


@dataclass(frozen=True, slots=True)
class Work:
    """Work due at ``due_at`` for match ``match_id``: ``kind`` is ``remind``, ``timeout`` or
    ``computer``; ``version`` is the match version it was set at. One instance runs it: the
    one that claimed it (:meth:`Store.claim_due`, :meth:`Store.claim_work`)."""

    match_id: int
    kind: str
    version: int
    due_at: datetime


@dataclass(frozen=True, slots=True)
class Season:
    """A group's month (``YYYY-MM``, docs/rules.md SE-1) whose standings are to be announced."""

    chat_id: int
    period: str
