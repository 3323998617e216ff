"""End to end: three bot processes on one PostgreSQL, in webhook mode behind a dispatcher that
sends each update to a random instance; one is killed (SIGKILL) mid-match.

Played meanwhile: a Scala 40 match by two people who press as fast as their hands let them; a
Scopone match of two computers and two people who never press, so that their turns run out
(2-second turns); full Scopone lobbies that two people try to join at the same moment.

Asserted: 0 moves lost (every press answered as a move is in the log), 0 applied twice (no press
grew the log by two, the log holds no more moves than move presses and replays to the stored
snapshot), 0 lobbies over capacity, every turn that ran out timed out once (each person three
times, then the bot plays their seat) and no later than a dead instance's lease allows, each
turn reminded at most once, the computers played on after the kill, every press answered
(but those handed to the killed instance just before the kill: it took them, and died), and 0
requests Telegram refused (no bell deleted twice, no edit "not modified", no message edited
after it was gone, no flood limit), but a deletion the killed instance made and died before
storing (:mod:`kill_races`).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import pytest

from bot import callbacks
from bot.callbacks import LobbyOp
from bot.work import LEASE
from engine import scala40, scopone
from engine.scopone.match import AUTOPLAY_LIMIT
from storage import MatchRecord, MoveRecord, Store
from testkit.bot_harness import seat_people, store_started_match
from testkit.bot_players import Table
from testkit.dispatcher import Dispatcher, free_ports, listening, start_instances
from testkit.fake_telegram import FakeTelegramServer
from testkit.fake_telegram.webhook import SECRET_HEADER
from testkit.kill_races import raced
from testkit.storage_helpers import scratch_schema

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
INSTANCES = 3
RACE = 0.5
"""Seconds before the kill within which an update handed to the killed instance may be lost:
python-telegram-bot answers the webhook before it handles the update."""
TURN = 2
SCALA, SCOPA = -100910, -100920
SCALA_PEOPLE = [(1301, "Anna", "it"), (1302, "Luca", "en")]
SCOPA_PEOPLE = [(1401, "Bea", "it"), (1402, "Ciro", "en")]
LOBBIES = [-100930 - number for number in range(4)]
LOBBY_PEOPLE = [(1501 + number, f"P{number}", "it") for number in range(5)]
REMINDER = ("⏰ Metà del tempo", "⏰ Half your time")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)"),
]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


@contextmanager
def instances(
    server: FakeTelegramServer, url: str, dispatcher: Dispatcher, log_path: Path
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """The bot processes, each with a webhook server on the port the dispatcher knows it by;
    killed at the end."""
    with log_path.open("wb") as log:
        processes = start_instances(
            server.base_url, server.token, url, dispatcher, log, COMPUTER_PAUSE="0.2", DUE_POLL="1"
        )
        try:
            yield processes
        finally:
            for process in processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                process.wait()


def reminders(server: FakeTelegramServer, user: int) -> int:
    """How many half-time reminders the player got."""
    return sum(1 for m in server.messages(user, from_bot=True) if m.text.startswith(REMINDER))


async def forged(port: int, secret: str | None) -> int:
    """Post a forged update (someone's ``/nuova`` in a lobby's group) straight to an
    instance's webhook, without the secret or with a wrong one; the HTTP status."""
    update = {
        "update_id": 1,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": LOBBIES[0], "type": "supergroup", "title": "Lobby"},
            "from": {"id": LOBBY_PEOPLE[0][0], "is_bot": False, "first_name": "P0"},
            "text": "/nuova scopone",
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }
    headers = {} if secret is None else {SECRET_HEADER: secret}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/hook", json=update, headers=headers) as response,
    ):
        return response.status


def store_lobby(url: str, chat_id: int) -> int:
    """A Scopone lobby with three seated: P0 (its host), P1, P2."""
    store = Store.open(url)
    try:
        for user, name, lang in LOBBY_PEOPLE:
            store.upsert_user(user, name, lang)
            store.set_private_chat(user, True)
        store.set_chat_title(chat_id, "Lobby")
        (host, host_name, _), *others = LOBBY_PEOPLE[:3]
        record = store.create_match(chat_id, "scopone", {}, host, host_name, seed=3)
        for user, name, _ in others:
            record = store.add_seat(record.id, user, name)
        return record.id
    finally:
        store.close()


