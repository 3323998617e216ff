"""Opening the database: migrations, SQLite's settings, and clear errors instead of resets."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from storage import Store, StoreError, schema_head
from storage.base import _now
from storage.database import create_store_engine
from storage.models import metadata
from storage.store import alembic_config
from testkit.storage_helpers import play_and_commit, started

ROOT = Path(__file__).resolve().parents[2]
TABLES = {
    "alembic_version",
    "chat_budgets",
    "chats",
    "confirmations",
    "matches",
    "moves",
    "ratings",
    "results",
    "seasons",
    "seats",
    "settings",
    "tournament_entries",
    "tournament_rounds",
    "tournament_tables",
    "tournaments",
    "users",
    "work",
}


def _schema(url: str) -> tuple[set[str], list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The tables, every column with its type, and the stored schema revision."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            inspector = inspect(connection)
            tables = set(inspector.get_table_names())
            columns = sorted(
                (table, column["name"], str(column["type"]), str(column["nullable"]))
                for table in tables
                for column in inspector.get_columns(table)
            )
            revision = connection.execute(text("SELECT version_num FROM alembic_version"))
            return tables, columns, [tuple(row) for row in revision.all()]
    finally:
        engine.dispose()


class TestMigrations:
    def test_an_empty_database_gets_every_table(self, db_url: str) -> None:
        Store.open(db_url).close()
        tables, columns, revision = _schema(db_url)
        assert tables == TABLES
        assert revision == [(schema_head(),)]
        assert ("matches", "state", "TEXT", "True") in columns

    def test_an_empty_sqlite_file_is_an_empty_database(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.db"
        path.touch()
        Store.open(f"sqlite:///{path}").close()
        assert _schema(f"sqlite:///{path}")[0] == TABLES

    def test_upgrading_again_changes_nothing(self, db_url: str) -> None:
        with Store.open(db_url) as store:
            record, match = started(store, "scopone", 4)
            play_and_commit(store, record, match, 9)
            before = store.get_match(record.id)
        schema = _schema(db_url)
        with Store.open(db_url) as store:
            assert store.get_match(record.id) == before
            assert len(store.moves(record.id)) == 9
        assert _schema(db_url) == schema

    def test_the_migration_creates_exactly_the_models(self, db_url: str) -> None:
        Store.open(db_url).close()
        engine = create_engine(db_url)
        try:
            with engine.connect() as connection:
                context = MigrationContext.configure(connection, opts={"compare_type": True})
                assert compare_metadata(context, metadata) == []
        finally:
            engine.dispose()

    def test_a_match_stored_before_several_tables_is_table_1(self, db_url: str) -> None:
        """A database of revision 0010 (one match per group) upgrades with its active match
        at table 1, and the group can open a second; a downgrade stops the second."""
        engine = create_engine(db_url)
        try:
            with engine.begin() as connection:
                command.upgrade(alembic_config(connection), "0010")
                connection.execute(
                    text(
                        "INSERT INTO matches (chat_id, active_chat_id, game, options, seed,"
                        " status, version, created_at, updated_at, end_shown)"
                        " VALUES (-100, -100, 'scopone', '{}', '1', 'lobby', 0,"
                        " '2026-11-01 10:00:00', '2026-11-01 10:00:00', false)"
                    )
                )
        finally:
            engine.dispose()
        with Store.open(db_url) as store:
            (old,) = store.active_matches_in_chat(-100)
            assert old.table_number == 1
            new = store.create_match(-100, "scopone", {}, 1, "Anna", seed=2, tables=2)
            assert new.table_number == 2
            assert store.chat_settings(-100).tables == 3
        engine = create_engine(db_url)
        try:
            with engine.begin() as connection:
                command.downgrade(alembic_config(connection), "0010")
                rows = connection.execute(
                    text("SELECT id, status, active_chat_id FROM matches ORDER BY id")
                ).all()
        finally:
            engine.dispose()
        assert [tuple(row) for row in rows] == [(old.id, "lobby", -100), (new.id, "stopped", None)]

    def test_an_upgrade_keeps_every_seat_move_and_result(self, db_url: str) -> None:
        """A migration that rebuilds the matches table (0011, on SQLite) keeps what refers to
        it: with foreign keys on, dropping the old table would cascade to every seat, move,
        result and due work."""
        with Store.open(db_url) as store:
            record, match = started(store, "scopone", 4)
            play_and_commit(store, record, match, 9)
            store.set_work(record.id, store.get_match(record.id).version, [("timeout", _now())])
            before = store.get_match(record.id)
        engine = create_engine(db_url)  # a plain engine: SQLite's foreign keys are off there
        try:
            with engine.begin() as connection:
                command.downgrade(alembic_config(connection), "0010")
        finally:
            engine.dispose()
        with Store.open(db_url) as store:
            after = store.get_match(record.id)
            assert after.seats == before.seats and after.state_json == before.state_json
            assert len(store.moves(record.id)) == 9
            assert len(store.work(record.id)) == 1
            assert after.table_number == 1

    def test_a_database_from_a_newer_tavolo_is_refused_untouched(self, db_url: str) -> None:
        Store.open(db_url).close()
        engine = create_engine(db_url)
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
        with pytest.raises(StoreError) as caught:
            Store.open(db_url)
        message = str(caught.value)
        assert message.startswith(f"{caught.value.database}: the database was written by a newer")
        assert "schema revision 9999_future" in message
        assert f"knows up to {schema_head()}" in message
        with engine.connect() as connection:
            stored = connection.execute(text("SELECT version_num FROM alembic_version")).all()
        engine.dispose()
        assert [tuple(row) for row in stored] == [("9999_future",)]

    def test_the_migrations_ship_inside_the_package(self) -> None:
        setuptools = pytest.importorskip("setuptools")
        packages = setuptools.find_packages(where=str(ROOT), include=["storage*"])
        assert {"storage", "storage.migrations", "storage.migrations.versions"} <= set(packages)
        versions = ROOT / "storage" / "migrations" / "versions"
        assert (versions / "0001_initial.py").is_file()


class TestSQLiteFile:
    def test_the_default_is_tavolo_db_in_the_working_directory(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.delenv("DATABASE_URL", raising=False)
        monkeypatch.chdir(tmp_path)
        with Store.open() as store:
            assert store.url == "sqlite:///tavolo.db"
            assert store.database == str(tmp_path / "tavolo.db")
        assert (tmp_path / "tavolo.db").is_file()

    def test_database_url_from_the_environment(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        url = f"sqlite:///{tmp_path / 'env.db'}"
        monkeypatch.setenv("DATABASE_URL", url)
        with Store.open() as store:
            assert store.url == url
        assert (tmp_path / "env.db").is_file()

    def test_every_connection_is_wal_full_sync_with_foreign_keys(self, sqlite_url: str) -> None:
        Store.open(sqlite_url).close()
        engine = create_store_engine(sqlite_url)
        try:
            with engine.connect() as connection:
                pragmas = {
                    name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                    for name in (
                        "journal_mode",
                        "synchronous",
                        "foreign_keys",
                        "busy_timeout",
                        "wal_autocheckpoint",
                        "journal_size_limit",
                    )
                }
        finally:
            engine.dispose()
        assert pragmas == {
            "journal_mode": "wal",
            "synchronous": 2,
            "foreign_keys": 1,
            "busy_timeout": 10_000,
            "wal_autocheckpoint": 100,  # pages: the log stays small (test_storage_disk.py)
            "journal_size_limit": 409_600,
        }

    def test_foreign_keys_are_enforced(self, sqlite_url: str) -> None:
        Store.open(sqlite_url).close()
        engine = create_store_engine(sqlite_url)
        try:
            with pytest.raises(Exception, match="FOREIGN KEY"), engine.begin() as connection:
                connection.exec_driver_sql(
                    "INSERT INTO moves (match_id, version, seat, action, created_at) "
                    "VALUES (404, 1, 0, 'draw', '2030-01-01 00:00:00')"
                )
        finally:
            engine.dispose()

    def test_a_corrupt_file_is_named_and_left_alone(self, tmp_path: Path) -> None:
        path = tmp_path / "tavolo.db"
        garbage = bytes(range(256)) * 64
        path.write_bytes(garbage)
        with pytest.raises(StoreError) as caught:
            Store.open(f"sqlite:///{path}")
        assert caught.value.database == str(path)
        assert str(caught.value) == (
            f"{path}: cannot open the database (file is not a database); nothing was changed. "
            "The file is damaged or is not a Tavolo database: restore it from a backup or move "
            "it away"
        )
        assert path.read_bytes() == garbage

    def test_a_damaged_page_is_named(self, sqlite_url: str, tmp_path: Path) -> None:
        Store.open(sqlite_url).close()
        path = tmp_path / "tavolo.db"
        with sqlite3.connect(path) as raw:
            raw.execute("PRAGMA journal_mode = DELETE")
        data = bytearray(path.read_bytes())
        data[100:4096] = b"\xff" * (4096 - 100)  # the schema page, after the file header
        path.write_bytes(bytes(data))
        with pytest.raises(StoreError, match=f"^{path}: cannot open the database"):
            Store.open(sqlite_url)

    def test_an_unreachable_file_is_named(self, tmp_path: Path) -> None:
        missing = tmp_path / "no such folder" / "tavolo.db"
        with pytest.raises(StoreError, match="unable to open database file") as caught:
            Store.open(f"sqlite:///{missing}")
        assert caught.value.database == str(missing)


class TestOtherURLs:
    def test_a_bad_url_is_a_store_error(self) -> None:
        with pytest.raises(StoreError, match="cannot use this database URL"):
            Store.open("nosuchdatabase://somewhere/tavolo")

    def test_a_server_that_does_not_answer_is_named_without_password(self) -> None:
        url = "postgresql+psycopg://bot:secret@127.0.0.1:9/tavolo?connect_timeout=2"
        with pytest.raises(StoreError) as caught:
            Store.open(url)
        assert caught.value.database.startswith("postgresql+psycopg://bot:***@127.0.0.1:9/")
        assert "secret" not in str(caught.value)


class TestSnapshots:
    def test_a_snapshot_from_a_newer_engine_is_named(self, store: Store) -> None:
        record, match = started(store, "scala40", 2)
        newer = json.loads(match.to_json()) | {"format": 99}
        version = store.commit_move(record.id, record.version, 0, "draw", json.dumps(newer))
        stored = store.get_match(record.id)
        assert stored.version == version
        with pytest.raises(StoreError) as caught:
            store.load_engine_match(stored)
        assert str(caught.value).startswith(
            f"{store.database}: match {record.id} was saved by a newer Tavolo (saved with format 99"
        )
        assert str(caught.value).endswith("upgrade Tavolo to resume it")

    def test_a_damaged_snapshot_is_named(self, store: Store) -> None:
        for chat_id, game in ((-1, "scala40"), (-2, "scopone")):  # a chat each
            record, _ = started(store, game, 4, chat_id=chat_id)
            store.commit_move(record.id, record.version, 0, "draw", '{"game": "' + game + '"}')
            with pytest.raises(StoreError) as caught:
                store.load_engine_match(store.get_match(record.id))
            message = str(caught.value)
            assert message.startswith(f"{store.database}: match {record.id} has a saved state")
            assert message.endswith("it is damaged")

    def test_a_lobby_has_no_engine_match(self, store: Store) -> None:
        lobby = store.create_match(-1, "scopone", {}, 1, "Anna", seed=1)
        with pytest.raises(StoreError, match="it has no saved state"):
            store.load_engine_match(lobby)

    def test_a_log_that_does_not_replay_is_named(self, store: Store) -> None:
        record, match = started(store, "scopone", 4)
        seat = match.to_play
        wrong = (seat + 1) % 4
        store.commit_move(record.id, record.version, wrong, "play AS", match.to_json())
        with pytest.raises(StoreError) as caught:
            store.replay(record.id)
        assert str(caught.value).startswith(
            f"{store.database}: match {record.id}: logged move {record.version + 1} "
            f"('play AS' by seat {wrong}) is refused on replay: not-your-turn"
        )
