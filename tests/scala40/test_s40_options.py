"""Match options: every docs/rules.md S40 Option with its documented default, bad values, and the
combinations of S40-12.0 / S40-12.4."""

from __future__ import annotations

from typing import Any

import pytest

from engine.scala40 import Options, new_match

DEFAULTS = {
    "pairs": False,  # S40-1.2
    "jokers": True,  # S40-1.3
    "manual_cut": False,  # S40-2.2
    "free_discard_take": False,  # S40-3.1
    "opening_points": 40,  # S40-5.5
    "opening_without_joker": False,  # S40-5.5
    "close_in_hand_without_40": False,  # S40-5.6
    "strict_discard": False,  # S40-8.3
    "joker_close_doubles": False,  # S40-8.4
    "max_restocks": 3,  # S40-10.2
    "ace_penalty": "single_ace_is_1",  # S40-11.2
    "format": "points",  # S40-12
    "limit": 101,  # S40-12.1
    "hands": 3,  # S40-12.2
    "match_minutes": 0,  # S40-12.3
    "rientro": False,  # S40-12.4
    "open_hands_for_partners": False,  # S40-12.5
    "turn_seconds": 120,  # S40-14.3
    "timeout_policy": "autoplay",  # S40-14.3
}


class TestDefaults:
    """Every Option's default is the one docs/rules.md gives."""

    def test_defaults(self) -> None:
        """S40-1 .. S40-14: the documented defaults, and no undocumented option."""
        assert Options().to_dict() == DEFAULTS

    @pytest.mark.parametrize(("name", "value"), sorted(DEFAULTS.items()))
    def test_each_default(self, name: str, value: object) -> None:
        """Each Option's default, one by one."""
        assert getattr(Options(), name) == value

    def test_new_match_default_options(self) -> None:
        """``new_match`` without options uses the defaults."""
        assert new_match(players=2, seed=1).options == Options()

    def test_round_trip(self) -> None:
        """Options survive ``to_dict`` / ``from_dict``."""
        options = Options(limit=201, ace_penalty="always_11", strict_discard=True)
        assert Options.from_dict(options.to_dict()) == options


class TestAllowedValues:
    """The choices docs/rules.md lists."""

    @pytest.mark.parametrize("limit", [101, 151, 201, 301, 501])
    def test_limits(self, limit: int) -> None:
        """S40-12.1: 101, 151, 201, 301, 501."""
        assert Options(limit=limit).limit == limit

    @pytest.mark.parametrize("choice", ["single_ace_is_1", "last_card_is_1", "always_11"])
    def test_ace_penalty(self, choice: str) -> None:
        """S40-11.2: the three ace options."""
        assert Options(ace_penalty=choice).ace_penalty == choice

    @pytest.mark.parametrize("policy", ["autoplay", "forfeit"])
    def test_timeout_policy(self, policy: str) -> None:
        """S40-14.3: autoplay or forfeit."""
        assert Options(timeout_policy=policy).timeout_policy == policy

    def test_formats(self) -> None:
        """S40-12: points, hands, race (race with pairs)."""
        assert Options(format="hands", hands=5).hands == 5
        assert Options(format="race", pairs=True, match_minutes=30).match_minutes == 30

    def test_no_timer(self) -> None:
        """S40-14.3: ``turn_seconds`` 0 = no timer."""
        assert Options(turn_seconds=0).turn_seconds == 0


class TestBadValues:
    """Invalid values raise ``ValueError`` naming the field."""

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("limit", 100),
            ("limit", 0),
            ("ace_penalty", "sometimes"),
            ("format", "sprint"),
            ("timeout_policy", "ignore"),
            ("opening_points", 0),
            ("opening_points", -40),
            ("max_restocks", -1),
            ("hands", 2),
            ("hands", 0),
            ("match_minutes", -1),
            ("turn_seconds", -5),
            ("pairs", "yes"),
            ("jokers", 1),
            ("limit", "101"),
            ("opening_points", 40.0),
            ("manual_cut", None),
        ],
    )
    def test_bad_value(self, field: str, value: Any) -> None:
        """Each bad value is refused with the field's name in the message."""
        with pytest.raises(ValueError, match=field):
            Options(**{field: value})

    def test_unknown_option(self) -> None:
        """``from_dict`` refuses unknown names."""
        with pytest.raises(ValueError, match="colour"):
            Options.from_dict({"colour": "red"})

    @pytest.mark.parametrize("players", [0, 1, 7, 8])
    def test_players(self, players: int) -> None:
        """S40-1.1: 2 to 6 players."""
        with pytest.raises(ValueError, match="2 to 6"):
            new_match(players=players, seed=1)


class TestCombinations:
    """S40-12.0: ``pairs`` needs 4 players; ``race`` and ``open_hands_for_partners`` need
    ``pairs``; S40-12.4: ``rientro`` not with ``pairs``."""

    @pytest.mark.parametrize("players", [2, 3, 5, 6])
    def test_pairs_needs_four(self, players: int) -> None:
        """S40-1.2, S40-12.0: pairs needs exactly 4 players."""
        with pytest.raises(ValueError, match="pairs"):
            new_match(players=players, seed=1, options=Options(pairs=True))

    def test_pairs_with_four(self) -> None:
        """S40-1.2: seats 0+2 against 1+3."""
        m = new_match(players=4, seed=1, options=Options(pairs=True))
        assert [m.side_of(s) for s in range(4)] == [0, 1, 0, 1]
        assert m.totals == [0, 0]

    def test_race_needs_pairs(self) -> None:
        """S40-12.3, S40-12.0: race is for pairs only."""
        with pytest.raises(ValueError, match="race"):
            Options(format="race")

    def test_open_hands_needs_pairs(self) -> None:
        """S40-12.5, S40-12.0."""
        with pytest.raises(ValueError, match="open_hands_for_partners"):
            Options(open_hands_for_partners=True)
        assert Options(open_hands_for_partners=True, pairs=True).open_hands_for_partners

    def test_rientro_not_with_pairs(self) -> None:
        """S40-12.4: not with ``pairs``."""
        with pytest.raises(ValueError, match="rientro"):
            Options(rientro=True, pairs=True)
        assert Options(rientro=True).rientro

    def test_match_minutes_needs_race(self) -> None:
        """S40-12.3: the clock belongs to the race format."""
        with pytest.raises(ValueError, match="match_minutes"):
            Options(match_minutes=30)

    def test_rientro_needs_points(self) -> None:
        """S40-12.4: re-entering follows an elimination, which only the points format has."""
        with pytest.raises(ValueError, match="rientro"):
            Options(rientro=True, format="hands")
