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
  most; a rare command finds its token however long the table waited); but a reply goes
  first, in its chat and in the overall budget, unless the request before went to a reply too
  (in the chat, lately: two of its turns ago) (a backlog of hands and tables does not hold a
  lobby tap or a command; a storm of replies leaves the rest every other place);
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
import itertools
import logging
import math
from collections.abc import Awaitable, Callable, Hashable

from telegram import Bot, InlineKeyboardMarkup

from bot.delivery.courier import Courier
from bot.delivery.limits import Clock, Pace, TokenBucket
from bot.delivery.work import (
    CLOSED_FOR,
    MAX_CAPTION,
    ChatQueue,
    Claim,
    Delete,
    Done,
    Entry,
    Later,
    Priority,
    Put,
    Render,
    Renderer,
    Reserve,
    Send,
    Stored,
    Then,
    Work,
    digest,
)
from bot.render.length import clip, split

log = logging.getLogger(__name__)


class Outbox(Courier):
    """The bot's outgoing messages, one queue per chat, within Telegram's limits."""

    def __init__(
        self,
        bot: Bot,
        pace: Pace | None = None,
        clock: Clock | None = None,
        shared: Reserve | None = None,
        unavailable: tuple[type[Exception], ...] = (),
        off: Callable[[Stored], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(bot, pace, clock, shared, unavailable, off)
        self.chats: dict[int, ChatQueue] = {}
        self.dropped = 0
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
        render: Render | Renderer,
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
        thread: int | None = None,
    ) -> None:
        """Show the latest render of a live message (posted in the forum topic ``thread`` when
        it is posted anew), after ``delay`` seconds; a waiting put of
        the same key merges into this one (rendered once, when its turn comes; ``fresh`` and
        ``retire`` stick). With a ``claim``, it is rendered and shown while no other instance
        delivers the same message.

        ``gather`` is for changes that come in bursts (a player's taps): shown at once when the
        message was not edited in the last ``Pace.gather`` seconds, else once the taps pause
        for that long, so a burst of taps costs one edit of the final state, or two.
        """
        queue, now = self._queue(chat_id), self.clock()
        work = Put(render, done, fresh, retire, sending, retired_text, claim, thread)
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
        done: Callable[[int | None], Stored | Then | None] | None = None,
        key: Hashable = None,
        document: tuple[str, bytes] | None = None,
        sending: Callable[[], bool] | None = None,
        thread: int | None = None,
    ) -> None:
        """Send a new message (a ``document``: a file, ``text`` its caption), in the forum
        topic ``thread`` (by default, a reply's: the topic of the message it replies to). A reply
        (:attr:`Priority.REPLY`) identical to one waiting (or going out) merges into it; one
        identical to a reply sent in the group within ``reply_ttl`` gets a short pointer up at
        it instead (:meth:`_point_up`); one that cannot go out within ``reply_ttl`` is
        dropped. A message to be sent once at most asks ``sending`` first
        (:attr:`Send.sending`)."""
        parts = [clip(text, MAX_CAPTION)] if document is not None else split(text)
        if not parts:
            return
        queue, expires = self._queue(chat_id), None
        if thread is None and reply_to is not None:
            thread = self.threads.get((chat_id, reply_to))
        if len(parts) > 1:  # too long for one message: whole lines in several, all sent
            for part in parts[:-1]:
                self._add(queue, None, Send(part, None, reply_to, thread=thread), priority)
            text, reply_to = parts[-1], None
        elif priority == Priority.REPLY:
            content = digest(text, markup) + ("" if thread is None else f"@{thread}")
            sent = queue.replied.get(content)
            going = queue.current is not None and queue.current.key == content
            if content in queue.entries or going:  # it goes (or is going) out anyway
                self.dropped += 1
                return
            if chat_id < 0 and sent is not None and self.clock() - sent[0] < self.pace.reply_ttl:
                self._point_up(queue, content, sent[1])
                return
            key, expires = content, self.clock() + self.pace.reply_ttl
        elif key is not None and key in queue.entries:
            return
        work = Send(text, markup, reply_to, done, document, thread, sending)
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
        thread = self.threads.get((queue.chat_id, message_id))
        work = Send(self.pointer(queue.chat_id), None, message_id, thread=thread)
        key = ("again", content)
        self._add(queue, key, work, Priority.REPLY, expires=now + self.pace.reply_ttl)

    def delete(
        self,
        chat_id: int,
        message_id: int,
        done: Callable[[], Stored | None] | None = None,
        priority: Priority = Priority.CLEANUP,
        instead: str | None = None,
        *,
        claim: Claim | None = None,
        still: Stored | None = None,
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
            and queue.ordered([entering, entry], now, self.pace)[0] is entry
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
                queue.current = entry
                try:
                    await self._perform(queue, entry)
                except Later as later:
                    self._again(queue, entry, later)
                except Exception:
                    if not self.is_closed(queue.chat_id):
                        log.exception("delivery to %s failed: %r", queue.chat_id, entry.work)
                finally:
                    queue.current = None
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
        ranked = queue.ordered(due, now, self.pace)
        turn = queue.replies_had_a_turn(now)
        reserves = [e.reserve(now, self.pace, turn) for e in ranked]
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

    def _say_instead(self, chat_id: int, message_id: int, text: str) -> None:
        """A message that cannot be deleted is edited to say ``text``, without buttons."""
        self.put(
            chat_id,
            ("instead", message_id),
            Render(message_id, None, text),
            lambda _id, _shown: None,
            Priority.CLEANUP,
        )

    def _retire(self, chat_id: int, message_id: int, instead: str | None) -> None:
        """Delete a message a newer one replaced (edited to say ``instead`` if it cannot be)."""
        self.delete(chat_id, message_id, instead=instead)
