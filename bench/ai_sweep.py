"""``python -m bench ai-sweep``: a legality sweep of the computer players of both games.

Plays many seeded matches with a computer player in every seat (``facile`` and ``esperto`` mixed
at random per seat, from the match seed) and checks that every action ``choose`` returns is one
of ``match.legal_actions()`` at that moment. An illegal action, or an exception from ``choose`` or
``play``, or a hand that never ends, is counted, the first few are printed with what replays
them, and that match is abandoned; the exit status is 1 when any was found, else 0.

Scala 40: 2 to 6 players in turn, whole matches, cycling through option variants (default rules,
no jokers, pairs with 4 players, with open partner hands and in the race format, the hands
format, rientro, manual cut, the stricter discard and closing rules, other opening and
ace-penalty rules, no restock, a higher limit) until ``--sweep-hands`` hands have been played.
Scopone: 4 players (pairs, or ``individual``), whole matches, cycling through its variants
(default, individual, scientifico deal, last-play scopa, primiera in all suits, higher
targets), ``esperto`` at the small ``--sweep-budget`` so the sweep stays quick, until
``--sweep-scopone-hands`` hands have been played. One process, one core.

    python -m bench ai-sweep [--sweep-hands 2000] [--sweep-scopone-hands 1000]
                             [--sweep-budget 20] [--sweep-seed 1] [--sweep-only scala40|scopone]

Every seed, variant and seating is a pure function of the match index, so a failure printed with
its seed and variant can be replayed exactly.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.ai import LEVELS
from engine.ai import scala40 as ai_scala40
from engine.ai import scopone as ai_scopone
from engine.scala40 import Options as Scala40Options
from engine.scala40 import new_match as new_scala40
from engine.scopone import Options as ScoponeOptions
from engine.scopone import new_match as new_scopone

MAX_HAND_ACTIONS = 5000
"""Actions in one hand after which the match is given up as stuck (a failure too)."""
SHOWN = 5
"""Illegal moves and errors printed in full, per game."""

SCALA40_VARIANTS: tuple[tuple[str, Scala40Options, tuple[int, ...]], ...] = (
    ("default", Scala40Options(), (2, 3, 4, 5, 6)),
    ("no jokers", Scala40Options(jokers=False), (2, 3, 4, 5, 6)),
    ("pairs", Scala40Options(pairs=True), (4,)),
    ("pairs, open hands", Scala40Options(pairs=True, open_hands_for_partners=True), (4,)),
    ("pairs, race", Scala40Options(pairs=True, format="race"), (4,)),
    ("hands format", Scala40Options(format="hands", hands=3), (2, 3, 4, 5, 6)),
    ("rientro", Scala40Options(rientro=True), (3, 4, 5, 6)),
    ("manual cut", Scala40Options(manual_cut=True), (2, 3, 4, 5, 6)),
    (
        "strict discard, free take, joker close doubles",
        Scala40Options(strict_discard=True, free_discard_take=True, joker_close_doubles=True),
        (2, 3, 4, 5, 6),
    ),
    (
        "opening 51 without joker, close in hand",
        Scala40Options(
            opening_points=51, opening_without_joker=True, close_in_hand_without_40=True
        ),
        (2, 3, 4, 5, 6),
    ),
    (
        "ace always 11, no restock",
        Scala40Options(ace_penalty="always_11", max_restocks=0),
        (2, 3, 4, 5, 6),
    ),
    (
        "ace last card 1, limit 151",
        Scala40Options(ace_penalty="last_card_is_1", limit=151),
        (2, 3, 4, 5, 6),
    ),
)
"""Scala 40 option variants: (name, options, player counts they are played with)."""

SCOPONE_VARIANTS: tuple[tuple[str, ScoponeOptions], ...] = (
    ("default", ScoponeOptions()),
    ("individual", ScoponeOptions(individual=True)),
    ("scientifico", ScoponeOptions(deal="scientifico")),
    ("last-play scopa", ScoponeOptions(last_play_scopa=True)),
    ("primiera all suits, target 16", ScoponeOptions(primiera_all_suits=True, target=16)),
    (
        "individual scientifico, target 21",
        ScoponeOptions(individual=True, deal="scientifico", target=21),
    ),
)
"""Scopone option variants: (name, options)."""


@dataclass
class Sweep:
    """What one game's sweep found."""

    game: str
    matches: int = 0
    hands: int = 0
    moves: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEVELS, 0))
    illegal: int = 0
    errors: int = 0
    stuck: int = 0
    variants: set[str] = field(default_factory=set)
    players: set[int] = field(default_factory=set)
    seconds: float = 0.0
    reports: list[str] = field(default_factory=list)

    def report(self, text: str) -> None:
        """Keep the first ``SHOWN`` problem descriptions for printing."""
        if len(self.reports) < SHOWN:
            self.reports.append(text)

    @property
    def checked(self) -> int:
        """Moves checked against ``legal_actions()``, every level."""
        return sum(self.moves.values())

    def summary(self) -> str:
        """The sweep's one-line figures."""
        per_level = ", ".join(f"{level} {count}" for level, count in self.moves.items())
        low, high = min(self.players, default=0), max(self.players, default=0)
        players = f"{low}-{high}" if low != high else str(low)
        return (
            f"sweep {self.game}: {self.hands} hands in {self.matches} matches "
            f"({players} players, {len(self.variants)} option variants), "
            f"{self.checked} moves checked ({per_level}), {self.illegal} illegal, "
            f"{self.errors} errors, {self.stuck} stuck, {self.seconds:.0f} s"
        )


