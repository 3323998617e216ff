"""The examples in the tournament engine's docstrings (T-2.1 Berger tables, T-2.3 seeding)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine.tournament.danish",
    "engine.tournament.knockout",
    "engine.tournament.pairing",
    "engine.tournament.standings",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    """Every module's examples run and hold."""
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
