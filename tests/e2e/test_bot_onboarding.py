"""End to end: what a newcomer reads. /start says what can be done (the computer right here,
or a group through the "add me" button); /aiuto explains a turn of each game, in groups in the
group's language (in one that never chose, the asker's); words and unknown commands in private
get a short guide, a group's chatter gets nothing; the command menus, per scope and language."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.bot_harness import running_bot, say, seat_people, settle, tap
from testkit.fake_telegram import FakeTelegramServer

GROUP = -100990
ANNA, CARLA, DINO = 1991, 1992, 1993  # Anna is Italian and an admin, Carla English, Dino German
BOT = "tavolo_test_bot"

START = {
    "it": (
        "Ciao {name}! Con me si gioca a Scala 40 e a Scopone.\n"
        "🤖 Contro il computer, qui e subito: /nuova (Scala 40) o /nuova scopone.\n"
        "👥 Con gli amici: aggiungimi a un gruppo con il pulsante qui sotto e lì scrivete "
        "/nuova; le tue carte arrivano qui, in privato.\n"
        "/aiuto spiega come si gioca."
    ),
    "en": (
        "Hi {name}! You can play Scala 40 and Scopone with me.\n"
        "🤖 Against the computer, right here: /newgame (Scala 40) or /newgame scopone.\n"
        "👥 With friends: add me to a group with the button below and type /newgame there; "
        "your cards come here, in private.\n"
        "/help explains how to play."
    ),
}
ADD = {"it": "👥 Aggiungimi a un gruppo", "en": "👥 Add me to a group"}
START_GROUP = {
    "it": "Ciao! Con me si gioca a Scala 40 e a Scopone: /nuova apre una partita "
    "(/nuova scopone per lo Scopone), /aiuto spiega come si gioca.",
    "en": "Hi! You can play Scala 40 and Scopone with me: /newgame opens a match "
    "(/newgame scopone for Scopone), /help explains how to play.",
}
HELP = {
    "it": (
        "Come si gioca\n"
        "\n"
        "🃏 Scala 40 (da 2 a 6, 13 carte a testa)\n"
        "1. Pesca dal tallone, oppure prendi lo scarto se lo usi subito in un gioco.\n"
        "2. I giochi sono scale dello stesso seme (5♠ 6♠ 7♠) e combinazioni di carte dello "
        "stesso valore (8♥ 8♣ 8♦); il jolly fa una carta qualsiasi.\n"
        "3. Per aprire cala giochi per almeno 40 punti in un solo turno.\n"
        "4. Dopo aver aperto puoi calare altri giochi e attaccare carte a quelli in tavola, "
        "anche degli altri.\n"
        "5. Scarta una carta e il turno passa; chi scarta l'ultima carta chiude la mano.\n"
        "6. Gli altri contano le carte rimaste in mano (100 se non hanno calato niente): chi "
        "arriva a 101 è fuori, vince l'ultimo rimasto.\n"
        "\n"
        "🂡 Scopone (in 4, due coppie; 9 carte a testa, 4 in tavola)\n"
        "1. Al tuo turno giochi una carta.\n"
        "2. La carta giocata prende quella in tavola dello stesso valore; se non c'è, le carte "
        "che sommate fanno il suo valore (J vale 8, Q 9, K 10).\n"
        "3. Se puoi prendere devi farlo, con il minor numero di carte.\n"
        "4. Se porti via tutte le carte in tavola fai scopa: un punto.\n"
        "5. A fine mano un punto a chi ha più carte, uno a chi ha più denari (♦), uno per il "
        "settebello (7♦) e uno per la primiera.\n"
        "6. Vince la coppia che arriva per prima a 11.\n"
        "\n"
        "Comandi\n"
        "/nuova — nuova partita: in un gruppo con gli amici, in privato contro il computer "
        "(/nuova scopone per lo Scopone)\n"
        "/tavolo · /punti · /regole — il tavolo, il punteggio, le opzioni\n"
        "/mano — ti rimando le carte in privato\n"
        "/stop — interrompi la partita · /abbandona — lasciala e la perdi\n"
        "/classifica [mese|livelli] — classifica del gruppo, del mese o per livelli · "
        "/stats — le tue statistiche\n"
        "/verifica — controlla che il mazzo non sia truccato\n"
        "/impostazioni — le impostazioni del gruppo (amministratori)\n"
        "/lingua — cambia lingua · /deletemydata — cancella i tuoi dati"
    ),
    "en": (
        "How to play\n"
        "\n"
        "🃏 Scala 40 (2 to 6 players, 13 cards each)\n"
        "1. Draw from the stock, or take the top discard if you use it in a meld at once.\n"
        "2. Melds are runs in one suit (5♠ 6♠ 7♠) and sets of one rank (8♥ 8♣ 8♦); a joker "
        "stands for any card.\n"
        "3. To open, lay melds worth at least 40 points in one turn.\n"
        "4. Once open, you may lay more melds and add cards to any meld on the table, others' "
        "too.\n"
        "5. Discard a card to end your turn; discarding your last card closes the hand.\n"
        "6. The others score the cards left in their hand (100 if they laid nothing): at 101 "
        "you are out, and the last one left wins.\n"
        "\n"
        "🂡 Scopone (4 players in two pairs; 9 cards each, 4 on the table)\n"
        "1. On your turn, play one card.\n"
        "2. The card you play takes the table card of the same value; if there is none, cards "
        "that add up to its value (J counts 8, Q 9, K 10).\n"
        "3. If you can take, you must, with as few cards as you can.\n"
        "4. Taking every card on the table is a scopa: one point.\n"
        "5. After each hand: a point for most cards, one for most coins (♦), one for the "
        "settebello (7♦) and one for the primiera.\n"
        "6. The first pair to reach 11 wins.\n"
        "\n"
        "Commands\n"
        "/newgame — a new match: in a group with friends, in private against the computer "
        "(/newgame scopone for Scopone)\n"
        "/table · /score · /rules — the table, the score, the options\n"
        "/hand — your cards again, in private\n"
        "/stop — stop the match · /abandon — leave it and lose it\n"
        "/rankings [month|levels] — the group's rankings, this month's or by level · "
        "/stats — your statistics\n"
        "/verify — check that the deck is fair\n"
        "/settings — the group's settings (admins)\n"
        "/language — change language · /deletemydata — delete your data"
    ),
}
GUIDE = {
    "it": (
        "Qui si gioca con i comandi e i pulsanti: i messaggi scritti non li leggo.\n"
        "/nuova — una partita qui, contro il computer\n"
        "/aiuto — come si gioca\n"
        "Per giocare con gli amici aggiungimi a un gruppo e lì scrivete /nuova."
    ),
    "en": (
        "Here you play with commands and buttons: I don't read typed messages.\n"
        "/newgame — a match right here, against the computer\n"
        "/help — how to play\n"
        "To play with friends, add me to a group and type /newgame there."
    ),
}
UNKNOWN = {
    "it": "Non conosco questo comando. /nuova per giocare qui contro il computer, /aiuto per "
    "le regole e i comandi.",
    "en": "I don't know that command. /newgame to play the computer here, /help for the rules "
    "and the commands.",
}
UNKNOWN_GROUP = {
    "it": "Non conosco questo comando: /aiuto li elenca.",
    "en": "I don't know that command: /help lists them.",
}
PRIVATE_MENU = {
    "it": [
        ("nuova", "Nuova partita contro il computer"),
        ("mano", "Rimandami le carte"),
        ("tavolo", "Ripubblica il tavolo"),
        ("punti", "Punteggio"),
        ("regole", "Opzioni della partita"),
        ("stop", "Interrompi la partita"),
        ("abbandona", "Abbandona una partita"),
        ("verifica", "Controlla che il mazzo non sia truccato"),
        ("stats", "Le tue statistiche"),
        ("lingua", "Cambia lingua"),
        ("aiuto", "Come si gioca e i comandi"),
        ("deletemydata", "Cancella i tuoi dati"),
    ],
    "en": [
        ("newgame", "New match against the computer"),
        ("hand", "Send me my cards again"),
        ("table", "Post the table again"),
        ("score", "Score"),
        ("rules", "Match options"),
        ("stop", "Stop the match"),
        ("abandon", "Abandon a match"),
        ("verify", "Check that the deck is fair"),
        ("stats", "Your statistics"),
        ("language", "Change language"),
        ("help", "How to play, and the commands"),
        ("deletemydata", "Delete your data"),
    ],
}
GROUP_MENU = {
    "it": [
        ("nuova", "Nuova partita: Scala 40 o Scopone"),
        ("tavolo", "Ripubblica il tavolo"),
        ("punti", "Punteggio"),
        ("regole", "Opzioni della partita"),
        ("stop", "Interrompi la partita"),
        ("verifica", "Controlla che il mazzo non sia truccato"),
        ("classifica", "Classifica del gruppo"),
        ("torneo", "Nuovo torneo"),
        ("tornei", "I tornei del gruppo"),
        ("aiuto", "Come si gioca e i comandi"),
        ("lingua", "Cambia lingua"),
        ("impostazioni", "Impostazioni del gruppo (amministratori)"),
    ],
    "en": [
        ("newgame", "New match: Scala 40 or Scopone"),
        ("table", "Post the table again"),
        ("score", "Score"),
        ("rules", "Match options"),
        ("stop", "Stop the match"),
        ("verify", "Check that the deck is fair"),
        ("rankings", "The group's rankings"),
        ("tournament", "New tournament"),
        ("tournaments", "The group's tournaments"),
        ("help", "How to play, and the commands"),
        ("language", "Change language"),
        ("settings", "Group settings (admins)"),
    ],
}


def people(server: FakeTelegramServer) -> None:
    seat_people(
        server,
        GROUP,
        "Circolo",
        [(ANNA, "Anna", "it"), (CARLA, "Carla", "en"), (DINO, "Dino", "de")],
        admins=(ANNA,),
    )


def bot_messages(server: FakeTelegramServer, chat_id: int) -> list[str]:
    return [message.text for message in server.messages(chat_id, from_bot=True)]


async def test_start_in_private_says_what_can_be_done_here(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    async with running_bot(server, tmp_path / "o.db") as service:
        for user, name, lang in ((ANNA, "Anna", "it"), (CARLA, "Carla", "en")):
            server.user(user).start_private()
            await settle(server, service)
            welcome = server.last_message(user, from_bot=True)
            assert welcome is not None and welcome.text == START[lang].format(name=name)
            [[button]] = welcome.inline_keyboard
            assert button == {
                "text": ADD[lang],
                "url": f"https://t.me/{BOT}?startgroup=tavolo",
            }
        # The button adds the bot to a group, which is greeted in the language of who added it.
        for user, group, lang in ((ANNA, -100991, "it"), (CARLA, -100992, "en")):
            server.add_group(group, f"Amici {lang}", members=[user], bot_member=False)
            welcome = server.last_message(user, from_bot=True)
            assert welcome is not None
            server.user(user).add_bot_by_link(welcome.inline_keyboard[0][0]["url"], group)
            await settle(server, service)
            assert bot_messages(server, group) == [START_GROUP[lang]]


async def test_help_explains_a_turn_in_the_groups_language(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    english, italian = -100993, -100994
    for group in (english, italian):
        server.add_group(group, "Amici", members=[ANNA, CARLA])
    anna, carla = server.user(ANNA), server.user(CARLA)
    async with running_bot(server, tmp_path / "o.db") as service:
        # A group that never chose a language answers each in their own.
        assert (await say(server, service, carla, GROUP, "/help")).text == HELP["en"]
        assert (await say(server, service, anna, GROUP, "/aiuto")).text == HELP["it"]
        # Carla hosts a group's first match: it speaks English, to Anna too.
        carla.send(english, "/newgame")
        await settle(server, service)
        assert (await say(server, service, anna, english, "/aiuto")).text == HELP["en"]
        assert (await say(server, service, anna, english, f"/start@{BOT}")).text == (
            START_GROUP["en"]
        )
        # Anna's group speaks Italian, to Carla too.
        anna.send(italian, "/nuova")
        await settle(server, service)
        assert (await say(server, service, carla, italian, "/help")).text == HELP["it"]
        # In private, each reads it in their own language.
        assert (await say(server, service, anna, ANNA, "/aiuto")).text == HELP["it"]
        assert (await say(server, service, carla, CARLA, "/help")).text == HELP["en"]
        # A game the bot does not play: the games it plays, each with its command.
        assert (await say(server, service, anna, ANNA, "/nuova briscola")).text == (
            "Gioco sconosciuto: scrivi /nuova scala40 o /nuova scopone."
        )
        assert (await say(server, service, carla, CARLA, "/newgame chess")).text == (
            "Unknown game: type /newgame scala40 or /newgame scopone."
        )


async def test_words_and_unknown_commands_get_a_short_guide_in_private(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    anna, carla = server.user(ANNA), server.user(CARLA)
    async with running_bot(server, tmp_path / "o.db") as service:
        said = await say(server, service, anna, ANNA, "ciao, come si gioca?")
        assert said.text == GUIDE["it"]
        assert said.inline_keyboard[0][0]["text"] == ADD["it"]
        said = await say(server, service, carla, CARLA, "hi, how do I play?")
        assert said.text == GUIDE["en"]
        assert said.inline_keyboard[0][0]["text"] == ADD["en"]
        assert (await say(server, service, anna, ANNA, "/gioca")).text == UNKNOWN["it"]
        assert (await say(server, service, carla, CARLA, "/play")).text == UNKNOWN["en"]


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_guide_keeps_a_private_matchs_hand_the_last_message(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    server = fake_telegram
    people(server)
    user = server.user(ANNA if lang == "it" else CARLA)
    words = {"it": ("/nuova", "🤖 + Facile", "/aiuto"), "en": ("/newgame", "🤖 + Easy", "/help")}
    new, computer, help_ = words[lang]
    async with running_bot(server, tmp_path / "o.db") as service:
        lobby = await say(server, service, user, user.id, new)
        _, lobby = await tap(server, service, user, lobby, computer)
        await tap(server, service, user, lobby, "▶️")
        record = service.store.active_match_in_chat(user.id)
        assert record is not None and record.status == "playing"
        for text, expected in (("ciao!", GUIDE[lang]), (help_, HELP[lang]), ("/x", UNKNOWN[lang])):
            user.send(user.id, text)
            await settle(server, service)
            answer, hand = server.messages(user.id, from_bot=True)[-2:]
            assert answer.text == expected
            assert hand.message_id == service.store.get_match(record.id).seats[0].hand_message_id


def private_requests(server: FakeTelegramServer, chat_id: int, after: int) -> list[str]:
    """The messages sent to (and deleted from) a private chat since the call ``after``."""
    return [
        call.method
        for call in server.calls_of("sendMessage", "deleteMessage", ok=True)
        if call.seq > after and call.params.get("chat_id") == chat_id
    ]


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_words_during_a_private_match_get_one_guide_and_one_new_hand(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Three "dai!" typed during a match against the computer: the guide once, the hand
    posted again below it once (and the old one deleted); then the hand stays the last
    message and nothing more is sent. ``/start`` posts the welcome and the hand below it once."""
    server = fake_telegram
    people(server)
    user = server.user(ANNA if lang == "it" else CARLA)
    name = "Anna" if lang == "it" else "Carla"
    new, computer = {"it": ("/nuova", "🤖 + Facile"), "en": ("/newgame", "🤖 + Easy")}[lang]
    async with running_bot(server, tmp_path / "o.db") as service:
        lobby = await say(server, service, user, user.id, new)
        _, lobby = await tap(server, service, user, lobby, computer)
        await tap(server, service, user, lobby, "▶️")
        record = service.store.active_match_in_chat(user.id)
        assert record is not None and record.status == "playing"

        def hand_is_last() -> bool:
            hand = service.store.get_match(record.id).seats[0].hand_message_id
            last = server.last_message(user.id, from_bot=True)
            return last is not None and last.message_id == hand

        mark = server.mark()
        for _ in range(3):
            user.send(user.id, "dai!")
            await settle(server, service)
            assert hand_is_last()
        texts = [m.text for m in server.messages(user.id, from_bot=True)]
        assert texts.count(GUIDE[lang]) == 1 and texts[-2] == GUIDE[lang]
        assert private_requests(server, user.id, mark) == [
            "sendMessage",  # the guide
            "sendMessage",  # the hand, below it
            "deleteMessage",  # the old hand
        ]
        mark = server.mark()
        user.send(user.id, "/start")
        await settle(server, service)
        assert hand_is_last()
        assert server.messages(user.id, from_bot=True)[-2].text == START[lang].format(name=name)
        assert private_requests(server, user.id, mark) == [
            "sendMessage",
            "sendMessage",
            "deleteMessage",
        ]


