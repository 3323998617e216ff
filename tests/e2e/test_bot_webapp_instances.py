"""End to end on PostgreSQL: the Mini App served by one instance while another takes the moves
(issue 28, several instances behind a proxy): a page open on one instance hears of a move made
on the other within about a second, and its tap there is the move every instance sees."""

from __future__ import annotations

import asyncio
import json
import os
import time

import httpx
import pytest

from bot.webapp.auth import sign_init_data
from bot.webapp.server import WebApp
from engine.scala40 import Options
from testkit.bot_harness import (
    RIGGED_HANDS,
    another_instance,
    button_data,
    running_bot,
    seat_people,
    serving_page,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
ANNA, LUCA, GROUP = 1041, 1042, -100641
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
WEBAPP = WebApp("https://tavolo.test/app/")

pytestmark = pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def signed(token: str, user: int) -> str:
    person = json.dumps({"id": user, "first_name": "P"})
    return sign_init_data({"auth_date": str(int(time.time())), "user": person}, token)


async def test_a_page_on_one_instance_hears_a_move_made_on_another(
    fake_telegram: FakeTelegramServer, url: str
) -> None:
    server = fake_telegram
    luca_user = seat_people(server, GROUP, "Circolo", PEOPLE)[1]
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    match_id = store_started_match(
        url, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), Options().to_dict()
    )
    async with (
        running_bot(server, url, webapp=WEBAPP) as one,
        another_instance(server, url) as other,
        serving_page(other, server.token, WEBAPP) as base,
        httpx.AsyncClient(base_url=base, timeout=30) as client,
    ):
        await settle(server, one)
        sessions = {}
        for user in (ANNA, LUCA):
            answer = await client.post("api/session", json={"initData": signed(server.token, user)})
            sessions[user] = {"Authorization": "Bearer " + answer.json()["session"]}
        ticket = await client.post(f"api/matches/{match_id}/ticket", headers=sessions[ANNA])
        live = f"api/matches/{match_id}/live?ticket={ticket.json()['ticket']}"
        async with client.stream("GET", live) as stream:
            lines = stream.aiter_lines()
            assert await anext(lines) == "retry: 1000"
            stock = (await client.get(f"api/matches/{match_id}", headers=sessions[ANNA])).json()
            # Luca draws in the chat: the polling instance takes it.
            record = one.store.get_match(match_id)
            hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
            assert hand is not None
            await luca_user.press(LUCA, hand.message_id, button_data(hand, "🂠 Draw")).answered()
            async with asyncio.timeout(15):
                async for line in lines:
                    if line == "event: changed":
                        break
            state = (await client.get(f"api/matches/{match_id}", headers=sessions[ANNA])).json()
            count = stock["table"]["stock"]["count"]
            assert state["table"]["stock"]["count"] == count - 1
        # Luca lifts and discards in the page the other instance serves: one move for all.
        state = (await client.get(f"api/matches/{match_id}", headers=sessions[LUCA])).json()
        lift = next(c["tap"] for c in state["table"]["hand"] if c["card"] == "2S")
        body = {"op": lift["op"], "arg": lift["arg"], "context": state["context"]}
        act = f"api/matches/{match_id}/act"
        state = (await client.post(act, json=body, headers=sessions[LUCA])).json()["state"]
        discard = next(a for a in state["actions"] if a["op"] == "ds")
        body = {"op": "ds", "arg": discard["arg"], "context": state["context"]}
        assert (await client.post(act, json=body, headers=sessions[LUCA])).json()["answer"] == ""
        await other.drain()
        await settle(server, one)
        assert [m.action for m in one.store.moves(match_id)] == ["draw", "discard 2S"]
