"""End to end: tournaments (issue 27) through the fake Bot API with its limits on: people
register with buttons, the organiser sets the rules and starts it, each round's tables are
played in the players' private chats (the group shows only the board), the next round is
paired as the last table of a round ends, and the end posts the final standings; a restart in
the middle of a round carries on without pairing anything twice; computer players play a
knock-out of 8 and a Danish tournament of 6 over 3 rounds at full speed."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import create_engine, text

from bot import rounds, tournaments
from bot.service import Tavolo
from engine import scala40
from engine.games import game
from engine.ratings import SCALA40_PAIRS
from storage import PairingRecord, Store, TournamentRecord
from testkit.bot_harness import (
    another_instance,
    button_data,
    hand_of,
    keyboard_data,
    running_bot,
    say,
    seat_people,
    settle,
    tap,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser
from testkit.manual_scheduler import ManualScheduler
from testkit.processes import start_bot
from testkit.s40_helpers import position
from testkit.storage_helpers import scratch_schema

GROUP = -100880
ANNA, BEA, CARLO, DORA = 1881, 1882, 1883, 1884
PEOPLE = [(ANNA, "Anna", "it"), (BEA, "Bea", "it"), (CARLO, "Carlo", "it"), (DORA, "Dora", "it")]
ORDER = [ANNA, BEA, CARLO, DORA]
"""Who beats whom in the round robin: the earlier in this list (the later one abandons)."""
NAMES = {user: name for user, name, _ in PEOPLE}


@pytest.fixture(autouse=True)
def _seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    seeds = iter(range(100, 10_000))
    monkeypatch.setattr("bot.rounds.secure_seed", lambda: next(seeds))


def _tournament(service: Tavolo) -> TournamentRecord:
    found = service.store.current_tournament(GROUP) or service.store.tournaments_in_chat(GROUP)[0]
    return service.store.get_tournament(found.id)


def _board(server: FakeTelegramServer, service: Tavolo) -> FakeMessage:
    record = _tournament(service)
    message = server.message(GROUP, record.message_id or 0)
    assert message is not None
    return message


async def _short_matches(
    server: FakeTelegramServer, service: Tavolo, organiser: FakeUser, board: FakeMessage
) -> FakeMessage:
    """The organiser sets the matches to one hand each, on the options panel."""
    _, panel = await tap(server, service, organiser, board, "⚙️ Opzioni")
    assert panel.text.splitlines()[1] == "⚙️ Opzioni di Scala 40"
    _, panel = await tap(server, service, organiser, panel, "Formato: a punti")
    for label in ("Smazzate: 3", "Smazzate: 5", "Smazzate: 7"):
        _, panel = await tap(server, service, organiser, panel, label)
    assert "Smazzate: 1" in keyboard_data(panel)
    _, board = await tap(server, service, organiser, panel, "⬅️ Indietro")
    return board


async def _abandon(server: FakeTelegramServer, service: Tavolo, user: FakeUser) -> None:
    """``user`` abandons the match they play, with /abbandona and its yes button."""
    user.send(user.id, "/abbandona")
    await settle(server, service)
    question = server.last_message(user.id, from_bot=True)
    assert question is not None and question.text.startswith("Abbandonare la partita in Circolo")
    answer = await user.press(
        user.id, question.message_id, button_data(question, "✅ Sì")
    ).answered()
    assert answer["text"] == "Hai abbandonato la partita."
    await settle(server, service)


async def _play_round(
    server: FakeTelegramServer, service: Tavolo, users: dict[int, FakeUser]
) -> None:
    """Each table of the current round ends: its later player in :data:`ORDER` abandons."""
    record = _tournament(service)
    for table in [p for p in record.tables if p.round == record.round and p.result is None]:
        assert table.match_id is not None
        match = service.store.get_match(table.match_id)
        people = [seat.user_id for seat in match.seats if seat.user_id is not None]
        loser = max(people, key=ORDER.index)
        await _abandon(server, service, users[loser])


def _rigged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Scala 40 table starts where its first player has drawn and holds 5♦ alone, with
    two melds down: discarding it closes the hand (and the one-hand match); the other player
    never laid down and pays for 2♣ 3♣ 4♣ 9♠ 10♠ K♦."""
    real = rounds.game

    class Rigged:
        def __init__(self, spec: Any) -> None:
            self.spec = spec

        def new_match(self, players: int, seed: int, options: dict[str, Any]) -> Any:
            return position(
                ["5D", "2C 3C 4C 9S 10S KD"],
                options=scala40.Options.from_dict(options),
                seed=seed,
                melds=[(0, "7H 8H 9H"), (0, "JS QS KS")],
                discard="KH",
                opened=[True, False],
                turns_done=[3, 3],
                to_play=0,
                dealer=1,
                phase="play",
            )

        def __getattr__(self, name: str) -> Any:
            return getattr(self.spec, name)

    monkeypatch.setattr(rounds, "game", lambda name: Rigged(real(name)))


