"""The end of a hand shown where each player looks, remembered across a restart.

``matches.shown_hand`` is the latest hand whose summary the group was shown; ``seats.recap_hand``
the latest hand whose recap the seat's hand message turned into. A bot stopped between the end
of a hand and those messages shows them at its resume. Rows written before stay NULL: not known,
nothing shown again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns."""
    op.add_column("matches", sa.Column("shown_hand", sa.Integer(), nullable=True))
    op.add_column("seats", sa.Column("recap_hand", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("recap_hand")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("shown_hand")
