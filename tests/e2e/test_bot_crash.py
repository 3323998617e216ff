"""End to end: the bot killed (SIGKILL) at random points while a Scala 40 and a Scopone match
are played, 30 times, then started once more.

Counted and asserted: acknowledged moves lost (0: each press the bot answered as a move is in
the log, and the log replays to the stored snapshot), moves applied more often than pressed
(0), turn bells missing or stale after the last resume (0), requests Telegram refused (0:
no "message is not modified", no "message to delete not found", no flood limit).

One race no bot can close is counted apart: Telegram has taken a message (or a deletion) and
the process dies before it stores so (:mod:`kill_races`). The counts are printed (``-s``).
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from engine import scala40, scopone
from storage import Store
from testkit.bot_harness import running_bot, seat_people, settle, store_started_match
from testkit.bot_players import Table
from testkit.fake_telegram import FakeTelegramServer
from testkit.kill_races import raced, sent_id
from testkit.processes import start_bot

KILLS = 30
SCALA, SCOPA = -100710, -100720
SCALA_PEOPLE = [(1101, "Anna", "it"), (1102, "Luca", "en")]
SCOPA_PEOPLE = [
    (1201, "Bea", "it"),
    (1202, "Ciro", "it"),
    (1203, "Dora", "en"),
    (1204, "Ezio", "it"),
]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def bells(server: FakeTelegramServer, user: int) -> list[int]:
    """The ids of the turn bells a player's chat shows."""
    return [m.message_id for m in server.messages(user, from_bot=True) if m.text.startswith("🔔")]


def answered_before_a_kill(server: FakeTelegramServer, kills: list[float], late: Any) -> bool:
    """Whether a refused answer is to a press answered already, before a kill: the process
    died before it told Telegram it had the update, so it came again to the next one."""
    query = late.params.get("callback_query_id")
    for call in server.calls_of("answerCallbackQuery", ok=True):
        if call.params.get("callback_query_id") == query and call.finished is not None:
            return any(call.finished <= kill <= late.started for kill in kills)
    return False


@pytest.mark.slow
async def test_killed_at_random_points_nothing_is_lost(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    database = tmp_path / "crash.db"
    seat_people(server, SCALA, "Scala", SCALA_PEOPLE)
    seat_people(server, SCOPA, "Scopa", SCOPA_PEOPLE)
    scala = store_started_match(
        database, SCALA, "Scala", SCALA_PEOPLE, "scala40",
        scala40.new_match(players=2, seed=7).to_json(), scala40.Options().to_dict(),
    )  # fmt: skip
    scopa = store_started_match(
        database, SCOPA, "Scopa", SCOPA_PEOPLE, "scopone",
        scopone.new_match(seed=7).to_json(), scopone.Options().to_dict(),
    )  # fmt: skip
    rng = random.Random(16)
    store = Store.open(f"sqlite:///{database}")
    tables = [Table(server, store, scala, rng), Table(server, store, scopa, rng)]
    loop = asyncio.get_running_loop()
    kills: list[float] = []
    races = {"bells": 0, "deletions": 0, "presses": 0}
    try:
        with (tmp_path / "bot.log").open("wb") as log:
            for _ in range(KILLS):
                process = await start_bot(server, database, log)
                until = loop.time() + rng.uniform(0.2, 1.2)
                await asyncio.gather(*(table.play(until) for table in tables))
                process.send_signal(signal.SIGKILL)
                kills.append(time.monotonic())
                process.wait()
        said = (tmp_path / "bot.log").read_text(errors="replace")
        async with running_bot(server, database, strict=False) as service:  # the last start
            await settle(server, service)
            for table in tables:
                record = service.store.get_match(table.match_id)
                log_length = len(service.store.moves(table.match_id))
                assert max(table.acknowledged, default=0) <= log_length  # none lost
                assert len(table.acknowledged) <= log_length <= table.presses  # none twice
                assert service.store.replay(table.match_id).to_json() == record.state_json
                match = service.engine(record)
                for seat in record.seats:
                    user = seat.user_id or 0
                    wanted = match.to_play == seat.seat and record.status == "playing"
                    assert seat.turn_message_id is not None if wanted else True, seat  # missing
                    for bell in bells(server, user):
                        if bell != seat.turn_message_id or not wanted:
                            assert raced(server, kills, said, "sendMessage", user, bell), (
                                seat,
                                bell,
                            )
                            races["bells"] += 1
                    assert (seat.turn_message_id in bells(server, user)) == wanted, seat
            assert sum(len(t.acknowledged) for t in tables) > 60
    finally:
        store.close()
    refused = []
    for call in server.calls:
        if not call.done or call.ok or call.status == 403 or call.method == "getUpdates":
            continue
        chat, message = call.params.get("chat_id"), call.params.get("message_id")
        gone = call.method == "deleteMessage" and "not found" in (call.error or "")
        if gone and raced(server, kills, said, "deleteMessage", chat, message):
            races["deletions"] += 1
        elif call.method == "answerCallbackQuery" and answered_before_a_kill(server, kills, call):
            races["presses"] += 1
        else:
            refused.append(call.summary())
            refused.append(history(server, kills, chat, message))
    assert refused == []
    acknowledged = sum(len(t.acknowledged) for t in tables)
    print(
        f"{KILLS} kills: {acknowledged} acknowledged moves, 0 lost, 0 applied twice; bells"
        f" missing 0, stale 0; refused requests 0; races at a kill: {races}"
    )


def history(server: FakeTelegramServer, kills: list[float], chat: object, message: object) -> str:
    """What the bot asked of a refused request's message before it, and when the kills came:
    the story a failure needs told."""
    asked = [
        f"#{call.seq} {call.method} at {call.started:.2f} ok={call.ok}"
        for call in server.calls
        if call.params.get("chat_id") == chat
        and message in (call.params.get("message_id"), sent_id(call))
    ]
    return f"message {chat}/{message}: {asked}; kills at {[round(k, 2) for k in kills]}"
