"""A match's life in the store: lobby, seats, start, moves, status, messages, deadlines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.games import default_options
from storage import (
    FINISHED,
    LOBBY,
    PLAYING,
    STOPPED,
    ChatBusy,
    MatchNotFound,
    MoveRecord,
    SeatedElsewhere,
    SeatError,
    SeatUI,
    StaleVersion,
    Store,
    WrongStatus,
)
from testkit.storage_helpers import NAMES, play_and_commit, seated_lobby, started, user_of


class TestLobby:
    def test_create_puts_the_creator_in_seat_0(self, store: Store) -> None:
        options = default_options("scala40") | {"limit": 151}
        record = store.create_match(-100, "scala40", options, 7, "Anna", seed=2**127 + 5)
        assert (record.chat_id, record.game, record.status) == (-100, "scala40", LOBBY)
        assert (record.options, record.seed, record.version) == (options, 2**127 + 5, 0)
        assert (record.creator_id, record.state_json, record.deadline) == (7, None, None)
        assert [(s.seat, s.user_id, s.name, s.computer_level) for s in record.seats] == [
            (0, 7, "Anna", None)
        ]
        assert record.seats[0].ui == SeatUI()
        assert record.created_at.tzinfo == UTC
        assert store.get_match(record.id) == record

    def test_seats_join_in_order_and_each_change_bumps_the_version(self, store: Store) -> None:
        record = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        record = store.add_seat(record.id, 2, "Bea")
        record = store.add_seat(record.id, None, "CPU", "facile")
        assert record.version == 2
        assert [(s.seat, s.user_id, s.name, s.is_computer) for s in record.seats] == [
            (0, 1, "Anna", False),
            (1, 2, "Bea", False),
            (2, None, "CPU", True),
        ]
        assert (record.seat_of(2), record.seat_of(99)) == (1, None)
        assert store.get_match(record.id) == record

    def test_a_person_sits_once(self, store: Store) -> None:
        record = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        with pytest.raises(SeatError, match="already sits in seat 0"):
            store.add_seat(record.id, 1, "Anna again")
        assert store.get_match(record.id) == record

    def test_a_seat_is_a_person_or_a_computer(self, store: Store) -> None:
        record = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        with pytest.raises(ValueError):
            store.add_seat(record.id, 2, "Bea", "facile")
        with pytest.raises(ValueError):
            store.add_seat(record.id, None, "Nobody")

    def test_remove_seat_moves_the_others_up(self, store: Store) -> None:
        record = seated_lobby(store, "scala40", 4)
        record = store.remove_seat(record.id, 1)
        assert [(s.seat, s.user_id) for s in record.seats] == [
            (0, user_of(0)),
            (1, user_of(2)),
            (2, user_of(3)),
        ]
        assert store.get_match(record.id) == record
        with pytest.raises(SeatError, match="no seat 3"):
            store.remove_seat(record.id, 3)

    def test_reorder_seats_forms_pairs(self, store: Store) -> None:
        record = seated_lobby(store, "scopone", 4)
        record = store.reorder_seats(record.id, [0, 2, 1, 3])
        assert [s.name for s in record.seats] == ["Anna", "Ciro", "Bea", "Dario"]
        assert [s.seat for s in record.seats] == [0, 1, 2, 3]
        assert store.get_match(record.id) == record
        for bad in ([0, 1, 2], [0, 1, 2, 2], [0, 1, 2, 4]):
            with pytest.raises(SeatError, match="must name each of seats"):
                store.reorder_seats(record.id, bad)

    def test_options_change_in_the_lobby(self, store: Store) -> None:
        record = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        record = store.set_match_options(record.id, {"target": 21})
        assert (record.options, record.version) == ({"target": 21}, 1)

    def test_unknown_game_is_refused(self, store: Store) -> None:
        with pytest.raises(ValueError, match="unknown game"):
            store.create_match(-100, "briscola", {}, 1, "Anna", seed=1)

    def test_one_active_match_per_chat(self, store: Store) -> None:
        first = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        with pytest.raises(ChatBusy) as caught:
            store.create_match(-100, "scala40", {}, 2, "Bea", seed=2)
        assert caught.value.match_id == first.id
        assert store.active_match_in_chat(-100) == first
        assert store.active_match_in_chat(-200) is None
        other = store.create_match(-200, "scala40", {}, 2, "Bea", seed=2)
        assert store.active_match_in_chat(-200) == other
        store.set_status(first.id, STOPPED)
        assert store.active_match_in_chat(-100) is None
        again = store.create_match(-100, "scala40", {}, 2, "Bea", seed=3)
        assert store.active_match_in_chat(-100) == again

    def test_a_group_hosts_as_many_tables_as_it_allows(self, store: Store) -> None:
        """Each new match takes the group's lowest free table; once they are all taken the
        group is busy; a table whose match ended is free again."""
        first = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1, tables=3)
        second = store.create_match(-100, "scala40", {}, 2, "Bea", seed=2, tables=3)
        third = store.create_match(-100, "scala40", {}, 3, "Carlo", seed=3, tables=3)
        assert [first.table_number, second.table_number, third.table_number] == [1, 2, 3]
        with pytest.raises(ChatBusy) as caught:
            store.create_match(-100, "scala40", {}, 4, "Dario", seed=4, tables=3)
        assert caught.value.match_id == first.id
        store.set_status(second.id, STOPPED)
        assert store.active_matches_in_chat(-100) == [first, store.get_match(third.id)]
        fourth = store.create_match(-100, "scala40", {}, 4, "Dario", seed=4, tables=3)
        assert fourth.table_number == 2
        assert [m.id for m in store.active_matches_in_chat(-100)] == [first.id, fourth.id, third.id]
        assert store.get_match(second.id).table_number == 2  # an ended match keeps its number
        assert store.active_match_in_chat(-100) == first
        assert store.active_matches_in_chat(-200) == []
        topic = store.create_match(-300, "scopone", {}, 5, "Eva", seed=5, thread_id=77)
        with pytest.raises(ChatBusy) as caught:  # a topic holds one table
            store.create_match(-300, "scopone", {}, 6, "Fede", seed=6, tables=3, thread_id=77)
        assert caught.value.match_id == topic.id
        assert (topic.thread_id, store.get_match(topic.id).thread_id, first.thread_id) == (
            77,
            77,
            None,
        )

    def test_a_person_sits_at_one_table_of_a_group(self, store: Store) -> None:
        """docs/rules-notes.md ST-4, decided in the write itself: two lobbies joined at once
        (two taps, two instances) cannot both seat the same person."""
        first = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1, tables=3)
        second = store.create_match(-100, "scopone", {}, 2, "Bea", seed=2, tables=3)
        with pytest.raises(SeatedElsewhere) as caught:
            store.add_seat(second.id, 1, "Anna")
        assert caught.value.match_id == first.id
        with pytest.raises(SeatedElsewhere):
            store.create_match(-100, "scala40", {}, 2, "Bea", seed=3, tables=3)
        store.add_seat(second.id, None, "CPU", "facile")  # computers sit anywhere
        other = store.create_match(-200, "scopone", {}, 1, "Anna", seed=4)  # another group
        assert other.seats[0].user_id == 1
        store.set_status(first.id, STOPPED)
        assert store.add_seat(second.id, 1, "Anna").seat_of(1) == 2

    def test_a_group_allowed_fewer_tables_keeps_those_running(self, store: Store) -> None:
        store.create_match(-100, "scopone", {}, 1, "Anna", seed=1, tables=2)
        store.create_match(-100, "scopone", {}, 2, "Bea", seed=2, tables=2)
        with pytest.raises(ChatBusy):
            store.create_match(-100, "scopone", {}, 3, "Carlo", seed=3, tables=1)
        assert len(store.active_matches_in_chat(-100)) == 2

    def test_the_match_a_message_shows(self, store: Store) -> None:
        """A reply to a table, or to a hand's summary, names its match, ended or not."""
        first = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1, tables=2)
        second = store.create_match(-100, "scopone", {}, 2, "Bea", seed=2, tables=2)
        store.set_table_message(first.id, -100, 10)
        store.set_table_message(second.id, -100, 11)
        store.set_summary_message(second.id, 12)
        assert store.match_of_message(-100, 10) == store.get_match(first.id)
        assert store.match_of_message(-100, 11) == store.get_match(second.id)
        assert store.match_of_message(-100, 12) == store.get_match(second.id)
        assert store.match_of_message(-200, 10) is None
        assert store.match_of_message(-100, 13) is None
        store.set_status(first.id, STOPPED)
        assert store.match_of_message(-100, 10) == store.get_match(first.id)

    def test_a_lobby_nobody_saw_is_discarded_without_a_trace(self, store: Store) -> None:
        """A lobby the bot could not show (a group it is not in) goes; one shown, or a match
        started, stays."""
        unseen = store.add_seat(store.create_match(-100, "scopone", {}, 1, "Anna", 1).id, 2, "Bea")
        store.ask(-100, 1, "stop", unseen.id)
        assert store.discard_lobby(unseen.id)
        with pytest.raises(MatchNotFound):
            store.get_match(unseen.id)
        assert store.active_match_in_chat(-100) is None
        assert store.last_match_in_chat(-100) is None
        shown = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
        store.set_table_message(shown.id, -100, 5)
        assert not store.discard_lobby(shown.id)
        assert store.get_match(shown.id).status == LOBBY
        playing, _ = started(store, "scala40", 2, chat_id=-200)
        assert not store.discard_lobby(playing.id)
        assert store.get_match(playing.id).status == PLAYING

    def test_missing_match(self, store: Store) -> None:
        with pytest.raises(MatchNotFound, match="there is no match 404"):
            store.get_match(404)
        with pytest.raises(MatchNotFound):
            store.add_seat(404, 1, "Anna")
        with pytest.raises(MatchNotFound):
            store.commit_move(404, 0, 0, "draw", "{}")
        with pytest.raises(MatchNotFound):
            store.moves(404)


