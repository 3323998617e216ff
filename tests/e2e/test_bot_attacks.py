"""End to end, as an attacker: replayed buttons across groups and chats, forged and oversized
payloads, hostile names, answered questions pressed again, a handler that fails. Each press is
answered (or refused) and changes nothing; no request fails at Telegram.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.hand.state import context_token
from bot.i18n import isolated
from bot.matches import ui_of
from bot.service import Tavolo
from engine import scala40
from storage import DatabaseUnavailable, PlayerResult, Store
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position

GROUP_A, GROUP_B = -100610, -100620
ANNA, LUCA, MALLORY, EVE = 1001, 1002, 1003, 1004
PEOPLE_A = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
STALE_IT, STALE_EN = "Questo pulsante non è più valido.", "This button is no longer valid."


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def api_errors(server: FakeTelegramServer) -> list[str]:
    """Every request Telegram refused (none is expected in these tests)."""
    return [c.summary() for c in server.calls if c.done and not c.ok and c.method != "getUpdates"]


def two_groups(server: FakeTelegramServer, database: Path) -> int:
    """Group A: Anna (its admin) and Luca play Scala 40. Group B: Mallory is its admin (and
    not in A); Eve is in neither."""
    seat_people(server, GROUP_A, "Circolo", PEOPLE_A, admins=(ANNA,))
    seat_people(server, GROUP_B, "Covo", [(MALLORY, "Mallory", "en")], admins=(MALLORY,))
    server.add_user(EVE, "Eve", language_code="en").start_private()
    server.pop_updates()
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    return store_started_match(
        database, GROUP_A, "Circolo", PEOPLE_A, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip


def state(service: Tavolo, match_id: int) -> tuple[str, int]:
    record = service.store.get_match(match_id)
    return record.status, record.version


async def test_a_question_is_answered_once_in_its_chat_by_its_asker(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Group A's /stop question: Mallory replays its "yes" in group B, where he is an admin;
    Luca presses it in A; Anna answers no; her "yes" later is refused. Nothing changes."""
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "a.db")
    anna, luca, mallory = server.user(ANNA), server.user(LUCA), server.user(MALLORY)
    async with running_bot(server, tmp_path / "a.db") as service:
        await settle(server, service)
        before = state(service, match_id)
        anna.send(GROUP_A, "/stop")
        await settle(server, service)
        question = server.last_message(GROUP_A, from_bot=True)
        assert question is not None and question.text.startswith("Interrompere la partita?")
        yes, no = button_data(question, "✅ Sì"), button_data(question, "✖️ No")
        mallory.send(GROUP_B, "/help")
        await settle(server, service)
        theirs = server.last_message(GROUP_B, from_bot=True)
        assert theirs is not None
        replay = await mallory.press(GROUP_B, theirs.message_id, yes, force=True).answered()
        assert replay["text"] == STALE_EN
        assert (await luca.press(GROUP_A, question.message_id, yes).answered())["text"] == (
            "This button is not yours."
        )
        assert (await anna.press(GROUP_A, question.message_id, no).answered())["text"] == "Fatto."
        await settle(server, service)
        question = server.message(GROUP_A, question.message_id)
        assert question is not None and question.reply_markup is None
        assert question.text.endswith("✖️ No")
        late = await anna.press(GROUP_A, question.message_id, yes, force=True).answered()
        assert late["text"] == "Hai già risposto."
        assert state(service, match_id) == before
        assert api_errors(server) == []


async def test_an_answered_abandon_stays_answered(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """/abbandona, "✖️ No", then the old "✅ Sì": refused; a new question's yes abandons."""
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "a.db")
    anna = server.user(ANNA)
    async with running_bot(server, tmp_path / "a.db") as service:
        await settle(server, service)
        anna.send(ANNA, "/abbandona")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None and question.text.startswith("Abbandonare la partita in")
        yes = button_data(question, "✅ Sì")
        await anna.press(ANNA, question.message_id, button_data(question, "✖️ No")).answered()
        late = await anna.press(ANNA, question.message_id, yes, force=True).answered()
        assert late["text"] == "Hai già risposto."
        assert state(service, match_id)[0] == "playing"
        anna.send(ANNA, "/abbandona")
        await settle(server, service)
        again = server.last_message(ANNA, from_bot=True)
        assert again is not None and again.message_id != question.message_id
        answer = await anna.press(ANNA, again.message_id, button_data(again, "✅ Sì")).answered()
        assert answer["text"] == "Hai abbandonato la partita."
        assert state(service, match_id)[0] == "finished"
        assert api_errors(server) == []


