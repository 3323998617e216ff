"""The SQLite file where the file system says no: a small disk that fills up, a read-only mount,
folder or file. The store keeps working while it can, says what is wrong when it cannot (never
that a healthy file is damaged), and refuses at open what it could not write; one process holds
a file for itself when it asks (the bot does).

Each case runs in a process of its own (``store_probe.py``), on a 2 MiB disk or a read-only
mount of its own, or without root's power over file permissions (:mod:`confinement`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from storage import DatabaseUnavailable, Store, StoreError
from testkit.confinement import as_unprivileged, need_mounts, with_mount

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "testkit" / "store_probe.py"


def probe(command: Sequence[str]) -> list[dict[str, Any]]:
    """Run ``command`` (ending in a ``store_probe.py`` call); the steps it reported."""
    env = dict(os.environ)
    path = [str(ROOT), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def opening(url: str) -> list[str]:
    """The command that opens the store at ``url`` in a process of its own."""
    return [sys.executable, str(PROBE), "open", url]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder holding a Tavolo database (``tavolo.db``, closed), given its permissions back
    afterwards."""
    path = tmp_path / "data"
    path.mkdir()
    Store.open(f"sqlite:///{path / 'tavolo.db'}").close()
    try:
        yield path
    finally:
        path.chmod(0o755)
        for file in path.iterdir():
            file.chmod(0o644)


def test_a_small_disk_takes_moves_until_it_is_full_then_says_so(tmp_path: Path) -> None:
    """On a 2 MiB disk the write-ahead log once filled the disk after about 150 moves, before
    SQLite's first checkpoint, and every move failed from then on, after a restart too."""
    need_mounts()
    disk = tmp_path / "disk"
    disk.mkdir()
    command = [sys.executable, str(PROBE), "fill", str(disk), "500"]
    steps = probe(with_mount(f"mount -t tmpfs -o size=2m tavolo-test {disk}", command))
    full = (
        f"{disk / 'tavolo.db'}: cannot write the database (database or disk is full): the disk "
        f"holding {disk} is full (0 bytes free): free some space there"
    )
    assert steps == [
        {"moves": 500},
        {"free": 0, "error": "DatabaseUnavailable", "message": full},  # a move, once it is full
        {"error": "DatabaseUnavailable", "message": full},  # opening it again, still full
        {"opened": True},  # once there is room again
        {"kept": True, "moved": True},  # every committed move is there, and the next one goes in
    ]


def test_a_read_only_file_system_is_named(folder: Path) -> None:
    need_mounts()
    database = folder / "tavolo.db"
    before = database.read_bytes()
    remount = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}"
    steps = probe(with_mount(remount, opening(f"sqlite:///{database}")))
    assert steps == [
        {
            "error": "DatabaseUnavailable",
            "message": f"{database}: cannot open the database (unable to open database "
            f"file): the file system holding {folder} is mounted read-only: mount it "
            "read-write; nothing was changed",
        }
    ]
    assert database.read_bytes() == before


def test_a_folder_it_may_not_write_is_named(folder: Path) -> None:
    database = folder / "tavolo.db"
    before = database.read_bytes()
    folder.chmod(0o555)
    steps = probe(as_unprivileged(opening(f"sqlite:///{database}")))
    assert steps == [
        {
            "error": "DatabaseUnavailable",
            "message": f"{database}: cannot open the database (attempt to write a readonly "
            f"database): this process may not write in the folder {folder}, where SQLite keeps "
            "tavolo.db-wal and tavolo.db-shm beside the database: give it write permission; "
            "nothing was changed",
        }
    ]
    assert database.read_bytes() == before


def test_a_file_it_may_not_write_is_refused_at_open(folder: Path) -> None:
    """It was opened, and then every move failed."""
    database = folder / "tavolo.db"
    before = database.read_bytes()
    database.chmod(0o444)
    steps = probe(as_unprivileged(opening(f"sqlite:///{database}")))
    assert steps == [
        {
            "error": "DatabaseUnavailable",
            "message": f"{database}: cannot write the database (attempt to write a readonly "
            f"database): this process may not write {database}: give it write permission",
        }
    ]
    assert database.read_bytes() == before


class TestOneProcess:
    def test_a_file_held_by_another_store_is_refused(self, sqlite_url: str) -> None:
        with Store.open(sqlite_url, exclusive=True) as first:
            with pytest.raises(StoreError) as caught:
                Store.open(sqlite_url, exclusive=True)
            assert str(caught.value) == (
                f"{first.database}: another Tavolo (process {os.getpid()}) is using this "
                "database. SQLite is for one process: stop that one first, or use PostgreSQL "
                "to run several (README, Deployment)"
            )
            assert not isinstance(caught.value, DatabaseUnavailable)
        Store.open(sqlite_url, exclusive=True).close()  # closed, it let go

    def test_a_store_that_does_not_ask_shares_the_file(self, sqlite_url: str) -> None:
        with Store.open(sqlite_url, exclusive=True), Store.open(sqlite_url) as other:
            assert other.unfinished_matches() == []
