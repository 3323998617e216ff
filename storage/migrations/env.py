"""Alembic's entry point for Tavolo's migrations.

:meth:`storage.Store.open` passes its own connection in ``config.attributes["connection"]``
(already inside a transaction). From the ``alembic`` command line the database is the ini's
``sqlalchemy.url`` if set, else ``DATABASE_URL``, else ``sqlite:///tavolo.db``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from storage.database import create_store_engine, resolve_url
from storage.models import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=True,  # SQLite can only change tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    return resolve_url(config.get_main_option("sqlalchemy.url"))


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    given = config.attributes.get("connection")
    if isinstance(given, Connection):
        _run(given)
    else:
        engine = create_store_engine(_url())
        try:
            with engine.begin() as connection:
                _run(connection)
        finally:
            engine.dispose()