async def test_a_lobby_is_joined_and_cancelled_only_from_its_group(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Eve (in no group) follows group A's deep link; Mallory replays A's join and cancel in
    group B and in private. Nobody is seated, the lobby stays."""
    server = fake_telegram
    seat_people(server, GROUP_A, "Circolo", PEOPLE_A, admins=(ANNA,))
    seat_people(server, GROUP_B, "Covo", [(MALLORY, "Mallory", "en")], admins=(MALLORY,))
    eve = server.add_user(EVE, "Eve", language_code="en")
    eve.start_private()
    server.pop_updates()
    anna, mallory = server.user(ANNA), server.user(MALLORY)
    async with running_bot(server, tmp_path / "l.db") as service:
        anna.send(GROUP_A, "/nuova scopone")
        await settle(server, service)
        lobby = server.last_message(GROUP_A, from_bot=True)
        assert lobby is not None
        record = service.store.active_match_in_chat(GROUP_A)
        assert record is not None
        eve.send(EVE, f"/start j{record.id}")
        await settle(server, service)
        refusal = server.last_message(EVE, from_bot=True)
        assert refusal is not None
        assert refusal.text == "Only members of the match's group can sit at its table."
        join, cancel = button_data(lobby, "✋"), button_data(lobby, "✖️ Annulla")
        mallory.send(GROUP_B, "/help")
        await settle(server, service)
        theirs = server.last_message(GROUP_B, from_bot=True)
        assert theirs is not None
        for data in (join, cancel):
            answer = await mallory.press(GROUP_B, theirs.message_id, data, force=True).answered()
            assert answer["text"] == STALE_EN
            answer = await mallory.press(MALLORY, 1, data, force=True).answered()
            assert answer["text"] == STALE_EN
        await settle(server, service)
        after = service.store.get_match(record.id)
        assert (after.status, after.seats) == ("lobby", ())  # Anna joins through her link
        assert api_errors(server) == []


@pytest.mark.parametrize(
    "data",
    [
        "h:1:1:aaaaaa:dr",  # another player's seat (Luca's is 1; Eve presses)
        "h:1:0:aaaaaa:ds:2H.0",  # a stale context
        "h:999999999999:0:aaaaaa:t:2H.0",  # no such match
        "k:999999999999:y",  # no such question
        "k:1:st",  # an old-style question
        "l:1:0:x",  # a lobby that is not one
        "r:1:go",  # a rematch of a match not finished
        "h:1:0:aaaaaa:t:<b>",
        "x" * 64,
        "h:" + "9" * 62,
        "é" * 10,
        "",
    ],
)
async def test_forged_presses_are_refused(
    fake_telegram: FakeTelegramServer, tmp_path: Path, data: str
) -> None:
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "f.db")
    assert match_id == 1
    eve = server.user(EVE)
    async with running_bot(server, tmp_path / "f.db") as service:
        await settle(server, service)
        before = state(service, match_id)
        answer = await eve.press(EVE, 1, data, force=True).answered()
        assert answer["text"] in (STALE_EN, "This button is not yours.", "This match is gone.")
        await settle(server, service)
        assert state(service, match_id) == before
        assert api_errors(server) == []


@pytest.mark.parametrize(
    "payload", ["j99999999999999999999", "j2147483648", "j-1", "j１２", "j", "x" * 64, "j1<b>"]
)
async def test_forged_deep_links_get_the_greeting(
    fake_telegram: FakeTelegramServer, tmp_path: Path, payload: str
) -> None:
    server = fake_telegram
    two_groups(server, tmp_path / "d.db")
    eve = server.user(EVE)
    async with running_bot(server, tmp_path / "d.db") as service:
        await settle(server, service)
        eve.send(EVE, f"/start {payload}")
        await settle(server, service)
        greeting = server.last_message(EVE, from_bot=True)
        assert greeting is not None and greeting.text.startswith("Hi Eve!")
        assert api_errors(server) == []


HOSTILE = ["<3 Ann", "<b>Bold</b> & co", "🃏" * 32, "Z" * 64, "مرحبا a\u200bb\u200d", "&amp;"]


async def test_hostile_names_are_shown_as_typed(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Six players with names that are HTML, emoji, right-to-left or zero-width join a lobby
    through /start: each is greeted by name, and the lobby shows the names as typed (the
    right-to-left one isolated, so that it cannot reorder its line)."""
    server = fake_telegram
    ids = list(range(2001, 2001 + len(HOSTILE)))
    users = [
        server.add_user(i, name, language_code="en") for i, name in zip(ids, HOSTILE, strict=True)
    ]
    server.add_group(GROUP_A, "<Circolo> & co", members=ids, admins=[ids[0]])
    async with running_bot(server, tmp_path / "h.db") as service:
        users[0].start_private()
        await settle(server, service)
        users[0].send(GROUP_A, "/nuova scala40")
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP_A)
        assert record is not None
        for user in users[1:]:
            user.start_private(f"j{record.id}")
            await settle(server, service)
        greeting = server.messages(ids[0], from_bot=True)[0]
        assert greeting.text.startswith("Hi <3 Ann!")
        for user in users[1:]:
            assert server.last_message(user.id, from_bot=True).text == "You are at the table!"  # type: ignore[union-attr]
        lobby = server.message(GROUP_A, service.store.get_match(record.id).table_message_id or 0)
        assert lobby is not None
        shown = [
            line.split(". ", 1)[1]
            for line in lobby.text.split("\n")
            if line[:2] in {f"{n}." for n in range(1, 7)}
        ]
        assert shown == [isolated(name) for name in HOSTILE]
        assert shown[4] == f"\u2068{HOSTILE[4]}\u2069"
        assert api_errors(server) == []


