"""End to end: the Mini App's API over the real bot (issue 28). A rigged Scala 40 hand is played
by taps sent as the page sends them, with ``initData`` signed as Telegram signs it; the chat and
the page show one state; every attack is refused and changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.render.cards import card as pretty
from bot.service import Tavolo
from bot.webapp.auth import sign_init_data
from bot.webapp.server import WebApp
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    keyboard_data,
    running_bot,
    seat_people,
    serving_page,
    settle,
    store_rigged_scala40,
)
from testkit.fake_telegram import FakeTelegramServer

ANNA, LUCA, OTTO, GROUP = 1001, 1002, 1003, -100700
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
WEBAPP = WebApp("https://tavolo.test/app/")
TOO_MANY = "You already have too many pages open: close one and try again."
RANKS = {"A", "J", "Q", "K", "🃏", *map(str, range(2, 11))}


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def rigged_store(database: Path) -> int:
    """A 2-player match, Luca to play first (the hands of ``RIGGED_HANDS``)."""
    return store_rigged_scala40(database, GROUP, "Tavolo di prova", PEOPLE)


@contextlib.asynccontextmanager
async def bot_and_page(
    server: FakeTelegramServer, database: Path
) -> AsyncIterator[tuple[Tavolo, httpx.AsyncClient]]:
    """The bot with its Mini App on ``database``, settled, and a client of the page's API."""
    async with (
        running_bot(server, database, webapp=WEBAPP) as service,
        serving_page(service, server.token, WEBAPP) as base,
        httpx.AsyncClient(base_url=base, timeout=30) as client,
    ):
        await settle(server, service)
        yield service, client


def init_data(token: str, user: int, name: str, signed_at: float | None = None) -> str:
    """``initData`` as Telegram signs it when ``user`` opens the Mini App."""
    person = json.dumps({"id": user, "first_name": name, "language_code": "it"})
    when = str(int(time.time() if signed_at is None else signed_at))
    return sign_init_data({"auth_date": when, "query_id": "AAH", "user": person}, token)


class Page:
    """One user's page: the session it got and the requests it makes."""

    def __init__(self, client: httpx.AsyncClient, match_id: int) -> None:
        self.client, self.match_id, self.session = client, match_id, ""

    async def sign_in(self, data: str) -> httpx.Response:
        response = await self.client.post("api/session", json={"initData": data})
        if response.status_code == 200:
            self.session = response.json()["session"]
        return response

    def _auth(self) -> dict[str, bytes]:
        return {"Authorization": ("Bearer " + self.session).encode()}  # as bytes: any text

    async def state(self, match_id: int | None = None) -> httpx.Response:
        return await self.client.get(
            f"api/matches/{match_id or self.match_id}", headers=self._auth()
        )

    async def send(self, op: str, arg: str = "", context: str | None = None) -> httpx.Response:
        if context is None:
            context = (await self.state()).json()["context"]
        body = {"op": op, "arg": arg, "context": context}
        return await self.client.post(
            f"api/matches/{self.match_id}/act", json=body, headers=self._auth()
        )

    async def live(self) -> str:
        """The address of the match's live channel, with a ticket to it."""
        response = await self.client.post(
            f"api/matches/{self.match_id}/ticket", headers=self._auth()
        )
        assert response.status_code == 200, response.text
        return f"api/matches/{self.match_id}/live?ticket={response.json()['ticket']}"

    async def tap(self, op: str, arg: str = "") -> dict[str, Any]:
        """A tap that the bot takes: its answer's words."""
        response = await self.send(op, arg)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def lift(self, *cards: str) -> None:
        for card in cards:
            hand = (await self.state()).json()["table"]["hand"]
            tap = next(c["tap"] for c in hand if c["card"] == card and not c["selected"])
            assert (await self.tap(tap["op"], tap["arg"]))["answer"] == ""

    async def press(self, label: str) -> str:
        """The page's button ``label`` (one of the hand's buttons), pressed."""
        actions = (await self.state()).json()["actions"]
        action = next(a for a in actions if a["label"] == label)
        return str((await self.tap(action["op"], action["arg"]))["answer"])


