"""A store that is its database's only writer keeps what it read (:mod:`storage.kept`; one of
several instances keeps only people and group settings, for a while): after
every kind of write, what it answers from memory is what a store that keeps nothing reads from
the file, and a read it can answer costs no statement. The bot calls the store from the event
loop and from the store's thread, so a read may run while a write commits, and two writes may
end in either order: each interleaving is played step by step on :class:`storage.kept.Kept`,
then a writer thread and a reader race on a real store."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from storage import FINISHED, ChatSettings, MatchRecord, PlayerResult, SeatUI, StaleVersion, Store
from storage.kept import CHAT as KIND_CHAT
from storage.kept import MATCH, SHARED_LASTING, TOUCHES_MOST, Kept
from testkit.storage_helpers import greedy, started, user_of

CHAT = -100
WHEN = datetime(2030, 5, 1, 12, 30, tzinfo=UTC)
SETTINGS = ChatSettings(CHAT, "en", {})


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Store]:
    """The store as the bot opens it."""
    opened = Store.open(f"sqlite:///{tmp_path / 'k.db'}", exclusive=True)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def fresh(tmp_path: Path, kept: Store) -> Iterator[Callable[[], Store]]:
    """A store that keeps nothing, reading the same file (opened anew at each call)."""
    opened: list[Store] = []

    def reader() -> Store:
        store = Store.open(f"sqlite:///{tmp_path / 'k.db'}")
        opened.append(store)
        return store

    try:
        yield reader
    finally:
        for store in opened:
            store.close()


def same(kept: Store, fresh: Callable[[], Store], match_id: int, *users: int) -> None:
    """The kept store reads the match, the users and the chat as a fresh one does."""
    reader = fresh()
    assert kept.get_match(match_id) == reader.get_match(match_id)
    for user in users:
        assert kept.get_user(user) == reader.get_user(user)
    assert kept.chat_settings(CHAT) == reader.chat_settings(CHAT)


def statements(store: Store, act: Callable[[], Any]) -> int:
    """The statements ``act`` runs on the store's database."""
    count = 0

    def counted(*_: Any) -> None:
        nonlocal count
        count += 1

    event.listen(store._engine, "before_cursor_execute", counted)
    try:
        act()
    finally:
        event.remove(store._engine, "before_cursor_execute", counted)
    return count


def test_a_kept_read_costs_no_statement(kept: Store) -> None:
    record, _ = started(kept, "scopone", 4)
    kept.upsert_user(user_of(0), "Anna", "it")
    kept.chat_settings(CHAT)
    assert statements(kept, lambda: kept.get_match(record.id)) == 0
    assert statements(kept, lambda: kept.get_user(user_of(0))) == 0
    assert statements(kept, lambda: kept.get_user(999)) > 0  # not known: asked once,
    assert statements(kept, lambda: kept.get_user(999)) == 0  # then kept as absent
    assert statements(kept, lambda: kept.chat_settings(CHAT)) == 0


def test_a_store_that_shares_its_database_keeps_nothing(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 's.db'}")
    try:
        record, _ = started(store, "scopone", 4)
        assert statements(store, lambda: store.get_match(record.id)) > 0
    finally:
        store.close()


def test_an_instance_keeps_people_and_settings_a_while_and_no_match(tmp_path: Path) -> None:
    """One of several instances: another may move in a match at any time, so no match is
    kept; a person and a group's settings are, for ``SHARED_LASTING`` seconds, and a write of
    its own is read back at once. A group's first lobby adopts its host's language only if
    none was chosen, whatever the instance kept."""
    url = f"sqlite:///{tmp_path / 'i.db'}"
    store, other = Store.open(url, instance=True), Store.open(url)
    now = [0.0]
    store._kept = Kept(enabled=True, lasting=SHARED_LASTING, clock=lambda: now[0])
    try:
        record, _ = started(store, "scopone", 4)
        anna = user_of(0)
        other.upsert_user(anna, "Anna", "it")
        for read in (lambda: store.get_user(anna), lambda: store.chat_settings(CHAT)):
            read()
            assert statements(store, read) == 0
        assert statements(store, lambda: store.get_match(record.id)) > 0
        assert statements(store, lambda: store.get_match(record.id)) > 0
        # Its own write: read back at once, in the write's call (the store's thread, for the
        # bot), so the next read finds it kept.
        store.set_user_language(anna, "en")
        assert statements(store, lambda: store.get_user(anna)) == 0
        assert store.get_user(anna) == other.get_user(anna)
        other.set_chat_language(CHAT, "en")  # another instance's: seen once the time is up
        assert store.chat_settings(CHAT).language is None
        store.set_chat_language(CHAT, "it", unless_chosen=True)  # a first lobby's, stale
        assert other.chat_settings(CHAT).language == "en"  # never undoes the choice
        now[0] = SHARED_LASTING + 1
        assert store.chat_settings(CHAT).language == "en"
    finally:
        store.close()
        other.close()


