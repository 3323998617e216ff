"""Scopone computer players (engine/ai/scopone.py): legality, determinism, hidden information,
the simulator against the engine, and decisions on rigged positions (docs/rules.md SC-3, SC-4)."""

from __future__ import annotations

import doctest
import json
import random

import pytest

from engine.ai import LEVELS
from engine.ai import scopone as ai_scopone
from engine.ai.scopone import INDEX, _Sim, choose
from engine.scopone import Match, Options, new_match
from engine.scopone.deck import sort_cards, to_cards
from testkit.scopone_helpers import build_position

SMALL = 40
"""An esperto budget small enough to play whole matches in the tests."""


def play_match(match: Match, levels: dict[int, str], seed: int, budget: int = SMALL) -> int:
    """Play the match to its end with the given level per seat; return the number of plays."""
    plays = 0
    while not match.is_over:
        seat = match.to_play
        assert seat is not None
        legal = match.legal_actions()
        action = choose(match, levels[seat], seed=seed + plays, budget=budget)
        assert action in legal
        assert match.play(action) == action  # accepted as it is, already canonical
        plays += 1
    return plays


def reshuffle_hidden(match: Match, seat: int, seed: int) -> Match:
    """The same match with the other three hands re-dealt at random (same sizes)."""
    data = json.loads(match.to_json())
    hands = data["state"]["hands"]
    others = [s for s in range(4) if s != seat]
    pool = [card for s in others for card in hands[s]]
    random.Random(seed).shuffle(pool)
    for s in others:
        size = len(hands[s])
        hands[s] = [str(c) for c in sort_cards(to_cards(pool[:size]))]
        pool = pool[size:]
    return Match.from_json(json.dumps(data))


class TestLegality:
    """Every chosen action is legal and accepted, over whole matches with four AI seats."""

    @pytest.mark.parametrize("seed", range(12))
    def test_facile_whole_matches(self, seed: int) -> None:
        options = [Options(), Options(deal="scientifico"), Options(individual=True)][seed % 3]
        match = new_match(seed=seed, options=options)
        play_match(match, dict.fromkeys(range(4), "facile"), seed)
        assert match.result is not None

    @pytest.mark.parametrize(
        "options",
        [
            Options(target=11),
            Options(deal="scientifico", last_play_scopa=True),
            Options(individual=True, primiera_all_suits=True),
        ],
    )
    def test_esperto_whole_matches(self, options: Options) -> None:
        match = new_match(seed=101, options=options)
        play_match(match, {0: "esperto", 1: "facile", 2: "esperto", 3: "esperto"}, 5)
        assert match.result is not None

    def test_default_budget_hand(self) -> None:
        match = new_match(seed=9)
        while match.hand_number == 1 and not match.is_over:
            action = choose(match, "esperto", seed=3)
            assert action in match.legal_actions()
            match.play(action)

    def test_unknown_level_and_finished_match(self) -> None:
        match = new_match(seed=1)
        with pytest.raises(ValueError, match="unknown level"):
            choose(match, "difficile")
        match.play("stop")
        for level in LEVELS:
            with pytest.raises(ValueError, match="over"):
                choose(match, level)


class TestDeterminism:
    """Same inputs, same action; the seed is the only source of randomness."""

    @pytest.mark.parametrize("seed", [0, 1, 17])
    def test_same_seed_same_action(self, seed: int) -> None:
        match = new_match(seed=40 + seed)
        for _ in range(6):
            match.play(choose(match, "facile"))
        copy = Match.from_json(match.to_json())
        first = choose(match, "esperto", seed=seed, budget=120)
        assert choose(match, "esperto", seed=seed, budget=120) == first
        assert choose(copy, "esperto", seed=seed, budget=120) == first
        assert choose(match, "facile") == choose(copy, "facile")

    def test_choosing_does_not_change_the_match(self) -> None:
        match = new_match(seed=8)
        before = match.to_json()
        choose(match, "esperto", seed=2, budget=100)
        choose(match, "facile")
        assert match.to_json() == before


class TestHiddenInformation:
    """Decisions depend on the seat's view only: other hands re-dealt, same decision."""

    @pytest.mark.parametrize(("seed", "plays"), [(21, 0), (22, 5), (23, 14), (24, 25)])
    def test_other_hands_do_not_matter(self, seed: int, plays: int) -> None:
        match = new_match(seed=seed)
        for _ in range(plays):
            match.play(choose(match, "facile"))
        seat = match.to_play
        assert seat is not None
        twin = reshuffle_hidden(match, seat, seed)
        assert [twin.hand(s) for s in range(4)] != [match.hand(s) for s in range(4)]
        assert twin.view(seat) == match.view(seat)
        for level in LEVELS:
            assert choose(twin, level, seed=seed, budget=150) == choose(
                match, level, seed=seed, budget=150
            )

    def test_rigged_positions_with_different_hidden_hands(self) -> None:
        one = build_position(["7H 3C 5S", "KS KC", "QS QC", "JS JC"], "7D 4S", to_play=0)
        two = build_position(["7H 3C 5S", "JS QC", "KS JC", "QS KC"], "7D 4S", to_play=0)
        assert one.view(0) == two.view(0)
        for seed in range(3):
            assert choose(one, "esperto", seed=seed) == choose(two, "esperto", seed=seed)


