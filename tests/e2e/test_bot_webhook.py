"""End to end, on a webhook: the real bot serves its own webhook (:mod:`bot.serving`) and the
fake Bot API posts the updates to it, as Telegram does; a request that is no update gets the
status that tells its sender not to send it again; a forged update that has the secret leaves
nothing behind."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app import build_application
from bot.serving import SECRET_HEADER, ServingError, Webhook, serve_webhook, webhook_app
from bot.webapp.server import WebApp
from storage import Store
from testkit.dispatcher import free_ports
from testkit.fake_telegram import FakeTelegramServer

ANNA = 1001
ELSEWHERE = -100980
SECRET = "s3cr3t_-"


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


async def post(
    port: int, body: bytes, secret: str | None = SECRET, media: str = "application/json"
) -> int:
    """POST ``body`` to the bot's webhook; the HTTP status."""
    headers = {"Content-Type": media}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/hook", data=body, headers=headers) as response,
    ):
        return response.status


def command(update_id: int, chat: dict[str, Any], text: str) -> bytes:
    """Anna's command ``text`` in ``chat``, as Telegram posts it."""
    anna = {"id": ANNA, "is_bot": False, "first_name": "Anna", "language_code": "it"}
    length = text.index(" ") if " " in text else len(text)
    message = {
        "message_id": 99,
        "date": int(time.time()),
        "chat": chat,
        "from": anna,
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": length}],
    }
    return json.dumps({"update_id": update_id, "message": message}).encode()


async def test_the_webhook_takes_updates_and_refuses_what_is_no_update(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna = server.add_user(ANNA, "Anna")
    port = free_ports(1)[0]
    webhook = Webhook(f"http://127.0.0.1:{port}/hook", "127.0.0.1", port, "hook", SECRET)
    store = Store.open(f"sqlite:///{tmp_path / 'w.db'}")
    application = build_application(
        server.token, store, server.base_url, table_delay=0, computer_pause=0, due_poll=None
    )
    stopping = asyncio.Event()
    serving = asyncio.create_task(serve_webhook(application, webhook, stopping))
    try:
        await server.wait_for(lambda: server.webhook_url == webhook.url, timeout=30)
        anna.start_private()  # posted by the fake Bot API, with the secret
        greeting = await server.wait_for(lambda: server.last_message(ANNA, from_bot=True))
        assert greeting.text.startswith("Ciao Anna!")
        assert [d.status for d in server.webhook.deliveries] == [200]
        refused = {
            "no secret": await post(port, b"{}", secret=None),
            "a wrong secret": await post(port, b"{}", secret="guessed"),
            "not JSON": await post(port, b'{"update_id": 1, "message": {'),
            "not UTF-8": await post(port, b'{"update_id": 1\xff}'),
            "JSON, not an object": await post(port, b"[1, 2]"),
            "an object, not an update": await post(port, b'{"message": {}}'),
            "not JSON at all": await post(port, b"hello", media="text/plain"),
        }
        assert refused == {
            "no secret": 403,
            "a wrong secret": 403,
            "not JSON": 400,
            "not UTF-8": 400,
            "JSON, not an object": 400,
            "an object, not an update": 400,
            "not JSON at all": 415,
        }
        said = len(server.messages(ANNA, from_bot=True))
        private = {"id": ANNA, "type": "private", "first_name": "Anna"}
        assert await post(port, command(1, private, "/aiuto")) == 200
        await server.wait_for(lambda: len(server.messages(ANNA, from_bot=True)) == said + 1)
        helped = server.messages(ANNA, from_bot=True)[-1]
        assert (helped.text or "").startswith("Come si gioca\n\n🃏 Scala 40")
        # Forged with the secret: a /nuova from a group the bot is not in. Its lobby cannot be
        # shown there, and Telegram's refusal takes it away.
        elsewhere = {"id": ELSEWHERE, "type": "supergroup", "title": "Altrove"}
        assert await post(port, command(2, elsewhere, "/nuova scopone")) == 200
        lobby = await server.wait_for_call(
            "sendMessage", lambda c: c.params.get("chat_id") == ELSEWHERE
        )
        assert lobby.error == "Bad Request: chat not found"
        await application.bot_data["tavolo"].drain()
        assert store.last_match_in_chat(ELSEWHERE) is None
    finally:
        stopping.set()
        await serving
        store.close()


async def test_the_mini_app_shares_the_webhooks_server(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Issue 28: in webhook mode the Mini App's page and API are served by the webhook's own
    server, on their own path; one path for both is refused before anything listens."""
    server = fake_telegram
    port = free_ports(1)[0]
    webhook = Webhook(f"http://127.0.0.1:{port}/hook", "127.0.0.1", port, "hook", SECRET)
    store = Store.open(f"sqlite:///{tmp_path / 'm.db'}")
    application = build_application(
        server.token, store, server.base_url, table_delay=0, computer_pause=0, due_poll=None,
        webapp=WebApp("https://carte.example.org/app/"),
    )  # fmt: skip
    stopping = asyncio.Event()
    serving = asyncio.create_task(serve_webhook(application, webhook, stopping))
    base = f"http://127.0.0.1:{port}/app/"
    try:
        await server.wait_for(lambda: server.webhook_url == webhook.url, timeout=30)
        async with aiohttp.ClientSession() as session:
            async with session.get(base) as page:
                assert page.status == 200 and page.content_type == "text/html"
                assert '<script src="static/app.js" defer></script>' in await page.text()
            async with session.get(base + "static/app.js") as script:
                assert script.status == 200
            async with session.post(base + "api/session", json={"initData": "x"}) as refused:
                assert refused.status == 401
                assert await refused.json() == {
                    "error": "Apri il tavolo da Telegram: questa pagina funziona solo lì."
                }
        assert await post(port, b"[1, 2]") == 400  # the webhook's route is still its own
    finally:
        stopping.set()
        await serving
        store.close()
    clash = Webhook(webhook.url, "127.0.0.1", port, "app", SECRET)
    with pytest.raises(ServingError, match="need different paths"):
        webhook_app(application, clash)
