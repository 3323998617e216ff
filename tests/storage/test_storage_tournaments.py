"""A tournament in the store (docs/rules.md T-1 to T-4): registration, the start with its
seeding, rounds paired once with their byes, each table's match (once) and result (once), the
end; a person erased stays in the standings as "a former player"."""

from __future__ import annotations

import pytest

from engine.tournament import round_robin
from storage import (
    ANONYMOUS,
    FINISHED,
    AlreadySeated,
    ChatBusy,
    EntryRecord,
    PairingRecord,
    PlayerResult,
    RoundPaired,
    SeatError,
    StaleVersion,
    Store,
    TournamentNotFound,
    WrongStatus,
)

GROUP = -500


def _open(store: Store, organiser: int = 1) -> int:
    """A round-robin Scala 40 tournament of three people, open for registration: its id."""
    record = store.create_tournament(
        GROUP, "scala40", "robin", {"limit": 101}, organiser_id=organiser
    )
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
    record = store.withdraw_from_tournament(tournament, 2)  # before the start: the entry goes
    assert [e.entry for e in record.entries] == [1, 3]
    record = store.enter_tournament(tournament, 4, "Dario")
    with pytest.raises(StaleVersion):
        store.start_tournament(tournament, [4, 1, 3], record.version - 1)
    with pytest.raises(ValueError, match="does not order every entrant"):
        store.start_tournament(tournament, [4, 1], record.version)
    record = store.start_tournament(
        tournament, [4, 3, 1], record.version, computers=[("🤖 1", "esperto")]
    )
    assert record.status == "running"
    assert [(e.entry, e.seed, e.computer_level) for e in record.entries] == [
        (1, 3, None),
        (3, 2, None),
        (4, 1, None),
        (5, 4, "esperto"),  # numbered after the last entry, whatever left before
    ]
    assert record.entry_of(4) == EntryRecord(4, 4, None, "Dario", None, 1, None)
    with pytest.raises(WrongStatus):
        store.enter_tournament(tournament, 5, "Eva")


def test_a_tournament_is_played_at_tables_of_2_unless_a_round_robin(store: Store) -> None:
    with pytest.raises(ValueError, match="tables of 2"):
        store.create_tournament(GROUP, "scala40", "danish", {}, organiser_id=1, table_size=3)
    with pytest.raises(ValueError, match="unknown game"):
        store.create_tournament(GROUP, "briscola", "robin", {}, organiser_id=1)
    record = store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=1, table_size=3)
    assert (record.table_size, record.pairs, record.thread_id) == (3, False, None)


def test_a_round_is_paired_once_and_its_tables_keep_their_matches_and_results(
    store: Store,
) -> None:
    tournament = _open(store)
    record = store.start_tournament(tournament, [1, 2, 3], store.get_tournament(tournament).version)
    first = round_robin([1, 2, 3])[0]
    record = store.pair_round(tournament, 1, first.tables, first.byes)
    with pytest.raises(RoundPaired):  # a restart, or another instance, pairs it again
        store.pair_round(tournament, 1, first.tables, first.byes)
    with pytest.raises(RoundPaired):  # nor a round ahead of the next
        store.pair_round(tournament, 3, first.tables)
    assert record.round == 1 and record.byes == {1: first.byes} and first.byes
    with pytest.raises(ValueError, match="round 1 still has table 1 to play"):
        store.pair_round(tournament, 2, [(1, 2)])
    assert [p.entries for p in record.tables] == list(first.tables)
    match = store.create_match(GROUP, "scala40", {}, 1, "Anna", seed=1)
    spare = store.create_match(-600, "scala40", {}, 1, "Anna", seed=2)
    assert store.link_table_match(tournament, 1, 1, match.id)
    assert not store.link_table_match(tournament, 1, 1, spare.id)  # opened once
    one, two = first.tables[0]
    with pytest.raises(ValueError, match="a result for"):
        store.record_table_result(tournament, 1, 1, {one: (20, 35), first.byes[0]: (0, -12)})
    assert store.record_table_result(tournament, 1, 1, {one: (20, 35), two: (0, -12)})
    assert not store.record_table_result(tournament, 1, 1, {one: (0, 0), two: (20, 0)})
    found = store.tournament_of_match(match.id)
    assert found is not None
    record, table = found
    expected = PairingRecord(1, 1, first.tables[0], match.id, {one: (20, 35), two: (0, -12)})
    assert table == expected
    assert store.tournament_of_match(spare.id) is None
    record = store.withdraw_from_tournament(tournament, 3)  # running: withdrawn at round 1
    assert [e.withdrawn_round for e in record.entries] == [None, None, 1]
    for stale in ([(1, 3)], [(1, 1)], [(1, 9)]):  # paired from an old state: refused
        with pytest.raises(ValueError, match="not those still in"):
            store.pair_round(tournament, 2, stale)
    assert store.pair_round(tournament, 2, [(2, 1)]).round == 2
    assert [t.id for t in store.unfinished_tournaments()] == [tournament]
    record = store.end_tournament(tournament)
    assert store.unfinished_tournaments() == []
    assert (record.status, record.finished_at is not None) == ("finished", True)
    assert [t.id for t in store.tournaments_in_chat(GROUP)] == [tournament]
    with pytest.raises(TournamentNotFound):
        store.get_tournament(tournament + 1)


