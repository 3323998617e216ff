"""``python -m research.ai_learn``: fit the weights of Scala 40 ``esperto``'s discard score.

Offline learning from outcomes. Hands of the behaviour player against ``facile`` (2 players, both
seatings of each seeded deal) are played; at each of the behaviour player's discards with a
choice, every distinct discard is tried on a copy of the *true* match and the rest of the hand is
played out (the behaviour player in its seat, ``facile`` in the other): the points that discard
brought (the other seat's hand points minus its own). The hidden cards are the real ones of real
hands, so no model of the opponent's hand or of the stock is needed; the score itself reads only
what the seat may see (``discard_features``). A ridge regression of those points on the features,
both taken relative to their mean over the position's discards, gives ``DISCARD_WEIGHTS``: the
discard with the highest score is the one expected to bring the most points. ``--write PATH``
writes the weights fitted on every deal as a weights file (``engine.ai.learned``, with the
command, options and commit); the shipped one is ``engine/ai/weights/scala40_discard.json``.

``--behaviour heuristic`` plays and plays out with the hand-made discard order that ``esperto``
used before (the first fit); ``--behaviour esperto`` with the present ``esperto`` (a further
round of policy improvement). The printed figures are on held-out deals: the mean points per
decision of the discard the fit would choose, of the behaviour's own choice, and of the best
discard in hindsight (what a player that saw the hidden cards would get).

    python -m research.ai_learn --behaviour heuristic --seed 100000 --deals 6000 --jobs 2 \
        --write engine/ai/weights/scala40_discard.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from engine.ai import learned
from engine.ai import scala40 as ai
from engine.ai.scala40_discard import (
    DISCARD_FEATURES,
    DiscardContext,
    discard_features,
    heuristic_key,
)
from engine.ai.scala40_reading import token_face
from engine.scala40 import Action, Match, Options, new_match

T = TypeVar("T")
MODEL = (
    "Scala 40 esperto's discard score (discard_score): the points a discard brings, linear in "
    "discard_features"
)
"""The ``model`` line of the weights file."""
METHOD = (
    "ridge regression of the points each distinct discard brought (the rest of the hand played "
    "out on the true cards) on its features, both relative to their mean in the position"
)
"""The ``method`` line of the weights file's provenance."""
Position = list[tuple[tuple[float, ...], float, bool]]
"""One decision: per distinct discard its features, the points it brought, and whether the
behaviour player chose it."""


def heuristic(match: Match, seed: int = 0) -> Action:
    """``esperto`` with the hand-made discard order (``heuristic_key``) instead of the score, and
    without the chiusura search (as it was when the weights were first fitted)."""
    choice = ai.esperto_plain(match)
    if choice.kind != "discard":
        return choice
    seat = match.to_play
    assert seat is not None
    discards = ai.discard_options(match.legal_actions())
    context = DiscardContext.of(match, match.view(seat))
    return min(discards, key=heuristic_key(context))


BEHAVIOURS: dict[str, Callable[[Match, int], Action]] = {
    "heuristic": heuristic,
    "esperto": ai.esperto,
}


def distinct_discards(actions: Iterable[Action]) -> list[Action]:
    """The discards among ``actions``, one per card (the two copies of a face are one choice)."""
    distinct: dict[str | None, Action] = {}
    for action in actions:
        if action.kind == "discard":
            distinct.setdefault(action.card, action)
    return list(distinct.values())


def play_out(match: Match, seat: int, policy: Callable[[Match, int], Action]) -> float | None:
    """The rest of the hand, ``policy`` for ``seat`` and ``facile`` for the other: the points in
    ``seat``'s favour, None when the hand is annulled."""
    hand_number = match.hand_number
    ai.finish_hand(match, seat, lambda state: policy(state, 0))
    last = match.last_hand
    if last is None or last.hand_number != hand_number or last.annulled:
        return None
    points = [p or 0 for p in last.points]
    return float(points[1 - seat] - points[seat])


