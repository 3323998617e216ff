"""End to end: provably fair deals. The table shows the commitment to the secret seed from the
first deal; the seed appears nowhere before the end; the end reveals it, and /verifica sends
the match file, which rebuilds every deal and matches the commitment."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.cards import card as pretty
from engine import fairness
from testkit.bot_harness import button_data, running_bot, say, settle, tap
from testkit.fake_telegram import FakeTelegramServer

ANNA, LUCA, GROUP = 1001, 1002, -100740


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def everything_shown(server: FakeTelegramServer) -> str:
    """Every text and caption the bot has shown, edits included."""
    shown = []
    for chat in (GROUP, ANNA, LUCA):
        for message in server.messages(chat, from_bot=True, include_deleted=True):
            shown += [message.text or "", message.caption or ""]
            shown += [old for old, _, _ in message.history if old]
    return "\n".join(shown)


async def test_commitment_at_the_start_seed_at_the_end(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="it")
    luca = server.add_user(LUCA, "Luca", language_code="en")
    server.add_group(GROUP, "Circolo", members=[ANNA, LUCA], admins=[ANNA])
    async with running_bot(server, tmp_path / "f.db") as service:
        anna.start_private()
        luca.start_private()
        await settle(server, service)
        lobby = await say(server, service, anna, GROUP, "/nuova scala40")
        _, lobby = await tap(server, service, luca, lobby, "✋")
        await tap(server, service, anna, lobby, "▶️")
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        seed, full = record.seed, fairness.commitment(record.seed)
        table = server.message(GROUP, lobby.message_id)
        assert table is not None
        assert table.text.splitlines()[-1] == f"🔐 Mazzo garantito {full[:16]} · /verifica"
        anna.send(GROUP, "/verifica")
        await settle(server, service)
        promise = server.last_message(GROUP, from_bot=True)
        assert promise is not None and full in promise.text
        assert str(seed) not in everything_shown(server)

        luca.send(LUCA, "/abandon")
        await settle(server, service)
        question = server.last_message(LUCA, from_bot=True)
        assert question is not None
        await luca.press(LUCA, question.message_id, button_data(question, "✅ Yes")).answered()
        await settle(server, service)
        ranking = server.last_message(GROUP, from_bot=True)
        assert ranking is not None
        assert ranking.text.splitlines()[-1] == f"🔓 Chiave del mazzo svelata: {seed} · /verifica"

        anna.send(GROUP, "/verifica")
        await settle(server, service)
        proof = server.last_message(GROUP, from_bot=True)
        assert proof is not None and proof.document is not None
        assert proof.document["file_name"] == f"tavolo-{record.id}.json"
        assert proof.caption is not None and str(seed) in proof.caption and full in proof.caption
        assert proof.document_content is not None
        verdict = fairness.verify(proof.document_content.decode())
        assert verdict.ok and verdict.final_matches is True
        dealt = verdict.deals[0].hands
        for seat in record.seats:  # the first deal is the one each player was shown
            hand = server.message(seat.user_id or 0, seat.hand_message_id or 0)
            assert hand is not None
            markup = hand.history[0][2] if hand.history else hand.reply_markup
            shown = [
                button["text"].lstrip("✓")
                for row in (markup or {}).get("inline_keyboard", [])
                for button in row
                if ":t:" in button.get("callback_data", "")
                and ":t:^" not in button["callback_data"]
            ]
            assert sorted(shown) == sorted(pretty(card) for card in dealt[seat.seat])


async def test_a_cancelled_lobby_has_nothing_to_verify(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A lobby cancelled before the start dealt no card: /verifica says there is nothing to
    check, rather than sending a match file that cannot verify."""
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna", language_code="it")
    server.add_group(GROUP, "Circolo", members=[ANNA], admins=[ANNA])
    async with running_bot(server, tmp_path / "f.db") as service:
        anna.start_private()
        await settle(server, service)
        lobby = await say(server, service, anna, GROUP, "/nuova scopone")
        await tap(server, service, anna, lobby, "✖️ Annulla")
        answer = await say(server, service, anna, GROUP, "/verifica")
        assert answer.text == "Qui non c'è ancora nessuna partita da verificare."
        assert answer.document is None