class TestStartAndMoves:
    def test_start_stores_the_first_snapshot(self, store: Store) -> None:
        lobby = seated_lobby(store, "scala40", 3)
        match = store.initial_match(lobby)
        version = store.start_match(lobby.id, match.to_json(), lobby.version)
        record = store.get_match(lobby.id)
        assert (version, record.version, record.status) == (lobby.version + 1, version, PLAYING)
        assert record.state_json == match.to_json()
        assert store.moves(lobby.id) == []
        with pytest.raises(WrongStatus, match="seats change only in the lobby"):
            store.add_seat(lobby.id, 5, "Late")
        with pytest.raises(WrongStatus, match="options change only in the lobby"):
            store.set_match_options(lobby.id, {})

    def test_start_from_an_old_lobby_is_stale(self, store: Store) -> None:
        lobby = seated_lobby(store, "scala40", 2)
        store.add_seat(lobby.id, 9, "Late")
        with pytest.raises(StaleVersion) as caught:
            store.start_match(lobby.id, "{}", lobby.version)
        assert (caught.value.expected, caught.value.actual) == (lobby.version, lobby.version + 1)
        assert store.get_match(lobby.id).status == LOBBY

    def test_initial_match_refuses_bad_options(self, store: Store) -> None:
        lobby = seated_lobby(store, "scala40", 3, options={"pairs": True})
        with pytest.raises(ValueError, match="pairs"):
            store.initial_match(lobby)

    def test_each_move_is_logged_with_its_version(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        before = datetime.now(UTC)
        expected: list[tuple[int, int | None, str]] = []
        version = record.version
        for _ in range(6):
            seat = match.to_play
            action = str(match.play(match.legal_actions()[-1], seat=seat))
            version = store.commit_move(record.id, version, seat, action, match.to_json())
            expected.append((version, seat, action))
        moves = store.moves(record.id)
        assert [(m.version, m.seat, m.action) for m in moves] == expected
        assert [m.version for m in moves] == list(range(record.version + 1, version + 1))
        assert all(before <= m.at <= datetime.now(UTC) for m in moves)
        assert all(isinstance(m, MoveRecord) for m in moves)
        stored = store.get_match(record.id)
        assert (stored.version, stored.state_json) == (version, match.to_json())

    def test_a_move_without_seat_is_played_for_the_seat_to_play(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        action = str(match.play(match.legal_actions()[0]))
        store.commit_move(record.id, record.version, None, action, match.to_json())
        assert store.moves(record.id)[0].seat is None
        assert store.replay(record.id).to_json() == match.to_json()

    def test_no_moves_in_the_lobby(self, store: Store) -> None:
        lobby = seated_lobby(store, "scopone", 4)
        with pytest.raises(WrongStatus, match="is lobby: it takes no moves"):
            store.commit_move(lobby.id, lobby.version, 0, "play AS", "{}")

    def test_the_last_move_finishes_the_match(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        version = play_and_commit(store, record, match, 3)
        seat = match.to_play
        action = str(match.play("stop", seat=seat))
        version = store.commit_move(
            record.id, version, seat, action, match.to_json(), status=STOPPED
        )
        stored = store.get_match(record.id)
        assert (stored.status, stored.version, stored.deadline) == (STOPPED, version, None)
        assert stored.finished_at is not None
        assert store.active_match_in_chat(record.chat_id) is None
        with pytest.raises(WrongStatus, match="is stopped: it takes no moves"):
            store.commit_move(record.id, version, 0, "play AS", "{}")
        assert store.replay(record.id).to_json() == stored.state_json

    def test_a_move_may_only_end_a_match(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        with pytest.raises(ValueError):
            store.commit_move(record.id, record.version, 0, "x", "{}", status=LOBBY)
        with pytest.raises(ValueError, match="results come with the move that finishes"):
            store.commit_move(record.id, record.version, 0, "x", "{}", results=[])


class TestStatus:
    def test_allowed_transitions(self, store: Store) -> None:
        lobby = store.create_match(-1, "scopone", {}, 1, "Anna", seed=1)
        assert store.set_status(lobby.id, STOPPED).status == STOPPED
        record, _ = started(store, "scopone", 4, chat_id=-2)
        finished = store.set_status(record.id, FINISHED, expected_version=record.version)
        assert (finished.status, finished.version) == (FINISHED, record.version + 1)
        assert finished.finished_at is not None

    def test_refused_transitions(self, store: Store) -> None:
        lobby = store.create_match(-1, "scopone", {}, 1, "Anna", seed=1)
        for status in (FINISHED, PLAYING, LOBBY):
            with pytest.raises(WrongStatus, match=f"cannot become {status}"):
                store.set_status(lobby.id, status)
        store.set_status(lobby.id, STOPPED)
        with pytest.raises(WrongStatus, match="is stopped"):
            store.set_status(lobby.id, FINISHED)

    def test_stale_status_change(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        with pytest.raises(StaleVersion):
            store.set_status(record.id, STOPPED, expected_version=record.version - 1)
        assert store.get_match(record.id).status == PLAYING

    def test_unfinished_matches_are_the_lobbies_and_the_games_in_play(self, store: Store) -> None:
        lobby = store.create_match(-1, "scopone", {}, 1, "Anna", seed=1)
        playing, match = started(store, "scala40", 2, chat_id=-2)
        play_and_commit(store, playing, match, 5)
        done, _ = started(store, "scopone", 4, chat_id=-3)
        store.set_status(done.id, FINISHED)
        cancelled = store.create_match(-4, "scopone", {}, 1, "Anna", seed=1)
        store.set_status(cancelled.id, STOPPED)
        unfinished = store.unfinished_matches()
        assert [r.id for r in unfinished] == [lobby.id, playing.id]
        assert unfinished == [store.get_match(lobby.id), store.get_match(playing.id)]
        assert unfinished[1].state_json == match.to_json()
        assert [s.name for s in unfinished[1].seats] == NAMES[:2]


class TestMessagesAndDeadlines:
    def test_message_ids_come_back_in_the_records(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        store.set_table_message(record.id, record.chat_id, 501)
        store.set_hand_message(record.id, 2, 702)
        store.set_turn_message(record.id, 2, user_of(2), 703)
        store.set_turn_message(record.id, 3, record.chat_id, 504)
        stored = store.get_match(record.id)
        assert (stored.table_chat_id, stored.table_message_id) == (record.chat_id, 501)
        assert [(s.hand_message_id, s.turn_chat_id, s.turn_message_id) for s in stored.seats] == [
            (None, None, None),
            (None, None, None),
            (702, user_of(2), 703),
            (None, record.chat_id, 504),
        ]
        assert stored.version == record.version  # message ids are not match state
        store.set_hand_message(record.id, 2, None)
        assert store.get_match(record.id).seats[2].hand_message_id is None
        with pytest.raises(SeatError, match="no seat 4"):
            store.set_hand_message(record.id, 4, 1)
        with pytest.raises(MatchNotFound):
            store.set_table_message(404, -1, 1)

    def test_deadlines_are_aware_utc(self, store: Store) -> None:
        record, _ = started(store, "scopone", 4)
        rome = timezone(timedelta(hours=2))
        when = datetime(2030, 5, 1, 12, 30, 15, 250000, tzinfo=rome)
        store.set_deadline(record.id, when, 1)
        stored = store.get_match(record.id)
        assert (stored.deadline, stored.deadline_seat) == (when, 1)
        assert stored.deadline is not None and stored.deadline.tzinfo == UTC
        assert stored.deadline.hour == 10
        with pytest.raises(ValueError, match="timezone-aware"):
            store.set_deadline(record.id, datetime(2030, 5, 1, 12, 30), 1)
        store.set_deadline(record.id, None)
        assert store.get_match(record.id).deadline is None

    def test_a_move_keeps_replaces_or_clears_the_deadline(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        first = datetime(2030, 1, 1, 10, 0, tzinfo=UTC)
        store.set_deadline(record.id, first, match.to_play)
        version = play_and_commit(store, record, match, 1)  # deadline kept by default
        assert store.get_match(record.id).deadline == first
        later = first + timedelta(minutes=2)
        seat = match.to_play
        action = str(match.play(match.legal_actions()[0], seat=seat))
        version = store.commit_move(
            record.id, version, seat, action, match.to_json(), deadline=later, deadline_seat=3
        )
        stored = store.get_match(record.id)
        assert (stored.deadline, stored.deadline_seat) == (later, 3)
        seat = match.to_play
        action = str(match.play(match.legal_actions()[0], seat=seat))
        store.commit_move(record.id, version, seat, action, match.to_json(), deadline=None)
        stored = store.get_match(record.id)
        assert (stored.deadline, stored.deadline_seat) == (None, None)


class TestTurnsAndConfirmations:
    def test_the_turn_a_bell_rings_for(self, store: Store) -> None:
        """The start and every move that starts a turn record its version; a seat's bell
        records the turn it rings for, and goes with it."""
        record, match = started(store, "scopone", 4)
        assert record.turn_version == record.version
        seat = match.to_play
        action = str(match.play(match.legal_actions()[0], seat=seat))
        version = store.commit_move(
            record.id, record.version, seat, action, match.to_json(), turn_starts=True
        )
        assert store.get_match(record.id).turn_version == version
        action = str(match.play(match.legal_actions()[0], seat=match.to_play))
        store.commit_move(record.id, version, None, action, match.to_json())
        assert store.get_match(record.id).turn_version == version  # kept
        store.set_turn_message(record.id, 1, 1002, 55, turn_version=version)
        bell = store.get_match(record.id).seats[1]
        assert (bell.turn_chat_id, bell.turn_message_id, bell.turn_version) == (1002, 55, version)
        store.set_turn_message(record.id, 1, None, None, turn_version=version)
        assert store.get_match(record.id).seats[1].turn_version is None

    def test_the_end_of_a_hand_shown_is_remembered(self, store: Store) -> None:
        """A new match has shown no hand's end (0); the summary of a hand is taken to be shown
        once (a second asker, or the same after a restart, is told no), its message kept; each
        seat's recap of a hand is remembered once shown."""
        record, _ = started(store, "scopone", 4)
        assert record.shown_hand == 0 and [s.recap_hand for s in record.seats] == [0] * 4
        assert record.summary_message_id is None
        assert store.show_hand_end(record.id, 1) is True
        assert store.show_hand_end(record.id, 1) is False
        store.set_summary_message(record.id, 77)
        store.set_recap_hand(record.id, 2, 1)
        stored = store.get_match(record.id)
        assert stored.shown_hand == 1 and [s.recap_hand for s in stored.seats] == [0, 0, 1, 0]
        assert stored.summary_message_id == 77
        assert store.show_hand_end(record.id, 2) is True  # the next hand's forgets the message
        assert store.get_match(record.id).summary_message_id is None

    def test_the_end_of_a_match_is_shown_once(self, store: Store) -> None:
        """An ended match whose end the group was not sent is unsettled until it is taken to
        be shown, once; a cancelled lobby (no state) never is."""
        record, _ = started(store, "scopone", 4)
        lobby = store.create_match(-555, "scopone", {}, 1, "Anna", seed=1)
        store.set_status(lobby.id, "stopped")
        assert store.ended_unsettled() == []  # playing, and a lobby with nothing to show
        store.set_status(record.id, "stopped")
        assert store.get_match(record.id).end_shown is False
        assert store.ended_unsettled() == [record.id]
        assert store.show_match_end(record.id) is True
        assert store.show_match_end(record.id) is False
        assert store.ended_unsettled() == []

    def test_a_question_is_answered_once(self, store: Store) -> None:
        asked = store.ask(-100, 7, "stop", match_id=3)
        question = store.confirmation(asked)
        assert question is not None
        assert (question.chat_id, question.user_id, question.kind, question.match_id) == (
            -100, 7, "stop", 3,
        )  # fmt: skip
        assert question.answered_at is None
        assert store.answer(asked) is True
        assert store.answer(asked) is False
        answered = store.confirmation(asked)
        assert answered is not None and answered.answered_at is not None
        assert store.confirmation(asked + 1) is None and store.answer(asked + 1) is False


def test_the_last_match_of_a_chat(store: Store) -> None:
    assert store.last_match_in_chat(-100) is None
    first = store.create_match(-100, "scopone", {}, 1, "Anna", seed=1)
    store.set_status(first.id, STOPPED)
    second = store.create_match(-100, "scopone", {}, 1, "Anna", seed=2)
    store.create_match(-200, "scopone", {}, 1, "Anna", seed=3)
    last = store.last_match_in_chat(-100)
    assert last is not None and (last.id, last.seed) == (second.id, 2)
