"""``kill -9`` in the middle of a stream of moves loses no committed move (a subprocess test)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from sqlalchemy import make_url

from storage import Store
from storage.database import is_sqlite
from testkit.storage_helpers import started

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "testkit" / "storage_writer.py"
ROUNDS = 3
MOVES_BEFORE_KILL = 120


def _writer(url: str, match_id: int) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, str(WRITER), url, str(match_id)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _versions(text: str) -> list[int]:
    return [int(line) for line in text.split() if line.isdigit()]


def test_sigkill_mid_stream_loses_no_committed_move(db_url: str) -> None:
    with Store.open(db_url) as store:
        record, _ = started(store, "scala40", 4, seed=99)
    printed: list[int] = []
    for _ in range(ROUNDS):
        writer = _writer(db_url, record.id)
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        for _ in range(MOVES_BEFORE_KILL):
            line = writer.stdout.readline().strip()
            assert line.isdigit(), f"the writer said {line!r}"
            printed.append(int(line))
        os.kill(writer.pid, signal.SIGKILL)
        assert writer.wait() == -signal.SIGKILL
        printed += _versions(writer.stdout.read())  # printed before the kill, read after
        writer.stdout.close()
        assert writer.stdin is not None
        writer.stdin.close()

        if is_sqlite(db_url):
            path = make_url(db_url).database
            assert path is not None
            with sqlite3.connect(path) as raw:
                assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        with Store.open(db_url) as store:
            stored = store.get_match(record.id)
            logged = [move.version for move in store.moves(record.id)]
            assert logged == list(range(record.version + 1, stored.version + 1))
            assert set(printed) <= set(logged)
            assert stored.version >= printed[-1]
            assert store.replay(record.id).to_json() == stored.state_json
    assert len(printed) >= ROUNDS * MOVES_BEFORE_KILL
