"""End to end: Telegram's own events (supergroup upgrade, bot removed, member left, blocked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.scala40 import Options
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

GROUP, SUPERGROUP = -100950, -1001000950
ANNA, LUCA = 1001, 1002


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def two_player_match(database: Path) -> int:
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    return store_started_match(
        database,
        GROUP,
        "Circolo",
        [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")],
        "scala40",
        match.to_json(),
        Options().to_dict(),
    )


def people(server: FakeTelegramServer) -> None:
    seat_people(server, GROUP, "Circolo", [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")], (ANNA,))


async def test_supergroup_upgrade_keeps_the_match(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        server.group(GROUP).migrate_to_supergroup(SUPERGROUP)
        await settle(server, service)
        record = service.store.get_match(match_id)
        assert record.chat_id == SUPERGROUP and record.status == "playing"
        assert service.store.active_match_in_chat(SUPERGROUP) is not None
        # The next move shows the table in the supergroup.
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        await (
            server.user(LUCA).press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        )
        await settle(server, service)
        record = service.store.get_match(match_id)
        table = server.message(SUPERGROUP, record.table_message_id or 0)
        assert record.table_chat_id == SUPERGROUP and table is not None
        assert "👉 Luca · 14 carte · 0 pt" in table.text.splitlines()  # he drew


async def test_bot_removed_stops_the_match(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        server.group(GROUP).remove_bot()
        await settle(server, service)
        assert service.store.get_match(match_id).status == "stopped"
        assert [m.action for m in service.store.moves(match_id)] == ["stop"]
        assert service.store.leaderboard(GROUP, "scala40") == []


def group_calls(server: FakeTelegramServer, after: int) -> list[str]:
    """The requests the bot made in the group after ``after`` (a mark)."""
    return [c.summary() for c in server.calls if c.seq > after and c.params.get("chat_id") == GROUP]


REMOVED = (
    "⛔ La partita in Circolo è interrotta: non sono più nel gruppo. Non conta per la classifica."
)


async def test_bot_removed_sends_nothing_more_there_and_tells_the_players(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Removed from the group mid-match: the bot makes no request there any more (not the
    table's last edit, not the end of the match), stops the match, finishes the hands, takes
    the turn's bell back and tells each player why, in private."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        bell = service.store.get_match(match_id).seats[1].turn_message_id
        assert bell is not None
        mark = server.mark()
        server.group(GROUP).remove_bot()
        await settle(server, service)
        assert group_calls(server, mark) == []
        record = service.store.get_match(match_id)
        assert record.status == "stopped"
        for user in (ANNA, LUCA):
            assert server.last_message(user, from_bot=True).text == REMOVED  # type: ignore[union-attr]
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        assert hand.text.endswith("⏹ Partita interrotta: non conta per la classifica.")
        assert not hand.inline_keyboard
        assert server.message(LUCA, bell).deleted  # type: ignore[union-attr]


async def test_a_removal_the_bot_missed_is_learnt_from_telegram_s_refusal(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The bot was kicked and another instance got the update: the next table edit is
    refused (403), and that is the last request the bot makes in the group; the match stops
    as if the bot had got the update. Added back (another instance told), a command from the
    group opens it to the bot again."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db", strict=False) as service:
        await settle(server, service)
        server.group(GROUP).bot_status = "kicked"  # the update went to another instance
        mark = server.mark()
        record = service.store.get_match(match_id)
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        luca = server.user(LUCA)
        await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await settle(server, service)
        refused = group_calls(server, mark)
        assert len(refused) == 1, refused
        assert refused[0].endswith("403 Forbidden: bot was kicked from the group chat")
        record = service.store.get_match(match_id)
        assert record.status == "stopped"
        assert [m.action for m in service.store.moves(match_id)] == ["draw", "stop"]
        assert server.last_message(ANNA, from_bot=True).text == REMOVED  # type: ignore[union-attr]
        # Added back, and again the update went to another instance: a command in the group
        # tells this one it is there.
        server.group(GROUP).bot_status = "member"
        server.user(ANNA).send(GROUP, "/nuova scopone")
        await settle(server, service)
        lobby = service.store.active_match_in_chat(GROUP)
        assert lobby is not None and lobby.table_message_id is not None


async def test_the_bot_added_again_plays_there(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        group = server.group(GROUP)
        group.remove_bot()
        await settle(server, service)
        group.add_bot(by=ANNA)
        await settle(server, service)
        server.user(ANNA).send(GROUP, "/nuova scopone")
        await settle(server, service)
        lobby = service.store.active_match_in_chat(GROUP)
        assert lobby is not None and lobby.table_message_id is not None
        shown = server.message(GROUP, lobby.table_message_id)
        assert shown is not None and shown.text.startswith("🃏 Nuova partita: Scopone")


def forged_command(server: FakeTelegramServer, chat_id: int, text: str) -> None:
    """A command from a group the bot is not in (Telegram would never send it: a forged
    update, posted with the webhook's secret)."""
    anna = server.user(ANNA).to_api()
    server.enqueue(
        "message",
        {
            "message_id": 1,
            "date": server.now(),
            "chat": {"id": chat_id, "type": "supergroup", "title": "Altrove"},
            "from": anna,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": text.index(" ")}],
        },
    )


@pytest.mark.parametrize(
    ("known", "refusal"),
    [
        (False, "400 Bad Request: chat not found"),
        (True, "403 Forbidden: bot is not a member of the supergroup chat"),
    ],
)
async def test_a_forged_update_from_a_group_the_bot_is_not_in_leaves_no_lobby(
    fake_telegram: FakeTelegramServer, tmp_path: Path, known: bool, refusal: str
) -> None:
    """The lobby it opened cannot be shown there: Telegram's refusal deletes it."""
    server = fake_telegram
    people(server)
    elsewhere = -100970
    if known:
        server.add_group(elsewhere, "Altrove", members=[ANNA], supergroup=True, bot_member=False)
    async with running_bot(server, tmp_path / "e.db", strict=False) as service:
        mark = server.mark()
        forged_command(server, elsewhere, "/nuova scopone")
        await settle(server, service)
        refused = group_calls(server, mark) + [
            c.summary()
            for c in server.calls
            if c.seq > mark and c.params.get("chat_id") == elsewhere
        ]
        assert len(refused) == 1 and refused[0].endswith(refusal), refused
        assert service.store.last_match_in_chat(elsewhere) is None
        # The same group's command later is tried again (and refused again): nothing stays.
        forged_command(server, elsewhere, "/nuova scala40")
        await settle(server, service)
        assert service.store.last_match_in_chat(elsewhere) is None


async def test_a_player_leaving_abandons(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    """S40-14.1: in a 2-player match the one who leaves loses at once."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        server.user(ANNA).leave_group(GROUP)
        await settle(server, service)
        record = service.store.get_match(match_id)
        assert record.status == "finished"
        assert [m.action for m in service.store.moves(match_id)] == ["abandon"]
        texts = [m.text for m in server.messages(GROUP, from_bot=True)]
        assert "Anna ha lasciato il gruppo e abbandona la partita." in texts
        assert any(t.startswith("🏆 Partita finita! Vince Luca.") for t in texts)
        board = service.store.leaderboard(GROUP, "scala40")
        assert [(e.name, e.vp) for e in board] == [("Luca", 20), ("Anna", 0)]


async def test_a_player_who_blocked_the_bot_is_reported(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        server.user(ANNA).block_bot()
        await settle(server, service)
        record = service.store.get_match(match_id)
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        luca = server.user(LUCA)
        await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await settle(server, service)
        hand = server.message(LUCA, hand.message_id)
        assert hand is not None
        await luca.press(LUCA, hand.message_id, button_data(hand, "2♠")).answered()
        await settle(server, service)
        hand = server.message(LUCA, hand.message_id)
        assert hand is not None
        await luca.press(LUCA, hand.message_id, button_data(hand, "🗑 Scarta 2♠")).answered()
        await settle(server, service)
        warning = server.last_message(GROUP, from_bot=True)
        assert warning is not None and warning.text.startswith(
            "⚠️ Anna, non riesco a scriverti in privato: apri la chat con me da qui https://t.me/"
        )


async def test_commands_and_the_rematch(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    """/punti, /regole, /tavolo (re-posted at the bottom, then edited), /stop (confirmed by the
    host; another is told in private), and after an abandonment the rematch button opens a
    lobby for the same game."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        first_table = service.store.get_match(match_id).table_message_id
        anna.send(GROUP, "/punti")
        await settle(server, service)
        assert server.last_message(GROUP, from_bot=True).text == "Punteggio\nAnna: 0\nLuca: 0"  # type: ignore[union-attr]
        anna.send(GROUP, "/regole")
        await settle(server, service)
        rules = server.last_message(GROUP, from_bot=True)
        assert rules is not None and "Limite punti: 101" in rules.text and "Jolly: sì" in rules.text
        anna.send(GROUP, "/tavolo")
        await settle(server, service)
        table = server.last_message(GROUP, from_bot=True)
        assert table is not None and table.text.startswith("🃏 Scala 40 · mano 1")
        assert service.store.get_match(match_id).table_message_id == table.message_id != first_table
        # Luca (not the host, not an admin) may not stop the match: he is told in private.
        luca.send(GROUP, "/stop")
        await settle(server, service)
        assert server.last_message(GROUP, from_bot=True).message_id == table.message_id
        assert server.last_message(LUCA, from_bot=True).text == (  # type: ignore[union-attr]
            "Nel gruppo Circolo:\nSolo chi organizza o un amministratore può farlo."
        )
        # Luca abandons: Anna wins; the ranking offers a rematch.
        luca.send(LUCA, "/abandon")
        await settle(server, service)
        question = server.last_message(LUCA, from_bot=True)
        assert question is not None
        await luca.press(LUCA, question.message_id, button_data(question, "✅ Sì")).answered()
        await settle(server, service)
        ranking = server.last_message(GROUP, from_bot=True)
        assert (
            ranking is not None and ranking.text.splitlines()[0] == "🏆 Partita finita! Vince Anna."
        )
        await luca.press(GROUP, ranking.message_id, button_data(ranking, "🔄 Rivincita")).answered()
        await settle(server, service)
        lobby = service.store.active_match_in_chat(GROUP)
        assert lobby is not None and lobby.status == "lobby" and lobby.id != match_id
        assert [s.name for s in lobby.seats] == ["Luca"]  # Anna is asked, not seated
        assert lobby.creator_id == LUCA


async def test_retry_after_is_honoured(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    """A 429 with retry_after on the table edit: the edit is made again, after the wait."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        server.fail_next("editMessageText", error_code=429, retry_after=1)
        await (
            server.user(LUCA).press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        )
        await settle(server, service)
        edits = server.calls_of("editMessageText")
        assert [c.ok for c in edits].count(False) == 1  # the 429, made again after the wait
        table = server.message(GROUP, record.table_message_id or 0)
        hand = server.message(LUCA, hand.message_id)
        assert table is not None and "👉 Luca · 14 carte · 0 pt" in table.text  # he drew
        assert hand is not None and "cala, attacca o scarta" not in hand.text  # Luca is not open
        assert "👉 Tocca a te: apri con 40 o scarta." in hand.text


async def test_rankings_stats_and_deleting_my_data(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """S40-13, S40-14.1: Anna leaves holding 67 points: D = 67 + 50 = 117 MP to Luca."""
    server = fake_telegram
    people(server)
    two_player_match(tmp_path / "e.db")
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        anna.leave_group(GROUP)
        await settle(server, service)
        luca.send(GROUP, "/classifica")
        await settle(server, service)
        board = server.last_message(GROUP, from_bot=True)
        assert board is not None
        assert board.text.split("\n\n")[0].splitlines() == [
            "🏆 Classifica di Scala 40",
            "1. Luca · MP 117 · VP 20 · partite 1, vinte 1",
            "2. Anna · MP -117 · VP 0 · partite 1, vinte 0",
            "MP: punti partita · VP: punti vittoria (20 a chi vince, 10 a un pari)",
        ]
        assert board.text.split("\n\n")[1] == "Nessuna partita di Scopone conclusa qui."
        anna.send(ANNA, "/stats")
        await settle(server, service)
        assert server.last_message(ANNA, from_bot=True).text.splitlines() == [  # type: ignore[union-attr]
            "📊 Le tue statistiche",
            "Scala 40: partite 1, vinte 0 · MP -117 · VP 0 · mani vinte 0",
            "Livello di Scala 40: principiante (927)",  # a newcomer's first loss
        ]
        anna.send(ANNA, "/deletemydata")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        answer = await anna.press(
            ANNA, question.message_id, button_data(question, "✅ Sì")
        ).answered()
        assert answer["text"] == "Fatto: i tuoi dati sono stati cancellati."
        assert [e.name for e in service.store.leaderboard(GROUP, "scala40")] == ["Luca"]
        assert service.store.user_stats(ANNA) == []
        assert service.store.user_ratings(ANNA) == []
        assert [r.matches for r in service.store.user_ratings(LUCA)] == [1]


async def test_an_old_table_points_down_and_a_buried_one_comes_back(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """/tavolo posts the table at the bottom: the old copy is deleted, or, older than the
    48 hours Telegram lets a bot delete in, says where the table went. A table buried under
    the chat's messages is posted again at the bottom with the next move."""
    server = fake_telegram
    people(server)
    match_id = two_player_match(tmp_path / "e.db")
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        first = service.store.get_match(match_id).table_message_id or 0
        server.age(GROUP, first, 49 * 3600)
        anna.send(GROUP, "/tavolo")
        await settle(server, service)
        second = service.store.get_match(match_id).table_message_id or 0
        assert second > first
        old = server.message(GROUP, first)
        assert old is not None and not old.deleted
        assert old.text == "⬇️ Il tavolo è più in basso." and not old.inline_keyboard
        for _ in range(8):  # the chat buries the table (commands are what the bot sees)
            anna.send(GROUP, "/aiuto@tavolo_test_bot")
        await settle(server, service)
        hand = server.message(LUCA, service.store.get_match(match_id).seats[1].hand_message_id or 0)
        assert hand is not None
        await luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca")).answered()
        await settle(server, service)
        third = service.store.get_match(match_id).table_message_id or 0
        assert third > second
        assert server.message(GROUP, second).deleted  # type: ignore[union-attr]
        newest = max(m.message_id for m in server.messages(GROUP))
        assert third == newest
