"""The simulated players of the bot benchmarks (``python -m bench bot``, with and without
``--instances``): two-player Scala 40 matches stored as the bot stores them, played at a
person's pace on the fake Bot API, and what they measure."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import random
import time
from typing import Any

from bot.matches import Matches
from engine.scala40 import Options, new_match
from storage import Store
from testkit.fake_telegram import CallbackRecord, FakeMessage, FakeTelegramServer

GROUP_BASE, USER_BASE = -2_000_000, 3_000_000
SPAM_GROUP, SPAMMER = -1_900_000, 2_900_000
TURN_MARK = "👉"
"""What a hand shows on its player's turn."""


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ms(samples: list[float], p90: bool = False) -> str:
    middle = f"p90 {percentile(samples, 0.9) * 1000:.0f} ms, " if p90 else ""
    return (
        f"p50 {percentile(samples, 0.5) * 1000:.0f} ms, {middle}"
        f"p99 {percentile(samples, 0.99) * 1000:.0f} ms, "
        f"max {max(samples, default=float('nan')) * 1000:.0f} ms"
    )


def buttons_of(message: FakeMessage | None) -> dict[str, str]:
    markup = (message.reply_markup if message else None) or {}
    return {
        b["text"]: b.get("callback_data", "")
        for row in markup.get("inline_keyboard", [])
        for b in row
    }


def my_turn(message: FakeMessage) -> bool:
    return TURN_MARK in (message.text or "")


def store_match(
    store: Store, group: int, users: list[int], state_json: str, title: str, tables: int = 1
) -> int:
    """A started two-player Scala 40 match in ``group``, stored as the bot stores one (at the
    group's next free table of ``tables``)."""
    for user in users:
        store.upsert_user(user, f"P{user}", "en")
        store.set_private_chat(user, True)
    store.set_chat_title(group, title)
    options = Options().to_dict()
    record = store.create_match(group, "scala40", options, users[0], "A", group, tables)
    record = store.add_seat(record.id, users[1], "B")
    store.start_match(record.id, state_json, record.version)
    return record.id


class Load:
    """Simulated players at a person's pace, and what they measure."""

    def __init__(self, server: FakeTelegramServer, store: Store, seed: int) -> None:
        self.server, self.store = server, store
        self.rng = random.Random(seed)
        self.presses: list[CallbackRecord] = []
        self.table_lag: list[float] = []
        self.table_lag_in: dict[int, list[float]] = collections.defaultdict(list)
        """The same, per group."""
        self.tables_unseen = 0
        self.moves = 0
        self.moves_in: collections.Counter[int] = collections.Counter()
        """Moves per group."""
        self._watchers: set[asyncio.Task[None]] = set()
        self.matches = Matches(store)  # the engines, read once per version

    async def play(self, match_id: int, group: int, deadline: float) -> None:
        """Press the player to move's buttons until ``deadline`` (or the match ends)."""
        await asyncio.sleep(self.rng.uniform(0, 2))
        while time.perf_counter() < deadline:
            record = self.store.get_match(match_id)
            seat = self.matches.engine(record).to_play
            if seat is None or record.status != "playing":
                return
            user = record.seats[seat].user_id or 0
            message = self.server.message(user, record.seats[seat].hand_message_id or 0)
            if message is None:
                await asyncio.sleep(0.2)
                continue
            if not my_turn(message):  # like a person: act once the hand says so
                with contextlib.suppress(AssertionError):
                    await self.server.wait_for(functools.partial(my_turn, message), timeout=30)
                continue
            if await self._step(match_id, group, user, message):
                self.moves_in[group] += 1  # this group's move (others move meanwhile)
            await asyncio.sleep(self.rng.uniform(1.0, 2.0))

    async def _step(self, match_id: int, group: int, user: int, message: FakeMessage) -> bool:
        """One press of the player to move; whether it made a move."""
        buttons = buttons_of(message)
        draw = next((d for t, d in buttons.items() if t.startswith("🂠")), None)
        discard = next((t for t in buttons if t.startswith("🗑")), None)
        selected = [d for t, d in buttons.items() if ":t:" in d and t.startswith("✓")]
        if draw:
            return (await self._press(user, message, draw, move=match_id))[1]
        if discard:
            answer, moved = await self._press(user, message, buttons[discard], move=match_id)
            if moved:
                card = discard.split()[-1]
                name = self.store.get_match(match_id).seats[0].name
                self._watch_table(match_id, group, card, name)
                return True
            if answer.get("text") is not None:  # a refused discard: pick another card
                await self._press(user, message, selected[0])
        elif selected:
            await self._press(user, message, selected[0])
        else:
            cards = [d for t, d in buttons.items() if ":t:" in d and not t.startswith("⤴")]
            await self._press(user, message, self.rng.choice(cards))
        return False

    async def _press(
        self, user: int, message: FakeMessage, data: str, move: int | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Press a button; ``move``: the match whose move it makes (counted once stored: a
        draw's answer names the card drawn). The answer, and whether the move was made."""
        before = (message.text, message.reply_markup)
        made = len(self.store.moves(move)) if move is not None else 0
        press = self.server.user(user).press(user, message.message_id, data, force=True)
        self.presses.append(press.record)
        answer: dict[str, Any] = await press.answered(timeout=60)
        moved = move is not None and len(self.store.moves(move)) > made
        if moved:
            self.moves += 1
        if moved or answer.get("text") is None:  # like a person, look again once it shows
            with contextlib.suppress(AssertionError):
                await self.server.wait_for(
                    lambda: (message.text, message.reply_markup) != before, timeout=30
                )
        return answer, moved

    def _watch_table(self, match_id: int, group: int, card: str, name: str) -> None:
        since = time.perf_counter()
        table_id = [self.store.get_match(match_id).table_message_id or 0]

        def shown() -> bool:
            table = self.server.message(group, table_id[0])
            if table is not None and table.deleted:  # posted again below the commands
                table_id[0] = self.store.get_match(match_id).table_message_id or 0
                table = self.server.message(group, table_id[0])
            return table is not None and f"scarta {card}" in (table.text or "")

        async def watch() -> None:
            try:
                await self.server.wait_for(shown, timeout=60)
            except AssertionError:
                self.tables_unseen += 1
                return
            self.table_lag.append(time.perf_counter() - since)
            self.table_lag_in[group].append(self.table_lag[-1])

        task = asyncio.create_task(watch())
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def finish(self) -> None:
        """Wait for the table watchers still running."""
        if self._watchers:
            await asyncio.gather(*self._watchers)


def add_people(server: FakeTelegramServer, group: int, users: list[int]) -> None:
    for user in users:
        server.add_user(user, f"P{user}", language_code="en").start_private()
    server.add_group(group, f"G{group}", members=users)


def seed_matches(
    server: FakeTelegramServer, store: Store, matches: int, tables: int = 1
) -> list[tuple[int, int]]:
    """``matches`` two-player matches, ``tables`` in each group (the match ``n``'s players are
    the users ``USER_BASE + 2n`` and the next); each match's id and group."""
    seeded = []
    members: dict[int, list[int]] = collections.defaultdict(list)
    for n in range(matches):
        group, users = GROUP_BASE - n // tables, [USER_BASE + 2 * n, USER_BASE + 2 * n + 1]
        if tables > 1 and not members[group]:
            store.set_tables(group, tables)
        state = new_match(players=2, seed=n).to_json()
        seeded.append((store_match(store, group, users, state, f"G{n}", tables), group))
        members[group] += users
    for group, users in members.items():
        add_people(server, group, users)
    return seeded
