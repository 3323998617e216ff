"""Test-wide settings: under CI, hypothesis explores a fixed sequence of examples; the longest
files are collected first."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


LONG_FIRST = (
    "tests/e2e/test_bot_crash.py",
    "tests/scala40/test_s40_properties.py",
    "tests/e2e/test_bot_tournaments.py",
    "tests/ai/test_ai_sweep.py",
    "tests/e2e/test_bot_instances.py",
    "tests/bot/test_render.py",
    "tests/e2e/test_bot_frozen.py",
    "tests/bot/test_main.py",
    "tests/e2e/test_bot_webapp_browser.py",
    "tests/e2e/test_bot_tables.py",
    "tests/scopone/test_scopone_properties.py",
    "tests/storage/test_storage_kill.py",
    "tests/scala40/test_s40_solver_exact.py",
    "tests/e2e/test_bot_flood.py",
)
"""The files that take longest, longest first (`--durations`; the crash test alone about 100 s
on two slow cores): collected first, so that with ``--dist loadfile`` they start first and the
other workers work through the rest meanwhile, instead of one of them running alone at the end."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the long files first, keeping every file's own order (the same on every worker)."""

    def place(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=place)