class TestSimulator:
    """The esperto simulator plays the same facile moves and scores hands like the engine."""

    @pytest.mark.parametrize(
        "options", [Options(), Options(individual=True), Options(primiera_all_suits=True)]
    )
    def test_playout_matches_the_engine(self, options: Options) -> None:
        for seed in range(8):
            match = new_match(seed=300 + seed, options=options)
            sides = [match.side_of(s) for s in range(4)]
            sim = _Sim.start(
                [[INDEX[c] for c in match.hand(s)] for s in range(4)],
                [INDEX[c] for c in match.table],
                [[] for _ in range(options.sides)],
                [0] * options.sides,
                sides,
                match.to_play or 0,
                None,
                (options.last_play_scopa, options.primiera_all_suits),
            )
            while match.hand_number == 1 and not match.is_over:
                action = choose(match, "facile")
                card, take = sim.facile_move()
                assert action.card is not None
                assert (INDEX[action.card], tuple(sorted(INDEX[c] for c in action.take))) == (
                    card,
                    tuple(sorted(take)),
                )
                sim.play(card, take)
                match.play(action)
            points = sim.finish()
            assert match.last_hand is not None
            assert tuple(points) == match.last_hand.totals


# Rigged positions: seat 0 to play; the cards named nowhere are in side 0's pile, unseen.
SETTEBELLO = (["7H 5D", "KS", "KC", "KH"], "7D 5S 6S", "play 7H take 7D")
"""7H takes the settebello (the table left, 5+6, is over 10); 5D would take only 5S."""
SCOPA = (["5C 3D", "KS", "KC", "KH"], "2S 3S", "play 5C take 2S 3S")
"""5C sweeps 2+3 for a scopa; 3D would take a denaro and leave 2S for an easy scopa."""
LAY_SAFE = (["3C 5C", "KS", "KC", "KH"], "4S 2H", "play 5C")
"""Laying 3C (the lowest card) leaves 9, a Q sweeps it; 5C leaves 11: no scopa possible."""
CAPTURE_UNSAFE = (["2C KC", "KS", "QC", "KH"], "2S 5H", "play KC")
"""2C takes 2S but leaves 5H for any 5; laying KC leaves 17."""
LOWEST = (["4C 2C JC", "KS", "QC", "KH"], "KD 6S", "play 2C")
"""No capture, every lay leaves more than 10, no primiera card: the lowest card goes."""


class TestFacile:
    """The greedy level on positions with one right answer."""

    @pytest.mark.parametrize(
        ("hands", "table", "expected"), [SETTEBELLO, SCOPA, LAY_SAFE, CAPTURE_UNSAFE, LOWEST]
    )
    def test_rigged(self, hands: list[str], table: str, expected: str) -> None:
        match = build_position(hands, table, to_play=0)
        assert str(choose(match, "facile")) == expected

    def test_graded_risk_when_every_play_leaves_a_scopa(self) -> None:
        # 3C leaves 7 (four 7s unseen), a 5 leaves 9 (four queens unseen); AC leaves 5, and
        # only two 5s are unseen (5H and 5C are in hand): the smallest risk
        match = build_position(["AC 3C 5H 5C", "KS", "QC", "KH"], "4S", to_play=0)
        assert str(choose(match, "facile")) == "play AC"

    def test_an_easy_player_takes_the_settebello(self) -> None:
        """SC-6.1 (``facile``, the timer's autoplay too): taking 7D with 7H leaves 3S, which
        any unseen 3 sweeps; laying 5C would be safe. The settebello comes first: an easy
        player takes it."""
        match = build_position(["7H 5C 6S", "KS", "QC", "KH"], "7D 3S", to_play=0)
        assert str(choose(match, "facile")) == "play 7H take 7D"

    def test_seen_values_are_safe(self) -> None:
        # the four queens are in seat 0's hand: laying 3C to make 9 is safe, and the lowest
        match = build_position(["3C 5C QS QH QD QC", "KS", "KC", "KH"], "4S 2H", to_play=0)
        assert str(choose(match, "facile")) == "play 3C"


class TestEsperto:
    """The search level does at least as well as facile on clear positions."""

    @pytest.mark.parametrize(("hands", "table", "expected"), [SETTEBELLO, SCOPA])
    def test_clear_positions(self, hands: list[str], table: str, expected: str) -> None:
        match = build_position(hands, table, to_play=0)
        for seed in range(3):
            assert str(choose(match, "esperto", seed=seed)) == expected


def test_docstring_examples() -> None:
    failures, tried = doctest.testmod(ai_scopone)
    assert tried > 0 and failures == 0
