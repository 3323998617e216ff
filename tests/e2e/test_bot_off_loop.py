"""End to end: the database works off the event loop (issue 26).

A move's commit runs in the store's thread. While one group's commit is held there (a disk or
a database server that is slow to answer), the bot goes on serving the other chats: a player
of another group is answered, and that group's reply to a command goes out. The held press is
answered once its move is committed, not before.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.scala40 import Options
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    hand_of,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position

HELD_GROUP, OTHER_GROUP = -100880, -100881
ANNA, LUCA, BEA, CIRO = 1881, 1882, 1883, 1884
HELD_PEOPLE = [(ANNA, "Anna", "en"), (LUCA, "Luca", "en")]
OTHER_PEOPLE = [(BEA, "Bea", "en"), (CIRO, "Ciro", "en")]

HOLD = 30.0
"""Seconds the held commit waits at most: on a bot that commits on the loop, everything waits
that long (the loop is stuck in it) and the test fails."""


async def test_other_chats_are_served_while_a_commit_waits(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fake_telegram
    database = tmp_path / "off.db"
    seat_people(server, HELD_GROUP, "Circolo", HELD_PEOPLE)
    seat_people(server, OTHER_GROUP, "Bar", OTHER_PEOPLE)
    state = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    options = Options().to_dict()
    held_id = store_started_match(
        database, HELD_GROUP, "Circolo", HELD_PEOPLE, "scala40", state.to_json(), options
    )
    other_id = store_started_match(
        database, OTHER_GROUP, "Bar", OTHER_PEOPLE, "scala40", state.to_json(), options
    )
    async with running_bot(server, database) as service:
        await settle(server, service)
        entered, release = threading.Event(), threading.Event()
        outlasted: list[int] = []
        commit = service.store.commit_move

        def held_commit(match_id: int, *args: Any, **kwargs: Any) -> int:
            if match_id == held_id and not release.is_set():
                entered.set()
                if not release.wait(HOLD):
                    outlasted.append(match_id)
            return commit(match_id, *args, **kwargs)

        monkeypatch.setattr(service.store, "commit_move", held_commit)
        version = service.store.get_match(held_id).version
        hand = hand_of(server, service, held_id, LUCA)
        drawing = server.user(LUCA).press(LUCA, hand.message_id, button_data(hand, "🂠 Draw"))
        assert await asyncio.to_thread(entered.wait, HOLD)

        # In the other group, Bea presses a Draw button of Ciro's (a forged one): refused at
        # once, with no write; then Ciro asks for the score.
        ciro_hand = hand_of(server, service, other_id, CIRO)
        bea_hand = hand_of(server, service, other_id, BEA)
        forged = button_data(ciro_hand, "🂠 Draw")
        pressed = server.user(BEA).press(BEA, bea_hand.message_id, forged, force=True)
        refused = await pressed.answered()
        assert refused.get("text") == "This button is not yours."
        server.user(CIRO).send(OTHER_GROUP, "/score")
        reply = await server.wait_for(
            lambda: score_reply(server),
            timeout=HOLD,
            message="the other group's /score was never answered",
        )
        assert reply == "Punteggio\nBea: 0\nCiro: 0"  # the group speaks Italian
        assert drawing.answer is None, "the held press was answered before its move was stored"

        release.set()
        await drawing.answered()
        await settle(server, service)
        assert not outlasted, "the commit held the event loop"
        assert service.store.get_match(held_id).version == version + 1


def score_reply(server: FakeTelegramServer) -> str | None:
    """The other group's reply to ``/score`` (in Italian, the group's language), once there."""
    last = server.last_message(OTHER_GROUP, from_bot=True)
    text = None if last is None else last.text
    return text if text is not None and text.startswith("Punteggio") else None
