"""Alembic revisions, oldest first: ``NNNN_what.py``."""