async def _close_round(
    server: FakeTelegramServer, service: Tavolo, users: dict[int, FakeUser]
) -> None:
    """Each table of the current round: its first player taps 5♦, then its discard."""
    record = _tournament(service)
    for table in [p for p in record.tables if p.round == record.round]:
        match = service.store.get_match(table.match_id or 0)
        first = match.seats[0].user_id or 0
        for label in ("5♦", "🗑 Scarta 5♦"):
            await tap(
                server, service, users[first], hand_of(server, service, match.id, first), label
            )
        assert service.store.get_match(match.id).status == "finished"


def _won(service: Tavolo, match_id: int | None, user: int) -> int:
    """Whether ``user`` won the match (VP 20 there), from its own outcome."""
    match = service.store.get_match(match_id or 0)
    seat = match.seat_of(user)
    outcome = service.engine(match).outcome
    return int(seat is not None and outcome is not None and outcome.vp[seat] == 20)


def _vp_from_matches(service: Tavolo, record: TournamentRecord) -> dict[int, tuple[int, int]]:
    """Each person's VP and MP, summed from the stored matches' own outcomes (not from the
    tournament's tables): what the board must say."""
    totals = dict.fromkeys(ORDER, (0, 0))
    for table in record.tables:
        assert table.match_id is not None
        match = service.store.get_match(table.match_id)
        outcome = service.engine(match).outcome
        assert outcome is not None
        for seat in match.seats:
            assert seat.user_id is not None
            vp, mp = totals[seat.user_id]
            totals[seat.user_id] = (vp + outcome.vp[seat.seat], mp + outcome.mp[seat.seat])
    return totals


def _four_people(server: FakeTelegramServer, database: Path) -> dict[int, FakeUser]:
    """Anna (an admin), Bea, Carlo and Dora in the group; they opened the private chat."""
    people = seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ANNA,))
    with Store.open(f"sqlite:///{database}") as store:
        for user, _, _ in PEOPLE:
            store.set_private_chat(user, True)
    return {person.id: person for person in people}


async def _four_entered(
    server: FakeTelegramServer, service: Tavolo, users: dict[int, FakeUser], short: bool = False
) -> None:
    """Anna opens a round robin, Bea, Carlo and Dora enter, and Anna starts it (``short``:
    after setting one-hand matches)."""
    anna = users[ANNA]
    registration = await say(server, service, anna, GROUP, "/torneo")
    for user in (users[BEA], users[CARLO], users[DORA]):
        _, registration = await tap(server, service, user, registration, "✋ Mi iscrivo")
    if short:
        registration = await _short_matches(server, service, anna, registration)
    await tap(server, service, anna, registration, "▶️ Inizia")


def _anna_alone(server: FakeTelegramServer, database: Path) -> FakeUser:
    """Anna, an admin, alone with the bot in the group; she opened the private chat."""
    (anna,) = seat_people(server, GROUP, "Circolo", PEOPLE[:1], admins=(ANNA,))
    with Store.open(f"sqlite:///{database}") as store:
        store.set_private_chat(ANNA, True)
    return anna


