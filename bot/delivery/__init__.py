"""Delivery: every message the bot sends, edits or deletes, within Telegram's flood limits.

:mod:`bot.delivery.outbox` holds the queues (one per chat) and decides what goes next,
:mod:`bot.delivery.courier` makes the requests and tells the store what Telegram did,
:mod:`bot.delivery.work` names what waits, and :mod:`bot.delivery.limits` holds the limits the
bot keeps and the counters that keep them.
"""

from bot.delivery.limits import Pace, SlidingWindow, TokenBucket
from bot.delivery.outbox import Outbox
from bot.delivery.work import (
    MAX_REMEMBERED,
    Claim,
    Delete,
    Done,
    Priority,
    Put,
    Render,
    Renderer,
    Send,
    Stored,
    Then,
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
    "Renderer",
    "Send",
    "SlidingWindow",
    "Stored",
    "Then",
    "TokenBucket",
    "digest",
]
