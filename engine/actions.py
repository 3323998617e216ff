"""The action words every game accepts besides its own: what the bot plays for a seat.

A game's ``Match.play`` takes them as its own actions (the seat named, or the seat to play):

- :data:`STOP`: the host or an admin stops the match; it ends at once, counting for nobody
  (docs/rules.md S40-13.3, S40-14.4), with an :class:`~engine.outcome.Outcome` whose
  ``stopped`` is true;
- :data:`ABANDON`: the seat leaves the match for good (S40-14.1, S40-14.2, SC-6.2);
- :data:`TIMEOUT`: the turn timer of the seat to play ran out: the game applies its
  ``timeout_policy`` (S40-14.3, SC-6.1);
- :data:`END`: no person is left at the table: the match ends now (S40-14.5, SC-6.4).

``tests/test_games.py`` checks every registered game against them.
"""

from __future__ import annotations

from typing import Final

STOP: Final = "stop"
ABANDON: Final = "abandon"
TIMEOUT: Final = "timeout"
END: Final = "end"
CORE: Final = (STOP, ABANDON, TIMEOUT, END)
"""Every word a game must accept."""
