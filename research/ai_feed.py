"""``python -m research.ai_feed``: fit Scala 40 ``esperto``'s feed model (``FEED_WEIGHTS``).

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
fitted model and of ``danger`` alone. ``--write PATH`` writes the weights fitted on every deal as
a weights file (``engine.ai.learned``, with the command, options and commit); the shipped one is
``engine/ai/weights/scala40_feed.json``.

    python -m research.ai_feed --behaviour heuristic --seed 200000 --deals 4000 --jobs 2 \
        --write engine/ai/weights/scala40_feed.json
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from engine.ai import learned
from engine.ai import scala40 as ai
from engine.ai.scala40_discard import (
    FEED_FEATURES,
    FEED_REGIMES,
    DiscardContext,
    feed_features,
    feed_regime,
)
from engine.ai.scala40_reading import token_face
from engine.scala40 import Action, Match
from research.ai_learn import (
    accumulate,
    collect,
    distinct_discards,
    parse_args,
    provenance,
    solve_linear,
    walk_discards,
    write_weights,
)

Candidate = tuple[tuple[float, ...], int, bool]
"""One distinct discard: its feed features, 1 when the next player took it, whether chosen."""
Position = tuple[str, list[Candidate]]
"""One decision: the feed regime and its candidates."""

DANGER = FEED_FEATURES.index("danger")
MODEL = (
    "Scala 40 esperto's feed model (feed_chance): a linear probability that the next player takes "
    "a discard, linear in feed_features; one model while that player has not opened (closed), "
    "one once it has (open)"
)
"""The ``model`` line of the weights file."""
METHOD = (
    "ridge regression (bias unpenalized) of whether facile, next to play, took each distinct "
    "discard, on its features, per regime"
)
"""The ``method`` line of the weights file's provenance."""


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
    context = DiscardContext.of(match, match.view(seat))
    regime = feed_regime(context)
    distinct = distinct_discards(match.legal_actions())
    if regime is None or len(distinct) < 2:
        return None
    candidates: list[Candidate] = []
    for action in distinct:
        label = fed(match, action)
        if label is None:
            return None
        features = feed_features(context, token_face(action.card))
        candidates.append((features, label, action.card == choice.card))
    return regime, candidates


def deal_positions(task: tuple[int, str]) -> list[Position]:
    """The behaviour player's positions in both seatings of one seeded deal's first hand."""
    seed, behaviour = task
    return walk_discards(seed, behaviour, seed, _position)


def fit(positions: Sequence[Position], regime: str, ridge: float) -> list[float]:
    """Ridge regression of the labels on the features (the first, ``bias``, unpenalized)."""
    size = len(FEED_FEATURES)
    gram = [[0.0] * size for _ in range(size)]
    moment = [0.0] * size
    for kind, candidates in positions:
        if kind != regime:
            continue
        for features, label, _ in candidates:
            accumulate(gram, moment, features, label)
    for i in range(1, size):
        gram[i][i] += ridge
    return solve_linear(gram, moment)


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
    """Generate positions, fit, print the held-out figures and the weights (and write them with
    ``--write``); returns 0."""
    args = parse_args(
        "python -m research.ai_feed",
        argv,
        behaviour="heuristic",
        deals=4000,
        seed=200000,
        ridge=1.0,
    )
    start = time.perf_counter()
    train, held = collect(deal_positions, args)
    print(
        f"ai-feed, behaviour {args.behaviour}: {len(train)} positions fitted, {len(held)} held out"
    )
    for regime in FEED_REGIMES:
        print("held out, " + report(held, regime, fit(train, regime, args.ridge)))
    every = {
        regime: dict(zip(FEED_FEATURES, fit(train + held, regime, args.ridge), strict=True))
        for regime in FEED_REGIMES
    }
    print("FEED_WEIGHTS (fitted on every deal):")
    for regime, weights in every.items():
        print(f'    "{regime}": {{')
        for name, weight in weights.items():
            print(f'        "{name}": {weight:.4f},')
        print("    },")
    if args.write:
        rounded = {
            regime: {name: round(weight, 4) for name, weight in weights.items()}
            for regime, weights in every.items()
        }
        content = learned.document(
            MODEL,
            FEED_FEATURES,
            rounded,
            provenance("research.ai_feed", argv, args, METHOD, len(train) + len(held)),
        )
        write_weights(args.write, content)
        print(f"weights written to {args.write}")
    print(f"ai-feed total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
