"""The store's matches: the start, every move with the new snapshot in one transaction, the
end, and reading matches, logs and engines back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from engine.errors import EngineError, SnapshotError
from engine.games import GameMatch, load_match, new_match
from storage.base import StoreBase, _check_when, _now
from storage.errors import MatchNotFound, StaleVersion, StoreError, WrongStatus
from storage.kept import MATCH
from storage.models import MatchTable, MoveTable, SeatTable
from storage.records import (
    ACTIVE,
    FINISHED,
    KEEP,
    LOBBY,
    PLAYING,
    STOPPED,
    Keep,
    MatchRecord,
    MoveRecord,
    PlayerResult,
    SeatUI,
)
from storage.rows import _match_record, _moved, _ui_values
from storage.work import replace_work


def _has_format(state_json: str) -> bool:
    """Whether a snapshot names its format as a number (a newer one is then really newer)."""
    try:
        data = json.loads(state_json)
    except ValueError:
        return False
    return isinstance(data, dict) and type(data.get("format")) is int


class MatchStore(StoreBase):
    """Running matches: the start, the moves with their snapshots, the end; reading them back."""

    def initial_match(self, record: MatchRecord) -> GameMatch:
        """The engine match at its start, from the record's game, seats, seed and options.

        The bot starts a match with ``start_match(id, initial_match(record).to_json(), ...)``:
        :meth:`replay` starts from the same place. Raises the engine's ``ValueError`` when the
        options do not suit the players (e.g. pairs without 4 players).
        """
        return new_match(record.game, record.players, record.seed, dict(record.options))

    def start_match(self, match_id: int, state_json: str, expected_version: int) -> int:
        """Leave the lobby: store the engine's first snapshot, status playing; the new version.

        Raises :class:`StaleVersion` if the lobby changed since ``expected_version`` was read,
        :class:`WrongStatus` if the match is not in the lobby.
        """
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            done = db.execute(
                update(MatchTable)
                .where(
                    col(MatchTable.id) == match_id,
                    col(MatchTable.version) == expected_version,
                    col(MatchTable.status) == LOBBY,
                )
                .values(
                    status=PLAYING,
                    state=state_json,
                    version=expected_version + 1,
                    turn_version=expected_version + 1,
                    updated_at=_now(),
                )
            )
            if done.rowcount != 1:
                self._refuse(db, match_id, expected_version, "only a match in the lobby starts")
        return expected_version + 1

    def commit_move(
        self,
        match_id: int,
        expected_version: int,
        seat: int | None,
        action_text: str,
        state_json: str,
        *,
        status: str | None = None,
        deadline: datetime | Keep | None = KEEP,
        deadline_seat: int | None = None,
        reset_ui: bool = False,
        results: Iterable[PlayerResult] | None = None,
        turn_starts: bool = False,
        ui: SeatUI | None = None,
        work: Sequence[tuple[str, datetime]] | Keep = KEEP,
    ) -> int:
        """Store one accepted move and the match's new snapshot, atomically; the new version.

        In one transaction: the snapshot ``state_json`` (the engine's ``to_json()`` after the
        move) replaces the stored one, the version grows by one, and (``seat``, ``action_text``)
        is appended to the move log under the new version. ``action_text`` should be ``str()``
        of the action the engine's ``play`` returned, ``seat`` the seat passed to ``play`` (None:
        the seat to play). The bot answers the player only after this returns.

        ``status`` FINISHED or STOPPED ends the match (and clears the deadline), with
        ``results`` (FINISHED only) recorded in the same transaction. ``deadline`` replaces the
        turn deadline (None clears it; by default it is kept, as a Scala 40 turn has several
        moves). ``reset_ui`` clears the acting seat's selected cards and staged melds.
        ``turn_starts``: the move ends a turn and starts another (the bell rings for it), whose
        ``turn_version`` is the new version. ``ui`` is the acting seat's hand UI state the move
        leaves (its version grows by one, whatever it was: the move has won). ``work`` replaces
        the match's due work (kind, time), set at the new version; a move that ends the match
        clears it.

        Raises :class:`StaleVersion` (nothing written) if another write came first,
        :class:`WrongStatus` if the match is not being played, :class:`MatchNotFound`.
        """
        if status not in (None, FINISHED, STOPPED):
            raise ValueError(f"a move may only end a match (finished or stopped), not {status!r}")
        if results is not None and status != FINISHED:
            raise ValueError("results come with the move that finishes the match")
        _check_when(deadline if isinstance(deadline, datetime) else None)
        now = _now()
        version = expected_version + 1
        values: dict[str, Any] = {"state": state_json, "version": version, "updated_at": now}
        if status is not None:
            values |= {"status": status, "active_chat_id": None, "finished_at": now}
            values |= {"deadline": None, "deadline_seat": None}
        if not isinstance(deadline, Keep):
            values |= {"deadline": deadline, "deadline_seat": deadline_seat}
        if turn_starts:
            values["turn_version"] = version
        with self._core(write=True, touches=(MATCH, match_id)) as db:
            since = self._kept.stamp()
            before = self._kept.match(match_id)
            done = db.execute(
                update(MatchTable)
                .where(
                    col(MatchTable.id) == match_id,
                    col(MatchTable.version) == expected_version,
                    col(MatchTable.status) == PLAYING,
                )
                .values(**values)
            )
            if done.rowcount != 1:
                self._refuse(db, match_id, expected_version, "it takes no moves")
            db.execute(
                insert(MoveTable).values(
                    match_id=match_id, version=version, seat=seat, action=action_text,
                    created_at=now,
                )
            )  # fmt: skip
            if ui is not None and seat is not None:
                db.execute(
                    update(SeatTable)
                    .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                    .values(**_ui_values(ui), ui_version=col(SeatTable.ui_version) + 1)
                )
            elif reset_ui and seat is not None:
                db.execute(
                    update(SeatTable)
                    .where(col(SeatTable.match_id) == match_id, col(SeatTable.seat) == seat)
                    .values(
                        ui_selected="[]",
                        ui_staged="[]",
                        ui_mode="",
                        ui_pending="",
                        ui_version=col(SeatTable.ui_version) + 1,
                    )
                )
            if results is not None:
                self._insert_results(db, match_id, results)
            if status is not None:
                replace_work(db, match_id, version, ())
            elif not isinstance(work, Keep):
                replace_work(db, match_id, version, work)
            if before is not None:
                after = _moved(before, values, seat, ui, reset_ui)
                self._kept.keep_match(after, since, wrote=True)
        return version

    def set_status(
        self, match_id: int, status: str, *, expected_version: int | None = None
    ) -> MatchRecord:
        """Finish or stop a match without a move: cancel a lobby, or close a broken match.

        Allowed: lobby → stopped, playing → finished or stopped. ``/stop`` during play is better
        a move (``commit_move(..., "stop", status=STOPPED)``) so the log has it. With
        ``expected_version`` a stale version raises :class:`StaleVersion`.
        """
        allowed = {LOBBY: (STOPPED,), PLAYING: (FINISHED, STOPPED)}
        with self._session(write=True, touches=(MATCH, match_id)) as s:
            since = self._kept.stamp()
            row = self._lock(s, match_id)
            if expected_version is not None and row.version != expected_version:
                raise StaleVersion(self.database, match_id, expected_version, row.version)
            if status not in allowed.get(row.status, ()):
                raise WrongStatus(self.database, match_id, row.status, f"it cannot become {status}")
            self._end(s, row, status)
            record = _match_record(row, self._seats(s, match_id))
            self._kept.keep_match(record, since, wrote=True)
        return record

    def get_match(self, match_id: int) -> MatchRecord:
        """The match with its seats; :class:`MatchNotFound` if there is none."""
        kept = self._kept.match(match_id)
        if kept is not None:
            return kept
        since = self._kept.stamp()
        with self._session() as s:
            row = s.get(MatchTable, match_id)
            if row is None:
                raise MatchNotFound(self.database, match_id)
            record = _match_record(row, self._seats(s, match_id))
        self._kept.keep_match(record, since)
        return record

    def kept_match(self, match_id: int) -> MatchRecord | None:
        """The match as this store keeps it in memory (:mod:`storage.kept`), reading nothing;
        None when it keeps none (it may still be in the database: :meth:`get_match`)."""
        return self._kept.match(match_id)

    def active_match_in_chat(self, chat_id: int) -> MatchRecord | None:
        """The chat's match in the lobby or being played at its lowest table, if any (a
        private chat has at most one)."""
        matches = self.active_matches_in_chat(chat_id)
        return matches[0] if matches else None

    def active_matches_in_chat(self, chat_id: int) -> list[MatchRecord]:
        """The chat's matches in the lobby or being played, by table (two queries)."""
        with self._session() as s:
            rows = self._active_rows(s, chat_id)
            return self._with_seats(s, rows)

    def match_of_message(self, chat_id: int, message_id: int) -> MatchRecord | None:
        """The match whose table (or a hand's summary) is the chat's message ``message_id``,
        whatever its status; None when no match shows there."""
        shows = (col(MatchTable.table_message_id) == message_id) | (
            col(MatchTable.summary_message_id) == message_id
        )
        with self._session() as s:
            query = (
                select(MatchTable)
                .where(col(MatchTable.chat_id) == chat_id, shows)
                .order_by(col(MatchTable.id).desc())
                .limit(1)
            )
            rows = list(s.exec(query).all())
            found = self._with_seats(s, rows)
        return found[0] if found else None

    def _with_seats(self, s: Session, rows: list[MatchTable]) -> list[MatchRecord]:
        """The records of ``rows``, their seats read in one query."""
        ids = [row.id for row in rows]
        seats = s.exec(
            select(SeatTable)
            .where(col(SeatTable.match_id).in_(ids))
            .order_by(col(SeatTable.match_id), col(SeatTable.seat))
        ).all()
        by_match: dict[int, list[SeatTable]] = {}
        for seat in seats:
            by_match.setdefault(seat.match_id, []).append(seat)
        return [_match_record(row, by_match.get(row.id or 0, [])) for row in rows]

    def last_match_in_chat(self, chat_id: int) -> MatchRecord | None:
        """The chat's most recent match at one of its tables, whatever its status (None: it
        never had one; a tournament's tables are played in private, not at the group's)."""
        with self._session() as s:
            query = (
                select(MatchTable)
                .where(col(MatchTable.chat_id) == chat_id, col(MatchTable.tournament_id).is_(None))
                .order_by(col(MatchTable.id).desc())
                .limit(1)
            )
            row = s.exec(query).first()
            if row is None:
                return None
            assert row.id is not None
            return _match_record(row, self._seats(s, row.id))

    def unfinished_matches(self) -> list[MatchRecord]:
        """Every match in the lobby or playing, oldest first: what the bot resumes at start-up.

        Two queries whatever the number of matches.
        """
        with self._session() as s:
            rows = s.exec(
                select(MatchTable)
                .where(col(MatchTable.status).in_(ACTIVE))
                .order_by(col(MatchTable.id))
            ).all()
            return self._with_seats(s, list(rows))

    def ended_unsettled(self) -> list[int]:
        """Ended matches (finished, stopped) whose end was not shown, or whose seats still hold
        a turn bell: the bot stopped between a match's last move and those messages. Oldest
        first."""
        belled = (
            sa_select(col(SeatTable.match_id))
            .where(col(SeatTable.turn_message_id).is_not(None))
            .scalar_subquery()
        )
        with self._core() as db:
            ids = db.execute(
                sa_select(col(MatchTable.id))
                .where(
                    col(MatchTable.status).in_((FINISHED, STOPPED)),
                    col(MatchTable.state).is_not(None),
                    col(MatchTable.end_shown).is_(False) | col(MatchTable.id).in_(belled),
                )
                .order_by(col(MatchTable.id))
            ).scalars()
            return [int(match_id) for match_id in ids if match_id is not None]

    def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log in order (versions grow; they start after the lobby's)."""
        with self._session() as s:
            if s.get(MatchTable, match_id) is None:
                raise MatchNotFound(self.database, match_id)
            rows = s.exec(
                select(MoveTable)
                .where(col(MoveTable.match_id) == match_id)
                .order_by(col(MoveTable.version))
            ).all()
            return [MoveRecord(row.version, row.seat, row.action, row.created_at) for row in rows]

    def load_engine_match(self, record: MatchRecord) -> GameMatch:
        """The engine match from the record's snapshot, ready to take the next move.

        Raises :class:`StoreError` naming the database and the match if the snapshot cannot be
        read (damaged, or written by a newer engine), and :class:`WrongStatus` in the lobby.
        """
        if record.state_json is None:
            raise WrongStatus(self.database, record.id, record.status, "it has no saved state")
        try:
            return load_match(record.state_json)
        except SnapshotError as error:
            if error.code == "snapshot-too-new" and _has_format(record.state_json):
                why = f"was saved by a newer Tavolo ({error.message}): upgrade Tavolo to resume it"
            else:
                why = f"has a saved state that cannot be read ({error}): it is damaged"
            raise StoreError(self.database, f"match {record.id} {why}") from error

    def replay(self, match_id: int) -> GameMatch:
        """The match rebuilt from its seed, options and seats by replaying the whole move log.

        Equal to the stored snapshot (``replay(id).to_json() == get_match(id).state_json``): the
        log is the match's audit trail. Raises :class:`StoreError` if a logged move is refused.
        """
        record = self.get_match(match_id)
        try:
            match = self.initial_match(record)
        except ValueError as error:
            why = f"match {match_id} cannot be set up: {error}"
            raise StoreError(self.database, why) from error
        for move in self.moves(match_id):
            try:
                match.play(move.action, seat=move.seat)
            except EngineError as error:
                raise StoreError(
                    self.database,
                    f"match {match_id}: logged move {move.version} ({move.action!r} by seat "
                    f"{move.seat}) is refused on replay: {error}",
                ) from error
        return match
