"""Helpers for the store's tests: seated lobbies, started matches, greedy play committed."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event, make_url
from sqlalchemy.exc import OperationalError

from engine.games import GameMatch
from engine.scala40 import Match as Scala40Match
from engine.scala40.greedy import greedy_action as scala40_greedy
from engine.scopone import Match as ScoponeMatch
from engine.scopone import greedy_action as scopone_greedy
from storage import MatchRecord, Store

NAMES = ["Anna", "Bea", "Ciro", "Dario", "Elia", "Fede"]


def user_of(seat: int) -> int:
    """The Telegram user id the helpers give the person in ``seat``."""
    return 1000 + seat


def greedy(match: GameMatch) -> Any:
    """The engine's own greedy choice for the seat to play, for either game."""
    if isinstance(match, ScoponeMatch):
        return scopone_greedy(match)
    assert isinstance(match, Scala40Match)
    return scala40_greedy(match)


def seated_lobby(
    store: Store,
    game: str,
    players: int,
    *,
    chat_id: int = -100,
    seed: int = 11,
    options: dict[str, Any] | None = None,
    computers: int = 0,
) -> MatchRecord:
    """A lobby with ``players`` seats: people first (user ids from :func:`user_of`), then
    ``computers`` computer players."""
    record = store.create_match(chat_id, game, options or {}, user_of(0), NAMES[0], seed)
    for seat in range(1, players):
        if seat >= players - computers:
            record = store.add_seat(record.id, None, f"CPU {seat}", "facile")
        else:
            record = store.add_seat(record.id, user_of(seat), NAMES[seat])
    return record


def started(store: Store, game: str, players: int, **lobby: Any) -> tuple[MatchRecord, GameMatch]:
    """A started match and its engine match (the stored snapshot is its ``to_json()``)."""
    record = seated_lobby(store, game, players, **lobby)
    match = store.initial_match(record)
    store.start_match(record.id, match.to_json(), record.version)
    return store.get_match(record.id), match


def play_and_commit(store: Store, record: MatchRecord, match: GameMatch, moves: int) -> int:
    """Play up to ``moves`` greedy moves, committing each; returns the stored version."""
    version = record.version
    for _ in range(moves):
        if match.is_over:
            break
        seat = match.to_play
        action = str(match.play(greedy(match), seat=seat))
        version = store.commit_move(record.id, version, seat, action, match.to_json())
    return version


@contextmanager
def scratch_schema(server_url: str) -> Iterator[str]:
    """A fresh, empty schema on the PostgreSQL server at ``server_url``, dropped afterwards:
    the URL of a database whose tables live in it."""
    schema = f"tavolo_test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(server_url)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def race(racers: int, act: Callable[[int], object]) -> list[object]:
    """Run ``act(n)`` in ``racers`` threads released together; each outcome or exception."""
    barrier = threading.Barrier(racers)
    outcomes: list[object] = [None] * racers

    def run(n: int) -> None:
        barrier.wait()
        try:
            outcomes[n] = act(n)
        except Exception as error:  # the outcome under test
            outcomes[n] = error

    threads = [threading.Thread(target=run, args=(n,)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@contextmanager
def database_away(store: Store) -> Iterator[None]:
    """Within the block, every statement ``store`` sends fails as when its database server
    went away (PostgreSQL stopped: an OperationalError); afterwards it answers again."""

    def refuse(*_: object) -> None:
        raise OperationalError(
            "(the statement)", None, ConnectionError("server closed the connection")
        )

    engine = store._engine  # every connection of the store, readers and writers
    event.listen(engine, "before_cursor_execute", refuse)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", refuse)
