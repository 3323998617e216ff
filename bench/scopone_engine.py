"""Scopone engine benchmark: full hands per second with four greedy players, and the latency of
``legal_actions()`` (p50/p99, microseconds) over positions reached by seeded random play.

``python -m bench engine [--scopone-hands N] [--scopone-positions N] [--scopone-seed S]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import scopone


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench engine", add_help=False, allow_abbrev=False
    )
    parser.add_argument("--scopone-hands", type=int, default=2000, help="hands to play")
    parser.add_argument("--scopone-positions", type=int, default=20000, help="positions to time")
    parser.add_argument("--scopone-seed", type=int, default=1, help="first match seed")
    options, _ = parser.parse_known_args(argv)  # the Scala 40 bench gets the same argv
    return options


def greedy_hands(hands: int, seed: int) -> tuple[int, float]:
    """Play at least ``hands`` full hands (whole matches, deals included) with four greedy
    players; return (hands played, seconds)."""
    played = 0
    start = time.perf_counter()
    while played < hands:
        match = scopone.new_match(seed=seed + played)
        while not match.is_over:
            match.play(scopone.greedy_action(match))
        played += match.hand_number
    return played, time.perf_counter() - start


def legal_action_times(positions: int, seed: int) -> list[float]:
    """Time one ``legal_actions()`` call (cold, right after a play) per position, in µs."""
    rng = random.Random(seed)
    times: list[float] = []
    match = scopone.new_match(seed=seed)
    while len(times) < positions:
        if match.is_over:
            match = scopone.new_match(seed=rng.getrandbits(64))
        start = time.perf_counter()
        actions = match.legal_actions()
        times.append((time.perf_counter() - start) * 1e6)
        match.play(rng.choice(actions))
    return times


def main(argv: list[str]) -> int:
    """Run the benchmark and print its figures."""
    options = _arguments(argv)
    hands, seconds = greedy_hands(options.scopone_hands, options.scopone_seed)
    print(f"scopone: {hands} greedy hands in {seconds:.2f} s = {hands / seconds:.0f} hands/s")
    times = legal_action_times(options.scopone_positions, options.scopone_seed)
    cuts = statistics.quantiles(times, n=100)
    print(
        f"scopone: legal_actions() over {len(times)} positions: "
        f"p50 {cuts[49]:.1f} µs, p99 {cuts[98]:.1f} µs, max {max(times):.1f} µs"
    )
    return 0
