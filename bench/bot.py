"""``python -m bench bot``: the real bot on the project's fake Bot API, under Telegram's limits.

The fake (``testkit/fake_telegram/``) enforces Telegram's flood limits at real speed. Two
measurements:

- **load**: ``--matches`` two-player Scala 40 matches in as many groups, each player pressing at
  a person's pace (once their hand says it is their turn, 1 to 2 s after it shows their
  previous press: draw, pick a card, discard), while one more group spams ``/punti`` and
  ``/tavolo`` (``--spam`` a second).
  Meanwhile a host sets up a lobby in a group of its own (``⚙️``, an option's next value twice,
  ``⬅️``, 1.5 to 3 s after each change shows, then 8 to 12 s for the others to read), and in
  ``--asking`` of the playing groups a player asks ``/punti`` every 8 to 12 s.
  Printed: requests refused by the flood limits (429), press -> answer (as the fake times it)
  in the playing matches, presses answered late, move -> table edit, lobby tap -> the lobby
  showing it, command -> its reply in a group with a running match, Bot API requests per move
  (in the groups without commands), what the spam cost its group, and the process's CPU time
  per move (the bot's, with the fake's and the players', which run in the same process).
- **taps**: a player taps 6 cards in 2 s, then ``➕`` (``--taps`` times): ``➕`` -> the final
  keyboard, and how many edits of the hand each burst cost.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import functools
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.players import (
    USER_BASE,
    Load,
    add_people,
    buttons_of,
    ms,
    seed_matches,
    store_match,
)
from bot.app import build_application, freeze_what_lasts
from bot.render.cards import card as pretty
from bot.service import Tavolo
from engine.scala40 import new_match
from storage import Store
from testkit.fake_telegram import ApiCall, FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position

SPAM_GROUP, SPAMMER = -1_900_000, 2_900_000
TAP_GROUP, TAPPER, TAP_PARTNER = -1_800_000, 2_800_000, 2_800_001
TAP_HANDS = ("3C 4C 5C 6C 7C 8C 2S 9D KH QS 5H 2D 5D", "10S JS QS KS JK 6H 7H 8C 2H 3S QD QC 9H")
TAP_RUN = ("3C", "4C", "5C", "6C", "7C", "8C")
LOBBY_GROUP, HOST = -1_700_000, 2_700_000
MESSAGE_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")


def _changes(message: FakeMessage) -> Callable[[], bool]:
    """Whether the message changed since now."""
    before = (message.text, message.reply_markup)
    return lambda: (message.text, message.reply_markup) != before


def _answered(server: FakeTelegramServer, asked: FakeMessage) -> bool:
    """Whether the bot answered a command: a reply to it, or one pointing up at an earlier
    reply (the only replies in the group are to commands, asked 8 s apart at least)."""
    return any(
        m.message_id > asked.message_id
        and m.reply_to is not None
        and (m.reply_to.message_id == asked.message_id or m.reply_to.from_bot)
        for m in server.messages(asked.chat_id, from_bot=True)
    )


async def lobby(server: FakeTelegramServer, deadline: float) -> list[float]:
    """A host sets up a lobby at a person's pace; tap -> the lobby showing the change."""
    latencies: list[float] = []
    rng = random.Random(7)
    host = server.user(HOST)
    host.send(LOBBY_GROUP, "/nuova")
    await server.wait_for(lambda: server.last_message(LOBBY_GROUP, from_bot=True), timeout=60)
    message = server.last_message(LOBBY_GROUP, from_bot=True)
    assert message is not None
    while time.perf_counter() < deadline:
        for label in ("⚙️", "1", "1", "⬅️"):
            buttons = list(buttons_of(message).items())
            if label == "1":  # the first option's next value
                data = buttons[0][1]
            else:
                found = [d for t, d in buttons if t.startswith(label)]
                if not found:
                    raise RuntimeError(f"no {label} in the lobby: {message.text!r} {buttons}")
                data = found[0]
            changed, pressed = _changes(message), time.perf_counter()
            host.press(LOBBY_GROUP, message.message_id, data)
            with contextlib.suppress(AssertionError):
                await server.wait_for(changed, timeout=60)
                latencies.append(time.perf_counter() - pressed)
            await asyncio.sleep(rng.uniform(1.5, 3.0))
        await asyncio.sleep(rng.uniform(8.0, 12.0))
    return latencies


async def ask(server: FakeTelegramServer, group: int, user: int, deadline: float) -> list[float]:
    """A player asks ``/punti`` every 8 to 12 s; command -> the bot's reply (None: none in
    30 s, counted as 30 s)."""
    latencies: list[float] = []
    rng = random.Random(group)
    await asyncio.sleep(rng.uniform(0, 8))
    while time.perf_counter() < deadline:
        asked = server.user(user).send(group, "/punti")
        since = time.perf_counter()

        try:
            await server.wait_for(functools.partial(_answered, server, asked), timeout=30)
        except AssertionError:
            latencies.append(30.0)
        else:
            latencies.append(time.perf_counter() - since)
        await asyncio.sleep(rng.uniform(8.0, 12.0))
    return latencies


