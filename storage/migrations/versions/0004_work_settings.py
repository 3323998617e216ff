"""Stored due work and shared settings, for several bot instances on one database.

``work`` holds what is due at a time (a turn's reminder and timeout, a computer's move), claimed
by one instance at a time with a lease; ``settings`` holds values the instances share (the
webhook's secret token); ``chat_budgets`` each chat's message budget, shared by the instances.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the work, settings and chat budget tables."""
    op.create_table(
        "work",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("due_at", _TIME, nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_work_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "kind", name=op.f("pk_work")),
    )
    op.create_index("ix_work_due_at", "work", ["due_at"])
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_settings")),
    )
    op.create_table(
        "chat_budgets",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("tat", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_chat_budgets")),
    )


def downgrade() -> None:
    """Drop them again."""
    op.drop_table("chat_budgets")
    op.drop_table("settings")
    op.drop_index("ix_work_due_at", table_name="work")
    op.drop_table("work")
