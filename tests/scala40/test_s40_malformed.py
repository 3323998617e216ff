"""``play`` refuses every malformed input with an IllegalAction and a code, changing nothing
(the engine's contract, "The match log"): random texts, Actions with fields of any type, bad
seats."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalAction
from engine.scala40 import Action, Match, new_match

WORDS = [
    "draw", "discard", "open", "meld", "attach", "take", "swap", "abandon", "timeout", "cut",
    "rientro", "clock", "stop", "top", "yes", "|", "JK", "JK=7H", "JK=ZZ", "5H", "10S", "1H",
    "0", "1", "3", "99", "-1", "AH", "KD", "ZZ", "é", "", "meld", "take",
]  # fmt: skip
VALUES = st.one_of(
    st.none(),
    st.integers(-3, 99),
    st.text(max_size=6),
    st.sampled_from(WORDS),
    st.tuples(st.sampled_from(WORDS)),
    st.tuples(st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS))),
    st.lists(st.integers(), max_size=2),
)


def positions() -> list[Match]:
    """A new match and the same match after some random legal play."""
    out = [new_match(players=3, seed=5)]
    m = new_match(players=2, seed=9)
    rng = random.Random(2)
    for _ in range(25):
        if m.to_play is None:
            break
        m.play(rng.choice(m.legal_actions()))
    out.append(m)
    return out


POSITIONS = positions()


def refused_or_legal(m: Match, action: object, seat: object = None) -> None:
    before = m.to_json()
    try:
        m.copy().play(action, seat=seat)  # type: ignore[arg-type]
    except IllegalAction as error:
        assert error.code and m.to_json() == before


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=7), st.sampled_from(POSITIONS))
def test_random_texts(words: list[str], m: Match) -> None:
    refused_or_legal(m, " ".join(words))


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([*WORDS, "nonsense"]),
    VALUES,
    VALUES,
    VALUES,
    VALUES,
    st.sampled_from(POSITIONS),
)
def test_actions_with_fields_of_any_type(
    kind: str, melds: object, target: object, card: object, choice: object, m: Match
) -> None:
    action = Action(kind, melds=melds, target=target, card=card, choice=choice)  # type: ignore[arg-type]
    refused_or_legal(m, action)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.none(), st.integers(-5, 9), st.text(max_size=3), st.booleans(), st.floats()))
def test_any_seat(seat: object) -> None:
    refused_or_legal(POSITIONS[0], "draw", seat)
    refused_or_legal(POSITIONS[0], "abandon", seat)


def test_not_an_action_at_all() -> None:
    for thing in (None, 5, b"draw", ["draw"], object()):
        refused_or_legal(POSITIONS[0], thing)


@pytest.mark.parametrize(
    "text", ["attach ² 7H", "swap ² 7H", "swap ٣ 7H attach 1 JK", "attach ³ JK=7H"]
)
def test_digits_outside_ascii_are_refused(text: str) -> None:
    """Python's isdigit accepts '²' and '٣', which int() refuses: they are no meld number."""
    with pytest.raises(IllegalAction):
        new_match(players=2, seed=1).play(text)
