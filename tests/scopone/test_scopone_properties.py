"""Property tests over random seeds and options, with greedy and random players.

docs/rules.md SC-1.2 (the 40 cards), SC-3.3/SC-3.4 (cards leave the table only through a legal
capture), SC-3.6 (leftover), SC-4 (category points add up), SC-5.2 (a match ends with one
winner), and the snapshot contract (JSON round trip mid-hand; a refused action changes nothing).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import scopone_deck
from engine.errors import IllegalAction
from engine.scopone import Action, Match, Options, greedy_action, new_match
from engine.scopone.deck import DENARI, SETTEBELLO
from engine.scopone.options import DEALS, TARGETS

SEEDS = st.integers(min_value=0, max_value=2**64)
OPTIONS = st.builds(
    Options,
    individual=st.booleans(),
    deal=st.sampled_from(DEALS),
    last_play_scopa=st.booleans(),
    primiera_all_suits=st.booleans(),
    target=st.sampled_from(TARGETS),
)
DECK = scopone_deck()


def state(match: Match) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(match.to_json())["state"]
    return data


def assert_all_cards(match: Match) -> None:
    """SC-1.2: hands, table and piles hold the 40 cards, each exactly once."""
    data = state(match)
    cards = [c for hand in data["hands"] for c in hand] + data["table"]
    cards += [c for pile in data["piles"] for c in pile]
    assert sorted(cards) == sorted(str(card) for card in DECK)


def assert_hand_score(match: Match, before: tuple[int, ...], scope_before: list[int]) -> None:
    """SC-4: category points add up to each side's total and to the change of the scores."""
    hand = match.last_hand
    assert hand is not None
    for side in hand.sides:
        assert side.total == sum(side.points_by_category().values())
        assert side.points[4] == side.scope
    assert tuple(b + t for b, t in zip(before, hand.totals, strict=True)) == match.scores
    by_category = [sum(side.points[i] for side in hand.sides) for i in range(4)]
    assert all(points <= 1 for points in by_category[:3])  # carte, denari, primiera
    assert by_category[3] == 1  # the settebello is always somebody's
    assert sum(side.cards for side in hand.sides) == 40
    assert sum(side.denari for side in hand.sides) == sum(c.suit == DENARI for c in DECK)
    assert sum(SETTEBELLO in side.pile for side in hand.sides) == 1
    assert all(a >= b for a, b in zip([s.scope for s in hand.sides], scope_before, strict=True))


def assert_move(match: Match, seat: int, move: Action, old: dict[str, Any]) -> None:
    """SC-3.3: cards leave the table only as the capture of the move, into the mover's side;
    SC-3.6: at the end of a hand, what is left goes to the last capturer."""
    new = state(match)
    side = seat if match.options.individual else seat % 2
    assert move.card is not None
    table = list(old["table"])
    taken = [str(card) for card in move.take]
    assert all(card in table for card in taken)
    expected = [card for card in table if card not in taken] if taken else [*table, str(move.card)]
    if new["hand_number"] == old["hand_number"] and not match.is_over:
        assert new["table"] == expected
        gained = [*taken, str(move.card)] if taken else []
        assert new["piles"][side] == old["piles"][side] + gained
        assert all(
            new["piles"][s] == old["piles"][s] for s in range(len(old["piles"])) if s != side
        )
    else:
        hand = match.last_hand
        assert hand is not None and [str(card) for card in hand.leftover] == expected


def random_action(rng: random.Random, match: Match) -> str:
    """A random play text, often plausible (cards from the hand and the table), often not."""
    seat = match.to_play
    assert seat is not None
    pool = list(match.hand(seat)) if rng.random() < 0.8 else DECK
    card = rng.choice(pool)
    source = list(match.table) if rng.random() < 0.8 else DECK
    take = rng.sample(source, min(len(source), rng.randint(0, 3)))
    text = f"play {card}"
    return f"{text} take {' '.join(map(str, take))}" if take else text


