"""``python -m bench bot``: the real bot under load from simulated players on a fake Bot API.

N two-player Scala 40 matches run at once against the project's fake Telegram server (the one
the end-to-end tests own, on 127.0.0.1). The player to move presses about every ``--interval``
seconds: draw, pick a card, discard it. Printed: the press-to-answer (answerCallbackQuery)
latency p50/p99, the lag from a move's answer to the table edit that shows it, and Bot API calls
per move besides the turn notification.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from fake_telegram import FakeMessage, FakeTelegramServer

from bot.app import build_application
from bot.service import Tavolo
from engine.scala40 import Options, new_match
from storage import Store

GROUP_BASE, USER_BASE = -2_000_000, 3_000_000


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _seed_matches(database: Path, matches: int) -> list[tuple[int, int, list[int]]]:
    """Stored, started matches: (match id, group id, user ids)."""
    store = Store.open(f"sqlite:///{database}")
    out = []
    try:
        for n in range(matches):
            group = GROUP_BASE - n
            users = [USER_BASE + 2 * n, USER_BASE + 2 * n + 1]
            for user in users:
                store.upsert_user(user, f"P{user}", "en")
                store.set_private_chat(user, True)
            record = store.create_match(
                group, "scala40", Options().to_dict(), users[0], "A", seed=n
            )
            record = store.add_seat(record.id, users[1], "B")
            match = new_match(players=2, seed=n)
            store.start_match(record.id, match.to_json(), record.version)
            out.append((record.id, group, users))
    finally:
        store.close()
    return out


def _buttons(message: FakeMessage | None) -> dict[str, str]:
    markup = (message.reply_markup if message else None) or {}
    return {
        b["text"]: b.get("callback_data", "")
        for row in markup.get("inline_keyboard", [])
        for b in row
    }


class Load:
    """Simulated players and the figures they collect."""

    def __init__(self, server: FakeTelegramServer, service: Tavolo, interval: float) -> None:
        self.server, self.service, self.interval = server, service, interval
        self.answer_latency: list[float] = []
        self.table_lag: list[float] = []
        self.moves = 0
        self.toggles = 0
        self.rng = random.Random(1)
        self.seats: dict[int, tuple[int, int]] = {}

    async def press(self, user_id: int, message_id: int, data: str) -> dict[str, Any]:
        start = time.perf_counter()
        answer: dict[str, Any] = (
            await self.server.user(user_id)
            .press(user_id, message_id, data, force=True)
            .answered(timeout=60)
        )
        self.answer_latency.append(time.perf_counter() - start)
        await self.hand_current(user_id)
        return answer

    async def hand_current(self, user_id: int) -> None:
        """Like a person, look at the hand again only once its new keyboard has arrived."""
        match_id, seat = self.seats[user_id]
        record = self.service.store.get_match(match_id)
        mark = f":{seat}:{record.seats[seat].ui.version}:"
        message_id = record.seats[seat].hand_message_id or 0

        def current() -> bool:
            buttons = _buttons(self.server.message(user_id, message_id))
            return any(mark in data for data in buttons.values())

        await self.server.wait_for(current, timeout=60)

    async def table_shows(self, group: int, match_id: int, line: str, since: float) -> None:
        """Wait until the group's table shows ``line`` among its last moves."""
        record = self.service.store.get_match(match_id)

        def shown() -> bool:
            message = self.server.message(group, record.table_message_id or 0)
            return message is not None and line in message.text.split("\n")[-2:]

        await self.server.wait_for(shown, timeout=60)
        self.table_lag.append(time.perf_counter() - since)

    async def player_loop(self, match_id: int, group: int, deadline: float) -> None:
        await asyncio.sleep(self.rng.random() * self.interval)
        while time.perf_counter() < deadline:
            record = self.service.store.get_match(match_id)
            match = self.service.engine(record)
            seat = match.to_play
            if seat is None:
                return
            user = record.seats[seat].user_id or 0
            message = self.server.message(user, record.seats[seat].hand_message_id or 0)
            buttons = _buttons(message)
            if message is None or not buttons:
                await asyncio.sleep(0.05)
                continue
            step = await self._step(match_id, group, user, message, buttons)
            await asyncio.sleep(self.interval * (0.5 + self.rng.random()) if step else 0.05)

    async def _step(
        self, match_id: int, group: int, user: int, message: FakeMessage, buttons: dict[str, str]
    ) -> bool:
        draw = next((d for t, d in buttons.items() if t.startswith("🂠")), None)
        discard = next((d for t, d in buttons.items() if t.startswith("🗑")), None)
        if draw:
            await self.press(user, message.message_id, draw)
            self.moves += 1
            return True
        if discard:
            moved = time.perf_counter()
            card = next(t for t in buttons if t.startswith("🗑")).split()[-1]
            name = self.service.store.get_match(match_id).seats[self._seat(match_id, user)].name
            answer = await self.press(user, message.message_id, discard)
            if answer.get("text") is None:
                self.moves += 1
                await self.table_shows(group, match_id, f"· {name} scarta {card}", moved)
            else:
                await self._toggle_any(user, message, buttons)
            return True
        await self._toggle_any(user, message, buttons)
        return True

    def _seat(self, match_id: int, user: int) -> int:
        seat = self.service.store.get_match(match_id).seat_of(user)
        assert seat is not None
        return seat

    async def _toggle_any(self, user: int, message: FakeMessage, buttons: dict[str, str]) -> None:
        cards = [d for t, d in buttons.items() if ":t:" in d and not t.startswith("✓")]
        selected = [d for t, d in buttons.items() if ":t:" in d and t.startswith("✓")]
        for data in selected:
            await self.press(user, message.message_id, data)
            self.toggles += 1
        if cards:
            await self.press(user, message.message_id, self.rng.choice(cards))
            self.toggles += 1


