"""Provably fair deals (engine/fairness.py): the commitment binds the seed, the revealed seed
rebuilds every deal of a finished match, a tampered seed or log does not verify."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import fairness, games


def played(game: str, players: int, seed: int, options: dict[str, object]) -> str:
    """A whole match played by random legal moves, as the bot's match file."""
    match = games.new_match(game, players, seed, options)
    rng = random.Random(seed)
    moves: list[tuple[int | None, str]] = []
    while not match.is_over and len(moves) < 3000:
        seat = match.to_play
        moves.append((seat, str(match.play(rng.choice(match.legal_actions())))))
    return fairness.match_file(game, players, options, seed, moves, match.to_json())


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    seed = 2**127 + 12345
    full = fairness.commitment(seed)
    assert full == hashlib.sha256(str(seed).encode()).hexdigest()
    assert fairness.short(full) == full[:16] and str(seed) not in full


@pytest.mark.parametrize(
    ("game", "players", "changes"),
    [
        ("scala40", 2, {}),
        ("scala40", 3, {"manual_cut": True, "limit": 101}),
        ("scopone", 4, {}),
    ],
)
def test_the_revealed_seed_rebuilds_every_deal(
    game: str, players: int, changes: dict[str, object]
) -> None:
    options = games.default_options(game) | changes
    text = played(game, players, 77, options)
    verdict = fairness.verify(text)
    assert verdict.ok and verdict.final_matches is True, verdict.problem
    first = games.new_match(game, players, 77, options)
    if not changes.get("manual_cut"):
        assert verdict.deals[0].hands == tuple(
            tuple(str(c) for c in first.view(s).hand) for s in range(players)
        )
    assert [d.hand for d in verdict.deals] == list(range(1, len(verdict.deals) + 1))
    assert len(verdict.deals) >= 2


def test_a_tampered_seed_or_log_does_not_verify() -> None:
    text = played("scopone", 4, 5, games.default_options("scopone"))
    data = json.loads(text)
    other = dict(data, seed=str(int(data["seed"]) + 1))
    assert not fairness.verify(json.dumps(other)).seed_matches
    swapped = dict(data, commitment=fairness.commitment(6), seed="6")
    verdict = fairness.verify(json.dumps(swapped))
    assert verdict.seed_matches and not verdict.ok  # the deals do not come out of seed 6
    moves = [list(m) for m in data["moves"]]
    moves[3][1] = moves[4][1]
    verdict = fairness.verify(json.dumps(dict(data, moves=moves)))
    assert not verdict.ok and "does not replay" in verdict.problem


def test_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "partita.json"
    path.write_text(played("scala40", 2, 9, games.default_options("scala40")))
    done = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.rstrip().endswith("VERIFIED")
    assert done.stdout.startswith("hand 1 (dealer seat ")
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, seed=str(int(data["seed"]) + 1))))
    done = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "NOT VERIFIED" in done.stdout
    missing = tmp_path / "missing.json"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(missing)], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.startswith(f"cannot read {missing}: ")


def test_a_shortened_log_or_a_missing_final_state_does_not_verify() -> None:
    """The file must hold the whole log of a finished match and its final state: a log cut
    short, with the final state emptied or matching the shortened replay, is refused."""
    text = played("scala40", 2, 11, games.default_options("scala40"))
    data = json.loads(text)
    assert fairness.verify(text).ok
    for final in (None, ""):
        verdict = fairness.verify(json.dumps(dict(data, final_state=final)))
        assert not verdict.ok and verdict.problem == (
            "the file has no final state to check the replay against"
        )
    short_moves = data["moves"][: len(data["moves"]) // 2]
    verdict = fairness.verify(json.dumps(dict(data, moves=short_moves)))
    assert not verdict.ok and verdict.problem == (
        "the replay does not end where the stored match ended"
    )
    match = games.new_match("scala40", 2, 11, data["options"])
    for seat, action in short_moves:
        match.play(action, seat=seat)
    cut = dict(data, moves=short_moves, final_state=match.to_json())
    verdict = fairness.verify(json.dumps(cut))
    assert not verdict.ok and verdict.problem == "the log stops before the end of the match"
    assert verdict.seed_matches and verdict.moves_replay


def test_a_file_that_is_not_a_match_file() -> None:
    """Anything else gets a verdict, not a crash."""
    for text in ("", "[]", '{"seed": "x"}', json.dumps({"seed": "1", "commitment": "a"})):
        verdict = fairness.verify(text)
        assert not verdict.ok and verdict.problem.startswith("this is not a match file")
