"""``python -m research.ai_probe``: how much a Scala 40 player could gain by not feeding the next.

A research probe, not a player: the *oracle* plays exactly like ``esperto`` (without its chiusura
search) but, among its discards, first avoids every card after which the next player's legal
actions hold a take that ``facile`` would use (to open, meld or attach). To know that it looks at
the true match, so it cheats; it lives in ``research/``, never in ``engine/``. Against ``facile``
on paired deals (seats swapped) it bounds what better reading of the opponent could bring to a
fair ``esperto``.

``--player seer`` probes the other extreme: the *seer* sees every hidden card (the other hand and
the stock) and chooses each discard by playing the rest of the hand out exactly, ``facile`` for
both seats (``facile`` is deterministic, so the playout is what would happen if both then played
``facile``); it measures how much of the game is information rather than play.

    python -m research.ai_probe --deals 300 --matches 150
    python -m research.ai_probe --player seer --deals 300 --matches 150
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from bench.ai_scala40 import mean_ci
from engine.ai import scala40 as ai
from engine.ai.scala40_discard import best_scored_discard
from engine.scala40 import Action, Match, Options, new_match
from research.ai_learn import distinct_discards, play_out

MAX_ACTIONS = 20000


def feeds_next(match: Match, discard: Action) -> bool:
    """Whether the next player could use ``discard`` at once, as ``facile`` takes (true state)."""
    sim = Match.from_json(match.to_json())
    hand_number = sim.hand_number
    sim.play(discard)
    if sim.is_over or sim.hand_number != hand_number or sim.phase != "draw":
        return False
    return bool(ai.useful_takes(sim.legal_actions()))


def oracle(match: Match, seed: int = 0) -> Action:
    """``esperto``, except that a discard feeding the next player comes last."""
    actions = match.legal_actions()
    seat = match.to_play
    assert seat is not None
    if match.phase != "play" or ai.facile_play(match, actions) is not None:
        return ai.esperto_plain(match)
    discards = ai.discard_options(actions)
    safe = [a for a in discards if not feeds_next(match, a)]
    if len(safe) in (0, len(discards)):
        return ai.esperto_plain(match)
    return best_scored_discard(match, match.view(seat), safe)


def seer(match: Match, seed: int = 0) -> Action:
    """``esperto``, except that each discard is the one whose exact ``facile`` playout of the rest
    of the hand (true hidden cards) ends best for its seat; ties keep ``esperto``'s choice."""
    seat = match.to_play
    assert seat is not None
    first = ai.esperto_plain(match)
    if match.phase != "play" or first.kind != "discard":
        return first
    state = match.to_json()
    best, best_value = first, None
    for action in distinct_discards([first, *match.legal_actions()]):
        sim = Match.from_json(state)
        sim.play(action)
        value = play_out(sim, seat, ai.facile) or 0.0
        if best_value is None or value > best_value:
            best, best_value = action, value
    return best


PROBES = {"oracle": oracle, "seer": seer}
LABELS = {
    "oracle": "oracle that never feeds the next player",
    "seer": "seer that sees every hidden card and plays each discard out",
}


def _choose(match: Match, level: str, seed: int) -> Action:
    probe = PROBES.get(level)
    return probe(match, seed) if probe is not None else ai.choose(match, level, seed)


def play(seed: int, levels: Sequence[str], whole: bool) -> tuple[float, float] | None:
    """One game of deal ``seed`` (a hand, or a match to 101 when ``whole``) for the probe's seat.

    Returns (closed or won, point difference in the oracle's favour); None for an annulled hand.
    """
    match = new_match(players=2, seed=seed, options=Options(limit=101))
    focus = next(seat for seat, level in enumerate(levels) if level in PROBES)
    hand_number, count = match.hand_number, 0
    while not match.is_over and count < MAX_ACTIONS:
        seat = match.to_play
        assert seat is not None
        match.play(_choose(match, levels[seat], seed * 1000 + count))
        count += 1
        if not whole and match.hand_number != hand_number:
            break
    if whole:
        won = match.result is not None and focus in match.result.winners
        return (1.0 if won else 0.0, 0.0)
    last = match.last_hand
    if last is None or last.annulled:
        return None
    points = [p or 0 for p in last.points]
    return (1.0 if last.closer == focus else 0.0, float(points[1 - focus] - points[focus]))


def _paired(seed: int, whole: bool, probe: str) -> list[tuple[float, float]]:
    games = [play(seed, (probe, "facile"), whole), play(seed, ("facile", probe), whole)]
    return [g for g in games if g is not None]


def main(argv: list[str]) -> int:
    """Run the probe and print its figures; returns 0."""
    parser = argparse.ArgumentParser(prog="python -m research.ai_probe", allow_abbrev=False)
    parser.add_argument("--deals", type=int, default=300, help="paired one-hand deals")
    parser.add_argument("--matches", type=int, default=150, help="paired matches to 101")
    parser.add_argument("--seed", type=int, default=1000, help="first deal seed")
    parser.add_argument("--player", choices=sorted(PROBES), default="oracle", help="the probe")
    args = parser.parse_args(argv)
    probe = args.player
    start = time.perf_counter()
    closed, diffs = [], []
    for seed in range(args.seed, args.seed + args.deals):
        games = _paired(seed, whole=False, probe=probe)
        if games:
            closed.append(sum(g[0] for g in games) / len(games))
            diffs.append(sum(g[1] for g in games) / len(games))
    seeds = range(args.seed, args.seed + args.matches)
    won = [sum(g[0] for g in _paired(s, True, probe)) / 2 for s in seeds]
    for label, samples, scale, unit in (
        ("hands closed", closed, 100, "%"),
        ("points per hand ahead", diffs, 1, ""),
        ("matches to 101 won", won, 100, "%"),
    ):
        mean, half = mean_ci(samples)
        print(
            f"probe, {LABELS[probe]}, vs facile, {label}: "
            f"{scale * mean:.1f}{unit} ± {scale * half:.1f} (CI95, n={len(samples)})"
        )
    print(f"probe total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
