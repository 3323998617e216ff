"""The store's record of the messages the bot keeps on Telegram for a match, and of each
seat's hand keyboard between presses."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NoReturn

from sqlalchemy import Connection, update
from sqlalchemy import select as sa_select
from sqlmodel import col

from storage.base import UNCHANGED, StoreBase, Unchanged, _check_when
from storage.errors import MatchNotFound, SeatError, StaleVersion
from storage.kept import MATCH
from storage.models import MatchTable, SeatTable, _dump
from storage.records import KEEP, Keep, SeatUI
from storage.rows import _UI_COLUMNS, _as_read, _changed_ui, _ui


class MessageStore(StoreBase):
    """The messages the bot keeps on Telegram for a match (table, hands, bells, summary), what
    they show, the turn deadline, and each seat's hand keyboard."""

    def _update_match(self, match_id: int, **values: Any) -> None:
        """Set columns of the match that are fields of its record, by the same names."""
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(MatchTable).where(col(MatchTable.id) == match_id).values(**values)
            )
            if done.rowcount != 1:
                raise MatchNotFound(self.database, match_id)
            self._kept.changed(before, since, **_as_read(values))

    def _update_seat(self, match_id: int, seat: int, **values: Any) -> None:
        """Set columns of a seat that are fields of its record, by the same names."""
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(SeatTable)
                .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                .values(**values)
            )
            if done.rowcount != 1:
                self._no_seat(db, match_id, seat)
            self._kept.changed(before, since, seat, **values)

    def _no_seat(self, db: Connection, match_id: int, seat: int) -> NoReturn:
        query = sa_select(col(MatchTable.id)).where(col(MatchTable.id) == match_id)
        if db.execute(query).first() is None:
            raise MatchNotFound(self.database, match_id)
        raise SeatError(self.database, match_id, f"there is no seat {seat}")

    def _ui_of(self, db: Connection, match_id: int, seat: int) -> SeatUI:
        query = sa_select(*_UI_COLUMNS).where(
            col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat
        )
        found = db.execute(query).first()
        if found is None:
            self._no_seat(db, match_id, seat)
        return _ui(*found)

    def set_table_message(
        self,
        match_id: int,
        chat_id: int,
        message_id: int | None,
        digest: str | Unchanged | None = UNCHANGED,
    ) -> None:
        """Remember the group message showing the table (None: there is none now), with the
        ``digest`` of what it shows when it is new (one write: a bot stopped in between would
        know the message but not what it shows, and edit it to the same text)."""
        shows = (
            {}
            if isinstance(digest, Unchanged)
            else {"table_digest": digest, "table_pending": digest}
        )
        self._update_match(match_id, table_chat_id=chat_id, table_message_id=message_id, **shows)

    def set_table_digest(self, match_id: int, digest: str | None, pending: bool = False) -> None:
        """Remember what the table message shows now (a digest of its text and buttons), as
        Telegram confirmed it; ``pending``: an edit to ``digest`` is being sent."""
        if pending:
            self._update_match(match_id, table_pending=digest)
        else:
            self._update_match(match_id, table_digest=digest, table_pending=digest)

    def set_hand_digest(
        self, match_id: int, seat: int, digest: str | None, pending: bool = False
    ) -> None:
        """Remember what the seat's hand message shows now (``pending``: is being sent)."""
        if pending:
            self._update_seat(match_id, seat, hand_pending=digest)
        else:
            self._update_seat(match_id, seat, hand_digest=digest, hand_pending=digest)

    def show_hand_end(self, match_id: int, hand: int) -> bool:
        """Take the showing of hand ``hand``'s summary to the group: True once, for the first
        who asks (a process, an instance, or the same one after a restart), so the summary is
        posted once at most; its message is not known until :meth:`set_summary_message`."""
        newer = col(MatchTable.shown_hand).is_(None) | (col(MatchTable.shown_hand) < hand)
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(MatchTable)
                .where(col(MatchTable.id) == match_id, newer)
                .values(shown_hand=hand, summary_message_id=None)
            )
            taken = bool(done.rowcount == 1)
            shown: dict[str, Any] = (
                {"shown_hand": hand, "summary_message_id": None} if taken else {}
            )
            self._kept.changed(before, since, **shown)
        return taken

    def set_summary_message(self, match_id: int, message_id: int) -> None:
        """Remember the group's message of the latest hand's summary."""
        self._update_match(match_id, summary_message_id=message_id)

    def show_match_end(self, match_id: int) -> bool:
        """Take the showing of the match's end to the group: True once (as
        :meth:`show_hand_end`)."""
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(MatchTable)
                .where(col(MatchTable.id) == match_id, col(MatchTable.end_shown).is_(False))
                .values(end_shown=True)
            )
            self._kept.changed(before, since, end_shown=True)
        return bool(done.rowcount == 1)

    def set_recap_hand(self, match_id: int, seat: int, hand: int) -> None:
        """Remember that the seat's hand message turned into the recap of hand ``hand``."""
        self._update_seat(match_id, seat, recap_hand=hand)

    def set_hand_message(self, match_id: int, seat: int, message_id: int | None) -> None:
        """Remember the seat's hand message, in the player's private chat (id = user id)."""
        self._update_seat(match_id, seat, hand_message_id=message_id)

    def replace_hand_message(
        self,
        match_id: int,
        seat: int,
        old: int | None,
        message_id: int | None,
        digest: str | Unchanged | None = UNCHANGED,
    ) -> bool:
        """Remember ``message_id`` as the seat's hand message (None: it has none) if the stored
        one is still ``old`` (another instance may have posted and stored its own meanwhile),
        with the ``digest`` of what it shows (in the same write, as for the table); whether it
        was stored."""
        shows = (
            {} if isinstance(digest, Unchanged) else {"hand_digest": digest, "hand_pending": digest}
        )
        same = (
            col(SeatTable.hand_message_id).is_(None)
            if old is None
            else col(SeatTable.hand_message_id) == old
        )
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(SeatTable)
                .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat, same)
                .values(hand_message_id=message_id, **shows)
            )
            stored = bool(done.rowcount == 1)
            if stored:
                self._kept.changed(before, since, seat, hand_message_id=message_id, **shows)
        return stored

    def set_turn_message(
        self,
        match_id: int,
        seat: int,
        chat_id: int | None,
        message_id: int | None,
        turn_version: int | None = None,
    ) -> None:
        """Remember the "your turn" notification sent for a seat and the turn it rings for
        (None, None: there is none)."""
        self._update_seat(
            match_id,
            seat,
            turn_chat_id=chat_id,
            turn_message_id=message_id,
            turn_version=None if message_id is None else turn_version,
        )

    def forget_turn_message(self, match_id: int, seat: int, message_id: int) -> None:
        """The seat's turn bell ``message_id`` is gone: forget it, unless a newer one is stored
        meanwhile."""
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            gone: dict[str, Any] = {
                "turn_chat_id": None,
                "turn_message_id": None,
                "turn_version": None,
            }
            done = db.execute(
                update(SeatTable)
                .where(
                    col(SeatTable.match_id) == match_id,
                    col(SeatTable.seat) == seat,
                    col(SeatTable.turn_message_id) == message_id,
                )
                .values(**gone)
            )
            self._kept.changed(before, since, seat, **(gone if done.rowcount == 1 else {}))

    def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """The forum topic the match plays in (None: the group itself, its topic gone)."""
        self._update_match(match_id, thread_id=thread_id)

    def set_deadline(self, match_id: int, when: datetime | None, seat: int | None = None) -> None:
        """Set the turn deadline (timezone-aware) of ``seat``, or clear it with None."""
        _check_when(when)
        self._update_match(match_id, deadline=when, deadline_seat=None if when is None else seat)

    def update_seat_ui(
        self,
        match_id: int,
        seat: int,
        expected_version: int,
        *,
        selected: Sequence[str] | Keep = KEEP,
        staged: Sequence[Sequence[str]] | Keep = KEEP,
        order: Sequence[str] | Keep | None = KEEP,
        sort: str | Keep = KEEP,
        mode: str | Keep = KEEP,
        pending: str | Keep = KEEP,
    ) -> SeatUI:
        """Change the given parts of a seat's hand UI state; its version grows by one.

        ``mode`` and ``pending`` are the keyboard's current step (choosing a meld to attach to,
        declaring a joker, a capture choice) and what that step is about.

        Raises :class:`StaleVersion` (``seat`` set; nothing written) if the state changed since
        ``expected_version`` was read: a second press on an old keyboard. The state as stored is
        ``get_match(match_id).seats[seat].ui``.
        """
        values: dict[str, Any] = {"ui_version": expected_version + 1}
        if not isinstance(selected, Keep):
            values["ui_selected"] = _dump(list(selected))
        if not isinstance(staged, Keep):
            values["ui_staged"] = _dump([list(meld) for meld in staged])
        if not isinstance(order, Keep):
            values["ui_order"] = None if order is None else _dump(list(order))
        if not isinstance(sort, Keep):
            values["ui_sort"] = sort
        if not isinstance(mode, Keep):
            values["ui_mode"] = mode
        if not isinstance(pending, Keep):
            values["ui_pending"] = pending
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(SeatTable)
                .where(
                    col(SeatTable.match_id) == match_id,
                    col(SeatTable.seat) == seat,
                    col(SeatTable.ui_version) == expected_version,
                )
                .values(**values)
            )
            if done.rowcount == 1 and before is not None and seat < len(before.seats):
                # Kept, the seat's UI was at ``expected_version``: no need to read it back.
                ui = _changed_ui(before.seats[seat].ui, values)
            else:
                ui = self._ui_of(db, match_id, seat)
            if done.rowcount != 1:
                raise StaleVersion(self.database, match_id, expected_version, ui.version, seat)
            self._kept.changed(before, since, seat, ui=ui)
        return ui
