"""Helpers for the Scopone tests: positions built through the public snapshot format."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import IllegalAction
from engine.scopone import Match, greedy_action
from testkit.scopone_helpers import build_position


def assert_rejected(match: Match, action: str, code: str, seat: int | None = None) -> None:
    """The action raises IllegalAction ``code`` and leaves the match byte-identical."""
    before = match.to_json()
    with pytest.raises(IllegalAction) as caught:
        match.play(action, seat=seat)
    assert caught.value.code == code, caught.value
    assert match.to_json() == before


def play_greedy(match: Match, plays: int | None = None) -> None:
    """Play greedy moves until the match ends (or for ``plays`` moves)."""
    count = 0
    while not match.is_over and (plays is None or count < plays):
        match.play(greedy_action(match))
        count += 1


def play_hand(match: Match) -> None:
    """Play greedy moves until the current hand is over."""
    hand = match.hand_number
    while not match.is_over and match.hand_number == hand:
        match.play(greedy_action(match))


@pytest.fixture(scope="session")
def position() -> Any:
    """:func:`build_position`: a match in a given position."""
    return build_position


@pytest.fixture(scope="session")
def rejected() -> Any:
    """:func:`assert_rejected`: the action is refused with a code and changes nothing."""
    return assert_rejected


@pytest.fixture(scope="session")
def greedy() -> Any:
    """:func:`play_greedy`: greedy moves to the end of the match (or for some plays)."""
    return play_greedy


@pytest.fixture(scope="session")
def finish_hand() -> Any:
    """:func:`play_hand`: greedy moves to the end of the current hand."""
    return play_hand