def _levels(rng: random.Random, players: int) -> list[str]:
    """A random mix of levels, one per seat."""
    return [rng.choice(LEVELS) for _ in range(players)]


Chooser = Callable[[Any, str, int, int], Any]
"""``choose(match, level, seed, budget)`` of one game's computer players."""


@dataclass(frozen=True)
class Deal:
    """One match of a sweep: its seed, seating, variant, and how to start it."""

    seed: int
    players: int
    variant: str
    levels: list[str]
    start: Callable[[], Any]

    @property
    def label(self) -> str:
        """Enough to replay the match: seed, players, variant, levels."""
        return f"seed {self.seed}, {self.players} players, {self.variant}, levels {self.levels}"


def _play(sweep: Sweep, deal: Deal, choose: Chooser, budget: int, hands_left: int) -> None:
    """Play ``deal`` out (or for ``hands_left`` hands), checking every chosen action."""
    label = deal.label
    try:
        match = deal.start()
    except Exception as error:  # every failure is a finding
        sweep.errors += 1
        sweep.report(f"new_match raised {error!r}: {label}")
        return
    current = match.hand_number
    count = in_hand = 0
    while not match.is_over and hands_left > 0:
        if in_hand >= MAX_HAND_ACTIONS:
            sweep.stuck += 1
            sweep.report(f"stuck: {in_hand} actions in hand {current}: {label}")
            return
        seat = match.to_play
        if seat is None:
            sweep.errors += 1
            sweep.report(f"nobody to play in phase {match.phase}: {label}, action {count}")
            return
        level = deal.levels[seat]
        try:
            legal = match.legal_actions()
            action = choose(match, level, deal.seed * 100003 + count, budget)
        except Exception as error:
            sweep.errors += 1
            sweep.report(f"choose raised {error!r}: {label}, action {count}, seat {seat} {level}")
            return
        sweep.moves[level] += 1
        if action not in legal:
            sweep.illegal += 1
            sweep.report(
                f"illegal {action} by seat {seat} {level}: {label}, action {count}, "
                f"phase {match.phase}, legal {[str(a) for a in legal][:8]}"
            )
            return
        try:
            match.play(action)
        except Exception as error:
            sweep.errors += 1
            sweep.report(f"play {action} raised {error!r}: {label}, action {count}, seat {seat}")
            return
        count += 1
        in_hand += 1
        if match.is_over or match.hand_number != current:
            sweep.hands += 1
            hands_left -= 1
            current = match.hand_number
            in_hand = 0


def _sweep(
    game: str, hands: int, budget: int, deal: Callable[[int], Deal], choose: Chooser
) -> Sweep:
    """Play ``deal(0)``, ``deal(1)``, ... until ``hands`` hands are played."""
    sweep = Sweep(game)
    start = time.perf_counter()
    index = 0
    # every match that does not fail plays at least one hand: ``hands`` matches always suffice,
    # and a sweep whose matches all fail at once still ends (with its errors counted)
    while sweep.hands < hands and index < hands:
        current = deal(index)
        sweep.matches += 1
        sweep.variants.add(current.variant)
        sweep.players.add(current.players)
        _play(sweep, current, choose, budget, hands - sweep.hands)
        index += 1
    sweep.seconds = time.perf_counter() - start
    return sweep


