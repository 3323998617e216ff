"""``python -m bench engine``: Scala 40 engine speed (legal_actions, the solver, whole hands)."""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable

from engine.cards import scala40_deck
from engine.scala40 import Options, new_match
from engine.scala40.greedy import greedy_action
from engine.scala40.match import Match
from engine.scala40.solver import solve


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def bench_legal_actions(positions: int, seed: int) -> None:
    """legal_actions() time over positions reached by random play."""
    rng = random.Random(seed)
    samples: list[float] = []
    game = 0
    while len(samples) < positions:
        match = new_match(players=rng.choice([2, 3, 4, 5, 6]), seed=seed * 1000 + game)
        game += 1
        while not match.is_over and len(samples) < positions:
            start = time.perf_counter()
            actions = match.legal_actions()
            samples.append(time.perf_counter() - start)
            match.play(rng.choice(actions))
    print(
        f"legal_actions(): {len(samples)} positions from random play, "
        f"p50 {_ms(_percentile(samples, 0.5))}, p99 {_ms(_percentile(samples, 0.99))}, "
        f"max {_ms(max(samples))}"
    )


def bench_solver(hands: int, seed: int) -> None:
    """The opening solver over random 14-card hands with 0, 1 and 2 jokers."""
    rng = random.Random(seed)
    naturals = [c for c in scala40_deck() if c % 54 < 52]
    jokers = [52, 53, 106, 107]
    for joker_count in (0, 1, 2):
        samples: list[float] = []
        for _ in range(hands):
            hand = rng.sample(naturals, 14 - joker_count) + jokers[:joker_count]
            start = time.perf_counter()
            solve(hand)
            samples.append(time.perf_counter() - start)
        print(
            f"solver, {hands} random 14-card hands with {joker_count} joker(s): "
            f"p50 {_ms(_percentile(samples, 0.5))}, p99 {_ms(_percentile(samples, 0.99))}, "
            f"max {_ms(max(samples))}"
        )


def _play_hand(match: Match, policy: Callable[[Match], object]) -> int:
    """Play until the current hand ends; return the number of turns (discards)."""
    hand = match.hand_number
    turns = 0
    while not match.is_over and match.hand_number == hand:
        action = policy(match)
        applied = match.play(action)  # type: ignore[arg-type]
        turns += applied.kind == "discard"
    return turns


def bench_hands(players: int, hands: int, seed: int) -> None:
    """Whole hands played by the greedy policy, as turns per second."""
    turns = 0
    start = time.perf_counter()
    for game in range(hands):
        match = new_match(players=players, seed=seed + game, options=Options())
        turns += _play_hand(match, greedy_action)
    elapsed = time.perf_counter() - start
    print(
        f"greedy {players}-player hands: {hands} hands, {turns} turns in {elapsed:.2f} s, "
        f"{turns / elapsed:,.0f} turns/s"
    )


def main(argv: list[str]) -> int:
    """Run the Scala 40 engine benchmarks and print their figures."""
    parser = argparse.ArgumentParser(prog="python -m bench engine", allow_abbrev=False)
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--solver-hands", type=int, default=10000)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args, _ = parser.parse_known_args(argv)
    print(
        f"Scala 40 engine on {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}"
    )
    bench_legal_actions(args.positions, args.seed)
    bench_solver(args.solver_hands, args.seed)
    for players in (2, 4):
        bench_hands(players, args.hands, args.seed)
    return 0
