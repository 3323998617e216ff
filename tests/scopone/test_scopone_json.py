"""Snapshots and replay: ``to_json``/``from_json`` and the match log (docs/rules.md "The match log",
S40-2.2: a stored match replays exactly from its seed and its actions)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.errors import SnapshotError
from engine.scopone import Match, Options, greedy_action, new_match


def snapshot(match: Match) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(match.to_json())
    return data


def broken(match: Match, change: Any) -> str:
    """The match's JSON after ``change(data)``."""
    data = snapshot(match)
    change(data)
    return json.dumps(data)


class TestRoundTrip:
    """The restored match is identical and plays on identically."""

    def test_header(self) -> None:
        data = snapshot(new_match(seed=5, options=Options(target=16)))
        assert (data["game"], data["format"], data["seed"], data["players"]) == (
            "scopone", 1, 5, 4,
        )  # fmt: skip
        assert data["options"]["target"] == 16

    @pytest.mark.parametrize("plays", [0, 1, 7, 36, 50])
    def test_round_trip(self, greedy: Any, plays: int) -> None:
        match = new_match(seed=9)
        match.play("abandon", seat=0)
        greedy(match, plays)
        text = match.to_json()
        restored = Match.from_json(text)
        assert restored.to_json() == text
        while not match.is_over:
            action = greedy_action(match)
            assert greedy_action(restored) == action
            match.play(action)
            restored.play(action)
            assert restored.to_json() == match.to_json()

    def test_round_trip_at_the_end(self, greedy: Any) -> None:
        match = new_match(seed=9, options=Options(individual=True))
        greedy(match)
        restored = Match.from_json(match.to_json())
        assert restored.to_json() == match.to_json()
        assert restored.result == match.result

    def test_big_secure_seed(self) -> None:
        match = new_match()
        assert Match.from_json(match.to_json()).seed == match.seed


class TestReplay:
    """The match log: replaying (seat, action text) from the seed gives the same JSON."""

    def test_replay(self) -> None:
        options = Options(deal="scientifico", target=16)
        match = new_match(seed=21, options=options)
        log: list[tuple[int | None, str]] = [(3, str(match.play("abandon", seat=3)))]
        while not match.is_over:
            seat = match.to_play
            if len(log) % 7 == 0:
                log.append((seat, str(match.play("timeout"))))
            else:
                log.append((seat, str(match.play(greedy_action(match), seat=seat))))
        replay = new_match(seed=21, options=options)
        for seat, text in log:
            replay.play(text, seat=seat)
        assert replay.to_json() == match.to_json()

    def test_replay_with_stop(self) -> None:
        match = new_match(seed=4)
        log = [(match.to_play, str(match.play(greedy_action(match)))) for _ in range(10)]
        log.append((2, str(match.play("stop", seat=2))))
        replay = new_match(seed=4)
        for seat, text in log:
            replay.play(text, seat=seat)
        assert replay.to_json() == match.to_json()


class TestBadSnapshots:
    """A malformed text or a newer format raises SnapshotError (a ValueError)."""

    @pytest.mark.parametrize(
        "text", ["", "not json", "[]", '{"game": "scala40", "format": 1}', '{"game": "scopone"}']
    )
    def test_not_a_match(self, text: str) -> None:
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(text)
        assert caught.value.code == "bad-snapshot"

    def test_newer_format(self) -> None:
        text = broken(new_match(seed=1), lambda d: d.update(format=2))
        with pytest.raises(SnapshotError, match="newer") as caught:
            Match.from_json(text)
        assert caught.value.code == "snapshot-too-new"

    @pytest.mark.parametrize(
        "change",
        [
            lambda d: d.pop("seed"),
            lambda d: d.update(seed="12"),
            lambda d: d.update(players=3),
            lambda d: d["options"].update(target=12),
            lambda d: d["options"].update(colour="red"),
            lambda d: d["state"].pop("table"),
            lambda d: d["state"]["table"].pop(),
            lambda d: d["state"]["table"].append("AS"),
            lambda d: d["state"]["table"].append("8S"),
            lambda d: d["state"].update(to_play=4),
            lambda d: d["state"].update(to_play=None),
            lambda d: d["state"].update(dealer="1"),
            lambda d: d["state"].update(scope=[0]),
            lambda d: d["state"].update(stopped=1),
            lambda d: d["state"].update(abandoned=[1, 1]),
            lambda d: d["state"].update(history=[{"seat": 0, "action": "stop"}]),
            lambda d: d["state"].update(history=[{"seat": 0, "action": "fly"}]),
        ],
    )
    def test_malformed(self, change: Any) -> None:
        text = broken(new_match(seed=1), change)
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(text)
        assert caught.value.code == "bad-snapshot"
        assert isinstance(caught.value, ValueError)
