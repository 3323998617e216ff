"""Telling the races at a kill that no Bot API client can close from a bot's faults.

Telegram has taken a bell (or its deletion) and the process dies before it stores so. The Bot
API has no idempotency key and no way to list a chat's messages, so that bell stays (or that
deletion is made again, and refused as "message to delete not found"). Such an event is told
apart from a bug by the bot's own log: a kill came after the bot asked, and the log says the
bot stored it fewer times than it asked ("bell 1101/51 rung and stored", "... gone and
forgotten").
"""

from __future__ import annotations

from typing import Any

from testkit.fake_telegram import FakeTelegramServer

STORED = {"sendMessage": "rung and stored", "deleteMessage": "gone and forgotten"}
"""What the bot logs once it has stored that Telegram took a bell, or its deletion."""


def raced(
    server: FakeTelegramServer,
    kills: list[float],
    log: str,
    method: str,
    chat: int,
    message: int,
) -> bool:
    """Whether Telegram took ``method`` on that bell and the process was killed before it
    stored so (the race): a kill came after it asked, and the bot's log says it stored it fewer
    times than Telegram was asked (a deletion refused as "not found" is stored too)."""
    calls = [
        call
        for call in server.calls_of(method)
        if call.params.get("chat_id") == chat
        and call.finished is not None
        and message in (call.params.get("message_id"), sent_id(call))
    ]
    taken = [call for call in calls if call.ok]
    if not taken or log.count(f"bell {chat}/{message} {STORED[method]}") >= len(calls):
        return False
    # Killed once the request was on its way: Telegram may even finish it after the kill.
    return any(kill >= taken[0].started for kill in kills)


def sent_id(call: Any) -> int | None:
    """The id of the message a call posted (None: it posted none)."""
    return call.result.get("message_id") if isinstance(call.result, dict) else None
