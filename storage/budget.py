"""Each chat's message budget, shared by the bot instances on one database.

Telegram counts a chat's messages per bot, whichever instance sends them. Before a message
goes out, the sending instance reserves its place in the chat's budget: a GCRA (a token bucket
kept as one number, the theoretical arrival time of the next message that keeps to the rate),
updated in one statement on PostgreSQL's own clock, so instances on different hosts agree.
"""

from __future__ import annotations

import time

from sqlalchemy import Connection, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import col

from storage.models import ChatBudgetTable

_RESERVE_PG = """
WITH clock AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS now)
INSERT INTO chat_budgets AS b (chat_id, tat)
SELECT %(chat)s, clock.now + %(interval)s FROM clock
ON CONFLICT (chat_id) DO UPDATE
SET tat = greatest(b.tat, (SELECT now FROM clock)) + %(interval)s
WHERE b.tat - %(tau)s <= (SELECT now FROM clock)
RETURNING 0.0
"""
_WAIT_PG = """
SELECT tat - %(tau)s - extract(epoch FROM clock_timestamp())::float8
FROM chat_budgets WHERE chat_id = %(chat)s
"""


def reserve(db: Connection, chat_id: int, interval: float, burst: int) -> float:
    """Take a place for one message in the chat's budget (``burst`` at once, then one every
    ``interval`` seconds): 0.0 when taken, else the seconds to wait before asking again."""
    tau = (burst - 1) * interval
    if db.dialect.name == "postgresql":
        values = {"chat": chat_id, "interval": interval, "tau": tau}
        if db.exec_driver_sql(_RESERVE_PG, values).first() is not None:
            return 0.0
        wait = db.exec_driver_sql(_WAIT_PG, values).scalar()
        return max(float(wait or 0.0), 0.001)
    return _reserve_here(db, chat_id, interval, tau)


def _reserve_here(db: Connection, chat_id: int, interval: float, tau: float) -> float:
    """The same on another database, on this host's clock (one writer at a time)."""
    now = time.time()
    query = sa_select(col(ChatBudgetTable.tat)).where(col(ChatBudgetTable.chat_id) == chat_id)
    tat = db.execute(query).scalar()
    if tat is None:
        db.execute(insert(ChatBudgetTable).values(chat_id=chat_id, tat=now + interval))
        return 0.0
    if tat - tau > now:
        return max(tat - tau - now, 0.001)
    db.execute(
        update(ChatBudgetTable)
        .where(col(ChatBudgetTable.chat_id) == chat_id)
        .values(tat=max(tat, now) + interval)
    )
    return 0.0
