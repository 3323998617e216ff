"""The examples in the store's docstrings (the whole life of a match in a few lines, ...)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["storage.store", "storage.database"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
