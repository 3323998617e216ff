"""What the instances on one database share through the store: due work, match locks,
live messages' deliveries, chat budgets and settings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from storage import seasons
from storage.base import StoreBase, _check_when, _now
from storage.budget import reserve
from storage.kept import NOTHING
from storage.models import SettingTable
from storage.records import Season, Work
from storage.work import (
    claim_due,
    claim_one,
    finish,
    pending,
    release,
    replace_work,
)


class DueStore(StoreBase):
    """What several instances share: due work, match locks, live messages' deliveries, chat
    budgets, settings."""

    def set_work(self, match_id: int, version: int, items: Sequence[tuple[str, datetime]]) -> None:
        """The match's due work becomes ``items`` (kind, time), set at match ``version``."""
        with self._core(write=True, touches=NOTHING) as db:
            replace_work(db, match_id, version, items)

    def work(self, match_id: int | None = None) -> list[Work]:
        """The stored due work (of one match), soonest first."""
        with self._core() as db:
            return pending(db, match_id)

    def claim_due(self, owner: str, now: datetime, lease: timedelta, limit: int = 20) -> list[Work]:
        """Claim for ``owner`` (an instance's name) the work due by ``now`` that nobody holds,
        for ``lease``; two instances never get the same row."""
        _check_when(now)
        with self._core(write=True, touches=NOTHING) as db:
            return claim_due(db, owner, now, lease, limit)

    def claim_work(
        self,
        owner: str,
        match_id: int,
        kind: str,
        now: datetime,
        lease: timedelta,
        *,
        due_at: datetime | None = None,
        version: int | None = None,
    ) -> Work | None:
        """Claim the match's work of ``kind`` for ``owner``: the piece due at ``due_at`` or set
        at ``version`` when given (None: there is none, or another instance holds it)."""
        _check_when(now)
        with self._core(write=True, touches=NOTHING) as db:
            return claim_one(db, owner, match_id, kind, now, lease, due_at=due_at, version=version)

    def finish_work(self, item: Work) -> None:
        """The claimed work is done (a move may have replaced it already)."""
        with self._core(write=True, touches=NOTHING) as db:
            finish(db, item)

    def release_work(self, item: Work, until: datetime | None = None) -> None:
        """Give claimed work back, undone: any instance may claim it again from ``until``
        (None: at once)."""
        _check_when(until)
        with self._core(write=True, touches=NOTHING) as db:
            release(db, item, until)

    def claim_due_seasons(
        self, owner: str, now: datetime, lease: timedelta, limit: int = 20
    ) -> list[Season]:
        """Claim for ``owner`` the groups' months that ended by ``now``, not announced yet and
        held by nobody, for ``lease`` (:mod:`storage.seasons`)."""
        _check_when(now)
        with self._core(write=True, touches=NOTHING) as db:
            return seasons.claim_due(db, owner, now, lease, limit)

    def release_season(self, season: Season, until: datetime | None = None) -> None:
        """Give a claimed month back, unannounced: claimable again from ``until`` (None: at
        once)."""
        _check_when(until)
        with self._core(write=True, touches=NOTHING) as db:
            seasons.release(db, season, until)

    def take_season(self, season: Season) -> bool:
        """Take the sending of a month's announcement: True once, for the first who asks (a
        process, an instance, or the same one after a restart)."""
        with self._core(write=True, touches=NOTHING) as db:
            return seasons.take(db, season, _now())

    def seasons(self, chat_id: int) -> list[tuple[str, datetime | None]]:
        """The group's months with results (``YYYY-MM``), oldest first, and when each was
        announced (None: not yet)."""
        with self._core() as db:
            return seasons.of_chat(db, chat_id)

    def reserve_message(self, chat_id: int, interval: float, burst: int) -> float:
        """Take a place for one message in the chat's budget shared by the instances
        (``burst`` at once, then one every ``interval`` seconds): 0.0 when taken, else the
        seconds to wait before asking again."""
        with self._core(write=True, touches=NOTHING) as db:
            return reserve(db, chat_id, interval, burst)

    def try_lock_match(self, match_id: int) -> bool:
        """Take the match's lock across instances (PostgreSQL), if free; whether it was taken.
        Always taken on SQLite, used by one process."""
        try:
            return self._match_locks.try_lock(match_id)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def take_match_lock(self, match_id: int) -> int | None:
        """Take the match's lock as :meth:`try_lock_match` does: the generation of the lock's
        connection when taken (to give to :meth:`unlock_match`), None when another instance
        holds it."""
        try:
            return self._match_locks.take(match_id)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def unlock_match(self, match_id: int, generation: int | None = None) -> None:
        """Release the match's lock taken with :meth:`try_lock_match` (or with
        :meth:`take_match_lock`, on the connection of that ``generation``: if it broke since,
        the lock went with it, and a lock taken since on a new one stays)."""
        try:
            self._match_locks.unlock(match_id, generation)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def claim_delivery(self, key: tuple[int, str, int]) -> bool:
        """Claim the delivery of a live message, ``key`` = (match, kind, seat): the table
        (``"table"``, seat 0), a seat's ``"hand"`` or ``"bell"``, unless another instance holds
        it (PostgreSQL; always granted on SQLite, used by one process); whether it was
        claimed. A dead instance's claims go with its connection."""
        try:
            return self._match_locks.try_claim(key)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def release_delivery(self, key: tuple[int, str, int]) -> None:
        """Give back a delivery claimed with :meth:`claim_delivery`."""
        try:
            self._match_locks.release_claim(key)
        except SQLAlchemyError as error:
            raise self._failure(error) from error

    def setting(self, name: str, make: Callable[[], str]) -> str:
        """The shared setting ``name``; the first instance to ask stores ``make()``."""

        def attempt() -> str:
            with self._session(write=True, touches=NOTHING) as s:
                row = s.get(SettingTable, name)
                if row is None:
                    row = SettingTable(name=name, value=make())
                    s.add(row)
                    s.flush()
                return row.value

        return self._retrying(attempt)
