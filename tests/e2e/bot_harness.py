"""Running the real Tavolo Application against the fake Bot API server."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fake_telegram import FakeMessage, FakeTelegramServer

from bot.app import build_application
from bot.service import Tavolo
from bot.timers import ManualScheduler
from storage import Store


@contextlib.asynccontextmanager
async def running_bot(
    server: FakeTelegramServer, database: Path, scheduler: ManualScheduler | None = None
) -> AsyncIterator[Tavolo]:
    """The bot's Application (post_init included) polling the fake server, on ``database``.

    Turn timers run on a :class:`ManualScheduler` (its clock moves only when a test says so).
    """
    store = Store.open(f"sqlite:///{database}")
    timers = scheduler or ManualScheduler()
    application: Any = build_application(
        server.token,
        store,
        server.base_url,
        table_delay=0,
        computer_pause=0,
        scheduler=timers,
        clock=timers.now,
    )
    try:
        async with server.run(application):
            service = application.bot_data["tavolo"]
            assert isinstance(service, Tavolo)
            await server.wait_idle(application)
            await service.drain()
            yield service
            await server.wait_idle(application)
            await service.drain()
    finally:
        store.close()
    identical = [c.summary() for c in server.calls if c.error and "not modified" in c.error]
    assert not identical, f"the bot sent identical edits: {identical}"


async def settle(server: FakeTelegramServer, service: Tavolo) -> None:
    """Wait until every update is handled and every coalesced table edit is done."""
    await server.wait_idle()
    await service.drain()
    await server.wait_idle()


def keyboard_data(message: FakeMessage) -> dict[str, str]:
    """Button text -> callback data of a message's inline keyboard."""
    markup = message.reply_markup or {}
    return {
        button["text"]: button.get("callback_data", "")
        for row in markup.get("inline_keyboard", [])
        for button in row
    }


def button_data(message: FakeMessage, text: str) -> str:
    """The callback data of the button whose text is (or, failing that, starts with) ``text``."""
    buttons = keyboard_data(message)
    if text in buttons:
        return buttons[text]
    matches = [data for label, data in buttons.items() if label.startswith(text)]
    assert len(matches) == 1, f"no single button {text!r} in {list(buttons)}"
    return matches[0]
