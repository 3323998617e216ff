"""Saving and loading a match as JSON (``Match.to_json`` / ``Match.from_json``).

The text is one JSON object: ``{"game": "scopone", "format": 1, "seed": ..., "players": 4,
"options": {...}, "state": {...}}``. Loading checks the shape and that the 40 cards are all there
exactly once; anything wrong raises :class:`~engine.errors.SnapshotError`.
"""

from __future__ import annotations

import json
from typing import Any

from engine.cards import Card
from engine.errors import EngineError, SnapshotError
from engine.scopone.deck import sort_cards, to_cards
from engine.scopone.options import Options
from engine.scopone.scoring import HandScore
from engine.scopone.state import PLAYERS, MatchState, PlayRecord

GAME = "scopone"
FORMAT = 1
"""The snapshot format written; loading accepts formats up to this one."""
DECK_SIZE = 40


def dump(seed: int, options: Options, state: MatchState) -> str:
    """The match as compact JSON text (keys in a fixed order, so equal matches give equal text)."""
    data = {
        "game": GAME,
        "format": FORMAT,
        "seed": seed,
        "players": PLAYERS,
        "options": options.to_dict(),
        "state": _state_dict(state),
    }
    return json.dumps(data, separators=(",", ":"))


def _cards(cards: list[Card]) -> list[str]:
    return [str(card) for card in cards]


def _state_dict(state: MatchState) -> dict[str, Any]:
    return {
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "to_play": state.to_play,
        "hands": [_cards(hand) for hand in state.hands],
        "table": _cards(state.table),
        "piles": [_cards(pile) for pile in state.piles],
        "scope": list(state.scope),
        "scores": list(state.scores),
        "last_capturer": state.last_capturer,
        "history": [record.to_dict() for record in state.history],
        "last_hand": None if state.last_hand is None else state.last_hand.to_dict(),
        "abandoned": list(state.abandoned),
        "timeouts": list(state.timeouts),
        "stopped": state.stopped,
        "over": state.over,
    }


def load(text: str) -> tuple[int, Options, MatchState]:
    """Seed, options and state from :func:`dump` text; SnapshotError when it cannot be loaded."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise SnapshotError("bad-snapshot", f"not JSON: {error}") from error
    if not isinstance(data, dict) or data.get("game") != GAME:
        raise SnapshotError("bad-snapshot", "not a Scopone match")
    version = data.get("format")
    if type(version) is not int or version < 1:
        raise SnapshotError("bad-snapshot", f"bad format {version!r}")
    if version > FORMAT:
        raise SnapshotError(
            "snapshot-too-new", f"format {version} is newer than the supported format {FORMAT}"
        )
    try:
        return _load(data)
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, EngineError) as error:
        raise SnapshotError("bad-snapshot", f"malformed Scopone match: {error!r}") from error


def _load(data: dict[str, Any]) -> tuple[int, Options, MatchState]:
    seed = data["seed"]
    if type(seed) is not int:
        raise ValueError(f"bad seed {seed!r}")
    if data["players"] != PLAYERS:
        raise ValueError(f"a Scopone match has 4 players, not {data['players']!r}")
    options = Options.from_dict(data["options"])
    state = _load_state(data["state"], options.sides)
    _check(state, options.sides)
    return seed, options, state


def _load_state(raw: dict[str, Any], sides: int) -> MatchState:
    last_hand = raw["last_hand"]
    return MatchState(
        hand_number=_int(raw["hand_number"], "hand_number", 1),
        dealer=_seat(raw["dealer"]),
        to_play=None if raw["to_play"] is None else _seat(raw["to_play"]),
        hands=[sort_cards(to_cards(hand)) for hand in _list(raw["hands"], PLAYERS, "hands")],
        table=to_cards(raw["table"]),
        piles=[to_cards(pile) for pile in _list(raw["piles"], sides, "piles")],
        scope=[_int(n, "scope", 0) for n in _list(raw["scope"], sides, "scope")],
        scores=[_int(n, "scores", 0) for n in _list(raw["scores"], sides, "scores")],
        last_capturer=None if raw["last_capturer"] is None else _seat(raw["last_capturer"]),
        history=[_record(entry) for entry in raw["history"]],
        last_hand=None if last_hand is None else HandScore.from_dict(last_hand),
        abandoned=[_seat(seat) for seat in raw["abandoned"]],
        timeouts=[_int(n, "timeouts", 0) for n in _list(raw["timeouts"], PLAYERS, "timeouts")],
        stopped=_bool(raw["stopped"], "stopped"),
        over=_bool(raw["over"], "over"),
    )


def _check(state: MatchState, sides: int) -> None:
    """Consistency: 40 distinct cards, a seat to play exactly while running, sides that fit."""
    cards = state.cards_in_play()
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise ValueError(f"the hands, table and piles hold {len(cards)} cards, not the 40 cards")
    if state.over != (state.to_play is None) or (state.stopped and not state.over):
        raise ValueError("to_play, over and stopped disagree")
    if state.to_play is not None and not state.hands[state.to_play]:
        raise ValueError(f"seat {state.to_play} is to play with an empty hand")
    if len(set(state.abandoned)) != len(state.abandoned):
        raise ValueError("a seat abandoned twice")
    if state.last_hand is not None and len(state.last_hand.sides) != sides:
        raise ValueError("last_hand does not have one score per side")


def _record(entry: dict[str, Any]) -> PlayRecord:
    record = PlayRecord.from_dict(entry)
    _seat(record.seat)
    _bool(record.scopa, "scopa")
    _bool(record.auto, "auto")
    if not record.action.is_play:
        raise ValueError(f"history holds {record.action}, not a play")
    return record


def _int(value: Any, name: str, low: int) -> int:
    if type(value) is not int or value < low:
        raise ValueError(f"{name}: {value!r} is not a whole number >= {low}")
    return value


def _seat(value: Any) -> int:
    if type(value) is not int or not 0 <= value < PLAYERS:
        raise ValueError(f"{value!r} is not a seat")
    return value


def _bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{name}: {value!r} is not true or false")
    return value


def _list(value: Any, length: int, name: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"{name}: expected a list of {length}")
    return value
