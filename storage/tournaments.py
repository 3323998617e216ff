"""The store's tournaments (docs/rules.md T-1 to T-4): registration, the rules, the start with
its seeding, and the end; each round's tables are :mod:`storage.rounds`'.

What to pair and how to rank is the engine's (:mod:`engine.tournament`); the store keeps what
was decided, so that a restart (or another instance) carries on from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from engine.tournament import Frame
from storage.base import StoreBase, _check_game, _name, _now
from storage.errors import (
    AlreadySeated,
    ChatBusy,
    SeatError,
    StaleVersion,
    TournamentNotFound,
    WrongStatus,
)
from storage.kept import NOTHING
from storage.models import (
    EntryTable,
    PairingTable,
    RoundTable,
    TournamentTable,
    _dump,
)
from storage.records import EntryRecord, PairingRecord, TournamentRecord

RULES = frozenset({"format", "table_size", "rounds", "round_seconds", "options", "pairs"})
"""What :meth:`TournamentStore.set_tournament_rules` changes."""

Player = tuple[int | None, str, str | None]
"""A seat of a tournament's table: the person's id (None: a computer), the name, the computer's
level (None: a person)."""


class TournamentRows(StoreBase):
    """What the tournaments' parts of the store share: a tournament's row, locked for a
    change, and its record."""

    def _locked(self, s: Session, tournament_id: int, *statuses: str) -> TournamentTable:
        """The tournament's row, locked until the transaction ends, in one of ``statuses``."""
        query = (
            select(TournamentTable)
            .where(col(TournamentTable.id) == tournament_id)
            .with_for_update()
        )
        row = s.exec(query).first()
        if row is None:
            raise TournamentNotFound(self.database, tournament_id)
        if row.status not in statuses:
            raise WrongStatus(self.database, tournament_id, row.status, f"not {statuses}")
        return row

    def _entries(self, s: Session, tournament_id: int) -> list[EntryTable]:
        query = (
            select(EntryTable)
            .where(col(EntryTable.tournament_id) == tournament_id)
            .order_by(col(EntryTable.entry))
        )
        return list(s.exec(query).all())

    def _pairing(self, s: Session, tournament_id: int, round_: int, table: int) -> PairingTable:
        """A round's table (ValueError: no such table: the caller's mistake)."""
        pairing = s.get(PairingTable, (tournament_id, round_, table))
        if pairing is None:
            raise ValueError(f"tournament {tournament_id} has no table {table} in round {round_}")
        return pairing

    def _changed(self, s: Session, row: TournamentTable) -> TournamentRecord:
        """The tournament after a change: a new version."""
        row.version += 1
        row.updated_at = _now()
        s.flush()
        return self._record(s, row)

    def _record(self, s: Session, row: TournamentTable) -> TournamentRecord:
        assert row.id is not None
        query = (
            select(PairingTable)
            .where(col(PairingTable.tournament_id) == row.id)
            .order_by(col(PairingTable.round), col(PairingTable.table_number))
        )
        rounds = s.exec(select(RoundTable).where(col(RoundTable.tournament_id) == row.id)).all()
        byes = {r.round: tuple(json.loads(r.byes)) for r in rounds}
        started = {r.round: r.started_at for r in rounds}
        return _tournament(row, self._entries(s, row.id), s.exec(query).all(), byes, started)


