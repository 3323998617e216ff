"""End to end: a Scopone capture choice, presses that must be refused, and a restart mid-turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.cards import card as pretty
from engine.scala40 import Options, new_match
from engine.scopone import Options as ScoponeOptions
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position
from testkit.scopone_helpers import build_position

GROUP = -100900
PEOPLE = ((1001, "Anna", "it"), (1002, "Luca", "en"), (1003, "Marco", "it"), (1004, "Sara", "it"))


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def store_match(database: Path, game: str, people: int, state_json: str, options: dict) -> int:  # type: ignore[type-arg]
    """A started match of the first ``people`` of PEOPLE, with the given engine state."""
    return store_started_match(
        database, GROUP, "Circolo", list(PEOPLE[:people]), game, state_json, options
    )


def add_people(server: FakeTelegramServer, count: int) -> None:
    seat_people(server, GROUP, "Circolo", list(PEOPLE[:count]))


async def test_scopone_capture_choice_and_refused_presses(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """SC-3.4: with A 3 4 5 J on the table a Q takes A+J or 4+5: the player chooses."""
    server = fake_telegram
    add_people(server, 4)
    match = build_position(
        ["QH 2C 6S", "KS 2D 6H", "KC 2S 6C", "KD 2H 6D"], "AH 3H 4S 5D JC", to_play=0
    )
    match_id = store_match(
        tmp_path / "s.db", "scopone", 4, match.to_json(), ScoponeOptions().to_dict()
    )
    async with running_bot(server, tmp_path / "s.db") as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        anna, luca = server.user(1001), server.user(1002)
        table = server.message(GROUP, record.table_message_id or 0)
        assert table is not None and "In tavola: A♥ 3♥ 4♠ 5♦ J♣" in table.text
        hand = server.message(1001, record.seats[0].hand_message_id or 0)
        assert hand is not None
        queen = button_data(hand, "Q♥")

        # Someone else's button: Luca forges a press of Anna's card from his own hand message.
        luca_hand = record.seats[1].hand_message_id or 0
        answer = await luca.press(1002, luca_hand, queen, force=True).answered()
        assert answer["text"] == "This button is not yours."
        assert service.store.moves(match_id) == []

        assert (await anna.press(1001, hand.message_id, queen).answered())["text"] is None
        await settle(server, service)
        hand = server.message(1001, hand.message_id)
        assert hand is not None and "Cosa prendi con Q♥?" in hand.text
        assert list(keyboard_data(hand)) == ["Q♥ → A♥ J♣", "Q♥ → 4♠ 5♦", "✖️ Annulla"]
        old_queen = queen
        choice = button_data(hand, "Q♥ → 4♠ 5♦")
        assert (await anna.press(1001, hand.message_id, choice).answered())["text"] is None
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["play QH take 4S 5D"]
        table = server.message(GROUP, service.store.get_match(match_id).table_message_id or 0)
        assert table is not None and "· Anna prende 4♠ 5♦ con Q♥" in table.text
        assert "In tavola: A♥ 3♥ J♣" in table.text

        # A double tap and an old keyboard: stale, refused, nothing changes.
        for stale in (choice, old_queen):
            answer = await anna.press(1001, hand.message_id, stale, force=True).answered()
            assert answer["text"] == "Questo pulsante non è più valido."
        assert len(service.store.moves(match_id)) == 1
        # Not her turn any more (Sara, on Anna's right, plays next: SC-1.2).
        assert service.engine(service.store.get_match(match_id)).to_play == 3


async def test_restart_mid_turn_goes_on_from_the_same_messages(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The bot stops mid-turn; a new process edits the same messages and old buttons work."""
    server = fake_telegram
    add_people(server, 2)
    match = position(
        list(RIGGED_HANDS),
        discard="KD",
        stock_top="AC AD",
        to_play=1,
    )
    database = tmp_path / "r.db"
    match_id = store_match(database, "scala40", 2, match.to_json(), Options().to_dict())
    luca = server.user(1002)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        table_id, hand_id = record.table_message_id, record.seats[1].hand_message_id
        hand = server.message(1002, hand_id or 0)
        assert hand is not None
        await luca.press(1002, hand.message_id, button_data(hand, "🂠 Draw")).answered()
        await settle(server, service)
        hand = server.message(1002, hand.message_id)
        assert hand is not None
        await luca.press(1002, hand.message_id, button_data(hand, "2♠")).answered()
        await settle(server, service)
        keyboard_before_crash = server.message(1002, hand.message_id)
    sent_before = len(server.calls_of("sendMessage"))

    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        assert (record.table_message_id, record.seats[1].hand_message_id) == (table_id, hand_id)
        assert len(server.calls_of("sendMessage")) == sent_before  # edits only, no new messages
        hand = server.message(1002, hand_id or 0)
        assert hand is not None and "✓2♠" in keyboard_data(hand)
        # The keyboard the first process drew still works.
        assert keyboard_before_crash is not None
        discard = button_data(keyboard_before_crash, "🗑 Discard 2♠")
        assert (await luca.press(1002, hand_id or 0, discard).answered())["text"] is None
        await settle(server, service)
        assert [m.action for m in service.store.moves(match_id)] == ["draw", "discard 2S"]
        table = server.message(GROUP, table_id or 0)
        assert table is not None and "· Luca scarta 2♠" in table.text