def scala40_deal(index: int, first_seed: int) -> Deal:
    """Scala 40 match ``index``: 2 to 6 players in turn, the variants for that count in turn."""
    players = 2 + index % 5
    fitting = [(name, options) for name, options, counts in SCALA40_VARIANTS if players in counts]
    name, options = fitting[(index // 5) % len(fitting)]
    seed = first_seed + index
    levels = _levels(random.Random(f"sweep:scala40:{seed}"), players)
    return Deal(
        seed,
        players,
        name,
        levels,
        lambda: new_scala40(players=players, seed=seed, options=options),
    )


def scopone_deal(index: int, first_seed: int) -> Deal:
    """Scopone match ``index``: the variants in turn."""
    name, options = SCOPONE_VARIANTS[index % len(SCOPONE_VARIANTS)]
    seed = first_seed + index
    levels = _levels(random.Random(f"sweep:scopone:{seed}"), 4)
    return Deal(seed, 4, name, levels, lambda: new_scopone(seed=seed, options=options))


def _choose_scala40(match: Any, level: str, seed: int, budget: int) -> Any:
    return ai_scala40.choose(match, level, seed=seed, budget=budget)


def _choose_scopone(match: Any, level: str, seed: int, budget: int) -> Any:
    return ai_scopone.choose(match, level, seed=seed, budget=budget)


def sweep_scala40(hands: int, budget: int, seed: int) -> Sweep:
    """Play Scala 40 matches from ``seed`` on until ``hands`` hands; every action checked."""
    return _sweep(
        "scala40", hands, budget, lambda index: scala40_deal(index, seed), _choose_scala40
    )


def sweep_scopone(hands: int, budget: int, seed: int) -> Sweep:
    """Play Scopone matches from ``seed`` on until ``hands`` hands; every action checked."""
    return _sweep(
        "scopone", hands, budget, lambda index: scopone_deal(index, seed), _choose_scopone
    )


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench ai-sweep",
        description="Legality sweep of the Scala 40 and Scopone computer players.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--sweep-hands", type=int, default=2000, help="Scala 40 hands to play (default 2000)"
    )
    parser.add_argument(
        "--sweep-scopone-hands", type=int, default=1000, help="Scopone hands (default 1000)"
    )
    parser.add_argument(
        "--sweep-budget", type=int, default=20, help="esperto budget in both games (default 20)"
    )
    parser.add_argument("--sweep-seed", type=int, default=1, help="first match seed (default 1)")
    parser.add_argument(
        "--sweep-only", choices=("scala40", "scopone"), default=None, help="sweep one game only"
    )
    options, _ = parser.parse_known_args(argv)
    return options


def main(argv: list[str]) -> int:
    """Run the sweep and print its figures; 1 when any illegal move, error or stuck match."""
    options = _arguments(argv)
    budget, seed = options.sweep_budget, options.sweep_seed
    print(
        f"AI legality sweep: Scala 40 {options.sweep_hands} hands, Scopone "
        f"{options.sweep_scopone_hands} hands, esperto budget {budget}, first seed {seed}"
    )
    start = time.perf_counter()
    sweeps = []
    if options.sweep_only in (None, "scala40"):
        sweeps.append(sweep_scala40(options.sweep_hands, budget, seed))
        print(sweeps[-1].summary(), flush=True)
        for line in sweeps[-1].reports:
            print(f"  {line}")
    if options.sweep_only in (None, "scopone"):
        sweeps.append(sweep_scopone(options.sweep_scopone_hands, budget, seed))
        print(sweeps[-1].summary(), flush=True)
        for line in sweeps[-1].reports:
            print(f"  {line}")
    failures = sum(s.illegal + s.errors + s.stuck for s in sweeps)
    hands = sum(s.hands for s in sweeps)
    checked = sum(s.checked for s in sweeps)
    illegal = sum(s.illegal for s in sweeps)
    print(
        f"sweep total: {hands} hands, {checked} moves checked, {illegal} illegal moves, "
        f"{failures - illegal} errors or stuck matches, {time.perf_counter() - start:.0f} s"
    )
    return 1 if failures else 0
