"""End to end: a third game, registered by the test alone (:mod:`testkit.duello`), is set up,
played, scored, stopped and verified through the real bot, whose core knows nothing of it: the
game seam is a contract (issue 26, docs/adding-a-game.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import fairness
from testkit import duello
from testkit.bot_harness import button_data, hand_of, running_bot, say, seat_people, settle, tap
from testkit.fake_telegram import FakeTelegramServer

GROUP = -100995
ANNA, LUCA = 1995, 1996
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")]


@pytest.fixture(autouse=True)
def third_game() -> Iterator[None]:
    """Duello, for this test only."""
    with duello.registered():
        yield


async def test_a_third_game_needs_no_change_of_the_core(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna, luca = seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ANNA,))
    async with running_bot(server, tmp_path / "d.db") as service:
        for person in (anna, luca):  # the hands go to the private chats they opened
            await say(server, service, person, person.id, "/start")
        # /aiuto names it among the games, as does the answer to an unknown one.
        helped = (await say(server, service, anna, GROUP, "/aiuto")).text
        assert "🎴 Duello (in 2 o 3, 3 carte a testa)" in helped
        assert "(/nuova scopone per lo Scopone; /nuova duello per il Duello)" in helped
        assert (await say(server, service, anna, GROUP, "/nuova briscola")).text == (
            "Gioco sconosciuto: scrivi /nuova scala40, /nuova scopone o /nuova duello."
        )
        # The lobby, the seats and the start, as for any game.
        lobby = await say(server, service, anna, GROUP, "/nuova duello")
        assert lobby.text.startswith("🃏 Nuova partita: Duello\n")
        assert "Opzioni: predefinite" in lobby.text.splitlines()
        _, lobby = await tap(server, service, luca, lobby, "✋")
        _, table = await tap(server, service, anna, lobby, "▶️")
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.game == "duello" and record.status == "playing"
        match = duello.Match.from_json(record.state_json or "")
        first = match.to_play
        assert first is not None
        mover = (anna, luca)[first]
        names = ("Anna", "Luca")
        assert table.text.splitlines()[:3] == ["🎴 Duello", "Anna: 0", "Luca: 0"]
        # A card tapped in the private hand is a move; the table shows it.
        hand = hand_of(server, service, record.id, mover.id)
        card = match.hands[first][0]
        answer = await mover.press(
            mover.id, hand.message_id, button_data(hand, str(card))
        ).answered()
        await settle(server, service)
        assert answer["text"] is None
        table = server.message(GROUP, service.store.get_match(record.id).table_message_id or 0)
        assert table is not None and f"🂠 {names[first]} {card}" in table.text
        # /punti reads the view's sides and scores.
        assert (await say(server, service, anna, GROUP, "/punti")).text == (
            "Punteggio\nAnna: 0\nLuca: 0"
        )
        # /stop, confirmed, plays the core's word: the match ends for nobody.
        asked = await say(server, service, anna, GROUP, "/stop")
        await tap(server, service, anna, asked, "✅")
        stopped = service.store.get_match(record.id)
        assert stopped.status == "stopped"
        # /verifica sends the match file, which rebuilds the deal from the seed.
        await say(server, service, anna, GROUP, "/verifica")
        sent = server.last_message(GROUP, from_bot=True)
        assert sent is not None and sent.document is not None
        assert sent.document_content is not None
        verdict = fairness.verify(sent.document_content.decode())
        assert verdict.ok, verdict.problem
