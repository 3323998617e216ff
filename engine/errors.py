"""Errors raised by the rules engines.

Every error carries a short English ``code`` (stable, for translation catalogs and tests)
and a human ``message``; ``str(error)`` is ``"code: message"``.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of the engine's errors: a stable ``code`` plus a readable ``message``."""

    def __init__(self, code: str, message: str = "", **details: object) -> None:
        self.code = code
        self.message = message or code
        self.details = details
        """Figures behind the message (e.g. ``points`` and ``needed``) for translations."""
        super().__init__(f"{code}: {self.message}" if message else code)

    @property
    def reason(self) -> str:
        """The whole reason text, ``code: message`` (what ``str()`` gives)."""
        return str(self)


class InvalidMeld(EngineError):
    """The cards do not form a valid meld (docs/rules.md S40-4)."""


class IllegalAction(EngineError):
    """The action is not legal now; the match state is left unchanged."""


class SnapshotError(EngineError, ValueError):
    """A saved match (``to_json`` text) cannot be loaded: malformed, or from a newer format."""
