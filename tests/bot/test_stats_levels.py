"""/stats shows each rated category's level and number (docs/rules.md R-5, R-6)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.rankings import stats_text
from storage import RatingRecord

WHEN = datetime(2026, 12, 4, tzinfo=UTC)


def test_levels_in_both_languages_in_category_order() -> None:
    ratings = [
        RatingRecord("scopone-pairs", 40.0, 2.0, 30, WHEN),  # 1000 + 40 x 34 = 2360
        RatingRecord("scala40", 25.0, 25 / 3, 1, WHEN),  # a newcomer: 1000
        RatingRecord("scala40-pairs", 30.0, 1.0, 12, WHEN),  # 1000 + 40 x 27 = 2080
    ]
    assert stats_text([], ratings, "it").splitlines() == [
        "📊 <b>Le tue statistiche</b>",
        "Livello Scala 40: principiante (1.000)",
        "Livello Scala 40 a coppie: maestro (2.080)",
        "Livello Scopone: asso (2.360)",
    ]
    assert stats_text([], ratings[:1], "en").splitlines()[1:] == ["Scopone level: ace (2,360)"]
    assert stats_text([], [], "en") == "You have not finished a match yet."


def test_a_player_as_strong_as_the_esperto_computer_reads_esperto() -> None:
    """The middle level bears the computer level's own word (R-6): a rating where the
    ``esperto`` computer's fixed one falls reads so, in both languages."""
    ratings = [RatingRecord("scala40", 30.0, 2.0, 40, WHEN)]  # 1000 + 40 x 24 = 1960
    assert stats_text([], ratings, "it").splitlines()[1:] == ["Livello Scala 40: esperto (1.960)"]
    assert stats_text([], ratings, "en").splitlines()[1:] == ["Scala 40 level: expert (1,960)"]
