"""End to end: computer seats from the lobby, and a match in private against the computer."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import button_data, running_bot, settle
from fake_telegram import FakeTelegramServer

from bot.render.cards import card as pretty
from engine.games import game
from engine.scala40 import new_match

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
        anna.send(ANNA, "/nuova scala40")
        await settle(server, service)
        lobby = server.last_message(ANNA, from_bot=True)
        assert lobby is not None and lobby.text.splitlines()[3] == "1. Anna"
        await anna.press(ANNA, lobby.message_id, button_data(lobby, "🤖 + Facile")).answered()
        await settle(server, service)
        lobby = server.message(ANNA, lobby.message_id)
        assert lobby is not None and "2. 🤖 Computer 1 (facile)" in lobby.text
        await anna.press(ANNA, lobby.message_id, button_data(lobby, "▶️")).answered()
        await settle(server, service)
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
        await anna.press(ANNA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await settle(server, service)
        expected.play("draw")
        discard = next(a for a in expected.legal_actions() if a.kind == "discard")
        hand = server.message(ANNA, hand.message_id)
        assert hand is not None
        await anna.press(ANNA, hand.message_id, button_data(hand, pretty(discard.card))).answered()
        await settle(server, service)
        hand = server.message(ANNA, hand.message_id)
        assert hand is not None
        answer = await anna.press(ANNA, hand.message_id, button_data(hand, "🗑")).answered()
        assert answer["text"] is None
        await settle(server, service)
        expected.play(discard)
        assert expected.to_play == 1
        while expected.to_play == 1:
            expected.play(game("scala40").choose(expected, "facile", 0))
        record = service.store.get_match(record.id)
        assert service.engine(record).to_json() == expected.to_json()
        assert [m.seat for m in service.store.moves(record.id)][-1] == 1
        assert service.engine(record).to_play == 0


async def test_group_commands_work_in_a_private_match(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/punti, /regole, /tavolo and /stop mean in private what they mean in a group; /stop
    ends a match against the computer without a ranking penalty."""
    monkeypatch.setattr("bot.lobby.secure_seed", lambda: 4)
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="en")
    anna.start_private()
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        anna.send(ANNA, "/punti")
        await settle(server, service)
        assert server.last_message(ANNA, from_bot=True).text == "No match is running."  # type: ignore[union-attr]
        anna.send(ANNA, "/newgame scala40")
        await settle(server, service)
        lobby = server.last_message(ANNA, from_bot=True)
        assert lobby is not None
        await anna.press(ANNA, lobby.message_id, button_data(lobby, "🤖 + Easy")).answered()
        await settle(server, service)
        lobby = server.message(ANNA, lobby.message_id)
        assert lobby is not None
        await anna.press(ANNA, lobby.message_id, button_data(lobby, "▶️")).answered()
        await settle(server, service)
        record = service.store.active_match_in_chat(ANNA)
        assert record is not None and record.status == "playing"
        anna.send(ANNA, "/punti")
        await settle(server, service)
        score = server.last_message(ANNA, from_bot=True)
        assert score is not None and score.text.startswith("Score\n")
        anna.send(ANNA, "/regole")
        await settle(server, service)
        rules = server.last_message(ANNA, from_bot=True)
        assert rules is not None and "Points limit: 101" in rules.text.splitlines()
        assert "On timeout: the bot plays" in rules.text.splitlines()
        anna.send(ANNA, "/tavolo")
        await settle(server, service)
        table = server.last_message(ANNA, from_bot=True)
        assert table is not None and table.text.startswith("🃏 Scala 40 · hand 1")
        assert service.store.get_match(record.id).table_message_id == table.message_id
        anna.send(ANNA, "/stop")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        assert question.text == "Stop the match? It will not count for the rankings."
        await anna.press_button(ANNA, question.message_id, "✅ Yes").answered()
        await settle(server, service)
        assert service.store.get_match(record.id).status == "stopped"
        assert service.store.user_stats(ANNA) == []
