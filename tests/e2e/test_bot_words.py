"""End to end: what players read is words in their language, never the bot's internals."""

from __future__ import annotations

from pathlib import Path

from engine.scala40 import Options
from testkit.bot_harness import (
    RIGGED_HANDS,
    running_bot,
    say,
    seat_people,
    settle,
    store_started_match,
    tap,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position

GROUP = -100900
ANNA, LUCA = 1901, 1902


async def test_an_english_lobby_names_computers_and_options_in_english(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="en")
    anna.start_private()
    async with running_bot(server, tmp_path / "w.db") as service:
        await settle(server, service)
        lobby = await say(server, service, anna, ANNA, "/newgame scala40")
        for label in ("🤖 + Easy", "🤖 + Expert"):
            _, lobby = await tap(server, service, anna, lobby, label)
        lines = lobby.text.splitlines()
        assert lines[3:6] == ["1. Anna", "2. 🤖 Computer 1 (easy)", "3. 🤖 Computer 2 (expert)"]
        assert "Options: Points limit 101" in lines
        _, panel = await tap(server, service, anna, lobby, "⚙️ Options")
        buttons = [text for row in panel.keyboard for text in row]
        assert "Ace in hand: 1 if it is the only one" in buttons
        assert "Format: points" in buttons and "On timeout: the computer plays" in buttons
        assert "Seconds per turn: 120 s" in buttons and "Match minutes: no limit" in buttons
        assert not any("_" in text for text in buttons)  # no internal value shows


async def test_abandoning_a_private_match_offers_stop(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="it")
    anna.start_private()
    async with running_bot(server, tmp_path / "w.db") as service:
        await settle(server, service)
        lobby = await say(server, service, anna, ANNA, "/nuova scala40")
        _, lobby = await tap(server, service, anna, lobby, "🤖 + Facile")
        await tap(server, service, anna, lobby, "▶️")
        question = await say(server, service, anna, ANNA, "/abbandona")
        assert question.text == (
            "Abbandonare la tua partita contro il computer? La perdi. "
            "Per interromperla senza perderla: /stop."
        )


async def test_the_end_of_a_match_reads_as_a_sentence_and_explains_mp_and_vp(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
    seat_people(server, GROUP, "Circolo", people, admins=(ANNA,))
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    store_started_match(
        tmp_path / "w.db", GROUP, "Circolo", people, "scala40", match.to_json(),
        Options().to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    async with running_bot(server, tmp_path / "w.db") as service:
        await settle(server, service)
        question = await say(server, service, luca, LUCA, "/abandon")
        assert question.text == "Abandon the match in Circolo? You will lose it."
        await tap(server, service, luca, question, "✅ Yes")
        ranking = server.last_message(GROUP, from_bot=True)
        assert ranking is not None
        lines = ranking.text.splitlines()
        assert lines[0] == "🏆 Partita finita! Vince Anna."
        assert lines[5:7] == [
            "Punti partita: scarto sugli avversari.",
            "Punti vittoria: 20 a chi vince, 10 pari.",
        ]
        assert lines[7] == "🏳️ Luca ha abbandonato."
