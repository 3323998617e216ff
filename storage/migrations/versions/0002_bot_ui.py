"""The bot's needs: the hand keyboard's mode and pending choice, private-chat flag, group title,
and a digest of what the table and hand messages show (no identical edit after a restart).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add seats.ui_mode, seats.ui_pending, users.private_chat, chats.title."""
    op.add_column("seats", sa.Column("ui_mode", sa.String(16), nullable=False, server_default=""))
    op.add_column("seats", sa.Column("ui_pending", sa.Text(), nullable=False, server_default=""))
    op.add_column(
        "users",
        sa.Column("private_chat", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("chats", sa.Column("title", sa.String(255), nullable=True))
    op.add_column("matches", sa.Column("table_digest", sa.String(64), nullable=True))
    op.add_column("seats", sa.Column("hand_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop the columns again."""
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("hand_digest")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("table_digest")
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("title")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("private_chat")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("ui_pending")
        batch.drop_column("ui_mode")
