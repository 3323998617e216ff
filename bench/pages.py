"""``python -m bench bot --page``: the same matches at a person's pace, played in the Mini App's
page instead of the chat's keyboard (issue 28). Every player keeps the page open (its live
channel), draws with a tap on the stock, lifts a card and discards it; measured: a tap -> every
open page of its match told of it, and the Bot API's message requests per move, against the
keyboard's run (:mod:`bench.bot`)."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.bot import MESSAGE_METHODS
from bench.players import USER_BASE, ms, seed_matches
from bot.app import build_application
from bot.webapp.auth import sign_init_data
from bot.webapp.server import WebApp
from storage import Store
from testkit.bot_harness import serving_page
from testkit.fake_telegram import FakeTelegramServer

WEBAPP = WebApp("https://tavolo.bench/app/")


class PagePlayer:
    """One player with the match's page open: a session, a live channel, taps (aiohttp: it
    keeps a hundred open streams cheaply)."""

    def __init__(self, client: aiohttp.ClientSession, base: str, match_id: int, user: int) -> None:
        self.client, self.base, self.match_id, self.user = client, base, match_id, user
        self.session = ""
        self.told: list[float] = []
        """When the live channel said the match changed."""
        self.heard = asyncio.Event()
        self.changed = asyncio.Event()
        self.channel: asyncio.Task[None] | None = None

    async def _call(self, method: str, path: str, body: object = None) -> dict[str, Any]:
        headers = {"Authorization": "Bearer " + self.session}
        url = self.base + path
        async with self.client.request(method, url, json=body, headers=headers) as answer:
            result: dict[str, Any] = await answer.json()
            return result

    async def open(self, token: str) -> None:
        """Sign in with ``initData`` signed as Telegram signs it, and open the live channel."""
        person = json.dumps({"id": self.user, "first_name": f"P{self.user}"})
        data = sign_init_data({"auth_date": str(int(time.time())), "user": person}, token)
        self.session = (await self._call("POST", "api/session", {"initData": data}))["session"]
        self.channel = asyncio.create_task(self._listen())
        await asyncio.wait_for(self.heard.wait(), 60)  # the channel is open

    async def _listen(self) -> None:
        ticket = (await self._call("POST", f"api/matches/{self.match_id}/ticket"))["ticket"]
        url = f"{self.base}api/matches/{self.match_id}/live?ticket={ticket}"
        async with self.client.get(url, timeout=aiohttp.ClientTimeout(total=None)) as stream:
            async for line in stream.content:
                if line.startswith(b"retry:"):
                    self.heard.set()
                elif line.startswith(b"event: changed"):
                    self.told.append(time.perf_counter())
                    self.changed.set()

    async def state(self) -> dict[str, Any]:
        return await self._call("GET", f"api/matches/{self.match_id}")

    async def tap(self, op: str, arg: str, context: str) -> dict[str, Any]:
        body = {"op": op, "arg": arg, "context": context}
        return await self._call("POST", f"api/matches/{self.match_id}/act", body)


class PageLoad:
    """Players at a person's pace in their pages, and what they measure."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.taps: list[float] = []
        """A tap sent -> its answer (the new state) back."""
        self.told: list[float] = []
        """A tap sent -> the last of its match's open pages told."""
        self.moves = 0
        self._watching: set[asyncio.Task[None]] = set()

    async def play(self, players: list[PagePlayer], deadline: float) -> None:
        """The match's players take their turns in their pages until ``deadline``: like the
        page, each asks for its state when its live channel says the match changed."""
        await asyncio.sleep(self.rng.uniform(0, 2))
        states = [await p.state() for p in players]
        while time.perf_counter() < deadline and all(s["running"] for s in states):
            mover = next((i for i, s in enumerate(states) if s["my_turn"]), None)
            if mover is not None:
                await asyncio.sleep(self.rng.uniform(1.0, 2.0))  # a person's pace
                await self._turn(players[mover], players, states[mover])
            else:  # someone else's turn (another instance, a timer): wait for a change
                waits = [asyncio.create_task(p.changed.wait()) for p in players]
                _, pending = await asyncio.wait(waits, timeout=5, return_when="FIRST_COMPLETED")
                for wait in pending:
                    wait.cancel()
            for player in players:
                player.changed.clear()
            states = [await p.state() for p in players]

    async def _turn(
        self, player: PagePlayer, players: list[PagePlayer], state: dict[str, Any]
    ) -> None:
        table = state["table"]
        if table["stock"]["tap"]:
            await self._tap(player, players, "dr", "", state["context"], move=True)
            return
        cards = [c for c in table["hand"] if c["tap"]]
        lift = self.rng.choice(cards)["tap"]
        state = (await self._tap(player, players, lift["op"], lift["arg"], state["context"]))[
            "state"
        ]
        discard = next((a for a in state["actions"] if a["op"] == "ds"), None)
        if discard is not None:
            await self._tap(player, players, "ds", discard["arg"], state["context"], move=True)

    async def _tap(
        self,
        player: PagePlayer,
        players: list[PagePlayer],
        op: str,
        arg: str,
        context: str,
        move: bool = False,
    ) -> dict[str, Any]:
        sent = time.perf_counter()
        heard = [len(p.told) for p in players]
        answer = await player.tap(op, arg, context)
        self.taps.append(time.perf_counter() - sent)
        if move and not answer.get("answer"):
            self.moves += 1
            watch = asyncio.create_task(self._watch(players, heard, sent))
            self._watching.add(watch)
            watch.add_done_callback(self._watching.discard)
        return answer

    async def _watch(self, players: list[PagePlayer], heard: list[int], sent: float) -> None:
        """How long until every page of the match was told (given up after 30 s)."""
        limit = sent + 30
        while time.perf_counter() < limit:
            if all(len(p.told) > n for p, n in zip(players, heard, strict=True)):
                firsts = [p.told[n] for p, n in zip(players, heard, strict=True)]
                self.told.append(max(firsts) - sent)
                return
            await asyncio.sleep(0.005)


