"""Learned weights of the computer players: JSON data files shipped in ``engine/ai/weights/``.

A weights file is one JSON object::

    {
      "format": 1,
      "model": "what the weights score",
      "features": ["bias", "joker", ...],
      "weights": {"bias": -0.1264, ...},
      "provenance": {"command": "...", "seed": 200000, "deals": 4000, "commit": "...", ...}
    }

``features`` lists the feature names in the order the code computes them; ``weights`` maps each
of them to its weight, or, for a model with several regimes, maps each regime to such a mapping.
``provenance`` says how the weights were made (the trainer's command and options, the commit it
ran at); the engine does not read it. The trainers in ``research/`` write these files
(``--write PATH``, with :func:`document`); the players load them at import (:func:`load_linear`,
:func:`load_regimes`), from the installed package as from the checkout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

FORMAT = 1
"""The version of the weights file format."""

WEIGHTS_PACKAGE = "engine.ai"
WEIGHTS_FOLDER = "weights"


def read(name: str) -> dict[str, Any]:
    """The weights document ``engine/ai/weights/<name>.json`` (package data)."""
    resource = resources.files(WEIGHTS_PACKAGE).joinpath(WEIGHTS_FOLDER, f"{name}.json")
    content = json.loads(resource.read_text(encoding="utf-8"))
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise ValueError(f"{name}.json: not a weights file of format {FORMAT}")
    return content


def _check(name: str, weights: Any, features: Sequence[str]) -> dict[str, float]:
    """``weights`` as a dict of floats, or ValueError unless its keys are ``features`` in order."""
    if not isinstance(weights, dict) or list(weights) != list(features):
        raise ValueError(f"{name}.json: the weights must name the features {list(features)}")
    if not all(isinstance(w, int | float) and not isinstance(w, bool) for w in weights.values()):
        raise ValueError(f"{name}.json: every weight must be a number")
    return {feature: float(weights[feature]) for feature in features}


def _features(name: str, content: Mapping[str, Any], features: Sequence[str]) -> None:
    if content.get("features") != list(features):
        raise ValueError(
            f"{name}.json lists the features {content.get('features')}, "
            f"the code computes {list(features)}"
        )


def load_linear(name: str, features: Sequence[str]) -> dict[str, float]:
    """The weights of a linear model from ``weights/<name>.json``, keyed by feature in order.

    Raises ValueError when the file's features are not exactly ``features`` (same names, same
    order): the code and the data must agree before a player can use them.
    """
    content = read(name)
    _features(name, content, features)
    return _check(name, content.get("weights"), features)


def load_regimes(
    name: str, regimes: Sequence[str], features: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Per regime, the weights of a linear model from ``weights/<name>.json`` (see
    :func:`load_linear`); the file must hold exactly ``regimes``, in order."""
    content = read(name)
    _features(name, content, features)
    weights = content.get("weights")
    if not isinstance(weights, dict) or list(weights) != list(regimes):
        raise ValueError(f"{name}.json: the weights must hold the regimes {list(regimes)}")
    return {regime: _check(name, weights[regime], features) for regime in regimes}


def document(
    model: str,
    features: Sequence[str],
    weights: Mapping[str, float] | Mapping[str, Mapping[str, float]],
    provenance: Mapping[str, Any],
) -> dict[str, Any]:
    """A weights document in the module docstring's format (the trainers write it as JSON)."""
    return {
        "format": FORMAT,
        "model": model,
        "features": list(features),
        "weights": {
            key: dict(value) if isinstance(value, Mapping) else value
            for key, value in weights.items()
        },
        "provenance": dict(provenance),
    }