class TournamentStore(TournamentRows):
    """Tournaments: their registration, rules, start, end and the group's message of each."""

    def create_tournament(
        self,
        chat_id: int,
        game: str,
        format: str,
        options: dict[str, Any],
        *,
        organiser_id: int | None,
        pairs: bool = False,
        table_size: int = 2,
        rounds: int | None = None,
        round_seconds: int = 86_400,
        computers: str | None = None,
        thread_id: int | None = None,
        alone: bool = False,
    ) -> TournamentRecord:
        """A tournament open for registration in ``chat_id`` (its forum topic ``thread_id``):
        ``format`` one of :data:`engine.tournament.FORMATS`, entrants alone or in ``pairs``,
        tables of ``table_size``, ``rounds`` (the Danish system's), the time a round has, and
        the computer level that fills an odd count (None: none). ``alone``: refused with
        :class:`ChatBusy` (naming it) while the chat has a tournament open or running
        (docs/rules.md T-5.1), decided in this transaction (several instances)."""
        _check_game(game)
        _check_rules(format, table_size, rounds, round_seconds)
        now = _now()
        row = TournamentTable(
            chat_id=chat_id,
            thread_id=thread_id,
            organiser_id=organiser_id,
            game=game,
            format=format,
            pairs=pairs,
            table_size=table_size,
            options=_dump(options),
            rounds=rounds,
            round_seconds=round_seconds,
            computers=computers,
            status="open",
            round=0,
            version=0,
            created_at=now,
            updated_at=now,
        )
        with self._session(write=True, touches=NOTHING) as s:
            if alone:
                self._hold_chat(s, chat_id)
                current = self._current(s, chat_id)
                if current is not None and current.id is not None:
                    raise ChatBusy(self.database, chat_id, current.id)
            s.add(row)
            s.flush()
            return _tournament(row, [], [])

    def enter_tournament(
        self, tournament_id: int, user_id: int, name: str, partner_id: int | None = None
    ) -> TournamentRecord:
        """Enter a person (with ``partner_id``, a pair) while registration is open:
        :class:`WrongStatus` after it, :class:`AlreadySeated` for someone entered already.

        In a pairs tournament a person entered alone completes the latest pair still waiting
        for its partner (so friends enter one after the other), else opens one (docs/rules.md
        T-5.5); decided here, in one transaction, whoever enters at the same time."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open")
            entries = self._entries(s, tournament_id)
            people = {p for e in entries for p in (e.user_id, e.partner_id) if p is not None}
            if {user_id, partner_id} & people:
                raise AlreadySeated(self.database, tournament_id, f"user {user_id} entered")
            waiting = [e for e in entries if e.user_id is not None and e.partner_id is None]
            if row.pairs and partner_id is None and waiting:
                waiting[-1].partner_id, waiting[-1].partner_name = user_id, _name(name)
                return self._changed(s, row)
            number = _next_entry(entries)
            s.add(
                EntryTable(
                    tournament_id=tournament_id,
                    entry=number,
                    user_id=user_id,
                    partner_id=partner_id,
                    name=_name(name),
                )
            )
            return self._changed(s, row)

    def withdraw_from_tournament(self, tournament_id: int, user_id: int) -> TournamentRecord:
        """A person leaves: during registration their entry goes (a pair's partner stays,
        waiting for another); once it runs it is withdrawn (docs/rules.md T-4: the rounds to
        come skip it, and both of a pair). :class:`SeatError` if they never entered."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open", "running")
            entry = next(
                (
                    e
                    for e in self._entries(s, tournament_id)
                    if user_id in (e.user_id, e.partner_id)
                ),
                None,
            )
            if entry is None:
                raise SeatError(self.database, tournament_id, f"user {user_id} never entered")
            if row.status == "open" and entry.partner_id is not None:  # the partner stays
                if entry.user_id == user_id:
                    entry.user_id, entry.name = entry.partner_id, entry.partner_name or ""
                entry.partner_id = entry.partner_name = None
            elif row.status == "open":
                s.delete(entry)
            elif entry.withdrawn_round is None:
                entry.withdrawn_round = row.round
            s.flush()
            return self._changed(s, row)

    def start_tournament(
        self,
        tournament_id: int,
        order: Sequence[int],
        expected_version: int,
        computers: Sequence[tuple[str, str]] = (),
    ) -> TournamentRecord:
        """Start it: ``computers`` (name, level) join as the last entrants, and the seeding is
        ``order`` (every person's entry, the top seed first) followed by them. Only from the
        registration, at ``expected_version`` (:class:`StaleVersion`)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open")
            if row.version != expected_version:
                raise StaleVersion(self.database, tournament_id, expected_version, row.version)
            entries = self._entries(s, tournament_id)
            if sorted(order) != sorted(e.entry for e in entries):
                raise ValueError(f"the seeding {list(order)} does not order every entrant")
            first = _next_entry(entries)
            added = [
                EntryTable(
                    tournament_id=tournament_id,
                    entry=number,
                    name=_name(name),
                    computer_level=level,
                )
                for number, (name, level) in enumerate(computers, first)
            ]
            s.add_all(added)
            seeding = [*order, *(computer.entry for computer in added)]
            by_number = {e.entry: e for e in [*entries, *added]}
            for seed, number in enumerate(seeding, 1):
                by_number[number].seed = seed
            row.status = "running"
            s.flush()
            return self._changed(s, row)

    def set_tournament_rules(
        self, tournament_id: int, expected_version: int, **rules: Any
    ) -> TournamentRecord:
        """Change the rules during registration, at ``expected_version`` (:class:`StaleVersion`):
        any of ``format``, ``table_size``, ``rounds``, ``round_seconds`` and ``options`` (the
        matches', checked by the caller against the engine). ValueError for a combination no
        tournament plays."""
        unknown = set(rules) - RULES
        if unknown:
            raise ValueError(f"no such rule: {sorted(unknown)}")
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open")
            if row.version != expected_version:
                raise StaleVersion(self.database, tournament_id, expected_version, row.version)
            for name, value in rules.items():
                setattr(row, name, _dump(value) if name == "options" else value)
            _check_rules(row.format, row.table_size, row.rounds, row.round_seconds)
            entries = self._entries(s, tournament_id)
            if row.pairs and row.table_size != 2:
                raise ValueError("pairs meet at tables of 2")
            if not row.pairs and any(e.partner_name is not None for e in entries):
                raise ValueError("pairs have entered: the tournament stays of pairs")
            if row.pairs and any(e.computer_level and e.partner_name is None for e in entries):
                raise ValueError("a computer entered alone: the tournament stays of singles")
            return self._changed(s, row)

    def enter_computer(
        self, tournament_id: int, name: str, level: str, partner_name: str | None = None
    ) -> TournamentRecord:
        """A computer player entered during registration (its level one of the engine's); in
        a pairs tournament a pair of them (``partner_name``: the second's name)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open")
            if row.pairs != (partner_name is not None):
                raise ValueError("a pairs tournament enters computers in pairs, and only it")
            entries = self._entries(s, tournament_id)
            number = _next_entry(entries)
            s.add(
                EntryTable(
                    tournament_id=tournament_id,
                    entry=number,
                    name=_name(name),
                    computer_level=level,
                    partner_name=None if partner_name is None else _name(partner_name),
                )
            )
            return self._changed(s, row)

    def remove_computer(self, tournament_id: int) -> TournamentRecord:
        """The computer entered last leaves the registration (:class:`SeatError`: none)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open")
            computers = [e for e in self._entries(s, tournament_id) if e.computer_level]
            if not computers:
                raise SeatError(self.database, tournament_id, "no computer entered")
            s.delete(computers[-1])
            s.flush()
            return self._changed(s, row)

    def unfinished_tournaments(self) -> list[TournamentRecord]:
        """Every tournament open for registration or under way, oldest first: what the bot
        carries on after a restart."""
        with self._session() as s:
            query = (
                select(TournamentTable)
                .where(col(TournamentTable.status).in_(("open", "running")))
                .order_by(col(TournamentTable.id))
            )
            return [self._record(s, row) for row in s.exec(query).all()]

    def end_tournament(self, tournament_id: int, status: str = "finished") -> TournamentRecord:
        """Its end: ``finished`` (every round played) or ``cancelled``."""
        if status not in ("finished", "cancelled"):
            raise ValueError(f"a tournament ends finished or cancelled, not {status}")
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "open", "running")
            row.status, row.finished_at = status, _now()
            return self._changed(s, row)

    def set_tournament_message(
        self, tournament_id: int, message_id: int | None, digest: str | None = None
    ) -> None:
        """The group's message that shows the tournament (its registration, then its board),
        and a digest of what it shows."""
        with self._session(write=True, touches=NOTHING) as s:
            s.exec(
                update(TournamentTable)
                .where(col(TournamentTable.id) == tournament_id)
                .values(message_id=message_id, message_digest=digest)
                .execution_options(synchronize_session=False)
            )

    def get_tournament(self, tournament_id: int) -> TournamentRecord:
        """The tournament with its entrants and tables (:class:`TournamentNotFound`)."""
        with self._session() as s:
            row = s.get(TournamentTable, tournament_id)
            if row is None:
                raise TournamentNotFound(self.database, tournament_id)
            return self._record(s, row)

    def tournaments_in_chat(self, chat_id: int) -> list[TournamentRecord]:
        """The group's tournaments, the latest first."""
        with self._session() as s:
            query = (
                select(TournamentTable)
                .where(col(TournamentTable.chat_id) == chat_id)
                .order_by(col(TournamentTable.id).desc())
            )
            return [self._record(s, row) for row in s.exec(query).all()]

    def current_tournament(self, chat_id: int) -> TournamentRecord | None:
        """The group's tournament open for registration or under way (the latest, if several:
        only one was opened with ``alone``)."""
        with self._session() as s:
            row = self._current(s, chat_id)
            return None if row is None else self._record(s, row)

    @staticmethod
    def _current(s: Session, chat_id: int) -> TournamentTable | None:
        query = (
            select(TournamentTable)
            .where(
                col(TournamentTable.chat_id) == chat_id,
                col(TournamentTable.status).in_(("open", "running")),
            )
            .order_by(col(TournamentTable.id).desc())
        )
        return s.exec(query).first()


def _next_entry(entries: Sequence[EntryTable]) -> int:
    """The number the next entrant takes: after the highest (an entry that left leaves a gap,
    never a number taken twice)."""
    return max((e.entry for e in entries), default=0) + 1


def _check_rules(format: str, table_size: int, rounds: int | None, round_seconds: int) -> None:
    """ValueError for rules no tournament plays (the engine's :class:`Frame` decides, T-1; a
    Danish tournament's rounds may be set later, before its start)."""
    if not 2 <= table_size <= 4 or round_seconds <= 0:
        raise ValueError(f"no such tournament: tables of {table_size}, {round_seconds} s a round")
    if format == "danish" and rounds is None:
        rounds = 1
    Frame(format, table_size, rounds)


def _tournament(
    row: TournamentTable,
    entries: Iterable[EntryTable],
    tables: Iterable[PairingTable],
    byes: Mapping[int, tuple[int, ...]] | None = None,
    started: Mapping[int, datetime] | None = None,
) -> TournamentRecord:
    assert row.id is not None
    return TournamentRecord(
        id=row.id,
        chat_id=row.chat_id,
        thread_id=row.thread_id,
        organiser_id=row.organiser_id,
        game=row.game,
        format=row.format,
        pairs=row.pairs,
        table_size=row.table_size,
        options=json.loads(row.options),
        rounds=row.rounds,
        round_seconds=row.round_seconds,
        computers=row.computers,
        status=row.status,
        round=row.round,
        message_id=row.message_id,
        message_digest=row.message_digest,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
        entries=tuple(
            EntryRecord(
                e.entry,
                e.user_id,
                e.partner_id,
                e.name,
                e.computer_level,
                e.seed,
                e.withdrawn_round,
                e.partner_name,
            )
            for e in entries
        ),
        tables=tuple(_pairing_record(p) for p in tables),
        byes=dict(byes or {}),
        started=dict(started or {}),
    )


def _pairing_record(row: PairingTable) -> PairingRecord:
    result = None
    if row.result is not None:
        result = {int(k): (int(v[0]), int(v[1])) for k, v in json.loads(row.result).items()}
    entries = tuple(json.loads(row.entries))
    return PairingRecord(row.round, row.table_number, entries, row.match_id, result)
