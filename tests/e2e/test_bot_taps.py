"""End to end: taps never wait behind the table, in an Italian and an English group.

A lobby tap from a keyboard a change old is applied when it is harmless (an option's next value
counted from the stored one, back); a start is not. A repeated command is answered, pointing up
at the earlier answer. A refusal that concerns one person is told to that person in private.
The rematch seats who asked for it and asks the others; a lobby whose host leaves passes to the
next seated player, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.service import Tavolo
from engine.scala40 import Options
from storage import Store
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
    tap,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position

GROUP = -100970
ANNA, LUCA, MARCO = 1971, 1972, 1973


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


@dataclass(frozen=True)
class Words:
    """What players of one language type and read."""

    lang: str
    title: str
    new: str
    score: str
    options: str
    opening: str
    back: str
    join: str
    leave: str
    start: str
    yes: str
    rematch: str
    rematch_open: str
    at_table: str
    stale: str
    see_above: str
    running: str
    refused: str
    refused_in: str
    language: str
    refusal: str
    asked: str
    host: str
    lobby: str
    computer: str
    cancelled: str
    delete: str
    only_computers: str


ITALIAN = Words(
    lang="it",
    title="Circolo",
    new="/nuova",
    score="/punti",
    options="⚙️ Opzioni",
    opening="Punti d'apertura",
    back="⬅️ Indietro",
    join="✋ Partecipa",
    leave="🚪 Esci",
    start="▶️ Inizia",
    yes="✅ Sì",
    rematch="🔄 Rivincita",
    rematch_open="La rivincita è già aperta: tocca ✋ Partecipa.",
    at_table="Sei già al tavolo.",
    stale="Questo pulsante non è più valido.",
    see_above="⬆️ Vedi sopra.",
    running="Qui sei già a un tavolo: ⬆️",
    refused="Nel gruppo Circolo:\nSolo chi organizza o un amministratore può farlo.",
    refused_in="Nel gruppo {group}:\nSolo chi organizza o un amministratore può farlo.",
    language="/lingua",
    refusal="Solo chi organizza o un amministratore può farlo.",
    asked="🔄 Luca chiede la rivincita. Anna, ci stai? Tocca ✋ Partecipa.",
    host="Organizzata da Anna",
    lobby="🃏 Nuova partita: Scala 40",
    computer="🤖 + Facile",
    cancelled="Partita annullata.",
    delete="/deletemydata",
    only_computers="Al tavolo ci sono solo computer: siediti con ✋ Partecipa.",
)
ENGLISH = Words(
    lang="en",
    title="Club",
    new="/newgame",
    score="/score",
    options="⚙️ Options",
    opening="Opening points",
    back="⬅️ Back",
    join="✋ Join",
    leave="🚪 Leave",
    start="▶️ Start",
    yes="✅ Yes",
    rematch="🔄 Rematch",
    rematch_open="The rematch is already open: tap ✋ Join.",
    at_table="You are already at the table.",
    stale="This button is no longer valid.",
    see_above="⬆️ See above.",
    running="You are already at a table here: ⬆️",
    refused="In Club:\nOnly the host or a group admin can do that.",
    refused_in="In {group}:\nOnly the host or a group admin can do that.",
    language="/language",
    refusal="Only the host or a group admin can do that.",
    asked="🔄 Luca wants a rematch. Anna, are you in? Tap ✋ Join.",
    host="Hosted by Anna",
    lobby="🃏 New match: Scala 40",
    computer="🤖 + Easy",
    cancelled="Match cancelled.",
    delete="/deletemydata",
    only_computers="Only computers are seated: tap ✋ Join to sit down.",
)
BOTH = pytest.mark.parametrize("words", [ITALIAN, ENGLISH], ids=["it", "en"])
OTHER = {"it": ENGLISH, "en": ITALIAN}


def people(server: FakeTelegramServer, words: Words) -> None:
    seat_people(
        server, GROUP, words.title, [(ANNA, "Anna", words.lang), (LUCA, "Luca", words.lang)]
    )


def running_match(database: Path, words: Words, luca: str | None = None) -> int:
    """Anna and Luca's match, running in the group (which speaks ``words``' language; Luca
    reads ``luca``, by default the group's language)."""
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    match_id = store_started_match(
        database,
        GROUP,
        words.title,
        [(ANNA, "Anna", words.lang), (LUCA, "Luca", luca or words.lang)],
        "scala40",
        match.to_json(),
        Options().to_dict(),
    )
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_chat_language(GROUP, words.lang)
    finally:
        store.close()
    return match_id


