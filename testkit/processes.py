"""The bot in a process of its own (:mod:`testkit.bot_process`), for the tests that kill it or
freeze it: started, and returned once it polls the fake Bot API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from testkit.fake_telegram import FakeTelegramServer

ROOT = Path(__file__).resolve().parents[1]
PROCESS = ROOT / "testkit" / "bot_process.py"


async def start_bot(
    server: FakeTelegramServer, database: Path, log: IO[bytes]
) -> subprocess.Popen[bytes]:
    """The bot in a process of its own on ``database``, polling the fake Bot API, once it
    polls (its first ``getUpdates``); its output goes to ``log``."""
    mark = server.mark()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, str(PROCESS), server.base_url, str(database), server.token],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    await server.wait_for(
        lambda: any(c.seq > mark and c.method == "getUpdates" for c in server.calls), timeout=30
    )
    return process