def test_an_erased_person_stays_as_a_former_player(store: Store) -> None:
    running, open_ = _open(store, organiser=2), _open(store)
    store.enter_tournament(running, 5, "Eva", partner_id=6)
    store.start_tournament(running, [1, 2, 3, 4], store.get_tournament(running).version)
    store.delete_user_data(2)
    store.delete_user_data(6)  # Fede: Eva keeps her name; the pair is withdrawn
    record = store.get_tournament(running)
    assert record.organiser_id is None
    assert [
        (e.user_id, e.partner_id, e.display_name, e.withdrawn_round) for e in record.entries
    ] == [
        (1, None, "Anna", None),
        (None, None, ANONYMOUS, 0),
        (3, None, "Carlo", None),
        (5, None, f"Eva & {ANONYMOUS}", 0),
    ]
    assert [e.user_id for e in store.get_tournament(open_).entries] == [1, 3]  # Bea's went
    with pytest.raises(SeatError):
        store.withdraw_from_tournament(running, 2)
    store.migrate_chat(GROUP, -1000500)
    assert [t.id for t in store.tournaments_in_chat(-1000500)] == [open_, running]


def test_a_finished_match_settles_its_table_with_its_results(store: Store) -> None:
    """The table's result is written with the match's results, in their transaction: a bot
    stopped in between cannot leave a finished table without one."""
    record = store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=1)
    for user, name in ((1, "Anna"), (2, "Bea")):
        record = store.enter_tournament(record.id, user, name)
    record = store.start_tournament(record.id, [2, 1], record.version)
    store.pair_round(record.id, 1, [(2, 1)])  # Bea (entry 2) in seat 0
    match = store.add_seat(store.create_match(-700, "scala40", {}, 2, "Bea", seed=1).id, 1, "Anna")
    store.start_match(match.id, "{}", match.version)
    assert store.link_table_match(record.id, 1, 1, match.id)
    store.set_status(match.id, FINISHED)
    rows = [
        PlayerResult(0, 2, "Bea", False, 35, 20, True, 1),
        PlayerResult(1, 1, "Anna", False, -12, 0, False, 0),
    ]
    assert store.record_results(match.id, rows)
    (table,) = store.get_tournament(record.id).tables
    assert table.result == {2: (20, 35), 1: (0, -12)}
    assert not store.record_table_result(record.id, 1, 1, {1: (20, 0), 2: (0, 0)})


