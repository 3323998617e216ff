"""How one piece of the outbox's work goes out (:class:`Courier`): the requests to Telegram
within the chat's and the overall budgets, what a refusal means (429, a message gone, a chat
closed to the bot), and what the store is told once Telegram answers. Which piece goes next is
the outbox's (:mod:`bot.delivery.outbox`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import cast

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.delivery.limits import Clock, Gate, Pace
from bot.delivery.work import (
    GONE,
    HELD,
    MAX_REMEMBERED,
    SHARED_MARGIN,
    STORE_WAIT,
    STORE_WAIT_MAX,
    ChatQueue,
    Claim,
    Delete,
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
    closes_chat,
    digest,
    retry_seconds,
    topic_gone,
)
from bot.render.length import clip

log = logging.getLogger(__name__)


class Courier:
    """Delivers the outbox's entries, one request at a time, and remembers what the chats
    show; :class:`~bot.delivery.outbox.Outbox` adds the queues."""

    def __init__(
        self,
        bot: Bot,
        pace: Pace | None = None,
        clock: Clock | None = None,
        shared: Reserve | None = None,
        unavailable: tuple[type[Exception], ...] = (),
        off: Callable[[Stored], Awaitable[object]] | None = None,
    ) -> None:
        self.bot = bot
        self.pace = pace or Pace()
        self.shared = shared
        """Where the instances of a bot reserve a chat's messages (None: this is the only one)."""
        self.unavailable = unavailable
        """What renders and callbacks raise when the store did not answer: the work is tried
        again later (:data:`STORE_WAIT`), what Telegram did is stored once it answers."""
        self.off = off or _at_once
        """Runs a write to the store (:data:`~bot.delivery.work.Stored`) off the event loop."""
        self.clock = clock or (lambda: asyncio.get_running_loop().time())
        self.gate = Gate(self.pace, self.clock)
        self.shown: dict[tuple[int, int], str] = {}
        self.on_topic_gone: Callable[[int, int], None] | None = None
        """Told of a forum topic Telegram refused a message for (deleted or closed): what
        played there plays in the group itself from now on."""
        self.threads: dict[tuple[int, int], int] = {}
        """The forum topic of the messages seen in one (chat, message): where replies go."""
        self.newest: dict[tuple[int, int | None], int] = {}
        """The newest message id seen (sent, or received) in each chat and forum topic (None:
        the chat itself, or a forum's General): how far down it is."""
        self.sent = 0
        self.refused = 0
        self.closed = False
        self.closed_chats: dict[int, float] = {}
        """Groups closed to the bot, and until when nothing goes there."""

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

    def remember(
        self, chat_id: int, message_id: int, shown: str, thread: int | None = None
    ) -> None:
        """What a message (in the forum topic ``thread``) shows, as Telegram confirmed it."""
        key = (chat_id, message_id)
        self.shown.pop(key, None)  # re-insert: the dict keeps the most recent last
        self.shown[key] = shown
        while len(self.shown) > MAX_REMEMBERED:
            del self.shown[next(iter(self.shown))]  # the message edited longest ago
        self.saw(chat_id, message_id, thread)

    def saw(self, chat_id: int, message_id: int, thread: int | None = None) -> None:
        """A message exists in the chat (the bot's, or one an update brought), in the forum
        topic ``thread``: a reply to it goes there too."""
        if thread is not None:
            self.threads[(chat_id, message_id)] = thread
            if len(self.threads) > MAX_REMEMBERED:
                del self.threads[next(iter(self.threads))]
        else:
            thread = self.threads.get((chat_id, message_id))
        if message_id > self.newest.get((chat_id, thread), 0):
            self.newest[(chat_id, thread)] = message_id

    # --- requests ---------------------------------------------------------------------------------

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
        wait = await self._shared_wait(queue.chat_id)
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
            work = entry.work
            if isinstance(work, Put | Send) and work.thread is not None and topic_gone(error):
                log.warning(
                    "topic %s of %s is gone: to the group instead", work.thread, queue.chat_id
                )
                if self.on_topic_gone is not None:
                    self.on_topic_gone(queue.chat_id, work.thread)
                work.thread = None  # the forum's topic was deleted or closed: not lost for it
                raise Later(0.0, counts=False) from error
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
                queue.went(entry.priority, self.clock(), shared=self.shared is not None)
            self.gate.leave(counted)

    def _closed_by_telegram(self, queue: ChatQueue, error: TelegramError) -> None:
        """Telegram says the group is closed to the bot: nothing more goes there."""
        if not self.is_closed(queue.chat_id):
            log.info("group %s is closed to the bot: %s", queue.chat_id, error.message)
            self.close_chat(queue.chat_id)
            queue.closing = True

    async def _shared_wait(self, chat_id: int) -> float:
        """Seconds until the chat's budget shared with the other instances lets a message out
        (0: its place is taken now), asked off the event loop. A failure to ask lets it out:
        Telegram's 429 is the net."""
        shared = self.shared
        if shared is None:
            return 0.0
        group = chat_id < 0
        rate = self.pace.group_rate if group else self.pace.private_rate
        burst = self.pace.group_burst if group else self.pace.private_burst
        # A little under the chat's own pace: the instances' messages arrive with jitter.
        interval, at_once = SHARED_MARGIN / rate, max(1, burst - 1)
        try:
            return cast(float, await self.off(lambda: shared(chat_id, interval, at_once)))
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
        if work.claim is not None and not await self._note(queue, work.claim.take):
            self.gate.leave(counted=False)
            raise Later(HELD, counts=False, pause=False)  # another instance delivers it now
        try:
            if isinstance(work, Put):
                await self._put(queue, entry, work)
            else:
                await self._delete(queue, entry, work)
        finally:
            if work.claim is not None:
                await self._release(work.claim)

    async def _render(self, queue: ChatQueue, render: Render | Renderer) -> Render | None:
        """A live message's render, made while the entry holds its place in the overall
        budget: on a failure the place is given back, and when the store did not answer, the
        entry goes back in the queue for later."""
        if isinstance(render, Render):
            return render
        try:
            return await render()
        except Exception as error:
            if self._store_away(queue, error):
                raise Later(STORE_WAIT, counts=False) from error
            raise

    async def _note(self, queue: ChatQueue, note: Stored) -> object:
        """Ask the store a question before a request (a claim, whether a message is still
        there) or store a note (the edit about to be sent, a message about to be sent once at
        most), off the event loop, as :meth:`_render` asks; what it returned."""
        try:
            return await self.off(note)
        except Exception as error:
            if self._store_away(queue, error):
                raise Later(STORE_WAIT, counts=False) from error
            raise

    def _store_away(self, queue: ChatQueue, error: Exception) -> bool:
        """A question to the store failed: the entry's place in the overall budget is given
        back; whether the store did not answer (then the entry waits, :class:`Later`)."""
        self.gate.leave(counted=False)
        away = isinstance(error, self.unavailable)
        if away:
            log.warning("delivery to %s waits for the database: %s", queue.chat_id, error)
        return away

    async def _release(self, claim: Claim) -> None:
        """Give back a delivery's claim, off the event loop."""
        try:
            await self.off(claim.release)
        except Exception:  # the database is away: the claim went with its connection
            log.exception("a delivery could not be given back")

    async def _tell(self, queue: ChatQueue, tell: Callable[[], Stored | Then | None]) -> None:
        """Tell the store what Telegram did (a message id, a digest; the write ``tell`` returns
        runs off the event loop): what the bot shows next depends on it, so when the store
        does not answer, the chat waits and tells it again until it does (or the outbox
        closes)."""
        wait = STORE_WAIT
        while True:
            try:
                write = tell()
                if isinstance(write, Then):
                    write.then(await self.off(write.write))
                elif write is not None:
                    await self.off(write)
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
        render = await self._render(queue, work.render)
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
                await self._note(queue, lambda: sending(content))
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
                await self._refused(queue, work.sending, render.shown)
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

    async def _refused(
        self, queue: ChatQueue, sending: Callable[[str | None], None], shown: str | None
    ) -> None:
        """Telegram refused an edit (429): the message shows what it showed, and the store says
        so, off the event loop (else the edit's fate would look unknown, and the message be
        posted anew)."""
        try:
            await self.off(lambda: sending(shown))
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
                lambda: self._post(chat_id, render.text, render.markup, thread=work.thread),
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
            self._retire(chat_id, old, work.retired_text)

    async def _shown(self, queue: ChatQueue, entry: Entry, message_id: int, content: str) -> None:
        """A live message shows its render now (as Telegram confirmed)."""
        work = entry.work
        assert isinstance(work, Put)
        self.remember(queue.chat_id, message_id, content, work.thread)
        queue.shown_at.pop(entry.key, None)
        queue.shown_at[entry.key] = self.clock()
        if len(queue.shown_at) > 20:
            del queue.shown_at[next(iter(queue.shown_at))]
        await self._tell(queue, lambda: work.done(message_id, content))

    async def _send(self, queue: ChatQueue, entry: Entry, work: Send) -> None:
        chat_id = queue.chat_id
        if work.sending is not None and not await self._note(queue, work.sending):
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
                lambda: self._post(
                    chat_id, work.text, work.markup, work.reply_to, work.document, work.thread
                ),
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
        self.remember(chat_id, sent.message_id, digest(work.text, work.markup), work.thread)
        if work.done is not None:
            done = work.done
            await self._tell(queue, lambda: done(sent.message_id))

    async def _delete(self, queue: ChatQueue, entry: Entry, work: Delete) -> None:
        if work.still is not None and not await self._note(queue, work.still):
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
        thread: int | None = None,
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
                message_thread_id=thread,
            )
        return self.bot.send_message(
            chat_id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            reply_parameters=reply,
            message_thread_id=thread,
        )

    # --- what the outbox does with its queues -------------------------------------------------

    def close_chat(self, chat_id: int) -> None:
        """Nothing more goes to the group ``chat_id``."""
        raise NotImplementedError

    def _retire(self, chat_id: int, message_id: int, instead: str | None) -> None:
        """Delete a message a newer one replaced."""
        raise NotImplementedError

    def _say_instead(self, chat_id: int, message_id: int, text: str) -> None:
        """Edit a message that cannot be deleted to say ``text``."""
        raise NotImplementedError


async def _at_once(write: Stored) -> object:
    """Run a write to the store on the event loop (an outbox without the store's threads)."""
    return write()
