"""End to end: several tables in one group (issue 27) through the fake Bot API: a second table
opens beside a running one, labelled; commands act on the table replied to, else on the
player's own, else the group is asked which with a button per table; every table taken is
said; a player sits at one table of a group at a time; a stopped table frees its number."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot import callbacks
from bot.service import Tavolo
from engine import scopone
from storage import Store
from testkit.bot_harness import (
    SPEED,
    button_data,
    hand_of,
    running_bot,
    say,
    seat_people,
    settle,
    store_started_match,
    tap,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser
from testkit.fake_telegram.html import parse_html

GROUP = -100770
ANNA, BEA, CARLO, DORA = 1771, 1772, 1773, 1774
PEOPLE = [(ANNA, "Anna", "it"), (BEA, "Bea", "it"), (CARLO, "Carlo", "it")]
STALE = "Questo pulsante non è più valido."
WHICH = "🪑 Qui si gioca a più tavoli: scegli quale."


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
    record = next(m for m in service.store.active_matches_in_chat(GROUP) if m.creator_id == host.id)
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
        first, second = service.store.active_matches_in_chat(GROUP)
        assert (first.creator_id, second.creator_id) == (ANNA, BEA)
        assert (first.table_number, second.table_number) == (1, 2)

        # Both tables taken: a third is refused, saying why.
        full = await say(server, service, carlo, GROUP, "/nuova scala40")
        assert full.text == (
            "Tutti i tavoli del gruppo (2) sono occupati: se ne libera uno quando finisce una "
            "partita. Gli amministratori ne scelgono il numero con /impostazioni."
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
        assert [m.creator_id for m in service.store.active_matches_in_chat(GROUP)] == [ANNA]

        # The free table opens again, with its number; a player of table 1 cannot sit there.
        lobby_3 = await say(server, service, carlo, GROUP, "/nuova scala40")
        assert lobby_3.text.splitlines()[:2] == ["🪑 Tavolo 2", "🃏 Nuova partita: Scala 40"]
        refused = await anna.press(GROUP, lobby_3.message_id, _button(lobby_3, "✋")).answered()
        assert (refused.get("text"), refused.get("show_alert")) == (
            "Sei già a un altro tavolo del gruppo: si gioca a un tavolo alla volta.",
            True,
        )
        pointed = await say(server, service, anna, GROUP, "/nuova scala40")
        assert pointed.text == "Qui sei già a un tavolo: ⬆️"
        assert pointed.reply_to is not None
        assert pointed.reply_to.message_id == first.table_message_id


async def _said(
    server: FakeTelegramServer, service: Tavolo, user: FakeUser, topic: int, text: str
) -> tuple[FakeMessage, FakeMessage]:
    """``user`` writes ``text`` in a forum's ``topic``: the message, and the bot's last one."""
    asked = user.send(FORUM, text, thread=topic)
    await settle(server, service)
    said = server.last_message(FORUM, from_bot=True)
    assert said is not None
    return asked, said


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


THREE = -100780
PLAYERS = [[(1780 + 4 * t + seat, f"P{t}{seat}", "it") for seat in range(4)] for t in range(3)]


def _plays(hand: FakeMessage) -> list[str]:
    """The cards a Scopone hand offers to play, then its capture choices."""
    markup = (hand.reply_markup or {}).get("inline_keyboard", [])
    data = [button.get("callback_data", "") for row in markup for button in row]
    return [d for d in data if ":c:" in d] or [d for d in data if ":p:" in d]


@pytest.mark.parametrize("forum", [False, True], ids=["group", "forum"])
async def test_three_tables_at_a_persons_pace_share_the_group(
    fake_telegram: FakeTelegramServer, tmp_path: Path, forum: bool
) -> None:
    """Three Scopone tables in one group (or each in a topic of a forum), their players
    tapping at a person's pace all at once (at the harness's speed): every press is answered,
    no request is refused by the flood limits (the harness checks both), and each table, once
    the group's budget lets it, shows its match as stored, with its number (in its topic)."""
    server, database = fake_telegram, tmp_path / "three.db"
    everyone = [person for table in PLAYERS for person in table]
    ids_ = [user for user, _, _ in everyone]
    users = [server.add_user(user, name, language_code=lang) for user, name, lang in everyone]
    for user in users:
        user.start_private()
    server.add_group(THREE, "Circolo", members=ids_, admins=[ids_[0]], forum=forum)
    topics = [server.add_topic(THREE, f"Tavolo {n}") if forum else None for n in (1, 2, 3)]
    server.pop_updates()
    ids = [
        store_started_match(
            database,
            THREE,
            "Circolo",
            PLAYERS[table],
            "scopone",
            scopone.new_match(seed=20 + table).to_json(),
            scopone.Options().to_dict(),
            tables=3,
            thread=topics[table],
        )
        for table in range(3)
    ]
    by_id = {user.id: user for user in users}
    async with running_bot(server, database) as service:
        await settle(server, service)
        answers = await asyncio.gather(
            *(
                _play(server, service, match_id, by_id, plays=12, seed=n)
                for n, match_id in enumerate(ids)
            )
        )
        await settle(server, service)
        assert all(text is None for table in answers for text in table)
        for number, match_id in enumerate(ids, 1):
            record = service.store.get_match(match_id)
            assert record.table_number == number and len(service.store.moves(match_id)) >= 12
            table = server.message(THREE, record.table_message_id or 0)
            shown = await service.shows.table_render(match_id)
            assert table is not None and shown is not None and table.text == _plain(shown.text)
            assert table.text.startswith("🪑 Tavolo " if number > 1 else "🃏 Scopone")
            assert table.thread_id == topics[number - 1]


