"""``python -m bench storage``: moves committed per second, and resuming 1,000 unfinished matches.

1. Commits: a stream of real Scala 40 moves (4 players, greedy play; the engine's work is done
   beforehand, so only the store is timed) is committed one transaction per move, as the bot
   does, on a SQLite file with WAL and ``synchronous=FULL``.
2. Resume: 1,000 unfinished matches (both games, mid-hand snapshots) are in the database; the
   time is what a restarted bot spends to open the store, list them and load each snapshot into
   an engine match ready to take the next move.

``--url`` measures a server database too (e.g. ``postgresql+psycopg://postgres@127.0.0.1/test``):
for PostgreSQL the bench works in a scratch schema it drops afterwards.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy
from sqlalchemy import create_engine, make_url
from sqlmodel import Session

from engine.games import GameMatch, new_match
from engine.scala40 import Match as Scala40Match
from engine.scala40.greedy import greedy_action as scala40_greedy
from engine.scopone import Match as ScoponeMatch
from engine.scopone import greedy_action as scopone_greedy
from storage import PLAYING, Store
from storage.database import database_label, is_sqlite
from storage.models import MatchTable, SeatTable

Move = tuple[int | None, str, str]
"""A seat, the action's text, the snapshot after it."""


def _greedy(match: GameMatch) -> object:
    if isinstance(match, ScoponeMatch):
        return scopone_greedy(match)
    assert isinstance(match, Scala40Match)
    return scala40_greedy(match)


def _play(game: str, players: int, seed: int, moves: int) -> tuple[GameMatch, list[Move]]:
    match = new_match(game, players, seed, {})
    played: list[Move] = []
    while len(played) < moves and not match.is_over:
        seat = match.to_play
        action = str(match.play(_greedy(match), seat=seat))
        played.append((seat, action, match.to_json()))
    return match, played


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> str:
    """One line about the machine and the software measured."""
    return (
        f"machine: {_cpu()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"SQLAlchemy {sqlalchemy.__version__}"
    )


@contextmanager
def scratch_database(url: str | None, folder: str | None) -> Iterator[str]:
    """An empty database to measure: a new SQLite file, or a PostgreSQL scratch schema."""
    if url is None or is_sqlite(url):
        with tempfile.TemporaryDirectory(dir=folder, prefix="tavolo-bench-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
        return
    if make_url(url).get_backend_name() != "postgresql":
        yield url
        return
    schema = f"tavolo_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def bench_commits(url: str, moves: list[Move]) -> None:
    """Commit ``moves`` one transaction each; print moves/s and the latency percentiles."""
    with Store.open(url) as store:
        record = store.create_match(-1, "scala40", {}, 1, "P1", seed=1)
        for seat in range(1, 4):
            record = store.add_seat(record.id, 1 + seat, f"P{1 + seat}")
        first = store.initial_match(record)
        version = store.start_match(record.id, first.to_json(), record.version)
        latencies: list[float] = []
        start = time.perf_counter()
        for mover, action, state in moves:
            before = time.perf_counter()
            version = store.commit_move(record.id, version, mover, action, state)
            latencies.append(time.perf_counter() - before)
        elapsed = time.perf_counter() - start
        sizes = [len(state) for _, _, state in moves]
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    print(
        f"  commit_move: {len(moves)} moves in {elapsed:.2f} s = {len(moves) / elapsed:,.0f} "
        f"moves/s committed (p50 {statistics.median(latencies) * 1000:.2f} ms, "
        f"p99 {p99 * 1000:.2f} ms; snapshots {statistics.mean(sizes) / 1024:.1f} KiB on average)"
    )


def _fill(url: str, matches: int, pool: list[tuple[str, GameMatch]]) -> None:
    """``matches`` unfinished matches with seats and mid-hand snapshots, in one transaction."""
    Store.open(url).close()  # creates the schema
    engine = create_engine(url)
    now = datetime.now(UTC)
    try:
        with Session(engine) as session, session.begin():
            for n in range(matches):
                game, match = pool[n % len(pool)]
                row = MatchTable(
                    chat_id=-(n + 1),
                    active_chat_id=-(n + 1),
                    game=game,
                    options="{}",
                    seed=str(match.seed),
                    status=PLAYING,
                    creator_id=1,
                    version=1,
                    state=match.to_json(),
                    created_at=now,
                    updated_at=now,
                )
                session.add(row)
                session.flush()
                assert row.id is not None
                for seat in range(match.players):
                    session.add(
                        SeatTable(
                            match_id=row.id,
                            seat=seat,
                            user_id=10 * n + seat,
                            name=f"Player {seat}",
                            ui_selected="[]",
                            ui_staged="[]",
                            ui_sort="suit",
                            ui_version=0,
                        )
                    )
    finally:
        engine.dispose()


def bench_resume(url: str, matches: int, pool: list[tuple[str, GameMatch]]) -> None:
    """Time a restart: open the store, list the unfinished matches, load every snapshot."""
    _fill(url, matches, pool)
    start = time.perf_counter()
    store = Store.open(url)
    opened = time.perf_counter()
    records = store.unfinished_matches()
    listed = time.perf_counter()
    resumed = [store.load_engine_match(record) for record in records]
    loaded = time.perf_counter()
    store.close()
    assert len(resumed) == matches and all(m.to_play is not None for m in resumed)
    print(
        f"  resume: {len(resumed):,} unfinished matches in {loaded - start:.2f} s "
        f"(open + schema check {opened - start:.2f} s, list {listed - opened:.2f} s, "
        f"load snapshots into engine matches {loaded - listed:.2f} s)"
    )


def _snapshot_pool(size: int, seed: int) -> list[tuple[str, GameMatch]]:
    rng = random.Random(seed)
    pool: list[tuple[str, GameMatch]] = []
    for n in range(size):
        game, players = ("scala40", rng.choice([2, 3, 4, 5, 6])) if n % 2 else ("scopone", 4)
        match, _ = _play(game, players, seed * 1000 + n, rng.randrange(5, 60))
        if not match.is_over:
            pool.append((game, match))
    return pool


def main(argv: list[str]) -> int:
    """Run both measurements on SQLite, and on ``--url`` too when given."""
    parser = argparse.ArgumentParser(prog="python -m bench storage", allow_abbrev=False)
    parser.add_argument("--moves", type=int, default=3000, help="moves to commit (3000)")
    parser.add_argument("--matches", type=int, default=1000, help="matches to resume (1000)")
    parser.add_argument("--url", help="also measure this database (PostgreSQL: scratch schema)")
    parser.add_argument("--dir", help="folder for the SQLite file (default: the temp folder)")
    parser.add_argument("--seed", type=int, default=1)
    args, _ = parser.parse_known_args(argv)

    print(f"storage bench: {machine_info()}")
    moves: list[Move] = []
    game_seed = args.seed
    while len(moves) < args.moves:
        _, played = _play("scala40", 4, game_seed, args.moves - len(moves))
        moves += played
        game_seed += 1
    pool = _snapshot_pool(60, args.seed)

    targets: list[str | None] = [None] if args.url is None else [None, args.url]
    for target in targets:
        with scratch_database(target, args.dir) as url:
            what = "SQLite file, WAL, synchronous=FULL" if is_sqlite(url) else "server"
            print(f"{database_label(url)} ({what}):")
            bench_commits(url, moves)
        with scratch_database(target, args.dir) as url:
            bench_resume(url, args.matches, pool)
    return 0