def _position(
    match: Match, seat: int, choice: Action, policy: Callable[[Match, int], Action]
) -> Position | None:
    """Every distinct discard of ``seat`` here, with its features and the points it brought."""
    distinct = distinct_discards(match.legal_actions())
    if len(distinct) < 2:
        return None
    context = DiscardContext.of(match, match.view(seat))
    state = match.to_json()
    rows: Position = []
    for action in distinct:
        trial = Match.from_json(state)
        trial.play(action)
        points = play_out(trial, seat, policy)
        if points is None:
            return None
        features = discard_features(context, token_face(action.card))
        rows.append((features, points, action.card == choice.card))
    return rows


def walk_discards(
    seed: int, behaviour: str, decision_seed: int, record: Callable[[Match, int, Action], T | None]
) -> list[T]:
    """Play both seatings of one seeded deal's first hand, the behaviour player against
    ``facile``; ``record(match, seat, choice)`` before each of the behaviour player's discards
    (decided with ``decision_seed``): the records that are not None."""
    policy = BEHAVIOURS[behaviour]
    records = []
    for focus in (0, 1):
        match = new_match(players=2, seed=seed, options=Options(limit=101))
        hand_number = match.hand_number
        while match.hand_number == hand_number and not match.is_over:
            seat = match.to_play
            if seat != focus:
                match.play(ai.facile(match))
                continue
            choice = policy(match, decision_seed)
            if match.phase == "play" and choice.kind == "discard":
                record_ = record(match, seat, choice)
                if record_ is not None:
                    records.append(record_)
            match.play(choice)
    return records


def deal_positions(task: tuple[int, str]) -> list[Position]:
    """The behaviour player's positions in both seatings of one seeded deal's first hand."""
    seed, behaviour = task
    policy = BEHAVIOURS[behaviour]
    return walk_discards(
        seed, behaviour, 0, lambda match, seat, choice: _position(match, seat, choice, policy)
    )


def parse_args(
    prog: str, argv: list[str], *, behaviour: str, deals: int, seed: int, ridge: float
) -> argparse.Namespace:
    """The options of a trainer (``ai_learn``, ``ai_feed``), with its defaults."""
    parser = argparse.ArgumentParser(prog=prog, allow_abbrev=False)
    parser.add_argument("--behaviour", choices=sorted(BEHAVIOURS), default=behaviour)
    parser.add_argument("--deals", type=int, default=deals, help="seeded deals (both seatings)")
    parser.add_argument("--seed", type=int, default=seed, help="first deal seed")
    parser.add_argument("--ridge", type=float, default=ridge, help="ridge penalty")
    parser.add_argument("--holdout", type=float, default=0.2, help="share of deals held out")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--write", metavar="PATH", help="write the weights fitted on every deal to this file"
    )
    return parser.parse_args(argv)


def current_commit() -> str | None:
    """The checkout's HEAD commit, with ``+dirty`` when files differ from it; None without git."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "diff", "--quiet", "HEAD", "--"], capture_output=True
        )
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+dirty" if dirty.returncode == 1 else "")


def provenance(
    module: str, argv: Sequence[str], args: argparse.Namespace, method: str, positions: int
) -> dict[str, Any]:
    """How a trainer's weights were made: its command, method, options, data and commit."""
    return {
        "command": shlex.join(["python", "-m", module, *argv]),
        "method": method,
        "behaviour": args.behaviour,
        "seed": args.seed,
        "deals": args.deals,
        "ridge": args.ridge,
        "holdout": args.holdout,
        "positions": positions,
        "fitted on": "every deal (the held-out ones included)",
        "commit": current_commit(),
    }


