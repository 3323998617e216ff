"""Errors raised by the store. Each names the database it is about.

``str(error)`` reads ``"<database>: <what went wrong>"``, where the database is the SQLite file's
absolute path or the URL with its password hidden, so a log line says which file to look at.
"""

from __future__ import annotations


class StoreError(Exception):
    """Something about the database or a stored record is wrong; the message names the database."""

    def __init__(self, database: str, message: str) -> None:
        self.database = database
        self.message = message
        super().__init__(f"{database}: {message}")


class MatchNotFound(StoreError):
    """No match has this id."""

    def __init__(self, database: str, match_id: int) -> None:
        self.match_id = match_id
        super().__init__(database, f"there is no match {match_id}")


class TournamentNotFound(StoreError):
    """No tournament has this id."""

    def __init__(self, database: str, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        super().__init__(database, f"there is no tournament {tournament_id}")


class RoundPaired(StoreError):
    """The tournament's round was paired already (by another instance, or before a restart),
    or is not the next one: nothing was written."""

    def __init__(self, database: str, tournament_id: int, round_: int, current: int) -> None:
        self.tournament_id = tournament_id
        super().__init__(
            database, f"tournament {tournament_id} is at round {current}: round {round_} not paired"
        )


class StaleVersion(StoreError):
    """A write was based on an old version: someone else wrote first, and nothing was written.

    ``expected`` is the version the caller read, ``actual`` the one now stored. For a seat's hand
    UI state ``seat`` is set. The caller reloads and decides again (or tells the player).
    """

    def __init__(
        self, database: str, match_id: int, expected: int, actual: int, seat: int | None = None
    ) -> None:
        self.match_id = match_id
        self.expected = expected
        self.actual = actual
        self.seat = seat
        what = f"match {match_id}" if seat is None else f"seat {seat} of match {match_id}"
        super().__init__(database, f"{what} is at version {actual}, not {expected}")


class WrongStatus(StoreError):
    """The operation is not allowed in the match's status (e.g. a move in a finished match)."""

    def __init__(self, database: str, match_id: int, status: str, wanted: str) -> None:
        self.match_id = match_id
        self.status = status
        super().__init__(database, f"match {match_id} is {status}: {wanted}")


class ChatBusy(StoreError):
    """Every table the chat allows has a match in the lobby or being played (or the forum
    topic asked for holds one): ``match_id`` names one of them."""

    def __init__(self, database: str, chat_id: int, match_id: int) -> None:
        self.chat_id = chat_id
        self.match_id = match_id
        super().__init__(database, f"chat {chat_id} already has match {match_id} going")


class SeatError(StoreError):
    """A seat change that cannot be made: the user is already seated, no such seat, bad order."""

    def __init__(self, database: str, match_id: int, message: str) -> None:
        self.match_id = match_id
        super().__init__(database, f"match {match_id}: {message}")


class AlreadySeated(SeatError):
    """The user already sits at this match."""


class SeatedElsewhere(SeatError):
    """The user sits at another active match of the same chat (one table at a time)."""


class LobbyFull(SeatError):
    """Every seat of the match is taken."""


class Conflict(StoreError):
    """A concurrent writer changed the same rows first (a unique key clashed); nothing was written.

    Rare: the store retries where that is safe. Trying the whole operation again is correct.
    """


class DatabaseUnavailable(StoreError):
    """The database cannot do its work now, through no fault of the caller or of the data: the
    disk is full, the file or its folder may not be written, another process holds it, its
    server does not answer (down, restarting). Nothing was written; the message says what is
    wrong and what to do. One log line says it all: the traceback adds nothing. The same call
    may work later: the bot shows what waited once the database works again."""
