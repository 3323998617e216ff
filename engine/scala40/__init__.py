"""Scala 40 (docs/rules.md S40): the public API.

>>> from engine import scala40
>>> scala40.meld_value("10H JH QH")
30
>>> m = scala40.new_match(players=4, seed=7, options=scala40.Options(limit=101))
"""

from engine.scala40.actions import Action, parse_action
from engine.scala40.match import Match, new_match
from engine.scala40.melds import meld_value
from engine.scala40.options import Options
from engine.scala40.results import HandResult, MatchResult
from engine.scala40.scoring import hand_penalty, match_points
from engine.scala40.solver import Opening, best_opening
from engine.scala40.view import MeldView, View

__all__ = [
    "Action",
    "HandResult",
    "Match",
    "MatchResult",
    "MeldView",
    "Opening",
    "Options",
    "View",
    "best_opening",
    "hand_penalty",
    "match_points",
    "meld_value",
    "new_match",
    "parse_action",
]
