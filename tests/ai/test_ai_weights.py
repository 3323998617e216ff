"""The learned weights of Scala 40 ``esperto`` as shipped data (``engine/ai/weights/*.json``).

The files' features must be exactly the code's (same names, same order), and their values are
pinned: they are the literals ``engine/ai/scala40.py`` held before they became data, so loading
them changes no decision. A refit (``research/``) changes this test on purpose.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.ai import learned
from engine.ai import scala40_discard as ai
from research import ai_feed
from research.ai_learn import write_weights

DISCARD_LITERAL = {
    "useful": -2.2748,
    "facile_useful": -0.8776,
    "same_rank": -0.7193,
    "run_neighbours": 0.2123,
    "gap_neighbours": -0.3705,
    "twin": 3.3772,
    "penalty": -5.2798,
    "penalty_open": 5.6792,
    "danger": -1.4936,
    "set_feed": 0.1156,
    "run_feed": -0.1944,
    "outs": 0.4680,
    "thrown_near": 0.0343,
    "taken_near": -0.1594,
    "open_feed": -0.1752,
    "high_closed": 1.0079,
    "penalty_late": 2.7990,
    "useful_open": 0.6698,
    "danger_open": 1.5933,
    "joker": -16.8855,
    "set_feed_late": -2.8292,
    "run_feed_late": 1.0891,
}
"""``DISCARD_WEIGHTS`` as pasted in the code before the weights became a data file."""

FEED_LITERAL = {
    "closed": {
        "bias": -0.1264,
        "joker": 0.8384,
        "penalty": 0.1584,
        "ace": 0.0106,
        "unseen_rank": 0.0171,
        "unseen_minus2": 0.0136,
        "unseen_minus1": 0.0152,
        "unseen_plus1": 0.0154,
        "unseen_plus2": 0.0075,
        "set_feed": -0.0018,
        "run_feed": 0.0026,
        "danger": 0.0819,
        "attachable": 0.2234,
        "thrown": -0.0845,
        "thrown_recent": -0.0377,
        "refused_recent": -0.0647,
    },
    "open": {
        "bias": -0.0511,
        "joker": 0.0508,
        "penalty": -0.0850,
        "ace": 0.0567,
        "unseen_rank": 0.0246,
        "unseen_minus2": 0.0144,
        "unseen_minus1": 0.0171,
        "unseen_plus1": 0.0166,
        "unseen_plus2": 0.0086,
        "set_feed": -0.0021,
        "run_feed": 0.0002,
        "danger": -0.0095,
        "attachable": 0.8515,
        "thrown": -0.0602,
        "thrown_recent": -0.0194,
        "refused_recent": -0.0713,
    },
}
"""``FEED_WEIGHTS`` as pasted in the code before the weights became a data file."""


def test_the_discard_file_names_the_code_features_exactly() -> None:
    content = learned.read("scala40_discard")
    assert content["features"] == list(ai.DISCARD_FEATURES)
    assert list(content["weights"]) == list(ai.DISCARD_FEATURES)


def test_the_feed_file_names_the_code_features_exactly() -> None:
    content = learned.read("scala40_feed")
    assert content["features"] == list(ai.FEED_FEATURES)
    assert list(content["weights"]) == list(ai.FEED_REGIMES) == list(ai.FEED_COST)
    for regime in ai.FEED_REGIMES:
        assert list(content["weights"][regime]) == list(ai.FEED_FEATURES)


def test_the_loaded_weights_are_the_former_literals() -> None:
    assert ai.DISCARD_WEIGHTS == DISCARD_LITERAL
    assert list(ai.DISCARD_WEIGHTS) == list(DISCARD_LITERAL)
    assert ai.FEED_WEIGHTS == FEED_LITERAL
    for regime in FEED_LITERAL:
        assert list(ai.FEED_WEIGHTS[regime]) == list(FEED_LITERAL[regime])


@pytest.mark.parametrize("name", ["scala40_discard", "scala40_feed"])
def test_each_file_says_how_it_was_made(name: str) -> None:
    provenance = learned.read(name)["provenance"]
    assert provenance["command"].startswith("python -m ")
    assert isinstance(provenance["seed"], int) and isinstance(provenance["deals"], int)
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", provenance["commit"])


def _patched(monkeypatch: pytest.MonkeyPatch, content: dict[str, Any]) -> None:
    monkeypatch.setattr(learned, "read", lambda name: content)


def test_a_file_that_disagrees_with_the_code_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    features = ("a", "b")
    good = {"format": 1, "features": ["a", "b"], "weights": {"a": 1.0, "b": 2}}
    _patched(monkeypatch, good)
    assert learned.load_linear("x", features) == {"a": 1.0, "b": 2.0}
    for bad in (
        dict(good, features=["b", "a"]),
        dict(good, weights={"b": 2.0, "a": 1.0}),
        dict(good, weights={"a": 1.0}),
        dict(good, weights={"a": 1.0, "b": "2"}),
    ):
        _patched(monkeypatch, bad)
        with pytest.raises(ValueError):
            learned.load_linear("x", features)
    regimes = {"format": 1, "features": ["a"], "weights": {"open": {"a": 1.0}}}
    _patched(monkeypatch, regimes)
    with pytest.raises(ValueError, match="regimes"):
        learned.load_regimes("x", ("closed", "open"), ("a",))


def test_a_written_file_loads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the trainers write (``--write``) is what the players load."""
    path = tmp_path / "feed.json"
    content = learned.document("m", ai.FEED_FEATURES, FEED_LITERAL, {"command": "c"})
    write_weights(path, content)
    _patched(monkeypatch, json.loads(path.read_text(encoding="utf-8")))
    assert learned.load_regimes("x", ai.FEED_REGIMES, ai.FEED_FEATURES) == FEED_LITERAL


def test_the_feed_trainer_writes_a_file_the_player_can_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m research.ai_feed ... --write PATH`` on two deals, loaded back."""
    path = tmp_path / "scala40_feed.json"
    argv = ["--deals", "2", "--holdout", "0.5", "--jobs", "1", "--write", str(path)]
    assert ai_feed.main(argv) == 0
    assert f"weights written to {path}" in capsys.readouterr().out
    content = json.loads(path.read_text(encoding="utf-8"))
    assert content["provenance"]["command"] == "python -m research.ai_feed " + " ".join(argv)
    assert (content["provenance"]["seed"], content["provenance"]["deals"]) == (200000, 2)
    _patched(monkeypatch, content)
    weights = learned.load_regimes("x", ai.FEED_REGIMES, ai.FEED_FEATURES)
    assert all(round(w, 4) == w for model in weights.values() for w in model.values())
