"""The outbox: every message the bot sends, edits or deletes goes out here, within the limits.

Telegram takes about 20 messages a minute in a group, about one a second in a private chat (with
short bursts) and 30 a second from a bot overall, edits included, and answers ``429 retry after N``
past them. python-telegram-bot's ``AIORateLimiter`` pauses *every* request after a 429, the
answers to button presses included, and cannot merge what is waiting; so the bot keeps the
limits itself, here:

- one queue per chat, worked by its own task: a 429 pauses that chat only, and a busy group never
  slows another chat;
- a token bucket per chat and a sliding window over all chats, each counting a request from the
  moment its answer arrives and (the window) every request still in flight, so the bot never
  exceeds a limit however late its requests reach Telegram;
- coalescing: a message that is shown live (a table, a hand, a lobby, a turn bell) has one entry
  per key, rendered when its turn comes, so a burst of changes becomes one edit of the final
  state, and an edit identical to what the message shows costs nothing;
- priorities (:class:`Priority`): what a person waits for first (what someone just asked for:
  a command's reply, the lobby's change; then the hand), then the table (it coalesces, so it
  can wait), then summaries; waiting raises an entry's rank (``Pace.aging``), and the table,
  notices and clean-ups leave a token in the bucket (:data:`RESERVE`): a tap or a command
  finds one even while a match spends the chat's budget; so that nothing starves, what waited
  longer than ``Pace.patience`` ranks with the replies, and leaves no token only while replies
  keep taking it (a stream of commands delays the table and the summaries by that much at
  most; a rare command finds its token however long the table waited);
- command replies are absorbed: identical ones merge, one sent recently is answered by a short
  pointer up at it (:attr:`Outbox.pointer`), and a reply that cannot go out within
  ``Pace.reply_ttl`` is dropped, never queued for minutes;
- a group closed to the bot (Telegram answers 403, the bot was removed, or 400 "chat not found")
  gets nothing more: what waits for it is dropped, what comes for it too, for
  :data:`CLOSED_FOR` seconds or until the bot is back there (:meth:`Outbox.reopen_chat`), and
  ``on_closed`` is told once (it ends what belonged to the group);
- several instances of the bot: a live message's delivery is claimed (:class:`Claim`), so one
  instance at a time renders, sends, edits or deletes it, and stores the outcome;
- a store that does not answer (``unavailable``): what was to be shown waits and is rendered
  again once it answers, and what Telegram did is stored then, never forgotten.

Answers to button presses (``answerCallbackQuery``) never pass through here: the handlers answer
directly, so a press is answered at once whatever the chat's budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import math
import warnings
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from enum import IntEnum
from typing import Protocol, TypeVar

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.warnings import PTBDeprecationWarning

from bot.delivery.limits import Changes, Clock, Gate, Pace, TokenBucket, overdue, rank
from bot.render.length import clip, split

log = logging.getLogger(__name__)

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

_T = TypeVar("_T")


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


Done = Callable[[int | None, str | None], None]
"""Told the message id and digest once a message shows its render (None, None: the chat is
closed to the bot)."""


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

    render: Callable[[], Render | None]
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


@dataclass(slots=True)
class Send:
    """Send a new message (with ``document``, a file named and its content: ``text`` is its
    caption)."""

    text: str
    markup: InlineKeyboardMarkup | None = None
    reply_to: int | None = None
    done: Callable[[int | None], None] | None = None
    document: tuple[str, bytes] | None = None
    sending: Callable[[], bool] | None = None
    """Asked (of the store) just before it is sent: False, it was sent already (by another
    instance, or before a restart), so it is not sent again (``done`` is told None)."""


@dataclass(slots=True)
class Delete:
    """Delete a message (``done`` once it is gone)."""

    message_id: int
    done: Callable[[], None] | None = None
    instead: str | None = None
    """What the message is edited to say when Telegram refuses to delete it (too old)."""
    claim: Claim | None = None
    """Held while the message is deleted (None: this process is the only one)."""
    still: Callable[[], bool] | None = None
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

    def reserve(self, now: float, pace: Pace, replied_at: float) -> int:
        """Tokens of the chat's bucket the entry leaves for the more urgent (:data:`RESERVE`).
        Once it waited too long (``Pace.patience``) it leaves none if a reply took the spare
        token lately (``replied_at``, within the patience): a stream of commands holds it no
        longer, while a rare command still finds its token however long the table waited."""
        if overdue(self.since, now, pace) and now - replied_at <= pace.patience:
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
    urgent: Changes = field(default_factory=Changes)
    """Told when more urgent work than that entry comes."""
    closing: bool = False
    """Telegram just said the chat is closed to the bot: ``on_closed`` is to be told."""
    replied_at: float = -math.inf
    """When the chat's last reply (:attr:`Priority.REPLY`) went out."""


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


