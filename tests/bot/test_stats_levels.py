"""/stats shows each rated category's level and number (docs/rules.md R-5, R-6), and
``/classifica livelli`` ranks a group's people by it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.rankings import levels_text, stats_text
from storage import FINISHED, PlayerResult, RatedPerson, RatingRecord, Store

WHEN = datetime(2026, 12, 4, tzinfo=UTC)


def test_levels_in_both_languages_in_category_order() -> None:
    ratings = [
        RatingRecord("scopone-pairs", 41.0, 2.0, 30, WHEN),  # 1000 + 40 x 35 = 2400
        RatingRecord("scala40", 25.0, 25 / 3, 1, WHEN),  # a newcomer: 1000
        RatingRecord("scala40-pairs", 31.0, 1.0, 12, WHEN),  # 1000 + 40 x 28 = 2120
    ]
    assert stats_text([], ratings, "it").splitlines() == [
        "📊 <b>Le tue statistiche</b>",
        "Livello di Scala 40: principiante (1.000)",
        "Livello di Scala 40 a coppie: maestro (2.120)",
        "Livello di Scopone: asso (2.400)",
    ]
    assert stats_text([], ratings[:1], "en").splitlines()[1:] == ["Scopone level: ace (2,400)"]
    assert stats_text([], [], "en") == "You have not finished a match yet."


def test_a_player_as_strong_as_the_esperto_computer_reads_esperto() -> None:
    """The middle level bears the computer level's own word (R-6): a rating where the
    ``esperto`` computer's fixed one falls reads so, in both languages."""
    ratings = [RatingRecord("scala40", 26.3, 1.5, 40, WHEN)]  # 1000 + 40 x 21.8 = 1872
    assert stats_text([], ratings, "it").splitlines()[1:] == [
        "Livello di Scala 40: esperto (1.872)"
    ]
    assert stats_text([], ratings, "en").splitlines()[1:] == ["Scala 40 level: expert (1,872)"]


def test_a_groups_levels_by_category_equal_numbers_sharing_a_place() -> None:
    def person(user: int, name: str, category: str, mu: float) -> RatedPerson:
        return RatedPerson(user, name, RatingRecord(category, mu, 2.0, 10, WHEN))

    rated = [
        person(1, "Anna", "scala40", 30.0),  # 1960
        person(2, "Bea", "scala40", 35.0),  # 2160
        person(3, "Ciro", "scala40", 30.0),  # 1960
        person(1, "Anna", "scopone-pairs", 20.0),  # 1560
    ]
    assert levels_text(rated, "it").split("\n") == [
        "🎖 <b>Livelli di Scala 40</b>",
        "1. Bea · maestro (2.160)",
        "2. Anna · esperto (1.960)",
        "2. Ciro · esperto (1.960)",
        "",
        "🎖 <b>Livelli di Scopone</b>",
        "1. Anna · dilettante (1.560)",
    ]
    assert levels_text(rated[3:], "en").split("\n") == [
        "🎖 <b>Levels · Scopone</b>",
        "1. Anna · amateur (1,560)",
    ]
    assert levels_text([], "it") == (
        "Nessuno qui ha ancora un livello: si ottiene concludendo una partita."
    )


def test_the_groups_levels_are_its_players_ratings(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'l.db'}") as store:
        for chat, (first, second) in ((-1, (11, 12)), (-2, (11, 13))):
            record = store.create_match(chat, "scala40", {}, first, f"P{first}", seed=1)
            record = store.add_seat(record.id, second, f"P{second}")
            record = store.add_seat(record.id, None, "CPU", "facile")
            version = store.start_match(record.id, "{}", record.version)
            rows = [
                PlayerResult(0, first, f"P{first}", False, 40, 20, True, 1),
                PlayerResult(1, second, f"P{second}", False, -10, 0, False, 0),
                PlayerResult(2, None, "CPU", True, -30, 0, False, 0),
            ]
            store.commit_move(record.id, version, 0, "x", "{}", status=FINISHED, results=rows)
        for user in (11, 12, 13):
            store.upsert_user(user, f"P{user}")
        rated = store.group_ratings(-1)
        assert [(p.user_id, p.rating.category, p.rating.matches) for p in rated] == [
            (11, "scala40", 2),  # both groups' matches moved the one rating
            (12, "scala40", 1),
        ]
        assert [p.user_id for p in store.group_ratings(-2)] == [11, 13]
        assert store.group_ratings(-3) == []
