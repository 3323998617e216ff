"""Skill ratings: a person's openskill rating per category (docs/rules.md, "Skill levels").

``ratings`` has a row per person and category (``scala40``, ``scala40-pairs``,
``scopone-pairs``): ``mu``, ``sigma``, the rated matches and the time of the latest. Matches
finished before this revision are not rated: every rating starts from the next one.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "category", name=op.f("pk_ratings")),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("ratings")