async def test_a_group_is_answered_only_when_it_names_the_bot(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    server.chat(GROUP).bot_status = "administrator"  # an admin bot reads every message
    anna, carla = server.user(ANNA), server.user(CARLA)
    async with running_bot(server, tmp_path / "o.db") as service:
        anna.send(GROUP, "ciao a tutti, chi gioca?")
        anna.send(GROUP, "/gioca")  # maybe another bot's
        await settle(server, service)
        assert bot_messages(server, GROUP) == []
        assert (await say(server, service, carla, GROUP, f"/play@{BOT}")).text == (
            UNKNOWN_GROUP["en"]
        )
        anna.send(GROUP, "/lingua it")
        await settle(server, service)
        assert (await say(server, service, carla, GROUP, f"/gioca@{BOT}")).text == (
            UNKNOWN_GROUP["it"]
        )


async def test_the_command_menus_per_scope_and_language(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    async with running_bot(server, tmp_path / "o.db"):

        def menu(chat_id: int, user: int) -> list[tuple[str, str]]:
            return [(c["command"], c["description"]) for c in server.menu(chat_id, user)]

        assert menu(ANNA, ANNA) == PRIVATE_MENU["it"]
        assert menu(CARLA, CARLA) == PRIVATE_MENU["en"]
        assert menu(DINO, DINO) == PRIVATE_MENU["en"]  # the bot speaks English to him too
        assert menu(GROUP, ANNA) == GROUP_MENU["it"]
        assert menu(GROUP, CARLA) == GROUP_MENU["en"]
        assert menu(GROUP, DINO) == GROUP_MENU["en"]
