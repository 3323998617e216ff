"""Table rows as the store hands them out: frozen records (:mod:`storage.records`), and back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlmodel import col

from storage.kept import with_seat
from storage.models import ConfirmationTable, MatchTable, SeatTable, UserTable, _dump
from storage.records import (
    Confirmation,
    MatchRecord,
    SeatRecord,
    SeatUI,
    UserRecord,
)


def _ui(
    selected: str,
    staged: str,
    order: str | None,
    sort: str,
    version: int,
    mode: str = "",
    pending: str = "",
) -> SeatUI:
    return SeatUI(
        selected=tuple(json.loads(selected)),
        staged=tuple(tuple(meld) for meld in json.loads(staged)),
        order=None if order is None else tuple(json.loads(order)),
        sort=sort,
        version=version,
        mode=mode,
        pending=pending,
    )


def _seat_ui(row: SeatTable) -> SeatUI:
    return _ui(
        row.ui_selected,
        row.ui_staged,
        row.ui_order,
        row.ui_sort,
        row.ui_version,
        row.ui_mode,
        row.ui_pending,
    )


def _ui_values(ui: SeatUI) -> dict[str, Any]:
    """The seat columns that store ``ui`` (all but its version)."""
    return {
        "ui_selected": _dump(list(ui.selected)),
        "ui_staged": _dump([list(meld) for meld in ui.staged]),
        "ui_order": None if ui.order is None else _dump(list(ui.order)),
        "ui_sort": ui.sort,
        "ui_mode": ui.mode,
        "ui_pending": ui.pending,
    }


def _changed_ui(ui: SeatUI, values: dict[str, Any]) -> SeatUI:
    """A seat's UI after an update of its columns ``values`` (as :meth:`Store.update_seat_ui`
    writes them, its version included)."""
    columns: dict[str, Any] = _ui_values(ui) | values
    return _ui(
        columns["ui_selected"],
        columns["ui_staged"],
        columns["ui_order"],
        columns["ui_sort"],
        columns["ui_version"],
        columns["ui_mode"],
        columns["ui_pending"],
    )


def _as_read(values: dict[str, Any]) -> dict[str, Any]:
    """Column values as the store reads them back: times in UTC."""
    return {
        name: value.astimezone(UTC) if isinstance(value, datetime) else value
        for name, value in values.items()
    }


def _moved(
    record: MatchRecord, values: dict[str, Any], seat: int | None, ui: SeatUI | None, reset: bool
) -> MatchRecord:
    """A kept match after :meth:`Store.commit_move` wrote ``values`` (its columns) and the
    acting seat's UI (``ui``, or cleared with ``reset``)."""
    fields = {"state_json" if k == "state" else k: value for k, value in _as_read(values).items()}
    fields.pop("active_chat_id", None)
    moved = replace(record, **fields)
    if seat is None or not (ui is not None or reset):
        return moved

    def new_ui(kept: SeatRecord) -> SeatRecord:
        version = kept.ui.version + 1
        if ui is not None:
            return replace(kept, ui=replace(ui, version=version))
        cleared = replace(kept.ui, selected=(), staged=(), mode="", pending="", version=version)
        return replace(kept, ui=cleared)

    return with_seat(moved, seat, new_ui)


_UI_COLUMNS = (
    col(SeatTable.ui_selected),
    col(SeatTable.ui_staged),
    col(SeatTable.ui_order),
    col(SeatTable.ui_sort),
    col(SeatTable.ui_version),
    col(SeatTable.ui_mode),
    col(SeatTable.ui_pending),
)


def _user_record(row: UserTable) -> UserRecord:
    return UserRecord(row.user_id, row.name, row.language, row.language_code, row.private_chat)


def _seat_record(row: SeatTable) -> SeatRecord:
    return SeatRecord(
        seat=row.seat,
        user_id=row.user_id,
        name=row.name,
        computer_level=row.computer_level,
        hand_message_id=row.hand_message_id,
        hand_digest=row.hand_digest,
        hand_pending=row.hand_pending,
        turn_chat_id=row.turn_chat_id,
        turn_message_id=row.turn_message_id,
        turn_version=row.turn_version,
        recap_hand=row.recap_hand,
        ui=_seat_ui(row),
    )


def _match_record(row: MatchTable, seats: Iterable[SeatTable]) -> MatchRecord:
    assert row.id is not None
    return MatchRecord(
        id=row.id,
        chat_id=row.chat_id,
        game=row.game,
        options=json.loads(row.options),
        seed=int(row.seed),
        status=row.status,
        creator_id=row.creator_id,
        version=row.version,
        state_json=row.state,
        seats=tuple(_seat_record(seat) for seat in seats),
        table_chat_id=row.table_chat_id,
        table_message_id=row.table_message_id,
        table_digest=row.table_digest,
        table_pending=row.table_pending,
        deadline=row.deadline,
        deadline_seat=row.deadline_seat,
        turn_version=row.turn_version,
        shown_hand=row.shown_hand,
        end_shown=row.end_shown,
        summary_message_id=row.summary_message_id,
        table_number=row.table_number,
        thread_id=row.thread_id,
        tournament_id=row.tournament_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
    )


def _confirmation(row: ConfirmationTable) -> Confirmation:
    assert row.id is not None
    return Confirmation(
        row.id, row.chat_id, row.user_id, row.kind, row.match_id, row.created_at, row.answered_at
    )
