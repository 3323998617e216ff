"""The store's tournament rounds (docs/rules.md T-2 to T-4): each round's tables, paired once
(their key is the round's), the match each table plays, its result, and the table a match is
played at.

What to pair is the engine's (:mod:`engine.tournament`); the store keeps what was decided, so
that a restart (or another instance) carries on from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from storage.base import _now
from storage.errors import RoundPaired
from storage.kept import NOTHING
from storage.lobbies import _new_seat
from storage.models import MatchTable, PairingTable, RoundTable, TournamentTable, _dump
from storage.records import PLAYING, PairingRecord, TournamentRecord
from storage.tournaments import Player, TournamentRows, _pairing_record


class RoundStore(TournamentRows):
    """The rounds of tournaments: their tables, the matches played at them, their results."""

    def pair_round(
        self,
        tournament_id: int,
        round_: int,
        tables: Sequence[Sequence[int]],
        byes: Sequence[int] = (),
    ) -> TournamentRecord:
        """Store round ``round_``'s tables (each its entries in seat order) and byes, the round
        after the current one: a round is paired once (:class:`RoundPaired` if another
        instance, or a restart, paired it first), only once every table of the round before
        has its result, and only with entrants still in, each once (else ValueError: what was
        paired from is out of date, and the caller pairs again from the stored state)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "running")
            if round_ != row.round + 1:
                raise RoundPaired(self.database, tournament_id, round_, row.round)
            self._check_pairing(s, row, [*byes, *(e for table in tables for e in table)])
            s.add(
                RoundTable(
                    tournament_id=tournament_id,
                    round=round_,
                    byes=_dump(list(byes)),
                    started_at=_now(),
                )
            )
            for number, entries in enumerate(tables, 1):
                s.add(
                    PairingTable(
                        tournament_id=tournament_id,
                        round=round_,
                        table_number=number,
                        entries=_dump(list(entries)),
                    )
                )
            row.round = round_
            s.flush()
            return self._changed(s, row)

    def _check_pairing(self, s: Session, row: TournamentTable, paired: Sequence[int]) -> None:
        """ValueError unless ``paired`` names entrants still in, each once, and every table of
        the current round has its result."""
        assert row.id is not None
        still_in = {e.entry for e in self._entries(s, row.id) if e.withdrawn_round is None}
        if len(set(paired)) != len(paired) or not set(paired) <= still_in:
            raise ValueError(f"round {row.round + 1} pairs {sorted(paired)}: not those still in")
        waiting = s.exec(
            select(PairingTable).where(
                col(PairingTable.tournament_id) == row.id,
                col(PairingTable.round) == row.round,
                col(PairingTable.result).is_(None),
            )
        ).first()
        if waiting is not None:
            raise ValueError(f"round {row.round} still has table {waiting.table_number} to play")

    def open_table_match(
        self,
        tournament_id: int,
        round_: int,
        table: int,
        players: Sequence[Player],
        seed: int,
        state_json: str,
        options: Mapping[str, Any],
    ) -> tuple[int, bool]:
        """The match a round's table plays, created already started (``state_json``: the
        engine's first snapshot, made with ``options``: the tournament's, with how the table's
        players sit, alone or in pairs) and linked to the table in one transaction, so that a table
        never has two: ``(match id, True)``, or ``(its match, False)`` when the table had one
        (a restart, or another instance, opened it first). The match is its group's, at no
        table of the group (``active_chat_id`` NULL): its players see it in private."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "running")
            pairing = self._pairing(s, tournament_id, round_, table)
            if pairing.match_id is not None:
                return pairing.match_id, False
            now = _now()
            match = MatchTable(
                chat_id=row.chat_id,
                active_chat_id=None,
                table_number=table,
                game=row.game,
                options=_dump(dict(options)),
                seed=str(seed),
                status=PLAYING,
                creator_id=row.organiser_id,
                version=1,
                turn_version=1,
                state=state_json,
                tournament_id=tournament_id,
                created_at=now,
                updated_at=now,
            )
            s.add(match)
            s.flush()
            assert match.id is not None
            for number, (user_id, name, level) in enumerate(players):
                s.add(_new_seat(match.id, number, user_id, name, level))
            pairing.match_id = match.id
            s.flush()
            self._changed(s, row)
            return match.id, True

    def link_table_match(self, tournament_id: int, round_: int, table: int, match_id: int) -> bool:
        """The match a round's table plays, once: False when the table has its match already
        (another instance, or the bot before a restart, opened it first: ``match_id`` is a
        spare, for the caller to discard)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "running")
            pairing = self._pairing(s, tournament_id, round_, table)
            if pairing.match_id is not None:
                return False
            pairing.match_id = match_id
            s.flush()
            self._changed(s, row)
            return True

    def record_table_result(
        self,
        tournament_id: int,
        round_: int,
        table: int,
        result: Mapping[int, tuple[int, int]],
    ) -> bool:
        """Each entrant's (VP, MP) at a round's table, once its match ended: False when it was
        stored already (the match ended once; a second report changes nothing)."""
        with self._session(write=True, touches=NOTHING) as s:
            row = self._locked(s, tournament_id, "running")
            pairing = self._pairing(s, tournament_id, round_, table)
            if set(result) != set(json.loads(pairing.entries)):
                raise ValueError(f"a result for {sorted(result)} at a table of {pairing.entries}")
            if pairing.result is not None:
                return False
            pairing.result = _dump({str(k): list(v) for k, v in result.items()})
            s.flush()
            self._changed(s, row)
            return True

    def tournament_of_match(self, match_id: int) -> tuple[TournamentRecord, PairingRecord] | None:
        """The tournament whose table plays ``match_id``, and that table (None: a match of no
        tournament)."""
        with self._session() as s:
            query = select(PairingTable).where(col(PairingTable.match_id) == match_id)
            pairing = s.exec(query).first()
            if pairing is None:
                return None
            row = s.get(TournamentTable, pairing.tournament_id)
            assert row is not None
            return self._record(s, row), _pairing_record(pairing)