REVERSED = "\u202eAnna"
"""A name that starts with a right-to-left override: not isolated, it would reverse the rest
of every line it is in."""
ARABIC = "لوقا"
TITLE = "\u202eCircolo"


def isolation_faults(server: FakeTelegramServer, names: tuple[str, ...]) -> list[str]:
    """Every text the bot sent or edited in which one of ``names`` is not isolated."""
    faults = []
    for call in server.calls_of("sendMessage", "editMessageText", "answerCallbackQuery"):
        text = str(call.params.get("text") or "")
        for name in names:
            if text.count(name) != text.count(f"\u2068{name}\u2069"):
                faults.append(f"{name!r} in {text!r}")
    return faults


def shown_in(server: FakeTelegramServer, name: str) -> int:
    """How many texts the bot sent or edited show ``name``."""
    calls = server.calls_of("sendMessage", "editMessageText")
    return sum(1 for call in calls if name in str(call.params.get("text") or ""))


async def test_names_that_could_reorder_a_line_are_isolated_everywhere(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A player whose name starts with a right-to-left override, one with an Arabic name, in
    a group whose title starts with one: the table, the hands, the bells, the scores, the
    notice that a player left, the final ranking and the group's rankings show each name
    between FSI and PDI, so the rest of each line reads as written."""
    server = fake_telegram
    people = [(ANNA, REVERSED, "it"), (LUCA, ARABIC, "it")]
    seat_people(server, GROUP_A, TITLE, people, admins=(ANNA,))
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    match_id = store_started_match(
        tmp_path / "n.db", GROUP_A, TITLE, people, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "n.db") as service:
        await settle(server, service)
        hand = server.message(LUCA, service.store.get_match(match_id).seats[1].hand_message_id or 0)
        assert hand is not None
        await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await settle(server, service)
        luca.send(GROUP_A, "/punti")
        await settle(server, service)
        score = server.last_message(GROUP_A, from_bot=True)
        assert score is not None
        assert score.text == f"Punteggio\n\u2068{REVERSED}\u2069: 0\n\u2068{ARABIC}\u2069: 0"
        anna.leave_group(GROUP_A)
        await settle(server, service)
        luca.send(GROUP_A, "/classifica")
        await settle(server, service)
    assert isolation_faults(server, (REVERSED, ARABIC, TITLE)) == []
    assert shown_in(server, REVERSED) >= 6 and shown_in(server, ARABIC) >= 6
    assert shown_in(server, TITLE) >= 2  # the hands' titles
    assert api_errors(server) == []


async def test_a_long_ranking_is_split_by_what_telegram_counts(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """240 players with emoji names: /classifica is longer than 4,096 UTF-16 units, so it
    comes in several messages, every line of it, none refused."""
    server = fake_telegram
    seat_people(server, GROUP_A, "Circolo", PEOPLE_A)
    database = tmp_path / "r.db"
    store = Store.open(f"sqlite:///{database}")
    try:
        for n in range(40):
            record = store.create_match(GROUP_A, "scala40", {}, 5000 + 6 * n, "x", seed=n)
            for k in range(1, 6):
                record = store.add_seat(record.id, 5000 + 6 * n + k, "x")
            store.start_match(record.id, store.initial_match(record).to_json(), record.version)
            store.set_status(record.id, "finished")
            store.show_match_end(record.id)  # as the bot does when it shows the end
            store.record_results(
                record.id,
                [
                    PlayerResult(k, 5000 + 6 * n + k, f"🃏🂡🂱 Giocatore {6 * n + k} 🤖", False,
                                 100 - k, 10, k == 0, 0)
                    for k in range(6)
                ],
            )  # fmt: skip
    finally:
        store.close()
    async with running_bot(server, database) as service:
        server.user(ANNA).send(GROUP_A, "/classifica scala40")
        await settle(server, service)
        parts = [m.text for m in server.messages(GROUP_A, from_bot=True)]
        assert len(parts) > 1
        lines = "\n".join(parts).split("\n")
        assert sum(1 for line in lines if "Giocatore" in line) == 240
        assert api_errors(server) == []


async def test_a_failing_handler_still_answers(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a handler: the press is answered with an apology, a command gets one too."""
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "e.db")
    luca = server.user(LUCA)
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)

        async def broken(*_: object) -> None:
            raise RuntimeError("a bug")

        def broken_text(*_: object) -> str:
            raise RuntimeError("a bug")

        monkeypatch.setattr(service.hands, "press", broken)
        monkeypatch.setattr(service, "score_text", broken_text)
        hand = server.message(LUCA, service.store.get_match(match_id).seats[1].hand_message_id or 0)
        assert hand is not None
        answer = await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Draw")).answered()
        assert answer == {
            "text": "Something went wrong: please try again in a moment.",
            "show_alert": True, "url": None, "cache_time": None,
        }  # fmt: skip
        luca.send(GROUP_A, "/punti")
        await settle(server, service)
        apology = server.last_message(GROUP_A, from_bot=True)
        assert apology is not None
        assert apology.text == "Qualcosa è andato storto: riprova tra poco."
        assert api_errors(server) == []


