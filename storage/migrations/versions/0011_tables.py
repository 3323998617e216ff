"""Several tables in a group, and how many a group allows.

``matches.table_number``: the match's table in its group (1, 2, ...), unique among the group's
active matches: the one-column constraint on ``active_chat_id`` becomes a two-column one on
``(active_chat_id, table_number)``. Every match before this revision is table 1.
``matches.thread_id``: the forum topic the match plays in (NULL: the group's main chat).
``chats.tables``: how many matches the group's admins allow at once (NULL: the default).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns; one active match per table instead of per group."""
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("table_number", sa.Integer(), nullable=False, server_default="1")
        )
        batch.add_column(sa.Column("thread_id", sa.BigInteger(), nullable=True))
        batch.drop_constraint("uq_matches_active_chat_id", type_="unique")
        batch.create_unique_constraint(
            "uq_matches_active_chat_id_table_number", ["active_chat_id", "table_number"]
        )
    op.add_column("chats", sa.Column("tables", sa.Integer(), nullable=True))


def downgrade() -> None:
    """One active match per group again: the tables after the first end, as stopped."""
    op.execute(
        "UPDATE matches SET status = 'stopped', active_chat_id = NULL"
        " WHERE active_chat_id IS NOT NULL AND table_number > 1"
    )
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("tables")
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint("uq_matches_active_chat_id_table_number", type_="unique")
        batch.create_unique_constraint("uq_matches_active_chat_id", ["active_chat_id"])
        batch.drop_column("thread_id")
        batch.drop_column("table_number")
