"""Tavolo's rules engines: pure, deterministic, seedable; no I/O and no clock.

``from engine import scala40`` and ``from engine import scopone`` are the two games; both raise
:class:`InvalidMeld` / :class:`IllegalAction` (subclasses of :class:`EngineError`).
"""

from engine.errors import EngineError, IllegalAction, InvalidMeld, SnapshotError

__all__ = ["EngineError", "IllegalAction", "InvalidMeld", "SnapshotError"]
