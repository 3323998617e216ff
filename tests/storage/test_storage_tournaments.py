"""A tournament in the store (docs/rules.md T-1 to T-4): registration, the start with its
seeding, rounds paired once, each table's match and result, the end; a restart reads it all
back; an erased person stays in the standings as "a former player"."""

from __future__ import annotations

import pytest

from engine.tournament import round_robin
from storage import (
    ANONYMOUS,
    AlreadySeated,
    EntryRecord,
    PairingRecord,
    SeatError,
    StaleVersion,
    Store,
    TournamentNotFound,
    WrongStatus,
)

GROUP = -500


def _open(store: Store) -> int:
    """A round-robin Scala 40 tournament of three people, open for registration: its id."""
    record = store.create_tournament(GROUP, "scala40", "robin", {"limit": 101}, organiser_id=1)
    for user, name in ((1, "Anna"), (2, "Bea"), (3, "Carlo")):
        record = store.enter_tournament(record.id, user, name)
    return record.id


def test_registration_then_the_start_with_its_seeding(store: Store) -> None:
    tournament = _open(store)
    record = store.get_tournament(tournament)
    assert (record.status, record.round, record.version) == ("open", 0, 3)
    assert [(e.entry, e.user_id, e.name) for e in record.entries] == [
        (1, 1, "Anna"),
        (2, 2, "Bea"),
        (3, 3, "Carlo"),
    ]
    with pytest.raises(AlreadySeated):
        store.enter_tournament(tournament, 2, "Bea")
    record = store.withdraw_from_tournament(tournament, 3)  # before the start: the entry goes
    assert [e.entry for e in record.entries] == [1, 2]
    record = store.enter_tournament(tournament, 4, "Dario", partner_id=None)
    with pytest.raises(StaleVersion):
        store.start_tournament(tournament, [2, 1, 3], record.version - 1)
    with pytest.raises(ValueError, match="does not order every entrant"):
        store.start_tournament(tournament, [2, 1], record.version)
    record = store.start_tournament(
        tournament, [2, 3, 1], record.version, computers=[("🤖 1", "esperto")]
    )
    assert record.status == "running"
    assert [(e.entry, e.seed, e.computer_level) for e in record.entries] == [
        (1, 3, None),
        (2, 1, None),
        (3, 2, None),
        (4, 4, "esperto"),
    ]
    assert record.entry_of(4) == EntryRecord(3, 4, None, "Dario", None, 2, False)
    with pytest.raises(WrongStatus):
        store.enter_tournament(tournament, 5, "Eva")


def test_a_round_is_paired_once_and_its_tables_keep_their_matches_and_results(
    store: Store,
) -> None:
    tournament = _open(store)
    record = store.get_tournament(tournament)
    record = store.start_tournament(tournament, [1, 2, 3], record.version)
    schedule = round_robin([1, 2, 3])
    first = list(schedule[0].tables)
    record = store.pair_round(tournament, 1, first)
    with pytest.raises(StaleVersion):  # a restart, or another instance, pairs it again
        store.pair_round(tournament, 1, first)
    with pytest.raises(StaleVersion):  # nor a round ahead of the next
        store.pair_round(tournament, 3, first)
    assert record.round == 1
    assert [p.entries for p in record.tables] == [tuple(t) for t in first]
    match = store.create_match(GROUP, "scala40", {}, 1, "Anna", seed=1)
    store.link_table_match(tournament, 1, 1, match.id)
    assert store.record_table_result(tournament, 1, 1, {1: (20, 35), 2: (0, -12)})
    assert not store.record_table_result(tournament, 1, 1, {1: (0, 0), 2: (20, 0)})
    found = store.tournament_of_match(match.id)
    assert found is not None
    record, table = found
    assert table == PairingRecord(1, 1, tuple(first[0]), match.id, {1: (20, 35), 2: (0, -12)})
    assert store.tournament_of_match(match.id + 1) is None
    record = store.withdraw_from_tournament(tournament, 3)  # running: withdrawn, kept
    assert [e.withdrawn for e in record.entries] == [False, False, True]
    record = store.end_tournament(tournament)
    assert (record.status, record.finished_at is not None) == ("finished", True)
    assert [t.id for t in store.tournaments_in_chat(GROUP)] == [tournament]
    with pytest.raises(TournamentNotFound):
        store.get_tournament(tournament + 1)


def test_an_erased_person_stays_as_a_former_player(store: Store) -> None:
    tournament = _open(store)
    store.enter_tournament(tournament, 5, "Eva + Fede", partner_id=6)
    store.delete_user_data(2)
    store.delete_user_data(6)
    record = store.get_tournament(tournament)
    assert [(e.user_id, e.partner_id, e.name) for e in record.entries] == [
        (1, None, "Anna"),
        (None, None, ANONYMOUS),
        (3, None, "Carlo"),
        (5, None, ANONYMOUS),
    ]
    with pytest.raises(SeatError):
        store.withdraw_from_tournament(tournament, 2)
    store.migrate_chat(GROUP, -1000500)
    assert [t.id for t in store.tournaments_in_chat(-1000500)] == [tournament]
