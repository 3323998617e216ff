"""End to end: a group speaks its host's language; /lingua offers a choice; only the host of
the group's match or an admin changes the group's; replies in a group are in its language."""

from __future__ import annotations

from pathlib import Path

from testkit.bot_harness import running_bot, seat_people, settle
from testkit.fake_telegram import FakeTelegramServer

GROUP = -100880
ANNA, CARLA, DINO = 1881, 1882, 1883  # Anna is Italian and an admin; Carla and Dino are English


def people(server: FakeTelegramServer) -> None:
    seat_people(
        server,
        GROUP,
        "Circolo",
        [(ANNA, "Anna", "it"), (CARLA, "Carla", "en"), (DINO, "Dino", "en")],
        admins=(ANNA,),
    )


def last_text(server: FakeTelegramServer, chat_id: int) -> str:
    message = server.last_message(chat_id, from_bot=True)
    assert message is not None
    return message.text


async def test_a_new_group_speaks_its_hosts_language(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    carla = server.user(CARLA)
    async with running_bot(server, tmp_path / "l.db") as service:
        carla.send(GROUP, "/newgame")
        await settle(server, service)
        assert last_text(server, GROUP).startswith("🃏 New match: Scala 40")
        assert service.store.chat_settings(GROUP).language == "en"
        # Anna's /mano in this English group is answered in English.
        server.user(ANNA).send(GROUP, "/mano")
        await settle(server, service)
        assert last_text(server, GROUP) == "No match is running."


async def test_the_language_is_chosen_by_the_host_or_an_admin(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    anna, carla, dino = server.user(ANNA), server.user(CARLA), server.user(DINO)
    async with running_bot(server, tmp_path / "l.db") as service:
        carla.send(GROUP, "/newgame")  # Carla hosts: the group speaks English
        await settle(server, service)
        dino.send(GROUP, "/lingua")
        await settle(server, service)
        choice = server.last_message(GROUP, from_bot=True)
        assert choice is not None and choice.text == "🌐 Choose the group's language:"
        assert [b["text"] for b in choice.inline_keyboard[0]] == ["🇮🇹 Italiano", "✓ 🇬🇧 English"]
        # Dino is neither the host nor an admin: nothing changes.
        answer = await dino.press_button(GROUP, choice.message_id, "🇮🇹 Italiano").answered()
        assert answer["text"] == "Only the host or a group admin can do that."
        assert answer.get("show_alert") is True
        assert service.store.chat_settings(GROUP).language == "en"
        dino.send(GROUP, "/lingua it")
        await settle(server, service)
        assert last_text(server, GROUP) == "Only the host or a group admin can do that."
        # The host may.
        answer = await carla.press_button(GROUP, choice.message_id, "🇮🇹 Italiano").answered()
        await settle(server, service)
        assert answer["text"] == "Fatto."
        assert service.store.chat_settings(GROUP).language == "it"
        edited = server.message(GROUP, choice.message_id)
        assert edited is not None and edited.text == "Il gruppo ora parla italiano."
        assert not edited.inline_keyboard
        # An admin may too, by command.
        anna.send(GROUP, "/lingua en")
        await settle(server, service)
        assert last_text(server, GROUP) == "The group now speaks English."
        assert service.store.chat_settings(GROUP).language == "en"


async def test_a_player_chooses_their_own_language_in_private(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    anna = server.user(ANNA)
    async with running_bot(server, tmp_path / "l.db") as service:
        anna.send(ANNA, "/lingua")
        await settle(server, service)
        choice = server.last_message(ANNA, from_bot=True)
        assert choice is not None and choice.text == "🌐 Scegli la tua lingua:"
        assert [b["text"] for b in choice.inline_keyboard[0]] == ["✓ 🇮🇹 Italiano", "🇬🇧 English"]
        answer = await anna.press_button(ANNA, choice.message_id, "🇬🇧 English").answered()
        await settle(server, service)
        assert answer["text"] == "Done."
        assert server.message(ANNA, choice.message_id).text == "Language set: English."  # type: ignore[union-attr]
        anna.send(ANNA, "/punti")
        await settle(server, service)
        assert service.people.user_lang(ANNA) == "en"
