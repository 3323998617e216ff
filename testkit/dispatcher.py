"""A small load balancer for the scale-out test and bench: each webhook request Telegram posts
goes to a random bot instance (another one if that one does not answer), as a reverse proxy
would; and the bot instances behind it, each a process of its own.

It remembers which instance took each update, and when, so a test can tell an update lost
with an instance that was killed from one the bot dropped.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import aiohttp
from aiohttp import web

FORWARDED = ("Content-Type", "X-Telegram-Bot-Api-Secret-Token")
ROOT = Path(__file__).resolve().parents[1]
PROCESS = ROOT / "testkit" / "bot_process.py"


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


def free_ports(count: int) -> list[int]:
    """Free TCP ports on 127.0.0.1, for the instances' webhook servers."""
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [int(sock.getsockname()[1]) for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


async def listening(port: int, timeout: float = 60) -> None:
    """Wait until an instance's webhook server takes connections (it says so to nobody)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"no bot instance listens on port {port}") from None
            await asyncio.sleep(0.1)


def start_instances(
    api_url: str, token: str, database: str, dispatcher: Dispatcher, log: IO[bytes], **env: str
) -> list[subprocess.Popen[bytes]]:
    """One bot process (``bot_process.py``) per port of the dispatcher, in webhook mode on
    ``database``, with ``env`` added to their environment."""
    processes = []
    for port in dispatcher.ports:
        environment = dict(os.environ)
        path = [str(ROOT), environment.get("PYTHONPATH")]
        environment |= {
            "PYTHONPATH": os.pathsep.join(filter(None, path)),
            "PTB_TIMEDELTA": "1",
            "WEBHOOK_URL": dispatcher.url,
            "WEBHOOK_LISTEN": "127.0.0.1",
            "PORT": str(port),
            "BOT_INSTANCES": str(len(dispatcher.ports)),
            **env,
        }
        processes.append(
            subprocess.Popen(
                [sys.executable, str(PROCESS), api_url, database, token],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment,
            )
        )
    return processes
