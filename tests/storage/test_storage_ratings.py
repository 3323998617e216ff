"""Skill ratings in the store (docs/rules.md R-1 to R-4): moved with a finished match's
results, in its transaction, once; never by a stopped match; erased with the person."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.ratings import NEW_RATING, SCOPONE_PAIRS, RatedSeat, Rating, computer_rating, rate
from storage import FINISHED, STOPPED, PlayerResult, RatingRecord, Store

ANNA, BEA = 1, 2


def scopone_with_computers(store: Store, chat_id: int = -10) -> tuple[int, int]:
    """A Scopone match: Anna and Bea in pairs against two ``esperto`` computers, started."""
    record = store.create_match(chat_id, "scopone", {}, ANNA, "Anna", seed=1)
    record = store.add_seat(record.id, None, "CPU 1", "esperto")
    record = store.add_seat(record.id, BEA, "Bea")
    record = store.add_seat(record.id, None, "CPU 3", "esperto")
    return record.id, store.start_match(record.id, "{}", record.version)


def results(anna_won: bool) -> list[PlayerResult]:
    """Each seat's result: the people's pair won or lost by 6 MP."""
    mp = 6 if anna_won else -6
    return [
        PlayerResult(0, ANNA, "Anna", False, mp, 20 if anna_won else 0, anna_won, 3),
        PlayerResult(1, None, "CPU 1", True, -mp, 0 if anna_won else 20, not anna_won, 2),
        PlayerResult(2, BEA, "Bea", False, mp, 20 if anna_won else 0, anna_won, 3),
        PlayerResult(3, None, "CPU 3", True, -mp, 0 if anna_won else 20, not anna_won, 2),
    ]


def expected_win() -> dict[int, Rating]:
    """What engine.ratings (openskill) gives two newcomers who beat two esperto computers."""
    esperto = computer_rating(SCOPONE_PAIRS, "esperto")
    return rate(
        [
            RatedSeat(0, 0, NEW_RATING, ANNA, won=True, mp=6),
            RatedSeat(1, 1, esperto, None, won=False, mp=-6),
            RatedSeat(2, 0, NEW_RATING, BEA, won=True, mp=6),
            RatedSeat(3, 1, esperto, None, won=False, mp=-6),
        ]
    )


def only(records: list[RatingRecord]) -> tuple[str, float, float, int]:
    """The one rating of a person, without its time."""
    (record,) = records
    assert record.updated_at.tzinfo is not None
    return record.category, record.mu, record.sigma, record.matches


class TestRatings:
    def test_the_last_move_stores_results_and_ratings_together(self, store: Store) -> None:
        match_id, version = scopone_with_computers(store)
        assert store.user_ratings(ANNA) == []
        store.commit_move(
            match_id, version, 0, "card 7D", "{}", status=FINISHED, results=results(True)
        )
        after = expected_win()
        assert only(store.user_ratings(ANNA)) == (
            SCOPONE_PAIRS,
            after[ANNA].mu,
            after[ANNA].sigma,
            1,
        )
        assert only(store.user_ratings(BEA)) == (SCOPONE_PAIRS, after[BEA].mu, after[BEA].sigma, 1)
        assert [e.user_id for e in store.leaderboard(-10, "scopone") if not e.computer] == [1, 2]
        # Results are stored once, and so the ratings move once.
        assert store.record_results(match_id, results(False)) is False
        assert only(store.user_ratings(ANNA))[1:] == (after[ANNA].mu, after[ANNA].sigma, 1)

    def test_a_second_match_starts_from_the_first(self, store: Store) -> None:
        first, version = scopone_with_computers(store)
        store.commit_move(first, version, 0, "end", "{}", status=FINISHED, results=results(True))
        won = store.user_ratings(ANNA)[0]
        second, version = scopone_with_computers(store)
        store.set_status(second, FINISHED)
        assert store.record_results(second, results(False)) is True
        esperto = computer_rating(SCOPONE_PAIRS, "esperto")
        before = Rating(won.mu, won.sigma)
        lost = rate(
            [
                RatedSeat(0, 0, before, ANNA, won=False, mp=-6),
                RatedSeat(1, 1, esperto, None, won=True, mp=6),
                RatedSeat(2, 0, before, BEA, won=False, mp=-6),
                RatedSeat(3, 1, esperto, None, won=True, mp=6),
            ]
        )
        assert only(store.user_ratings(ANNA))[1:] == (lost[ANNA].mu, lost[ANNA].sigma, 2)

    def test_a_refused_last_move_moves_nothing(self, store: Store) -> None:
        match_id, version = scopone_with_computers(store)
        with pytest.raises(ValueError, match="one result per seat"):
            store.commit_move(
                match_id, version, 0, "end", "{}", status=FINISHED, results=results(True) * 2
            )
        assert store.user_ratings(ANNA) == []
        assert store.get_match(match_id).version == version

    def test_a_group_may_choose_that_computers_do_not_count(self, store: Store) -> None:
        """R-4.2: the choice holds in that group only, for matches with a computer seat."""
        assert store.chat_settings(-10).rate_computers is True
        store.set_rate_computers(-10, False)
        assert store.chat_settings(-10).rate_computers is False
        match_id, version = scopone_with_computers(store, -10)
        store.commit_move(match_id, version, 0, "end", "{}", status=FINISHED, results=results(True))
        assert store.user_ratings(ANNA) == []  # results stored, no rating moved
        assert [e.user_id for e in store.leaderboard(-10, "scopone") if not e.computer] == [1, 2]
        match_id, version = scopone_with_computers(store, -11)  # another group counts them
        store.commit_move(match_id, version, 0, "end", "{}", status=FINISHED, results=results(True))
        assert only(store.user_ratings(ANNA))[3] == 1
        store.set_rate_computers(-10, True)
        match_id, version = scopone_with_computers(store, -10)
        store.commit_move(match_id, version, 0, "end", "{}", status=FINISHED, results=results(True))
        assert only(store.user_ratings(ANNA))[3] == 2

    def test_a_stopped_match_rates_nobody(self, store: Store) -> None:
        match_id, version = scopone_with_computers(store)
        store.commit_move(match_id, version, None, "stop", "{}", status=STOPPED)
        assert store.user_ratings(ANNA) == store.user_ratings(BEA) == []

    def test_deleting_a_person_erases_their_ratings(self, store: Store) -> None:
        match_id, version = scopone_with_computers(store)
        store.commit_move(match_id, version, 0, "end", "{}", status=FINISHED, results=results(True))
        store.delete_user_data(ANNA)
        assert store.user_ratings(ANNA) == []
        assert only(store.user_ratings(BEA))[3] == 1
        assert store.user_ratings(BEA)[0].updated_at <= datetime.now(UTC)
