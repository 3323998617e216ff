"""End to end: turn timers on an injected clock (docs/rules.md S40-14.3); nothing waits for real."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from engine.scala40 import Options
from storage import ANONYMOUS
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.manual_scheduler import ManualScheduler
from testkit.s40_helpers import position

GROUP, ANNA, LUCA = -100970, 1001, 1002


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def stored_match(database: Path, options: Options) -> int:
    match = position(
        list(RIGGED_HANDS),
        options=options,
        discard="KD",
        stock_top="AC AD 2H 3H 4C",
        to_play=1,
    )
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
    return store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(), options.to_dict()
    )


def people(server: FakeTelegramServer) -> None:
    seat_people(server, GROUP, "Circolo", [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")])


async def test_reminder_autoplay_and_restart(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A reminder at half time; at the deadline the engine autoplays (draw, discard the drawn
    card); the next player's deadline survives a restart and fires on the new process."""
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=120))
    clock = ManualScheduler()
    async with running_bot(server, database, clock) as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        assert record.deadline == clock.now() + timedelta(seconds=120)
        assert record.deadline_seat == 1
        table_id = service.store.get_match(match_id).table_message_id or 0
        table = server.message(GROUP, table_id)
        assert table is not None and table.text.splitlines()[-2] == "Tocca a Luca · ⏳ max 2 min"
        await clock.advance(60)
        await settle(server, service)
        assert server.last_message(LUCA, from_bot=True).text == (  # type: ignore[union-attr]
            "⏰ Half your time is gone: 60 seconds left in Circolo."
        )  # and the table's time left, an upper bound between edits, halves with it
        table = server.message(GROUP, table_id)
        assert table is not None and table.text.splitlines()[-2] == "Tocca a Luca · ⏳ max 60 s"
        await clock.advance(60)
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["timeout"]
        table = server.message(GROUP, service.store.get_match(match_id).table_message_id or 0)
        assert table is not None and table.text.splitlines()[-3:] == [
            "Tocca ad Anna · ⏳ max 2 min",
            "· ⏰ Luca: tempo scaduto",  # his draw is left out
            "· Luca scarta A♣",
        ]
        notice = server.last_message(LUCA, from_bot=True)
        assert notice is not None
        assert notice.text == "⏰ Time ran out in Circolo: I played for you."
        bell = server.last_message(ANNA, from_bot=True)
        assert bell is not None and bell.text.startswith("🔔 Tocca a te in Circolo! ⏳ max 2 min")
        assert service.store.get_match(match_id).deadline_seat == 0
    # A new process: the stored deadline is armed again, on a clock that went on meanwhile.
    later = ManualScheduler(clock.now() + timedelta(seconds=30))
    async with running_bot(server, database, later) as service:
        await settle(server, service)
        assert later.due(f"timeout:{match_id}") == clock.now() + timedelta(seconds=120)
        await later.advance(90)
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["timeout", "timeout"]


async def test_the_hand_shows_the_time_left_again_at_the_reminder(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The player to play reads the time left in the hand's header, an upper bound rendered
    again at the reminder (not every second); a player waiting reads none."""
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=120))
    clock = ManualScheduler()
    async with running_bot(server, database, clock) as service:

        def header(user: int) -> str:
            record = service.store.get_match(match_id)
            seat = record.seat_of(user)
            assert seat is not None
            hand = server.message(user, record.seats[seat].hand_message_id or 0)
            assert hand is not None
            return hand.text.splitlines()[1]

        await settle(server, service)
        assert header(LUCA) == "Hand 1 · out at 101 · ⏳ up to 2 min"
        assert header(ANNA) == "Mano 1 · si esce a 101"
        await clock.advance(60)
        await settle(server, service)
        assert header(LUCA) == "Hand 1 · out at 101 · ⏳ up to 60 s"
        await clock.advance(60)  # his time runs out: Anna's turn
        await settle(server, service)
        assert header(LUCA) == "Hand 1 · out at 101"
        assert header(ANNA) == "Mano 1 · si esce a 101 · ⏳ max 2 min"
        await clock.advance(60)
        await settle(server, service)
        assert header(ANNA) == "Mano 1 · si esce a 101 · ⏳ max 60 s"


async def test_three_autoplays_in_a_row_are_an_abandonment(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """S40-14.3: the third consecutive autoplay of a seat counts as abandonment: Luca loses."""
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=60))
    clock = ManualScheduler()
    async with running_bot(server, database, clock) as service:
        await settle(server, service)
        for _ in range(5):  # Luca, Anna, Luca, Anna, Luca: his third
            await clock.advance(60)
            await settle(server, service)
        record = service.store.get_match(match_id)
        assert [m.action for m in service.store.moves(match_id)] == ["timeout"] * 5
        assert record.status == "finished" and record.deadline is None
        assert clock.due(f"timeout:{match_id}") is None
        board = {e.name: (e.vp, e.won) for e in service.store.leaderboard(GROUP, "scala40")}
        assert board == {"Anna": (20, 1), "Luca": (0, 0)}


async def test_forfeit_policy(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    """S40-14.3 ``forfeit``: the first expiry is an abandonment."""
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=30, timeout_policy="forfeit"))
    clock = ManualScheduler()
    async with running_bot(server, database, clock) as service:
        await settle(server, service)
        await clock.advance(30)
        await settle(server, service)
        assert service.store.get_match(match_id).status == "finished"
        ranking = server.last_message(GROUP, from_bot=True)
        assert ranking is not None and ranking.text.startswith("🏆 Partita finita! Vince Anna.")
        notice = server.last_message(LUCA, from_bot=True)
        assert notice is not None
        assert notice.text == "⏰ Time ran out in Circolo: you are out of the match."


async def test_no_timer_when_turn_seconds_is_zero(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=0))
    clock = ManualScheduler()
    async with running_bot(server, database, clock) as service:
        await settle(server, service)
        assert service.store.get_match(match_id).deadline is None
        assert clock.jobs == {}


async def test_an_erased_players_seat_plays_on_by_the_timer(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Luca erases his data during his turn: his seat stays, anonymous; at the deadline the
    engine plays it (autoplay) and the turn passes to Anna; nothing more goes to Luca."""
    server = fake_telegram
    people(server)
    database = tmp_path / "t.db"
    match_id = stored_match(database, Options(turn_seconds=120))
    clock = ManualScheduler()
    luca = server.user(LUCA)
    async with running_bot(server, database, clock) as service:
        await settle(server, service)
        luca.send(LUCA, "/deletemydata")
        await settle(server, service)
        question = server.last_message(LUCA, from_bot=True)
        assert question is not None
        await luca.press(LUCA, question.message_id, button_data(question, "✅ Yes")).answered()
        await settle(server, service)
        told = server.last_message(LUCA, from_bot=True)
        record = service.store.get_match(match_id)
        assert (record.seats[1].user_id, record.seats[1].name) == (None, ANONYMOUS)
        await clock.advance(120)
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["timeout"]
        assert service.store.get_match(match_id).deadline_seat == 0
        assert server.last_message(LUCA, from_bot=True) == told
