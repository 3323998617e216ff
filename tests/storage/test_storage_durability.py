"""Matches survive a restart exactly; the log replays to the snapshot; stale writes are refused;
a database that does not answer is told apart from a wrong record."""

from __future__ import annotations

import socket
import threading
from collections import Counter

import pytest

from engine.games import load_match
from storage import ChatBusy, DatabaseUnavailable, MatchNotFound, StaleVersion, Store
from storage.database import create_store_engine
from testkit.storage_helpers import database_away, greedy, play_and_commit, race, started

GAMES = [("scala40", 4, {}), ("scala40", 2, {"jokers": False}), ("scopone", 4, {"target": 21})]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_a_match_reloaded_mid_hand_goes_on_identically(
    db_url: str, game: str, players: int, options: dict[str, object]
) -> None:
    with Store.open(db_url) as store:
        record, match = started(store, game, players, options=options, seed=2024)
        version = play_and_commit(store, record, match, 57)
        assert not match.is_over
        hand = match.to_json()
    # A new process: a fresh store on the same database, resuming from the unfinished list.
    with Store.open(db_url) as store:
        (resumed,) = store.unfinished_matches()
        assert (resumed.id, resumed.version, resumed.state_json) == (record.id, version, hand)
        reloaded = store.load_engine_match(resumed)
        assert reloaded.to_json() == hand
        for _ in range(120):
            if match.is_over:
                break
            seat = match.to_play
            assert reloaded.to_play == seat
            expected = str(match.play(greedy(match), seat=seat))
            action = str(reloaded.play(greedy(reloaded), seat=seat))
            assert action == expected
            version = store.commit_move(resumed.id, version, seat, action, reloaded.to_json())
            assert reloaded.to_json() == match.to_json()
        assert store.get_match(record.id).state_json == match.to_json()


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_replaying_the_log_reproduces_the_snapshot(
    store: Store, game: str, players: int, options: dict[str, object]
) -> None:
    """Several hundred moves per game, over as many whole matches as that takes."""
    total = 0
    for seed in range(1, 20):
        if total >= 400:
            break
        record, match = started(store, game, players, options=options, seed=seed, chat_id=-seed)
        version = play_and_commit(store, record, match, 400 - total)
        moves = store.moves(record.id)
        assert len(moves) == version - record.version
        total += len(moves)
        stored = store.get_match(record.id)
        assert stored.state_json == match.to_json()
        replayed = store.replay(record.id)
        assert replayed.to_json() == stored.state_json
        assert replayed.is_over == match.is_over
        assert load_match(stored.state_json).to_json() == stored.state_json
    assert total >= 400


class TestStaleVersions:
    def test_a_second_instance_cannot_overwrite(self, db_url: str) -> None:
        with Store.open(db_url) as first, Store.open(db_url) as second:
            record, match = started(first, "scala40", 2)
            seen = second.get_match(record.id)
            seat = match.to_play
            action = str(match.play(greedy(match), seat=seat))
            first.commit_move(record.id, record.version, seat, action, match.to_json())
            with pytest.raises(StaleVersion) as caught:
                second.commit_move(seen.id, seen.version, seat, "draw", '{"other":1}')
            error = caught.value
            assert (error.match_id, error.expected, error.actual) == (
                record.id,
                record.version,
                record.version + 1,
            )
            assert second.database in str(error)
            stored = second.get_match(record.id)
            assert (stored.version, stored.state_json) == (record.version + 1, match.to_json())
            assert [m.action for m in second.moves(record.id)] == [action]

    def test_a_future_version_is_refused_too(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        with pytest.raises(StaleVersion):
            store.commit_move(record.id, record.version + 1, 0, "x", "{}")
        assert store.moves(record.id) == []
        assert store.get_match(record.id) == record

    def test_racing_presses_one_wins(self, db_url: str) -> None:
        with Store.open(db_url) as store:
            record, match = started(store, "scopone", 4)
            seat = match.to_play
            racers = 6
            barrier = threading.Barrier(racers)
            outcomes: list[str] = []

            def press(n: int) -> None:
                barrier.wait()
                try:
                    store.commit_move(record.id, record.version, seat, f"press {n}", f'"{n}"')
                    outcomes.append(f"won {n}")
                except StaleVersion:
                    outcomes.append("stale")

            threads = [threading.Thread(target=press, args=(n,)) for n in range(racers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert Counter(o.split()[0] for o in outcomes) == {"won": 1, "stale": racers - 1}
            (winner,) = [o.split()[1] for o in outcomes if o.startswith("won")]
            stored = store.get_match(record.id)
            assert (stored.version, stored.state_json) == (record.version + 1, f'"{winner}"')
            assert [m.action for m in store.moves(record.id)] == [f"press {winner}"]


class TestRaces:
    def test_instances_starting_together_upgrade_once(self, db_url: str) -> None:
        stores = race(3, lambda _: Store.open(db_url))
        assert all(isinstance(store, Store) for store in stores), stores
        for store in stores:
            assert isinstance(store, Store)
            store.close()
        with Store.open(db_url) as store:
            assert store.unfinished_matches() == []

    def test_players_joining_together_get_distinct_seats(self, store: Store) -> None:
        lobby = store.create_match(-100, "scala40", {}, 1, "Anna", seed=1)
        outcomes = race(5, lambda n: store.add_seat(lobby.id, 10 + n, f"P{n}"))
        assert not [o for o in outcomes if isinstance(o, Exception)]
        record = store.get_match(lobby.id)
        assert record.version == 5
        assert [s.seat for s in record.seats] == [0, 1, 2, 3, 4, 5]
        assert sorted(s.user_id or 0 for s in record.seats) == [1, 10, 11, 12, 13, 14]

    def test_a_question_answered_twice_at_once_is_answered_once(self, store: Store) -> None:
        asked = store.ask(-100, 7, "abandon", match_id=1)
        assert sorted(race(4, lambda _: store.answer(asked))) == [False, False, False, True]

    def test_two_new_games_in_one_chat(self, store: Store) -> None:
        outcomes = race(4, lambda n: store.create_match(-100, "scopone", {}, n, f"P{n}", seed=n))
        created = [o for o in outcomes if not isinstance(o, Exception)]
        assert len(created) == 1
        busy = [o for o in outcomes if isinstance(o, ChatBusy)]
        assert len(busy) == 3
        assert store.active_match_in_chat(-100) == created[0]


def test_a_database_server_that_does_not_answer_is_unavailable() -> None:
    """PostgreSQL is down (nothing listens on its port): a call raises DatabaseUnavailable, a
    passing failure the bot tries again later, not a wrong record."""
    pytest.importorskip("psycopg")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://tavolo@127.0.0.1:{port}/tavolo"
    store = Store(create_store_engine(url), url)
    try:
        with pytest.raises(DatabaseUnavailable, match="the database did not answer"):
            store.get_match(1)
        with pytest.raises(DatabaseUnavailable, match="is its server running"):
            store.set_hand_message(1, 0, 5)
    finally:
        store.close()


def test_a_lost_connection_is_unavailable_until_the_database_answers(db_url: str) -> None:
    """The connection to the database fails (as storage_helpers.database_away makes it, the
    way a socket fails when the server goes away): DatabaseUnavailable; once it answers, the
    same call does."""
    store = Store.open(db_url)
    try:
        with database_away(store), pytest.raises(DatabaseUnavailable):
            store.get_match(1)
        with pytest.raises(MatchNotFound) as refused:
            store.get_match(1)
        assert not isinstance(refused.value, DatabaseUnavailable)
    finally:
        store.close()
