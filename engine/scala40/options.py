"""The options of a Scala 40 match: every docs/rules.md S40 Option, with its documented default."""

from __future__ import annotations

from dataclasses import dataclass

from engine.options import OptionsBase, check_choice, check_range, check_types

ACE_PENALTIES = ("single_ace_is_1", "last_card_is_1", "always_11")
FORMATS = ("points", "hands", "race")
LIMITS = (101, 151, 201, 301, 501)
TIMEOUT_POLICIES = ("autoplay", "forfeit")

CHOICES: dict[str, tuple[object, ...]] = {
    "opening_points": (40, 50, 60, 30),
    "max_restocks": (3, 4, 5, 0, 1, 2),
    "ace_penalty": ACE_PENALTIES,
    "format": FORMATS,
    "limit": LIMITS,
    "hands": (3, 5, 7, 1),
    "match_minutes": (0, 15, 30, 45, 60),
    "turn_seconds": (120, 60, 90, 180, 300, 0),
    "timeout_policy": TIMEOUT_POLICIES,
}
"""The values a lobby offers for each option that is not a flag, in turn, the default first."""


@dataclass(frozen=True, slots=True)
class Options(OptionsBase):
    """Match options (docs/rules.md S40). Invalid values raise ``ValueError`` naming the field.

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
        check_types(self)
        check_choice("ace_penalty", self.ace_penalty, ACE_PENALTIES)
        check_choice("format", self.format, FORMATS)
        check_choice("limit", self.limit, LIMITS)
        check_choice("timeout_policy", self.timeout_policy, TIMEOUT_POLICIES)
        check_range("opening_points", self.opening_points, 1, 200)
        check_range("max_restocks", self.max_restocks, 0, 20)
        check_range("hands", self.hands, 1, 99)
        if self.hands % 2 == 0:
            raise ValueError(f"option hands: must be odd, got {self.hands}")
        check_range("match_minutes", self.match_minutes, 0, 24 * 60)
        check_range("turn_seconds", self.turn_seconds, 0, 24 * 3600)
        self._check_combinations()

    def _check_combinations(self) -> None:
        """Options that only make sense together (docs/rules.md S40-12.0, S40-12.4)."""
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

    def idle(self) -> frozenset[str]:
        """The options that change nothing with these values: another format's settings
        (S40-12), the pairs' without pairs (S40-12.5), the jokers' without jokers (S40-5.5,
        S40-8.4), the timeout's without a turn timer (S40-14.3).

        >>> sorted(Options().idle())
        ['hands', 'match_minutes', 'open_hands_for_partners']
        """
        idle = {"limit", "hands", "match_minutes", "rientro"}
        idle -= {"points": {"limit", "rientro"}, "hands": {"hands"}, "race": {"match_minutes"}}[
            self.format
        ]
        if self.pairs:
            idle.add("rientro")
        else:
            idle.add("open_hands_for_partners")
        if not self.jokers:
            idle |= {"opening_without_joker", "joker_close_doubles"}
        if not self.turn_seconds:
            idle.add("timeout_policy")
        return frozenset(idle)

    def check_players(self, players: int) -> None:
        """Validate the options against the number of players (docs/rules.md S40-1, S40-12.0)."""
        if not 2 <= players <= 6:
            raise ValueError(f"Scala 40 is for 2 to 6 players, not {players}")
        if self.pairs and players != 4:
            raise ValueError(f"option pairs needs exactly 4 players, not {players}")
