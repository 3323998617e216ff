"""Saving and loading a Scala 40 match as JSON (``Match.to_json`` / ``Match.from_json``).

The text is one JSON object: the match's state fields, with ``game`` (``scala40``), ``format``,
``players``, ``seed`` and ``options``; keys sorted, so equal matches give equal text. Loading
checks the header and the fields; anything wrong raises :class:`~engine.errors.SnapshotError`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from engine.errors import SnapshotError
from engine.scala40.melds import Meld
from engine.scala40.options import Options
from engine.scala40.results import HandResult, MatchResult

if TYPE_CHECKING:
    from engine.scala40.match import Match

FORMAT_VERSION = 1
"""The snapshot format written; loading accepts formats up to this one."""
PLAIN_STATE = (
    "hand_number",
    "counted_hands",
    "dealer",
    "phase",
    "to_play",
    "hands",
    "stock",
    "discard",
    "aside",
    "opened",
    "opened_this_turn",
    "turns_done",
    "taken",
    "drawn",
    "restocks",
    "status",
    "totals",
    "hands_won",
    "rientro_used",
    "rientro_queue",
    "autoplays",
    "clock_pending",
    "pending_cut",
    "resume_seat",
    "out_order",
)
"""State fields saved in JSON as they are."""


def dump(match: Match) -> str:
    """The whole state of ``match`` as compact JSON; :func:`load` restores it exactly."""
    return json.dumps(_state(match), separators=(",", ":"), sort_keys=True)


def _state(match: Match) -> dict[str, Any]:
    state: dict[str, Any] = {name: getattr(match, name) for name in PLAIN_STATE}
    state.update(
        game="scala40",
        format=FORMAT_VERSION,
        players=match.players,
        seed=match.seed,
        options=match.options.to_dict(),
        melds=[_meld_state(m) for m in match.melds],
        history=[list(h) for h in match.history],
        last_hand=None if match.last_hand is None else match.last_hand.to_dict(),
        result=None if match.result is None else match.result.to_dict(),
    )
    return state


def _meld_state(meld: Meld) -> dict[str, Any]:
    return {
        "number": meld.number,
        "owner": meld.owner,
        "kind": meld.kind,
        "key": meld.key,
        "low": meld.low,
        "cards": list(meld.cards),
        "stands": list(meld.stands),
    }


def load(text: str, make: type[Match]) -> Match:
    """Restore a match saved with :func:`dump`, built with ``make(players, seed, options)``;
    :class:`SnapshotError` if it cannot be."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise SnapshotError("snapshot-unreadable", f"not a saved match: {error}") from error
    if not isinstance(data, dict) or data.get("game") != "scala40":
        raise SnapshotError("snapshot-wrong-game", "not a saved Scala 40 match")
    version = data.get("format")
    if not isinstance(version, int):
        raise SnapshotError("snapshot-corrupt", "saved match has no format version")
    if version > FORMAT_VERSION:
        raise SnapshotError(
            "snapshot-too-new",
            f"saved with format {version}, this engine reads up to {FORMAT_VERSION}",
        )
    try:
        return _from_state(data, make)
    except (KeyError, TypeError, ValueError) as error:
        raise SnapshotError("snapshot-corrupt", f"saved match is damaged: {error!r}") from error


def _from_state(data: dict[str, Any], make: type[Match]) -> Match:
    match = make(data["players"], data["seed"], Options.from_dict(data["options"]))
    for name in PLAIN_STATE:
        setattr(match, name, data[name])
    match.melds = [
        Meld(**{**m, "cards": tuple(m["cards"]), "stands": tuple(m["stands"])})
        for m in data["melds"]
    ]
    match.history = [(int(s), str(t)) for s, t in data["history"]]
    match.last_hand = None if data["last_hand"] is None else HandResult.from_dict(data["last_hand"])
    match.result = None if data["result"] is None else MatchResult.from_dict(data["result"])
    return match
