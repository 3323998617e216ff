"""The options of a Scopone match: every RULES.md SC Option, with its documented default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

DEALS = ("standard", "scientifico")
TARGETS = (11, 16, 21)
TIMEOUT_POLICIES = ("autoplay", "forfeit")


@dataclass(frozen=True, slots=True)
class Options:
    """Match options (RULES.md SC). Invalid values raise ``ValueError`` naming the field.

    >>> Options(target=21).target
    21
    """

    individual: bool = False  # SC-1.1
    deal: str = "standard"  # SC-2.3
    last_play_scopa: bool = False  # SC-3.5
    primiera_all_suits: bool = False  # SC-4.3
    target: int = 11  # SC-5.1
    turn_seconds: int = 120  # SC-6.1, S40-14.3
    timeout_policy: str = "autoplay"  # SC-6.1, S40-14.3

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            expected = (
                bool if field.type in ("bool", bool) else int if field.type in ("int", int) else str
            )
            if type(value) is not expected:
                raise ValueError(
                    f"option {field.name}: expected {expected.__name__}, got {value!r}"
                )
        _choice("deal", self.deal, DEALS)
        _choice("target", self.target, TARGETS)
        _choice("timeout_policy", self.timeout_policy, TIMEOUT_POLICIES)
        if not 0 <= self.turn_seconds <= 24 * 3600:
            raise ValueError(
                f"option turn_seconds: {self.turn_seconds} is not between 0 and {24 * 3600}"
            )

    @property
    def sides(self) -> int:
        """How many sides score: 2 pairs, or 4 players with ``individual`` (SC-1.1)."""
        return 4 if self.individual else 2

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (JSON-friendly)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        """Options from a dict; unknown keys are an error (``ValueError``)."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(unknown)}")
        return cls(**data)


def _choice(name: str, value: object, allowed: tuple[object, ...]) -> None:
    if value not in allowed:
        choices = ", ".join(str(a) for a in allowed)
        raise ValueError(f"option {name}: {value!r} is not one of {choices}")
