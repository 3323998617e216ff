"""What the store keeps stays what the database holds when reads and writes overlap (issue 26).

The bot calls the store from the event loop and from the store's thread, so a read may run
while a write commits, and two writes may end in either order. Each interleaving is played
step by step on :class:`storage.kept.Kept`; then a writer thread and a reader race on a real
store, and what it keeps is compared with the database.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from storage import Store
from storage.kept import MATCH, Kept
from storage.records import MatchRecord


def a_lobby() -> MatchRecord:
    """A match record as the store makes one."""
    with Store.open("sqlite://") as store:
        return store.create_match(-1, "scopone", {}, 1, "Anna", seed=7)


OLD = a_lobby()
NEW = replace(OLD, version=OLD.version + 1)
NEWER = replace(OLD, version=OLD.version + 2)


def test_a_read_and_a_write_in_turn_are_kept() -> None:
    kept = Kept(enabled=True)
    since = kept.stamp()
    kept.keep_match(OLD, since)
    assert kept.match(OLD.id) == OLD
    since = kept.stamp()
    kept.drop((MATCH, OLD.id))  # the write ends
    kept.keep_match(NEW, since, wrote=True)
    assert kept.match(OLD.id) == NEW


def test_a_read_that_a_write_overtook_is_not_kept() -> None:
    kept = Kept(enabled=True)
    read = kept.stamp()  # the read begins, and reads the old match
    written = kept.stamp()
    kept.drop((MATCH, OLD.id))  # a write commits the new one meanwhile
    kept.keep_match(NEW, written, wrote=True)
    kept.keep_match(OLD, read)  # the read ends: it must not replace the newer record
    assert kept.match(OLD.id) is None


def test_two_writes_that_overlap_keep_nothing() -> None:
    kept = Kept(enabled=True)
    first, second = kept.stamp(), kept.stamp()
    kept.drop((MATCH, OLD.id))
    kept.drop((MATCH, OLD.id))
    kept.keep_match(NEWER, second, wrote=True)
    kept.keep_match(NEW, first, wrote=True)  # either one may lack the other's change
    assert kept.match(OLD.id) is None


def test_a_write_kept_before_the_other_ends_is_forgotten_by_it() -> None:
    kept = Kept(enabled=True)
    first, second = kept.stamp(), kept.stamp()
    kept.drop((MATCH, OLD.id))
    kept.keep_match(NEW, first, wrote=True)  # the first ends alone: kept
    assert kept.match(OLD.id) == NEW
    kept.drop((MATCH, OLD.id))  # the second ends: what the first kept goes
    kept.keep_match(NEWER, second, wrote=True)
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
