"""``play`` refuses every malformed input with an IllegalAction and a code, changing nothing
("The match log"): random texts, Actions with fields of any type, None, bad seats."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalAction
from engine.cards import Card
from engine.scopone import Action, Match, new_match

WORDS = ["play", "take", "abandon", "timeout", "stop", "QH", "7D", "AH", "JC", "ZZ", "11H", "", "é"]
MATCH = new_match(seed=3)


def refused_or_legal(m: Match, action: object, seat: object = None) -> None:
    before = m.to_json()
    try:
        Match.from_json(before).play(action, seat=seat)  # type: ignore[arg-type]
    except IllegalAction as error:
        assert error.code and m.to_json() == before


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=6))
def test_random_texts(words: list[str]) -> None:
    refused_or_legal(MATCH, " ".join(words))


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.none(), st.text(max_size=4), st.sampled_from([Card(12, "H"), Card(7, "D")])),
    st.one_of(st.just(()), st.tuples(st.sampled_from([Card(1, "H"), Card(11, "C")]))),
)
def test_actions_built_by_hand(card: object, take: tuple[object, ...]) -> None:
    try:
        action = Action("play", card, take)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return  # the Action itself refuses to exist
    object.__setattr__(action, "card", card)
    refused_or_legal(MATCH, action)


def test_not_an_action_at_all() -> None:
    for thing in (None, 5, b"play QH", ["play QH"], object()):
        refused_or_legal(MATCH, thing)
    for seat in (-1, 4, "1", 1.0, True):
        refused_or_legal(MATCH, "abandon", seat)
