"""Running the real Tavolo Application against the fake Bot API server."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from telegram import Bot

from bot.app import build_application
from bot.delivery import Pace
from bot.service import Tavolo
from bot.webapp.server import WebApp, listen
from engine import scala40
from storage import Store
from storage.database import is_sqlite
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser
from testkit.manual_scheduler import ManualScheduler
from testkit.s40_helpers import position

SPEED = 20.0
"""End-to-end tests run Telegram's flood limits (the fake's) and the bot's pace this many times
faster than real time: the same limits, without waiting a minute for a group's budget."""


@contextlib.asynccontextmanager
async def running_bot(
    server: FakeTelegramServer,
    database: Path | str,
    scheduler: ManualScheduler | None = None,
    strict: bool = True,
    webapp: WebApp | None = None,
) -> AsyncIterator[Tavolo]:
    """The bot's Application (post_init included) polling the fake server, on ``database``
    (a SQLite file, or a database URL).

    Turn timers run on a :class:`ManualScheduler` (its clock moves only when a test says so).
    The bot keeps Telegram's limits at :data:`SPEED`; at the end (``strict``), no request may
    have been refused as an identical edit or by the fake's flood limits, and no press may
    have been answered too late. With a ``webapp``, the hands offer its page (served by
    :func:`serving_page`).
    """
    alone = is_sqlite(_url(database))  # PostgreSQL: shared with another instance, or may be
    store = Store.open(_url(database), exclusive=alone, instance=not alone)
    timers = scheduler or ManualScheduler()
    application: Any = build_application(
        server.token,
        store,
        server.base_url,
        table_delay=0,
        computer_pause=0,
        scheduler=timers,
        clock=timers.now,
        pace=Pace().faster(SPEED),
        due_poll=None,
        webapp=webapp,
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
    if not strict:
        return
    identical = [c.summary() for c in server.calls if c.error and "not modified" in c.error]
    assert not identical, f"the bot sent identical edits: {identical}"
    flooded = [c.summary() for c in server.flood_refusals]
    assert not flooded, f"the bot went past Telegram's flood limits: {flooded}"
    late = [c.summary() for c in server.calls_of("answerCallbackQuery", ok=False)]
    assert not late, f"presses answered late or twice: {late}"


@contextlib.asynccontextmanager
async def another_instance(
    server: FakeTelegramServer, database: Path | str
) -> AsyncIterator[Tavolo]:
    """Another instance of the bot on the same database (its own connections, outbox and
    process-wide state), that takes no updates: a test calls its service as a handler would.
    What it was asked to show is out when it ends."""
    store = Store.open(_url(database), instance=True)
    timers = ManualScheduler()
    try:
        async with Bot(server.token, base_url=server.base_url) as bot:
            service = Tavolo(store, bot, timers, timers.now, Pace().faster(SPEED))
            service.shows.table_delay = 0
            yield service
            await service.drain()
    finally:
        store.close()


@contextlib.asynccontextmanager
async def serving_page(service: Tavolo, token: str, webapp: WebApp) -> AsyncIterator[str]:
    """The Mini App served for ``service`` on a free port of 127.0.0.1, as a polling bot serves
    it: its address (``http://127.0.0.1:<port>/<path>``)."""
    local = WebApp(webapp.url, "127.0.0.1")
    server = listen(service.pages, token, local, port=0)
    port = next(iter(server._sockets.values())).getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}{webapp.path}"
    finally:
        server.stop()
        await server.close_all_connections()


def _url(database: Path | str) -> str:
    return database if isinstance(database, str) else f"sqlite:///{database}"


async def settle(server: FakeTelegramServer, service: Tavolo) -> None:
    """Wait until every update is handled and every coalesced table edit is done."""
    await server.wait_idle()
    await service.drain()
    await server.wait_idle()


def hand_of(server: FakeTelegramServer, service: Tavolo, match_id: int, user: int) -> FakeMessage:
    """The private hand message the store names for ``user``'s seat in ``match_id``."""
    record = service.store.get_match(match_id)
    seat = record.seat_of(user)
    assert seat is not None, f"user {user} has no seat in match {match_id}"
    message = server.message(user, record.seats[seat].hand_message_id or 0)
    assert message is not None, f"user {user} has no hand message"
    return message


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


