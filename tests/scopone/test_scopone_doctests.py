"""The examples in the engine's docstrings (SC-3.4 A+J or 4+5, SC-4.3 81 against 75, ...)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine.scopone",
    "engine.scopone.actions",
    "engine.scopone.captures",
    "engine.scopone.match",
    "engine.scopone.options",
    "engine.scopone.scoring",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
