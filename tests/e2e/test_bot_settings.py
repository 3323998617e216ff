"""End to end: a group's settings (``/impostazioni``, docs/rules.md R-4.2) through the fake
Bot API: the panel in the group's language, a member refused, an admin's choice shown and kept,
and the command in private pointing to a group."""

from __future__ import annotations

from pathlib import Path

from bot import callbacks
from storage import Store
from testkit.bot_harness import button_data, running_bot, say, seat_people, settle
from testkit.fake_telegram import FakeTelegramServer

GROUP = -100660
ADMIN, MEMBER = 1661, 1662
PEOPLE = [(ADMIN, "Anna", "it"), (MEMBER, "Bea", "en")]

STALE = "Questo pulsante non è più valido."
PANEL = (
    "⚙️ Impostazioni del gruppo\n"
    "🤖 Le partite con i computer contano per i livelli: {computers}\n"
    "🎖 Prima della partita si vede il livello dei giocatori: {levels}\n"
    "🪑 Tavoli aperti insieme, al massimo: {tables}\n"
    "Solo un amministratore può cambiarle."
)


async def test_only_an_admin_changes_the_groups_settings(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server, database = fake_telegram, tmp_path / "settings.db"
    anna, bea = seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ADMIN,))
    with Store.open(f"sqlite:///{database}") as store:
        store.set_private_chat(ADMIN, True)  # Anna started the bot: she may sit at a table
    async with running_bot(server, database) as service:
        panel = await say(server, service, bea, GROUP, "/impostazioni")
        assert panel.text == PANEL.format(computers="sì", levels="no", tables=3)
        assert panel.keyboard == [
            ["✓ 🤖 Contano", "🤖 Non contano"],
            ["🎖 Livelli visibili", "✓ 🎖 Livelli nascosti"],
            ["🪑 1", "🪑 2", "✓ 🪑 3", "🪑 4"],
        ]
        not_counting = button_data(panel, "🤖 Non contano")
        counting = button_data(panel, "✓ 🤖 Contano")
        assert not_counting == callbacks.setting(callbacks.Setting.RATE_COMPUTERS, "0")

        refused = await bea.press(GROUP, panel.message_id, not_counting).answered()
        assert (refused.get("text"), refused.get("show_alert")) == (
            "Only a group admin can do that.",
            True,
        )
        assert service.store.chat_settings(GROUP).rate_computers is True

        done = await anna.press(GROUP, panel.message_id, not_counting).answered()
        assert done.get("text") == "Fatto."
        await settle(server, service)
        shown = server.message(GROUP, panel.message_id)
        assert shown is not None
        assert shown.text == PANEL.format(computers="no", levels="no", tables=3)
        assert button_data(shown, "✓ 🤖 Non contano") == not_counting

        # A setting's data forged onto another message of the bot changes nothing.
        ranking = await say(server, service, anna, GROUP, "/classifica")
        forged = anna.press(GROUP, ranking.message_id, counting, force=True)
        assert (await forged.answered()).get("text") == STALE
        assert service.store.chat_settings(GROUP).rate_computers is False

        # Levels in the lobby: shown once an admin chooses so, a newcomer's too.
        lobby = await say(server, service, anna, GROUP, "/nuova")  # the host sits at once
        assert "1. Anna\n" in (lobby.text or "")
        show = button_data(shown, "🎖 Livelli visibili")
        assert (await anna.press(GROUP, panel.message_id, show).answered()).get("text") == "Fatto."
        await settle(server, service)  # the open lobby shows them at once
        lobby = server.message(GROUP, lobby.message_id)
        assert lobby is not None and "1. Anna · principiante (1.000)\n" in (lobby.text or "")

        # Tables: an admin has the group play one at a time; a forged count changes nothing.
        one = button_data(shown, "🪑 1")
        assert one == callbacks.setting(callbacks.Setting.TABLES, "1")
        assert (await bea.press(GROUP, panel.message_id, one).answered()).get("show_alert")
        assert (await anna.press(GROUP, panel.message_id, one).answered()).get("text") == "Fatto."
        await settle(server, service)
        shown = server.message(GROUP, panel.message_id)
        assert shown is not None
        assert shown.text == PANEL.format(computers="no", levels="sì", tables=1)
        assert shown.keyboard[-1] == ["✓ 🪑 1", "🪑 2", "🪑 3", "🪑 4"]
        five = callbacks.setting(callbacks.Setting.TABLES, "5")  # forged: no such choice
        forged = anna.press(GROUP, panel.message_id, five, force=True)
        assert (await forged.answered()).get("text") == STALE
        assert service.store.chat_settings(GROUP).tables == 1

        private = await say(server, service, anna, ADMIN, "/impostazioni")
        assert private.text == "Questo comando funziona solo nei gruppi."
    with Store.open(f"sqlite:///{database}") as store:
        assert store.chat_settings(GROUP).rate_computers is False
        assert store.chat_settings(GROUP).levels_in_lobby is True
        assert store.chat_settings(GROUP).tables == 1
