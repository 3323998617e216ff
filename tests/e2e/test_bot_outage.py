"""End to end: the database goes away while a move's table, hands and bells wait to go out, and
comes back. Nothing the move should show is dropped: once the store answers again, the table
shows whose turn it is, each hand its latest state, and the bell has passed with the turn, all
rendered from the store."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.delivery import Priority
from bot.service import Tavolo
from engine import scala40
from testkit.bot_harness import button_data, running_bot, seat_people, settle, store_started_match
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position
from testkit.storage_helpers import database_away

ANNA, LUCA, GROUP = 1041, 1042, -100641
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


async def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait until ``condition()`` holds (it is checked every 20 ms)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


def shown_as_stored(server: FakeTelegramServer, service: Tavolo, match_id: int) -> bool:
    """Whether the table, both hands and the bells show the stored state."""
    record = service.store.get_match(match_id)
    table = server.message(GROUP, record.table_message_id or 0)
    if table is None or table.source != service.shows.table_view(record)[0]:
        return False
    for seat in record.seats:
        hand = server.message(seat.user_id or 0, seat.hand_message_id or 0)
        if hand is None or hand.source != service.shows.hand_view(record, seat.seat)[0]:
            return False
    rung = [m.message_id for m in server.messages(ANNA, from_bot=True) if m.text.startswith("🔔")]
    silent = [m for m in server.messages(LUCA, from_bot=True) if m.text.startswith("🔔")]
    return rung == [record.seats[0].turn_message_id] and silent == []


async def test_what_a_move_shows_goes_out_once_the_database_is_back(
    fake_telegram: FakeTelegramServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(
        ["4S 4H 4D 3C 9C", "10S JS QS 2S 3S"], discard="KD", stock_top="AC AD", to_play=1
    )
    match_id = store_started_match(
        tmp_path / "o.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    caplog.set_level(logging.WARNING, logger="bot.delivery")
    async with running_bot(server, tmp_path / "o.db") as service:
        await settle(server, service)
        hand_id = service.store.get_match(match_id).seats[1].hand_message_id or 0
        for label in ("🂠 Pesca", "2♠"):
            hand = server.message(LUCA, hand_id)
            assert hand is not None
            await luca.press(LUCA, hand_id, button_data(hand, label)).answered()
            await settle(server, service)
        hand = server.message(LUCA, hand_id)
        assert hand is not None
        # Telegram is slow with a message to each chat: what the move shows waits behind it.
        release = server.hold("sendMessage", first=3)
        for chat in (GROUP, ANNA, LUCA):
            service.outbox.send(chat, "…", priority=Priority.HAND)
        await server.wait_for(
            lambda: sum(1 for c in server.calls_of("sendMessage") if not c.done) == 3
        )
        answer = await luca.press(LUCA, hand_id, button_data(hand, "🗑 Scarta 2♠")).answered()
        assert answer["text"] is None  # committed: Anna's turn
        with database_away(service.store):
            release.set()

            def tried(chat: int, times: int) -> bool:
                said = [r.getMessage() for r in caplog.records]
                return sum(f"delivery to {chat} " in line for line in said) >= times

            # Every chat tried what waited in it (the group its table, Anna her hand and
            # bell, Luca his hand and the deletion of his bell) while the store was away.
            await until(
                lambda: tried(GROUP, 1) and tried(ANNA, 2) and tried(LUCA, 2),
                timeout=20,
                what="the deliveries were never tried while the database was away",
            )
        await until(
            lambda: shown_as_stored(server, service, match_id),
            timeout=20,
            what="the messages still show the state from before the outage",
        )
        await settle(server, service)
        assert [c.summary() for c in server.calls if c.done and not c.ok] == []


async def test_a_bell_telegram_rang_while_the_database_was_away_is_stored(
    fake_telegram: FakeTelegramServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram takes Anna's bell while the database is away: the bell is stored once it is
    back (for this very turn), so it is neither rung twice nor left behind."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(
        ["4S 4H 4D 3C 9C", "10S JS QS 2S 3S"], discard="KD", stock_top="AC AD", to_play=1
    )
    match_id = store_started_match(
        tmp_path / "b.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    caplog.set_level(logging.WARNING, logger="bot.delivery")
    async with running_bot(server, tmp_path / "b.db") as service:
        await settle(server, service)
        hand_id = service.store.get_match(match_id).seats[1].hand_message_id or 0
        for label in ("🂠 Pesca", "2♠"):
            hand = server.message(LUCA, hand_id)
            assert hand is not None
            await luca.press(LUCA, hand_id, button_data(hand, label)).answered()
            await settle(server, service)
        hand = server.message(LUCA, hand_id)
        assert hand is not None
        release = server.hold("sendMessage", first=1)  # Anna's bell
        await luca.press(LUCA, hand_id, button_data(hand, "🗑 Scarta 2♠")).answered()
        await server.wait_for(lambda: any(not c.done for c in server.calls_of("sendMessage")))
        with database_away(service.store):
            release.set()
            await until(
                lambda: any(f"delivery to {ANNA} " in r.getMessage() for r in caplog.records),
                timeout=20,
                what="the bell was never stored while the database was away",
            )
        rung = [m.message_id for m in server.messages(ANNA, from_bot=True) if "🔔" in m.text]
        assert len(rung) == 1
        await until(
            lambda: service.store.get_match(match_id).seats[0].turn_message_id == rung[0],
            timeout=20,
            what="the bell Telegram rang was never stored",
        )
        await settle(server, service)
        record = service.store.get_match(match_id)
        assert record.seats[0].turn_version == record.turn_version
        assert [m.message_id for m in server.messages(ANNA, from_bot=True) if "🔔" in m.text] == [
            rung[0]
        ]
        assert [c.summary() for c in server.calls if c.done and not c.ok] == []


async def test_a_move_the_database_went_away_after_is_shown_once_it_is_back(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away just after Luca's discard is committed: the press is answered
    as accepted (no apology for a move that counts), and once the store answers again the
    table, the hands and the bells show Anna's turn."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(
        ["4S 4H 4D 3C 9C", "10S JS QS 2S 3S"], discard="KD", stock_top="AC AD", to_play=1
    )
    match_id = store_started_match(
        tmp_path / "c.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        hand_id = service.store.get_match(match_id).seats[1].hand_message_id or 0
        for label in ("🂠 Pesca", "2♠"):
            hand = server.message(LUCA, hand_id)
            assert hand is not None
            await luca.press(LUCA, hand_id, button_data(hand, label)).answered()
            await settle(server, service)
        hand = server.message(LUCA, hand_id)
        assert hand is not None
        commit = service.store.commit_move
        with contextlib.ExitStack() as outage:

            def commit_then_go_away(*args: object, **kwargs: object) -> int:
                version = commit(*args, **kwargs)  # type: ignore[arg-type]
                outage.enter_context(database_away(service.store))
                return version

            monkeypatch.setattr(service.store, "commit_move", commit_then_go_away)
            press = luca.press(LUCA, hand_id, button_data(hand, "🗑 Scarta 2♠"))
            answer = await press.answered()
            assert answer["text"] is None  # accepted, as it is: the move is committed
        await until(
            lambda: shown_as_stored(server, service, match_id),
            timeout=20,
            what="the move committed before the outage was never shown",
        )
        record = service.store.get_match(match_id)
        assert record.seats[0].seat == 0 and service.matches.engine(record).to_play == 0
