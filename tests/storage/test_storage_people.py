"""Seats' hand UI, users and groups, supergroup upgrades, results, leaderboards, erasure."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from storage import (
    ANONYMOUS,
    FINISHED,
    STOPPED,
    ChatBusy,
    ChatSettings,
    GameStats,
    LeaderboardEntry,
    MatchNotFound,
    PlayerResult,
    SeatError,
    SeatUI,
    StaleVersion,
    Store,
    UserRecord,
    WrongStatus,
)
from testkit.storage_helpers import greedy, play_and_commit, started, user_of


class TestSeatUI:
    def test_round_trip_and_versions(self, db_url: str) -> None:
        with Store.open(db_url) as store:
            record, _ = started(store, "scala40", 3)
            assert store.get_match(record.id).seats[2].ui == SeatUI()
            ui = store.update_seat_ui(record.id, 2, 0, selected=["7H", "8H"])
            assert ui == SeatUI(selected=("7H", "8H"), version=1)
            ui = store.update_seat_ui(
                record.id,
                2,
                1,
                staged=[["7H", "8H", "9H"], ["QS", "QD", "JK=QC"]],
                order=["JK", "9H", "8H", "7H"],
                sort="value",
            )
            assert ui == SeatUI(
                selected=("7H", "8H"),
                staged=(("7H", "8H", "9H"), ("QS", "QD", "JK=QC")),
                order=("JK", "9H", "8H", "7H"),
                sort="value",
                version=2,
            )
        with Store.open(db_url) as store:  # after a restart the turn resumes as it was left
            seats = store.get_match(record.id).seats
            assert (seats[2].ui, seats[1].ui) == (ui, SeatUI())
            cleared = store.update_seat_ui(record.id, 2, 2, order=None, selected=[])
            assert cleared == SeatUI(staged=ui.staged, sort="value", version=3)

    def test_a_stale_press_is_refused(self, store: Store) -> None:
        record, _ = started(store, "scala40", 2)
        store.update_seat_ui(record.id, 0, 0, selected=["AS"])
        with pytest.raises(StaleVersion) as caught:
            store.update_seat_ui(record.id, 0, 0, selected=["KD"])
        assert (caught.value.seat, caught.value.expected, caught.value.actual) == (0, 0, 1)
        assert "seat 0 of match" in str(caught.value)
        assert store.get_match(record.id).seats[0].ui == SeatUI(selected=("AS",), version=1)

    def test_a_move_can_reset_the_selection(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        seat = match.to_play
        assert seat is not None
        store.update_seat_ui(record.id, seat, 0, selected=["AS"], staged=[["AS"]], sort="value")
        store.update_seat_ui(record.id, seat, 1, order=["AS", "2S"])
        action = str(match.play(greedy(match), seat=seat))
        store.commit_move(record.id, record.version, seat, action, match.to_json(), reset_ui=True)
        assert store.get_match(record.id).seats[seat].ui == SeatUI(
            order=("AS", "2S"), sort="value", version=3
        )

    def test_missing_seat_or_match(self, store: Store) -> None:
        record, _ = started(store, "scala40", 2)
        with pytest.raises(SeatError, match="no seat 5"):
            store.update_seat_ui(record.id, 5, 0, selected=[])
        with pytest.raises(MatchNotFound):
            store.update_seat_ui(404, 0, 0, selected=[])


class TestUsersAndChats:
    def test_user_language(self, store: Store) -> None:
        assert store.get_user(5) is None
        assert store.upsert_user(5, "Eva", "it") == UserRecord(5, "Eva", None, "it")
        store.set_user_language(5, "en")
        assert store.get_user(5) == UserRecord(5, "Eva", "en", "it")
        assert store.upsert_user(5, "Eva R.", "de") == UserRecord(5, "Eva R.", "en", "de")
        store.set_user_language(5, None)
        assert store.get_user(5) == UserRecord(5, "Eva R.", None, "de")
        store.set_user_language(6, "en")
        assert store.get_user(6) == UserRecord(6, "", "en", None)

    def test_long_names_are_cut(self, store: Store) -> None:
        assert store.upsert_user(5, "x" * 300).name == "x" * 128

    def test_chat_settings(self, store: Store) -> None:
        assert store.chat_settings(-5) == ChatSettings(-5, None, {})
        store.set_chat_language(-5, "it")
        store.set_chat_default_options(-5, "scala40", {"limit": 151, "jokers": False})
        store.set_chat_default_options(-5, "scopone", {"target": 21})
        store.set_chat_default_options(-5, "scopone", None)
        assert store.chat_settings(-5) == ChatSettings(
            -5, "it", {"scala40": {"jokers": False, "limit": 151}}
        )
        assert store.chat_settings(-6) == ChatSettings(-6, None, {})
        with pytest.raises(ValueError, match="unknown game"):
            store.set_chat_default_options(-5, "tressette", {})

    def test_how_many_tables_a_group_hosts(self, store: Store) -> None:
        assert store.chat_settings(-5).tables == 3
        store.set_tables(-5, 1)
        assert store.chat_settings(-5).tables == 1
        store.set_tables(-5, 4)
        assert store.chat_settings(-5).tables == 4
        for wrong in (0, 5):
            with pytest.raises(ValueError, match="a group hosts 1 to 4 tables"):
                store.set_tables(-5, wrong)
        assert store.chat_settings(-5).tables == 4
        store.migrate_chat(-5, -1005)
        assert store.chat_settings(-1005).tables == 4


def finish(
    store: Store,
    chat_id: int,
    game: str,
    players: Sequence[tuple[int | None, str]],
    results: Sequence[tuple[int, int, bool, int]],
    *,
    with_last_move: bool = False,
) -> int:
    """A finished match of ``players`` (user id or None for a computer, name) with ``results``
    per seat (mp, vp, won, hands won); returns its id."""
    (first_user, first_name), *others = players
    assert first_user is not None
    record = store.create_match(chat_id, game, {}, first_user, first_name, seed=1)
    for user_id, name in others:
        level = None if user_id is not None else "medio"
        record = store.add_seat(record.id, user_id, name, level)
    version = store.start_match(record.id, "{}", record.version)
    rows = [
        PlayerResult(seat, user_id, name, user_id is None, mp, vp, won, hands)
        for seat, ((user_id, name), (mp, vp, won, hands)) in enumerate(
            zip(players, results, strict=True)
        )
    ]
    if with_last_move:
        store.commit_move(record.id, version, 0, "abandon", "{}", status=FINISHED, results=rows)
    else:
        store.set_status(record.id, FINISHED)
        assert store.record_results(record.id, rows) is True
    return record.id


ANNA, BEA, CIRO = (1, "Anna"), (2, "Bea"), (3, "Ciro")
CPU = (None, "CPU medio")


def scripted_results(store: Store) -> list[int]:
    """Scala 40 and Scopone matches in chat -10, and one Scala 40 match in chat -20."""
    return [
        finish(store, -10, "scala40", [ANNA, BEA], [(70, 20, True, 2), (-70, 0, False, 1)]),
        finish(
            store,
            -10,
            "scala40",
            [ANNA, BEA, CIRO],
            [(-55, 0, False, 0), (75, 20, True, 2), (-20, 0, False, 1)],
            with_last_move=True,
        ),
        finish(store, -10, "scala40", [ANNA, CPU], [(15, 20, True, 1), (-15, 0, False, 0)]),
        finish(store, -10, "scala40", [CIRO, CPU], [(25, 20, True, 1), (-25, 0, False, 0)]),
        finish(
            store,
            -10,
            "scopone",
            [ANNA, BEA, CIRO, CPU],
            [(6, 20, True, 3), (-6, 0, False, 2), (6, 20, True, 3), (-6, 0, False, 2)],
        ),
        finish(store, -20, "scala40", [ANNA, BEA], [(10, 20, True, 1), (-10, 0, False, 0)]),
    ]


SCALA40_BOARD = [
    LeaderboardEntry(1, 1, "Anna", False, matches=3, won=2, mp=30, vp=40, hands_won=3),
    LeaderboardEntry(2, 2, "Bea", False, matches=2, won=1, mp=5, vp=20, hands_won=3),
    LeaderboardEntry(2, 3, "Ciro", False, matches=2, won=1, mp=5, vp=20, hands_won=2),
    LeaderboardEntry(1, None, "CPU medio", True, matches=2, won=0, mp=-40, vp=0, hands_won=0),
]


class TestResults:
    def test_leaderboard(self, store: Store) -> None:
        scripted_results(store)
        assert store.leaderboard(-10, "scala40") == SCALA40_BOARD
        assert store.leaderboard(-10, "scopone") == [
            LeaderboardEntry(1, 1, "Anna", False, 1, 1, 6, 20, 3),
            LeaderboardEntry(1, 3, "Ciro", False, 1, 1, 6, 20, 3),
            LeaderboardEntry(3, 2, "Bea", False, 1, 0, -6, 0, 2),
            LeaderboardEntry(1, None, "CPU medio", True, 1, 0, -6, 0, 2),
        ]
        assert store.leaderboard(-20, "scala40") == [
            LeaderboardEntry(1, 1, "Anna", False, 1, 1, 10, 20, 1),
            LeaderboardEntry(2, 2, "Bea", False, 1, 0, -10, 0, 0),
        ]
        assert store.leaderboard(-30, "scala40") == []

    def test_the_leaderboard_uses_the_latest_name(self, store: Store) -> None:
        scripted_results(store)
        store.upsert_user(1, "Anna B.")
        assert store.leaderboard(-10, "scala40")[0].name == "Anna B."

    def test_user_stats_across_groups(self, store: Store) -> None:
        scripted_results(store)
        assert store.user_stats(1) == [
            GameStats("scala40", matches=4, won=3, mp=40, vp=60, hands_won=4),
            GameStats("scopone", matches=1, won=1, mp=6, vp=20, hands_won=3),
        ]
        assert store.user_stats(2) == [
            GameStats("scala40", 3, 1, -5, 20, 3),
            GameStats("scopone", 1, 0, -6, 0, 2),
        ]
        assert store.user_stats(99) == []

    def test_results_are_stored_once(self, store: Store) -> None:
        first, second, *_ = scripted_results(store)
        rows = [PlayerResult(0, 1, "Anna", False, 999, 20, True, 9)]
        assert store.record_results(first, rows) is False
        assert store.record_results(second, rows) is False
        assert store.leaderboard(-10, "scala40") == SCALA40_BOARD

    def test_only_finished_matches_have_results(self, store: Store) -> None:
        rows = [PlayerResult(0, user_of(0), "Anna", False, 0, 20, True, 0)]
        record, _ = started(store, "scopone", 4)
        with pytest.raises(WrongStatus, match="only a finished match has results"):
            store.record_results(record.id, rows)
        store.set_status(record.id, STOPPED)
        with pytest.raises(WrongStatus, match="is stopped: only a finished match has results"):
            store.record_results(record.id, rows)
        assert store.leaderboard(record.chat_id, "scopone") == []

    def test_one_result_per_seat(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        store.set_status(record.id, FINISHED)
        row = PlayerResult(0, user_of(0), "Anna", False, 0, 20, True, 0)
        with pytest.raises(ValueError, match="one result per seat"):
            store.record_results(record.id, [row, row])
        assert store.record_results(record.id, [tuple(row)]) is True  # type: ignore[list-item]


class TestSupergroup:
    def test_a_group_upgraded_to_a_supergroup_keeps_everything(self, store: Store) -> None:
        old, new = -10, -1001234
        scripted_results(store)
        store.set_chat_language(old, "it")
        store.set_chat_default_options(old, "scala40", {"limit": 201})
        store.set_chat_default_options(new, "scopone", {"target": 16})
        record, match = started(store, "scala40", 2, chat_id=old)
        version = play_and_commit(store, record, match, 12)
        store.set_table_message(record.id, old, 77)
        store.set_turn_message(record.id, 1, old, 78)
        store.set_hand_message(record.id, 1, 79)
        board = store.leaderboard(old, "scala40")

        assert store.migrate_chat(old, new) == 6
        moved = store.active_match_in_chat(new)
        assert moved is not None
        assert (moved.id, moved.version, moved.state_json) == (record.id, version, match.to_json())
        assert (moved.chat_id, moved.table_chat_id, moved.table_message_id) == (new, new, 77)
        assert (moved.seats[1].turn_chat_id, moved.seats[1].turn_message_id) == (new, 78)
        assert moved.seats[1].hand_message_id == 79
        assert store.active_match_in_chat(old) is None
        assert store.leaderboard(new, "scala40") == board
        assert store.leaderboard(old, "scala40") == []
        assert store.chat_settings(new) == ChatSettings(
            new, "it", {"scala40": {"limit": 201}, "scopone": {"target": 16}}
        )
        assert store.chat_settings(old) == ChatSettings(old, None, {})
        assert store.replay(record.id).to_json() == match.to_json()
        assert store.migrate_chat(old, new) == 0

    def test_both_chats_busy(self, store: Store) -> None:
        first = store.create_match(-1, "scopone", {}, 1, "Anna", seed=1)
        second = store.create_match(-2, "scopone", {}, 2, "Bea", seed=1)
        with pytest.raises(ChatBusy) as caught:
            store.migrate_chat(-1, -2)
        assert caught.value.match_id == second.id
        assert store.active_match_in_chat(-1) == first
        assert store.active_match_in_chat(-2) == second


class TestDeleteUserData:
    def test_erase_a_person(self, store: Store) -> None:
        scripted_results(store)
        store.upsert_user(2, "Bea", "it")
        store.set_user_language(2, "en")
        store.set_chat_language(2, "en")  # the private chat's settings
        lobby = store.create_match(-50, "scala40", {}, 2, "Bea", seed=4)
        lobby = store.add_seat(lobby.id, 1, "Anna")
        game = store.initial_match(lobby)
        version = store.start_match(lobby.id, game.to_json(), lobby.version)
        record = store.get_match(lobby.id)
        version = play_and_commit(store, record, game, 10)
        store.set_hand_message(lobby.id, 0, 55)
        store.set_turn_message(lobby.id, 0, 2, 56)
        moves = store.moves(lobby.id)

        store.delete_user_data(2)

        assert store.get_user(2) is None
        assert store.chat_settings(2) == ChatSettings(2, None, {})
        assert store.user_stats(2) == []
        assert [e.name for e in store.leaderboard(-10, "scala40")] == ["Anna", "Ciro", "CPU medio"]
        assert store.user_stats(1)[0] == GameStats("scala40", 4, 3, 40, 60, 4)
        after = store.get_match(lobby.id)
        assert after.creator_id == 1  # the running match passes to the next seated person
        seat = after.seats[0]
        assert (seat.user_id, seat.name, seat.hand_message_id, seat.turn_chat_id) == (
            None,
            ANONYMOUS,
            None,
            None,
        )
        assert (after.seats[1].user_id, after.seats[1].name) == (1, "Anna")
        assert (after.version, after.state_json) == (version, game.to_json())
        assert store.moves(lobby.id) == moves
        assert store.replay(lobby.id).to_json() == game.to_json()
        for match in store.unfinished_matches():
            assert all(s.user_id != 2 for s in match.seats)

    def test_an_erased_person_leaves_every_lobby(self, store: Store) -> None:
        """Their seats go; a lobby they host passes to the next seated person, or is cancelled
        when none is left; a lobby hosted by someone else keeps its host."""
        passed = store.create_match(-1, "scala40", {}, 2, "Bea", seed=1)
        store.add_seat(passed.id, None, "CPU", "facile")
        store.add_seat(passed.id, 1, "Anna")
        alone = store.create_match(-2, "scala40", {}, 2, "Bea", seed=1)
        store.add_seat(alone.id, None, "CPU", "facile")
        guest = store.create_match(-3, "scopone", {}, 1, "Anna", seed=1)
        store.add_seat(guest.id, 2, "Bea")

        assert sorted(store.delete_user_data(2)) == sorted([passed.id, alone.id, guest.id])

        after = store.get_match(passed.id)
        assert (after.status, after.creator_id) == ("lobby", 1)
        assert [(s.seat, s.name) for s in after.seats] == [(0, "CPU"), (1, "Anna")]
        assert store.get_match(alone.id).status == "stopped"
        after = store.get_match(guest.id)
        assert (after.creator_id, [s.name for s in after.seats]) == (1, ["Anna"])
