"""A tournament table's result, written with its match's results (in their transaction), so
that a bot stopped in between never leaves a finished match's table without one."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, update
from sqlalchemy import select as sa_select
from sqlmodel import col

from storage.models import PairingTable, _dump
from storage.records import PlayerResult


def settle_table(db: Connection, match_id: int, results: Sequence[PlayerResult]) -> None:
    """A finished match's results, as its tournament table's (when it plays one), in the same
    transaction: each entrant's VP and MP are its first seat's (seat ``i`` is the table's
    ``i``-th entrant; a pair's second seat, ``i + 2``, has the same, S40-13.1)."""
    pairing = db.execute(
        sa_select(col(PairingTable.entries), col(PairingTable.result)).where(
            col(PairingTable.match_id) == match_id
        )
    ).first()
    if pairing is None or pairing.result is not None:
        return
    by_seat = {result.seat: result for result in results}
    entries = json.loads(pairing.entries)
    table = {str(e): [by_seat[i].vp, by_seat[i].mp] for i, e in enumerate(entries)}
    db.execute(
        update(PairingTable)
        .where(col(PairingTable.match_id) == match_id)
        .values(result=_dump(table))
    )
