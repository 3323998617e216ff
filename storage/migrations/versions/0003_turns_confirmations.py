"""Turn bells derived from the stored state, single-use confirmations, edits in flight.

``matches.turn_version`` is the version at which the current turn started, ``seats.turn_version``
the turn the seat's stored bell rings for; ``confirmations`` holds the yes/no questions asked,
each answered once; ``table_pending`` and ``hand_pending`` the digest of the edit sent last.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add the turn versions, the pending digests and the confirmations table."""
    op.add_column("matches", sa.Column("turn_version", sa.Integer(), nullable=True))
    op.add_column("seats", sa.Column("turn_version", sa.Integer(), nullable=True))
    op.add_column("matches", sa.Column("table_pending", sa.String(64), nullable=True))
    op.add_column("seats", sa.Column("hand_pending", sa.String(64), nullable=True))
    op.create_table(
        "confirmations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("answered_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_confirmations")),
    )


def downgrade() -> None:
    """Drop them again."""
    op.drop_table("confirmations")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("hand_pending")
        batch.drop_column("turn_version")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("table_pending")
        batch.drop_column("turn_version")
