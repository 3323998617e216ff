"""``python -m bench ai``: Scala 40 computer players, esperto against facile.

Paired deals: each seeded deal is played twice with the seats swapped, so the luck of the cards
cancels out; every figure comes with a 95% confidence interval over the deals (the two games of a
pair count as one sample). Two null checks must come out even (50%): facile against facile, and
esperto against esperto (``--null-deals`` paired deals, default ``--deals``, 0 skips it; at
``--null-budget``, default ``--budget``). In a null check the two players draw their decision
seeds from different streams (the focus player's is salted), so the two games of a pair differ
whenever the level uses its seed; the line also says in how many pairs the two games were
identical: all of them means the level is deterministic and the check is exact by construction.
The esperto-against-facile matches also give the two levels' measured ratings (docs/rules.md
R-4): both start as newcomers, and every match moves both as people's matches move theirs.

    python -m bench ai --deals 200 --budget 40 --jobs 2
    python -m bench ai --deals 200 --null-deals 100 --null-budget 20 --jobs 1
"""

from __future__ import annotations

import argparse
import math
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from engine.ai.scala40 import DEFAULT_BUDGET, choose
from engine.ratings import COMPUTER_RATINGS, NEW_RATING, RatedSeat, Rating, rate
from engine.scala40 import Options, new_match

MAX_ACTIONS = 20000
PLAYER_SALT = 1_000_000_007
"""Added (times the seat's salt) to a decision seed, so salted players draw their own streams."""


@dataclass
class Game:
    """One match: did the focus seat win, how many hands it closed of how many, decision times.

    ``trace`` is a CRC-32 of the actions played: two games with the same trace were the same game.
    """

    won: float
    closed: int
    hands: int
    times: dict[str, list[float]] = field(default_factory=dict)
    trace: int = 0


@dataclass(frozen=True)
class Task:
    """One deal to play in every seating: ``focus_level`` in the focus seat, ``other_level``
    elsewhere; with ``salted`` the focus player's decision seeds come from a stream of its own."""

    players: int
    seed: int
    focus_level: str
    budget: int
    whole: bool
    other_level: str = "facile"
    salted: bool = False


def play_match(
    players: int,
    seed: int,
    levels: Sequence[str],
    focus: int,
    budget: int,
    whole: bool,
    salts: Sequence[int] | None = None,
) -> Game:
    """Play one match (to 101, or one hand when ``whole`` is False) with the given levels.

    The decision seed is ``seed * 100003 + count`` (``count`` actions played so far), plus
    ``PLAYER_SALT * salts[seat]`` when ``salts`` are given.
    """
    match = new_match(players=players, seed=seed, options=Options(limit=101))
    times: dict[str, list[float]] = {level: [] for level in set(levels)}
    closed = hands = 0
    count = 0
    trace = 0
    current = match.hand_number
    while not match.is_over and count < MAX_ACTIONS:
        seat = match.to_play
        assert seat is not None
        level = levels[seat]
        decision_seed = seed * 100003 + count
        if salts is not None:
            decision_seed += PLAYER_SALT * salts[seat]
        start = time.perf_counter()
        action = choose(match, level, seed=decision_seed, budget=budget)
        times[level].append(time.perf_counter() - start)
        match.play(action)
        trace = zlib.crc32(f"{seat}:{action};".encode(), trace)
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
    return Game(won, closed, hands, times, trace)


def _pair(task: Task) -> list[Game]:
    """Every seating of one deal: the focus level in each seat in turn, the other one elsewhere."""
    players = task.players
    games = []
    for focus in range(players if not task.whole else 2):
        levels = [task.other_level] * players
        levels[focus] = task.focus_level
        salts = [int(seat == focus) for seat in range(players)] if task.salted else None
        games.append(play_match(players, task.seed, levels, focus, task.budget, task.whole, salts))
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


def _run(tasks: list[Task], jobs: int) -> list[list[Game]]:
    if jobs <= 1:
        return [_pair(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_pair, tasks, chunksize=1))


def _hand_share(pairs: list[list[Game]]) -> list[float]:
    """Per deal, the share of hands the focus level closed over all its seatings."""
    return [sum(g.closed for g in p) / max(1, sum(g.hands for g in p)) for p in pairs]