def test_people_kept_for_over_half_their_time_are_read_again_before_a_handler(
    tmp_path: Path,
) -> None:
    """On a shared database a person is kept a second: one kept for over half of it is read
    again by ``read_people`` (what a handler reads just after is still kept then), one
    kept for less is not; what is still kept is answered from memory meanwhile."""
    url = f"sqlite:///{tmp_path / 'h.db'}"
    store = Store.open(url, instance=True)
    now = [0.0]
    store._kept = Kept(enabled=True, lasting=SHARED_LASTING, clock=lambda: now[0])
    try:
        anna = user_of(0)
        store.upsert_user(anna, "Anna", "it")
        store.read_people([anna], [CHAT])
        assert store.keeps([anna], [CHAT])
        now[0] = SHARED_LASTING * 0.4
        assert store.keeps([anna], [CHAT])
        assert statements(store, lambda: store.read_people([anna], [CHAT])) == 0
        now[0] = SHARED_LASTING * 0.6
        assert not store.keeps([anna], [CHAT])
        assert statements(store, lambda: store.get_user(anna)) == 0  # still kept
        # read again: the person and the group, each a BEGIN and a SELECT
        assert statements(store, lambda: store.read_people([anna], [CHAT])) == 4
        assert store.keeps([anna], [CHAT])
        now[0] = SHARED_LASTING * 0.6 + SHARED_LASTING * 0.9
        assert statements(store, lambda: store.get_user(anna)) == 0  # read again at 0.6
    finally:
        store.close()


def test_changing_a_kept_record_changes_nothing_kept(kept: Store) -> None:
    record, _ = started(kept, "scopone", 4, options={"target": 21})
    kept.get_match(record.id).options["target"] = 99
    kept.set_chat_default_options(CHAT, "scopone", {"target": 31})
    kept.chat_settings(CHAT).default_options["scopone"]["target"] = 99
    assert kept.get_match(record.id).options == {"target": 21}
    assert kept.chat_settings(CHAT).default_options == {"scopone": {"target": 31}}


