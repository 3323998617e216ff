"""``python -m bench ai-feed``: fit Scala 40 ``esperto``'s feed model (``FEED_WEIGHTS``).

Supervised learning from what really happened. Hands of the behaviour player against ``facile``
(2 players, both seatings of each seeded deal) are played; at each of the behaviour player's
discards with a choice, every distinct discard is tried on a copy of the true match and labelled
1 when ``facile``, next to play, takes it from the pile (to open, meld or attach at once), 0 when
it draws. No play-out is needed: the label is ``facile``'s very next decision. A ridge regression
of the labels on ``feed_features`` (which read only the seat's view), one for each regime (the
next player not yet open, ``closed``, or open), gives a linear probability of feeding.

The printed figures are on held-out deals, for each regime: how often a candidate discard feeds,
how often the behaviour's own choice did, and the within-position AUC (the chance that, of a
feeding and a safe discard of the same position, the model rates the feeding one higher) of the
fitted model and of ``danger`` alone.

    python -m bench ai-feed --behaviour heuristic --seed 200000 --deals 4000 --jobs 2
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench.ai_learn import _solve, accumulate, collect, distinct_discards, parse_args, walk_discards
from engine.ai import scala40 as ai
from engine.scala40 import Action, Match

Candidate = tuple[tuple[float, ...], int, bool]
"""One distinct discard: its feed features, 1 when the next player took it, whether chosen."""
Position = tuple[str, list[Candidate]]
"""One decision: the feed regime and its candidates."""

DANGER = ai.FEED_FEATURES.index("danger")


def fed(match: Match, action: Action) -> int | None:
    """1 when the next player takes the card ``action`` discards (``facile``'s draw), 0 when it
    draws; None when the discard ends the hand."""
    trial = Match.from_json(match.to_json())
    trial.play(action)
    if trial.is_over or trial.hand_number != match.hand_number or trial.phase != "draw":
        return None
    return 1 if ai.facile(trial).kind == "take" else 0


def _position(match: Match, seat: int, choice: Action) -> Position | None:
    """Every distinct discard of ``seat`` here, with its features and whether it fed."""
    context = ai.DiscardContext.of(match, match.view(seat))
    regime = ai.feed_regime(context)
    distinct = distinct_discards(match.legal_actions())
    if regime is None or len(distinct) < 2:
        return None
    candidates: list[Candidate] = []
    for action in distinct:
        label = fed(match, action)
        if label is None:
            return None
        features = ai.feed_features(context, ai._face(action.card))
        candidates.append((features, label, action.card == choice.card))
    return regime, candidates


def deal_positions(task: tuple[int, str]) -> list[Position]:
    """The behaviour player's positions in both seatings of one seeded deal's first hand."""
    seed, behaviour = task
    return walk_discards(seed, behaviour, seed, _position)


def fit(positions: Sequence[Position], regime: str, ridge: float) -> list[float]:
    """Ridge regression of the labels on the features (the first, ``bias``, unpenalized)."""
    size = len(ai.FEED_FEATURES)
    gram = [[0.0] * size for _ in range(size)]
    moment = [0.0] * size
    for kind, candidates in positions:
        if kind != regime:
            continue
        for features, label, _ in candidates:
            accumulate(gram, moment, features, label)
    for i in range(1, size):
        gram[i][i] += ridge
    return _solve(gram, moment)


def within_auc(scored: Sequence[list[tuple[float, int]]]) -> float:
    """Of the (feeding, safe) pairs of discards of one position, the share the score ranks with
    the feeding one higher (ties count half)."""
    wins = pairs = 0.0
    for candidates in scored:
        feeding = [s for s, label in candidates if label]
        safe = [s for s, label in candidates if not label]
        for f in feeding:
            for s in safe:
                wins += 1.0 if f > s else 0.5 if f == s else 0.0
        pairs += len(feeding) * len(safe)
    return wins / pairs if pairs else 0.5


def report(positions: Sequence[Position], regime: str, weights: Sequence[float]) -> str:
    """The held-out figures of one regime (see the module docstring)."""
    chosen = [c for kind, cs in positions if kind == regime for c in cs]
    mine = [label for _, label, was in chosen if was]
    rate = sum(label for _, label, _ in chosen) / max(1, len(chosen))
    own = sum(mine) / max(1, len(mine))

    def scored(score: int | None) -> list[list[tuple[float, int]]]:
        return [
            [
                (
                    f[score]
                    if score is not None
                    else sum(w * x for w, x in zip(weights, f, strict=True)),
                    label,
                )
                for f, label, _ in cs
            ]
            for kind, cs in positions
            if kind == regime
        ]

    return (
        f"{regime}: {len(mine)} positions, a discard feeds {rate:.1%}, the behaviour's own "
        f"{own:.1%}; within-position AUC fitted {within_auc(scored(None)):.3f}, "
        f"danger {within_auc(scored(DANGER)):.3f}"
    )


def main(argv: list[str]) -> int:
    """Generate positions, fit, print the held-out figures and the weights; returns 0."""
    args = parse_args(
        "python -m bench ai-feed", argv, behaviour="heuristic", deals=4000, seed=200000, ridge=1.0
    )
    start = time.perf_counter()
    train, held = collect(deal_positions, args)
    print(
        f"ai-feed, behaviour {args.behaviour}: {len(train)} positions fitted, {len(held)} held out"
    )
    for regime in ("closed", "open"):
        print("held out, " + report(held, regime, fit(train, regime, args.ridge)))
    print("FEED_WEIGHTS (fitted on every deal):")
    for regime in ("closed", "open"):
        weights = fit(train + held, regime, args.ridge)
        print(f'    "{regime}": {{')
        for name, weight in zip(ai.FEED_FEATURES, weights, strict=True):
            print(f'        "{name}": {weight:.4f},')
        print("    },")
    print(f"ai-feed total {time.perf_counter() - start:.0f} s")
    return 0
