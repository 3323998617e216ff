"""How the bot takes its updates: polling, or an authenticated webhook read from the
environment, whose secret every instance on the database shares."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.error import Conflict

from bot.handlers.errors import on_error
from bot.serving import (
    SECRET_SETTING,
    ServingError,
    Webhook,
    instances_from_env,
    webhook_from_env,
    with_secret,
)
from storage import Store

URL = "https://tavolo.example/telegram/hook"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'tavolo.db'}")
    yield opened  # type: ignore[misc]
    opened.close()


def test_without_a_webhook_url_the_bot_polls(store: Store) -> None:
    assert webhook_from_env({}) is None
    assert webhook_from_env({"WEBHOOK_URL": "  "}) is None


def test_the_environment_s_secret_and_port(store: Store) -> None:
    env = {"WEBHOOK_URL": URL, "WEBHOOK_SECRET": "my_Secret-1", "PORT": "9000"}
    webhook = webhook_from_env(env)
    assert webhook == Webhook(URL, "0.0.0.0", 9000, "telegram/hook", "my_Secret-1")
    assert with_secret(webhook, store) == webhook


def test_without_a_secret_one_is_made_once_and_shared(tmp_path: Path, store: Store) -> None:
    first = webhook_from_env({"WEBHOOK_URL": URL})
    second = webhook_from_env({"WEBHOOK_URL": URL, "WEBHOOK_LISTEN": "127.0.0.1"})
    assert first is not None and second is not None and first.secret == ""
    other = Store.open(f"sqlite:///{tmp_path / 'tavolo.db'}")
    try:
        first, second = with_secret(first, store), with_secret(second, other)
    finally:
        other.close()
    assert first.secret == second.secret == store.setting(SECRET_SETTING, lambda: "")
    assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", first.secret)
    assert (first.listen, first.port, second.listen) == ("0.0.0.0", 8443, "127.0.0.1")


@pytest.mark.parametrize(
    ("env", "error"),
    [
        ({"WEBHOOK_SECRET": "a+b="}, "WEBHOOK_SECRET may hold only letters, digits, '_' and '-'"),
        ({"WEBHOOK_SECRET": "a" * 257}, "WEBHOOK_SECRET may hold only letters"),
        ({"PORT": "http"}, "PORT must be a port number, not 'http'"),
        ({"WEBHOOK_URL": "tavolo.example/hook"}, "WEBHOOK_URL must be an https:// address"),
    ],
)
def test_a_wrong_setting_is_a_clear_error(env: dict[str, str], error: str) -> None:
    with pytest.raises(ServingError, match=re.escape(error)):
        webhook_from_env({"WEBHOOK_URL": URL, **env})


def test_instances() -> None:
    assert instances_from_env({}) == 1
    assert instances_from_env({"BOT_INSTANCES": "3"}) == 3
    with pytest.raises(ServingError, match="BOT_INSTANCES must be a number of instances, not '0'"):
        instances_from_env({"BOT_INSTANCES": "0"})


async def test_a_failed_poll_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """Telegram refuses a poll (another process polls with the token, the network is down):
    python-telegram-bot tries again by itself, and the log says why in one line each time."""
    conflict = Conflict(
        "Conflict: terminated by other getUpdates request; make sure that only one bot "
        "instance is running"
    )
    context: Any = SimpleNamespace(error=conflict)
    with caplog.at_level(logging.ERROR):
        await on_error(None, context)
    assert [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records] == [
        (
            "ERROR",
            "polling Telegram for updates failed: Conflict: terminated by other getUpdates "
            "request; make sure that only one bot instance is running",
            None,
        )
    ]
