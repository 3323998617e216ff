"""What waits in the outbox: the priorities, the three kinds of work (show a live message,
send one, delete one), the entries of a chat's queue and the queue itself."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import warnings
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from datetime import timedelta
from enum import IntEnum
from typing import Protocol

from telegram import InlineKeyboardMarkup
from telegram.error import Forbidden, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

from bot.delivery.limits import Changes, Pace, TokenBucket, overdue, rank

MAX_REMEMBERED = 50_000
"""Messages whose content is remembered in memory (the store keeps the tables' and hands')."""
MAX_CAPTION = 1024
"""UTF-16 units Telegram takes in a document's caption."""
GONE = ("message to edit not found", "message can't be edited", "message_id_invalid")
CLOSED_FOR = 60.0
"""Seconds a group that Telegram said is closed to the bot gets nothing more, unless the bot is
seen back there first (another instance may have seen it added again)."""
HELD = 0.05
"""Seconds a live message waits before asking again for its delivery, held by another
instance (which is sending, editing or deleting it now)."""
STORE_WAIT = 1.0
"""Seconds the work of a chat waits when the store did not answer, before it is tried again;
what Telegram did is told to the store again after this, then after twice as long each time,
up to :data:`STORE_WAIT_MAX`."""
STORE_WAIT_MAX = 8.0


class Priority(IntEnum):
    """What goes first within a chat (and, among chats, for the overall budget)."""

    REPLY = 0
    """What someone just asked for and looks at: command replies (identical ones merge;
    dropped when they cannot go out in time) and the lobby's changes. They are few (a chat's
    budget bounds them), so they go first, also among chats for the overall budget."""
    HAND = 1
    """The player's hand, the turn bell, reminders: what a player is waiting for."""
    TABLE = 2
    """The group's live table: it coalesces, so it waits for what a person asked for."""
    NOTICE = 3
    """Hand results, the final ranking, notices to the group: never dropped."""
    CLEANUP = 4
    """Deleting messages that something newer replaced."""


RESERVE = {Priority.TABLE: 1, Priority.NOTICE: 1, Priority.CLEANUP: 1}
"""Tokens of a chat's bucket that the table, notices and clean-ups leave for the more urgent
(the same budget, spent in another order)."""


