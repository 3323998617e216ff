"""Webhook delivery, as a local Bot API server does it (``telegram-bot-api --local``).

``setWebhook`` checks its secret token as Telegram does (``A-Z a-z 0-9 _ -``, at most 256
characters); from then on every queued update is POSTed to the URL as JSON, with the secret in
the ``X-Telegram-Bot-Api-Secret-Token`` header, at most ``max_connections`` at a time, oldest
first. An update leaves the queue only when the bot answers 2xx; otherwise it is sent again after
a pause, as Telegram does. A local server, unlike api.telegram.org, allows plain HTTP and any
port, which is what lets tests run the bot's webhook server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp

from .constants import JSON
from .errors import ApiError, bad_request

if TYPE_CHECKING:
    from .server import FakeTelegramServer

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
ERR_SECRET_CHARACTERS = "Bad Request: secret token contains unallowed characters"
ERR_SECRET_LONG = "Bad Request: secret token is too long"
ERR_MAX_CONNECTIONS = "Bad Request: bad webhook: max_connections must be between 1 and 100"
RETRY_AFTER = 0.5
"""Seconds before an update the bot did not take is sent again (Telegram waits longer)."""
_SECRET = re.compile(r"[A-Za-z0-9_-]*")


@dataclass
class Delivery:
    """One POST of an update to the webhook: its status (None: no answer, connection failed)."""

    update_id: int
    status: int | None
    started: float
    finished: float


@dataclass
class WebhookSender:
    """Sends the server's queued updates to its webhook while one is set."""

    server: FakeTelegramServer
    url: str = ""
    secret: str = ""
    max_connections: int = 40
    deliveries: list[Delivery] = field(default_factory=list)
    last_error: str = ""
    _task: asyncio.Task[None] | None = None
    _in_flight: set[int] = field(default_factory=set)
    _retry_at: dict[int, float] = field(default_factory=dict)

    def configure(self, params: JSON) -> None:
        """``setWebhook``: check the parameters, then deliver to the new URL."""
        secret = str(params.get("secret_token") or "")
        if len(secret) > 256:
            raise ApiError(400, ERR_SECRET_LONG)
        if not _SECRET.fullmatch(secret):
            raise ApiError(400, ERR_SECRET_CHARACTERS)
        connections = int(params.get("max_connections") or 40)
        if not 1 <= connections <= 100:
            raise ApiError(400, ERR_MAX_CONNECTIONS)
        url = str(params.get("url") or "")
        if url and not url.startswith(("http://", "https://")):
            raise bad_request("bad webhook: Wrong HTTP URL specified")
        self.url, self.secret, self.max_connections = url, secret, connections
        if url and self._task is None:
            self._task = asyncio.create_task(self._deliver())

    async def stop(self) -> None:
        """``deleteWebhook`` or the server's stop: no more deliveries."""
        self.url = ""
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @property
    def busy(self) -> bool:
        """Whether updates are being delivered or wait for it."""
        return bool(self._in_flight) or bool(self.url and self.server.pending_updates())

    async def _deliver(self) -> None:
        async with aiohttp.ClientSession() as session:
            posts: set[asyncio.Task[None]] = set()
            while self.url:
                for update in self._ready():
                    self._in_flight.add(update["update_id"])
                    post = asyncio.create_task(self._post(session, update))
                    posts.add(post)
                    post.add_done_callback(posts.discard)
                await self.server.wait_changed(time.monotonic() + RETRY_AFTER / 2)

    def _ready(self) -> list[JSON]:
        now = time.monotonic()
        free = self.max_connections - len(self._in_flight)
        ready = [
            update
            for update in self.server.pending_updates()
            if update["update_id"] not in self._in_flight
            and self._retry_at.get(update["update_id"], 0) <= now
        ]
        return ready[: max(free, 0)]

    async def _post(self, session: aiohttp.ClientSession, update: JSON) -> None:
        update_id = update["update_id"]
        headers = {"Content-Type": "application/json"}
        if self.secret:
            headers[SECRET_HEADER] = self.secret
        started, status = time.monotonic(), None
        try:
            async with session.post(
                self.url,
                data=json.dumps(update),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=30),
            ) as response:
                status = response.status
        except (aiohttp.ClientError, TimeoutError) as error:
            self.last_error = f"Connection failed: {error.__class__.__name__}"
        finally:
            self.deliveries.append(Delivery(update_id, status, started, time.monotonic()))
            self._in_flight.discard(update_id)
        if status is not None and 200 <= status < 300:
            self._retry_at.pop(update_id, None)
            self.server.confirm_update(update_id)
        else:
            if status is not None:
                self.last_error = f"Wrong response from the webhook: {status}"
            self._retry_at[update_id] = time.monotonic() + RETRY_AFTER
            self.server.changed()
