"""SC-6.4: a match ended as it stands with the sides level is a draw (VP 10 each)."""

from __future__ import annotations

from engine import scopone
from engine.actions import END


def test_an_end_with_the_sides_level_is_a_draw() -> None:
    match = scopone.new_match(seed=3)
    match.play(END)
    result = match.result
    assert result is not None and not result.stopped
    assert result.winners == (0, 1)
    assert result.vp == (10, 10, 10, 10)
    assert result.mp == (0, 0, 0, 0)
