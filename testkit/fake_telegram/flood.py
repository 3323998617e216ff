"""Telegram's flood limits (:class:`FloodLimits`) and the fake's accounting of them
(:class:`_Flood`): per private chat, per group, overall."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FloodLimits:
    """Telegram's flood limits, as its documentation states them ("avoid sending more than one
    message per second in a single chat", "no more than 20 messages per minute in the same
    group", "no more than 30 messages per second" overall): past them a request gets
    ``429 Too Many Requests: retry after N``, and the chat (or the bot) stays refused for N
    seconds. Every request that sends, edits or deletes a message counts, whatever its outcome.

    A private chat is a token bucket (a short burst, then about one a second); a group and the
    whole bot are sliding windows. ``faster(k)`` runs the same limits with time k times faster,
    so end-to-end tests keep them without waiting a minute for a group's budget.
    """

    private_burst: int = 3
    private_per_second: float = 1.0
    group_messages: int = 20
    group_window: float = 60.0
    overall_messages: int = 30
    overall_window: float = 1.0

    def faster(self, factor: float) -> FloodLimits:
        return FloodLimits(
            self.private_burst,
            self.private_per_second * factor,
            self.group_messages,
            self.group_window / factor,
            self.overall_messages,
            self.overall_window / factor,
        )


# Methods that send, edit or delete a message: the ones the flood limits count.
FLOOD_METHODS = frozenset(
    {
        "sendmessage",
        "senddocument",
        "editmessagetext",
        "editmessagereplymarkup",
        "deletemessage",
        "deletemessages",
    }
)


class _Flood:
    """The fake's flood accounting: per private chat, per group, overall."""

    def __init__(self, limits: FloodLimits) -> None:
        self.limits = limits
        self.buckets: dict[int, tuple[float, float]] = {}  # private chat -> (tokens, stamp)
        self.windows: dict[int, list[float]] = {}  # group -> times of its recent requests
        self.overall: list[float] = []
        self.refused_until: dict[int | None, float] = {}  # chat (None: the bot) -> time

    def check(self, chat_id: int, now: float) -> float:
        """0 and the request counted, or the seconds to wait (the request refused)."""
        limits = self.limits
        wait = max(
            self.refused_until.get(chat_id, 0.0) - now,
            self.refused_until.get(None, 0.0) - now,
        )
        overall = _window_wait(self.overall, limits.overall_messages, limits.overall_window, now)
        if chat_id < 0:
            group = self.windows.setdefault(chat_id, [])
            chat_wait = _window_wait(group, limits.group_messages, limits.group_window, now)
        else:
            tokens, stamp = self.buckets.get(chat_id, (float(limits.private_burst), now))
            refill = (now - stamp) * limits.private_per_second
            tokens = min(float(limits.private_burst), tokens + refill)
            # A token short by a float's rounding (1e-16) is a whole one: what is counted is
            # requests, and summing fractions of a second must not refuse one that arrived.
            chat_wait = 0.0 if tokens >= 1 - 1e-9 else (1 - tokens) / limits.private_per_second
        if wait > 0 or overall > 0 or chat_wait > 0:
            if overall > 0:
                self.refused_until[None] = max(self.refused_until.get(None, 0.0), now + overall)
            if chat_wait > 0:
                until = now + chat_wait
                self.refused_until[chat_id] = max(self.refused_until.get(chat_id, 0.0), until)
            return max(wait, overall, chat_wait)
        self.overall.append(now)
        if chat_id < 0:
            self.windows[chat_id].append(now)
        else:
            self.buckets[chat_id] = (tokens - 1, now)
        return 0.0


def _window_wait(times: list[float], limit: int, window: float, now: float) -> float:
    while times and times[0] + window <= now:
        times.pop(0)
    return 0.0 if len(times) < limit else times[0] + window - now
