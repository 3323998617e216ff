"""End to end: the lobby, the deep-link join, the start; the real Application, a fake Telegram."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.bot_harness import button_data, running_bot, say, settle, tap
from testkit.fake_telegram import FakeTelegramServer

ANNA, LUCA, GROUP = 1001, 1002, -100500


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


async def test_lobby_deep_link_join_and_start(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="it")
    luca = server.add_user(LUCA, "Luca", language_code="en")
    server.add_group(GROUP, "Amici <del> Carte", members=[ANNA, LUCA], admins=[ANNA])
    async with running_bot(server, tmp_path / "t.db") as service:
        anna.start_private()
        await settle(server, service)
        lobby = await say(server, service, anna, GROUP, "/nuova scala40")
        assert lobby.text.splitlines()[:4] == [
            "🃏 Nuova partita: Scala 40",
            "Organizzata da Anna",
            "Giocatori (1, da 2 a 6):",
            "1. Anna",
        ]
        assert lobby.text.splitlines()[-2:] == [
            "Tocca ✋ Partecipa per sederti.",
            "Chi organizza avvia la partita.",
        ]
        # Luca never opened the private chat: pressing join answers with the deep link.
        press = luca.press(GROUP, lobby.message_id, button_data(lobby, "✋"))
        answer = await press.answered()
        match_id = service.store.active_match_in_chat(GROUP).id  # type: ignore[union-attr]
        assert answer["url"] == f"https://t.me/{server.bot_user['username']}?start=j{match_id}"
        assert answer["text"] == "First open a private chat with me: I'll take you there."
        luca.start_private(f"j{match_id}")
        await settle(server, service)
        assert server.last_message(LUCA, from_bot=True).text == "You are at the table!"  # type: ignore[union-attr]
        lobby = server.message(GROUP, lobby.message_id)
        assert lobby is not None and "2. Luca" in lobby.text
        # Only the creator starts.
        answer = await luca.press(GROUP, lobby.message_id, button_data(lobby, "▶️")).answered()
        assert answer["text"] == "Only the host can do that."
        await anna.press(GROUP, lobby.message_id, button_data(lobby, "▶️")).answered()
        await settle(server, service)
        table = server.message(GROUP, lobby.message_id)
        assert table is not None and table.text.startswith("🃏 Scala 40 · mano 1 · si esce a 101")
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.status == "playing"
        for seat in record.seats:
            hand = server.message(seat.user_id, seat.hand_message_id)  # type: ignore[arg-type]
            assert hand is not None and len(hand.reply_markup["inline_keyboard"]) >= 2
        first = service.engine(record).to_play
        assert first is not None
        bell = server.last_message(record.seats[first].user_id, from_bot=True)  # type: ignore[arg-type]
        assert bell is not None and bell.text.startswith("🔔")
        # A second /newgame by a player points at the table where she sits.
        anna.send(GROUP, "/newgame")
        await settle(server, service)
        pointer = server.last_message(GROUP, from_bot=True)
        assert pointer is not None and pointer.text == "Qui sei già a un tavolo: ⬆️"
        assert pointer.reply_to is not None
        assert pointer.reply_to.message_id == record.table_message_id


BEA, DINO, PAIRS_GROUP = 1003, 1004, -100510


async def test_a_scopone_lobby_names_the_pairs_and_offers_one_swap(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people = [(ANNA, "Anna"), (LUCA, "Luca"), (BEA, "Bea"), (DINO, "Dino")]
    users = [server.add_user(uid, name, language_code="it") for uid, name in people]
    server.add_group(PAIRS_GROUP, "Scopa", members=[uid for uid, _ in people], admins=[ANNA])
    async with running_bot(server, tmp_path / "p.db") as service:
        for user in users:
            user.start_private()
        await settle(server, service)
        lobby = await say(server, service, users[0], PAIRS_GROUP, "/nuova scopone")
        assert "🔁 Cambia coppie" not in [
            text for row in lobby.keyboard for text in row
        ]  # not before four are seated
        for user in users[1:]:
            _, lobby = await tap(server, service, user, lobby, "✋")
        assert "Coppie: Anna + Bea contro Luca + Dino" in lobby.text.splitlines()
        swaps = [
            text
            for text in [text for row in lobby.keyboard for text in row]
            if text == "🔁 Cambia coppie"
        ]
        assert swaps == ["🔁 Cambia coppie"]
        await users[0].press_button(PAIRS_GROUP, lobby.message_id, "🔁 Cambia coppie").answered()
        await settle(server, service)
        lobby = server.message(PAIRS_GROUP, lobby.message_id)
        assert lobby is not None
        assert "Coppie: Anna + Dino contro Bea + Luca" in lobby.text.splitlines()


async def test_a_private_lobby_speaks_to_one_human(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="en")
    async with running_bot(server, tmp_path / "q.db") as service:
        anna.start_private()
        await settle(server, service)
        lobby = await say(server, service, anna, ANNA, "/newgame scopone")
        assert lobby.text.splitlines()[-1] == "Add computer players, then tap ▶️ Start."
        assert [text for row in lobby.keyboard for text in row] == [
            "🤖 + Easy", "🤖 + Expert", "⚙️ Options", "▶️ Start", "✖️ Cancel",
        ]  # fmt: skip
