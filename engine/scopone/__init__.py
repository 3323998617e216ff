"""Scopone (docs/rules.md SC): the rules engine. Pure, deterministic, seedable; no I/O and no clock.

>>> from engine import scopone
>>> scopone.capture_options("AH 3H 4S 5D JC", "QH")
[['AH', 'JC'], ['4S', '5D']]
>>> scopone.primiera("7H 7C 7D 6S")
81
>>> m = scopone.new_match(seed=3, options=scopone.Options(target=11))
>>> m.to_play, [str(action) for action in m.legal_actions()][:2]
(1, ['play AS take AD', 'play AH take AD'])
>>> str(m.play("play qh take js ad"))
'play QH take AD JS'
>>> scopone.Match.from_json(m.to_json()).to_json() == m.to_json()
True

The same shape as :mod:`engine.scala40`: ``Options``, ``Action``/``parse_action``, ``Match`` with
``to_play``, ``legal_actions()``, ``play(action, seat=None)``, ``view(seat)``, ``result``,
``to_json()``/``Match.from_json()``, and ``new_match(players, seed, options)``.
"""

from engine.scopone.actions import Action, parse_action
from engine.scopone.captures import capture_options
from engine.scopone.deck import capture_value, primiera_value
from engine.scopone.greedy import greedy_action
from engine.scopone.match import Match, new_match
from engine.scopone.options import Options
from engine.scopone.result import MatchResult
from engine.scopone.scoring import CATEGORIES, HandScore, SideScore, primiera, score_hand
from engine.scopone.state import PlayRecord
from engine.scopone.view import View

__all__ = [
    "CATEGORIES",
    "Action",
    "HandScore",
    "Match",
    "MatchResult",
    "Options",
    "PlayRecord",
    "SideScore",
    "View",
    "capture_options",
    "capture_value",
    "greedy_action",
    "new_match",
    "parse_action",
    "primiera",
    "primiera_value",
    "score_hand",
]
