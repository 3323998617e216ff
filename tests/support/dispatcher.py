"""A small load balancer for the scale-out test: each webhook request Telegram posts goes to a
random bot instance (another one if that one does not answer), as a reverse proxy would.

It remembers which instance took each update, and when, so a test can tell an update lost
with an instance that was killed from one the bot dropped.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

FORWARDED = ("Content-Type", "X-Telegram-Bot-Api-Secret-Token")


@dataclass
class Forwarded:
    """One update handed to an instance: which, when, and its answer."""

    update_id: int
    query_id: str | None
    """The press's id, for a callback query."""
    instance: int
    status: int
    at: float


@dataclass
class Dispatcher:
    """Listens on 127.0.0.1 and forwards ``POST /hook`` to the instances' webhook servers."""

    ports: list[int]
    path: str = "hook"
    rng: random.Random = field(default_factory=lambda: random.Random(20))
    down: set[int] = field(default_factory=set)
    """Instances known dead (the test killed them): not tried any more."""
    log: list[Forwarded] = field(default_factory=list)
    port: int = 0
    _runner: web.AppRunner | None = None
    _session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        """The public webhook address the instances give Telegram."""
        return f"http://127.0.0.1:{self.port}/{self.path}"

    async def start(self) -> None:
        """Start listening on a free port."""
        app = web.Application()
        app.router.add_post(f"/{self.path}", self._forward)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        self._session = aiohttp.ClientSession()

    async def stop(self) -> None:
        """Stop listening."""
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.Response:
        body = await request.read()
        update = json.loads(body)
        update_id = int(update.get("update_id", 0))
        query_id = (update.get("callback_query") or {}).get("id")
        headers = {name: request.headers[name] for name in FORWARDED if name in request.headers}
        live = [index for index in range(len(self.ports)) if index not in self.down]
        self.rng.shuffle(live)
        assert self._session is not None
        for index in live:
            url = f"http://127.0.0.1:{self.ports[index]}/{self.path}"
            try:
                async with self._session.post(url, data=body, headers=headers) as response:
                    status = response.status
            except aiohttp.ClientError:
                continue  # that instance is down: the next one
            self.log.append(Forwarded(update_id, query_id, index, status, time.monotonic()))
            return web.Response(status=status)
        return web.Response(status=502, text="no instance answered")
