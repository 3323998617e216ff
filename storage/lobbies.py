"""The store's lobbies: matches being set up, their seats and options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, col

from engine.games import GAMES
from storage.base import StoreBase, _check_game, _name, _next_host, _now
from storage.errors import AlreadySeated, ChatBusy, LobbyFull, SeatError
from storage.kept import MATCH, NOTHING
from storage.models import ConfirmationTable, MatchTable, SeatTable, _dump
from storage.records import DEFAULT_SORT, LOBBY, MatchRecord
from storage.rows import _match_record


def _new_seat(
    match_id: int, seat: int, user_id: int | None, name: str, computer_level: str | None
) -> SeatTable:
    return SeatTable(
        match_id=match_id,
        seat=seat,
        user_id=user_id,
        name=_name(name),
        computer_level=computer_level,
        ui_selected="[]",
        ui_staged="[]",
        ui_order=None,
        ui_sort=DEFAULT_SORT,
        ui_version=0,
        ui_mode="",
        ui_pending="",
    )


def _check_player(user_id: int | None, computer_level: str | None) -> None:
    if (user_id is None) == (computer_level is None):
        raise ValueError("a seat has either a user_id (a person) or a computer_level, not both")


class LobbyStore(StoreBase):
    """Lobbies: a new match, its seats and options, until it starts or is cancelled."""

    def create_match(
        self,
        chat_id: int,
        game: str,
        options: dict[str, Any],
        creator_id: int,
        creator_name: str,
        seed: int,
        tables: int = 1,
        thread_id: int | None = None,
    ) -> MatchRecord:
        """A new match in the lobby of ``chat_id``, with its creator in seat 0 (version 0), at
        the chat's lowest free table.

        ``options`` is the engine's options dict (``Options.to_dict()``, may be partial);
        ``seed`` the engine seed (e.g. :func:`engine.cards.secure_seed`). Raises
        :class:`ChatBusy` if the chat's ``tables`` tables all have a match in the lobby or
        playing (two instances opening one at once: the unique constraint decides).
        ``thread_id``: the forum topic it plays in (one at a time: else :class:`ChatBusy`).
        """
        _check_game(game)
        if len(str(seed)) > 40:
            raise ValueError(f"seed {seed} does not fit 128 bits")

        def attempt() -> MatchRecord:
            since = self._kept.stamp()  # a new match: its write touches nothing kept
            with self._session(write=True, touches=NOTHING) as s:
                self._hold_chat(s, chat_id)
                self._check_seated_elsewhere(s, chat_id, creator_id, None)
                number = self._free_table(s, chat_id, tables, thread_id)
                now = _now()
                row = MatchTable(
                    chat_id=chat_id,
                    active_chat_id=chat_id,
                    table_number=number,
                    thread_id=thread_id,
                    game=game,
                    options=_dump(options),
                    seed=str(seed),
                    status=LOBBY,
                    creator_id=creator_id,
                    version=0,
                    state=None,
                    created_at=now,
                    updated_at=now,
                )
                s.add(row)
                s.flush()
                assert row.id is not None
                seat = _new_seat(row.id, 0, creator_id, creator_name, None)
                s.add(seat)
                s.flush()
                record = _match_record(row, [seat])
            self._kept.keep_match(record, since)
            return record

        return self._retrying(attempt)

    def _free_table(self, s: Session, chat_id: int, tables: int, thread_id: int | None) -> int:
        """The chat's lowest free table of ``tables``; :class:`ChatBusy` when they are all
        taken, or when the forum topic ``thread_id`` holds one already."""
        busy = self._active_rows(s, chat_id)
        taken = {row.table_number for row in busy}
        free = [number for number in range(1, tables + 1) if number not in taken]
        here = [row for row in busy if thread_id is not None and row.thread_id == thread_id]
        if free and not here:
            return free[0]
        first = (here or busy)[0]
        assert first.id is not None
        raise ChatBusy(self.database, chat_id, first.id)

    def add_seat(
        self, match_id: int, user_id: int | None, name: str, computer_level: str | None = None
    ) -> MatchRecord:
        """Seat a person (``user_id``) or a computer (``computer_level``) in the next free seat.

        Only in the lobby (:class:`WrongStatus`); a person already seated raises
        :class:`AlreadySeated`, a full table (the game's most players) :class:`LobbyFull`: both
        decided under the match's row lock, so two instances seating at once cannot overfill it.
        Returns the match with the new seat and version.
        """
        _check_player(user_id, computer_level)
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            since = self._kept.stamp()
            row = self._lock(s, match_id)
            self._expect_lobby(row, "seats change only in the lobby")
            self._hold_chat(s, row.chat_id)
            self._check_seated_elsewhere(s, row.chat_id, user_id, match_id)
            seats = self._seats(s, match_id)
            for seat in seats:
                if user_id is not None and seat.user_id == user_id:
                    raise AlreadySeated(
                        self.database, match_id, f"user {user_id} already sits in seat {seat.seat}"
                    )
            most = GAMES[row.game].seats[1]
            if len(seats) >= most:
                raise LobbyFull(self.database, match_id, f"all {most} seats are taken")
            new = _new_seat(match_id, len(seats), user_id, name, computer_level)
            s.add(new)
            self._touch(row)
            s.flush()
            record = _match_record(row, [*seats, new])
            self._kept.keep_match(record, since, wrote=True)
        return record

    def remove_seat(self, match_id: int, seat: int) -> MatchRecord:
        """Free a seat in the lobby; the seats after it move up by one. When the host leaves,
        the lobby passes to the next seated person (after them, else the first)."""
        return self._rearrange(match_id, seat_removed=seat, order=None)

    def reorder_seats(self, match_id: int, order: Sequence[int]) -> MatchRecord:
        """Seat the players in a new order: new seat ``i`` is the player now in ``order[i]``.

        This is how the lobby forms pairs (seats 0+2 against 1+3). ``order`` must name every
        current seat once (:class:`SeatError` otherwise). Only in the lobby.
        """
        return self._rearrange(match_id, seat_removed=None, order=order)

    def _rearrange(
        self, match_id: int, seat_removed: int | None, order: Sequence[int] | None
    ) -> MatchRecord:
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            since = self._kept.stamp()
            row = self._lock(s, match_id)
            self._expect_lobby(row, "seats change only in the lobby")
            seats = self._seats(s, match_id)
            numbers = [seat.seat for seat in seats]
            if seat_removed is not None:
                if seat_removed not in numbers:
                    raise SeatError(self.database, match_id, f"there is no seat {seat_removed}")
                kept = [seat for seat in seats if seat.seat != seat_removed]
                leaving = next(seat for seat in seats if seat.seat == seat_removed)
                if leaving.user_id is not None and leaving.user_id == row.creator_id:
                    row.creator_id = _next_host(kept, seat_removed, row.creator_id)
            else:
                assert order is not None
                if sorted(order) != numbers:
                    raise SeatError(
                        self.database,
                        match_id,
                        f"the new order {list(order)} must name each of seats {numbers} once",
                    )
                kept = [seats[number] for number in order]
            renumbered = self._reseat(s, row, seats, kept)
            record = _match_record(row, renumbered)
            self._kept.keep_match(record, since, wrote=True)
        return record

    def set_match_options(self, match_id: int, options: dict[str, Any]) -> MatchRecord:
        """Replace the options of a match in the lobby."""
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            since = self._kept.stamp()
            row = self._lock(s, match_id)
            self._expect_lobby(row, "options change only in the lobby")
            row.options = _dump(options)
            self._touch(row)
            s.flush()
            record = _match_record(row, self._seats(s, match_id))
            self._kept.keep_match(record, since, wrote=True)
        return record

    def discard_lobby(self, match_id: int) -> bool:
        """Delete a lobby that was never shown (it has no table message): nobody saw it, so it
        leaves no trace (a group the bot is not in, or left as the lobby opened). Whether it
        was deleted (False: it was shown, or is no lobby any more)."""
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            row = self._lock(s, match_id)
            if row.status != LOBBY or row.table_message_id is not None:
                return False
            s.exec(delete(SeatTable).where(col(SeatTable.match_id) == match_id))
            s.exec(delete(ConfirmationTable).where(col(ConfirmationTable.match_id) == match_id))
            s.delete(row)
        return True
