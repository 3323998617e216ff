"""The options of a Scopone match: every docs/rules.md SC Option, with its documented default."""

from __future__ import annotations

from dataclasses import dataclass

from engine.options import OptionsBase, check_choice, check_range, check_types

DEALS = ("standard", "scientifico")
TARGETS = (11, 16, 21)
TIMEOUT_POLICIES = ("autoplay", "forfeit")

CHOICES: dict[str, tuple[object, ...]] = {
    "deal": DEALS,
    "target": TARGETS,
    "turn_seconds": (120, 60, 90, 180, 300, 0),
    "timeout_policy": TIMEOUT_POLICIES,
}
"""The values a lobby offers for each option that is not a flag, in turn, the default first."""


@dataclass(frozen=True, slots=True)
class Options(OptionsBase):
    """Match options (docs/rules.md SC). Invalid values raise ``ValueError`` naming the field.

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
    confirm_play: bool = False  # SC-3.7

    def __post_init__(self) -> None:
        check_types(self)
        check_choice("deal", self.deal, DEALS)
        check_choice("target", self.target, TARGETS)
        check_choice("timeout_policy", self.timeout_policy, TIMEOUT_POLICIES)
        check_range("turn_seconds", self.turn_seconds, 0, 24 * 3600)

    def idle(self) -> frozenset[str]:
        """The options that change nothing with these values: the timeout's without a turn
        timer (SC-6.1)."""
        return frozenset() if self.turn_seconds else frozenset({"timeout_policy"})

    @property
    def sides(self) -> int:
        """How many sides score: 2 pairs, or 4 players with ``individual`` (SC-1.1)."""
        return 4 if self.individual else 2
