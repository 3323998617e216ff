"""Seasons: each group's month with results, and whether its standings were announced.

``seasons`` has a row per group and month (``YYYY-MM``, docs/rules.md SE-1) in which a match of
the group finished, written with the match's results: due at the month's end, claimed by one
instance at a time (``claimed_by``, ``claimed_until``), and ``announced_at`` once the group was
sent its final standings (so it is sent once). Months before this revision get no row.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "seasons",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("period", sa.String(length=7), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("announced_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("chat_id", "period", name=op.f("pk_seasons")),
    )
    op.create_index(op.f("ix_seasons_due_at"), "seasons", ["due_at"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index(op.f("ix_seasons_due_at"), table_name="seasons")
    op.drop_table("seasons")