async def _play(
    server: FakeTelegramServer,
    service: Tavolo,
    match_id: int,
    users: dict[int, FakeUser],
    plays: int,
    seed: int,
) -> list[str | None]:
    """The players of a Scopone match play ``plays`` cards, each 1 to 2 s (at the harness's
    speed) after the previous move: the answers' texts."""
    rng = random.Random(seed)
    answers: list[str | None] = []
    while len(service.store.moves(match_id)) < plays:
        moves = len(service.store.moves(match_id))
        await asyncio.sleep(rng.uniform(1.0, 2.0) / SPEED)
        seat = service.engine(service.store.get_match(match_id)).to_play
        assert seat is not None
        user = service.store.get_match(match_id).seats[seat].user_id or 0
        hand = hand_of(server, service, match_id, user)
        await server.wait_for(lambda h=hand: _plays(h), message="no card to play shown")
        answer = await users[user].press(user, hand.message_id, _plays(hand)[0])
        answers.append(answer["text"])
        while len(service.store.moves(match_id)) == moves:  # several captures: choose one
            await server.wait_for(lambda h=hand: any(":c:" in d for d in _plays(h)))
            answer = await users[user].press(user, hand.message_id, _plays(hand)[0])
            answers.append(answer["text"])
    return answers


def _plain(html: str) -> str:
    """The text a message shows for its HTML (as the fake stores it)."""
    return parse_html(html)[0]


FORUM = -100790


