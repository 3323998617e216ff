"""``python -m bench ai``: Scala 40 computer players, esperto against facile.

Paired deals: each seeded deal is played twice with the seats swapped, so the luck of the cards
cancels out; every figure comes with a 95% confidence interval over the deals (the two games of a
pair count as one sample). A facile-against-facile null check must come out even (50%).

    python -m bench ai --deals 200 --budget 40 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from engine.ai.scala40 import DEFAULT_BUDGET, choose
from engine.scala40 import Options, new_match

MAX_ACTIONS = 20000


@dataclass
class Game:
    """One match: did the focus seat win, how many hands it closed of how many, decision times."""

    won: float
    closed: int
    hands: int
    times: dict[str, list[float]] = field(default_factory=dict)


def play_match(
    players: int, seed: int, levels: Sequence[str], focus: int, budget: int, whole: bool
) -> Game:
    """Play one match (to 101, or one hand when ``whole`` is False) with the given levels."""
    match = new_match(players=players, seed=seed, options=Options(limit=101))
    times: dict[str, list[float]] = {level: [] for level in set(levels)}
    closed = hands = 0
    count = 0
    current = match.hand_number
    while not match.is_over and count < MAX_ACTIONS:
        seat = match.to_play
        assert seat is not None
        level = levels[seat]
        start = time.perf_counter()
        action = choose(match, level, seed=seed * 100003 + count, budget=budget)
        times[level].append(time.perf_counter() - start)
        match.play(action)
        count += 1
        if match.hand_number != current or match.is_over:
            last = match.last_hand
            if last is not None and not last.annulled:
                hands += 1
                closed += last.closer == focus
            current = match.hand_number
            if not whole:
                break
    result = match.result
    won = 0.0
    if whole and result is not None and focus in result.winners:
        won = 1.0 / len(result.winners)
    return Game(won, closed, hands, times)


def _pair(task: tuple[int, int, str, int, bool]) -> list[Game]:
    """Every seating of one deal: the focus level in each seat in turn, facile elsewhere."""
    players, seed, focus_level, budget, whole = task
    games = []
    for focus in range(players if not whole else 2):
        levels = ["facile"] * players
        levels[focus] = focus_level
        games.append(play_match(players, seed, levels, focus, budget, whole))
    return games


def mean_ci(samples: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(samples)
    if n == 0:
        return 0.0, 0.0
    mean = sum(samples) / n
    if n == 1:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in samples) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _pct(samples: Sequence[float]) -> str:
    mean, half = mean_ci(samples)
    return f"{100 * mean:.1f}% ± {100 * half:.1f} (CI95, n={len(samples)} deals)"


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _run(tasks: list[tuple[int, int, str, int, bool]], jobs: int) -> list[list[Game]]:
    if jobs <= 1:
        return [_pair(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_pair, tasks, chunksize=1))


def _hand_share(pairs: list[list[Game]]) -> list[float]:
    """Per deal, the share of hands the focus level closed over all its seatings."""
    return [sum(g.closed for g in p) / max(1, sum(g.hands for g in p)) for p in pairs]


def main(argv: list[str]) -> int:
    """Run the benchmark; returns 0."""
    parser = argparse.ArgumentParser(prog="python -m bench ai", allow_abbrev=False)
    parser.add_argument("--deals", type=int, default=100, help="paired deals per figure")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="esperto rollouts")
    parser.add_argument("--hands4", type=int, default=0, help="4-player deals (default: deals)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    args, _ = parser.parse_known_args(argv)
    deals, budget, jobs = args.deals, args.budget, args.jobs
    seeds = [args.seed + i for i in range(deals)]
    print(f"Scala 40 AI: {deals} paired deals, esperto budget {budget}, {jobs} worker(s)")
    start = time.perf_counter()

    pairs = _run([(2, s, "esperto", budget, True) for s in seeds], jobs)
    wins = [sum(g.won for g in p) / len(p) for p in pairs]
    print(f"2 players, esperto vs facile, matches to 101 won: {_pct(wins)}")
    print(f"2 players, esperto vs facile, hands closed: {_pct(_hand_share(pairs))}")

    hands4 = args.hands4 or deals
    quads = _run([(4, args.seed + i, "esperto", budget, False) for i in range(hands4)], jobs)
    print(
        "4 players, one esperto vs three facile, hands closed (fair 25%): "
        f"{_pct(_hand_share(quads))}"
    )

    nulls = _run([(2, s, "facile", budget, True) for s in seeds], jobs)
    null_wins = [sum(g.won for g in p) / len(p) for p in nulls]
    print(f"null check, facile vs facile, matches won by seat-swapped focus: {_pct(null_wins)}")

    times: dict[str, list[float]] = {"facile": [], "esperto": []}
    for group in (pairs, quads):
        for pair in group:
            for game in pair:
                for level, samples in game.times.items():
                    times[level].extend(samples)
    for level, samples in times.items():
        print(
            f"{level} decision time: p50 {_percentile(samples, 0.5) * 1000:.2f} ms, "
            f"p99 {_percentile(samples, 0.99) * 1000:.2f} ms over {len(samples)} decisions"
        )
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0
