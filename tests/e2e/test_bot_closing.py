"""End to end: every hand closes where each player looks (issue 25). The group reads how the
hand closed, then the next hand's table below it; each person's hand turns into their recap
of the hand, the new hand below it; the end of the match shows in the group and in every
hand; a stop reposts no summary and says the match was interrupted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.service import Tavolo
from engine import scala40, scopone
from engine.games import GameMatch
from storage import MatchRecord, Store
from testkit.bot_harness import (
    button_data,
    hand_of,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position

ANNA, LUCA, GROUP = 1001, 1002, -100640
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def closing_match(database: Path, lang: str, luca_total: int = 0) -> int:
    """Anna has drawn and holds 5♦ alone: discarding it closes the hand. Luca never laid
    down: he pays a flat 100 for 2♣ 3♣ 4♣ 9♠ 10♠ K♦ (38 by themselves). The group speaks
    ``lang``; Anna reads Italian, Luca English."""
    match = position(
        ["5D", "2C 3C 4C 9S 10S KD"],
        melds=[(0, "7H 8H 9H"), (0, "JS QS KS")],
        discard="KH",
        opened=[True, False],
        turns_done=[3, 3],
        to_play=0,
        dealer=0,
        phase="play",
    )
    match.totals = [0, luca_total]
    options = scala40.Options().to_dict()
    match_id = store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), options
    )
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_chat_language(GROUP, lang)
    finally:
        store.close()
    return match_id


async def close_the_hand(server: FakeTelegramServer, service: Tavolo, match_id: int) -> None:
    """Anna selects 5♦ and discards it."""
    anna = server.user(ANNA)
    for label in ("5♦", "🗑 Scarta 5♦"):
        hand = hand_of(server, service, match_id, ANNA)
        answer = await anna.press(ANNA, hand.message_id, button_data(hand, label)).answered()
        assert answer["text"] is None
        await settle(server, service)


def texts(messages: list[FakeMessage]) -> list[str]:
    return [m.text for m in messages]


SUMMARY = {
    "it": [
        "🏁 Mano 1: Anna chiude con 5♦.",
        "Anna: ha chiuso → 0",
        "Luca: non ha calato → 100 fissi",
        "(9♠ 10♠ K♦ 2♣ 3♣ 4♣)",
    ],
    "en": [
        "🏁 Hand 1: Anna closes with 5♦.",
        "Anna: closed → 0",
        "Luca: never opened → a flat 100",
        "(9♠ 10♠ K♦ 2♣ 3♣ 4♣)",
    ],
}
TOTALS = {
    "it": "Totali: Anna 0 · Luca {}\nsi esce a 101",
    "en": "Totals: Anna 0 · Luca {} · out at 101",
}
ANNA_RECAP = [
    "🃏 Scala 40 · Circolo",
    "🏁 Mano 1: Anna chiude con 5♦.",
    "Hai chiuso tu: 0 punti.",
    "Totali: Anna 0 · Luca {}\nsi esce a 101",
]
LUCA_RECAP = [
    "🃏 Scala 40 · Circolo",
    "🏁 Hand 1: Anna closes with 5♦.",
    "You never opened: a flat 100.",
    "Your cards would be worth 38",
    "(9♠ 10♠ K♦ 2♣ 3♣ 4♣)",
    "Totals: Anna 0 · Luca {} · out at 101",
]


def recaps(old_hands: list[int]) -> list[tuple[int, int, list[str]]]:
    """Anna's and Luca's hand 1 messages and the lines of the recap each should turn into
    (Luca's total 100), which points down at hand 2."""
    return [
        (
            ANNA,
            old_hands[0],
            [*ANNA_RECAP[:-1], *TOTALS["it"].format(100).split("\n"), "⬇️ La mano 2 è qui sotto."],
        ),
        (LUCA, old_hands[1], [*LUCA_RECAP[:-1], TOTALS["en"].format(100), "⬇️ Hand 2 is below."]),
    ]


STOPPED = {
    "it": "⏹ Partita interrotta: non conta per la classifica.",
    "en": "⏹ Match stopped: it does not count for the rankings.",
}
YES = {"it": "✅ Sì", "en": "✅ Yes"}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_summary_comes_before_the_next_table_and_every_hand_recaps(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Anna closes hand 1: the group reads how (the closing card, the closer's 0, Luca's
    flat 100), then hand 2's table below it, the old table gone. Each hand message turns into
    its player's recap without buttons, in the player's language, and hand 2 is posted below
    it. A stop then reposts no summary and says the match was interrupted, in the group and
    in every hand."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = closing_match(tmp_path / "c.db", lang)
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        old_table = record.table_message_id or 0
        old_hands = [seat.hand_message_id or 0 for seat in record.seats]
        await close_the_hand(server, service, match_id)

        summary, _ = hand_two_below_the_end_of_hand_one(
            server, service, match_id, lang, old_table, old_hands
        )

        server.user(ANNA).send(GROUP, "/stop")
        await settle(server, service)
        question = server.last_message(GROUP, from_bot=True)
        assert question is not None
        await server.user(ANNA).press_button(GROUP, question.message_id, YES[lang]).answered()
        await settle(server, service)
        said = texts(server.messages(GROUP, from_bot=True))
        assert [text for text in said if text.startswith("🏁")] == [summary.text]
        assert said[-1].splitlines()[0] == STOPPED[lang]
        for user, stopped in ((ANNA, STOPPED["it"]), (LUCA, STOPPED["en"])):
            hand = hand_of(server, service, match_id, user)
            assert hand.text.splitlines() == ["🃏 Scala 40 · Circolo", stopped]
            assert not hand.inline_keyboard


def die_after_storing(service: Tavolo, shown: str) -> None:
    """The bot dies as soon as a move is stored, before anything it shows goes out
    (``shown`` "nothing"); or once the hand's summary and the table below it went out, before
    the recaps ("summary"); or once the summary went out, before the table below it
    ("summary only"); or as Telegram took the summary, before the store kept where it went
    ("summary unstored")."""

    async def show(
        record: MatchRecord,
        match: GameMatch,
        mover: Any,
        new: bool,
        quiet: bool,
        closed: bool = False,
    ) -> None:  # Moves._show's signature
        if shown != "nothing":
            await service.endings.summaries(record, match, closed)

    service.moves._show = show  # type: ignore[method-assign]
    if shown == "summary only":
        service.shows.table = lambda *_, **__: None  # type: ignore[method-assign]
    elif shown == "summary unstored":
        service.endings._summary_shown = lambda *_: None  # type: ignore[method-assign]


@pytest.mark.parametrize("shown", ["nothing", "summary", "summary only", "summary unstored"])
@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_end_of_a_hand_shows_after_a_restart(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str, shown: str
) -> None:
    """The bot stops right after Anna's closing discard is stored, before the end of the
    hand is shown (or at a later point of it: :func:`die_after_storing`). Restarted, it shows
    the rest as it would have: the group reads the summary once, then hand 2's table below
    it; each hand message turns into its recap, hand 2 below it. A third start shows nothing
    more."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "r.db"
    match_id = closing_match(database, lang)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        old_table = record.table_message_id or 0
        old_hands = [seat.hand_message_id or 0 for seat in record.seats]
        die_after_storing(service, shown)
        await close_the_hand(server, service, match_id)
        assert service.engine(service.store.get_match(match_id)).hand_number == 2
    async with running_bot(server, database, strict=False) as service:
        await settle(server, service)
        said, table = hand_two_below_the_end_of_hand_one(
            server, service, match_id, lang, old_table, old_hands
        )
    async with running_bot(server, database, strict=False) as service:  # and once only
        await settle(server, service)
        group = server.messages(GROUP, from_bot=True)
        assert [m.message_id for m in group] == [said.message_id, table.message_id]
        for user, old in zip((ANNA, LUCA), old_hands, strict=True):
            kept = [m for m in server.messages(user, from_bot=True) if m.text[0] != "🔔"]
            hand = hand_of(server, service, match_id, user)
            assert [m.message_id for m in kept] == [old, hand.message_id]
    within_limits_but_a_restart(server)


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_restart_after_some_recaps_shows_the_others(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """The bot stops once the summary and Anna's recap are out, before Luca's: restarted, it
    starts (the recap it owes names the seats as the whole match does: it failed with an
    IndexError at every start) and Luca's hand message turns into his recap, hand 2 below it;
    Anna's recap stays, her hand 2 posted below it (it was edited into her hand 2)."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "p.db"
    match_id = closing_match(database, lang)
    async with running_bot(server, database) as service:
        await settle(server, service)
        old_hands = [seat.hand_message_id or 0 for seat in service.store.get_match(match_id).seats]

        async def show(
            record: MatchRecord,
            match: GameMatch,
            mover: Any,
            new: bool,
            quiet: bool,
            closed: bool = False,
        ) -> None:  # Moves._show's signature
            await service.endings.summaries(record, match, closed)
            service.endings.recap(record, match, [0])  # Anna's recap only

        service.moves._show = show  # type: ignore[method-assign]
        await close_the_hand(server, service, match_id)
    async with running_bot(server, database, strict=False) as service:
        await settle(server, service)
        for user, old, recap in recaps(old_hands):
            message = server.message(user, old)
            assert message is not None and not message.inline_keyboard
            assert message.text.splitlines() == recap
            hand = hand_of(server, service, match_id, user)
            assert hand.message_id > old and hand.inline_keyboard  # hand 2, below the recap


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_recap_telegram_took_as_the_bot_stopped_is_not_edited_again(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """The bot stops as Telegram turns the hand messages into the recaps, before the store
    keeps that they did. Restarted, it cannot know whether they did: each recap is posted
    anew (an edit to what a message shows already is refused as "not modified") and the old
    message deleted; hand 2 goes below it."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "u.db"
    match_id = closing_match(database, lang)
    async with running_bot(server, database) as service:
        await settle(server, service)
        old_hands = [seat.hand_message_id or 0 for seat in service.store.get_match(match_id).seats]
        anna = server.user(ANNA)
        hand = hand_of(server, service, match_id, ANNA)
        await anna.press(ANNA, hand.message_id, button_data(hand, "5♦")).answered()
        await settle(server, service)
        hand = hand_of(server, service, match_id, ANNA)
        discard = button_data(hand, "🗑 Scarta 5♦")  # Anna reads Italian
        service.endings._recap_shown = lambda *_: None  # type: ignore[method-assign]
        service.shows.hand = lambda *_, **__: None  # type: ignore[method-assign]
        await anna.press(ANNA, hand.message_id, discard).answered()
        await settle(server, service)
        assert service.store.get_match(match_id).seats[0].hand_message_id == old_hands[0]
    async with running_bot(server, database, strict=False) as service:
        await settle(server, service)
        for user, old, recap in recaps(old_hands):
            assert server.message(user, old).deleted  # type: ignore[union-attr]
            again, hand = [m for m in server.messages(user, from_bot=True) if m.text[0] != "🔔"]
            assert again.text.splitlines() == recap
            assert not again.inline_keyboard
            assert hand == hand_of(server, service, match_id, user) and hand.inline_keyboard
    within_limits_but_a_restart(server)


def within_limits_but_a_restart(server: FakeTelegramServer) -> None:
    """No identical edit and no late answer. A restarted bot does not know how much of a
    private chat's budget the old process spent in its last second: Telegram may ask it to
    wait there, and it waits (what it shows still comes, as the test checks)."""
    assert not [c.summary() for c in server.calls if c.error and "not modified" in c.error]
    assert not [c.summary() for c in server.calls_of("answerCallbackQuery", ok=False)]
    assert all(c.params["chat_id"] > 0 for c in server.flood_refusals)


RANKING = {
    "it": [
        "🏆 Partita finita! Vince Anna.",
        "1. Anna",
        "  190 punti partita, 20 punti vittoria",
        "2. Luca",
        "  -190 punti partita, 0 punti vittoria",
        "Punti partita: scarto sugli avversari.",
        "Punti vittoria: 20 a chi vince, 10 pari.",
    ],
    "en": [
        "🏆 Match over! Anna wins.",
        "1. Anna",
        "  190 match points, 20 victory points",
        "2. Luca",
        "  -190 match points, 0 victory points",
        "Match points: the margin over opponents.",
        "Victory points: 20 a win, 10 a draw.",
    ],
}
OUT = {
    "it": "❌ Luca è fuori con 190 punti.",
    "en": "❌ Luca is out with 190 points.",
}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_end_of_the_match_shows_in_the_group_and_in_every_hand(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Luca holds 90: his flat 100 puts him out and Anna wins. The group reads the hand's
    summary, then the winner, the standings and the points in words; every hand says the
    same, in its player's language, without buttons."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = closing_match(tmp_path / "e.db", lang, luca_total=90)
    async with running_bot(server, tmp_path / "e.db") as service:
        await settle(server, service)
        await close_the_hand(server, service, match_id)
        table, summary, ranking = server.messages(GROUP, from_bot=True)
        assert table.message_id == service.store.get_match(match_id).table_message_id
        assert summary.text.splitlines() == [
            *SUMMARY[lang],
            *TOTALS[lang].format(190).split("\n"),
            OUT[lang],
        ]
        assert ranking.text.splitlines()[:-1] == RANKING[lang]
        for user, recap, user_lang in ((ANNA, ANNA_RECAP, "it"), (LUCA, LUCA_RECAP, "en")):
            hand = hand_of(server, service, match_id, user)
            assert hand.text.splitlines() == [
                *recap[:-1],
                *recap[-1].format(190).split("\n"),
                OUT[user_lang],
                *RANKING[user_lang],
            ]
            assert not hand.inline_keyboard


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_end_of_the_match_shows_after_a_restart(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """The bot stops right after the move that ends the match is stored, before its end is
    shown. Restarted, it shows it as it would have: the group reads the last hand's summary
    and the ranking below the final table, once (a third start posts nothing more); every
    hand shows the end without buttons, and no bell is left."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "m.db"
    match_id = closing_match(database, lang, luca_total=90)
    async with running_bot(server, database) as service:
        await settle(server, service)
        die_after_storing(service, "nothing")
        await close_the_hand(server, service, match_id)
        assert service.store.get_match(match_id).status == "finished"
    for _ in range(2):  # and once only
        async with running_bot(server, database, strict=False) as service:
            await settle(server, service)
            table, summary, ranking = server.messages(GROUP, from_bot=True)
            assert table.message_id == service.store.get_match(match_id).table_message_id
            assert table.text.startswith(
                {"it": "🃏 Scala 40 · mano 1", "en": "🃏 Scala 40 · hand 1"}[lang]
            )
            assert summary.text.splitlines() == [
                *SUMMARY[lang],
                *TOTALS[lang].format(190).split("\n"),
                OUT[lang],
            ]
            assert ranking.text.splitlines()[:-1] == RANKING[lang]
            assert ranking.inline_keyboard  # the rematch
            for user, user_lang in ((ANNA, "it"), (LUCA, "en")):
                hand = hand_of(server, service, match_id, user)
                assert hand.text.splitlines()[-len(RANKING[user_lang]) :] == RANKING[user_lang]
                assert not hand.inline_keyboard
                assert not [
                    m
                    for m in server.messages(user, from_bot=True)
                    if m.text[0] == "🔔" and not m.deleted
                ]
    within_limits_but_a_restart(server)


PRIVATE = {
    "it": {
        "abandon": "/abbandona",
        "moved": "⬇️ La tua mano è più in basso.",
        "answer": "Hai abbandonato la partita.",
        "seed": "🔓 Chiave del mazzo svelata: 7 · /verifica",
        "rematch": "🔄 Rivincita",
        "hand": [
            "🃏 Scopone · la tua partita",
            "🏆 Partita finita! Vincono 🤖 1 e 🤖 3.",
            "1. 🤖 1",
            "  0 punti partita, 20 punti vittoria",
            "2. 🤖 3",
            "  0 punti partita, 20 punti vittoria",
            "3. Anna",
            "  0 punti partita, 0 punti vittoria",
            "4. 🤖 2",
            "  0 punti partita, 0 punti vittoria",
            "Punti partita: scarto sugli avversari.",
            "Punti vittoria: 20 a chi vince, 10 pari.",
            "🏳️ Anna ha abbandonato.",
        ],
    },
    "en": {
        "abandon": "/abandon",
        "moved": "⬇️ Your hand is further down.",
        "answer": "You abandoned the match.",
        "seed": "🔓 Seed revealed: 7 · /verify",
        "rematch": "🔄 Rematch",
        "hand": [
            "🃏 Scopone · your match",
            "🏆 Match over! 🤖 1 and 🤖 3 win.",
            "1. 🤖 1",
            "  0 match points, 20 victory points",
            "2. 🤖 3",
            "  0 match points, 20 victory points",
            "3. Anna",
            "  0 match points, 0 victory points",
            "4. 🤖 2",
            "  0 match points, 0 victory points",
            "Match points: the margin over opponents.",
            "Victory points: 20 a win, 10 a draw.",
            "🏳️ Anna abandoned the match.",
        ],
    },
}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_private_match_is_a_conversation_with_one_person(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Anna plays Scopone alone against three computers, in her private chat. It is her turn,
    and she is looking: no bell rings. /mano posts her hand again as the chat's last message
    and deletes the old one (no reply buries it); one too old to delete loses its buttons and
    points down. She abandons: nobody is left at the table,
    so the match ends at once (no computer plays on): her hand shows the winners, the
    standings, her abandonment and the seed, and offers the rematch; no other message
    repeats it."""
    server = fake_telegram
    server.add_user(ANNA, "Anna", language_code=lang).start_private()
    server.pop_updates()
    match = scopone.new_match(seed=5)
    match_id = store_started_match(
        tmp_path / "p.db", ANNA, "", [(ANNA, "Anna", lang)], "scopone", match.to_json(),
        scopone.Options().to_dict(), computers=3,
    )  # fmt: skip
    anna, words = server.user(ANNA), PRIVATE[lang]
    async with running_bot(server, tmp_path / "p.db") as service:
        await settle(server, service)
        assert service.engine(service.store.get_match(match_id)).to_play == 0
        sent = server.messages(ANNA, from_bot=True, include_deleted=True)
        assert not [m for m in sent if m.text.startswith("🔔")]  # alone, and looking
        old = hand_of(server, service, match_id, ANNA)
        assert server.last_message(ANNA, from_bot=True) == old

        anna.send(ANNA, "/mano")
        await settle(server, service)
        hand = hand_of(server, service, match_id, ANNA)
        assert hand.message_id > old.message_id and hand.inline_keyboard
        assert server.message(ANNA, old.message_id).deleted  # type: ignore[union-attr]
        assert server.last_message(ANNA, from_bot=True) == hand
        server.age(ANNA, hand.message_id, 49 * 3600)  # too old for Telegram to delete it
        anna.send(ANNA, "/mano")
        await settle(server, service)
        aged = server.message(ANNA, hand.message_id)
        assert aged is not None and not aged.deleted and not aged.inline_keyboard
        assert aged.text == words["moved"]
        assert server.last_message(ANNA, from_bot=True) == hand_of(server, service, match_id, ANNA)

        anna.send(ANNA, words["abandon"])
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        answer = await anna.press(ANNA, question.message_id, button_data(question, YES[lang]))
        assert answer["text"] == words["answer"]
        await settle(server, service)
        assert service.store.get_match(match_id).status == "finished"
        assert [m.action for m in service.store.moves(match_id)][-2:] == ["abandon", "end"]
        hand = hand_of(server, service, match_id, ANNA)
        assert hand.text.splitlines() == [*words["hand"], words["seed"]]
        assert list(keyboard_data(hand)) == [words["rematch"]]
        assert server.last_message(ANNA, from_bot=True) == hand
        sent = server.messages(ANNA, from_bot=True, include_deleted=True)
        assert not [m for m in sent if m.text.startswith("🔔")]


ALONE = {
    "it": {
        "recap": [
            "🃏 Scala 40 · la tua partita",
            "🏁 Mano 1: Anna chiude con 5♦.",
            "Anna: ha chiuso → 0",
            "🤖 1: non ha calato → 100 fissi",
            "(9♠ 10♠ K♦ 2♣ 3♣ 4♣)",
            "Totali: Anna 0 · 🤖 1 100",
            "si esce a 101",
            "⬇️ La mano 2 è qui sotto.",
        ],
        "table": "🃏 Scala 40 · mano 2 · si esce a 101",
        "discard": "🗑 Scarta 5♦",
    },
    "en": {
        "recap": [
            "🃏 Scala 40 · your match",
            "🏁 Hand 1: Anna closes with 5♦.",
            "Anna: closed → 0",
            "🤖 1: never opened → a flat 100",
            "(9♠ 10♠ K♦ 2♣ 3♣ 4♣)",
            "Totals: Anna 0 · 🤖 1 100 · out at 101",
            "⬇️ Hand 2 is below.",
        ],
        "table": "🃏 Scala 40 · hand 2 · out at 101",
        "discard": "🗑 Discard 5♦",
    },
}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_private_hand_ends_in_order_summary_table_then_the_new_hand(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Anna plays Scala 40 in her private chat against a computer and closes hand 1. Her
    hand message turns into the hand's whole summary (what the computer held too: no other
    message repeats it); below it hand 2's table (the old one gone), then her new hand, the
    chat's last message."""
    server = fake_telegram
    server.add_user(ANNA, "Anna", language_code=lang).start_private()
    server.pop_updates()
    match = position(
        ["5D", "2C 3C 4C 9S 10S KD"],
        melds=[(0, "7H 8H 9H"), (0, "JS QS KS")],
        discard="KH",
        opened=[True, False],
        turns_done=[3, 3],
        to_play=0,
        dealer=0,
        phase="play",
    )
    match_id = store_started_match(
        tmp_path / "a.db", ANNA, "", [(ANNA, "Anna", lang)], "scala40", match.to_json(),
        scala40.Options().to_dict(), computers=1,
    )  # fmt: skip
    words, anna = ALONE[lang], server.user(ANNA)
    async with running_bot(server, tmp_path / "a.db") as service:
        await settle(server, service)
        old_table = service.store.get_match(match_id).table_message_id or 0
        for label in ("5♦", words["discard"]):
            hand = hand_of(server, service, match_id, ANNA)
            answer = await anna.press(ANNA, hand.message_id, button_data(hand, label)).answered()
            assert answer["text"] is None
            await settle(server, service)
        recap, table, new = server.messages(ANNA, from_bot=True)
        assert recap.message_id == hand.message_id and not recap.inline_keyboard
        assert recap.text.splitlines() == words["recap"]
        assert server.message(ANNA, old_table).deleted  # type: ignore[union-attr]
        assert table.message_id == service.store.get_match(match_id).table_message_id
        assert table.text.splitlines()[0] == words["table"]
        assert new == hand_of(server, service, match_id, ANNA) and new.inline_keyboard


def scopone_last_card() -> scopone.Match:
    """Hand 1 played to its last card: Anna's K♥, with 5♠ 6♥ 7♦ K♦ on the table."""
    match = scopone.new_match(seed=6)
    while sum(len(match.hand(seat)) for seat in range(4)) > 1:
        match.play(match.legal_actions()[0])
    assert match.to_play == 0 and [str(c) for c in match.hand(0)] == ["KH"]
    return match


SCOPONE_SUMMARY = {
    "it": [
        "🏁 Mano 1",
        "Anna + 🤖 1: 4",
        "  carte 1 · denari 1 · primiera 1",
        "  settebello 1 · scope 0",
        "Luca + 🤖 2: 0",
        "  carte 0 · denari 0 · primiera 0",
        "  settebello 0 · scope 0",
        "Ultima presa di Anna:",
        "sue anche le carte rimaste (5♠ 6♥ 7♦)",
        "Punti (si vince a 11):",
        "  Anna + 🤖 1 4",
        "  Luca + 🤖 2 0",
    ],
    "en": [
        "🏁 Hand 1",
        "Anna + 🤖 1: 4",
        "  cards 1 · coins 1 · primiera 1",
        "  settebello 1 · scopas 0",
        "Luca + 🤖 2: 0",
        "  cards 0 · coins 0 · primiera 0",
        "  settebello 0 · scopas 0",
        "Anna took last, so also gets",
        "the cards left on the table (5♠ 6♥ 7♦)",
        "Points (to win: 11):",
        "  Anna + 🤖 1 4",
        "  Luca + 🤖 2 0",
    ],
}
PILES = [
    "Anna + 🤖 1 (26):",
    "2♠ 2♥ A♦ 3♦ 4♦ 4♥ 4♣ 5♦ 5♣ A♣ 5♥ 6♦ 3♥",
    "4♠ 7♥ 7♠ 7♣ J♠ J♦ J♥ J♣ K♦ K♥ 5♠ 6♥ 7♦",
    "Luca + 🤖 2 (14):",
    "A♠ A♥ 2♦ 2♣ 3♣ 3♠ 6♠ 6♣ Q♠ Q♥ K♠ K♣ Q♣",
    "Q♦",
]


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_scopone_hand_ends_with_the_leftover_cards_and_the_scores(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Anna plays the last card of Scopone's hand 1, K♥ taking K♦: the group reads the
    points of each side, who takes the cards left on the table, the scores and the piles,
    then hand 2's table below it. Each hand message turns into its player's recap (without
    the piles), in the player's language, and hand 2 is posted below it."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "s.db"
    match_id = store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scopone", scopone_last_card().to_json(),
        scopone.Options().to_dict(), computers=2,
    )  # fmt: skip
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_chat_language(GROUP, lang)
    finally:
        store.close()
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        old_table = record.table_message_id or 0
        old_hands = [seat.hand_message_id or 0 for seat in record.seats[:2]]
        hand = hand_of(server, service, match_id, ANNA)
        answer = await server.user(ANNA).press(ANNA, hand.message_id, button_data(hand, "K♥"))
        assert answer["text"] is None
        await settle(server, service)

        summary, table = server.messages(GROUP, from_bot=True)
        assert summary.text.splitlines() == [*SCOPONE_SUMMARY[lang], *PILES]
        assert server.message(GROUP, old_table).deleted  # type: ignore[union-attr]
        assert table.message_id == service.store.get_match(match_id).table_message_id
        assert table.text.startswith(
            {"it": "🃏 Scopone · mano 2", "en": "🃏 Scopone · hand 2"}[lang]
        )
        for user, old, user_lang, below in (
            (ANNA, old_hands[0], "it", "⬇️ La mano 2 è qui sotto."),
            (LUCA, old_hands[1], "en", "⬇️ Hand 2 is below."),
        ):
            message = server.message(user, old)
            assert message is not None and not message.inline_keyboard
            recap = ["🃏 Scopone · Circolo", *SCOPONE_SUMMARY[user_lang], below]
            assert message.text.splitlines() == recap
            assert hand_of(server, service, match_id, user).message_id > old


def hand_two_below_the_end_of_hand_one(
    server: FakeTelegramServer,
    service: Tavolo,
    match_id: int,
    lang: str,
    old_table: int,
    old_hands: list[int],
) -> tuple[FakeMessage, FakeMessage]:
    """What everyone reads once Anna closed hand 1: the group, the summary and hand 2's table
    below it (the old table gone); each hand message, its player's recap without buttons, and
    hand 2 posted below it."""
    summary, table = server.messages(GROUP, from_bot=True)
    assert summary.text.splitlines() == [*SUMMARY[lang], *TOTALS[lang].format(100).split("\n")]
    assert server.message(GROUP, old_table).deleted  # type: ignore[union-attr]
    assert table.message_id == service.store.get_match(match_id).table_message_id
    assert table.text.startswith({"it": "🃏 Scala 40 · mano 2", "en": "🃏 Scala 40 · hand 2"}[lang])
    for user, old, recap in recaps(old_hands):
        message = server.message(user, old)
        assert message is not None and not message.inline_keyboard
        assert message.text.splitlines() == recap
        hand = hand_of(server, service, match_id, user)
        assert hand.message_id > old and hand.inline_keyboard  # hand 2, below the recap
    return summary, table
