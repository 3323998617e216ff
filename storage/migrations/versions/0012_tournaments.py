"""Tournaments: a group's tournament, its entrants, and the tables of its rounds.

``tournaments``: the rules (game, format, pairs, table size, the matches' options, rounds,
the time a round has), its status and the round it is at. ``tournament_entries``: the entrants,
numbered as they entered, seeded at the start, and the round one left at.
``tournament_rounds``: each round, keyed so that it is paired once, with its byes and start.
``tournament_tables``: each round's tables, with the match each plays (one table per match) and
its entrants' VP and MP once it ended.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("organiser_id", sa.BigInteger(), nullable=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("pairs", sa.Boolean(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("round_seconds", sa.Integer(), nullable=False),
        sa.Column("computers", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_chat_id"), "tournaments", ["chat_id"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("entry", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("partner_id", sa.BigInteger(), nullable=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("computer_level", sa.String(16), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("withdrawn_round", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "entry", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint(
            "tournament_id", "user_id", name=op.f("uq_tournament_entries_tournament_id_user_id")
        ),
    )
    op.create_index(op.f("ix_tournament_entries_user_id"), "tournament_entries", ["user_id"])
    op.create_index(op.f("ix_tournament_entries_partner_id"), "tournament_entries", ["partner_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("byes", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_rounds_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "round", name=op.f("pk_tournament_rounds")),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("table_number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("entries", sa.Text(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_tables_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_tournament_tables_match_id_matches"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "table_number", name=op.f("pk_tournament_tables")
        ),
        sa.UniqueConstraint("match_id", name=op.f("uq_tournament_tables_match_id")),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_entries")
    op.drop_table("tournaments")
