"""End to end: two instances of the bot on one PostgreSQL deliver each live message once.

Each test holds a Bot API method at the fake server (Telegram slow to answer) while one
instance is sending, editing or deleting a message, and asks the other instance to show the
same message meanwhile, as after a press it handled: a turn bell is deleted once, a hand is
posted once, and a hand posted by an instance that lost its claim meanwhile (frozen past the
database's idle timeout) is deleted at once, the stored copy kept.
"""

from __future__ import annotations

import os

import pytest

from engine import scala40
from testkit.bot_harness import another_instance, button_data, running_bot, seat_people, settle
from testkit.bot_harness import store_started_match as started
from testkit.fake_telegram import FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
ANNA, LUCA, GROUP = 1031, 1032, -100631
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")]

pytestmark = pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def bells(server: FakeTelegramServer, user: int) -> list[FakeMessage]:
    """The turn bells a player's private chat shows now."""
    return [m for m in server.messages(user, from_bot=True) if m.text.startswith("🔔")]


def hands(server: FakeTelegramServer, user: int) -> list[int]:
    """The ids of the hand messages a player's private chat shows now."""
    return [m.message_id for m in server.messages(user, from_bot=True) if "Scala 40" in m.text]


def refused(server: FakeTelegramServer) -> list[str]:
    """The requests Telegram refused."""
    return [c.summary() for c in server.calls if c.done and not c.ok]


def in_flight(server: FakeTelegramServer, method: str) -> int:
    """Requests of ``method`` the fake server has not answered yet."""
    return sum(1 for call in server.calls_of(method) if not call.done)


def luca_to_play(url: str) -> int:
    """Luca to play, with his bell: a draw and a discard pass the turn to Anna."""
    match = position(
        ["4S 4H 4D 3C 9C", "10S JS QS 2S 3S"], discard="KD", stock_top="AC AD", to_play=1
    )
    options = scala40.Options().to_dict()
    return started(url, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), options)


async def test_a_bell_is_deleted_once_whichever_instances_ask(
    fake_telegram: FakeTelegramServer, url: str
) -> None:
    """Luca's discard ends his turn on one instance, whose deletion of his bell Telegram is
    slow to answer; another instance brings the bells in line meanwhile (the next press it
    handles does): it waits, sees the bell gone, and deletes nothing."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = luca_to_play(url)
    luca = server.user(LUCA)
    async with running_bot(server, url) as one, another_instance(server, url) as other:
        await settle(server, one)
        assert len(bells(server, LUCA)) == 1
        hand_id = one.store.get_match(match_id).seats[1].hand_message_id or 0
        for label in ("🂠 Pesca", "2♠"):
            hand = server.message(LUCA, hand_id)
            assert hand is not None
            await luca.press(LUCA, hand_id, button_data(hand, label)).answered()
            await settle(server, one)
        hand = server.message(LUCA, hand_id)
        assert hand is not None
        release = server.hold("deleteMessage")
        await luca.press(LUCA, hand_id, button_data(hand, "🗑 Scarta 2♠")).answered()
        await server.wait_for(lambda: in_flight(server, "deleteMessage") == 1)
        other.shows.ring(other.store.get_match(match_id))
        release.set()
        await settle(server, one)
        await other.drain()
        await settle(server, one)
        assert refused(server) == []
        assert len(server.calls_of("deleteMessage")) == 1
        assert bells(server, LUCA) == [] and len(bells(server, ANNA)) == 1
        seats = one.store.get_match(match_id).seats
        assert [s.turn_message_id for s in seats] == [bells(server, ANNA)[0].message_id, None]


async def test_a_hand_is_posted_once_whichever_instances_show_it(
    fake_telegram: FakeTelegramServer, url: str
) -> None:
    """A new match: one instance posts Anna's hand, and Telegram is slow to answer; another
    instance shows the hand meanwhile (a computer's move it made): it waits, then edits the
    hand the first one posted, if anything changed."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = luca_to_play(url)
    async with another_instance(server, url) as one, another_instance(server, url) as other:
        release = server.hold("sendMessage")
        one.shows.hand(one.store.get_match(match_id), 0)
        await server.wait_for(lambda: in_flight(server, "sendMessage") == 1)
        other.shows.hand(other.store.get_match(match_id), 0)
        release.set()
        await one.drain()
        await other.drain()
        await one.drain()
        assert refused(server) == []
        posted = hands(server, ANNA)
        assert len(posted) == 1
        assert one.store.get_match(match_id).seats[0].hand_message_id == posted[0]


async def test_a_hand_posted_after_losing_the_claim_is_deleted_at_once(
    fake_telegram: FakeTelegramServer, url: str
) -> None:
    """One instance posts Anna's hand and freezes before Telegram answers, long enough for the
    database to end its session (its claim with it); another instance posts and stores the
    hand meanwhile. When the first wakes, its copy goes at once: Anna has one hand, with live
    buttons, and it is the stored one."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match_id = luca_to_play(url)
    async with another_instance(server, url) as frozen, another_instance(server, url) as other:
        release = server.hold("sendMessage", first=1)
        frozen.shows.hand(frozen.store.get_match(match_id), 0)
        await server.wait_for(lambda: in_flight(server, "sendMessage") == 1)
        frozen.store.release_delivery((match_id, "hand", 0))  # its session ended meanwhile
        other.shows.hand(other.store.get_match(match_id), 0)
        await other.drain()
        stored = other.store.get_match(match_id).seats[0].hand_message_id
        assert hands(server, ANNA) == [stored]
        release.set()
        await frozen.drain()
        await other.drain()
        assert refused(server) == []
        assert hands(server, ANNA) == [stored]
        assert frozen.store.get_match(match_id).seats[0].hand_message_id == stored