async def run(matches: int, seconds: float, interval: float) -> None:
    """Start the bot on a fresh database against the fake server and load it."""
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bench.db"
        seeded = _seed_matches(database, matches)
        server = FakeTelegramServer(strict_html=True)
        await server.start()
        for _, group, users in seeded:
            for user in users:
                server.add_user(user, f"P{user}", language_code="en").start_private()
            server.add_group(group, f"G{group}", members=users)
        server.pop_updates()
        store = Store.open(f"sqlite:///{database}")
        application: Any = build_application(server.token, store, server.base_url)
        try:
            async with server.run(application):
                service = application.bot_data["tavolo"]
                await server.wait_idle(application, timeout=120)
                await service.drain()
                mark = server.mark()
                load = Load(server, service, interval)
                for match_id, _, users in seeded:
                    for seat, user in enumerate(users):
                        load.seats[user] = (match_id, seat)
                deadline = time.perf_counter() + seconds
                await asyncio.gather(*(load.player_loop(m, g, deadline) for m, g, _ in seeded))
                await service.drain()
                calls = server.calls[mark:]
        finally:
            store.close()
            await server.stop()
    _report(load, calls, matches, seconds)


def _report(load: Load, calls: list[Any], matches: int, seconds: float) -> None:
    counted = [c for c in calls if c.method not in ("getUpdates",)]
    bells = sum(
        1 for c in counted if c.method == "sendMessage" and "🔔" in str(c.params.get("text"))
    )
    deletes = sum(1 for c in counted if c.method == "deleteMessage")
    presses = len(load.answer_latency)
    # A card selection costs its answer and the hand's edit: 2 calls that are not a move's.
    move_calls = len(counted) - bells - deletes - 2 * load.toggles
    print(
        f"bot under load: {matches} concurrent 2-player matches for {seconds:.0f} s "
        f"on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(
        f"presses {presses}, moves {load.moves}, Bot API calls {len(counted)} "
        f"(turn bells {bells}, bell deletions {deletes})"
    )
    ms = 1000
    print(
        f"press -> answer: p50 {_percentile(load.answer_latency, 0.5) * ms:.1f} ms, "
        f"p99 {_percentile(load.answer_latency, 0.99) * ms:.1f} ms"
    )
    print(
        f"move -> table edit: p50 {_percentile(load.table_lag, 0.5) * ms:.1f} ms, "
        f"p99 {_percentile(load.table_lag, 0.99) * ms:.1f} ms"
    )
    if load.moves:
        print(
            "Bot API calls per move (its answer, table and hand edits; bells excluded): "
            f"{move_calls / load.moves:.2f}; per press of any button: "
            f"{(len(counted) - bells - deletes) / max(presses, 1):.2f}"
        )


def main(argv: list[str]) -> int:
    """Run the bot benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m bench bot", allow_abbrev=False)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=2.0)
    args, _ = parser.parse_known_args(argv)
    asyncio.run(run(args.matches, args.seconds, args.interval))
    return 0