async def spam(server: FakeTelegramServer, per_second: float, deadline: float) -> int:
    """A member of the spam group types a command ``per_second`` times a second."""
    count = 0
    while time.perf_counter() < deadline:
        server.user(SPAMMER).send(SPAM_GROUP, ("/punti", "/tavolo")[count % 2])
        count += 1
        await asyncio.sleep(1 / per_second)
    return count


async def taps(server: FakeTelegramServer, service: Tavolo, match_id: int, trials: int) -> None:
    """The tapping player: 6 cards in 2 s, then ➕; ➕ -> final keyboard and edits per burst."""
    latencies: list[float] = []
    edits: list[int] = []
    record = service.store.get_match(match_id)
    message = server.message(TAPPER, record.seats[0].hand_message_id or 0)
    assert message is not None
    user = server.user(TAPPER)

    def keyboard(test: Callable[[dict[str, str]], bool]) -> Callable[[], bool]:
        return lambda: test(buttons_of(message))

    for _ in range(trials):
        mark = server.mark()
        for card in TAP_RUN:
            user.press(TAPPER, message.message_id, buttons_of(message)[pretty(card)], force=True)
            await asyncio.sleep(2 / 6)
        all_six = keyboard(  # the last taps' edit may still be on its way (a loaded machine)
            lambda b: (
                sum(t.startswith("✓") for t in b) == len(TAP_RUN)
                and any(t.startswith("➕") for t in b)
            )
        )
        await server.wait_for(all_six, timeout=30)
        stage = next(d for t, d in buttons_of(message).items() if t.startswith("➕"))
        pressed = time.perf_counter()
        user.press(TAPPER, message.message_id, stage, force=True)
        staged = keyboard(  # off turn: the meld staged, "↩️ Riprendi" offered, none selected
            lambda b: any(t.startswith("↩️") for t in b) and not any(t.startswith("✓") for t in b)
        )
        await server.wait_for(staged, timeout=30)
        latencies.append(time.perf_counter() - pressed)
        edits.append(
            sum(
                1
                for c in server.calls_of("editMessageText")
                if c.seq > mark and c.params.get("chat_id") == TAPPER
            )
        )
        back = next(d for t, d in buttons_of(message).items() if t.startswith("↩️"))
        user.press(TAPPER, message.message_id, back, force=True)
        await server.wait_for(keyboard(lambda b: not any(t.startswith("↩️") for t in b)))
        await asyncio.sleep(3)  # the chat's budget fills up again
    print(
        f"taps: 6 cards in 2 s then ➕, {trials} times: ➕ -> final keyboard {ms(latencies)}; "
        f"edits of the hand per burst: mean {statistics.mean(edits):.1f}, max {max(edits)}"
    )


async def run(
    matches: int, seconds: float, spam_rate: float, trials: int, seed: int, asking: int, tables: int
) -> None:
    """Start the bot on a fresh database against the fake server and measure."""
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bench.db"
        server = FakeTelegramServer()
        await server.start()
        store = Store.open(f"sqlite:///{database}", exclusive=True)
        seeded = seed_matches(server, store, matches, tables)
        store_match(
            store, SPAM_GROUP, [SPAMMER, SPAMMER + 1], new_match(2, seed=99).to_json(), "Spam"
        )
        tap_state = position(list(TAP_HANDS), discard="KD", stock_top="AC AD", to_play=1)
        tap_match = store_match(
            store, TAP_GROUP, [TAPPER, TAP_PARTNER], tap_state.to_json(), "Taps"
        )
        for group, users in (
            (SPAM_GROUP, [SPAMMER, SPAMMER + 1]),
            (TAP_GROUP, [TAPPER, TAP_PARTNER]),
            (LOBBY_GROUP, [HOST]),
        ):
            add_people(server, group, users)
        server.pop_updates()
        application: Any = build_application(server.token, store, server.base_url)
        freeze_what_lasts()  # as python -m bot does
        try:
            async with server.run(application):
                service = application.bot_data["tavolo"]
                await server.wait_idle(application, timeout=300)
                await service.drain()
                mark = server.mark()
                load = Load(server, store, seed)
                cpu, began = time.process_time(), time.perf_counter()
                deadline = time.perf_counter() + seconds
                spammer = asyncio.create_task(spam(server, spam_rate, deadline))
                host = asyncio.create_task(lobby(server, deadline))
                firsts: dict[int, int] = {}  # a player of each group's first table asks
                for n, (_, g) in enumerate(seeded):
                    firsts.setdefault(g, n)
                asked = list(firsts.items())[:asking]
                askers = [
                    asyncio.create_task(ask(server, g, USER_BASE + 2 * n, deadline))
                    for g, n in asked
                ]
                await asyncio.gather(*(load.play(m, g, deadline) for m, g in seeded))
                commands = await spammer
                taps_shown = await host
                replies = [x for asker in askers for x in await asker]
                await load.finish()
                await service.drain()
                cpu, wall = time.process_time() - cpu, time.perf_counter() - began
                calls = [c for c in server.calls if c.seq > mark]
                quiet = {g for _, g in seeded} - {g for g, _ in asked}
                _report(server, load, calls, seeded, seconds, commands, quiet)
                print(
                    "CPU time of this process (the bot, the fake Bot API and the players) per "
                    f"move: {1000 * cpu / max(load.moves, 1):.1f} ms ({cpu:.1f} s over "
                    f"{wall:.0f} s: {cpu / wall:.0%} of a core)"
                )
                print(f"lobby tap -> the lobby shows it: {ms(taps_shown, p90=True)}")
                print(
                    f"/punti -> its reply, in {asking} groups with a running match: "
                    f"{ms(replies, p90=True)} ({len(replies)} commands)"
                )
                await taps(server, service, tap_match, trials)
                await service.drain()
        finally:
            store.close()
            await server.stop()
        refused = len(server.flood_refusals)
        print(f"requests refused by the flood limits (429), in all: {refused}")


