"""``python -m bench bot --instances N --url URL``: the bot as one instance, then as ``N``
instances on the same PostgreSQL server, behind webhooks, under the same load.

Each run gets a fresh schema on the server at ``--url``, ``--matches`` two-player Scala 40
matches played at a person's pace (as ``python -m bench bot`` plays them), the fake Bot API at
real speed with Telegram's flood limits, and the bot processes in webhook mode behind a
dispatcher that hands each update to a random instance (``testkit/dispatcher.py``). Each
instance keeps its share of the bot's overall Telegram budget (``BOT_INSTANCES``).

Printed per run: presses, moves per second, press -> answer, requests refused (429).
"""

from __future__ import annotations

import asyncio
import os
import platform
import signal
import time

from bench.players import Load, ms, seed_matches
from storage import Store
from testkit.dispatcher import Dispatcher, free_ports, listening, start_instances
from testkit.fake_telegram import FakeTelegramServer
from testkit.storage_helpers import scratch_schema


async def measure(count: int, url: str, matches: int, seconds: float, seed: int) -> str:
    """One run with ``count`` instances on the database at ``url``: its figures, one line."""
    server = FakeTelegramServer()
    await server.start()
    store = Store.open(url)
    seeded = seed_matches(server, store, matches)
    server.pop_updates()
    dispatcher = Dispatcher(free_ports(count))
    await dispatcher.start()
    with open(os.devnull, "wb") as log:
        processes = start_instances(
            server.base_url, server.token, url, dispatcher, log,
            PACE_SPEED="1", COMPUTER_PAUSE="1.2", DUE_POLL="1",
        )  # fmt: skip
        try:
            for port in dispatcher.ports:
                await listening(port)
            await server.wait_for(
                lambda: all(
                    seat.hand_message_id
                    for match_id, _ in seeded
                    for seat in store.get_match(match_id).seats
                ),
                timeout=120,
                message="the hands were never shown",
            )
            load = Load(server, store, seed)
            started = time.perf_counter()
            deadline = started + seconds
            await asyncio.gather(*(load.play(m, g, deadline) for m, g in seeded))
            elapsed = time.perf_counter() - started
            await load.finish()
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                process.wait()
            await dispatcher.stop()
            store.close()
            await server.stop()
    latencies = [r.latency for r in load.presses if r.latency is not None]
    return (
        f"{count} instance{'s' if count > 1 else ''}: presses {len(load.presses)}, "
        f"moves {load.moves} ({load.moves / elapsed:.1f}/s); press -> answer {ms(latencies)}; "
        f"refused (429): {len(server.flood_refusals)}"
    )


async def compare(instances: int, url: str, matches: int, seconds: float, seed: int) -> None:
    """One instance, then ``instances``, each on a fresh schema of the same server."""
    print(
        f"bot on PostgreSQL behind webhooks: {matches} two-player matches at a person's pace for "
        f"{seconds:.0f} s; {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; Telegram's limits on"
    )
    for count in (1, instances):
        with scratch_schema(url) as schema:
            print(await measure(count, schema, matches, seconds, seed), flush=True)
