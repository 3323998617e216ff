"""Tournaments (docs/rules.md T-1 to T-4): pairings and standings, pure and deterministic.

Entrants are ints (a person, or a pair entered as one); a list of them in seeding order
(index 0 the top seed) and the :class:`Result` values recorded so far are all the state:

- :func:`round_robin` schedules a girone all'italiana (Berger tables at tables of 2,
  balanced groups at tables of 3 or 4), :func:`without_withdrawn` adjusts a scheduled round;
- :func:`bracket`, :func:`bracket_round` and :func:`advance` run a knock-out;
- :func:`danish_round` pairs the next round of the Danish system;
- :func:`standings` orders the board: VP, then MP, then the result among the tied, then seed;
- :func:`next_round` says what a tournament plays next (its :class:`Frame`), :func:`winner` who won.
"""

from engine.tournament.danish import danish_round, rematches
from engine.tournament.knockout import (
    advance,
    bracket,
    bracket_round,
    champion,
    rounds_to_play,
    seeding_order,
)
from engine.tournament.pairing import (
    Round,
    Table,
    berger_rounds,
    group_rounds,
    round_robin,
    table_sizes,
    without_withdrawn,
)
from engine.tournament.schedule import (
    FORMATS,
    Frame,
    next_round,
    pair_strength,
    seeding,
    winner,
)
from engine.tournament.standings import MP_BYE, VP_BYE, Result, Standing, standings

__all__ = [
    "FORMATS",
    "MP_BYE",
    "VP_BYE",
    "Frame",
    "Result",
    "Round",
    "Standing",
    "Table",
    "advance",
    "berger_rounds",
    "bracket",
    "bracket_round",
    "champion",
    "danish_round",
    "group_rounds",
    "next_round",
    "pair_strength",
    "rematches",
    "round_robin",
    "rounds_to_play",
    "seeding",
    "seeding_order",
    "standings",
    "table_sizes",
    "winner",
    "without_withdrawn",
]
