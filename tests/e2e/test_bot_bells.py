"""End to end: the turn bell is derived from the stored state. The player to move has one
bell, rung for this very turn; nobody else has one; a restart rings what is missing and
deletes what is stale; the player who closes a hand and starts the next is rung again."""

from __future__ import annotations

from pathlib import Path

import pytest
from telegram import Bot

from bot.render import cards as show
from bot.service import Tavolo
from engine import scala40, scopone
from storage import Store
from testkit.bot_harness import button_data, running_bot, seat_people, settle, store_started_match
from testkit.fake_telegram import FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position

ANNA, LUCA, GROUP = 1001, 1002, -100630
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def bells(server: FakeTelegramServer, user: int) -> list[FakeMessage]:
    """The turn bells a player's private chat shows now."""
    return [m for m in server.messages(user, from_bot=True) if m.text.startswith("🔔")]


def closing_position(database: Path) -> int:
    """Anna, the dealer, has drawn and holds one card: discarding it closes the hand, and as
    the dealer passes to Luca, Anna starts the next hand too."""
    match = position(
        ["5D", "2C 3C 4C 9S 10S KD"],
        melds=[(0, "7H 8H 9H"), (1, "JS QS KS")],
        discard="KD",
        opened=[True, True],
        turns_done=[3, 3],
        to_play=0,
        dealer=0,
        phase="play",
    )
    options = scala40.Options().to_dict()
    return store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), options
    )


async def discard_last_card(server: FakeTelegramServer, service: Tavolo, match_id: int) -> None:
    hand = server.message(ANNA, service.store.get_match(match_id).seats[0].hand_message_id or 0)
    assert hand is not None
    anna = server.user(ANNA)
    assert (await anna.press(ANNA, hand.message_id, button_data(hand, "5♦")).answered())[
        "text"
    ] is None
    await settle(server, service)
    discard = button_data(hand, "🗑 Scarta 5♦")
    assert (await anna.press(ANNA, hand.message_id, discard).answered())["text"] is None
    await settle(server, service)


