"""A group's choice to show each player's level next to their name in the lobby.

``chats.levels_in_lobby``: True when the group's admins chose to show it (docs/rules.md R-6.3);
NULL, as every group before this revision, is the default: not shown.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column."""
    op.add_column("chats", sa.Column("levels_in_lobby", sa.Boolean(), nullable=True))


def downgrade() -> None:
    """Drop it again."""
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("levels_in_lobby")
