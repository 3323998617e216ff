"""Scopone computer players: an ``esperto`` pair against a ``facile`` pair, on paired deals.

Each seeded deal (hand 1 of ``new_match(seed)``) is played twice with the pairs swapped: once
with ``esperto`` on seats 0+2, once on seats 1+3; the deal's figure is the mean of the two
esperto-minus-facile point differences, so the luck of the cards cancels. The null check plays
``facile`` against ``facile`` on the same paired deals and must come out even. Every figure has a
95% confidence interval: a normal interval for the means (1.96 standard errors over the paired
deals) and the distribution-free order-statistic interval for the time percentiles.

``python -m bench ai [--deals N] [--budget B] [--seed S] [--jobs J]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from engine.ai import scopone as ai
from engine.scopone import Options, new_match

Z95 = 1.96


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench ai", add_help=False, allow_abbrev=False)
    parser.add_argument("--deals", type=int, default=400, help="paired deals to play")
    parser.add_argument(
        "--budget", type=int, default=ai.DEFAULT_BUDGET, help="esperto playouts per decision"
    )
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    options, _ = parser.parse_known_args(argv)  # the Scala 40 bench gets the same argv
    return options


def play_hand(seed: int, levels: Sequence[str], budget: int) -> tuple[int, dict[str, list[float]]]:
    """Play hand 1 of deal ``seed`` with ``levels[seat % 2]`` per seat.

    Returns side 0's points minus side 1's, and each level's decision times in seconds.
    """
    match = new_match(seed=seed, options=Options(target=21))
    times: dict[str, list[float]] = {level: [] for level in levels}
    while match.hand_number == 1 and not match.is_over:
        seat = match.to_play
        assert seat is not None
        level = levels[seat % 2]
        start = time.perf_counter()
        action = ai.choose(match, level, seed=seed, budget=budget)
        times[level].append(time.perf_counter() - start)
        match.play(action)
    assert match.last_hand is not None
    totals = match.last_hand.totals
    return totals[0] - totals[1], times


def paired_deal(seed: int, budget: int) -> tuple[float, float, dict[str, list[float]]]:
    """One paired deal: (esperto minus facile, the null facile-vs-facile figure, times)."""
    first, times = play_hand(seed, ("esperto", "facile"), budget)
    second, more = play_hand(seed, ("facile", "esperto"), budget)
    null_a, _ = play_hand(seed, ("facile", "facile"), budget)
    # the null check swaps the two facile pairs: seat 0+2's result read from the other side
    null_b, facile_times = play_hand(seed, ("facile", "facile"), budget)
    for level, values in more.items():
        times[level].extend(values)
    times["facile"].extend(facile_times["facile"])
    return (first - second) / 2, (null_a - null_b) / 2, times


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% confidence interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, Z95 * statistics.stdev(values) / math.sqrt(len(values))


def quantile_ci(values: Sequence[float], q: float) -> tuple[float, float, float]:
    """The q-quantile and its distribution-free 95% interval (order statistics)."""
    ordered = sorted(values)
    n = len(ordered)
    spread = Z95 * math.sqrt(n * q * (1 - q))
    low = max(0, math.floor(n * q - spread))
    high = min(n - 1, math.ceil(n * q + spread))
    return ordered[min(n - 1, int(n * q))], ordered[low], ordered[high]


def _run(
    seeds: list[int], budget: int, jobs: int
) -> list[tuple[float, float, dict[str, list[float]]]]:
    if jobs <= 1:
        return [paired_deal(seed, budget) for seed in seeds]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(paired_deal, seeds, [budget] * len(seeds), chunksize=4))


def _times(label: str, values: list[float]) -> str:
    parts = []
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        value, low, high = quantile_ci(values, q)
        parts.append(f"{name} {value * 1e3:.1f} ms [{low * 1e3:.1f}, {high * 1e3:.1f}]")
    return f"scopone: {label} decision time over {len(values)} decisions: " + ", ".join(parts)


def main(argv: list[str]) -> int:
    """Run the benchmark and print its figures."""
    options = _arguments(argv)
    seeds = list(range(options.seed, options.seed + options.deals))
    start = time.perf_counter()
    results = _run(seeds, options.budget, options.jobs)
    seconds = time.perf_counter() - start
    diffs = [diff for diff, _, _ in results]
    nulls = [null for _, null, _ in results]
    times: dict[str, list[float]] = {"esperto": [], "facile": []}
    for _, _, deal_times in results:
        for level, values in deal_times.items():
            times[level].extend(values)
    mean, half = mean_ci(diffs)
    null, null_half = mean_ci(nulls)
    wins = sum(diff > 0 for diff in diffs) / len(diffs)
    _, wins_half = mean_ci([float(diff > 0) for diff in diffs])
    print(
        f"scopone: {len(diffs)} paired deals (seeds {seeds[0]}..{seeds[-1]}), "
        f"esperto budget {options.budget}, {seconds:.0f} s"
    )
    print(
        f"scopone: esperto pair vs facile pair: {mean:+.3f} points per hand "
        f"(CI95 {mean - half:+.3f} .. {mean + half:+.3f}); esperto ahead on "
        f"{wins:.1%} of deals (CI95 ±{wins_half:.1%})"
    )
    print(
        f"scopone: null check, facile pair vs facile pair: {null:+.3f} points per hand "
        f"(CI95 {null - null_half:+.3f} .. {null + null_half:+.3f})"
    )
    print(_times("esperto", times["esperto"]))
    print(_times("facile", times["facile"]))
    return 0
