"""A group's choice whether matches against computer players move a person's rating.

``chats.rate_computers``: False when the group chose that a match with a computer seat moves no
rating (docs/rules.md R-4.2); NULL, as every group before this revision, is the default: they
count.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column."""
    op.add_column("chats", sa.Column("rate_computers", sa.Boolean(), nullable=True))


def downgrade() -> None:
    """Drop it again."""
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("rate_computers")