async def test_a_table_plays_in_the_forum_topic_it_was_opened_in(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """In a forum, ``/nuova`` typed in a topic hosts the table there: its lobby, its table and
    the answers to the commands typed there go to that topic; a command typed in a topic
    concerns its table; a second ``/nuova`` there points at it."""
    server, database = fake_telegram, tmp_path / "forum.db"
    people = [
        (ANNA, "Anna", "it"),
        (BEA, "Bea", "it"),
        (CARLO, "Carlo", "it"),
        (DORA, "Dora", "it"),
    ]
    users = [server.add_user(user, name, language_code=lang) for user, name, lang in people]
    for user in users:
        user.start_private()
    anna, bea, carlo, dora = users
    members = [user for user, _, _ in people]
    server.add_group(FORUM, "Circolo", members=members, admins=[ANNA], forum=True)
    scala, scopa = server.add_topic(FORUM, "Scala 40"), server.add_topic(FORUM, "Scopone")
    server.pop_updates()
    with Store.open(f"sqlite:///{database}") as store:
        store.set_tables(FORUM, 4)
        for user, _, _ in people:
            store.set_private_chat(user, True)
    async with running_bot(server, database) as service:
        tables = []
        for host, topic in ((anna, scala), (bea, scopa)):
            host.send(FORUM, "/nuova scala40", thread=topic)
            await settle(server, service)
            lobby = server.last_message(FORUM, from_bot=True)
            assert lobby is not None and lobby.thread_id == topic
            _, lobby = await tap(server, service, host, lobby, "🤖 + Facile")
            _, table = await tap(server, service, host, lobby, "▶️")
            tables.append(table)
        first, second = service.store.active_matches_in_chat(FORUM)
        assert (first.thread_id, second.thread_id) == (scala, scopa)
        assert tables[1].text.splitlines()[0] == "🪑 Tavolo 2" and tables[1].thread_id == scopa

        # Carlo sits at no table: in a topic, the command concerns the topic's table.
        asked, score = await _said(server, service, carlo, scopa, "/punti")
        assert score.text == "🪑 Tavolo 2\nPunteggio\nBea: 0\n🤖 1: 0"
        assert score.thread_id == scopa and score.reply_to is not None
        assert score.reply_to.message_id == asked.message_id
        _, pointer = await _said(server, service, carlo, scala, "/nuova scala40")
        assert pointer.text == "C'è già una partita in corso qui: ⬆️"
        assert pointer.thread_id == scala and pointer.reply_to is not None
        assert pointer.reply_to.message_id == first.table_message_id
        # In the General topic nothing tells which: the group is asked.
        which = await say(server, service, carlo, FORUM, "/punti")
        assert which.text == WHICH and which.thread_id is None

        # A new topic gets its own table, even with a lobby of that game waiting elsewhere.
        third, fourth = server.add_topic(FORUM, "Terzo"), server.add_topic(FORUM, "Quarto")
        for user, topic, number in ((carlo, third, 3), (dora, fourth, 4)):
            _, lobby = await _said(server, service, user, topic, "/nuova scala40")
            assert lobby.thread_id == topic and lobby.text.splitlines()[0] == f"🪑 Tavolo {number}"
            assert f"1. {user.first_name}" in lobby.text.splitlines()
        # Anna, at table 1 in another topic, is pointed there with a link, from this topic.
        asked, pointer = await _said(server, service, anna, third, "/nuova scala40")
        assert pointer.text == "Qui sei già a un tavolo: ➡️"
        assert pointer.thread_id == third and pointer.reply_to is not None
        assert pointer.reply_to.message_id == asked.message_id
        url = f"https://t.me/c/790/{scala}/{first.table_message_id}"
        assert [e.get("url") for e in pointer.entities] == [url]

        # The Scopone topic is deleted: its table goes on in the group itself.
        server.delete_topic(FORUM, scopa)
        bea.send(FORUM, "/tavolo")
        await settle(server, service)
        moved = server.message(FORUM, service.store.get_match(second.id).table_message_id or 0)
        assert moved is not None and moved.thread_id is None
        assert moved.text.splitlines()[0] == "🪑 Tavolo 2"
        assert service.store.get_match(second.id).thread_id is None  # for good


OWN = -100795


@pytest.mark.parametrize("may", [True, False], ids=["may", "may-not"])
async def test_a_table_opened_in_general_gets_a_topic_of_its_own(
    fake_telegram: FakeTelegramServer, tmp_path: Path, may: bool
) -> None:
    """``/nuova`` typed in a forum's General topic: where the bot may manage topics, the
    table opens a topic of its own ("Tavolo 1 · Scala 40") and the one who asked is pointed
    at it; where it may not, the table plays in General."""
    server, database = fake_telegram, tmp_path / "own.db"
    anna = server.add_user(ANNA, "Anna", language_code="it")
    anna.start_private()
    server.add_group(
        OWN, "Circolo", members=[ANNA], admins=[ANNA], forum=True, bot_admin=True,
        bot_manages_topics=may,
    )  # fmt: skip
    server.pop_updates()
    with Store.open(f"sqlite:///{database}") as store:
        store.set_private_chat(ANNA, True)
    async with running_bot(server, database) as service:
        asked = anna.send(OWN, "/nuova scala40")
        await settle(server, service)
        (record,) = service.store.active_matches_in_chat(OWN)
        lobby = server.message(OWN, record.table_message_id or 0)
        assert lobby is not None and lobby.text.startswith("🃏 Nuova partita: Scala 40")
        if not may:
            assert record.thread_id is None and lobby.thread_id is None
            return
        chat = server.chat(OWN)
        assert record.thread_id is not None and lobby.thread_id == record.thread_id
        assert chat.topics[record.thread_id] == "Tavolo 1 · Scala 40"
        pointer = next(
            m
            for m in server.messages(OWN, from_bot=True)
            if m.reply_to is not None and m.reply_to.message_id == asked.message_id
        )
        assert pointer.text == "🪑 Il nuovo tavolo ha un argomento tutto suo: ➡️"
        assert pointer.thread_id is None
        link = f"https://t.me/c/795/{record.thread_id}"
        assert [e.get("url") for e in pointer.entities] == [link]


async def test_verify_replied_to_a_final_ranking_names_that_table(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Two tables; Anna's ends (she abandons): Carlo, at no table, replies /verifica to its
    final ranking, and gets that match's file, not the question which table."""
    server, database = fake_telegram, tmp_path / "ranking.db"
    anna, bea, carlo = seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ANNA,))
    with Store.open(f"sqlite:///{database}") as store:
        store.set_tables(GROUP, 2)
        for user, _, _ in PEOPLE:
            store.set_private_chat(user, True)
    async with running_bot(server, database) as service:
        await _open_table(server, service, anna)
        await _open_table(server, service, bea)
        first = next(m for m in service.store.active_matches_in_chat(GROUP) if m.creator_id == ANNA)
        anna.send(ANNA, "/abbandona")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        await anna.press(ANNA, question.message_id, button_data(question, "✅ Sì")).answered()
        await settle(server, service)
        ranking = server.last_message(GROUP, from_bot=True)
        assert ranking is not None and "/verifica" in ranking.text.splitlines()[-1]
        carlo.reply(GROUP, ranking.message_id, "/verifica")
        await settle(server, service)
        proof = server.last_message(GROUP, from_bot=True)
        assert proof is not None and proof.document is not None
        assert proof.document["file_name"] == f"tavolo-{first.id}.json"