async def test_a_database_that_cannot_write_is_one_log_line(
    fake_telegram: FakeTelegramServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The disk is full (or the file became read-only) while the bot runs: the press gets the
    apology, and the log one line saying what is wrong, not a traceback per press."""
    server = fake_telegram
    database = tmp_path / "e.db"
    match_id = two_groups(server, database)
    luca = server.user(LUCA)
    trouble = DatabaseUnavailable(
        str(database),
        "cannot write the database (database or disk is full): the disk holding "
        f"{tmp_path} is full (0 bytes free): free some space there",
    )
    async with running_bot(server, database) as service:
        await settle(server, service)

        async def full(*_: object) -> None:
            raise trouble

        monkeypatch.setattr(service.hands, "press", full)
        hand = server.message(LUCA, service.store.get_match(match_id).seats[1].hand_message_id or 0)
        assert hand is not None
        caplog.clear()
        answer = await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Draw")).answered()
        assert answer["text"] == "Something went wrong: please try again in a moment."
        logged = [r for r in caplog.records if r.name == "bot.handlers.errors"]
        assert [(r.levelname, r.exc_info) for r in logged] == [("ERROR", None)]
        assert re.fullmatch(rf"update \d+ failed: {re.escape(str(trouble))}", logged[0].message)


async def test_a_forged_joker_choice_is_refused(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Luca forges a joker declaration on his own keyboard (no panel is open, and ZZ is no
    card): refused, his hand unchanged and still drawn."""
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "j.db")
    luca = server.user(LUCA)
    async with running_bot(server, tmp_path / "j.db") as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        context = context_token(service.engine(record).view(1).hand, ui_of(record.seats[1]))
        hand_id = record.seats[1].hand_message_id or 0
        forged = f"h:{match_id}:1:{context}:jd:ZZ"
        assert (await luca.press(LUCA, hand_id, forged, force=True).answered())["text"] == (
            STALE_EN
        )
        await settle(server, service)
        after = service.store.get_match(match_id)
        assert after.seats[1].ui == record.seats[1].ui and after.version == record.version
        assert api_errors(server) == []


async def test_a_rematch_seats_only_who_is_still_there(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Luca abandons, then erases his data: Anna's rematch opens a lobby with Anna alone."""
    server = fake_telegram
    match_id = two_groups(server, tmp_path / "m.db")
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "m.db") as service:
        await settle(server, service)
        for command in ("/abandon", "/deletemydata"):
            luca.send(LUCA, command)
            await settle(server, service)
            question = server.last_message(LUCA, from_bot=True)
            assert question is not None
            await luca.press(LUCA, question.message_id, button_data(question, "✅ Yes")).answered()
            await settle(server, service)
        ranking = [m for m in server.messages(GROUP_A, from_bot=True) if m.reply_markup]
        rematch = button_data(ranking[-1], "🔄 Rivincita")
        assert (await anna.press(GROUP_A, ranking[-1].message_id, rematch).answered())[
            "text"
        ] is None
        await settle(server, service)
        lobby = service.store.active_match_in_chat(GROUP_A)
        assert lobby is not None and lobby.id != match_id
        assert [(s.user_id, s.name) for s in lobby.seats] == [(ANNA, "Anna")]
        assert api_errors(server) == []
