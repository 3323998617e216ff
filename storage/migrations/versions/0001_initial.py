"""Initial schema: matches, seats, moves, users, chats, results.

Revision ID: 0001
Revises:
Create Date: 2025-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def _fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["match_id"], ["matches.id"], name=f"fk_{table}_match_id_matches", ondelete="CASCADE"
    )


def upgrade() -> None:
    """Create every table of the first schema."""
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("active_chat_id", sa.BigInteger(), nullable=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("seed", sa.String(40), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("table_chat_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("table_message_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("deadline", _TIME, nullable=True),
        sa.Column("deadline_seat", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_matches"),
        sa.UniqueConstraint("active_chat_id", name="uq_matches_active_chat_id"),
    )
    op.create_index("ix_matches_chat_id", "matches", ["chat_id"])
    op.create_index("ix_matches_status_id", "matches", ["status", "id"])

    op.create_table(
        "seats",
        sa.Column("match_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("seat", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("computer_level", sa.String(16), nullable=True),
        sa.Column("hand_message_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("turn_chat_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("turn_message_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("ui_selected", sa.Text(), nullable=False),
        sa.Column("ui_staged", sa.Text(), nullable=False),
        sa.Column("ui_order", sa.Text(), nullable=True),
        sa.Column("ui_sort", sa.String(16), nullable=False),
        sa.Column("ui_version", sa.Integer(), nullable=False),
        _fk("seats"),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_seats"),
        sa.UniqueConstraint("match_id", "user_id", name="uq_seats_match_id_user_id"),
    )
    op.create_index("ix_seats_user_id", "seats", ["user_id"])

    op.create_table(
        "moves",
        sa.Column("match_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("version", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        _fk("moves"),
        sa.PrimaryKeyConstraint("match_id", "version", name="pk_moves"),
    )

    op.create_table(
        "users",
        sa.Column("user_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("language_code", sa.String(16), nullable=True),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_users"),
    )

    op.create_table(
        "chats",
        sa.Column("chat_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("default_options", sa.Text(), nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name="pk_chats"),
    )

    op.create_table(
        "results",
        sa.Column("match_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("seat", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True, autoincrement=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("computer", sa.Boolean(), nullable=False),
        sa.Column("mp", sa.Integer(), nullable=False),
        sa.Column("vp", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("hands_won", sa.Integer(), nullable=False),
        sa.Column("finished_at", _TIME, nullable=False),
        _fk("results"),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_results"),
    )
    op.create_index("ix_results_user_id", "results", ["user_id"])
    op.create_index("ix_results_chat_id_game", "results", ["chat_id", "game"])


def downgrade() -> None:
    """Drop every table (all data is lost)."""
    op.drop_table("results")
    op.drop_table("chats")
    op.drop_table("users")
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_table("matches")
