"""The options of a Scala 40 match: every RULES.md S40 Option, with its documented default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

ACE_PENALTIES = ("single_ace_is_1", "last_card_is_1", "always_11")
FORMATS = ("points", "hands", "race")
LIMITS = (101, 151, 201, 301, 501)
TIMEOUT_POLICIES = ("autoplay", "forfeit")
_TYPES: dict[str, type] = {"bool": bool, "int": int, "str": str}


@dataclass(frozen=True, slots=True)
class Options:
    """Match options (RULES.md S40). Invalid values raise ``ValueError`` naming the field.

    >>> Options(limit=151).limit
    151
    """

    pairs: bool = False  # S40-1.2
    jokers: bool = True  # S40-1.3
    manual_cut: bool = False  # S40-2.2
    free_discard_take: bool = False  # S40-3.1
    opening_points: int = 40  # S40-5.5
    opening_without_joker: bool = False  # S40-5.5
    close_in_hand_without_40: bool = False  # S40-5.6
    strict_discard: bool = False  # S40-8.3
    joker_close_doubles: bool = False  # S40-8.4
    max_restocks: int = 3  # S40-10.2
    ace_penalty: str = "single_ace_is_1"  # S40-11.2
    format: str = "points"  # S40-12
    limit: int = 101  # S40-12.1
    hands: int = 3  # S40-12.2
    match_minutes: int = 0  # S40-12.3
    rientro: bool = False  # S40-12.4
    open_hands_for_partners: bool = False  # S40-12.5
    turn_seconds: int = 120  # S40-14.3
    timeout_policy: str = "autoplay"  # S40-14.3

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            expected = _TYPES[str(field.type)]
            if type(value) is not expected:
                raise ValueError(
                    f"option {field.name}: expected {expected.__name__}, got {value!r}"
                )
        _choice("ace_penalty", self.ace_penalty, ACE_PENALTIES)
        _choice("format", self.format, FORMATS)
        _choice("limit", self.limit, LIMITS)
        _choice("timeout_policy", self.timeout_policy, TIMEOUT_POLICIES)
        _in_range("opening_points", self.opening_points, 1, 200)
        _in_range("max_restocks", self.max_restocks, 0, 20)
        _in_range("hands", self.hands, 1, 99)
        if self.hands % 2 == 0:
            raise ValueError(f"option hands: must be odd, got {self.hands}")
        _in_range("match_minutes", self.match_minutes, 0, 24 * 60)
        _in_range("turn_seconds", self.turn_seconds, 0, 24 * 3600)
        self._check_combinations()

    def _check_combinations(self) -> None:
        """Options that only make sense together (RULES.md S40-12.0, S40-12.4)."""
        if self.format == "race" and not self.pairs:
            raise ValueError("option format=race needs pairs=True")
        if self.open_hands_for_partners and not self.pairs:
            raise ValueError("option open_hands_for_partners needs pairs=True")
        if self.rientro and self.pairs:
            raise ValueError("option rientro cannot be combined with pairs")
        if self.rientro and self.format != "points":
            raise ValueError("option rientro needs format=points")
        if self.match_minutes and self.format != "race":
            raise ValueError("option match_minutes needs format=race")

    def check_players(self, players: int) -> None:
        """Validate the options against the number of players (RULES.md S40-1, S40-12.0)."""
        if not 2 <= players <= 6:
            raise ValueError(f"Scala 40 is for 2 to 6 players, not {players}")
        if self.pairs and players != 4:
            raise ValueError(f"option pairs needs exactly 4 players, not {players}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (JSON-friendly)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        """Options from a dict; unknown keys are an error."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(unknown)}")
        return cls(**data)


def _choice(name: str, value: object, allowed: tuple[object, ...]) -> None:
    if value not in allowed:
        choices = ", ".join(str(a) for a in allowed)
        raise ValueError(f"option {name}: {value!r} is not one of {choices}")


def _in_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"option {name}: {value} is not between {low} and {high}")
