"""End to end: what one press costs the database, counted through the real bot (issue 26).

Each press of a plain Scala 40 turn (select a card, draw, discard) is made on the fake Bot API,
and every SQL statement and transaction the bot runs for it is counted until everything it
shows is out (the answer, the hand, the table, the bells: the renders that read the store
count too). The counts are pinned: a change that reads or writes more fails here, and a change
that reads less lowers the pins (issue 26 aims at select 2, draw 6, discard 8 statements).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.service import Tavolo
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
from testkit.storage_helpers import scratch_schema

GROUP = -100990
ANNA, LUCA = 1991, 1992
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]

PINNED = {
    "sqlite": {"select": (6, 3), "draw": (12, 5), "discard": (23, 9)},
    "postgresql": {"select": (30, 22), "draw": (45, 32), "discard": (80, 55)},
}
"""Statements and transactions per press, at most, as measured on 2026-11-27 (SQLite's draw on
2026-11-28: 15 in 6 before a write's record replaced the kept one in one step). On SQLite (a
BEGIN counts as a statement) the store keeps what it read (:mod:`storage.kept`); before it
did: select 30 in 12, draw 59 in 23, discard 93 in 36. What is left there is writes: the UI
or the move, and what each message shows (its edit marked pending, then its confirmed digest).
On PostgreSQL shared by instances nothing is kept: select 13 in 9, draw 27 in 18, discard 46
to 54 in 31 to 36 on a quiet machine, more on a loaded one (a message that waited checks
again that it is still to go: select 19 in 14 beside a running suite), pinned with room;
the shared budgets and locks are not counted (:func:`counting`). Before the press read its
match once: 23, 44 and 74 statements, those counted."""

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
BACKENDS = ["sqlite", "postgresql"] if PG_URL else ["sqlite"]


@contextmanager
def database(backend: str, folder: Path) -> Iterator[str]:
    """A database for the bot: a SQLite file, or a fresh PostgreSQL schema."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 's.db'}"
    else:
        with scratch_schema(PG_URL) as url:
            yield url


@contextmanager
def counting(service: Tavolo) -> Iterator[Counter[str]]:
    """Count the statements and the transactions the store runs meanwhile, but for what the
    instances share on PostgreSQL (the chats' budgets, the locks of matches and of deliveries):
    a message that finds its chat's budget or its delivery taken asks again, as often as the
    machine's timing has it, so those are not what a press costs."""
    engine = service.store._engine
    counts: Counter[str] = Counter()
    opened: set[int] = set()

    def statement(connection: Any, _cursor: Any, sql: str, *_: Any) -> None:
        if "chat_budgets" in sql or "advisory" in sql:
            return
        counts["statements"] += 1
        if id(connection) in opened:  # the transaction's first statement of a press's own
            opened.discard(id(connection))
            counts["transactions"] += 1

    def begin(connection: Any) -> None:
        opened.add(id(connection))

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "begin", begin)
    try:
        yield counts
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine, "begin", begin)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_what_a_press_costs_the_database(
    fake_telegram: FakeTelegramServer, tmp_path: Path, backend: str
) -> None:
    with database(backend, tmp_path) as url:
        await pressing(fake_telegram, url, PINNED[backend])


async def pressing(
    server: FakeTelegramServer, url: str, pinned: dict[str, tuple[int, int]]
) -> None:
    """Draw, select and discard on the bot on ``url``; what each costs is at most ``pinned``."""
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    match_id = store_started_match(
        url, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), Options().to_dict()
    )
    luca = server.user(LUCA)
    async with running_bot(server, url) as service:
        await settle(server, service)
        costs = {}
        for press, label in (("draw", "🂠 Draw"), ("select", "2♠"), ("discard", "🗑 Discard 2♠")):
            hand = hand_of(server, service, match_id, LUCA)
            with counting(service) as counts:
                await luca.press(LUCA, hand.message_id, button_data(hand, label)).answered()
                await settle(server, service)
            costs[press] = (counts["statements"], counts["transactions"])
        print(costs)  # shown with -s
        assert all(
            statements <= pinned[press][0] and transactions <= pinned[press][1]
            for press, (statements, transactions) in costs.items()
        ), costs
