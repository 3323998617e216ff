"""Seasons (docs/rules.md SE-1 to SE-3): a month in Italy's time, the month's standings, and a
month that is over claimed and announced once."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import engine.seasons
import storage.base
import storage.matches
from bot.seasons import Seasons, month_name
from engine.seasons import season_bounds, season_of
from storage import FINISHED, PlayerResult, Season, Store

CHAT, OTHER = -300, -301
ANNA, BEA = 31, 32
LEASE = timedelta(minutes=10)


def test_the_examples() -> None:
    failures, tried = doctest.testmod(engine.seasons)
    assert tried > 0 and failures == 0


def test_a_month_is_italys_month() -> None:
    assert season_of(datetime(2026, 11, 30, 22, 59, tzinfo=UTC)) == "2026-11"
    assert season_of(datetime(2026, 11, 30, 23, 0, tzinfo=UTC)) == "2026-12"
    # Summer time: Rome is two hours ahead in July.
    assert season_of(datetime(2026, 7, 31, 21, 59, tzinfo=UTC)) == "2026-07"
    assert season_of(datetime(2026, 7, 31, 22, 0, tzinfo=UTC)) == "2026-08"
    assert season_bounds("2026-03") == (
        datetime(2026, 2, 28, 23, 0, tzinfo=UTC),
        datetime(2026, 3, 31, 22, 0, tzinfo=UTC),  # summer time began on the 29th
    )
    assert season_bounds("2026-12")[1] == datetime(2026, 12, 31, 23, 0, tzinfo=UTC)


def test_what_is_not_a_season_is_refused() -> None:
    with pytest.raises(ValueError, match="YYYY-MM"):
        season_bounds("2026-13")
    with pytest.raises(ValueError, match="timezone-aware"):
        season_of(datetime(2026, 11, 1))


def test_a_month_as_players_say_it() -> None:
    assert month_name("2026-11", "it") == "novembre 2026"
    assert month_name("2026-11", "en") == "November 2026"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 's.db'}", exclusive=True)
    try:
        yield opened
    finally:
        opened.close()


def finish_at(
    store: Store, monkeypatch: pytest.MonkeyPatch, chat_id: int, when: datetime, anna_wins: bool
) -> None:
    """A finished two-player Scala 40 match of Anna and Bea in ``chat_id``, ending ``when``."""
    for module in (storage.base, storage.matches):
        monkeypatch.setattr(module, "_now", lambda: when)
    record = store.create_match(chat_id, "scala40", {}, ANNA, "Anna", seed=1)
    record = store.add_seat(record.id, BEA, "Bea")
    version = store.start_match(record.id, "{}", record.version)
    mp = 30 if anna_wins else -30
    rows = [
        PlayerResult(0, ANNA, "Anna", False, mp, 20 if anna_wins else 0, anna_wins, 1),
        PlayerResult(1, BEA, "Bea", False, -mp, 0 if anna_wins else 20, not anna_wins, 0),
    ]
    store.commit_move(record.id, version, 0, "abandon", "{}", status=FINISHED, results=rows)


def test_the_months_standings_count_the_months_matches(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish_at(store, monkeypatch, CHAT, datetime(2026, 10, 31, 22, 30, tzinfo=UTC), True)
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 30, 12, 0, tzinfo=UTC), False)
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 30, 23, 30, tzinfo=UTC), True)
    # 22:30 UTC on 31 October is 23:30 in Rome: October's. 23:30 UTC on 30 November is
    # December's.
    october = store.leaderboard(CHAT, "scala40", "2026-10")
    november = store.leaderboard(CHAT, "scala40", "2026-11")
    december = store.leaderboard(CHAT, "scala40", "2026-12")
    assert [(e.name, e.mp, e.matches) for e in october] == [("Anna", 30, 1), ("Bea", -30, 1)]
    assert [(e.name, e.mp, e.matches) for e in november] == [("Bea", 30, 1), ("Anna", -30, 1)]
    assert [(e.name, e.mp) for e in december] == [("Anna", 30), ("Bea", -30)]
    assert [(e.name, e.matches) for e in store.leaderboard(CHAT, "scala40")] == [
        ("Anna", 3),
        ("Bea", 3),
    ]
    assert store.seasons(CHAT) == [("2026-10", None), ("2026-11", None), ("2026-12", None)]
    assert store.seasons(OTHER) == []


def test_a_month_over_is_claimed_by_one_and_announced_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 10, 20, 0, tzinfo=UTC), True)
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 12, 20, 0, tzinfo=UTC), True)
    end = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)
    assert store.claim_due_seasons("a", end - timedelta(seconds=1), LEASE) == []
    november = Season(CHAT, "2026-11")
    assert store.claim_due_seasons("a", end, LEASE) == [november]
    assert store.claim_due_seasons("b", end + LEASE / 2, LEASE) == []  # a holds it
    store.release_season(november)  # a failed: given back
    assert store.claim_due_seasons("b", end + LEASE / 2, LEASE) == [november]
    assert store.claim_due_seasons("a", end + LEASE * 2, LEASE) == [november]  # b died
    assert store.take_season(november) is True
    assert store.take_season(november) is False  # the other sends nothing
    assert store.claim_due_seasons("b", end + LEASE * 4, LEASE) == []
    assert store.seasons(CHAT)[0][1] is not None


def test_a_supergroup_keeps_its_months(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 10, 20, 0, tzinfo=UTC), True)
    finish_at(store, monkeypatch, OTHER, datetime(2026, 11, 11, 20, 0, tzinfo=UTC), True)
    finish_at(store, monkeypatch, CHAT, datetime(2026, 12, 1, 20, 0, tzinfo=UTC), True)
    store.migrate_chat(CHAT, OTHER)
    assert store.seasons(CHAT) == []
    assert store.seasons(OTHER) == [("2026-11", None), ("2026-12", None)]
    assert [e.matches for e in store.leaderboard(OTHER, "scala40", "2026-11")] == [2, 2]


async def test_the_months_texts_in_english(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    finish_at(store, monkeypatch, CHAT, datetime(2026, 11, 10, 20, 0, tzinfo=UTC), True)
    monkeypatch.undo()
    december = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    seasons = Seasons(store, None, None, lambda: december)  # type: ignore[arg-type]
    table = (
        "🏆 <b>Scala 40 rankings · November 2026</b>\n"
        "1. Anna · MP 30 · VP 20 · matches 1, won 1\n"
        "2. Bea · MP -30 · VP 0 · matches 1, won 0\n"
        "MP: match points · VP: victory points (20 for a win, 10 for a draw)"
    )
    assert seasons.final_text(Season(CHAT, "2026-11"), "en") == (
        "🗓 <b>November 2026 is over!</b> Here are the month's final standings.\n"
        "🥇 Scala 40 champion of the month: Anna\n\n" + table
    )
    assert await seasons.standings_text(CHAT, ["scala40"], "en", previous=True) == table
    assert await seasons.standings_text(CHAT, ["scala40"], "en") == (
        "No Scala 40 match has finished here in December 2026."
    )
    assert seasons.final_text(Season(CHAT, "2026-12"), "en") is None