async def test_the_closer_who_starts_the_next_hand_is_rung_again(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = closing_position(tmp_path / "b.db")
    async with running_bot(server, tmp_path / "b.db") as service:
        await settle(server, service)
        first = bells(server, ANNA)
        assert len(first) == 1 and bells(server, LUCA) == []
        await discard_last_card(server, service, match_id)
        match = service.engine(service.store.get_match(match_id))
        assert (match.hand_number, match.to_play) == (2, 0)
        now = bells(server, ANNA)
        assert len(now) == 1 and now[0].message_id != first[0].message_id
        assert bells(server, LUCA) == []
        record = service.store.get_match(match_id)
        assert record.seats[0].turn_message_id == now[0].message_id
        assert record.seats[0].turn_version == record.turn_version == record.version


async def test_a_bell_passes_with_the_turn_and_goes_at_the_end(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Luca draws and discards: his bell goes, Anna's rings; Anna abandons: no bell is left."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(
        ["4S 4H 4D 3C 9C", "10S JS QS 2S 3S"], discard="KD", stock_top="AC AD", to_play=1
    )
    match_id = store_started_match(
        tmp_path / "p.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    luca, anna = server.user(LUCA), server.user(ANNA)
    async with running_bot(server, tmp_path / "p.db") as service:
        await settle(server, service)
        assert len(bells(server, LUCA)) == 1 and bells(server, ANNA) == []
        hand = server.message(LUCA, service.store.get_match(match_id).seats[1].hand_message_id or 0)
        assert hand is not None
        for label in ("🂠 Pesca", "2♠", "🗑 Scarta 2♠"):
            await luca.press(LUCA, hand.message_id, button_data(hand, label)).answered()
            await settle(server, service)
        assert bells(server, LUCA) == [] and len(bells(server, ANNA)) == 1
        anna.send(ANNA, "/abbandona")
        await settle(server, service)
        question = server.last_message(ANNA, from_bot=True)
        assert question is not None
        await anna.press(ANNA, question.message_id, button_data(question, "✅ Sì")).answered()
        await settle(server, service)
        assert bells(server, LUCA) == [] and bells(server, ANNA) == []
        assert [s.turn_message_id for s in service.store.get_match(match_id).seats] == [None] * 2


async def test_a_restart_rings_what_is_missing_and_deletes_what_is_stale(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Killed right after a move: the store still names Luca's old bell (a turn that is
    over) and Anna has none. The next start deletes Luca's and rings Anna's."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "r.db"
    match_id = closing_position(database)
    async with running_bot(server, database) as service:
        await settle(server, service)
        anna_bell = bells(server, ANNA)[0]
    store = Store.open(f"sqlite:///{database}")
    try:  # as if the bot died between the move and its bells
        record = store.get_match(match_id)
        match = store.load_engine_match(record)
        match.play("discard 5D", seat=0)
        version = store.commit_move(
            match_id, record.version, 0, "discard 5D", match.to_json(), turn_starts=True
        )
    finally:
        store.close()
    # Luca's chat gets a message the store believes to be his old bell.
    stale = server.chat(LUCA).add_message(sender=server.bot_user, text="🔔 Tocca a te in Circolo!")
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_turn_message(match_id, 1, LUCA, stale.message_id, version - 5)
    finally:
        store.close()
    async with running_bot(server, database) as service:
        await settle(server, service)
        assert bells(server, LUCA) == []
        ringing = bells(server, ANNA)
        assert len(ringing) == 1 and ringing[0].message_id != anna_bell.message_id
        record = service.store.get_match(match_id)
        assert [s.turn_version for s in record.seats] == [version, None]


async def test_a_match_that_ended_as_the_bot_stopped_loses_its_bell(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    database = tmp_path / "tavolo.db"
    seat_people(server, GROUP, "Tavolo", PEOPLE)
    match_id = store_started_match(
        database, GROUP, "Tavolo", PEOPLE, "scala40",
        scala40.new_match(players=2, seed=3).to_json(), scala40.Options().to_dict(),
    )  # fmt: skip
    async with Bot(server.token, base_url=server.base_url) as bot:
        bell = await bot.send_message(ANNA, "🔔 Tocca a te nel gruppo «Tavolo»!")
    store = Store.open(f"sqlite:///{database}")
    try:  # the last move stopped the match; the bot died before it deleted the bell
        store.set_turn_message(match_id, 0, ANNA, bell.message_id, turn_version=1)
        store.set_status(match_id, "stopped")
        assert store.ended_unsettled() == [match_id]
    finally:
        store.close()
    async with running_bot(server, database) as service:
        await settle(server, service)
        assert bells(server, ANNA) == []
        assert service.store.get_match(match_id).seats[0].turn_message_id is None
        assert service.store.ended_unsettled() == []


async def test_a_bell_stored_for_no_turn_goes(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """A bell stored without the turn it rang for (it was on its way when the match stopped
    ringing: the turn it rang for was let go) is stale whenever it is not the player's turn."""
    server = fake_telegram
    database = tmp_path / "tavolo.db"
    seat_people(server, GROUP, "Tavolo", PEOPLE)
    match = scala40.new_match(players=2, seed=3)
    match_id = store_started_match(
        database, GROUP, "Tavolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    idle = 1 - (match.to_play or 0)
    user = PEOPLE[idle][0]
    async with Bot(server.token, base_url=server.base_url) as bot:
        bell = await bot.send_message(user, "🔔 Tocca a te nel gruppo «Tavolo»!")
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_turn_message(match_id, idle, user, bell.message_id, turn_version=None)
    finally:
        store.close()
    async with running_bot(server, database) as service:
        await settle(server, service)
        assert bells(server, user) == []
        assert service.store.get_match(match_id).seats[idle].turn_message_id is None


SCOPA = -100631
FOUR = [(1011, "Bea", "it"), (1012, "Ciro", "it"), (1013, "Dora", "it"), (1014, "Ezio", "it")]


def one_way_card(match: scopone.Match) -> str:
    """A card of the player to move that can be played one way only (one tap plays it)."""
    seat = match.to_play
    assert seat is not None
    plays = [str(action.card) for action in match.view(seat).legal_actions]
    return next(card for card in plays if plays.count(card) == 1)


async def play_one_card(
    server: FakeTelegramServer, service: Tavolo, match_id: int, match: scopone.Match
) -> None:
    """The player to move taps a card that plays at once; the press is a move."""
    seat = match.to_play
    assert seat is not None
    user = FOUR[seat][0]
    hand = server.message(user, service.store.get_match(match_id).seats[seat].hand_message_id or 0)
    assert hand is not None
    data = button_data(hand, show.card(one_way_card(match)))
    card = one_way_card(match)
    answer = await server.user(user).press(user, hand.message_id, data).answered()
    assert answer["text"] is None
    match.play(next(a for a in match.legal_actions() if str(a.card) == card), seat=seat)


async def test_a_bell_still_on_its_way_when_the_turn_passes_goes(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The bell of a turn is on its way to the player (Telegram has not answered yet) when
    the player moves: the move's bells saw no bell to delete, so the bell goes once stored."""
    server = fake_telegram
    database = tmp_path / "s.db"
    seat_people(server, SCOPA, "Scopa", FOUR)
    match = scopone.new_match(seed=7)
    match_id = store_started_match(
        database, SCOPA, "Scopa", FOUR, "scopone", match.to_json(), scopone.Options().to_dict()
    )
    async with running_bot(server, database) as service:
        await settle(server, service)
        released = server.hold("sendMessage", first=1)  # the next bell: the second player's
        await play_one_card(server, service, match_id, match)
        second = match.to_play
        assert second is not None
        bell = await server.wait_for(
            lambda: [
                call
                for call in server.calls_of("sendMessage")
                if call.params.get("chat_id") == FOUR[second][0] and not call.done
            ],
            message="the second player's bell is not on its way",
        )
        assert len(bell) == 1 and str(bell[0].params["text"]).startswith("🔔")
        await server.wait_for(lambda: service.store.get_match(match_id).seats[second].hand_digest)
        await play_one_card(server, service, match_id, match)
        released.set()
        await settle(server, service)
        assert bells(server, FOUR[second][0]) == []
        assert len(bells(server, FOUR[match.to_play or 0][0])) == 1
        record = service.store.get_match(match_id)
        assert record.seats[second].turn_message_id is None