def test_every_write_to_a_match_reads_back_as_the_database_has_it(
    kept: Store, fresh: Callable[[], Store]
) -> None:
    record, match = started(kept, "scala40", 2)
    match_id = record.id
    same(kept, fresh, match_id)
    writes: list[Callable[[], object]] = [
        lambda: kept.set_table_message(match_id, CHAT, 50, "d1"),
        lambda: kept.set_table_digest(match_id, "d2", pending=True),
        lambda: kept.set_table_digest(match_id, "d2"),
        lambda: kept.set_hand_message(match_id, 0, 60),
        lambda: kept.replace_hand_message(match_id, 0, 60, 61, "h1"),
        lambda: kept.replace_hand_message(match_id, 0, 60, 62, "h2"),  # not stored: not 60 now
        lambda: kept.set_hand_digest(match_id, 1, "h3", pending=True),
        lambda: kept.set_hand_digest(match_id, 1, "h3"),
        lambda: kept.set_turn_message(match_id, 1, user_of(1), 70, record.version),
        lambda: kept.forget_turn_message(match_id, 1, 71),  # another bell: kept
        lambda: kept.forget_turn_message(match_id, 1, 70),
        lambda: kept.set_deadline(match_id, WHEN.astimezone(), 1),
        lambda: kept.set_deadline(match_id, None),
        lambda: kept.show_hand_end(match_id, 1),
        lambda: kept.show_hand_end(match_id, 1),  # taken already
        lambda: kept.set_summary_message(match_id, 80),
        lambda: kept.set_recap_hand(match_id, 0, 1),
        lambda: kept.update_seat_ui(match_id, 0, 0, selected=["AH"], sort="value"),
        lambda: kept.update_seat_ui(match_id, 0, 1, staged=[["3H", "4H", "5H"]], order=["AH"]),
        lambda: kept.update_seat_ui(match_id, 0, 2, mode="attach", pending="0", order=None),
    ]
    for write in writes:
        write()
        same(kept, fresh, match_id)
    with pytest.raises(StaleVersion):
        kept.update_seat_ui(match_id, 0, 0, selected=["KD"])
    same(kept, fresh, match_id)
    version = record.version
    for ui, reset, deadline in (
        (SeatUI(selected=("2C",), sort="value", mode="x", pending="y"), False, WHEN),
        (None, True, None),
        (None, False, WHEN + timedelta(seconds=1)),
    ):
        seat = match.to_play
        action = str(match.play(greedy(match), seat=seat))
        version = kept.commit_move(
            match_id, version, seat, action, match.to_json(), ui=ui, reset_ui=reset,
            deadline=deadline.astimezone() if deadline else None, deadline_seat=seat,
            turn_starts=True, work=[("timeout", WHEN)],
        )  # fmt: skip
        same(kept, fresh, match_id)
    seat = match.to_play
    action = str(match.play(greedy(match), seat=seat))
    results = [PlayerResult(s, user_of(s), f"P{s}", False, 0, 10, False, 0) for s in range(2)]
    kept.commit_move(
        match_id, version, seat, action, match.to_json(), status=FINISHED, results=results
    )
    same(kept, fresh, match_id)
    kept.show_match_end(match_id)
    same(kept, fresh, match_id)


def test_lobby_writes_read_back_as_the_database_has_them(
    kept: Store, fresh: Callable[[], Store]
) -> None:
    lobby = kept.create_match(CHAT, "scopone", {}, user_of(0), "Anna", seed=7)
    same(kept, fresh, lobby.id)
    for write in (
        lambda: kept.add_seat(lobby.id, user_of(1), "Bea"),
        lambda: kept.add_seat(lobby.id, None, "Computer", "facile"),
        lambda: kept.add_seat(lobby.id, user_of(3), "Dario"),
        lambda: kept.reorder_seats(lobby.id, [0, 2, 1, 3]),
        lambda: kept.remove_seat(lobby.id, 0),
        lambda: kept.set_match_options(lobby.id, {"target": 21}),
    ):
        write()
        same(kept, fresh, lobby.id)
    current = kept.get_match(lobby.id)
    kept.set_status(lobby.id, "stopped", expected_version=current.version)
    same(kept, fresh, lobby.id)
    other = kept.create_match(CHAT, "scopone", {}, user_of(0), "Anna", seed=8)
    assert kept.discard_lobby(other.id)
    assert fresh().active_match_in_chat(CHAT) is None
    again = kept.create_match(CHAT, "scopone", {}, user_of(5), "Eva", seed=9)
    same(kept, fresh, again.id)


def test_people_and_groups_read_back_as_the_database_has_them(
    kept: Store, fresh: Callable[[], Store]
) -> None:
    record, _ = started(kept, "scopone", 4)
    anna = user_of(0)
    for write in (
        lambda: kept.get_user(anna),  # absent, kept so
        lambda: kept.upsert_user(anna, "Anna", "it"),
        lambda: kept.set_user_language(anna, "en"),
        lambda: kept.set_private_chat(anna, True),
        lambda: kept.upsert_user(anna, "Anna B.", "en"),
        lambda: kept.chat_settings(CHAT),
        lambda: kept.set_chat_title(CHAT, "Circolo"),
        lambda: kept.set_chat_language(CHAT, "en"),
        lambda: kept.set_chat_default_options(CHAT, "scopone", {"target": 21}),
        lambda: kept.delete_user_data(anna),
    ):
        write()
        same(kept, fresh, record.id, anna)
    kept.migrate_chat(CHAT, CHAT - 1)
    assert kept.chat_settings(CHAT - 1) == fresh().chat_settings(CHAT - 1)
    assert kept.get_match(record.id) == fresh().get_match(record.id)