def digest(text: str, markup: InlineKeyboardMarkup | None) -> str:
    """A short fingerprint of a message's text and buttons (stored, to skip identical edits)."""
    buttons = "" if markup is None else json.dumps(markup.to_dict(), sort_keys=True)
    return hashlib.sha256(f"{text}\x00{buttons}".encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Render:
    """What a live message should show now, and which message shows it."""

    message_id: int | None
    """The message to edit; None: send a new one."""
    shown: str | None
    """The stored digest of what that message shows (to skip an identical edit)."""
    text: str
    markup: InlineKeyboardMarkup | None = None
    pending: str | None = None
    """The stored digest of the edit sent last; when it is not ``shown``, the bot stopped
    before Telegram answered it, and the message shows one of the two."""


Renderer = Callable[[], Awaitable[Render | None]]
"""What a live message shows, made when its turn comes (None: nothing to show any more): it
reads the store off the event loop, or what the store keeps in memory."""

Stored = Callable[[], object]
"""A write to the store alone (what a message shows now), which the outbox runs off the event
loop before the chat's next piece of work."""


@dataclass(frozen=True, slots=True)
class Then:
    """A write to the store that the outbox runs off the event loop, then ``then`` on the
    loop, told what the write returned (what follows depends on it being stored)."""

    write: Stored
    then: Callable[[object], None]


Done = Callable[[int | None, str | None], Stored | Then | None]
"""Told the message id and digest once a message shows its render (None, None: the chat is
closed to the bot); it may return the store's write that records it (and what follows it),
for the outbox to run off the event loop."""


class Claim(Protocol):
    """The delivery of one live message among the bot's instances: taken before it is
    rendered, sent, edited or deleted, given back once the outcome is stored."""

    def take(self) -> bool:
        """Take the delivery, unless another instance holds it; whether it is taken."""

    def release(self) -> None:
        """Give it back."""


@dataclass(slots=True)
class Put:
    """Show a live message's latest render: edit it, or send it when it is gone or ``fresh``;
    ``retire`` deletes the previous message once the new one is sent."""

    render: Render | Renderer
    """What it shows: a fixed render, or one made when its turn comes."""
    done: Done
    fresh: bool = False
    retire: bool = False
    sending: Callable[[str | None], None] | None = None
    """Told the digest of an edit about to be sent (stored as ``Render.pending``), and the
    message's digest again when Telegram refused that edit (it shows what it showed)."""
    retired_text: str | None = None
    """What the retired message is edited to say if Telegram refuses to delete it."""
    claim: Claim | None = None
    """Held while the message is rendered and shown (None: this process is the only one)."""
    thread: int | None = None
    """The forum topic a new message goes to (None: the chat itself)."""


@dataclass(slots=True)
class Send:
    """Send a new message (with ``document``, a file named and its content: ``text`` is its
    caption)."""

    text: str
    markup: InlineKeyboardMarkup | None = None
    reply_to: int | None = None
    done: Callable[[int | None], Stored | Then | None] | None = None
    document: tuple[str, bytes] | None = None
    thread: int | None = None
    """The forum topic it goes to (None: the chat itself)."""
    sending: Callable[[], bool] | None = None
    """Asked (of the store) just before it is sent: False, it was sent already (by another
    instance, or before a restart), so it is not sent again (``done`` is told None)."""


@dataclass(slots=True)
class Delete:
    """Delete a message (``done`` once it is gone)."""

    message_id: int
    done: Callable[[], Stored | None] | None = None
    instead: str | None = None
    """What the message is edited to say when Telegram refuses to delete it (too old)."""
    claim: Claim | None = None
    """Held while the message is deleted (None: this process is the only one)."""
    still: Stored | None = None
    """Asked (under the claim) just before the deletion: False when the message is gone
    already (another instance deleted it), and nothing is done."""


Work = Put | Send | Delete


@dataclass(eq=False, slots=True)
class Entry:
    """One waiting piece of work in a chat's queue."""

    key: Hashable
    work: Work
    priority: Priority
    seq: int
    since: float
    due: float
    expires: float | None = None
    attempts: int = 0
    gathering: bool = False

    def rank(self, now: float, pace: Pace) -> tuple[bool, float, int]:
        """Lower goes first (:func:`bot.delivery.limits.rank`), then the older."""
        return (*rank(self.priority, self.since, now, pace), self.seq)

    def reserve(self, now: float, pace: Pace, replies_had_a_turn: bool) -> int:
        """Tokens of the chat's bucket the entry leaves for the more urgent (:data:`RESERVE`).
        Once it waited too long (``Pace.patience``) it leaves none if a reply just had its
        turn (:meth:`ChatQueue.replies_had_a_turn`): a stream of commands holds it no longer,
        while a rare command still finds its token however long the table waited."""
        if overdue(self.since, now, pace) and replies_had_a_turn:
            return 0
        return RESERVE.get(self.priority, 0)


@dataclass(eq=False)
class ChatQueue:
    """A chat's waiting work, its budget and the task that works it."""

    chat_id: int
    bucket: TokenBucket
    entries: dict[Hashable, Entry] = field(default_factory=dict)
    paused_until: float = 0.0
    changes: Changes = field(default_factory=Changes)
    task: asyncio.Task[None] | None = None
    replied: dict[str, tuple[float, int]] = field(default_factory=dict)
    """Replies sent lately: their digest, when, and their message."""
    pointed: dict[str, float] = field(default_factory=dict)
    """When a reply sent lately was last pointed up at (by its digest)."""
    shown_at: dict[Hashable, float] = field(default_factory=dict)
    deleting: set[int] = field(default_factory=set)
    entering: Entry | None = None
    """The entry waiting for a place in the overall budget."""
    current: Entry | None = None
    """The entry being delivered (its requests in flight)."""
    urgent: Changes = field(default_factory=Changes)
    """Told when more urgent work than that entry comes."""
    closing: bool = False
    """Telegram just said the chat is closed to the bot: ``on_closed`` is to be told."""
    replied_at: float = -math.inf
    """When the chat's latest request went out if it was a reply (:attr:`Priority.REPLY`);
    -inf if it was not."""
    sent_at: float = -math.inf
    """When the chat's latest request went out."""
    turn: float = 0.0
    """Seconds of one of the chat's turns (:meth:`replies_had_a_turn`)."""

    def went(self, priority: Priority, now: float, shared: bool = False) -> None:
        """A request of ``priority`` went out at ``now`` (``shared``: the chat's budget is
        shared by instances)."""
        token = 1 / self.bucket.rate
        gap = now - self.sent_at if shared and math.isfinite(self.sent_at) else 0.0
        self.turn = min(max(token, gap), 4 * token)
        self.sent_at = now
        self.replied_at = now if priority == Priority.REPLY else -math.inf

    def replies_had_a_turn(self, now: float) -> bool:
        """Whether the chat's latest request was a reply, sent less than two of the chat's
        turns ago: the rest then has its turn. A turn is a token of its budget; where the
        instances share the budget, the time between its latest two requests when longer
        (the shared budget spaces them so), up to four tokens. A reply that came after the
        rest went, or two turns after a reply (the rest may have waited for the overall
        budget meanwhile), goes first."""
        return now - self.replied_at < 2 * self.turn  # -inf until a request went

    def ordered(self, entries: list[Entry], now: float, pace: Pace) -> list[Entry]:
        """``entries`` in the order they go: by rank, but replies first unless they just had
        a turn (:meth:`replies_had_a_turn`: replies and the rest then take turns)."""
        ranked = sorted(entries, key=lambda e: e.rank(now, pace))
        if not self.replies_had_a_turn(now):
            ranked.sort(key=lambda e: e.priority != Priority.REPLY)  # stable: ranks kept
        return ranked


class Later(Exception):
    """The request was refused for now (429, network, the store away): the entry goes back in
    the queue (unless not ``again``), its chat paused for ``seconds`` (only the entry, unless
    ``pause``); ``counts`` as an attempt; ``sent``: Telegram may have taken it all the same."""

    def __init__(
        self,
        seconds: float,
        counts: bool,
        again: bool = True,
        pause: bool = True,
        sent: bool = False,
    ) -> None:
        super().__init__(seconds)
        self.seconds, self.counts, self.again, self.pause = seconds, counts, again, pause
        self.sent = sent


SHARED_MARGIN = 1.1
"""How much slower than a chat's pace the instances share its budget (their messages reach
Telegram with a little jitter, and nobody counts them again when they finish)."""

Reserve = Callable[[int, float, int], float]
"""Takes a place for a message in a chat's budget shared by the bot's instances (chat, seconds
between messages, burst): 0.0, or the seconds to wait (:meth:`storage.Store.reserve_message`)."""


def closes_chat(error: TelegramError) -> bool:
    """Whether Telegram's refusal says the bot can no longer write in a group: removed
    ("bot was kicked from the group chat", "bot is not a member of the supergroup chat"), or
    the group is gone ("chat not found")."""
    return isinstance(error, Forbidden) or "chat not found" in error.message.lower()


def topic_gone(error: TelegramError) -> bool:
    """Whether Telegram refused a message for its forum topic: deleted ("message thread not
    found"), closed, or the group's topics turned off."""
    message = error.message.lower()
    return "thread not found" in message or "topic_closed" in message or "topic_deleted" in message


def retry_seconds(error: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (as an int or a timedelta, whichever way
    python-telegram-bot is set to give it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