async def test_scopone_abandon_hands_the_seat_to_the_computer(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """SC-6.2: a player who abandons is replaced by a computer player for the rest of the match."""
    server = fake_telegram
    add_people(server, 4)
    match = build_position(
        ["QH 2C 6S", "KS 2D 6H", "KC 2S 6C", "KD 2H 6D"], "AH 3H 4S 5D JC", to_play=0
    )
    match_id = store_match(
        tmp_path / "a.db", "scopone", 4, match.to_json(), ScoponeOptions().to_dict()
    )
    async with running_bot(server, tmp_path / "a.db") as service:
        await settle(server, service)
        anna = server.user(1001)
        record = service.store.get_match(match_id)
        hand = server.message(1001, record.seats[0].hand_message_id or 0)
        assert hand is not None
        old_card = button_data(hand, "2♣")  # her hand's button, from before she left
        anna.send(1001, "/abbandona")
        await settle(server, service)
        question = server.last_message(1001, from_bot=True)
        assert question is not None and question.text == (
            "Abbandonare la partita in Circolo? La perdi."
        )
        answer = await anna.press(
            1001, question.message_id, button_data(question, "✅ Sì")
        ).answered()
        assert answer["text"] == "Hai abbandonato la partita."
        await settle(server, service)
        moves = [(m.seat, m.action) for m in service.store.moves(match_id)]
        assert moves[0] == (0, "abandon")
        assert moves[1] == (0, "play 6S take AH 5D")  # the computer (greedy) played for her
        record = service.store.get_match(match_id)
        assert service.engine(record).to_play == 3  # Sara's turn now, a person: it waits
        assert len(moves) == 2
        # Her seat is the computer's now: her old hand's buttons play it no more.
        answer = await anna.press(1001, hand.message_id, old_card, force=True).answered()
        assert answer["text"] == "Hai abbandonato la partita."
        assert len(service.store.moves(match_id)) == 2


async def test_open_hands_partner_sees_the_draw(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """S40-12.5: with open hands for partners, a player's draw shows in the partner's hand."""
    server = fake_telegram
    add_people(server, 4)
    options = Options(pairs=True, open_hands_for_partners=True)
    match = new_match(players=4, seed=11, options=options)
    match_id = store_match(tmp_path / "o.db", "scala40", 4, match.to_json(), options.to_dict())
    async with running_bot(server, tmp_path / "o.db") as service:
        await settle(server, service)
        record = service.store.get_match(match_id)
        mover = match.to_play
        assert mover is not None
        partner = (mover + 2) % 4
        hand = server.message(PEOPLE[mover][0], record.seats[mover].hand_message_id or 0)
        assert hand is not None
        user = server.user(PEOPLE[mover][0])
        label = "🂠 Draw" if PEOPLE[mover][2] == "en" else "🂠 Pesca"
        await user.press(user.id, hand.message_id, button_data(hand, label)).answered()
        await settle(server, service)
        match.play("draw")
        shown = server.message(PEOPLE[partner][0], record.seats[partner].hand_message_id or 0)
        assert shown is not None
        cards = " ".join(pretty(c) for c in match.view(partner).partner_hand or [])
        assert len(match.view(partner).partner_hand or []) == 14
        flowing = shown.text.replace("\n", " ")  # the cards wrap between cards on a phone
        assert f"mpagno: {cards}" in flowing or f"Partner's cards: {cards}" in flowing