def a_lobby() -> MatchRecord:
    """A match record as the store makes one."""
    with Store.open("sqlite://") as store:
        return store.create_match(-1, "scopone", {}, 1, "Anna", seed=7)


OLD = a_lobby()
NEW = replace(OLD, version=OLD.version + 1)
NEWER = replace(OLD, version=OLD.version + 2)


def write(kept: Kept, record: MatchRecord, since: int, committed: bool = True) -> None:
    """A write of ``record`` that began at ``since``: it gives the record it leaves inside its
    transaction, and the transaction ends (committed or not)."""
    kept.keep_match(record, since, wrote=True)
    kept.drop((MATCH, record.id), committed)


def test_a_read_and_a_write_in_turn_are_kept() -> None:
    kept = Kept(enabled=True)
    kept.keep_match(OLD, kept.stamp())
    assert kept.match(OLD.id) == OLD
    write(kept, NEW, kept.stamp())
    assert kept.match(OLD.id) == NEW  # replaced in one step: never missing meanwhile


def test_a_read_that_a_write_overtook_is_not_kept() -> None:
    kept = Kept(enabled=True)
    read = kept.stamp()  # the read begins, and reads the old match
    write(kept, NEW, kept.stamp())  # a write commits the new one meanwhile
    kept.keep_match(OLD, read)  # the read ends: it must not replace the newer record
    assert kept.match(OLD.id) == NEW


def test_a_read_keeps_its_record_when_only_other_records_were_written() -> None:
    kept = Kept(enabled=True, lasting=SHARED_LASTING)
    read = kept.stamp()  # a group's settings are read...
    kept.drop((MATCH, 7))  # ...while a move in a match ends
    kept.keep(KIND_CHAT, CHAT, SETTINGS, read)
    assert kept.chat(CHAT) == SETTINGS
    read = kept.stamp()
    kept.drop(None)  # a write that names nothing may have touched them
    kept.keep(KIND_CHAT, CHAT, SETTINGS, read)
    assert kept.chat(CHAT) is None


def test_a_write_forgotten_among_many_counts_as_touching_everything() -> None:
    kept = Kept(enabled=True)
    read = kept.stamp()
    for match_id in range(TOUCHES_MOST + 1):
        kept.drop((MATCH, match_id))
    kept.keep(KIND_CHAT, CHAT, SETTINGS, read)
    assert kept.chat(CHAT) is None
    kept.keep(KIND_CHAT, CHAT, SETTINGS, kept.stamp())
    assert kept.chat(CHAT) == SETTINGS


def test_two_writes_that_overlap_keep_nothing() -> None:
    kept = Kept(enabled=True)
    first, second = kept.stamp(), kept.stamp()
    write(kept, NEW, first)  # the first ends alone: kept
    assert kept.match(OLD.id) == NEW
    write(kept, NEWER, second)  # the second may lack the first's change: nothing is kept
    assert kept.match(OLD.id) is None


def test_a_write_that_failed_keeps_nothing() -> None:
    kept = Kept(enabled=True)
    kept.keep_match(OLD, kept.stamp())
    write(kept, NEW, kept.stamp(), committed=False)
    assert kept.match(OLD.id) is None


def test_a_store_read_while_its_thread_writes_keeps_the_database(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'k.db'}", exclusive=True)
    try:
        record = store.create_match(-5, "scopone", {}, 1, "Anna", seed=3)
        match_id = record.id
        done = threading.Event()

        def writer() -> None:
            for number in range(200):
                store.set_table_digest(match_id, f"d{number}")
            done.set()

        thread = threading.Thread(target=writer)
        thread.start()
        while not done.is_set():
            store._kept.drop((MATCH, match_id + 1))  # other writes end meanwhile
            store.get_match(match_id)
        thread.join()
        kept = store.get_match(match_id)
        store._kept.drop(None)
        assert kept == store.get_match(match_id)
        assert kept.table_digest == "d199"
    finally:
        store.close()