def _kind(call: ApiCall) -> str:
    """What a message request was for: "group edit", "private send", ..."""
    where = "group" if int(call.params.get("chat_id", 0)) < 0 else "private"
    what = {"sendMessage": "send", "deleteMessage": "delete"}.get(call.method, "edit")
    return f"{where} {what}"


def _report(
    server: FakeTelegramServer,
    load: Load,
    calls: list[ApiCall],
    seeded: list[tuple[int, int]],
    seconds: float,
    commands: int,
    quiet: set[int],
) -> None:
    latencies = [r.latency for r in load.presses if r.latency is not None]
    late = (
        len(load.presses) - len(latencies) + len(server.calls_of("answerCallbackQuery", ok=False))
    )
    users = {
        u
        for n, (_, g) in enumerate(seeded)
        if g in quiet
        for u in (USER_BASE + 2 * n, USER_BASE + 2 * n + 1)
    }
    playing = [c for c in calls if int(c.params.get("chat_id", 0)) in quiet | users]
    messages = [c for c in playing if c.method in MESSAGE_METHODS]
    moves = sum(load.moves_in[g] for g in quiet)
    spammed = [
        c for c in calls if c.params.get("chat_id") == SPAM_GROUP and c.method in MESSAGE_METHODS
    ]
    groups = len({g for _, g in seeded})
    print(
        f"bot under load: {len(seeded)} two-player matches in {groups} groups at a person's "
        f"pace for {seconds:.0f} s, one more group spamming {commands} commands; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        "Telegram's limits on"
    )
    print(f"requests refused by the flood limits (429): {len(server.flood_refusals)}")
    print(
        f"presses {len(load.presses)}, moves {load.moves}; press -> answer {ms(latencies)}; "
        f"answered late or never: {late}"
    )
    print(
        f"move -> table edit {ms(load.table_lag)} ({len(load.table_lag)} discards; "
        f"not shown within 60 s: {load.tables_unseen})"
    )
    quiet_lag = [lag for g in quiet for lag in load.table_lag_in[g]]
    print(f"  in the {len(quiet)} groups without commands: {ms(quiet_lag)}")
    if moves:
        everywhere = [
            c
            for c in calls
            if c.params.get("chat_id") != SPAM_GROUP and c.method in MESSAGE_METHODS
        ]
        print(
            f"Bot API message requests (send, edit, delete) per move: "
            f"{len(everywhere) / load.moves:.2f} (the lobby's and the commands' included); "
            f"in the {len(quiet)} groups without commands: {len(messages) / moves:.2f}"
        )
        kinds = collections.Counter(_kind(c) for c in messages)
        print("  of which per move: " + ", ".join(
            f"{kind} {count / moves:.2f}" for kind, count in sorted(kinds.items())
        ))  # fmt: skip
    print(f"the spam group: {commands} commands cost {len(spammed)} messages")


def main(argv: list[str]) -> int:
    """Run the bot benchmark and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m bench bot", allow_abbrev=False)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--spam", type=float, default=2.0, help="spam commands a second")
    parser.add_argument("--taps", type=int, default=10, help="tap bursts to time")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--asking", type=int, default=5, help="playing groups where a player asks /punti"
    )
    parser.add_argument(
        "--tables", type=int, default=1, help="matches played at once in each group (1 to 4)"
    )
    parser.add_argument(
        "--instances",
        type=int,
        default=0,
        help="compare 1 and this many instances on PostgreSQL behind webhooks (needs --url)",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("TEST_DATABASE_URL", ""),
        help="the PostgreSQL server for --instances (default: TEST_DATABASE_URL)",
    )
    parser.add_argument(
        "--page", action="store_true", help="the players use the Mini App's page (issue 28)"
    )
    args, _ = parser.parse_known_args(argv)
    if args.page:
        from bench.pages import run_pages

        asyncio.run(run_pages(args.matches, args.seconds, args.seed))
        return 0
    if args.instances:
        if not args.url:
            parser.error("--instances needs --url postgresql+psycopg://... (or TEST_DATABASE_URL)")
        from bench.instances import compare

        asyncio.run(compare(args.instances, args.url, args.matches, args.seconds, args.seed))
        return 0
    run_args = (args.matches, args.seconds, args.spam, args.taps, args.seed, args.asking)
    asyncio.run(run(*run_args, args.tables))
    return 0