def measured_ratings(pairs: list[list[Game]]) -> list[str]:
    """The computer levels' ratings as their matches against each other give them (docs/rules.md
    R-4): both start as newcomers and every match moves both (openskill, as for people, in
    the order played); and the gap between the fixed ratings that the win rate implies under
    the same model (the fixed sigmas, openskill's beta)."""
    ratings = {"facile": NEW_RATING, "esperto": NEW_RATING}
    games = [game for pair in pairs for game in pair]
    for game in games:
        seats = [
            RatedSeat(0, 0, ratings["esperto"], 0, game.won > 0, 0, False),
            RatedSeat(1, 1, ratings["facile"], 1, game.won < 1, 0, False),
        ]
        moved = rate(seats)
        ratings = {"esperto": moved[0], "facile": moved[1]}
    lines = [
        f"measured rating of {level} from {len(games)} matches: mu {r.mu:.2f}, sigma "
        f"{r.sigma:.2f} (shown {r.points})"
        for level, r in sorted(ratings.items())
    ]
    won = sum(game.won for game in games) / max(1, len(games))
    fixed_e, fixed_f = COMPUTER_RATINGS["esperto"], COMPUTER_RATINGS["facile"]
    spread = math.sqrt(fixed_e.sigma**2 + fixed_f.sigma**2 + 2 * PlackettLuce().beta ** 2)
    gap = spread * math.log(won / (1 - won)) if 0 < won < 1 else math.inf
    fixed = Rating(fixed_f.mu + gap, fixed_e.sigma)
    lines.append(
        f"esperto won {100 * won:.1f}% of them: a gap of {gap:.2f} mu between the fixed ratings "
        f"(today {fixed_e.mu - fixed_f.mu:.2f}); with facile at mu {fixed_f.mu:g}, esperto at "
        f"mu {fixed.mu:.2f} (shown {fixed.points})"
    )
    return lines


def _null_line(label: str, pairs: list[list[Game]]) -> str:
    """A null check's figure: the focus player's share of matches, and how many pairs of games
    were identical (all of them: the level ignores its seed, and 50% is exact by construction)."""
    wins = [sum(g.won for g in p) / len(p) for p in pairs]
    same = sum(len({g.trace for g in p}) == 1 for p in pairs)
    return (
        f"null check, {label}, matches won by seat-swapped focus: {_pct(wins)}; "
        f"identical games in {same}/{len(pairs)} pairs"
    )


def main(argv: list[str]) -> int:
    """Run the benchmark; returns 0."""
    parser = argparse.ArgumentParser(
        prog="python -m bench ai",
        description="Scala 40 computer players (the Scopone bench follows on the same options).",
        allow_abbrev=False,
    )
    parser.add_argument("--deals", type=int, default=100, help="paired deals per figure")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="esperto rollouts")
    parser.add_argument("--hands4", type=int, default=0, help="4-player deals (default: deals)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    parser.add_argument(
        "--null-deals",
        type=int,
        default=None,
        help="paired deals of the esperto-vs-esperto null check (default: deals; 0 skips it)",
    )
    parser.add_argument(
        "--null-budget",
        type=int,
        default=None,
        help="esperto budget in that null check (default: budget)",
    )
    args, _ = parser.parse_known_args(argv)  # the Scopone bench gets the same argv
    deals, budget, jobs = args.deals, args.budget, args.jobs
    seeds = [args.seed + i for i in range(deals)]
    print(f"Scala 40 AI: {deals} paired deals, esperto budget {budget}, {jobs} worker(s)")
    start = time.perf_counter()

    pairs = _run([Task(2, s, "esperto", budget, True) for s in seeds], jobs)
    wins = [sum(g.won for g in p) / len(p) for p in pairs]
    print(f"2 players, esperto vs facile, matches to 101 won: {_pct(wins)}")
    print(f"2 players, esperto vs facile, hands closed: {_pct(_hand_share(pairs))}")
    for line in measured_ratings(pairs):
        print(line)

    hands4 = args.hands4 or deals
    quads = _run([Task(4, args.seed + i, "esperto", budget, False) for i in range(hands4)], jobs)
    print(
        "4 players, one esperto vs three facile, hands closed (fair 25%): "
        f"{_pct(_hand_share(quads))}"
    )

    nulls = _run([Task(2, s, "facile", budget, True, "facile", True) for s in seeds], jobs)
    print(_null_line("facile vs facile", nulls))

    null_deals = deals if args.null_deals is None else args.null_deals
    null_budget = budget if args.null_budget is None else args.null_budget
    if null_deals > 0:
        null_seeds = [args.seed + i for i in range(null_deals)]
        tasks = [Task(2, s, "esperto", null_budget, True, "esperto", True) for s in null_seeds]
        print(_null_line(f"esperto vs esperto (budget {null_budget})", _run(tasks, jobs)))

    times: dict[str, list[float]] = {"facile": [], "esperto": []}
    for group in (pairs, quads):
        for pair in group:
            for game in pair:
                for level, samples in game.times.items():
                    times[level].extend(samples)
    for level, samples in times.items():
        print(
            f"{level} decision time: p50 {_percentile(samples, 0.5) * 1000:.2f} ms, "
            f"p99 {_percentile(samples, 0.99) * 1000:.2f} ms, "
            f"max {max(samples, default=0.0) * 1000:.0f} ms over {len(samples)} decisions"
        )
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0
