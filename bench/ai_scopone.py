"""Scopone computer players: an ``esperto`` pair against a ``facile`` pair, on paired deals.

Each seeded deal (hand 1 of ``new_match(seed)``) is played twice with the pairs swapped: once
with ``esperto`` on seats 0+2, once on seats 1+3; the deal's figure is the mean of the two
esperto-minus-facile point differences, so the luck of the cards cancels. The null check plays
``facile`` against ``facile`` on the same paired deals and must come out even. Every figure has a
95% confidence interval: a normal interval for the means (1.96 standard errors over the paired
deals) and the distribution-free order-statistic interval for the time percentiles.

The esperto null check plays an ``esperto`` pair A against an ``esperto`` pair B at the same
budget on ``--null-deals`` paired deals (default 100, 0 skips it), with ``--null-budget``
playouts per decision (default 100: the check is about symmetry, not strength, and costs four
esperto seats per hand). The two pairs draw from different seed streams (A from the deal seed,
B from it plus ``NULL_SALT``), so swapping the pairs changes the hand; the figure is A's points
minus B's and must come out +0. The line also says in how many pairs the two hands were identical
(all of them would mean the search ignores its seed and the check is exact by construction).

The rating run plays ``--rating-deals`` paired deals as whole matches to 11 (the default
options), an ``esperto`` pair against a ``facile`` pair, and rates them in the order played as
people's Scopone matches are rated (docs/rules.md R-4: both levels start as newcomers): the two
levels' measured ratings in the Scopone category.

``python -m bench ai [--deals N] [--budget B] [--seed S] [--jobs J]
[--null-deals M] [--null-budget C] [--rating-deals R]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

from engine.ai import scopone as ai
from engine.ratings import NEW_RATING, RatedSeat, rate
from engine.scopone import Options, new_match

Z95 = 1.96
NULL_DEALS = 100
"""Default paired deals of the esperto null check."""
NULL_BUDGET = 100
"""Default esperto playouts per decision in the esperto null check."""
NULL_SALT = 1_000_000_007
"""Added to the deal seed for pair B's decisions in the esperto null check."""
RATING_DEALS = 50
"""Default paired deals of the rating run (each two whole matches)."""


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench ai",
        description="Scopone computer players (after the Scala 40 bench, on the same options).",
        allow_abbrev=False,
    )
    parser.add_argument("--deals", type=int, default=400, help="paired deals to play")
    parser.add_argument(
        "--budget", type=int, default=ai.DEFAULT_BUDGET, help="esperto playouts per decision"
    )
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--null-deals",
        type=int,
        default=NULL_DEALS,
        help=f"paired deals of the esperto-vs-esperto null check (default {NULL_DEALS}; 0 skips)",
    )
    parser.add_argument(
        "--null-budget",
        type=int,
        default=NULL_BUDGET,
        help=f"esperto playouts per decision in that null check (default {NULL_BUDGET})",
    )
    parser.add_argument(
        "--rating-deals",
        type=int,
        default=RATING_DEALS,
        help=f"paired deals played as whole matches to rate the levels (default {RATING_DEALS};"
        " 0 skips)",
    )
    options, _ = parser.parse_known_args(argv)  # the Scala 40 bench gets the same argv
    return options


class Hand(NamedTuple):
    """One played hand: side 0's points minus side 1's, decision times, a trace of the plays."""

    diff: int
    times: dict[str, list[float]]
    trace: int
    """CRC-32 of the actions played: two hands with the same trace were the same hand."""


def play_hand(
    seed: int,
    levels: Sequence[str],
    budget: int,
    ai_seeds: tuple[int, int] | None = None,
) -> Hand:
    """Play hand 1 of deal ``seed`` with ``levels[seat % 2]`` per seat.

    Side ``k``'s decisions get the seed ``ai_seeds[k]`` (default: ``seed`` for both sides).
    Returns side 0's points minus side 1's, each level's decision times in seconds, a trace.
    """
    match = new_match(seed=seed, options=Options(target=21))
    times: dict[str, list[float]] = {level: [] for level in levels}
    seeds = (seed, seed) if ai_seeds is None else ai_seeds
    trace = 0
    while match.hand_number == 1 and not match.is_over:
        seat = match.to_play
        assert seat is not None
        level = levels[seat % 2]
        start = time.perf_counter()
        action = ai.choose(match, level, seed=seeds[seat % 2], budget=budget)
        times[level].append(time.perf_counter() - start)
        match.play(action)
        trace = zlib.crc32(f"{seat}:{action};".encode(), trace)
    assert match.last_hand is not None
    totals = match.last_hand.totals
    return Hand(totals[0] - totals[1], times, trace)


def paired_deal(seed: int, budget: int) -> tuple[float, float, dict[str, list[float]]]:
    """One paired deal: (esperto minus facile, the null facile-vs-facile figure, times)."""
    first, times, _ = play_hand(seed, ("esperto", "facile"), budget)
    second, more, _ = play_hand(seed, ("facile", "esperto"), budget)
    null_a, _, _ = play_hand(seed, ("facile", "facile"), budget)
    # the null check swaps the two facile pairs: seat 0+2's result read from the other side
    null_b, facile_times, _ = play_hand(seed, ("facile", "facile"), budget)
    for level, values in more.items():
        times[level].extend(values)
    times["facile"].extend(facile_times["facile"])
    return (first - second) / 2, (null_a - null_b) / 2, times


