"""Delivery: every message the bot sends, edits or deletes, within Telegram's flood limits.

:mod:`bot.delivery.outbox` holds the queues (one per chat), :mod:`bot.delivery.limits` the
limits the bot keeps and the counters that keep them.
"""

from bot.delivery.limits import Pace, SlidingWindow, TokenBucket
from bot.delivery.outbox import (
    MAX_REMEMBERED,
    Claim,
    Delete,
    Done,
    Outbox,
    Priority,
    Put,
    Render,
    Send,
    digest,
)

__all__ = [
    "MAX_REMEMBERED",
    "Claim",
    "Delete",
    "Done",
    "Outbox",
    "Pace",
    "Priority",
    "Put",
    "Render",
    "Send",
    "SlidingWindow",
    "TokenBucket",
    "digest",
]