async def run_pages(matches: int, seconds: float, seed: int) -> None:
    """The page's run: the bot with its Mini App, every player in the page."""
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    with tempfile.TemporaryDirectory() as folder:
        server = FakeTelegramServer()
        await server.start()
        store = Store.open(f"sqlite:///{Path(folder) / 'pages.db'}", exclusive=True)
        seeded = seed_matches(server, store, matches)
        server.pop_updates()
        application: Any = build_application(server.token, store, server.base_url, webapp=WEBAPP)
        try:
            async with server.run(application):
                service = application.bot_data["tavolo"]
                await server.wait_idle(application, timeout=300)
                await service.drain()
                connector = aiohttp.TCPConnector(limit=0)
                async with (
                    serving_page(service, server.token, WEBAPP) as base,
                    aiohttp.ClientSession(connector=connector) as client,
                ):
                    tables = [
                        [PagePlayer(client, base, match_id, USER_BASE + 2 * n + k) for k in (0, 1)]
                        for n, (match_id, _) in enumerate(seeded)
                    ]
                    await asyncio.gather(*(p.open(server.token) for ps in tables for p in ps))
                    load = PageLoad(seed)
                    mark = server.mark()
                    cpu, began = time.process_time(), time.perf_counter()
                    deadline = began + seconds
                    await asyncio.gather(*(load.play(players, deadline) for players in tables))
                    await asyncio.sleep(1)
                    await service.drain()
                    cpu = time.process_time() - cpu
                    calls = [c for c in server.calls if c.seq > mark]
                    _report(load, calls, matches, seconds, cpu)
                    for player in (p for players in tables for p in players):
                        if player.channel is not None:
                            player.channel.cancel()
        finally:
            store.close()
            await server.stop()


def _report(load: PageLoad, calls: list[Any], matches: int, seconds: float, cpu: float) -> None:
    messages = [c for c in calls if c.method in MESSAGE_METHODS]
    kinds = collections.Counter(
        ("group" if int(c.params.get("chat_id", 0)) < 0 else "private")
        + " "
        + {"sendMessage": "send", "deleteMessage": "delete"}.get(c.method, "edit")
        for c in messages
    )
    moves = max(load.moves, 1)
    print(
        f"the Mini App: {matches} two-player matches at a person's pace for {seconds:.0f} s, "
        "every player in the page (its live channel open)"
    )
    print(f"taps {len(load.taps)}, moves {load.moves}; tap -> its answer {ms(load.taps)}")
    print(f"move -> every open page of the match told: {ms(load.told)} ({len(load.told)} moves)")
    print(
        f"Bot API message requests per move: {len(messages) / moves:.2f}; of which per move: "
        + ", ".join(f"{kind} {count / moves:.2f}" for kind, count in sorted(kinds.items()))
    )
    print(f"CPU time of this process per move: {1000 * cpu / moves:.1f} ms")
