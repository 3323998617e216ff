"""End to end: computer seats from the lobby, and a match in private against the computer."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.cards import card as pretty
from bot.service import Tavolo
from engine.games import game
from engine.scala40 import new_match
from testkit.bot_harness import running_bot, say, settle, tap
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser

ANNA = 1001


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


async def test_private_match_against_the_computer(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player alone starts a Scala 40 match in private with a computer seat; the table is
    shown in that chat and the computer moves by itself (issue: computer players)."""
    monkeypatch.setattr("bot.lobby.secure_seed", lambda: 4)
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="it")
    anna.start_private()
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        lobby = await say(server, service, anna, ANNA, "/nuova scala40")
        assert lobby.text.splitlines()[3] == "1. Anna"
        _, lobby = await tap(server, service, anna, lobby, "🤖 + Facile")
        assert "2. 🤖 Computer 1 (facile)" in lobby.text
        await tap(server, service, anna, lobby, "▶️")
        record = service.store.active_match_in_chat(ANNA)
        assert record is not None and record.status == "playing"
        assert record.table_chat_id == ANNA and record.seats[1].computer_level == "facile"
        # The same deal, played by the engine alone: the computer's opening turn, if it had one.
        expected = new_match(players=2, seed=4)
        while expected.to_play == 1:
            expected.play(game("scala40").choose(expected, "facile", 0))
        assert service.engine(record).to_json() == expected.to_json()
        hand = server.message(ANNA, record.seats[0].hand_message_id or 0)
        assert hand is not None and hand.text.startswith("🃏 Scala 40 · la tua partita")
        # Anna draws and discards her first legal card: the computer answers with its turn.
        _, hand = await tap(server, service, anna, hand, "🂠 Pesca")
        expected.play("draw")
        discard = next(a for a in expected.legal_actions() if a.kind == "discard")
        _, hand = await tap(server, service, anna, hand, pretty(discard.card))
        answer, hand = await tap(server, service, anna, hand, "🗑")
        assert answer["text"] is None
        expected.play(discard)
        assert expected.to_play == 1
        while expected.to_play == 1:
            expected.play(game("scala40").choose(expected, "facile", 0))
        record = service.store.get_match(record.id)
        assert service.engine(record).to_json() == expected.to_json()
        assert [m.seat for m in service.store.moves(record.id)][-1] == 1
        assert service.engine(record).to_play == 0


async def said_above_the_hand(
    server: FakeTelegramServer, service: Tavolo, user: FakeUser, text: str, match_id: int
) -> tuple[FakeMessage, FakeMessage]:
    """``user`` writes ``text`` in the private chat of a match: the bot's answer, then the
    hand below it, the chat's last message."""
    user.send(user.id, text)
    await settle(server, service)
    answer, hand = server.messages(user.id, from_bot=True)[-2:]
    seat = service.store.get_match(match_id).seat_of(user.id)
    assert seat is not None
    assert hand.message_id == service.store.get_match(match_id).seats[seat].hand_message_id
    return answer, hand


PRIVATE_COMMANDS = {
    "it": {
        "no_match": "Nessuna partita in corso.",
        "new": "/nuova scala40",
        "easy": "🤖 + Facile",
        "score": "Punteggio\n",
        "rules": ["Limite punti: 101", "Tempo scaduto: gioca il computer"],
        "table": "🃏 Scala 40 · mano 1",
        "header": "Mano 1 · si esce a 101 · ⏳ max 2 min",
        "turn": "👉 Tocca a te",
        "hand": "🃏 Scala 40 · la tua",
        "stop": "Interrompere la partita? Non conterà per la classifica.",
        "yes": "✅ Sì",
    },
    "en": {
        "no_match": "No match is running.",
        "new": "/newgame scala40",
        "easy": "🤖 + Easy",
        "score": "Score\n",
        "rules": ["Points limit: 101", "On timeout: the computer plays"],
        "table": "🃏 Scala 40 · hand 1",
        "header": "Hand 1 · out at 101 · ⏳ up to 2 min",
        "turn": "👉 Your turn",
        "hand": "🃏 Scala 40 · your",
        "stop": "Stop the match? It will not count for the rankings.",
        "yes": "✅ Yes",
    },
}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_group_commands_work_in_a_private_match(
    fake_telegram: FakeTelegramServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
) -> None:
    """/punti, /regole, /tavolo and /stop mean in private what they mean in a group, each
    reply above the hand, which stays the chat's last message; /stop ends a match against
    the computer without a ranking penalty."""
    monkeypatch.setattr("bot.lobby.secure_seed", lambda: 4)
    words = PRIVATE_COMMANDS[lang]
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code=lang)
    anna.start_private()
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        assert (await say(server, service, anna, ANNA, "/punti")).text == words["no_match"]
        lobby = await say(server, service, anna, ANNA, str(words["new"]))
        _, lobby = await tap(server, service, anna, lobby, str(words["easy"]))
        await tap(server, service, anna, lobby, "▶️")
        record = service.store.active_match_in_chat(ANNA)
        assert record is not None and record.status == "playing"
        # Each reply goes out, and the hand goes below it again: it stays the last message.
        score, hand = await said_above_the_hand(server, service, anna, "/punti", record.id)
        assert score.text.startswith(str(words["score"]))
        rules, hand = await said_above_the_hand(server, service, anna, "/regole", record.id)
        assert all(line in rules.text.splitlines() for line in words["rules"])
        table, hand = await said_above_the_hand(server, service, anna, "/tavolo", record.id)
        assert table.text.startswith(str(words["table"]))
        assert service.store.get_match(record.id).table_message_id == table.message_id
        assert hand.text.splitlines()[1] == words["header"]
        assert any(line.startswith(str(words["turn"])) for line in hand.text.splitlines())
        hands = [
            m for m in server.messages(ANNA, from_bot=True) if m.text.startswith(str(words["hand"]))
        ]
        assert hands == [hand]  # the old hands are gone
        question = await say(server, service, anna, ANNA, "/stop")
        assert question.text == words["stop"]
        await tap(server, service, anna, question, str(words["yes"]))
        assert service.store.get_match(record.id).status == "stopped"
        assert service.store.user_stats(ANNA) == []