def null_deal(seed: int, budget: int) -> tuple[float, bool, list[float]]:
    """One paired deal of the esperto null check: esperto pair A against esperto pair B.

    A decides with seed ``seed``, B with ``seed + NULL_SALT``; A plays seats 0+2, then 1+3.
    Returns A's points minus B's (the mean of the two hands), whether the two hands were the
    same, and the esperto decision times.
    """
    a, b = seed, seed + NULL_SALT
    first = play_hand(seed, ("esperto", "esperto"), budget, ai_seeds=(a, b))
    second = play_hand(seed, ("esperto", "esperto"), budget, ai_seeds=(b, a))
    times = first.times["esperto"] + second.times["esperto"]
    return (first.diff - second.diff) / 2, first.trace == second.trace, times


def play_match(seed: int, levels: Sequence[str], budget: int) -> bool:
    """Play deal ``seed`` as a whole match to 11 with ``levels[seat % 2]`` per seat; whether
    side 0 won it."""
    match = new_match(seed=seed, options=Options())
    while not match.is_over:
        seat = match.to_play
        assert seat is not None
        match.play(ai.choose(match, levels[seat % 2], seed=seed, budget=budget))
    result = match.result
    assert result is not None
    return result.winners == (0,)


def paired_match(seed: int, budget: int) -> tuple[bool, bool]:
    """One paired deal as two whole matches: whether esperto won with seats 0+2, with 1+3."""
    first = play_match(seed, ("esperto", "facile"), budget)
    second = not play_match(seed, ("facile", "esperto"), budget)
    return first, second


def measured_ratings(wins: Sequence[bool]) -> list[str]:
    """The levels' Scopone ratings from their matches, in the order played (docs/rules.md R-4:
    both start as newcomers, and every match moves both, as for people)."""
    ratings = {"esperto": NEW_RATING, "facile": NEW_RATING}
    for won in wins:
        seats = [
            RatedSeat(seat, seat % 2, ratings[level], seat, won == (level == "esperto"), 0)
            for seat, level in enumerate(("esperto", "facile", "esperto", "facile"))
        ]
        moved = rate(seats)
        ratings = {"esperto": moved[0], "facile": moved[1]}
    share = sum(wins) / max(1, len(wins))
    lines = [
        f"scopone: measured rating of {level} from {len(wins)} matches to 11: mu {r.mu:.2f}, "
        f"sigma {r.sigma:.2f} (shown {r.points})"
        for level, r in sorted(ratings.items())
    ]
    lines.append(f"scopone: esperto pair won {share:.1%} of them")
    return lines


def _run_matches(seeds: list[int], budget: int, jobs: int) -> list[tuple[bool, bool]]:
    if jobs <= 1:
        return [paired_match(seed, budget) for seed in seeds]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(paired_match, seeds, [budget] * len(seeds), chunksize=2))


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


def _run_null(seeds: list[int], budget: int, jobs: int) -> list[tuple[float, bool, list[float]]]:
    if jobs <= 1:
        return [null_deal(seed, budget) for seed in seeds]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(null_deal, seeds, [budget] * len(seeds), chunksize=4))


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
    if options.null_deals > 0:
        _null_check(options)
    if options.rating_deals > 0:
        _rating_run(options)
    return 0


def _rating_run(options: argparse.Namespace) -> None:
    """Play and print the rating run."""
    seeds = list(range(options.seed, options.seed + options.rating_deals))
    start = time.perf_counter()
    results = _run_matches(seeds, options.budget, options.jobs)
    print(f"scopone: rating run, {len(seeds)} paired deals, {time.perf_counter() - start:.0f} s")
    for line in measured_ratings([won for pair in results for won in pair]):
        print(line)


def _null_check(options: argparse.Namespace) -> None:
    """Run and print the esperto-vs-esperto null check."""
    seeds = list(range(options.seed, options.seed + options.null_deals))
    start = time.perf_counter()
    results = _run_null(seeds, options.null_budget, options.jobs)
    seconds = time.perf_counter() - start
    diffs = [diff for diff, _, _ in results]
    same = sum(identical for _, identical, _ in results)
    mean, half = mean_ci(diffs)
    print(
        f"scopone: null check, esperto pair vs esperto pair, both at budget "
        f"{options.null_budget}, {len(diffs)} paired deals (seeds {seeds[0]}..{seeds[-1]}), "
        f"{seconds:.0f} s: {mean:+.3f} points per hand (CI95 {mean - half:+.3f} .. "
        f"{mean + half:+.3f}); identical hands in {same}/{len(diffs)} pairs"
    )
    print(
        _times(
            f"esperto (budget {options.null_budget}, null check)",
            [value for _, _, values in results for value in values],
        )
    )
