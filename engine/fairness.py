"""Provably fair deals: a public commitment to a match's secret seed, and the check of it.

Every shuffle of a match is derived from its secret seed (docs/rules.md S40-2.2, SC-2) by SHA-256 in
counter mode (:class:`engine.cards.SeededStream`), and the game moves the cards only as the
logged moves say. So:

1. at the start, the players see the **commitment** ``SHA-256(str(seed))`` (its first 16 hex
   digits on the table, the whole of it on request); it binds the bot to the seed without
   telling it (the seed has 128 random bits: nobody can find it from its hash);
2. at the end (finished, abandoned or stopped) the seed is **revealed**;
3. anyone rebuilds every deal from the seed, the options and the logged moves, and checks that
   the seed matches the commitment: :func:`verify`, or ``python -m engine verify FILE`` on the
   match file the bot sends (:func:`match_file`). A seed chosen after seeing the cards would not
   match the commitment; a deck arranged by hand would not come out of the seed.

The commitment alone can be checked with any SHA-256 tool: ``printf %s SEED | sha256sum``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import games
from engine.errors import EngineError

SHORT = 16
"""Hex digits of the commitment shown on the table."""
FORMAT = 1
"""The match file's format number."""


def commitment(seed: int) -> str:
    """The public commitment to a match seed: the SHA-256 of its decimal text, in hex."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def short(full: str) -> str:
    """The commitment as the table shows it (its first :data:`SHORT` hex digits)."""
    return full[:SHORT]


@dataclass(frozen=True, slots=True)
class Deal:
    """One hand as it was dealt: its number, the dealer, every seat's cards, and what lay face
    up (Scala 40: the discard pile's first card; Scopone: nothing)."""

    hand: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    face_up: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`verify` found: the seed matches the commitment, every logged move replays,
    the replay ends where the stored match ended (a finished match, its whole log); the deals,
    in order."""

    seed_matches: bool
    moves_replay: bool
    final_matches: bool
    problem: str = ""
    deals: tuple[Deal, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Whether everything checked holds."""
        return self.seed_matches and self.moves_replay and self.final_matches and not self.problem


def match_file(
    game: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: Sequence[tuple[int | None, str]],
    final_state: str | None = None,
) -> str:
    """A finished match as a JSON text anyone can check with :func:`verify`: the game, the
    players, the options, the revealed seed, its commitment, the logged moves (seat, action)
    and the final state."""
    data = {
        "format": FORMAT,
        "game": game,
        "players": players,
        "options": options,
        "seed": str(seed),
        "commitment": commitment(seed),
        "moves": [[seat, action] for seat, action in moves],
        "final_state": final_state,
    }
    return json.dumps(data, indent=1, sort_keys=True)


def verify(text: str) -> Verdict:
    """Check a match file (:func:`match_file`): the seed against the commitment, then replay
    every logged move from the seed, collecting each deal. The file must hold the final state
    of a finished match, and the replay must end exactly there: a shortened log, or a file
    without its final state, does not verify."""
    try:
        data = json.loads(text)
        seed = int(data["seed"])
        commitment_given = str(data["commitment"])
        game, players, options = str(data["game"]), int(data["players"]), data["options"]
        moves = [(seat, str(action)) for seat, action in data["moves"]]
        final = data.get("final_state")
        match = games.new_match(game, players, seed, options)
    except (KeyError, TypeError, ValueError, EngineError) as error:
        return Verdict(False, False, False, f"this is not a match file ({error!r})")
    seed_matches = commitment(seed) == commitment_given
    deals: list[Deal] = []
    _record_deal(match, deals)
    for number, (seat, action) in enumerate(moves, 1):
        try:
            match.play(action, seat=seat)
        except EngineError as error:
            problem = f"move {number} ({action!r} by seat {seat}) does not replay: {error}"
            return Verdict(seed_matches, False, False, problem, tuple(deals))
        _record_deal(match, deals)
    final_matches, ending = _check_final(match, final)
    problem = "" if seed_matches else "the seed does not match the commitment"
    return Verdict(seed_matches, True, final_matches, problem or ending, tuple(deals))


def _check_final(match: games.GameMatch, final: object) -> tuple[bool, str]:
    """Whether the replay ends at the file's final state, a finished match; else why not."""
    if not isinstance(final, str) or not final:
        return False, "the file has no final state to check the replay against"
    try:
        stored = json.loads(final)
    except ValueError:
        return False, "the file's final state is not readable"
    if stored != json.loads(match.to_json()):
        return False, "the replay does not end where the stored match ended"
    if not match.is_over:
        return False, "the log stops before the end of the match"
    return True, ""


def _record_deal(match: games.GameMatch, deals: list[Deal]) -> None:
    """Add the current hand's deal if it was just dealt (and not yet recorded)."""
    view = match.view(0)
    number = int(view.hand_number)
    if deals and deals[-1].hand == number:
        return
    if getattr(view, "phase", "") in ("cut", "over") or match.is_over:
        return  # the cards are not dealt yet (a manual cut), or nothing more is dealt
    hands = tuple(tuple(str(card) for card in match.view(s).hand) for s in range(match.players))
    top = getattr(view, "discard_top", None)
    deals.append(Deal(number, int(view.dealer), hands, (str(top),) if top else ()))


def describe(verdict: Verdict) -> str:
    """The verdict and the deals as text (what ``python -m engine verify`` prints)."""
    lines = []
    for deal in verdict.deals:
        lines.append(f"hand {deal.hand} (dealer seat {deal.dealer}):")
        lines += [f"  seat {seat}: {' '.join(cards)}" for seat, cards in enumerate(deal.hands)]
        if deal.face_up:
            lines.append(f"  face up: {' '.join(deal.face_up)}")
    lines.append(f"seed matches the commitment: {'yes' if verdict.seed_matches else 'NO'}")
    lines.append(f"every logged move replays: {'yes' if verdict.moves_replay else 'NO'}")
    lines.append(f"the replay ends as stored: {'yes' if verdict.final_matches else 'NO'}")
    lines.append("VERIFIED" if verdict.ok else f"NOT VERIFIED: {verdict.problem}")
    return "\n".join(lines)