def step(match: Match, rng: random.Random) -> None:
    """One move: try a random action (refused: nothing changes), else a legal one."""
    seat = match.to_play
    assert seat is not None
    legal = match.legal_actions()
    assert legal
    before = match.to_json()
    old = state(match)
    try:
        move = match.play(random_action(rng, match))
    except IllegalAction:
        assert match.to_json() == before
        move = match.play(rng.choice(legal) if rng.random() < 0.5 else greedy_action(match))
    assert move in legal
    assert_move(match, seat, move, old)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, options=OPTIONS, rng=st.randoms(use_true_random=False))
def test_random_play_keeps_every_invariant(seed: int, options: Options, rng: random.Random) -> None:
    """Cards accounted for, legal captures only, scores add up, JSON round trip, refusals."""
    match = new_match(seed=seed, options=options)
    while not match.is_over and match.hand_number <= 3:
        scores, hand, scope = match.scores, match.hand_number, list(match.view(0).scope)
        step(match, rng)
        assert_all_cards(match)
        text = match.to_json()
        assert Match.from_json(text).to_json() == text
        if match.hand_number != hand or match.is_over:
            assert_hand_score(match, scores, scope)


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, options=OPTIONS, plays=st.integers(min_value=0, max_value=35))
def test_every_listed_legal_action_is_accepted(seed: int, options: Options, plays: int) -> None:
    """Every action of ``legal_actions()`` is accepted, and returned as itself (SC-3)."""
    match = new_match(seed=seed, options=options)
    for _ in range(plays):
        match.play(greedy_action(match))
    text = match.to_json()
    for action in match.legal_actions():
        copy = Match.from_json(text)
        assert copy.play(str(action)) == action


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, options=OPTIONS, plays=st.integers(min_value=0, max_value=35))
def test_wrong_seat_and_foreign_cards_change_nothing(
    seed: int, options: Options, plays: int
) -> None:
    """Refused actions (not this seat's turn, a card not in hand) leave the JSON identical."""
    match = new_match(seed=seed, options=options)
    for _ in range(plays):
        match.play(greedy_action(match))
    seat = match.to_play
    assert seat is not None
    before = match.to_json()
    for other in range(4):
        for action in match.legal_actions()[:3]:
            if other != seat:
                try:
                    match.play(action, seat=other)
                except IllegalAction as error:
                    assert error.code == "not-your-turn"
                assert match.to_json() == before
        for card in match.hand(other) if other != seat else ():
            try:
                match.play(f"play {card}")
            except IllegalAction as error:
                assert error.code == "card-not-in-hand"
            assert match.to_json() == before


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, options=OPTIONS)
def test_greedy_match_ends_with_one_winner(seed: int, options: Options) -> None:
    """SC-5.2: a match ends, and its one winner has reached the target with the most points."""
    match = new_match(seed=seed, options=options)
    while not match.is_over:
        assert match.hand_number < 60
        match.play(greedy_action(match))
    result = match.result
    assert result is not None and len(result.winners) == 1
    best = result.scores[result.winners[0]]
    assert best >= options.target
    assert Counter(result.scores)[best] == 1 and best == max(result.scores)
    assert sum(result.mp) == 0
    assert sorted(result.vp) == ([0, 0, 0, 20] if options.individual else [0, 0, 20, 20])
    assert match.to_play is None and match.legal_actions() == []


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, options=OPTIONS, rng=st.randoms(use_true_random=False))
def test_no_winner_ends_with_negative_match_points(
    seed: int, options: Options, rng: random.Random
) -> None:
    """SC-6.3, S40-13.1: with abandonments and timeouts along the way, MP are zero-sum and no
    winning seat ends with negative MP."""
    match = new_match(seed=seed, options=options)
    while not match.is_over:
        assert match.hand_number < 60
        roll = rng.random()
        if roll < 0.003:
            seat = rng.randrange(4)
            if seat not in match.abandoned_seats:
                match.play("abandon", seat=seat)
                continue
        if roll < 0.02:
            match.play("timeout")
            continue
        match.play(greedy_action(match))
    result = match.result
    assert result is not None
    assert sum(result.mp) == 0
    assert all(result.mp[seat] >= 0 for seat in result.winner_seats), result.to_dict()