def last(server: FakeTelegramServer, chat_id: int) -> FakeMessage:
    message = server.last_message(chat_id, from_bot=True)
    assert message is not None
    return message


@BOTH
async def test_a_lobby_tap_from_a_keyboard_a_change_old_is_applied(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Anna taps the opening points twice on the panel her phone shows (the second tap from a
    keyboard her first made old): both count, from the stored value (40 -> 50 -> 60); back
    from that keyboard too. A start from a lobby that changed since is refused."""
    server = fake_telegram
    people(server, words)
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "t.db") as service:
        for user in (anna, luca):  # the bot may write to them: they sit when they join
            user.send(user.id, "/start")
        await settle(server, service)
        anna.send(GROUP, words.new)
        await settle(server, service)
        lobby = last(server, GROUP)
        assert lobby.text.startswith(words.lobby)
        answer, panel = await tap(server, service, anna, lobby, words.options)
        assert answer["text"] is None
        seen = keyboard_data(panel)  # what Anna's phone shows; her taps make it old
        opening = seen[f"{words.opening}: 40"]
        first = await anna.press(GROUP, panel.message_id, opening).answered()
        again = await anna.press(GROUP, panel.message_id, opening, force=True).answered()
        back = await anna.press(GROUP, panel.message_id, seen[words.back], force=True).answered()
        assert [first["text"], again["text"], back["text"]] == [None, None, None]
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.options["opening_points"] == 60
        lobby = last(server, GROUP)
        assert lobby.message_id == panel.message_id and lobby.text.startswith(words.lobby)

        start = button_data(lobby, words.start)
        await tap(server, service, luca, lobby, words.join)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and [s.name for s in record.seats] == ["Anna", "Luca"]
        refused = await anna.press(GROUP, lobby.message_id, start, force=True).answered()
        assert refused["text"] == words.stale
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.status == "lobby"


@BOTH
async def test_a_repeated_command_is_answered(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """The score asked twice, a new match asked twice while one runs: the second of each is
    answered with a pointer up at the first answer (replying to it)."""
    server = fake_telegram
    people(server, words)
    running_match(tmp_path / "t.db", words)
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        for user, command in ((anna, words.score), (luca, words.new)):
            asked = user.send(GROUP, command)
            await settle(server, service)
            answer = last(server, GROUP)
            assert answer.reply_to is not None and answer.message_id > asked.message_id
            if command == words.new:
                assert answer.text == words.running
            user.send(GROUP, command)
            await settle(server, service)
            pointer = last(server, GROUP)
            assert pointer.text == words.see_above and pointer.message_id > answer.message_id
            assert pointer.reply_to is not None
            assert pointer.reply_to.message_id == answer.message_id


@BOTH
async def test_a_refusal_for_one_player_is_told_in_private(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Luca, neither host nor admin, types /stop in the group: he alone is told, in private."""
    server = fake_telegram
    people(server, words)
    running_match(tmp_path / "t.db", words)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        before = last(server, GROUP).message_id
        server.user(LUCA).send(GROUP, "/stop")
        await settle(server, service)
        assert last(server, GROUP).message_id == before
        assert last(server, LUCA).text == words.refused


@BOTH
async def test_a_language_refusal_is_told_in_private_in_the_players_own_language(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Luca, neither host nor admin, reads the other language: his /lingua (/language) in the
    group is refused to him alone, in private, in his own language."""
    server = fake_telegram
    other = OTHER[words.lang]
    people = [(ANNA, "Anna", words.lang), (LUCA, "Luca", other.lang)]
    seat_people(server, GROUP, words.title, people)
    running_match(tmp_path / "t.db", words, luca=other.lang)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        before = last(server, GROUP).message_id
        server.user(LUCA).send(GROUP, f"{words.language} {other.lang}")
        await settle(server, service)
        assert last(server, GROUP).message_id == before
        assert last(server, LUCA).text == other.refused_in.format(group=words.title)
        assert service.store.chat_settings(GROUP).language == words.lang


@BOTH
async def test_a_refusal_goes_to_the_group_when_the_player_blocked_the_bot(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Luca blocked the bot (the bot was not told): Telegram refuses the private message, so
    his /lingua (/language) is refused in the group, in its language, replying to him."""
    server = fake_telegram
    people(server, words)
    running_match(tmp_path / "t.db", words)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        server.chats[LUCA].blocked = True
        asked = server.user(LUCA).send(GROUP, f"{words.language} {OTHER[words.lang].lang}")
        await settle(server, service)
        answer = last(server, GROUP)
        assert answer.text == words.refusal
        assert answer.reply_to is not None and answer.reply_to.message_id == asked.message_id


@BOTH
async def test_the_rematch_asks_and_a_lobby_passes_to_the_next_host(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Luca abandons, then asks for a rematch: he sits, Anna is asked and joins with a tap.
    Luca leaves: the lobby is Anna's, and says so; she opens its options."""
    server = fake_telegram
    people(server, words)
    running_match(tmp_path / "t.db", words)
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        luca.send(LUCA, "/abandon")
        await settle(server, service)
        question = last(server, LUCA)
        await luca.press(LUCA, question.message_id, button_data(question, words.yes)).answered()
        await settle(server, service)
        ranking = last(server, GROUP)
        answer, _ = await tap(server, service, luca, ranking, words.rematch)
        assert answer["text"] is None
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and [s.name for s in record.seats] == ["Luca"]
        assert last(server, GROUP).text == words.asked
        # The rematch opens once: pressed again, by Anna or by Luca, it points at it.
        again = await anna.press(GROUP, ranking.message_id, button_data(ranking, words.rematch))
        assert again.get("text") == words.rematch_open
        again = await luca.press(GROUP, ranking.message_id, button_data(ranking, words.rematch))
        assert again.get("text") == words.at_table
        await settle(server, service)
        assert [m.id for m in service.store.active_matches_in_chat(GROUP)] == [record.id]
        lobby = server.message(GROUP, record.table_message_id or 0)
        assert lobby is not None and lobby.text.startswith(words.lobby)
        assert words.host not in lobby.text

        await tap(server, service, anna, lobby, words.join)
        await tap(server, service, luca, lobby, words.leave)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and [s.name for s in record.seats] == ["Anna"]
        assert record.creator_id == ANNA
        lobby = server.message(GROUP, record.table_message_id or 0)
        assert lobby is not None and words.host in lobby.text.splitlines()
        answer, panel = await tap(server, service, anna, lobby, words.options)
        assert answer["text"] is None and words.opening in "".join(keyboard_data(panel))


async def open_lobby(server: FakeTelegramServer, service: Tavolo, words: Words) -> FakeMessage:
    """Everyone starts the bot in private; Anna opens a Scala 40 lobby in the group: its
    message."""
    for user_id in (ANNA, LUCA, MARCO):
        if user_id in server.users:
            server.user(user_id).send(user_id, "/start")
    await settle(server, service)
    server.user(ANNA).send(GROUP, words.new)
    await settle(server, service)
    return last(server, GROUP)


async def erase(server: FakeTelegramServer, service: Tavolo, words: Words, user_id: int) -> None:
    """The user erases their data in private, and confirms."""
    user = server.user(user_id)
    user.send(user_id, words.delete)
    await settle(server, service)
    question = last(server, user_id)
    await user.press(user_id, question.message_id, button_data(question, words.yes)).answered()
    await settle(server, service)


@BOTH
async def test_a_host_who_erases_their_data_passes_the_lobby_on(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Anna hosts, Luca and Marco sit; Anna erases her data: her seat goes, the lobby is
    Luca's and says so, and he starts the match."""
    server = fake_telegram
    everyone = [(ANNA, "Anna", words.lang), (LUCA, "Luca", words.lang)]
    seat_people(server, GROUP, words.title, [*everyone, (MARCO, "Marco", words.lang)])
    async with running_bot(server, tmp_path / "t.db") as service:
        lobby = await open_lobby(server, service, words)
        await tap(server, service, server.user(LUCA), lobby, words.join)
        await tap(server, service, server.user(MARCO), lobby, words.join)
        await erase(server, service, words, ANNA)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.creator_id == LUCA
        assert [s.name for s in record.seats] == ["Luca", "Marco"]
        lobby = server.message(GROUP, lobby.message_id)
        assert lobby is not None and words.host.replace("Anna", "Luca") in lobby.text
        assert "Anna" not in lobby.text
        answer, _ = await tap(server, service, server.user(LUCA), lobby, words.start)
        assert answer["text"] is None
        assert service.store.get_match(record.id).status == "playing"


@BOTH
async def test_a_host_who_erases_their_data_passes_the_running_match_on(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Anna hosts a running match with Luca and erases her data: her seat plays on without
    her, and the match is Luca's: his /stop (he is no admin) asks, and stops it."""
    server = fake_telegram
    people(server, words)
    match_id = running_match(tmp_path / "t.db", words)
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        await erase(server, service, words, ANNA)
        assert service.store.get_match(match_id).creator_id == LUCA
        server.user(LUCA).send(GROUP, "/stop")
        await settle(server, service)
        question = last(server, GROUP)
        await tap(server, service, server.user(LUCA), question, words.yes)
        assert service.store.get_match(match_id).status == "stopped"


@BOTH
async def test_a_lobby_left_without_a_person_by_an_erasure_is_cancelled(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Anna hosts with a computer and erases her data: nobody is left to start it, so the
    lobby is cancelled and says so; Luca opens a new one."""
    server = fake_telegram
    people(server, words)
    async with running_bot(server, tmp_path / "t.db") as service:
        lobby = await open_lobby(server, service, words)
        await tap(server, service, server.user(ANNA), lobby, words.computer)
        await erase(server, service, words, ANNA)
        lobby = server.message(GROUP, lobby.message_id)
        assert lobby is not None and lobby.text == words.cancelled
        server.user(LUCA).send(GROUP, words.new)
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and record.creator_id == LUCA
        assert last(server, GROUP).text.startswith(words.lobby)


@BOTH
async def test_a_lobby_with_only_computers_seated_cannot_start(
    fake_telegram: FakeTelegramServer, tmp_path: Path, words: Words
) -> None:
    """Anna seats two computers and leaves: she still hosts (she may sit again), but a match
    of computers alone does not start, and she is told why."""
    server = fake_telegram
    people(server, words)
    anna = server.user(ANNA)
    async with running_bot(server, tmp_path / "t.db") as service:
        lobby = await open_lobby(server, service, words)
        for _ in range(2):
            lobby = (await tap(server, service, anna, lobby, words.computer))[1]
        lobby = (await tap(server, service, anna, lobby, words.leave))[1]
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None and all(s.is_computer for s in record.seats)
        assert len(record.seats) == 2
        answer, _ = await tap(server, service, anna, lobby, words.start)
        assert answer["text"] == words.only_computers
        assert service.store.get_match(record.id).status == "lobby"