async def join_together(server: FakeTelegramServer, store: Store, match_id: int) -> list[str]:
    """P3 and P4 press «Partecipa» on the lobby at the same moment; their answers."""
    record = store.get_match(match_id)
    chat, message = record.chat_id, record.table_message_id
    assert message is not None
    data = callbacks.lobby(match_id, record.version, LobbyOp.JOIN)
    presses = [server.user(user).press(chat, message, data) for user, _, _ in LOBBY_PEOPLE[3:]]
    return [str((await press.answered(timeout=20))["text"]) for press in presses]


def at_one_version(store: Store, match_id: int) -> tuple[MatchRecord, list[MoveRecord], str]:
    """The match, its log and the log replayed, read at one version (the computers and the
    timeouts play on meanwhile)."""
    while True:
        record, moves, replayed = (
            store.get_match(match_id),
            store.moves(match_id),
            store.replay(match_id).to_json(),
        )
        if store.get_match(match_id).version == record.version:  # no move in between
            return record, moves, replayed


async def test_three_instances_behind_webhooks_lose_and_double_nothing(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    dispatcher = Dispatcher(free_ports(INSTANCES))
    await dispatcher.start()
    with scratch_schema(PG_URL) as url:
        seat_people(server, SCALA, "Scala", SCALA_PEOPLE)
        seat_people(server, SCOPA, "Scopa", SCOPA_PEOPLE)
        seat_people(server, LOBBIES[0], "Lobby", LOBBY_PEOPLE)
        for chat in LOBBIES[1:]:
            server.add_group(chat, "Lobby", members=[p[0] for p in LOBBY_PEOPLE])
        scala = store_started_match(
            url, SCALA, "Scala", SCALA_PEOPLE, "scala40",
            scala40.new_match(players=2, seed=7).to_json(), scala40.Options().to_dict(),
        )  # fmt: skip
        timed = scopone.Options(turn_seconds=TURN)
        scopa = store_started_match(
            url, SCOPA, "Scopa", SCOPA_PEOPLE, "scopone",
            scopone.new_match(seed=7, options=timed).to_json(), timed.to_dict(), computers=2,
        )  # fmt: skip
        lobbies = [store_lobby(url, chat) for chat in LOBBIES]
        store = Store.open(url)
        try:
            with instances(server, url, dispatcher, tmp_path / "bots.log") as processes:
                await server.wait_for(
                    lambda: all(store.get_match(m).table_message_id for m in lobbies),
                    timeout=60,
                    message="the instances never showed the lobbies",
                )
                for port in dispatcher.ports:
                    await listening(port)
                assert await forged(dispatcher.ports[0], None) == 403
                assert await forged(dispatcher.ports[0], "guessed") == 403
                answers = [await join_together(server, store, m) for m in lobbies]
                table = Table(server, store, scala, random.Random(5))
                await play_at_least(table, 8, moves=5)
                before_kill = len(table.acknowledged)
                victim = 1
                processes[victim].send_signal(signal.SIGKILL)
                processes[victim].wait()
                killed_at = time.monotonic()
                dispatcher.down.add(victim)
                await play_at_least(table, LEASE.total_seconds() + 6, moves=before_kill + 5)
                await server.wait_for(
                    lambda: not server.webhook.busy and not server.pending_updates(),
                    timeout=30,
                    message="updates still wait for an instance",
                )
                # Every press answered (but those the killed instance died with), no request
                # to Telegram still in flight: the last moves' answers and edits are in.
                await server.wait_for(
                    lambda: (
                        not unanswered(server, dispatcher, victim, killed_at)
                        and all(call.done for call in server.calls)
                    ),
                    timeout=30,
                    message="presses still unanswered, or requests still in flight",
                )
                # ---- the forged /nuova was refused: the group got no answer -------------------
                said_in_lobby = [m.text for m in server.messages(LOBBIES[0], from_bot=True)]
                assert not [text for text in said_in_lobby if text.startswith("C'è già")]
                # ---- lobbies: never over capacity; each press answered -----------------------
                for match_id, said in zip(lobbies, answers, strict=True):
                    assert len(store.get_match(match_id).seats) == 4
                    assert sorted(said) == ["Il tavolo è al completo.", "Sei al tavolo!"], said
                # ---- Scala 40: nothing lost, nothing twice ----------------------------------
                record = store.get_match(scala)
                log_length = len(store.moves(scala))
                # It kept going after the kill (how fast depends on the machine's load: 9 to 50
                # moves before it and after it in our runs, at least 5 waited for; a stall
                # leaves a player stuck).
                after_kill = len(table.acknowledged) - before_kill
                assert before_kill >= 5 and after_kill >= 5, (before_kill, after_kill)
                assert max(table.acknowledged) <= log_length <= table.move_presses
                assert max(table.grew) == 1  # no press moved twice
                assert store.replay(scala).to_json() == record.state_json
                # ---- Scopone: every turn ran out once, computers played on -----------------
                scopa_record, moves, replayed = at_one_version(store, scopa)
                assert replayed == scopa_record.state_json
                timeouts = [m for m in moves if m.seat in (0, 1) and "timeout" in m.action]
                kill_time = datetime.now(UTC) - timedelta(seconds=time.monotonic() - killed_at)
                assert [m for m in timeouts if m.at > kill_time], "no timeout after the kill"
                computer = [m for m in moves if m.seat in (2, 3) and m.at > kill_time]
                # Unless the people's last timeout after the kill abandoned the match's last
                # person: then it ended at once (SC-6.4), and nobody plays on.
                ended = scopa_record.status == "finished"
                assert computer or ended, "the computers stopped with the killed instance"
                if scopa_record.status == "playing" and scopa_record.deadline is not None:
                    overdue = datetime.now(UTC) - scopa_record.deadline
                    assert overdue < LEASE + timedelta(seconds=3), overdue
                for seat, (user, _, _) in enumerate(SCOPA_PEOPLE):
                    expired = sum(1 for m in timeouts if m.seat == seat)
                    assert expired == AUTOPLAY_LIMIT, (user, expired)  # then the bot plays
                    assert reminders(server, user) <= expired, (user, expired)
        finally:
            store.close()
            await dispatcher.stop()
    # ---- every press answered, but those the killed instance took and died with -------------
    assert unanswered(server, dispatcher, victim, killed_at) == []
    # ---- no request refused, but a deletion the killed instance made and did not store -----
    said = (tmp_path / "bots.log").read_text(errors="replace")
    refused, deletions = [], 0
    for call in server.calls:
        if not call.done or call.ok or call.method == "getUpdates":
            continue
        chat, message = call.params.get("chat_id"), call.params.get("message_id")
        gone = call.method == "deleteMessage" and "not found" in (call.error or "")
        if gone and raced(server, [killed_at], said, "deleteMessage", chat, message):
            deletions += 1
        else:
            refused.append(call.summary())
    assert refused == []
    print(
        f"{INSTANCES} instances, one killed: {len(table.acknowledged)} acknowledged Scala 40 "
        f"moves ({before_kill} before the kill), 0 lost, 0 twice; {len(timeouts)} Scopone "
        f"timeouts; requests refused 0, deletions raced at the kill {deletions}; "
        f"answers {Counter(str((r.answer or {}).get('text')) for r in server.callbacks.values())}"
    )


async def play_at_least(table: Table, seconds: float, moves: int) -> None:
    """Play for ``seconds``, then on until ``moves`` are acknowledged (a loaded machine plays
    slower; a stuck match fails after a minute)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    await table.play(start + seconds)
    while len(table.acknowledged) < moves and loop.time() < start + 60:
        await table.play(loop.time() + 1)


def unanswered(
    server: FakeTelegramServer, dispatcher: Dispatcher, victim: int, killed_at: float
) -> list[tuple[str, str]]:
    """The presses nobody answered, but those the killed instance took just before it died."""
    lost = []
    for query_id, record in server.callbacks.items():
        if record.answer is not None:
            continue
        taken = [f for f in dispatcher.log if f.query_id == query_id and f.status == 200]
        killed = any(f.instance == victim and 0 <= killed_at - f.at <= RACE for f in taken)
        if not killed:
            lost.append((query_id, record.data))
    return lost
