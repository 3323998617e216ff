"""End to end: several tables in one group (issue 27) through the fake Bot API: a second table
opens beside a running one, labelled; commands act on the table replied to, else on the
player's own, else the group is asked which with a button per table; every table taken is
said; a player sits at one table of a group at a time; a stopped table frees its number."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import callbacks
from bot.service import Tavolo
from storage import Store
from testkit.bot_harness import running_bot, say, seat_people, settle, tap
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -100770
ANNA, BEA, CARLO = 1771, 1772, 1773
PEOPLE = [(ANNA, "Anna", "it"), (BEA, "Bea", "it"), (CARLO, "Carlo", "it")]
STALE = "Questo pulsante non è più valido."
WHICH = "🪑 Qui si gioca a più tavoli: quale?"


@pytest.fixture(autouse=True)
def _seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    monkeypatch.setattr("bot.lobby.secure_seed", lambda: 4)


async def _open_table(
    server: FakeTelegramServer, service: Tavolo, host: FakeUser
) -> tuple[list[str], FakeMessage]:
    """``host`` opens a Scala 40 table with a computer and starts it: the lobby's first lines
    as it first read, and the table message once the match runs (the lobby's, edited)."""
    lobby = await say(server, service, host, GROUP, "/nuova scala40")
    first = lobby.text.splitlines()[:2]
    _, lobby = await tap(server, service, host, lobby, "🤖 + Facile")
    await tap(server, service, host, lobby, "▶️")
    record = next(m for m in service.tables.active(GROUP) if m.creator_id == host.id)
    assert record.status == "playing" and record.table_message_id is not None
    table = server.message(GROUP, record.table_message_id)
    assert table is not None
    return first, table


async def test_two_tables_in_one_group(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    server, database = fake_telegram, tmp_path / "tables.db"
    anna, bea, carlo = seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ANNA,))
    with Store.open(f"sqlite:///{database}") as store:
        store.set_tables(GROUP, 2)
        for user, _, _ in PEOPLE:  # they started the bot: they sit as they open a table
            store.set_private_chat(user, True)
    async with running_bot(server, database) as service:
        lobby_1, table_1 = await _open_table(server, service, anna)
        assert lobby_1[0] == "🃏 Nuova partita: Scala 40"  # one table: as ever
        assert table_1.text.startswith("🃏 Scala 40 · mano 1 · si esce a 101")

        # Bea opens a second table beside the running one: it carries its number.
        lobby_2, table_2 = await _open_table(server, service, bea)
        assert lobby_2 == ["🪑 Tavolo 2", "🃏 Nuova partita: Scala 40"]
        assert table_2.text.splitlines()[0] == "🪑 Tavolo 2"
        assert table_2.text.splitlines()[1].startswith("🃏 Scala 40 · mano 1 · si esce a 101")
        first, second = service.tables.active(GROUP)
        assert (first.creator_id, second.creator_id) == (ANNA, BEA)
        assert (first.table_number, second.table_number) == (1, 2)

        # Both tables taken: a third is refused, saying why.
        full = await say(server, service, carlo, GROUP, "/nuova scala40")
        assert full.text == (
            "I 2 tavoli del gruppo sono tutti occupati: se ne libera uno alla fine di una "
            "partita. Gli amministratori possono aggiungerne con /impostazioni."
        )

        # A player's command concerns their own table; one at no table is asked which.
        own = await say(server, service, bea, GROUP, "/punti")
        assert own.text == "🪑 Tavolo 2\nPunteggio\nBea: 0\n🤖 1: 0"
        own = await say(server, service, anna, GROUP, "/punti")
        assert own.text == "Punteggio\nAnna: 0\n🤖 1: 0"
        which = await say(server, service, carlo, GROUP, "/regole")
        assert which.text == WHICH
        assert which.keyboard == [
            ["Tavolo 1 · Scala 40 · Anna, 🤖 1"],
            ["Tavolo 2 · Scala 40 · Bea, 🤖 1"],
        ]
        answer, _ = await tap(server, service, carlo, which, "Tavolo 2")
        assert answer.get("text") is None
        chosen = server.last_message(GROUP, from_bot=True)
        assert chosen is not None
        assert chosen.text.startswith("🪑 Tavolo 2\nOpzioni della partita\n")
        forged = carlo.press(GROUP, which.message_id, callbacks.table(99999, "p"), force=True)
        assert (await forged.answered()).get("text") == STALE

        # A reply to a table's message names that table, whoever asks.
        carlo.reply(GROUP, table_1.message_id, "/regole")
        await settle(server, service)
        rules = server.last_message(GROUP, from_bot=True)
        assert rules is not None and rules.text.startswith("Opzioni della partita\n")
        bea.reply(GROUP, table_1.message_id, "/regole")  # the same answer: pointed up at
        await settle(server, service)
        pointer = server.last_message(GROUP, from_bot=True)
        assert pointer is not None and pointer.text == "⬆️ Vedi sopra."
        assert pointer.reply_to is not None and pointer.reply_to.message_id == rules.message_id

        # Bea stops her table: the question names it; the other table plays on.
        question = await say(server, service, bea, GROUP, "/stop")
        assert question.text == (
            "🪑 Tavolo 2\nInterrompere la partita? Non conterà per la classifica."
        )
        await tap(server, service, bea, question, "✅ Sì")
        assert [m.creator_id for m in service.tables.active(GROUP)] == [ANNA]

        # The free table opens again, with its number; a player of table 1 cannot sit there.
        lobby_3 = await say(server, service, carlo, GROUP, "/nuova scala40")
        assert lobby_3.text.splitlines()[:2] == ["🪑 Tavolo 2", "🃏 Nuova partita: Scala 40"]
        refused = await anna.press(GROUP, lobby_3.message_id, _button(lobby_3, "✋")).answered()
        assert (refused.get("text"), refused.get("show_alert")) == (
            "Sei già a un altro tavolo di questo gruppo.",
            True,
        )
        pointed = await say(server, service, anna, GROUP, "/nuova scala40")
        assert pointed.text == "Sei già a un tavolo qui: ⬆️"
        assert pointed.reply_to is not None
        assert pointed.reply_to.message_id == first.table_message_id


def _button(message: FakeMessage, start: str) -> str:
    """The callback data of the one button whose text starts with ``start``."""
    found = [
        button["callback_data"]
        for row in (message.reply_markup or {}).get("inline_keyboard", [])
        for button in row
        if button["text"].startswith(start)
    ]
    assert len(found) == 1, found
    return found[0]