async def tap(
    server: FakeTelegramServer, service: Tavolo, user: FakeUser, message: FakeMessage, label: str
) -> tuple[dict[str, Any], FakeMessage]:
    """``user`` presses the button ``label`` (see :func:`button_data`) of ``message`` and
    everything it causes is shown: the press's answer, and the message as it is now."""
    chat, message_id = message.chat_id, message.message_id
    answer: dict[str, Any] = await user.press(
        chat, message_id, button_data(message, label)
    ).answered()
    await settle(server, service)
    now = server.message(chat, message_id)
    assert now is not None, f"message {message_id} of chat {chat} is gone"
    return answer, now


async def say(
    server: FakeTelegramServer, service: Tavolo, user: FakeUser, chat_id: int, text: str
) -> FakeMessage:
    """``user`` writes ``text`` in ``chat_id``; the bot's last message there once it is done."""
    user.send(chat_id, text)
    await settle(server, service)
    said = server.last_message(chat_id, from_bot=True)
    assert said is not None, f"the bot said nothing in {chat_id} after {text!r}"
    return said


RIGGED_HANDS = (
    "4S 4H 4D 3C 4C 5C 6C 7C 9C 9S 5H 2D 5D",
    "10S JS QS KS JK 6H 7H 8C 2S 3S QD QC 9H",
)
"""A 2-player Scala 40 deal the e2e tests share: seat 0 holds 4-4-4 and 3-7 of clubs (37, or
45 with the 8C that seat 1 holds), seat 1 holds 10-K of spades and JK 6H 7H (58)."""


def store_started_match(
    database: Path | str,
    chat_id: int,
    title: str,
    people: list[tuple[int, str, str]],
    game: str,
    state_json: str,
    options: dict[str, Any],
    computers: int = 0,
    tables: int = 1,
    thread: int | None = None,
) -> int:
    """A started match stored as the bot stores one (people: user id, name, language; then
    ``computers`` computer players), with the given engine state, at the chat's next free
    table of ``tables`` (in the forum topic ``thread``); every player has opened the private
    chat. ``database``: a SQLite file, or a database URL. Its id."""
    store = Store.open(database if isinstance(database, str) else f"sqlite:///{database}")
    try:
        for user, name, lang in people:
            store.upsert_user(user, name, lang)
            store.set_private_chat(user, True)
        store.set_chat_title(chat_id, title)
        host, host_name, _ = people[0]
        if tables > 1:
            store.set_tables(chat_id, tables)
        record = store.create_match(chat_id, game, options, host, host_name, 7, tables, thread)
        for user, name, _ in people[1:]:
            record = store.add_seat(record.id, user, name)
        for number in range(1, computers + 1):
            record = store.add_seat(record.id, None, f"🤖 Computer {number}", "facile")
        store.start_match(record.id, state_json, record.version)
        return record.id
    finally:
        store.close()


def store_rigged_scala40(
    database: Path | str, chat_id: int, title: str, people: list[tuple[int, str, str]]
) -> int:
    """A 2-player Scala 40 match of :data:`RIGGED_HANDS`, the second player to play first (the
    discard's top K♦, the stock's A♣ A♦ 2♥ 3♥), stored as the bot would have stored it."""
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    options = scala40.Options().to_dict()
    return store_started_match(
        database, chat_id, title, people, "scala40", match.to_json(), options
    )


def seat_people(
    server: FakeTelegramServer,
    chat_id: int,
    title: str,
    people: list[tuple[int, str, str]],
    admins: tuple[int, ...] = (),
) -> list[FakeUser]:
    """Users (id, name, language) who opened the private chat, members of one group; the
    updates of their ``/start`` are dropped."""
    users = [server.add_user(user, name, language_code=lang) for user, name, lang in people]
    for user in users:
        user.start_private()
    server.add_group(chat_id, title, members=[p[0] for p in people], admins=list(admins))
    server.pop_updates()
    return users