class Outbox:
    """The bot's outgoing messages, one queue per chat, within Telegram's limits."""

    def __init__(
        self,
        bot: Bot,
        pace: Pace | None = None,
        clock: Clock | None = None,
        shared: Reserve | None = None,
        unavailable: tuple[type[Exception], ...] = (),
    ) -> None:
        self.bot = bot
        self.pace = pace or Pace()
        self.shared = shared
        """Where the instances of a bot reserve a chat's messages (None: this is the only one)."""
        self.unavailable = unavailable
        """What renders and callbacks raise when the store did not answer: the work is tried
        again later (:data:`STORE_WAIT`), what Telegram did is stored once it answers."""
        self.clock = clock or (lambda: asyncio.get_running_loop().time())
        self.gate = Gate(self.pace, self.clock)
        self.chats: dict[int, ChatQueue] = {}
        self.shown: dict[tuple[int, int], str] = {}
        self.newest: dict[int, int] = {}
        """The newest message id seen in each chat (sent, or received): how far down it is."""
        self.sent = 0
        self.dropped = 0
        self.refused = 0
        self.closed = False
        self.closed_chats: dict[int, float] = {}
        """Groups closed to the bot, and until when nothing goes there."""
        self.on_closed: Callable[[int], Awaitable[None]] | None = None
        """Told of a group Telegram said is closed to the bot (in that chat's worker)."""
        self.pointer: Callable[[int], str] | None = None
        """The text that answers, in a chat, a reply identical to one sent there lately (it
        points up at it); None: such a reply is not sent again."""
        self._seq = itertools.count()

    # --- what callers ask for ----------------------------------------------------------------

    def put(
        self,
        chat_id: int,
        key: Hashable,
        render: Callable[[], Render | None],
        done: Done,
        priority: Priority,
        *,
        fresh: bool = False,
        retire: bool = False,
        delay: float = 0.0,
        gather: bool = False,
        sending: Callable[[str | None], None] | None = None,
        retired_text: str | None = None,
        claim: Claim | None = None,
    ) -> None:
        """Show the latest render of a live message, after ``delay`` seconds; a waiting put of
        the same key merges into this one (rendered once, when its turn comes; ``fresh`` and
        ``retire`` stick). With a ``claim``, it is rendered and shown while no other instance
        delivers the same message.

        ``gather`` is for changes that come in bursts (a player's taps): shown at once when the
        message was not edited in the last ``Pace.gather`` seconds, else once the taps pause
        for that long, so a burst of taps costs one edit of the final state, or two.
        """
        queue, now = self._queue(chat_id), self.clock()
        work = Put(render, done, fresh, retire, sending, retired_text, claim)
        due = now + delay
        if gather and now - queue.shown_at.get(key, -math.inf) < self.pace.gather:
            due = now + self.pace.gather
        waiting = queue.entries.get(key)
        if isinstance(waiting, Entry) and isinstance(waiting.work, Put):
            work.fresh |= waiting.work.fresh
            work.retire |= waiting.work.retire
            work.retired_text = work.retired_text or waiting.work.retired_text
            waiting.work = work
            waiting.priority = min(waiting.priority, priority)
            if gather and waiting.gathering:
                waiting.due = max(waiting.due, now + self.pace.gather)
            else:
                waiting.due, waiting.gathering = min(waiting.due, due), False
            self._wake(queue)
            return
        self._add(queue, key, work, priority, delay=due - now, gathering=gather)

    def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        priority: Priority = Priority.REPLY,
        *,
        reply_to: int | None = None,
        done: Callable[[int | None], None] | None = None,
        key: Hashable = None,
        document: tuple[str, bytes] | None = None,
        sending: Callable[[], bool] | None = None,
    ) -> None:
        """Send a new message (a ``document``: a file, ``text`` its caption). A reply
        (:attr:`Priority.REPLY`) identical to one waiting merges into it; one identical to a
        reply sent in the group within ``reply_ttl`` gets a short pointer up at it instead
        (:meth:`_point_up`); one that cannot go out within ``reply_ttl`` is dropped. A message
        to be sent once at most asks ``sending`` first (:attr:`Send.sending`)."""
        parts = [clip(text, MAX_CAPTION)] if document is not None else split(text)
        if not parts:
            return
        queue, expires = self._queue(chat_id), None
        if len(parts) > 1:  # too long for one message: whole lines in several, all sent
            for part in parts[:-1]:
                self._add(queue, None, Send(part, None, reply_to), priority)
            text, reply_to = parts[-1], None
        elif priority == Priority.REPLY:
            content = digest(text, markup)
            sent = queue.replied.get(content)
            if content in queue.entries:
                self.dropped += 1
                return
            if chat_id < 0 and sent is not None and self.clock() - sent[0] < self.pace.reply_ttl:
                self._point_up(queue, content, sent[1])
                return
            key, expires = content, self.clock() + self.pace.reply_ttl
        elif key is not None and key in queue.entries:
            return
        work = Send(text, markup, reply_to, done, document, sending)
        self._add(queue, key, work, priority, expires=expires)

    def _point_up(self, queue: ChatQueue, content: str, message_id: int) -> None:
        """Answer a reply sent lately again with a short pointer up at it; a flood of the same
        command gets one pointer every ``Pace.point_gap`` seconds at most."""
        now = self.clock()
        pointed = queue.pointed.get(content)
        if self.pointer is None or (pointed is not None and now - pointed < self.pace.point_gap):
            self.dropped += 1
            return
        queue.pointed[content] = now
        if len(queue.pointed) > 100:
            queue.pointed.pop(next(iter(queue.pointed)))
        work = Send(self.pointer(queue.chat_id), None, message_id)
        key = ("again", content)
        self._add(queue, key, work, Priority.REPLY, expires=now + self.pace.reply_ttl)

    def delete(
        self,
        chat_id: int,
        message_id: int,
        done: Callable[[], None] | None = None,
        priority: Priority = Priority.CLEANUP,
        instead: str | None = None,
        *,
        claim: Claim | None = None,
        still: Callable[[], bool] | None = None,
    ) -> None:
        """Delete a message (by default after the more urgent work of its chat); ``done`` once
        it is gone (also when Telegram says it was gone already); edited to say ``instead``
        when Telegram will not delete it. Asked again while it is being deleted, nothing more
        happens. With a ``claim``, one instance at a time deletes it, and only while it is
        ``still`` there."""
        self.shown.pop((chat_id, message_id), None)
        queue = self._queue(chat_id)
        if message_id in queue.deleting:
            return
        queue.deleting.add(message_id)
        work = Delete(message_id, done, instead, claim, still)
        self._add(queue, ("delete", message_id), work, priority)

    def close_chat(self, chat_id: int) -> None:
        """Nothing more goes to the group ``chat_id`` (the bot is no longer there): what waits
        for it is dropped now, what comes for it later too, for :data:`CLOSED_FOR` seconds."""
        self.closed_chats[chat_id] = self.clock() + CLOSED_FOR
        queue = self.chats.get(chat_id)
        if queue is not None:
            for entry in list(queue.entries.values()):
                self._drop(queue, entry.work)
            queue.entries.clear()
            queue.changes.notify()  # its worker need not wait for what was due

    def reopen_chat(self, chat_id: int) -> None:
        """The bot is in the group ``chat_id`` (again): messages go there."""
        self.closed_chats.pop(chat_id, None)

    def is_closed(self, chat_id: int) -> bool:
        """Whether nothing goes to ``chat_id`` now."""
        until = self.closed_chats.get(chat_id)
        if until is not None and until <= self.clock():
            del self.closed_chats[chat_id]
            return False
        return until is not None

    def _drop(self, queue: ChatQueue, work: Work) -> None:
        """Work for a closed chat, dropped: its callers hear that the chat is closed."""
        self.dropped += 1
        if isinstance(work, Put):
            work.done(None, None)
        elif isinstance(work, Send):
            if work.done is not None:
                work.done(None)
        else:
            queue.deleting.discard(work.message_id)

    def remember(self, chat_id: int, message_id: int, shown: str) -> None:
        """What a message shows (as Telegram confirmed it)."""
        key = (chat_id, message_id)
        self.shown.pop(key, None)  # re-insert: the dict keeps the most recent last
        self.shown[key] = shown
        while len(self.shown) > MAX_REMEMBERED:
            del self.shown[next(iter(self.shown))]  # the message edited longest ago
        self.saw(chat_id, message_id)

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message exists in the chat (the bot's, or one an update brought)."""
        if message_id > self.newest.get(chat_id, 0):
            self.newest[chat_id] = message_id

    async def close(self, grace: float) -> None:
        """Let the waiting work go out for ``grace`` seconds at most, then stop every worker
        (what is still waiting is dropped; the store has the state to show after a restart)."""
        deadline = self.clock() + grace
        while (tasks := self._tasks()) and (left := deadline - self.clock()) > 0:
            await asyncio.wait(tasks, timeout=left)
        self.closed = True
        tasks = self._tasks()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.waiting():
            log.warning("stopped with %d messages still waiting", self.waiting())

    async def drain(self) -> None:
        """Wait until every queue is empty and nothing is in flight (tests, shutdown)."""
        while tasks := self._tasks():
            await asyncio.gather(*tasks, return_exceptions=True)

    def _tasks(self) -> set[asyncio.Task[None]]:
        return {q.task for q in self.chats.values() if q.task is not None}

    def waiting(self) -> int:
        """Entries waiting in every queue."""
        return sum(len(q.entries) for q in self.chats.values())

    @property
    def idle(self) -> bool:
        """Nothing waiting, nothing in flight."""
        return all(q.task is None for q in self.chats.values())

    # --- queues ---------------------------------------------------------------------------

    def _queue(self, chat_id: int) -> ChatQueue:
        queue = self.chats.get(chat_id)
        if queue is None:
            pace, now = self.pace, self.clock()
            if chat_id < 0:
                bucket = TokenBucket(pace.group_burst, pace.group_rate, now)
            else:
                bucket = TokenBucket(pace.private_burst, pace.private_rate, now)
            if len(self.chats) >= 10_000:
                self._forget_idle(now)
            queue = self.chats[chat_id] = ChatQueue(chat_id, bucket)
        return queue

    def _forget_idle(self, now: float) -> None:
        """Drop the queues of chats that are idle with a full bucket (nothing to remember)."""
        for chat_id, queue in list(self.chats.items()):
            idle = queue.task is None and not queue.entries and queue.paused_until <= now
            if idle and queue.bucket.tokens(now) >= queue.bucket.burst:
                del self.chats[chat_id]

    def _add(
        self,
        queue: ChatQueue,
        key: Hashable,
        work: Work,
        priority: Priority,
        *,
        delay: float = 0.0,
        expires: float | None = None,
        gathering: bool = False,
    ) -> None:
        if self.is_closed(queue.chat_id):
            self._drop(queue, work)
            return
        seq = next(self._seq)
        now = self.clock()
        key = ("entry", seq) if key is None else key
        entry = Entry(key, work, priority, seq, now, now + delay, expires, gathering=gathering)
        queue.entries[key] = entry
        entering = queue.entering
        if (
            entering is not None
            and not delay
            and entry.rank(now, self.pace) < entering.rank(now, self.pace)
        ):
            queue.urgent.notify()
        self._wake(queue)

    def _wake(self, queue: ChatQueue) -> None:
        """Tell the chat's worker there is new work (and start one if none runs)."""
        queue.changes.notify()
        if queue.task is None and not self.closed:
            queue.task = asyncio.create_task(self._work(queue))

    async def _work(self, queue: ChatQueue) -> None:
        try:
            while (entry := await self._next(queue)) is not None:
                try:
                    await self._perform(queue, entry)
                except Later as later:
                    self._again(queue, entry, later)
                except Exception:
                    if not self.is_closed(queue.chat_id):
                        log.exception("delivery to %s failed: %r", queue.chat_id, entry.work)
                if queue.closing:
                    queue.closing = False
                    await self._tell_closed(queue.chat_id)
        finally:
            queue.task = None

    async def _tell_closed(self, chat_id: int) -> None:
        if self.on_closed is None:
            return
        try:
            await self.on_closed(chat_id)
        except Exception:
            log.exception("ending what belonged to %s failed", chat_id)

    async def _next(self, queue: ChatQueue) -> Entry | None:
        """The entry to perform now, with its place in the overall budget taken."""
        while True:
            now = self.clock()
            self._expire(queue, now)
            if not queue.entries:
                return None
            due = [e for e in queue.entries.values() if e.due <= now]
            if not due:
                await queue.changes.wait(min(e.due for e in queue.entries.values()) - now)
                continue
            entry, wait = self._first(queue, due, now)
            if wait > 0:
                await queue.changes.wait(wait)
                continue
            if not await self._enter(queue, entry):
                continue  # new work came meanwhile: what goes first is chosen again
            if entry.expires is not None and entry.expires <= self.clock():
                self.gate.leave(counted=False)  # expired while waiting: _expire drops it
                continue
            del queue.entries[entry.key]
            return entry

    async def _enter(self, queue: ChatQueue, entry: Entry) -> bool:
        """Take a place in the overall budget for ``entry``; False (no place taken) when more
        urgent work came to its chat first (a reply while the table waits): it goes first."""
        queue.entering = entry
        entering = asyncio.ensure_future(self.gate.enter(entry.priority, entry.since))
        changed = asyncio.ensure_future(queue.urgent.wait(None))
        try:
            await asyncio.wait({entering, changed}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the outbox closes: no place is kept
            queue.entering = None
            changed.cancel()
            entering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await entering
                self.gate.leave(counted=False)
            raise
        queue.entering = None
        changed.cancel()
        if entering.done():
            await entering
            return True
        entering.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await entering
            return True  # it took its place as it was told to stop
        return False

    def _first(self, queue: ChatQueue, due: list[Entry], now: float) -> tuple[Entry, float]:
        """The best-ranked entry the chat's bucket lets out now, or the seconds until one: an
        entry that leaves a token for the more urgent (:data:`RESERVE`) does not hold back
        one that may take it."""
        ranked = sorted(due, key=lambda e: e.rank(now, self.pace))
        reserves = [e.reserve(now, self.pace, queue.replied_at) for e in ranked]
        waits = [queue.bucket.delay(now, reserve) for reserve in reserves]
        first = next((n for n, wait in enumerate(waits) if wait <= 0), None)
        paused = queue.paused_until - now
        if first is None:
            return ranked[0], max(paused, min(waits))
        return ranked[first], paused

    def _expire(self, queue: ChatQueue, now: float) -> None:
        for key, entry in list(queue.entries.items()):
            if entry.expires is not None and entry.expires <= now:
                del queue.entries[key]
                self.dropped += 1
                log.info("dropped a reply to %s: no budget", queue.chat_id)

    def _again(self, queue: ChatQueue, entry: Entry, later: Later) -> None:
        """Put an entry back after a refusal, unless a newer one of its key replaced it."""
        now = self.clock()
        if later.pause:
            queue.paused_until = max(queue.paused_until, now + later.seconds)
        else:
            entry.due = now + later.seconds
        entry.attempts += later.counts
        if not later.again or entry.attempts > self.pace.retries:
            log.warning("gave up delivering to %s: %r", queue.chat_id, entry.work)
            if isinstance(entry.work, Delete):
                queue.deleting.discard(entry.work.message_id)
            return
        newer = queue.entries.get(entry.key)
        if newer is None:
            queue.entries[entry.key] = entry
        elif isinstance(newer.work, Put) and isinstance(entry.work, Put):
            newer.work.fresh |= entry.work.fresh
            newer.work.retire |= entry.work.retire
            newer.seq, newer.since = entry.seq, entry.since

    # --- requests -----------------------------------------------------------------------------

    async def _call(
        self,
        queue: ChatQueue,
        entry: Entry,
        request: Callable[[], Awaitable[object]],
        held: bool,
        sends: bool = False,
    ) -> object:
        """One request to Telegram within the budgets (``held``: the overall place is taken;
        ``sends``: it posts a new message, so it is not made again after a timeout, when
        Telegram may have posted it)."""
        if not held:
            await self._budget(queue, entry)
        wait = self._shared_wait(queue.chat_id)
        if wait > 0:  # other instances used the chat's budget: wait as for a 429, unsent
            self.gate.leave(counted=False)
            raise Later(wait, counts=False)
        counted = True
        try:
            return await request()
        except RetryAfter as error:
            counted = False
            self.refused += 1
            seconds = retry_seconds(error)
            log.warning("429 in %s: retry after %.1f s", queue.chat_id, seconds)
            raise Later(seconds, counts=False) from error
        except (BadRequest, Forbidden) as error:
            if queue.chat_id < 0 and closes_chat(error):
                self._closed_by_telegram(queue, error)
            raise
        except NetworkError as error:
            sent = "not sent" not in error.message.replace("*", "")  # "Request was *not* sent"
            if sends and isinstance(error, TimedOut) and sent:
                log.warning("a message to %s timed out; not sent again", queue.chat_id)
                raise Later(0.0, counts=True, again=False, sent=True) from error
            raise Later(1.0, counts=True, sent=sent) from error
        finally:
            if counted:
                queue.bucket.spend(self.clock())
                self.sent += 1
                if entry.priority == Priority.REPLY:
                    queue.replied_at = self.clock()
            self.gate.leave(counted)

    def _closed_by_telegram(self, queue: ChatQueue, error: TelegramError) -> None:
        """Telegram says the group is closed to the bot: nothing more goes there."""
        if not self.is_closed(queue.chat_id):
            log.info("group %s is closed to the bot: %s", queue.chat_id, error.message)
            self.close_chat(queue.chat_id)
            queue.closing = True

    def _shared_wait(self, chat_id: int) -> float:
        """Seconds until the chat's budget shared with the other instances lets a message out
        (0: its place is taken now). A failure to ask lets it out: Telegram's 429 is the net."""
        if self.shared is None:
            return 0.0
        group = chat_id < 0
        rate = self.pace.group_rate if group else self.pace.private_rate
        burst = self.pace.group_burst if group else self.pace.private_burst
        try:  # a little under the chat's own pace: the instances' messages arrive with jitter
            return self.shared(chat_id, SHARED_MARGIN / rate, max(1, burst - 1))
        except Exception:
            log.exception("the shared budget of chat %s could not be read", chat_id)
            return 0.0

    async def _budget(self, queue: ChatQueue, entry: Entry) -> None:
        """Wait for the chat's bucket and the overall budget (a request within one entry)."""
        while True:
            now = self.clock()
            wait = max(queue.paused_until - now, queue.bucket.delay(now))
            if wait <= 0:
                break
            await asyncio.sleep(wait)
        await self.gate.enter(entry.priority, entry.since)

    async def _perform(self, queue: ChatQueue, entry: Entry) -> None:
        work = entry.work
        if isinstance(work, Send):
            await self._send(queue, entry, work)
            return
        if work.claim is not None and not self._ask(queue, work.claim.take):
            self.gate.leave(counted=False)
            raise Later(HELD, counts=False, pause=False)  # another instance delivers it now
        try:
            if isinstance(work, Put):
                await self._put(queue, entry, work)
            else:
                await self._delete(queue, entry, work)
        finally:
            if work.claim is not None:
                self._release(work.claim)

    def _ask(self, queue: ChatQueue, ask: Callable[[], _T]) -> _T:
        """Ask the store (a claim, a render, a note) while the entry holds its place in the
        overall budget: on a failure the place is given back, and when the store did not
        answer, the entry goes back in the queue for later."""
        try:
            return ask()
        except Exception as error:
            self.gate.leave(counted=False)
            if isinstance(error, self.unavailable):
                log.warning("delivery to %s waits for the database: %s", queue.chat_id, error)
                raise Later(STORE_WAIT, counts=False) from error
            raise

    def _release(self, claim: Claim) -> None:
        try:
            claim.release()
        except Exception:  # the database is away: the claim went with its connection
            log.exception("a delivery could not be given back")

    async def _tell(self, queue: ChatQueue, tell: Callable[[], None]) -> None:
        """Tell the store what Telegram did (a message id, a digest): what the bot shows next
        depends on it, so when the store does not answer, the chat waits and tells it again
        until it does (or the outbox closes)."""
        wait = STORE_WAIT
        while True:
            try:
                tell()
                return
            except self.unavailable as error:
                chat_id = queue.chat_id
                if self.closed:
                    log.warning("delivery to %s: its outcome is not stored: %s", chat_id, error)
                    return
                log.warning("delivery to %s waits for the database: %s", chat_id, error)
                await asyncio.sleep(wait)
                wait = min(wait * 2, STORE_WAIT_MAX)

    async def _put(self, queue: ChatQueue, entry: Entry, work: Put) -> None:
        render = self._ask(queue, work.render)
        if render is None:
            self.gate.leave(counted=False)
            return
        render = replace(render, text=clip(render.text))
        content = digest(render.text, render.markup)
        held = True
        if not work.fresh and render.message_id is not None:
            known = self.shown.get((queue.chat_id, render.message_id))
            if known is not None and render.shown is not None and known != render.shown:
                known = None  # another instance edited it since: the stored digest tells
            if render.pending not in (None, render.shown):
                # The last edit's fate is unknown (whoever sent it, this process before a
                # restart or another instance, stopped before storing it): an edit to either
                # content could be refused as "not modified", so that one is posted anew.
                if content in (render.pending, render.shown):
                    work.fresh = work.retire = True
            elif (known or render.shown) == content:
                self.gate.leave(counted=False)  # it shows that already
                await self._tell(queue, lambda: work.done(render.message_id, content))
                return
        if not work.fresh and render.message_id is not None:
            if work.sending is not None:
                sending = work.sending
                self._ask(queue, lambda: sending(content))
            edited = await self._edit_in_place(queue, entry, render, content)
            if edited is not False:
                return
            work.fresh, held = True, False  # the message is gone: send it anew
        await self._send_anew(queue, entry, render, content, held)

    async def _edit_in_place(
        self, queue: ChatQueue, entry: Entry, render: Render, content: str
    ) -> bool | None:
        """Edit the render's message: True when done, None when the chat is closed to the
        bot, False when the message is gone."""
        work = entry.work
        assert isinstance(work, Put) and render.message_id is not None
        chat_id, message_id = queue.chat_id, render.message_id
        try:
            await self._call(queue, entry, lambda: self._edit(chat_id, render), held=True)
        except Later as later:
            if not later.sent and work.sending is not None:
                self._refused(queue, work.sending, render.shown)
            raise
        except Forbidden:
            await self._tell(queue, lambda: work.done(None, None))
            return None
        except BadRequest as error:
            text = error.message.lower()
            if "not modified" not in text:
                if not any(gone in text for gone in GONE):
                    raise
                log.info("message %s/%s is gone: %s", chat_id, message_id, error.message)
                self.shown.pop((chat_id, message_id), None)
                return False
        await self._shown(queue, entry, message_id, content)
        return True

    def _refused(
        self, queue: ChatQueue, sending: Callable[[str | None], None], shown: str | None
    ) -> None:
        """Telegram refused an edit (429): the message shows what it showed, and the store says
        so (else the edit's fate would look unknown, and the message be posted anew)."""
        try:
            sending(shown)
        except self.unavailable:
            log.warning("delivery to %s: a refused edit looks unknown", queue.chat_id)

    async def _send_anew(
        self, queue: ChatQueue, entry: Entry, render: Render, content: str, held: bool
    ) -> None:
        """Send the render as a new message (and retire the old one, for a bell)."""
        work = entry.work
        assert isinstance(work, Put)
        chat_id = queue.chat_id
        try:
            sent = await self._call(
                queue,
                entry,
                lambda: self._post(chat_id, render.text, render.markup),
                held,
                sends=True,
            )
        except Forbidden:
            await self._tell(queue, lambda: work.done(None, None))
            return
        assert isinstance(sent, Message)
        await self._shown(queue, entry, sent.message_id, content)
        old = render.message_id
        if work.retire and old is not None and old != sent.message_id:
            self.delete(chat_id, old, instead=work.retired_text)

    async def _shown(self, queue: ChatQueue, entry: Entry, message_id: int, content: str) -> None:
        """A live message shows its render now (as Telegram confirmed)."""
        work = entry.work
        assert isinstance(work, Put)
        self.remember(queue.chat_id, message_id, content)
        queue.shown_at.pop(entry.key, None)
        queue.shown_at[entry.key] = self.clock()
        if len(queue.shown_at) > 20:
            del queue.shown_at[next(iter(queue.shown_at))]
        await self._tell(queue, lambda: work.done(message_id, content))

    async def _send(self, queue: ChatQueue, entry: Entry, work: Send) -> None:
        chat_id = queue.chat_id
        if work.sending is not None and not self._ask(queue, work.sending):
            self.gate.leave(counted=False)
            log.info("a message to %s was sent already: not sent again", chat_id)
            if work.done is not None:
                done = work.done
                await self._tell(queue, lambda: done(None))
            return
        try:
            sent = await self._call(
                queue,
                entry,
                lambda: self._post(chat_id, work.text, work.markup, work.reply_to, work.document),
                held=True,
                sends=True,
            )
        except Forbidden:
            log.info("chat %s is closed to the bot", chat_id)
            if work.done is not None:
                done = work.done
                await self._tell(queue, lambda: done(None))
            return
        assert isinstance(sent, Message)
        if entry.priority == Priority.REPLY and isinstance(entry.key, str):
            queue.replied[entry.key] = (self.clock(), sent.message_id)
            if len(queue.replied) > 100:
                queue.replied.pop(next(iter(queue.replied)))
        self.remember(chat_id, sent.message_id, digest(work.text, work.markup))
        if work.done is not None:
            done = work.done
            await self._tell(queue, lambda: done(sent.message_id))

    async def _delete(self, queue: ChatQueue, entry: Entry, work: Delete) -> None:
        if work.still is not None and not self._ask(queue, work.still):
            self.gate.leave(counted=False)  # another instance deleted it already
            queue.deleting.discard(work.message_id)
            return
        try:
            await self._call(
                queue,
                entry,
                lambda: self.bot.delete_message(queue.chat_id, work.message_id),
                held=True,
            )
        except Later:
            raise  # it goes back in the queue, still being deleted
        except (BadRequest, Forbidden) as error:
            log.info("delete of %s/%s failed: %s", queue.chat_id, work.message_id, error)
            if "not found" not in error.message:
                queue.deleting.discard(work.message_id)
                if work.instead is not None:
                    self._say_instead(queue.chat_id, work.message_id, work.instead)
                return
        except BaseException:
            queue.deleting.discard(work.message_id)
            raise
        queue.deleting.discard(work.message_id)
        if work.done is not None:
            await self._tell(queue, work.done)

    def _say_instead(self, chat_id: int, message_id: int, text: str) -> None:
        """A message that cannot be deleted is edited to say ``text``, without buttons."""
        self.put(
            chat_id,
            ("instead", message_id),
            lambda: Render(message_id, None, text),
            lambda _id, _shown: None,
            Priority.CLEANUP,
        )

    def _edit(self, chat_id: int, render: Render) -> Awaitable[object]:
        assert render.message_id is not None
        return self.bot.edit_message_text(
            render.text,
            chat_id,
            render.message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=render.markup,
        )

    def _post(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None,
        reply_to: int | None = None,
        document: tuple[str, bytes] | None = None,
    ) -> Awaitable[Message]:
        reply = (
            None
            if reply_to is None
            else ReplyParameters(reply_to, allow_sending_without_reply=True)
        )
        if document is not None:
            name, content = document
            return self.bot.send_document(
                chat_id,
                InputFile(content, filename=name),
                caption=text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                reply_parameters=reply,
            )
        return self.bot.send_message(
            chat_id, text, parse_mode=ParseMode.HTML, reply_markup=markup, reply_parameters=reply
        )


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


def retry_seconds(error: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (as an int or a timedelta, whichever way
    python-telegram-bot is set to give it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
