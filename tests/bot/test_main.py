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


def run_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` with a token and a SQLite file in ``tmp_path``, plus ``env``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOK_", "BOT_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={
            **base,
            "PYTHONPATH": str(Path(__file__).parents[2]),
            "TELEGRAM_BOT_TOKEN": "123:abc",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'tavolo.db'}",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_webhook_secret_telegram_would_refuse_is_a_clear_error(tmp_path: Path) -> None:
    done = run_bot(tmp_path, WEBHOOK_URL="https://bot.example/hook", WEBHOOK_SECRET="a+b=")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: WEBHOOK_SECRET may hold only letters, digits, '_' and '-', at most 256 of them"
    )
    assert not (tmp_path / "tavolo.db").exists()  # nothing opened


def test_a_wrong_number_of_instances_is_a_clear_error(tmp_path: Path) -> None:
    done = run_bot(tmp_path, BOT_INSTANCES="three")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: BOT_INSTANCES must be a number of instances, not 'three'"
    )
    assert not (tmp_path / "tavolo.db").exists()
