"""``python -m bot`` without a token: one clear line, a non-zero exit, nothing started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_missing_token_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).parents[2])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: TELEGRAM_BOT_TOKEN is not set; get a token from @BotFather and run "
        "TELEGRAM_BOT_TOKEN=... python -m bot"
    )
    assert not (tmp_path / "tavolo.db").exists()