async def test_a_turn_played_in_the_page_is_the_turn_the_chat_shows(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match_id = rigged_store(tmp_path / "w.db")
    async with bot_and_page(server, tmp_path / "w.db") as (service, client):
        # The hand message opens the page of its match.
        hand = chat_hand(server, service, match_id, LUCA)
        assert hand.reply_markup is not None
        assert hand.reply_markup["inline_keyboard"][-1] == [
            {"text": "🃏 Table", "web_app": {"url": f"https://tavolo.test/app/?m={match_id}"}}
        ]
        # The group's table links to it (web-app buttons work in private chats only).
        table = server.message(GROUP, service.store.get_match(match_id).table_message_id or 0)
        assert table is not None and table.reply_markup == {
            "inline_keyboard": [[{
                "text": "🃏 Apri il tavolo",
                "url": f"https://t.me/{service.bot.username}?startapp=m{match_id}",
            }]]
        }  # fmt: skip
        page = Page(client, match_id)
        signed = await page.sign_in(init_data(server.token, LUCA, "Luca"))
        assert signed.json()["user"] == {"id": LUCA, "name": "Luca"}
        state = (await page.state()).json()
        assert (state["game"], state["seat"], state["my_turn"], state["lang"]) == (
            "scala40",
            1,
            True,
            "en",
        )
        cards = [(c["card"], c["label"]) for c in state["table"]["hand"]]
        assert sorted(card for card, _ in cards) == sorted(RIGGED_HANDS[1].split())
        shown = [pretty(card) for card, _ in cards]  # in the order of the chat's buttons
        assert shown == [b for b in keyboard_data(hand) if b.rstrip("♠♥♦♣").rstrip() in RANKS]
        assert cards[0] == ("JK", "joker") and cards[1] == ("2S", "two of spades")
        assert state["table"]["players"] == [
            {"name": "Anna", "cards": 13, "turn": False, "me": False, "opened": False},
            {"name": "Luca", "cards": 13, "turn": True, "me": True, "opened": False},
        ]
        assert state["table"]["stock"]["tap"] == {"op": "dr", "arg": ""}
        assert state["table"]["discard"] == {
            "card": "KD", "label": "king of diamonds", "tap": {"op": "t", "arg": "^"},
            "selected": False, "count": 1,
        }  # fmt: skip
        assert state["text"] == hand.text  # the page reads as the chat's hand

        # The turn: draw from the stock, stage two melds, open 58, discard 2♠.
        edits = len(server.calls_of("editMessageText"))
        assert (await page.tap("dr"))["answer"] == "You drew A♣."
        await page.lift("JK", "6H", "7H")
        lifted = (await page.state()).json()["table"]["hand"]
        assert [c["card"] for c in lifted if c["selected"]] == ["JK", "6H", "7H"]
        assert [c["card"] for c in lifted if c["new"]] == ["AC"]
        assert await page.press("➕ Stage") == ""
        await page.lift("10S", "JS", "QS", "KS")
        assert await page.press("➕ Stage") == ""
        staged = (await page.state()).json()["table"]["staged"]
        assert [[c["card"] for c in meld] for meld in staged] == [
            ["JK", "6H", "7H"], ["10S", "JS", "QS", "KS"]
        ]  # fmt: skip
        await settle(server, service)
        luca_edits = [
            c for c in server.calls_of("editMessageText")[edits:] if c.params["chat_id"] == LUCA
        ]
        assert len(luca_edits) == 1  # the draw, a move; the lifts and the staging are the page's
        assert await page.press("✅ Open 58") == ""
        await page.lift("2S")
        assert await page.press("🗑 Discard 2♠") == ""
        await settle(server, service)
        moves = [m.action for m in service.store.moves(match_id)]
        assert moves == ["draw", "open JK 6H 7H | 10S JS QS KS", "discard 2S"]
        state = (await page.state()).json()
        assert (
            state["my_turn"] is False
            and state["text"] == chat_hand(server, service, match_id, LUCA).text
        )
        melds = state["table"]["melds"]
        assert [(m["number"], m["owner"], [c["card"] for c in m["cards"]]) for m in melds] == [
            (1, "Luca", ["JK=5H", "6H", "7H"]), (2, "Luca", ["10S", "JS", "QS", "KS"])
        ]  # fmt: skip
        assert melds[0]["cards"][0]["label"] == "joker as five of hearts"


async def test_attacks_on_the_page_are_refused_and_change_nothing(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    server.add_user(OTTO, "Otto", language_code="it").start_private()
    match_id = rigged_store(tmp_path / "a.db")
    async with bot_and_page(server, tmp_path / "a.db") as (service, client):
        luca, anna, otto = (Page(client, match_id) for _ in range(3))
        not_signed = "Apri il tavolo da Telegram: questa pagina funziona solo lì."
        # Forged, tampered, another bot's, or too old: no session.
        genuine = init_data(server.token, LUCA, "Luca")
        forged = genuine.replace(f"%22id%22%3A+{LUCA}", f"%22id%22%3A+{ANNA}")
        assert forged != genuine
        for data in (
            forged,
            init_data("999:OTHER", LUCA, "Luca"),
            init_data(server.token, LUCA, "Luca", signed_at=time.time() - 3601),
            "user=%7B%22id%22%3A1002%7D&auth_date=1",
        ):
            refused = await luca.sign_in(data)
            assert (refused.status_code, refused.json()) == (401, {"error": not_signed})
        for body in ("not json", "[]"):
            bad = await client.post("api/session", content=body)
            assert (bad.status_code, bad.json()) == (400, {"error": "Richiesta non valida."})
        # Without a session, or with a forged one: nothing.
        expired = "Sessione scaduta: riapri il tavolo con il pulsante 🃏 Tavolo sotto le tue carte."
        for forged in ("e30.forged", "e30.fàlso", "€"):  # not even ASCII: still a 401
            luca.session = forged
            for response in (await luca.state(), await luca.send("dr", context="x")):
                assert (response.status_code, response.json()) == (401, {"error": expired})
        nonascii = genuine.replace("hash=", "hash=%C3%A8")
        refused = await luca.sign_in(nonascii)
        assert (refused.status_code, refused.json()) == (401, {"error": not_signed})

        await luca.sign_in(genuine)
        await anna.sign_in(init_data(server.token, ANNA, "Anna"))
        await otto.sign_in(init_data(server.token, OTTO, "Otto"))
        # Someone without a seat sees nothing of the match, and may not play in it.
        not_yours = (403, {"error": "Non stai giocando questa partita."})
        response = await otto.state()
        assert (response.status_code, response.json()) == not_yours
        response = await otto.send("dr", context="x")
        assert (response.status_code, response.json()) == not_yours
        response = await luca.state(match_id + 1)
        assert response.status_code == 404
        # A live channel needs a ticket to that very match, of someone seated there.
        ticket = (await luca.live()).split("ticket=")[1]
        for address in (
            f"api/matches/{match_id}/live?ticket=",
            f"api/matches/{match_id}/live?ticket=forged.x",
            f"api/matches/{match_id + 1}/live?ticket={ticket}",
            f"api/matches/{match_id}/live?session={luca.session}",
        ):
            response = await client.get(address)
            assert (response.status_code, response.json()) == (401, {"error": expired})
        response = await client.post(f"api/matches/{match_id}/ticket", headers=otto._auth())
        assert (response.status_code, response.json()) == not_yours
        # Four live channels at once for a person (a few devices), not a fifth.
        async with contextlib.AsyncExitStack() as streams:
            lines = []  # each stream's lines, kept: a stream's reader let go closes it
            for _ in range(4):
                stream = await streams.enter_async_context(client.stream("GET", await luca.live()))
                lines.append(stream.aiter_lines())
                assert await anext(lines[-1]) == "retry: 1000"
            response = await client.get(await luca.live())
            assert (response.status_code, response.json()) == (429, {"error": TOO_MANY})
        # Five asked for at once: each counted before it awaits anything, so one is refused.
        await server.wait_for(lambda: service.pages.open_for(LUCA) == 0)
        addresses = [await luca.live() for _ in range(5)]
        async with contextlib.AsyncExitStack() as streams:

            async def opened(address: str) -> int:
                stream = await streams.enter_async_context(client.stream("GET", address))
                if stream.status_code == 200:
                    lines.append(stream.aiter_lines())
                    assert await anext(lines[-1]) == "retry: 1000"
                return stream.status_code

            async with asyncio.TaskGroup() as opening:
                tasks = [opening.create_task(opened(address)) for address in addresses]
            assert sorted(task.result() for task in tasks) == [200, 200, 200, 200, 429]
        # Anna's session plays Anna's seat only: not her turn, and Luca's cards are not hers.
        assert (await anna.tap("dr"))["answer"] == "Non è il tuo turno."
        assert "JK" not in [c["card"] for c in (await anna.state()).json()["table"]["hand"]]
        # An unknown operation, a malformed argument: refused; a stale context: told.
        for op, arg in (("zz", ""), ("t", "<b>"), ("t", "7H" * 101)):
            response = await luca.send(op, arg)
            assert (response.status_code, response.json()) == (400, {"error": "Invalid request."})
        stale = (await luca.send("dr", "", "oldold")).json()["answer"]
        assert stale == "The table has changed in the meantime: check it and try again."
        # A tap replayed after the turn passed.
        assert (await luca.tap("dr"))["answer"] == "You drew A♣."
        await luca.lift("2S")
        discard = next(a for a in (await luca.state()).json()["actions"] if a["op"] == "ds")
        assert (await luca.tap(discard["op"], discard["arg"]))["answer"] == ""
        assert (await luca.tap("dr"))["answer"] == "It is not your turn."
        assert [m.action for m in service.store.moves(match_id)] == ["draw", "discard 2S"]
        # The page of a finished match: its end, and no tap; its live channel ends.
        async with client.stream("GET", await luca.live()) as stream:
            events = stream.aiter_lines()
            assert await anext(events) == "retry: 1000"
            await service.store.off(service.store.set_status, match_id, "stopped")
            service.pages.changed(match_id)
            assert await next_event(events) == "event: changed"
            rest = [line async for line in events if line and not line.startswith("data:")]
            assert rest == []  # the stream ended
        state = (await luca.state()).json()
        assert (state["running"], state["actions"], state["table"]) == (False, [], {})
        assert (await luca.tap("dr", ""))["answer"] == "This match is gone."
        assert [m.action for m in service.store.moves(match_id)] == ["draw", "discard 2S"]


async def test_a_move_reaches_every_open_page_and_the_chat(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    luca_user = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)[1]
    match_id = rigged_store(tmp_path / "l.db")
    async with bot_and_page(server, tmp_path / "l.db") as (service, client):
        anna, luca = Page(client, match_id), Page(client, match_id)
        await anna.sign_in(init_data(server.token, ANNA, "Anna"))
        await luca.sign_in(init_data(server.token, LUCA, "Luca"))
        anna_edits = len(edits_to(server, ANNA))
        anna_sent = len(sends_to(server, ANNA))
        async with client.stream("GET", await anna.live()) as stream:
            assert stream.headers["content-type"] == "text/event-stream"
            events = stream.aiter_lines()
            assert await anext(events) == "retry: 1000"
            # A move in the page: Anna's page is told.
            stock = (await anna.state()).json()["table"]["stock"]["count"]
            assert (await luca.tap("dr"))["answer"] == "You drew A♣."
            assert await next_event(events) == "event: changed"
            assert (await anna.state()).json()["table"]["stock"]["count"] == stock - 1
            # A move in the chat: Anna's page is told, Luca's page shows it.
            hand = chat_hand(server, service, match_id, LUCA)
            await luca_user.press(LUCA, hand.message_id, button_data(hand, "2♠")).answered()
            await settle(server, service)
            hand = chat_hand(server, service, match_id, LUCA)
            await luca_user.press(LUCA, hand.message_id, button_data(hand, "🗑")).answered()
            assert await next_event(events) == "event: changed"
            await settle(server, service)
            state = (await luca.state()).json()
            assert state["table"]["discard"]["card"] == "2S" and not state["my_turn"]
            assert "🗑" not in "".join(keyboard_data(chat_hand(server, service, match_id, LUCA)))
            # Anna looks at her page: her hand message in the chat waits meanwhile, and her
            # turn rings no bell.
            assert len(edits_to(server, ANNA)) == anna_edits
            assert (await anna.state()).json()["my_turn"] is True
            assert len(sends_to(server, ANNA)) == anna_sent
        # Her page closed, it catches up: it shows what her page showed.
        page_text = (await anna.state()).json()["text"]
        await server.wait_for(lambda: chat_hand(server, service, match_id, ANNA).text == page_text)
        assert len(edits_to(server, ANNA)) > anna_edits
        await settle(server, service)
        assert service.store.get_match(match_id).seats[0].turn_message_id is not None  # a bell


async def next_event(lines: Any) -> str:
    """The next event line of a stream (keep-alive comments and blank lines skipped)."""
    async with asyncio.timeout(15):
        async for line in lines:
            if line.startswith("event:"):
                return str(line)
    raise AssertionError("the stream ended")


def sends_to(server: FakeTelegramServer, user: int) -> list[Any]:
    """The messages sent to the user's private chat."""
    return [c for c in server.calls_of("sendMessage") if c.params["chat_id"] == user]


def edits_to(server: FakeTelegramServer, user: int) -> list[Any]:
    """The edits of messages in the user's private chat."""
    return [c for c in server.calls_of("editMessageText") if c.params["chat_id"] == user]


def chat_hand(server: FakeTelegramServer, service: Tavolo, match_id: int, user: int) -> Any:
    """The user's hand message in the chat."""
    record = service.store.get_match(match_id)
    seat = record.seat_of(user)
    assert seat is not None
    message = server.message(user, record.seats[seat].hand_message_id or 0)
    assert message is not None
    return message


async def test_the_page_takes_the_discard_and_the_chat_never_acts_on_what_it_does_not_show(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    luca_user = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)[1]
    match_id = rigged_store(tmp_path / "d.db")
    async with bot_and_page(server, tmp_path / "d.db") as (service, client):
        luca = Page(client, match_id)
        await luca.sign_in(init_data(server.token, LUCA, "Luca"))
        # Lifted in the chat, then changed in the page: the chat's old keyboard is refused
        # (it would stage what it does not show) and shows the hand again.
        hand = chat_hand(server, service, match_id, LUCA)
        await luca_user.press(LUCA, hand.message_id, button_data(hand, "10♠")).answered()
        await settle(server, service)
        await luca.lift("2S")
        hand = chat_hand(server, service, match_id, LUCA)
        assert "✓10♠" in keyboard_data(hand) and "✓2♠" not in keyboard_data(hand)
        stage = await luca_user.press(LUCA, hand.message_id, button_data(hand, "➕")).answered()
        assert stage["text"] == "This button is no longer valid."
        await settle(server, service)
        assert {"✓10♠", "✓2♠"} <= set(keyboard_data(chat_hand(server, service, match_id, LUCA)))
        assert not service.store.get_match(match_id).seats[1].ui.staged
        # The discard's top, taken with a tap on the pile, to open with it.
        state = (await luca.state()).json()
        tap = state["table"]["discard"]["tap"]
        assert (await luca.tap(tap["op"], tap["arg"]))["answer"] == ""
        assert (await luca.state()).json()["table"]["discard"]["selected"] is True


async def test_the_page_of_a_match_that_ended_shows_how_it_ended(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match_id = rigged_store(tmp_path / "e.db")
    async with bot_and_page(server, tmp_path / "e.db") as (service, client):
        anna = Page(client, match_id)
        await anna.sign_in(init_data(server.token, ANNA, "Anna"))
        async with service.matches.hold(match_id) as record:  # a confirmed /stop
            assert record is not None
            await service.moves.move(record, None, "stop", "it")
        await settle(server, service)
        state = (await anna.state()).json()
        assert (state["running"], state["my_turn"], state["actions"]) == (False, False, [])
        assert state["text"] == chat_hand(server, service, match_id, ANNA).text
        assert state["text"].splitlines() == [
            "🃏 Scala 40 · Tavolo di prova",
            "⏹ Partita interrotta: non conta per la classifica.",
        ]