async def test_a_round_robin_played_by_people(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four people register with buttons, the organiser sets one-hand matches and starts;
    each round every table is played in private to its end (its first player closes the
    hand); the board and the final standings equal what the matches' own outcomes add up to,
    and the group sees only the board, a pointer and the final standings."""
    _rigged(monkeypatch)
    server, database = fake_telegram, tmp_path / "robin.db"
    users = _four_people(server, database)
    anna, bea, carlo, dora = users.values()
    async with running_bot(server, database) as service:
        registration = await say(server, service, anna, GROUP, "/torneo")
        assert registration.text.splitlines() == [
            "🏆 Torneo di Scala 40",
            "🔁 girone all'italiana · tavoli da 2",
            "⏳ Ogni turno del torneo dura al massimo 1 giorno",
            "⚙️ Opzioni delle partite: predefinite",
            "Organizzato da Anna",
            "👥 Iscritti: 1",
            "1. Anna",
            "Tocca ✋ Mi iscrivo per partecipare. Le partite si giocano in privato con me: "
            "ognuno ha lì le sue carte e il tavolo; qui nel gruppo resta il tabellone.",
        ]
        for user in (bea, carlo, dora):
            answer, registration = await tap(server, service, user, registration, "✋ Mi iscrivo")
            assert answer["text"] == "Sei nel torneo!"
        answer, _ = await tap(server, service, bea, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei già nel torneo."
        answer, _ = await tap(server, service, bea, registration, "▶️ Inizia")
        assert answer["text"] == "Solo chi organizza il torneo, o un amministratore, può farlo."
        again = await say(server, service, bea, GROUP, "/torneo")
        assert again.text == "C'è già un torneo in questo gruppo: eccolo."
        assert again.reply_to is not None
        assert again.reply_to.message_id == registration.message_id
        registration = await _short_matches(server, service, anna, registration)
        assert (
            "⚙️ Opzioni delle partite: Formato a smazzate, Smazzate 1"
            in registration.text.splitlines()
        )
        assert registration.text.splitlines()[5:10] == [
            "👥 Iscritti: 4",
            "1. Anna",
            "2. Bea",
            "3. Carlo",
            "4. Dora",
        ]
        group_before = len(server.messages(GROUP, from_bot=True))
        await tap(server, service, anna, registration, "▶️ Inizia")

        # Round 1 (Berger: 1-4, 2-3): each player is told privately, with the hand below.
        record = _tournament(service)
        assert record.status == "running" and record.round == 1
        assert [table.entries for table in record.tables] == [(1, 4), (2, 3)]
        notice = server.messages(DORA, from_bot=True)[-2]
        assert notice.text == (
            "🏆 Torneo di Scala 40 in Circolo, turno 1: al tavolo 1 giochi contro Anna. "
            "Le tue carte arrivano qui sotto."
        )
        hand = server.messages(DORA, from_bot=True)[-1]
        assert hand.text.startswith("🃏 Scala 40 · Circolo")
        board = _board(server, service)
        assert board.text.splitlines()[:3] == [
            "🏆 Torneo di Scala 40",
            "🔁 girone all'italiana · tavoli da 2",
            "Turno 1 di 3",
        ]
        assert board.text.splitlines()[-3:] == [
            "Tavoli del turno 1",
            "🪑 1. Anna – Dora · in corso",
            "🪑 2. Bea – Carlo · in corso",
        ]

        for _ in range(3):  # each table's first player closes the hand: two taps
            await _close_round(server, service, users)

        record = _tournament(service)
        assert record.status == "finished"
        totals = _vp_from_matches(service, record)
        won = {user: sum(_won(service, t.match_id, user) for t in record.tables) for user in ORDER}
        lines = {
            f"{NAMES[user]} · VP {totals[user][0]} · MP {totals[user][1]} · "
            f"partite 3, vinte {won[user]}": user
            for user in ORDER
        }
        board = _board(server, service)
        shown = board.text.splitlines()[-4:]
        assert sorted(line.split(". ", 1)[1] for line in shown) == sorted(lines)
        ranked = [lines[line.split(". ", 1)[1]] for line in shown]
        assert [line.split(". ", 1)[0] for line in shown] == ["1", "2", "3", "4"]
        keys = [totals[user] for user in ranked]
        assert keys == sorted(keys, reverse=True)  # VP, then MP (T-3.3)
        champion = f"🥇 Vince {NAMES[ranked[0]]}!"
        final = server.last_message(GROUP, from_bot=True)
        assert final is not None
        assert final.text.splitlines() == ["🏆 Torneo di Scala 40", champion, *shown]
        assert board.text.splitlines()[2] == champion
        assert board.reply_markup is None
        # The group saw the board, the pointer and the final standings: no table, no summary.
        assert len(server.messages(GROUP, from_bot=True)) == group_before + 1
        listed = await say(server, service, bea, GROUP, "/tornei")
        assert listed.text.splitlines()[1].endswith(
            f"· Scala 40, girone all'italiana · 4 iscritti · vinto da {NAMES[ranked[0]]}"
        )


async def _computers_only(
    server: FakeTelegramServer, service: Tavolo, anna: FakeUser, formats: int, levels: list[str]
) -> FakeMessage:
    """Anna opens a tournament of one-hand matches among computers of ``levels``, in the
    format ``formats`` presses of the format button away, and leaves it to them."""
    registration = await say(server, service, anna, GROUP, "/torneo")
    for _ in range(formats):
        label = next(
            label for label in keyboard_data(registration) if "🔁" in label or "⚔️" in label
        )
        _, registration = await tap(server, service, anna, registration, label)
    registration = await _short_matches(server, service, anna, registration)
    for level in levels:
        _, registration = await tap(server, service, anna, registration, f"🤖 + {level}")
    answer, registration = await tap(server, service, anna, registration, "🚪 Esci")
    assert answer["text"] == "Iscrizione annullata."
    return registration


async def test_a_knockout_of_eight_computers(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server, database = fake_telegram, tmp_path / "knockout.db"
    anna = _anna_alone(server, database)
    async with running_bot(server, database) as service:
        levels = ["Esperto"] * 4 + ["Facile"] * 4
        registration = await _computers_only(server, service, anna, 1, levels)
        assert registration.text.splitlines()[1] == "⚔️ eliminazione diretta · tavoli da 2"
        await tap(server, service, anna, registration, "▶️ Inizia")
        await settle(server, service)

        record = _tournament(service)
        assert record.status == "finished" and record.round == 3
        by_round = [[t for t in record.tables if t.round == r] for r in (1, 2, 3)]
        assert [len(tables) for tables in by_round] == [4, 2, 1]
        seeds = {e.entry: e.seed or 0 for e in record.entries}

        def through(table: PairingRecord) -> int:  # more VP, then more MP, then the higher seed
            result = table.result
            assert result is not None
            return min(table.entries, key=lambda e: (-result[e][0], -result[e][1], seeds[e]))

        for earlier, later in itertools.pairwise(by_round):
            winners = sorted(through(table) for table in earlier)
            assert sorted(e for table in later for e in table.entries) == winners
        champion = through(by_round[2][0])
        names = {e.entry: e.name for e in record.entries}
        final = server.last_message(GROUP, from_bot=True)
        assert final is not None
        assert final.text.splitlines()[1] == f"🥇 Vince {names[champion]}!"
        # Round 1 in the standard seeding order: 1 v 8, 4 v 5, 2 v 7, 3 v 6.
        by_seed = {seed: entry for entry, seed in seeds.items()}
        assert [t.entries for t in by_round[0]] == [
            (by_seed[1], by_seed[8]),
            (by_seed[4], by_seed[5]),
            (by_seed[2], by_seed[7]),
            (by_seed[3], by_seed[6]),
        ]
        # The esperti are seeded first (their rating is higher).
        assert {names[by_seed[s]].endswith("(esperto)") for s in (1, 2, 3, 4)} == {True}


async def test_a_danish_tournament_of_six_computers(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server, database = fake_telegram, tmp_path / "danish.db"
    anna = _anna_alone(server, database)
    async with running_bot(server, database) as service:
        registration = await _computers_only(server, service, anna, 2, ["Facile"] * 6)
        assert registration.text.splitlines()[1] == "🇩🇰 sistema danese · 3 turni"
        await tap(server, service, anna, registration, "▶️ Inizia")
        await settle(server, service)

        record = _tournament(service)
        assert record.status == "finished" and record.round == 3
        met = [frozenset(t.entries) for t in record.tables]
        assert len(met) == 9 and len(set(met)) == 9  # three rounds of 3 tables, no rematch
        for number in (1, 2, 3):
            seated = [e for t in record.tables if t.round == number for e in t.entries]
            assert sorted(seated) == sorted(e.entry for e in record.entries)
        assert all(t.result is not None for t in record.tables)


async def test_a_restart_in_round_two_carries_on(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops in round 2 between opening its first table and its second: started
    again, it opens the second (once), pairs nothing twice, and the tournament ends as ever."""
    server, database = fake_telegram, tmp_path / "restart.db"
    users = _four_people(server, database)
    async with running_bot(server, database) as service:
        await _four_entered(server, service, users, short=True)
        opened = service.store.open_table_match
        service.tournaments.rounds.retries = ()  # stopped: nothing tries again before the restart

        def stopped_at_round_2_table_2(*args: Any) -> tuple[int, bool]:
            if args[1:3] == (2, 2):
                raise RuntimeError("the bot stops here")
            return opened(*args)

        monkeypatch.setattr(service.store, "open_table_match", stopped_at_round_2_table_2)
        await _play_round(server, service, users)
        record = _tournament(service)
        assert record.round == 2
        assert [(t.table, t.match_id is not None) for t in record.tables if t.round == 2] == [
            (1, True),
            (2, False),
        ]
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = _tournament(service)
        round_2 = [t for t in record.tables if t.round == 2]
        assert all(t.match_id is not None for t in round_2)
        pair = service.store.get_match(round_2[1].match_id or 0)
        for seat in pair.seats:  # told once of the table that opened after the restart
            assert seat.user_id is not None
            told = [
                m.text
                for m in server.messages(seat.user_id, from_bot=True)
                if m.text.startswith("🏆 Torneo di Scala 40 in Circolo, turno 2: al tavolo 2")
            ]
            assert len(told) == 1
        await _play_round(server, service, users)
        await _play_round(server, service, users)
        assert _tournament(service).status == "finished"
    with sqlite3.connect(database) as db:
        matches = db.execute("SELECT count(*) FROM matches WHERE tournament_id = 1").fetchone()
        rounds = db.execute("SELECT count(*) FROM tournament_rounds").fetchone()
    assert (matches[0], rounds[0]) == (6, 3)


KILLS = 6


async def _reached(database: Path, timeout: float, round_: int = 0) -> None:
    """Wait until the tournament stored in ``database`` (played by another process) is at
    ``round_`` or later (0: until it ends)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        with sqlite3.connect(database) as db:
            query = "SELECT status, round FROM tournaments WHERE id = 1"
            status, at = db.execute(query).fetchone()
        if status == "finished" or (round_ and at >= round_):
            return
        assert loop.time() < deadline, f"the tournament is still {status} at round {at}"
        await asyncio.sleep(0.05)  # another process plays it: its database is what changes


@pytest.mark.slow
async def test_killed_at_random_points_a_tournament_loses_nothing(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A Danish tournament of 6 computers over 3 rounds, the bot process killed (SIGKILL) as
    round 2 is paired, then at random points while it plays: started again each time, it
    ends with every round paired once, every table played by one match, and every table's
    result that match's own."""
    server, database = fake_telegram, tmp_path / "killed.db"
    seat_people(server, GROUP, "Circolo", PEOPLE[:1], admins=(ANNA,))
    options = {**game("scala40").default_options(), "format": "hands", "hands": 1}
    with Store.open(f"sqlite:///{database}") as store:
        record = store.create_tournament(
            GROUP, "scala40", "danish", options, organiser_id=ANNA, rounds=3
        )
        for number in range(1, 7):
            record = store.enter_computer(record.id, f"🤖 {number}", "facile")
        record = store.start_tournament(record.id, list(range(1, 7)), record.version)
    rng = random.Random(27)
    with (tmp_path / "bot.log").open("wb") as log:
        process = await start_bot(server, database, log)  # killed as round 2 begins
        await _reached(database, timeout=120, round_=2)
        process.send_signal(signal.SIGKILL)
        process.wait()
        for _ in range(KILLS):
            process = await start_bot(server, database, log)
            await asyncio.sleep(rng.uniform(0.1, 1.5))  # a kill at a random point: no condition
            process.send_signal(signal.SIGKILL)
            process.wait()
        # The last start takes over the work the killed ones had claimed (their leases run
        # out), and plays the tournament to its end.
        process = await start_bot(server, database, log)
        try:
            await _reached(database, timeout=120)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    async with running_bot(server, database, strict=False) as service:
        await settle(server, service)
        record = service.store.get_tournament(record.id)
        assert record.status == "finished" and record.round == 3
        assert len(record.tables) == 9
        for table in record.tables:
            assert table.match_id is not None and table.result is not None
            match = service.store.get_match(table.match_id)
            outcome = service.engine(match).outcome
            assert outcome is not None and match.status == "finished"
            assert {
                entry: (outcome.vp[seat], outcome.mp[seat])
                for seat, entry in enumerate(table.entries)
            } == dict(table.result)
    with sqlite3.connect(database) as db:
        matches = db.execute("SELECT count(*) FROM matches WHERE tournament_id = 1").fetchone()
        rounds = db.execute("SELECT count(*) FROM tournament_rounds").fetchone()
    assert (matches[0], rounds[0]) == (9, 3)  # no table opened twice, no round paired twice


async def test_a_scopone_knockout_of_pairs(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Scopone is played in pairs: two friends enter one after the other and play together;
    two pairs of computers fill the bracket. The computers are seeded first (their rating is
    a newcomer's and more), so each pair of people meets one in round 1; they abandon, and
    the computers' final decides it."""
    server, database = fake_telegram, tmp_path / "pairs.db"
    users = _four_people(server, database)
    anna, bea, carlo, dora = users.values()
    async with running_bot(server, database) as service:
        registration = await say(server, service, anna, GROUP, "/torneo scopone")
        answer, registration = await tap(server, service, bea, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei in coppia con Anna!"
        answer, registration = await tap(server, service, carlo, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei nel torneo: chi si iscrive subito dopo fa coppia con te."
        answer, _ = await tap(server, service, anna, registration, "▶️ Inizia")
        assert answer["text"] == "Non si può ancora iniziare: la coppia di Carlo è da completare."
        answer, registration = await tap(server, service, dora, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei in coppia con Carlo!"
        label = next(b for b in keyboard_data(registration) if "🔁" in b)
        _, registration = await tap(server, service, anna, registration, label)
        for _ in range(2):
            _, registration = await tap(server, service, anna, registration, "🤖 + Facile")
        assert (
            registration.text.splitlines()[1] == "⚔️ eliminazione diretta · tavoli da 2 · a coppie"
        )
        assert registration.text.splitlines()[5:10] == [
            "👥 Iscritti: 4",
            "1. Anna & Bea",
            "2. Carlo & Dora",
            "3. 🤖 Computer 1 (facile) & 🤖 Computer 2 (facile)",
            "4. 🤖 Computer 3 (facile) & 🤖 Computer 4 (facile)",
        ]
        assert "👥 A coppie" not in keyboard_data(registration)  # Scopone: always in pairs
        await tap(server, service, anna, registration, "▶️ Inizia")

        record = _tournament(service)
        assert [t.entries for t in record.tables] == [(3, 2), (4, 1)]
        told = [m.text for m in server.messages(BEA, from_bot=True) if m.text.startswith("🏆")]
        assert told == [
            "🏆 Torneo di Scopone in Circolo, turno 1: al tavolo 2 giochi in coppia con Anna "
            "contro 🤖 Computer 3 (facile) & 🤖 Computer 4 (facile). Le tue carte arrivano qui "
            "sotto."
        ]
        table = service.store.get_match(record.tables[1].match_id or 0)
        assert [(s.seat, s.user_id or s.name) for s in table.seats] == [
            (0, "🤖 Computer 3 (facile)"),
            (1, ANNA),
            (2, "🤖 Computer 4 (facile)"),
            (3, BEA),
        ]  # partners sit opposite: Anna and Bea at seats 1 and 3
        for user in (anna, bea, carlo, dora):
            await _abandon(server, service, user)
        await settle(server, service)

        record = _tournament(service)
        assert record.status == "finished"
        final = [t for t in record.tables if t.round == 2]
        assert [sorted(t.entries) for t in final] == [[3, 4]]
        assert all(t.result is not None for t in record.tables)
        for played in record.tables[:2]:  # the pairs of people lost, and got 0 VP
            assert played.result is not None
            assert [played.result[e][0] for e in played.entries] == [20, 0]


async def test_a_round_whose_time_is_up_ends_its_tables(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The round's time (a day by default) is armed on the bot's scheduler as the round starts
    and said on the board; when it is up, the tables still playing end as they stand, with a
    result each, and round 2 is paired."""
    server, database = fake_telegram, tmp_path / "deadline.db"
    users = _four_people(server, database)
    scheduler = ManualScheduler(datetime.now(UTC))
    async with running_bot(server, database, scheduler) as service:
        await _four_entered(server, service, users)
        record = _tournament(service)
        ends = record.started[1] + timedelta(days=1)
        assert scheduler.due(f"round:{record.id}") == ends
        local = ends.astimezone(ZoneInfo("Europe/Rome"))
        assert _board(server, service).text.splitlines()[3] == (
            f"⏳ Il turno finisce il {local:%d/%m} alle {local:%H:%M} (ora italiana): le partite "
            "ancora in corso si chiudono col punteggio di quel momento."
        )
        _, up = scheduler.jobs.pop(f"round:{record.id}")
        await up()
        await settle(server, service)

        record = _tournament(service)
        assert record.round == 2
        for table in (t for t in record.tables if t.round == 1):
            match = service.store.get_match(table.match_id or 0)
            assert match.status == "finished"
            assert service.store.moves(match.id)[-1].action == "end"
            assert table.result is not None and sum(vp for vp, _ in table.result.values()) == 20
        assert all(t.match_id is not None for t in record.tables if t.round == 2)
        assert scheduler.due(f"round:{record.id}") == record.started[2] + timedelta(days=1)


PG_URL = os.environ.get("TEST_DATABASE_URL", "")


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")
async def test_two_instances_carry_one_tournament_on_once(
    fake_telegram: FakeTelegramServer,
) -> None:
    """Two instances on one PostgreSQL carry a Danish tournament of 6 computers on at the same
    time, round after round: each round is paired once, each table opened once."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE[:1], admins=(ANNA,))
    options = {**game("scala40").default_options(), "format": "hands", "hands": 1}
    with scratch_schema(PG_URL) as url:
        with Store.open(url) as store:
            record = store.create_tournament(
                GROUP, "scala40", "danish", options, organiser_id=ANNA, rounds=3
            )
            for number in range(1, 7):
                record = store.enter_computer(record.id, f"🤖 {number}", "facile")
            record = store.start_tournament(record.id, list(range(1, 7)), record.version)
        async with running_bot(server, url) as one, another_instance(server, url) as other:
            for _ in range(4):
                await asyncio.gather(
                    one.tournaments.rounds.carry_on(record.id),
                    other.tournaments.rounds.carry_on(record.id),
                )
                await asyncio.gather(settle(server, one), other.drain())
            record = one.store.get_tournament(record.id)
            assert record.status == "finished" and record.round == 3
            assert len(record.tables) == 9 and all(t.result is not None for t in record.tables)
        database = create_engine(url)
        with database.connect() as db:
            query = text("SELECT count(*) FROM matches WHERE tournament_id = :id")
            opened = db.execute(query, {"id": record.id}).scalar()
        database.dispose()
        assert opened == 9  # no table opened twice


async def test_a_scala40_table_in_pairs_is_a_pairs_match(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A Scala 40 tournament in pairs plays pairs matches (stored so: the log, the verification
    and the ratings read them as pairs): Anna and Bea against a pair of computers."""
    server, database = fake_telegram, tmp_path / "scala-pairs.db"
    users = _four_people(server, database)
    anna, bea = users[ANNA], users[BEA]
    async with running_bot(server, database) as service:
        registration = await say(server, service, anna, GROUP, "/torneo")
        _, registration = await tap(server, service, anna, registration, "👤 Individuale")
        assert (
            registration.text.splitlines()[1] == "🔁 girone all'italiana · tavoli da 2 · a coppie"
        )
        answer, registration = await tap(server, service, bea, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei in coppia con Anna!"
        told = server.last_message(ANNA, from_bot=True)
        assert told is not None
        assert told.text == "🤝 Bea fa coppia con te nel torneo di Scala 40 in Circolo."
        _, registration = await tap(server, service, anna, registration, "🤖 + Facile")
        await tap(server, service, anna, registration, "▶️ Inizia")
        record = _tournament(service)
        match = service.store.get_match(record.tables[0].match_id or 0)
        assert match.options["pairs"] is True and service.engine(match).view(0).sides
        await _abandon(server, service, anna)  # her line loses at once (S40-14.1)
        assert _tournament(service).status == "finished"
        rated = {r.category for r in service.store.user_ratings(ANNA)}
        assert rated == {SCALA40_PAIRS}


async def test_a_player_who_leaves_the_group_leaves_its_tournament(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Dora leaves the group in round 1: she abandons her table (Anna wins it) and is
    withdrawn, so the rounds after it leave her out (T-4.3)."""
    server, database = fake_telegram, tmp_path / "left.db"
    users = _four_people(server, database)
    dora = users[DORA]
    async with running_bot(server, database) as service:
        await _four_entered(server, service, users)
        dora.leave_group(GROUP)
        await settle(server, service)
        record = _tournament(service)
        entry = record.entry_of(DORA)
        assert entry is not None and entry.withdrawn_round == 1
        table = next(t for t in record.tables if entry.entry in t.entries)
        assert table.result is not None and table.result[entry.entry][0] == 0
        await _play_round(server, service, users)  # Bea and Carlo's table ends too
        record = _tournament(service)
        assert record.round == 2
        assert all(entry.entry not in t.entries for t in record.tables if t.round == 2)
        carlo_entry = record.entry_of(CARLO)
        assert carlo_entry is not None  # Berger's round 2 paired him with Dora: a bye (T-4.3)
        assert record.byes[2] == (carlo_entry.entry,)
        board = _board(server, service)
        assert any(line.endswith("· ha lasciato il torneo") for line in board.text.splitlines())


async def test_a_tournament_stalled_past_its_retries_carries_on_at_the_minute_look(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 2's second table failed to open and nothing tried again (no retries left): the
    look of the next minute opens it, and tells its players once."""
    server, database = fake_telegram, tmp_path / "look.db"
    users = _four_people(server, database)
    async with running_bot(server, database) as service:
        await _four_entered(server, service, users, short=True)
        service.tournaments.rounds.retries = ()
        opened = service.store.open_table_match

        def failing(*args: Any) -> tuple[int, bool]:
            if args[1:3] == (2, 2):
                raise RuntimeError("the store is away")
            return opened(*args)

        monkeypatch.setattr(service.store, "open_table_match", failing)
        await _play_round(server, service, users)
        assert _tournament(service).tables[-1].match_id is None
        monkeypatch.setattr(service.store, "open_table_match", opened)
        await service.tournaments.rounds.look()
        await settle(server, service)
        record = _tournament(service)
        assert all(t.match_id is not None for t in record.tables if t.round == 2)
        pair = service.store.get_match(record.tables[-1].match_id or 0)
        for seat in pair.seats:
            told = [
                m
                for m in server.messages(seat.user_id or 0, from_bot=True)
                if m.text.startswith("🏆 Torneo di Scala 40 in Circolo, turno 2: al tavolo 2")
            ]
            assert len(told) == 1


async def test_a_group_that_removes_the_bot_cancels_its_tournament(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The bot is removed from the group in round 1: the tournament is cancelled, its tables
    stop (recorded, not ranked) and their players are told why in private."""
    server, database = fake_telegram, tmp_path / "removed.db"
    users = _four_people(server, database)
    async with running_bot(server, database) as service:
        await _four_entered(server, service, users)
        record = _tournament(service)
        server.group(GROUP).remove_bot()
        await settle(server, service)
        assert service.store.get_tournament(record.id).status == "cancelled"
        for table in record.tables:
            assert service.store.get_match(table.match_id or 0).status == "stopped"
        told = server.last_message(DORA, from_bot=True)
        assert told is not None
        assert told.text == (
            "⛔ La partita in Circolo è interrotta: non sono più nel gruppo. "
            "Non conta per la classifica."
        )


async def test_the_boards_buttons_and_the_registrations_bounds(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The matches' turn timer never goes off (T-4.2: it ends every table); at most
    ``MOST_ENTRANTS`` entrants (32; 4 here, to keep the test short); once it runs, a player
    withdraws from the board (T-4.3) and only the organiser (or an admin) cancels it."""
    monkeypatch.setattr(tournaments, "MOST_ENTRANTS", 4)
    server, database = fake_telegram, tmp_path / "board.db"
    users = _four_people(server, database)
    anna, bea = users[ANNA], users[BEA]
    async with running_bot(server, database) as service:
        registration = await say(server, service, anna, GROUP, "/torneo")
        _, panel = await tap(server, service, anna, registration, "⚙️ Opzioni")
        for seconds in ("120", "60", "90", "180"):
            _, panel = await tap(server, service, anna, panel, f"Secondi per turno: {seconds} s")
        _, panel = await tap(server, service, anna, panel, "Secondi per turno: 300 s")
        assert "Secondi per turno: 120 s" in keyboard_data(panel)  # 300 s, then 120 s: not 0
        _, registration = await tap(server, service, anna, panel, "⬅️ Indietro")
        for _ in range(3):
            _, registration = await tap(server, service, anna, registration, "🤖 + Facile")
        assert "👥 Iscritti: 4" in registration.text.splitlines()
        full = "Il torneo è al completo: non ci sono più posti."
        answer, _ = await tap(server, service, anna, registration, "🤖 + Facile")
        assert answer["text"] == full
        answer, _ = await tap(server, service, bea, registration, "✋ Mi iscrivo")
        assert answer["text"] == full
        for _ in range(3):  # Anna and Bea alone: no computer plays on after the cancel
            _, registration = await tap(server, service, anna, registration, "🤖 −")
        answer, registration = await tap(server, service, bea, registration, "✋ Mi iscrivo")
        assert answer["text"] == "Sei nel torneo!"
        await tap(server, service, anna, registration, "▶️ Inizia")
        await settle(server, service)

        board = _board(server, service)
        answer, board = await tap(server, service, bea, board, "🚪 Mi ritiro")
        assert answer["text"] == "Hai lasciato il torneo: dal prossimo turno non giochi più."
        entry = _tournament(service).entry_of(BEA)
        assert entry is not None and entry.withdrawn_round == 1
        answer, board = await tap(server, service, bea, board, "✖️ Annulla")
        assert answer["text"] == "Solo chi organizza il torneo, o un amministratore, può farlo."
        assert _tournament(service).status == "running"
        await tap(server, service, anna, board, "✖️ Annulla")
        assert _tournament(service).status == "cancelled"
        board = _board(server, service)
        assert board.text.splitlines()[2] == "✖️ Torneo annullato."
        assert board.reply_markup is None
