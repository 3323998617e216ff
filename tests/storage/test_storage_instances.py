"""Several bot instances on one database: seats decided under the match's lock, the seat UI in
the move's transaction, due work and live messages' deliveries claimed by one instance at a
time, match locks across connections, shared settings. Each "instance" is a store of its own
(its own connections)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from storage import (
    AlreadySeated,
    LobbyFull,
    SeatUI,
    Store,
    StoreError,
    Work,
)
from storage import work as work_module
from storage.kept import CHAT, USER
from testkit.storage_helpers import greedy, race, seated_lobby, started, user_of

NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=10)


def eventually(taken: Callable[[], bool]) -> bool:
    """Whether ``taken()`` comes true within 10 s: PostgreSQL ends a closed connection's
    session, and frees its locks, a moment after the client closed it."""
    deadline = time.monotonic() + 10
    while not taken():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def other(db_url: str, store: Store) -> Iterator[Store]:
    """A second store on the same database: another instance."""
    opened = Store.open(db_url)
    try:
        yield opened
    finally:
        opened.close()


class TestSeats:
    def test_a_full_table_refuses_one_more(self, store: Store) -> None:
        record = seated_lobby(store, "scopone", 4)
        with pytest.raises(LobbyFull, match="all 4 seats are taken"):
            store.add_seat(record.id, 2000, "Zoe")
        with pytest.raises(LobbyFull):
            store.add_seat(record.id, None, "CPU", "facile")
        assert len(store.get_match(record.id).seats) == 4

    def test_a_seated_player_cannot_sit_twice(self, store: Store) -> None:
        record = seated_lobby(store, "scopone", 2)
        with pytest.raises(AlreadySeated, match=f"user {user_of(1)} already sits in seat 1"):
            store.add_seat(record.id, user_of(1), "Bea")

    def test_two_instances_seating_at_once_never_overfill(self, store: Store, other: Store) -> None:
        for round_ in range(10):
            record = seated_lobby(store, "scopone", 3, chat_id=-200 - round_)
            match_id = record.id
            results = race(2, lambda n: (store, other)[n].add_seat(match_id, 3000 + n, "Zoe"))  # noqa: B023
            assert sorted(type(result).__name__ for result in results) == [
                "LobbyFull",
                "MatchRecord",
            ]
            assert len(store.get_match(record.id).seats) == 4

    def test_the_same_user_joining_on_two_instances_sits_once(
        self, store: Store, other: Store
    ) -> None:
        record = seated_lobby(store, "scopone", 2)
        results = race(2, lambda n: (store, other)[n].add_seat(record.id, 3000, "Zoe"))
        assert sorted(type(result).__name__ for result in results) == [
            "AlreadySeated",
            "MatchRecord",
        ]
        assert [seat.user_id for seat in store.get_match(record.id).seats].count(3000) == 1


class TestMoveWithUI:
    def test_the_seat_ui_is_written_with_the_move_whatever_came_before(
        self, store: Store, other: Store
    ) -> None:
        record, match = started(store, "scala40", 2)
        seat = match.to_play
        assert seat is not None
        before = record.seats[seat].ui.version
        # another instance stores a tap meanwhile: the move still writes the UI it leaves
        other.update_seat_ui(record.id, seat, before, selected=["AH"])
        action = str(match.play(greedy(match), seat=seat))
        left = SeatUI(selected=(), staged=(("3H", "4H", "5H"),), sort="value")
        store.commit_move(record.id, record.version, seat, action, match.to_json(), ui=left)
        ui = store.get_match(record.id).seats[seat].ui
        assert (ui.selected, ui.staged, ui.sort, ui.version) == (
            (),
            (("3H", "4H", "5H"),),
            "value",
            before + 2,
        )


class TestWork:
    def test_a_move_stores_its_work_and_the_end_clears_it(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        seat = match.to_play
        action = str(match.play(greedy(match), seat=seat))
        due = NOON + timedelta(seconds=30)
        version = store.commit_move(
            record.id,
            record.version,
            seat,
            action,
            match.to_json(),
            work=[("remind", NOON), ("timeout", due)],
        )
        assert store.work(record.id) == [
            Work(record.id, "remind", version, NOON),
            Work(record.id, "timeout", version, due),
        ]
        action = str(match.play(greedy(match), seat=match.to_play))
        store.commit_move(record.id, version, None, action, match.to_json(), status="stopped")
        assert store.work(record.id) == []

    def test_a_move_without_work_keeps_the_turn_s_work(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        store.set_work(record.id, record.version, [("timeout", NOON)])
        action = str(match.play(greedy(match), seat=match.to_play))
        store.commit_move(record.id, record.version, None, action, match.to_json())
        assert store.work(record.id) == [Work(record.id, "timeout", record.version, NOON)]

    def test_due_work_is_claimed_once_until_its_lease_runs_out(
        self, store: Store, other: Store
    ) -> None:
        record, _ = started(store, "scopone", 4)
        store.set_work(record.id, record.version, [("timeout", NOON)])
        item = Work(record.id, "timeout", record.version, NOON)
        assert store.claim_due("a", NOON - timedelta(seconds=1), LEASE) == []  # not due yet
        assert store.claim_due("a", NOON, LEASE) == [item]
        assert other.claim_due("b", NOON + LEASE - timedelta(seconds=1), LEASE) == []
        assert other.claim_work("b", record.id, "timeout", NOON, LEASE) is None
        # instance a died: its lease runs out, and b takes the work over
        assert other.claim_due("b", NOON + LEASE + timedelta(seconds=1), LEASE) == [item]
        other.finish_work(item)
        assert store.work(record.id) == []

    def test_finishing_old_work_leaves_the_work_a_move_set_since(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        store.set_work(record.id, record.version, [("computer", NOON)])
        item = store.claim_work("a", record.id, "computer", NOON, LEASE)
        assert item == Work(record.id, "computer", record.version, NOON)
        store.set_work(record.id, record.version + 1, [("computer", NOON + LEASE)])
        store.finish_work(item)
        assert store.work(record.id) == [
            Work(record.id, "computer", record.version + 1, NOON + LEASE)
        ]

    def test_instances_claiming_together_share_the_work_without_overlap(
        self, store: Store, other: Store
    ) -> None:
        ids = []
        for number in range(12):
            record, _ = started(store, "scopone", 4, chat_id=-300 - number)
            store.set_work(record.id, record.version, [("timeout", NOON)])
            ids.append(record.id)
        claims = race(2, lambda n: (store, other)[n].claim_due("ab"[n], NOON, LEASE, limit=8))
        claimed = [item.match_id for got in claims if isinstance(got, list) for item in got]
        assert not [got for got in claims if isinstance(got, BaseException)]
        assert sorted(claimed) == sorted(set(claimed))  # nobody's twice
        assert len(claimed) >= 8
        assert len(store.claim_due("c", NOON, LEASE)) == 12 - len(claimed)

    def test_unknown_work_is_refused(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        with pytest.raises(ValueError, match="unknown kind of work 'bell'"):
            store.set_work(record.id, record.version, [("bell", NOON)])


class TestDeliveries:
    def test_one_instance_delivers_a_message_until_it_gives_it_back_or_dies(
        self, db_url: str, store: Store, other: Store
    ) -> None:
        record, _ = started(store, "scopone", 4)
        hand, bell = (record.id, "hand", 1), (record.id, "bell", 1)
        assert store.claim_delivery(hand)
        assert other.claim_delivery(hand) is not store.shared
        assert other.claim_delivery(bell)  # another message of the seat
        store.release_delivery(hand)
        assert other.claim_delivery(hand)
        other.release_delivery(hand)
        dying = Store.open(db_url)
        assert dying.claim_delivery(hand)
        dying.close()  # its connection closes, as when its process dies
        assert eventually(lambda: store.claim_delivery(hand))
        store.release_delivery(hand)

    def test_instances_claiming_a_message_together_get_it_once(
        self, store: Store, other: Store
    ) -> None:
        if not store.shared:
            pytest.skip("SQLite: one process, no claims across instances")
        record, _ = started(store, "scopone", 4)
        for seat in range(4):
            key = (record.id, "hand", seat)
            got = race(2, lambda n: (store, other)[n].claim_delivery(key))  # noqa: B023
            assert sorted(got, key=str) == [False, True], got

    def test_only_a_table_hand_or_bell_is_claimed(self, store: Store) -> None:
        with pytest.raises(ValueError, match="no such live message"):
            store.claim_delivery((1, "lobby", 0))

    def test_a_hand_is_stored_over_the_one_it_replaces_only(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        assert store.replace_hand_message(record.id, 0, None, 10)
        assert not store.replace_hand_message(record.id, 0, None, 11)  # another stored 10
        assert not store.replace_hand_message(record.id, 0, 9, 11)
        assert store.replace_hand_message(record.id, 0, 10, 12)
        assert store.get_match(record.id).seats[0].hand_message_id == 12
        # A new message is stored with what it shows, in one write.
        assert store.replace_hand_message(record.id, 0, 12, 13, "d13")
        seat = store.get_match(record.id).seats[0]
        assert (seat.hand_message_id, seat.hand_digest, seat.hand_pending) == (13, "d13", "d13")
        store.set_table_message(record.id, -100, 14, "t14")
        stored = store.get_match(record.id)
        assert (stored.table_message_id, stored.table_digest, stored.table_pending) == (
            14, "t14", "t14",
        )  # fmt: skip

    def test_a_bell_is_forgotten_unless_a_newer_one_rang(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        store.set_turn_message(record.id, 0, user_of(0), 20, record.version)
        store.forget_turn_message(record.id, 0, 19)  # an older bell: 20 stays
        assert store.get_match(record.id).seats[0].turn_message_id == 20
        store.forget_turn_message(record.id, 0, 20)
        seat = store.get_match(record.id).seats[0]
        assert (seat.turn_chat_id, seat.turn_message_id, seat.turn_version) == (None, None, None)


class TestMatchLocks:
    def test_one_instance_holds_a_match_at_a_time(self, store: Store, other: Store) -> None:
        record, _ = started(store, "scopone", 4)
        assert store.try_lock_match(record.id)
        assert other.try_lock_match(record.id) is not store.shared
        store.unlock_match(record.id)
        assert other.try_lock_match(record.id)
        other.unlock_match(record.id)

    def test_a_dead_instance_s_locks_are_released(self, db_url: str, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        dying = Store.open(db_url)
        assert dying.try_lock_match(record.id)
        dying.close()  # its connection closes, as when its process dies
        assert eventually(lambda: store.try_lock_match(record.id))
        store.unlock_match(record.id)

    def test_a_frozen_instance_s_locks_are_released_after_the_idle_timeout(
        self, monkeypatch: pytest.MonkeyPatch, db_url: str, store: Store
    ) -> None:
        if not store.shared:
            pytest.skip("SQLite: one process, no locks across instances")
        monkeypatch.setattr(work_module, "IDLE_TIMEOUT", "500ms")
        record, _ = started(store, "scopone", 4)
        frozen = Store.open(db_url)
        try:
            assert frozen.try_lock_match(record.id)
            assert not store.try_lock_match(record.id)
            deadline = time.monotonic() + 10  # PostgreSQL ends the idle session after 0.5 s
            while not store.try_lock_match(record.id):
                assert time.monotonic() < deadline, "the frozen instance kept its lock"
                time.sleep(0.1)
            store.unlock_match(record.id)
            assert frozen.try_lock_match(record.id)  # it connects again when it wakes
            frozen.unlock_match(record.id)
        finally:
            frozen.close()


class TestSettings:
    def test_the_first_instance_makes_a_setting_and_every_one_shares_it(
        self, store: Store, other: Store
    ) -> None:
        assert store.setting("webhook_secret", lambda: "first") == "first"
        assert other.setting("webhook_secret", lambda: "second") == "first"


class TestChatBudget:
    def test_instances_share_a_chat_s_burst_then_its_rate(self, store: Store, other: Store) -> None:
        taken = [(store if turn % 2 else other).reserve_message(-500, 60.0, 3) for turn in range(5)]
        assert taken[:3] == [0.0, 0.0, 0.0]
        assert all(0 < wait <= 60.0 for wait in taken[3:]), taken
        assert store.reserve_message(-501, 60.0, 3) == 0.0  # each chat has its own


class TestHolds:
    """A bot alone on PostgreSQL holds its schema so; the instances of a deployment hold it
    together; the two refuse each other (a bot alone keeps what it read: nobody may write
    beside it)."""

    def test_a_bot_alone_and_any_other_bot_refuse_each_other(self, pg_url: str) -> None:
        alone = Store.open(pg_url, exclusive=True)
        try:
            assert not alone.shared and alone._kept.enabled
            with pytest.raises(StoreError, match="another Tavolo is using this database"):
                Store.open(pg_url, exclusive=True)
            with pytest.raises(StoreError, match=r"a Tavolo is using this database alone"):
                Store.open(pg_url, instance=True)
            Store.open(pg_url).close()  # a tool holds nothing
        finally:
            alone.close()
        one, two = Store.open(pg_url, instance=True), Store.open(pg_url, instance=True)
        try:
            assert one.shared and one._kept.kinds == (USER, CHAT)  # no match: both move
            with pytest.raises(StoreError, match="another Tavolo is using this database"):
                Store.open(pg_url, exclusive=True)
        finally:
            one.close()
            two.close()
        assert eventually(lambda: _opens_alone(pg_url))


def _opens_alone(url: str) -> bool:
    """Whether a bot alone may open the database now (the instances' sessions are gone)."""
    try:
        Store.open(url, exclusive=True).close()
    except StoreError:
        return False
    return True
