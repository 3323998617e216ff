"""Alembic migrations of Tavolo's database: ``env.py`` and ``versions/``.

:meth:`storage.Store.open` runs them (``upgrade head``) with a configuration built in code, so
they work from an installed package. To write a new revision from a checkout::

    alembic -c storage/migrations/alembic.ini revision --autogenerate -m "what changes"

(``DATABASE_URL`` names the database to compare with; it must be at the current head.)
"""
