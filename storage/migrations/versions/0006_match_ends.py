"""The end of a match and the place of each hand's summary, remembered across a restart.

``matches.end_shown`` says whether the group was sent the final ranking (or the notice of a stop):
a bot stopped between a match's last move and that message sends it at its next start. Matches
already over are marked as shown; the others are not, so their end is shown when it comes.
``matches.summary_message_id`` is the group's message of the latest hand's summary: the table of
a running match goes below it, also after a restart between the two.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns; a match already over has shown its end."""
    op.add_column(
        "matches",
        sa.Column("end_shown", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("matches", sa.Column("summary_message_id", sa.BigInteger(), nullable=True))
    status, shown = sa.column("status", sa.String), sa.column("end_shown", sa.Boolean)
    matches = sa.table("matches", status, shown)
    over = matches.c.status.in_(("finished", "stopped"))
    op.execute(matches.update().where(over).values(end_shown=True))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("summary_message_id")
        batch.drop_column("end_shown")