def write_weights(path: str | Path, content: Mapping[str, Any]) -> None:
    """Write a weights document (``engine.ai.learned.document``) as indented JSON."""
    text = json.dumps(content, indent=2, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")


def collect(
    worker: Callable[[tuple[int, str]], list[T]], args: argparse.Namespace
) -> tuple[list[T], list[T]]:
    """``worker`` over every deal of ``args`` in ``args.jobs`` processes: the positions of the
    deals to fit, and those of the last ``args.holdout`` share of the deals, held out."""
    tasks = [(args.seed + i, args.behaviour) for i in range(args.deals)]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        per_deal = list(pool.map(worker, tasks, chunksize=8))
    cut = args.deals - int(args.deals * args.holdout)
    train = [p for deal in per_deal[:cut] for p in deal]
    held = [p for deal in per_deal[cut:] for p in deal]
    return train, held


def solve_linear(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """The solution of ``matrix x = vector``: Gaussian elimination with partial pivoting (the
    system is small and well conditioned)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                for k in range(col, n + 1):
                    rows[r][k] -= factor * rows[col][k]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def accumulate(gram: list[list[float]], moment: list[float], x: Sequence[float], y: float) -> None:
    """Add one sample to the normal equations of a least-squares fit: x x' and x y."""
    for i, xi in enumerate(x):
        if xi:
            moment[i] += xi * y
            row = gram[i]
            for j, xj in enumerate(x):
                row[j] += xi * xj


def fit(positions: Sequence[Position], ridge: float) -> list[float]:
    """Ridge regression of points on features, both relative to their mean in each position."""
    size = len(DISCARD_FEATURES)
    gram = [[0.0] * size for _ in range(size)]
    moment = [0.0] * size
    for position in positions:
        count = len(position)
        mean_y = sum(points for _, points, _ in position) / count
        mean_x = [sum(f[i] for f, _, _ in position) / count for i in range(size)]
        for features, points, _ in position:
            x = [v - m for v, m in zip(features, mean_x, strict=True)]
            y = points - mean_y
            accumulate(gram, moment, x, y)
    for i in range(size):
        gram[i][i] += ridge
    return solve_linear(gram, moment)


def evaluate(positions: Sequence[Position], weights: Sequence[float]) -> tuple[float, float, float]:
    """Mean points per decision of the fitted choice, the behaviour's, and the best in hindsight."""
    fitted = chosen = best = 0.0
    for position in positions:
        scores = [sum(w * x for w, x in zip(weights, f, strict=True)) for f, _, _ in position]
        pick = max(range(len(position)), key=lambda i: (scores[i], -i))
        fitted += position[pick][1]
        chosen += next((p for _, p, mine in position if mine), position[0][1])
        best += max(p for _, p, _ in position)
    n = max(1, len(positions))
    return fitted / n, chosen / n, best / n


def main(argv: list[str]) -> int:
    """Generate positions, fit, print the held-out figures and the weights (and write them with
    ``--write``); returns 0."""
    args = parse_args(
        "python -m research.ai_learn",
        argv,
        behaviour="esperto",
        deals=1000,
        seed=100000,
        ridge=10.0,
    )
    start = time.perf_counter()
    train, held = collect(deal_positions, args)
    weights = fit(train, args.ridge)
    fitted, chosen, best = evaluate(held, weights)
    print(
        f"ai-learn, behaviour {args.behaviour}: {len(train)} positions fitted, "
        f"{len(held)} held out ({int(args.deals * args.holdout)} deals)"
    )
    print(
        f"held out, points per decision: fitted {fitted:+.2f}, behaviour {chosen:+.2f}, "
        f"best in hindsight {best:+.2f}"
    )
    every = dict(zip(DISCARD_FEATURES, fit(train + held, args.ridge), strict=True))
    print("DISCARD_WEIGHTS (fitted on every deal):")
    for name, weight in every.items():
        print(f'    "{name}": {weight:.4f},')
    if args.write:
        content = learned.document(
            MODEL,
            DISCARD_FEATURES,
            {name: round(weight, 4) for name, weight in every.items()},
            provenance("research.ai_learn", argv, args, METHOD, len(train) + len(held)),
        )
        write_weights(args.write, content)
        print(f"weights written to {args.write}")
    print(f"ai-learn total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