def test_pairs_form_as_partners_enter_one_after_the_other(store: Store) -> None:
    """Docs/rules.md T-5.5: whoever enters alone completes the latest pair still waiting."""
    record = store.create_tournament(GROUP, "scopone", "knockout", {}, organiser_id=1, pairs=True)
    for user, name in ((1, "Anna"), (2, "Bea"), (3, "Carlo")):
        record = store.enter_tournament(record.id, user, name)
    assert [(e.display_name, e.waiting) for e in record.entries] == [
        ("Anna & Bea", False),
        ("Carlo", True),
    ]
    with pytest.raises(AlreadySeated):
        store.enter_tournament(record.id, 2, "Bea")
    record = store.withdraw_from_tournament(record.id, 1)  # Bea stays, waiting for another
    assert [(e.user_id, e.display_name, e.waiting) for e in record.entries] == [
        (2, "Bea", True),
        (3, "Carlo", True),
    ]
    record = store.enter_tournament(record.id, 4, "Dora")  # the latest waiting: Carlo's
    assert [e.display_name for e in record.entries] == ["Bea", "Carlo & Dora"]
    record = store.withdraw_from_tournament(record.id, 4)
    assert [e.display_name for e in record.entries] == ["Bea", "Carlo"]


def test_computers_enter_a_pairs_tournament_in_pairs(store: Store) -> None:
    record = store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=1, pairs=True)
    with pytest.raises(ValueError, match="in pairs"):
        store.enter_computer(record.id, "🤖 1", "facile")
    record = store.enter_computer(record.id, "🤖 1", "facile", "🤖 2")
    assert record.entries[0].display_name == "🤖 1 & 🤖 2"
    assert not record.entries[0].waiting
    with pytest.raises(ValueError, match="tables of 2"):
        store.set_tournament_rules(record.id, record.version, table_size=3)
    with pytest.raises(ValueError, match="stays of pairs"):
        store.set_tournament_rules(record.id, record.version, pairs=False)


def test_one_tournament_at_a_time_when_asked(store: Store) -> None:
    first = store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=1, alone=True)
    with pytest.raises(ChatBusy) as busy:
        store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=2, alone=True)
    assert busy.value.match_id == first.id
    current = store.current_tournament(GROUP)
    assert current is not None and current.id == first.id
    store.end_tournament(first.id, "cancelled")
    assert store.current_tournament(GROUP) is None
    store.create_tournament(GROUP, "scala40", "robin", {}, organiser_id=2, alone=True)


def test_a_table_match_is_opened_once_and_linked(store: Store) -> None:
    tournament = _open(store)
    record = store.get_tournament(tournament)
    record = store.start_tournament(tournament, [1, 2, 3], record.version)
    store.pair_round(tournament, 1, [(1, 2)], [3])
    players = [(1, "Anna", None), (2, "Bea", None)]
    options = {"pairs": False, "limit": 101}
    first = store.open_table_match(tournament, 1, 1, players, 5, "{}", options)
    again = store.open_table_match(tournament, 1, 1, players, 6, "{}", options)
    assert first == (first[0], True) and again == (first[0], False)
    match = store.get_match(first[0])
    assert (match.status, match.tournament_id, match.chat_id) == ("playing", tournament, GROUP)
    assert match.options == options  # the table's, not the tournament's
    assert store.active_matches_in_chat(GROUP) == []  # it takes none of the group's tables
    assert store.last_match_in_chat(GROUP) is None  # nor is it the group's last table
    assert store.get_tournament(tournament).tables[0].match_id == first[0]


def test_an_erased_partner_leaves_the_other_waiting(store: Store) -> None:
    record = store.create_tournament(GROUP, "scopone", "robin", {}, organiser_id=1, pairs=True)
    for user, name in ((1, "Anna"), (2, "Bea"), (3, "Carlo"), (4, "Dora")):
        record = store.enter_tournament(record.id, user, name)
    store.delete_user_data(1)  # Anna: Bea keeps the entry, waiting for a partner
    store.delete_user_data(4)  # Dora: Carlo waits
    entries = store.get_tournament(record.id).entries
    assert [(e.user_id, e.display_name, e.waiting) for e in entries] == [
        (2, "Bea", True),
        (3, "Carlo", True),
    ]
