"""The tournament a match is a table of: its messages go to its players' private chats, not
to the group (the tournament's board is the group's message); what the board shows (a digest,
so that a restart skips an identical edit); the name of a pair's second player.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

NAME_LENGTH = 128

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column (NULL: a match of no tournament)."""
    op.add_column("matches", sa.Column("tournament_id", sa.Integer(), nullable=True))
    op.add_column("tournaments", sa.Column("message_digest", sa.String(64), nullable=True))
    op.add_column(
        "tournament_entries", sa.Column("partner_name", sa.String(NAME_LENGTH), nullable=True)
    )


def downgrade() -> None:
    """Drop it: the tournaments' matches become matches of their groups."""
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("tournament_id")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("message_digest")
    with op.batch_alter_table("tournament_entries") as batch:
        batch.drop_column("partner_name")