async def test_a_rematch_whose_topic_holds_a_new_table_says_so(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Anna's table in the Scala 40 topic ends; Bea opens a new table there; Anna's rematch
    button answers that the topic holds another table (not that every table is taken)."""
    server, database = fake_telegram, tmp_path / "rematch.db"
    anna, bea = server.add_user(ANNA, "Anna", "it"), server.add_user(BEA, "Bea", "it")
    for user in (anna, bea):
        user.start_private()
    server.add_group(FORUM, "Circolo", members=[ANNA, BEA], admins=[ANNA], forum=True)
    topic = server.add_topic(FORUM, "Scala 40")
    server.pop_updates()
    with Store.open(f"sqlite:///{database}") as store:
        for user in (ANNA, BEA):
            store.set_private_chat(user, True)
    async with running_bot(server, database) as service:
        _, lobby = await _said(server, service, anna, topic, "/nuova scala40")
        _, lobby = await tap(server, service, anna, lobby, "🤖 + Facile")
        await tap(server, service, anna, lobby, "▶️")
        anna.send(ANNA, "/abbandona")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        await anna.press(ANNA, question.message_id, button_data(question, "✅ Sì")).answered()
        await settle(server, service)
        ranking = server.last_message(FORUM, from_bot=True)
        assert ranking is not None and ranking.thread_id == topic
        _, new = await _said(server, service, bea, topic, "/nuova scala40")
        assert new.thread_id == topic and "1. Bea" in new.text.splitlines()
        answer, _ = await tap(server, service, anna, ranking, "🔄 Rivincita")
        assert answer["text"] == (
            "In questo argomento si gioca già un altro tavolo: per la rivincita, /nuova in un "
            "altro argomento."
        )
