"""The fake Bot API server: :class:`FakeTelegramServer`, its lifecycle, simulated world,
update queue, waits, HTTP handling and Bot API methods."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import inspect
import itertools
import json
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .constants import (
    CHAT_ACTIONS,
    COMMAND_SCOPES,
    DEFAULT_BOT_NAME,
    DEFAULT_BOT_USERNAME,
    DEFAULT_TOKEN,
    DELETE_WINDOW,
    JSON,
    MAX_CALLBACK_ANSWER_LENGTH,
    MAX_CAPTION_LENGTH,
    MAX_COMMANDS,
    MAX_MESSAGE_LENGTH,
    MAX_UPLOAD_BYTES,
    NOT_SENT_BY_DEFAULT,
    QUERY_TIMEOUT,
)
from .errors import (
    ERR_ANSWER_TOO_LONG,
    ERR_BLOCKED,
    ERR_CANT_DELETE,
    ERR_CANT_EDIT,
    ERR_CANT_INITIATE,
    ERR_CAPTION_TOO_LONG,
    ERR_CHAT_NOT_FOUND,
    ERR_CONFLICT_POLL,
    ERR_CONFLICT_WEBHOOK,
    ERR_DELETE_NOT_FOUND,
    ERR_EDIT_NOT_FOUND,
    ERR_MIGRATED,
    ERR_NOT_A_FORUM,
    ERR_NOT_MODIFIED,
    ERR_PARSE_ENTITIES,
    ERR_PIN_NOT_FOUND,
    ERR_PIN_RIGHTS,
    ERR_QUERY_INVALID,
    ERR_REPLY_NOT_FOUND,
    ERR_TEXT_EMPTY,
    ERR_TEXT_TOO_LONG,
    ERR_THREAD_NOT_FOUND,
    ERR_TOPIC_RIGHTS,
    ERR_USER_NOT_FOUND,
    ApiError,
    bad_request,
    forbidden,
)
from .flood import FLOOD_METHODS, FloodLimits, _Flood
from .html import HtmlParseError, _utf16_slice, parse_html, trim_text, utf16_len
from .markup import validate_reply_markup
from .webhook import WebhookSender
from .wire import _dumps, _read_params
from .world import ApiCall, CallbackRecord, FakeChat, FakeMessage, FakeUser

if TYPE_CHECKING:
    from telegram.ext import Application, ApplicationBuilder


Handler = Callable[[JSON], Any]


class FakeTelegramServer:
    """Fake Bot API server with simulated users, groups and a long-polling update queue."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_id: int | None = None,
        bot_username: str = DEFAULT_BOT_USERNAME,
        bot_name: str = DEFAULT_BOT_NAME,
        privacy_mode: bool = True,
        strict_html: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
        flood_limits: FloodLimits | None = FloodLimits(),  # noqa: B008 (a frozen dataclass)
        query_timeout: float = QUERY_TIMEOUT,
    ) -> None:
        self.token = token
        self.bot_id = bot_id if bot_id is not None else int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.privacy_mode = privacy_mode
        self.strict_html = strict_html
        self.host = host
        self._listen_port = port  # 0: any free one
        self.port: int | None = None

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.calls: list[ApiCall] = []
        self.callbacks: dict[str, CallbackRecord] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.menu_buttons: dict[int | None, JSON] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}  # (kind, language_code) -> text
        self.webhook = WebhookSender(self)
        """Delivers the updates to the bot's webhook once it sets one (:mod:`.webhook`)."""
        self.allowed_updates: list[str] = []
        self.application: Application[Any, Any, Any, Any, Any, Any] | None = None
        self.internal_errors: list[Exception] = []  # bugs in this fake server (should be [])
        self.flood = None if flood_limits is None else _Flood(flood_limits)
        self.query_timeout = query_timeout
        self.flood_refusals: list[ApiCall] = []  # requests refused by the flood limits (429)

        self._updates: list[JSON] = []  # queued, not yet confirmed by an offset
        self._update_ids = itertools.count(10_000)
        self._callback_ids = itertools.count(4_000_000_000_000_000_001)
        self._seq = itertools.count(1)
        self._in_flight: dict[int, ApiCall] = {}
        self._parked: set[int] = set()  # seq of getUpdates calls waiting for updates
        self._poll_generation = 0
        self._polling_seen = False
        self._faults: dict[str, list[tuple[int | None, ApiError]]] = {}
        self._version = 0
        self._changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._handlers: dict[str, tuple[str, Handler]] = {}
        for name, handler in self._builtin_methods().items():
            self.register_method(name, handler)
        self._known_api_methods = _ptb_api_method_names()

    # lifecycle ----------------------------------------------------------------------------

    async def start(self) -> FakeTelegramServer:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        runner = web.AppRunner(
            app, handle_signals=False, handler_cancellation=True, shutdown_timeout=2.0
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._listen_port)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        self._closing = True
        self._notify()
        await self.webhook.stop()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> FakeTelegramServer:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder().base_url(...)`` (PTB appends the token)."""
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://{self.host}:{self.port}/file/bot"

    @property
    def bot_user(self) -> JSON:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
        }

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """``ApplicationBuilder`` with token, base_url and base_file_url set for this server."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    @contextlib.asynccontextmanager
    async def run(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        *,
        polling: bool = True,
        poll_timeout: float = 10,
        allowed_updates: list[str] | None = None,
        drop_pending_updates: bool | None = None,
    ) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
        """Run ``application`` as ``run_polling`` would, inside the current loop.

        initialize -> post_init -> updater.start_polling -> start; on exit updater.stop ->
        stop -> post_stop -> shutdown -> post_shutdown.  With ``polling=False`` no Updater is
        started: feed updates with :meth:`feed`.
        """
        self.application = application
        await application.initialize()
        try:
            if application.post_init:
                await application.post_init(application)
            if polling:
                if application.updater is None:
                    raise AssertionError("the application was built without an Updater")
                await application.updater.start_polling(
                    timeout=dt.timedelta(seconds=poll_timeout),
                    allowed_updates=allowed_updates,
                    drop_pending_updates=drop_pending_updates,
                )
            await application.start()
            try:
                yield application
            finally:
                if application.updater is not None and application.updater.running:
                    await application.updater.stop()
                if application.running:
                    await application.stop()
                    if application.post_stop:
                        await application.post_stop(application)
        finally:
            await application.shutdown()
            if application.post_shutdown:
                await application.post_shutdown(application)
            self.application = None

    # extension points --------------------------------------------------------------------

    def register_method(self, name: str, handler: Handler) -> None:
        """Add or replace a Bot API method: ``handler(params) -> result`` (may be async and
        may raise :class:`ApiError`)."""
        self._handlers[name.lower()] = (name, handler)

    def hold(self, method: str, first: int | None = None) -> asyncio.Event:
        """Hold requests of ``method`` in flight, unanswered, until the returned event is set
        (as when Telegram is slow to answer): every one, or the ``first`` ones from now."""
        name, handler = self._handlers[method.lower()]
        released = asyncio.Event()
        left = [first]

        async def held(params: JSON) -> Any:
            if left[0] is None or left[0] > 0:
                if left[0] is not None:
                    left[0] -= 1
                await released.wait()
            result = handler(params)
            return await result if inspect.isawaitable(result) else result

        self._handlers[method.lower()] = (name, held)
        return released

    def fail_next(
        self,
        method: str,
        error_code: int = 429,
        *,
        retry_after: int = 1,
        description: str | None = None,
        migrate_to_chat_id: int | None = None,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (to ``chat_id``, if given) fail without
        side effects.

        429 -> "Too Many Requests: retry after N" with ``parameters.retry_after`` (PTB raises
        RetryAfter); 403 -> "Forbidden: bot was blocked by the user"; 400 -> BadRequest.
        """
        parameters: JSON | None = None
        if error_code == 429:
            description = description or f"Too Many Requests: retry after {retry_after}"
            parameters = {"retry_after": retry_after}
        elif error_code == 403:
            description = description or ERR_BLOCKED
        elif error_code == 400:
            description = description or "Bad Request: injected failure"
        else:
            description = description or f"Injected error {error_code}"
        if migrate_to_chat_id is not None:
            parameters = {**(parameters or {}), "migrate_to_chat_id": migrate_to_chat_id}
        faults = self._faults.setdefault(method.lower(), [])
        faults.extend(
            (chat_id, ApiError(error_code, description, parameters)) for _ in range(times)
        )

    # simulated world ---------------------------------------------------------------------

    def age(self, chat_id: int, message_id: int, seconds: int) -> None:
        """Make a message ``seconds`` older (as if sent that long before)."""
        msg = self.chat(chat_id).messages[message_id]
        msg.date -= seconds

    def now(self) -> int:
        return int(time.time())

    def add_user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "it",
        username: str | None = None,
        *,
        last_name: str | None = None,
    ) -> FakeUser:
        if user_id <= 0:
            raise AssertionError("user ids are positive")
        user = FakeUser(
            self,
            user_id,
            first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
        )
        self.users[user_id] = user
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[FakeUser | int] = (),
        admins: Iterable[FakeUser | int] = (),
        supergroup: bool = False,
        *,
        creator: FakeUser | int | None = None,
        bot_admin: bool = False,
        bot_member: bool = True,
        forum: bool = False,
        bot_manages_topics: bool = False,
    ) -> FakeChat:
        """A group the bot is already in (no update).  ``admins`` are members too; the creator
        defaults to the first admin.  Supergroup ids must look like ``-100...``; a ``forum``
        is a supergroup with topics (:meth:`add_topic`), where an admin bot may be allowed to
        create topics (``bot_manages_topics``)."""
        if chat_id >= 0:
            raise AssertionError("group ids are negative")
        if supergroup and not str(chat_id).startswith("-100"):
            raise AssertionError("supergroup ids look like -100xxxxxxxxxx")
        chat = FakeChat(
            self, chat_id, "supergroup" if supergroup or forum else "group", title=title
        )
        chat.is_forum = forum
        chat.bot_manages_topics = bot_manages_topics and bot_admin
        ids = [_uid(u) for u in members]
        admin_ids = [_uid(u) for u in admins]
        for uid in ids + admin_ids:
            if uid not in self.users:
                raise AssertionError(f"unknown user {uid}: add_user() first")
        chat.members = set(ids) | set(admin_ids)
        chat.admins = set(admin_ids)
        chat.creator = (
            _uid(creator) if creator is not None else (admin_ids[0] if admin_ids else None)
        )
        if chat.creator is not None:
            chat.members.add(chat.creator)
        if not bot_member:
            chat.bot_status = "left"
        elif bot_admin:
            chat.bot_status = "administrator"
        self.chats[chat_id] = chat
        return chat

    def add_topic(self, chat_id: int, name: str) -> int:
        """A topic of a forum, created by its creator: its thread id is the id of the service
        message that opened it (no update: the bot's privacy mode hides it)."""
        chat = self.chat(chat_id)
        if not chat.is_forum:
            raise AssertionError(f"chat {chat_id} is not a forum")
        creator = self.users.get(chat.creator or 0)
        sender = creator.to_api() if creator is not None else self.bot_user
        return int(self._open_topic(chat, sender, name)["message_thread_id"])

    @staticmethod
    def _open_topic(chat: FakeChat, sender: JSON, name: str, color: int = 7322096) -> JSON:
        """A forum's new topic: the service message that opens it starts its thread."""
        topic = {"name": name, "icon_color": color}
        msg = chat.add_message(sender=sender, service={"forum_topic_created": topic})
        msg.thread_id = msg.message_id
        chat.topics[msg.message_id] = name
        return {"message_thread_id": msg.message_id, **topic}

    def delete_topic(self, chat_id: int, thread: int) -> None:
        """A forum topic deleted with its messages: sending there is "message thread not
        found"."""
        chat = self.chat(chat_id)
        del chat.topics[thread]
        for msg in chat.messages.values():
            if msg.thread_id == thread:
                msg.deleted = True

    def user(self, user_id: int) -> FakeUser:
        return self.users[user_id]

    def chat(self, chat_id: int) -> FakeChat:
        try:
            return self.chats[chat_id]
        except KeyError:
            raise AssertionError(f"unknown chat {chat_id}") from None

    group = chat

    def _actor(self, chat: FakeChat, by: FakeUser | int | None) -> JSON:
        if by is not None:
            return self.users[_uid(by)].to_api()
        for uid in (chat.creator, *sorted(chat.admins), *sorted(chat.members)):
            if uid is not None and uid in self.users:
                return self.users[uid].to_api()
        return {"id": 777000, "is_bot": False, "first_name": "Telegram"}

    def delivered_to_bot(self, chat: FakeChat, msg: FakeMessage) -> bool:
        """Whether the bot receives this user message (privacy mode rules)."""
        if chat.type == "private":
            return not chat.blocked
        if not chat.bot_present:
            return False
        if msg.is_service or not self.privacy_mode or chat.bot_is_admin:
            return True
        if msg.reply_to is not None and msg.reply_to.sender.get("id") == self.bot_id:
            return True
        text = msg.text or ""
        for entity in msg.entities:
            if entity["type"] == "bot_command" and entity["offset"] == 0:
                command = _utf16_slice(text, entity["offset"], entity["length"])
                _, _, target = command.partition("@")
                return not target or target.lower() == self.bot_username.lower()
        return False

    def chat_member_updated(
        self,
        chat: FakeChat,
        actor: JSON,
        old_status: str,
        new_status: str,
        *,
        member: JSON | None = None,
    ) -> JSON:
        """A ChatMemberUpdated object (for the bot itself unless ``member`` is given)."""
        who = member if member is not None else self.bot_user
        return {
            "chat": chat.to_api(),
            "from": actor,
            "date": self.now(),
            "old_chat_member": self._member_object(chat, who, old_status),
            "new_chat_member": self._member_object(chat, who, new_status),
        }

    def _member_object(self, chat: FakeChat, user: JSON, status: str) -> JSON:
        data: JSON = {"user": user, "status": status}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            rights = dict.fromkeys(
                (
                    "is_anonymous",
                    "can_be_edited",
                    "can_manage_video_chats",
                    "can_restrict_members",
                    "can_promote_members",
                    "can_post_stories",
                    "can_edit_stories",
                    "can_delete_stories",
                ),
                False,
            )
            rights.update(
                dict.fromkeys(
                    (
                        "can_manage_chat",
                        "can_delete_messages",
                        "can_change_info",
                        "can_invite_users",
                        "can_pin_messages",
                    ),
                    True,
                )
            )
            if chat.type == "supergroup":
                is_bot = user.get("id") == self.bot_id
                rights["can_manage_topics"] = is_bot and chat.bot_manages_topics
            data.update(rights)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    # updates ------------------------------------------------------------------------------

    def enqueue(self, kind: str, payload: JSON) -> JSON | None:
        """Queue an update of ``kind`` unless the bot's ``allowed_updates`` exclude it."""
        allowed = self.allowed_updates
        if (allowed and kind not in allowed) or (not allowed and kind in NOT_SENT_BY_DEFAULT):
            return None
        update = {"update_id": next(self._update_ids), kind: payload}
        self._updates.append(update)
        self._notify()
        return update

    def enqueue_chat_member(
        self, chat: FakeChat, user: FakeUser, old_status: str, new_status: str
    ) -> JSON | None:
        """A ``chat_member`` update: only for admin bots that asked for it in allowed_updates."""
        if not chat.bot_is_admin or chat.type == "private":
            return None
        return self.enqueue(
            "chat_member",
            self.chat_member_updated(
                chat, user.to_api(), old_status, new_status, member=user.to_api()
            ),
        )

    def pending_updates(self) -> list[JSON]:
        """Queued updates not yet confirmed through getUpdates' offset (a copy)."""
        return list(self._updates)

    def pop_updates(self) -> list[JSON]:
        """Take all queued updates (for feeding ``application.process_update`` yourself)."""
        updates, self._updates = self._updates, []
        self._notify()
        return updates

    async def feed(
        self, application: Application[Any, Any, Any, Any, Any, Any] | None = None
    ) -> int:
        """Process the queued updates with ``application.process_update`` (no Updater needed);
        returns how many were processed.  Handlers have finished when this returns."""
        from telegram import Update

        app = application or self.application
        if app is None:
            raise AssertionError("feed() needs an application")
        count = 0
        while self._updates:
            for data in self.pop_updates():
                await app.process_update(Update.de_json(data, app.bot))
                count += 1
        return count

    # queries ------------------------------------------------------------------------------

    def messages(
        self,
        chat_id: int,
        *,
        from_bot: bool | None = None,
        include_deleted: bool = False,
        include_service: bool = False,
    ) -> list[FakeMessage]:
        """The chat's messages in order, as they are now (edits applied)."""
        chat = self.chats.get(chat_id)
        if chat is None:
            return []
        return [
            msg
            for msg in chat.messages.values()
            if (include_deleted or not msg.deleted)
            and (include_service or not msg.is_service)
            and (from_bot is None or msg.from_bot == from_bot)
        ]

    def last_message(self, chat_id: int, *, from_bot: bool | None = None) -> FakeMessage | None:
        found = self.messages(chat_id, from_bot=from_bot)
        return found[-1] if found else None

    def message(self, chat_id: int, message_id: int) -> FakeMessage | None:
        chat = self.chats.get(chat_id)
        return None if chat is None else chat.messages.get(message_id)

    def calls_of(self, *methods: str, ok: bool | None = None) -> list[ApiCall]:
        """Recorded calls of these methods (any case), optionally only (un)successful ones."""
        wanted = {m.lower() for m in methods}
        return [
            call
            for call in self.calls
            if (not wanted or call.method.lower() in wanted) and (ok is None or call.ok == ok)
        ]

    def mark(self) -> int:
        """The seq of the last recorded call, for ``wait_for_call(after=...)``."""
        return self.calls[-1].seq if self.calls else 0

    def my_commands(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        return self.commands.get((_scope_key(scope), language_code or ""), [])

    def unanswered_callbacks(self) -> list[CallbackRecord]:
        return [record for record in self.callbacks.values() if record.answer is None]

    # waiting ------------------------------------------------------------------------------

    def _notify(self) -> None:
        self._version += 1
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def _wait_changed(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        event = self._changed
        try:
            async with asyncio.timeout(remaining):
                await event.wait()
        except TimeoutError:
            return False
        return True

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        message: str | None = None,
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value.

        It is re-evaluated whenever the server's state changes (a call arrives or completes,
        an update is queued...).  Exceptions from it count as "not yet" (so
        ``lambda: server.last_message(c).text == "x"`` is fine).  On timeout an AssertionError
        lists the last calls and the predicate's last exception.
        """
        deadline = time.monotonic() + timeout
        last_exc: BaseException | None = None
        while True:
            try:
                value = predicate()
            except Exception as exc:
                last_exc = exc
            else:
                last_exc = None
                if value:
                    return value
            if not await self._wait_changed(deadline):
                raise AssertionError(self._timeout_report(message, timeout, last_exc))

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[ApiCall], Any] | None = None,
        *,
        after: int = 0,
        timeout: float = 10.0,
    ) -> ApiCall:
        """Wait for a completed call of ``method`` with ``seq > after`` matching ``predicate``."""

        def find() -> ApiCall | None:
            for call in self.calls_of(method):
                if call.seq > after and call.done and (predicate is None or predicate(call)):
                    return call
            return None

        found: ApiCall = await self.wait_for(
            find, timeout=timeout, message=f"no matching {method} call after #{after}"
        )
        return found

    @property
    def webhook_url(self) -> str:
        """The webhook the bot set ('' when it polls)."""
        return self.webhook.url

    def confirm_update(self, update_id: int) -> None:
        """The bot took the update (its webhook answered 2xx): it leaves the queue."""
        self._updates = [u for u in self._updates if u["update_id"] != update_id]
        self._notify()

    def changed(self) -> None:
        """Wake whoever waits for a change of the server's state."""
        self._notify()

    async def wait_changed(self, deadline: float) -> bool:
        """Wait for a change until ``deadline`` (monotonic); whether one came."""
        return await self._wait_changed(deadline)

    def is_idle(self) -> bool:
        """Server side: no update waiting, nothing in flight but a parked getUpdates (when the
        bot polls)."""
        if self._updates:
            return False
        if any(seq not in self._parked for seq in self._in_flight):
            return False
        return bool(self._parked) or not self._polling_seen

    async def wait_idle(
        self,
        application: Application[Any, Any, Any, Any, Any, Any] | None = None,
        timeout: float = 10.0,
    ) -> None:
        """Wait until the bot has consumed every queued update and is quiet again.

        Server side: :meth:`is_idle`.  Application side (``application`` or the one given to
        :meth:`run`): its update queue is fully processed and its ``create_task`` tasks are
        done.  Then the event loop is yielded a few times and everything is re-checked, so a
        handler that was about to make a request is caught.  Jobs scheduled for later are not
        waited for.
        """
        app = application or self.application
        deadline = time.monotonic() + timeout
        while True:
            await self.wait_for(
                self.is_idle,
                timeout=max(deadline - time.monotonic(), 0.0),
                message="the bot never became idle (parked in getUpdates, nothing in flight)",
            )
            if app is not None:
                try:
                    async with asyncio.timeout(max(deadline - time.monotonic(), 0.0)):
                        await app.update_queue.join()
                        tasks = [t for t in _app_tasks(app) if not t.done()]
                        if tasks:
                            await asyncio.wait(tasks)
                except TimeoutError:
                    raise AssertionError(
                        self._timeout_report(
                            "the application never finished processing its updates",
                            timeout,
                            None,
                        )
                    ) from None
            version = self._version
            for _ in range(10):
                await asyncio.sleep(0)
            if self._version == version and self.is_idle() and _app_idle(app):
                return

    def _timeout_report(
        self, message: str | None, timeout: float, exc: BaseException | None
    ) -> str:
        lines = [f"timed out after {timeout}s: {message or 'condition never became true'}"]
        if exc is not None:
            lines.append(f"predicate's last exception: {exc!r}")
        polls = len(self.calls_of("getUpdates"))
        others = [c for c in self.calls if c.method.lower() != "getupdates"]
        lines.append(
            f"{len(self.calls)} calls ({polls} getUpdates); queued updates: "
            f"{[u['update_id'] for u in self._updates]}; in flight: "
            f"{[c.method for c in self._in_flight.values()]}; last calls:"
        )
        lines.extend("  " + call.summary() for call in others[-15:])
        return "\n".join(lines)

    # HTTP ---------------------------------------------------------------------------------

    async def _handle_file(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        try:
            params = await _read_params(request)
        except ValueError as exc:
            return web.json_response(bad_request(str(exc)).to_json(), status=400)
        entry = self._handlers.get(method.lower())
        call = ApiCall(
            seq=next(self._seq),
            method=entry[0] if entry else method,
            params=params,
            started=time.monotonic(),
        )
        self.calls.append(call)
        self._in_flight[call.seq] = call
        self._notify()
        try:
            status, body = await self._dispatch(call, entry)
            call.status, call.response = status, body
        finally:
            call.finished = time.monotonic()
            self._in_flight.pop(call.seq, None)
            self._parked.discard(call.seq)
            self._notify()
        return web.json_response(body, status=status, dumps=_dumps)

    async def _dispatch(self, call: ApiCall, entry: tuple[str, Handler] | None) -> tuple[int, JSON]:
        if entry is None:
            if call.method.lower() in self._known_api_methods:
                error = bad_request(
                    f"method {call.method} is not implemented by the fake Telegram server "
                    "(see testkit/fake_telegram/server.py: register_method)"
                )
                return error.code, error.to_json()
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        faults = self._faults.get(call.method.lower(), [])
        for index, (chat_id, error) in enumerate(faults):
            if chat_id is None or chat_id == call.params.get("chat_id"):
                del faults[index]
                return error.code, error.to_json()
        flooded = self._flood_check(call)
        if flooded is not None:
            return flooded.code, flooded.to_json()
        try:
            if entry[1] == self._get_updates_placeholder:
                result = await self._get_updates(call)
            else:
                result = entry[1](call.params)
                if inspect.isawaitable(result):
                    result = await result
        except ApiError as error:
            return error.code, error.to_json()
        except Exception as exc:  # a bug in the fake server itself: make it loud
            self.internal_errors.append(exc)
            description = f"Internal fake server error in {call.method}: {exc!r}"
            return 500, {"ok": False, "error_code": 500, "description": description}
        return 200, {"ok": True, "result": result}

    def _flood_check(self, call: ApiCall) -> ApiError | None:
        """The 429 of a request past the flood limits (None: within them, and counted)."""
        chat_id = call.params.get("chat_id")
        if self.flood is None or call.method.lower() not in FLOOD_METHODS:
            return None
        if not isinstance(chat_id, int) or isinstance(chat_id, bool):
            return None
        wait = self.flood.check(chat_id, time.monotonic())
        if wait <= 0:
            return None
        self.flood_refusals.append(call)
        retry_after = max(1, math.ceil(wait))
        return ApiError(
            429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
        )

    # Bot API methods ----------------------------------------------------------------------

    def _builtin_methods(self) -> dict[str, Handler]:
        return {
            "getMe": self._get_me,
            "getUpdates": self._get_updates_placeholder,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "logOut": _true,
            "close": _true,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "deleteMessages": self._delete_messages,
            "answerCallbackQuery": self._answer_callback_query,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
            "leaveChat": self._leave_chat,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "setChatMenuButton": self._set_chat_menu_button,
            "getChatMenuButton": self._get_chat_menu_button,
            "setMyDescription": self._bot_text_setter("description"),
            "setMyShortDescription": self._bot_text_setter("short_description"),
            "setMyName": self._bot_text_setter("name"),
            "getMyDescription": self._bot_text_getter("description"),
            "getMyShortDescription": self._bot_text_getter("short_description"),
            "getMyName": self._bot_text_getter("name"),
            "pinChatMessage": self._pin_chat_message,
            "unpinChatMessage": self._unpin_chat_message,
            "unpinAllChatMessages": self._unpin_all_chat_messages,
            "sendChatAction": self._send_chat_action,
            "sendDocument": self._send_document,
            "createForumTopic": self._create_forum_topic,
        }

    def _get_updates_placeholder(self, params: JSON) -> Any:  # dispatched specially
        raise AssertionError("unreachable")

    def _get_me(self, params: JSON) -> JSON:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _get_updates(self, call: ApiCall) -> list[JSON]:
        params = call.params
        if self.webhook_url:
            raise ApiError(409, ERR_CONFLICT_WEBHOOK)
        self._polling_seen = True
        offset = _int_param(params, "offset", 0)
        limit = min(max(_int_param(params, "limit", 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = [str(kind) for kind in allowed]
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        # A newer getUpdates terminates an older waiting one, as on Telegram.
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()
        deadline = time.monotonic() + timeout
        while True:
            if self._updates:
                return self._updates[:limit]
            if generation != self._poll_generation:
                raise ApiError(409, ERR_CONFLICT_POLL)
            if self._closing or timeout <= 0:
                return []
            self._parked.add(call.seq)
            self._notify()
            try:
                changed = await self._wait_changed(deadline)
            finally:
                self._parked.discard(call.seq)
            if not changed:
                return self._updates[:limit]

    async def _delete_webhook(self, params: JSON) -> bool:
        await self.webhook.stop()
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _set_webhook(self, params: JSON) -> bool:
        if not params.get("url"):
            await self.webhook.stop()
        self.webhook.configure(params)
        if params.get("drop_pending_updates"):
            self._updates.clear()
        if isinstance(params.get("allowed_updates"), list):
            self.allowed_updates = list(params["allowed_updates"])
        return True

    def _get_webhook_info(self, params: JSON) -> JSON:
        info: JSON = {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self.webhook_url:
            info["max_connections"] = self.webhook.max_connections
        if self.webhook.last_error:
            info["last_error_date"] = int(time.time())
            info["last_error_message"] = self.webhook.last_error
        return info

    # chats

    def _resolve_chat(self, params: JSON, *, write: bool = True) -> FakeChat:
        """The chat of ``chat_id``, with Telegram's errors for unusable chats."""
        if "chat_id" not in params or params["chat_id"] in ("", None):
            raise bad_request("chat_id is empty")
        chat_id = params["chat_id"]
        if not isinstance(chat_id, int):
            raise bad_request(ERR_CHAT_NOT_FOUND)
        chat = self.chats.get(chat_id)
        if chat is None:
            if chat_id in self.users and write:
                raise forbidden(ERR_CANT_INITIATE)
            raise bad_request(ERR_CHAT_NOT_FOUND)
        if chat.type == "private":
            if not chat.started and not chat.blocked:
                if write:
                    raise forbidden(ERR_CANT_INITIATE)
                raise bad_request(ERR_CHAT_NOT_FOUND)
            if chat.blocked and write:
                raise forbidden(ERR_BLOCKED)
            return chat
        if chat.migrated_to is not None:
            raise bad_request(ERR_MIGRATED, {"migrate_to_chat_id": chat.migrated_to})
        kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
        if chat.bot_status == "kicked":
            raise forbidden(f"Forbidden: bot was kicked from the {kind}")
        if chat.bot_status == "left":
            raise forbidden(f"Forbidden: bot is not a member of the {kind}")
        return chat

    def _parse_text(
        self, params: JSON, *, key: str = "text", limit: int = MAX_MESSAGE_LENGTH
    ) -> tuple[str, list[JSON], str]:
        source = params.get(key)
        if source is None or source == "":
            raise bad_request(ERR_TEXT_EMPTY)
        if not isinstance(source, str):
            source = str(source)
        parse_mode = str(params.get("parse_mode") or "")
        explicit = params.get("entities")
        if explicit is not None:
            if not isinstance(explicit, list) or not all(
                isinstance(e, dict) and {"type", "offset", "length"} <= e.keys() for e in explicit
            ):
                raise bad_request("can't parse entities JSON object")
            text, entities = source, [dict(e) for e in explicit]
        elif parse_mode.lower() == "html":
            try:
                text, entities = parse_html(source, strict=self.strict_html)
            except HtmlParseError as exc:
                raise bad_request(ERR_PARSE_ENTITIES + str(exc)) from None
        elif parse_mode:
            if parse_mode.lower() in ("markdown", "markdownv2"):
                raise bad_request(
                    f"the fake Telegram server only implements parse_mode=HTML, not {parse_mode}"
                )
            raise bad_request("unsupported parse_mode")
        else:
            text, entities = source, []
        text, entities = trim_text(text, entities)
        if not text:
            raise bad_request(ERR_TEXT_EMPTY)
        if utf16_len(text) > limit:
            raise bad_request(ERR_TEXT_TOO_LONG if key == "text" else ERR_CAPTION_TOO_LONG)
        return text, entities, source

    def _create_forum_topic(self, params: JSON) -> JSON:
        """A new topic of a forum, opened by the bot (an admin allowed to manage topics): the
        service message that opens it is the first of its thread."""
        chat = self._resolve_chat(params)
        if not chat.is_forum:
            raise bad_request(ERR_NOT_A_FORUM)
        if chat.bot_status != "administrator" or not chat.bot_manages_topics:
            raise bad_request(ERR_TOPIC_RIGHTS)
        name = params.get("name")
        if not isinstance(name, str) or not name.strip():
            raise bad_request("Bad Request: TOPIC_TITLE_EMPTY")
        if len(name) > 128:
            raise bad_request("Bad Request: TOPIC_TITLE_TOO_LONG")
        return self._open_topic(chat, self.bot_user, name, int(params.get("icon_color") or 7322096))

    def _thread(self, chat: FakeChat, params: JSON) -> int | None:
        """The forum topic a message is sent to (``message_thread_id``): one of the chat's
        topics, else "message thread not found" (also outside a forum)."""
        thread = params.get("message_thread_id")
        if thread is None:
            return None
        if not isinstance(thread, int) or thread not in chat.topics:
            raise bad_request(ERR_THREAD_NOT_FOUND)
        return thread

    def _replied(
        self, chat: FakeChat, params: JSON, thread: int | None
    ) -> tuple[FakeMessage | None, int | None]:
        """The message a new one replies to, and the topic the new one goes to: the one given,
        else the replied message's (Telegram's way); a reply to a message of another topic is
        refused as not found."""
        reply = params.get("reply_parameters")
        reply_id = reply.get("message_id") if isinstance(reply, dict) else None
        reply_id = reply_id or params.get("reply_to_message_id")
        if not reply_id:
            return None, thread
        reply_to = chat.get_message(int(reply_id))
        allow = params.get("allow_sending_without_reply") or (
            isinstance(reply, dict) and reply.get("allow_sending_without_reply")
        )
        if reply_to is not None and thread is not None and reply_to.thread_id != thread:
            reply_to = None  # not in this topic: Telegram does not find it there
        if reply_to is None and not allow:
            raise bad_request(ERR_REPLY_NOT_FOUND)
        if reply_to is not None and thread is None:
            thread = reply_to.thread_id
        return reply_to, thread

    def _send_message(self, params: JSON) -> JSON:
        chat = self._resolve_chat(params)
        text, entities, source = self._parse_text(params)
        markup = validate_reply_markup(params.get("reply_markup"), chat.type == "private")
        reply_to, thread = self._replied(chat, params, self._thread(chat, params))
        msg = chat.add_message(
            thread_id=thread,
            sender=self.bot_user,
            text=text,
            entities=entities,
            source=source,
            parse_mode=params.get("parse_mode"),
            reply_markup=markup if markup and "inline_keyboard" in markup else None,
            reply_keyboard=markup if markup and "inline_keyboard" not in markup else None,
            reply_to=reply_to,
        )
        return msg.to_api()

    def _send_document(self, params: JSON) -> JSON:
        """An uploaded file (multipart), with an optional caption (HTML, 1,024 units)."""
        chat = self._resolve_chat(params)
        reply_to, thread = self._replied(chat, params, self._thread(chat, params))
        document = params.get("document")
        if not isinstance(document, dict) or "content" not in document:
            raise bad_request("there is no document in the request")
        if document["size"] == 0:
            raise bad_request("file must be non-empty")
        if document["size"] > MAX_UPLOAD_BYTES:
            raise bad_request("Request Entity Too Large")
        caption: str | None = None
        entities: list[JSON] = []
        if params.get("caption"):
            caption, entities, _ = self._parse_text(params, key="caption", limit=MAX_CAPTION_LENGTH)
        msg = chat.add_message(
            sender=self.bot_user,
            caption=caption,
            entities=entities,
            document={
                "file_name": document["filename"],
                "file_size": document["size"],
                "file_id": f"doc-{chat.id}-{len(chat.messages) + 1}",
                "file_unique_id": f"u{len(chat.messages) + 1}",
            },
            document_content=document["content"],
            reply_markup=validate_reply_markup(params.get("reply_markup"), chat.type == "private"),
            reply_to=reply_to,
            thread_id=thread,
        )
        return msg.to_api()

    def _editable_message(self, params: JSON) -> tuple[FakeChat, FakeMessage]:
        if params.get("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        chat = self._resolve_chat(params)
        message_id = params.get("message_id")
        if not isinstance(message_id, int):
            raise bad_request("message identifier is not specified")
        msg = chat.get_message(message_id)
        if msg is None:
            raise bad_request(ERR_EDIT_NOT_FOUND)
        if not msg.from_bot:
            raise bad_request(ERR_CANT_EDIT)
        return chat, msg

    def _edit_message_text(self, params: JSON) -> JSON:
        chat, msg = self._editable_message(params)
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities, source = self._parse_text(params)
        markup = validate_reply_markup(params.get("reply_markup"), chat.type == "private")
        if markup is not None and "inline_keyboard" not in markup:
            raise bad_request("inline keyboard expected")
        if (text, entities, markup) == (msg.text, msg.entities, msg.reply_markup):
            raise bad_request(ERR_NOT_MODIFIED)
        msg.history.append((msg.text, msg.entities, msg.reply_markup))
        msg.text, msg.entities, msg.source = text, entities, source
        msg.parse_mode = params.get("parse_mode")
        msg.reply_markup = markup  # no reply_markup removes the inline keyboard, as on Telegram
        msg.edit_date = self.now()
        return msg.to_api()

    def _edit_message_reply_markup(self, params: JSON) -> JSON:
        chat, msg = self._editable_message(params)
        markup = validate_reply_markup(params.get("reply_markup"), chat.type == "private")
        if markup is not None and "inline_keyboard" not in markup:
            raise bad_request("inline keyboard expected")
        if markup == msg.reply_markup:
            raise bad_request(ERR_NOT_MODIFIED)
        msg.history.append((msg.text, msg.entities, msg.reply_markup))
        msg.reply_markup = markup
        msg.edit_date = self.now()
        return msg.to_api()

    def _can_delete(self, chat: FakeChat, msg: FakeMessage) -> bool:
        # Telegram: a bot deletes only messages younger than 48 hours (any chat), and in a
        # group only its own unless it is an admin.
        if self.now() - msg.date >= DELETE_WINDOW:
            return False
        return msg.from_bot or chat.type == "private" or chat.bot_is_admin

    def _delete_message(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        message_id = params.get("message_id")
        msg = chat.get_message(message_id) if isinstance(message_id, int) else None
        if msg is None:
            raise bad_request(ERR_DELETE_NOT_FOUND)
        if not self._can_delete(chat, msg):
            raise bad_request(ERR_CANT_DELETE)
        msg.deleted = True
        return True

    def _delete_messages(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad_request("message_ids must be a list of 1-100 message identifiers")
        for message_id in ids:
            msg = chat.get_message(message_id) if isinstance(message_id, int) else None
            if msg is not None and self._can_delete(chat, msg):
                msg.deleted = True
        return True

    def _answer_callback_query(self, params: JSON) -> bool:
        record = self.callbacks.get(str(params.get("callback_query_id", "")))
        if record is None or record.answer is not None:
            raise bad_request(ERR_QUERY_INVALID)
        if time.monotonic() - record.pressed > self.query_timeout:
            raise bad_request(ERR_QUERY_INVALID)
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad_request(ERR_ANSWER_TOO_LONG)
        record.answer = {
            "text": text,
            "show_alert": bool(params.get("show_alert", False)),
            "url": params.get("url"),
            "cache_time": params.get("cache_time"),
        }
        record.answered_at = time.monotonic()
        return True

    def _get_chat(self, params: JSON) -> JSON:
        chat = self._resolve_chat(params, write=False)
        data = {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.pinned:
            pinned = chat.get_message(chat.pinned[-1])
            if pinned is not None:
                data["pinned_message"] = pinned.to_api(with_reply=False)
        if chat.type != "private":
            data["permissions"] = {
                "can_send_messages": True,
                "can_pin_messages": chat.can_pin_messages,
            }
        return data

    def _user_api(self, user_id: int) -> JSON:
        if user_id == self.bot_id:
            return self.bot_user
        user = self.users.get(user_id)
        if user is None:
            raise bad_request(ERR_USER_NOT_FOUND)
        return user.to_api()

    def _get_chat_member(self, params: JSON) -> JSON:
        chat = self._resolve_chat(params, write=False)
        user_id = params.get("user_id")
        if not isinstance(user_id, int):
            raise bad_request("user_id is empty")
        return self._member_object(chat, self._user_api(user_id), chat.member_status(user_id))

    def _get_chat_administrators(self, params: JSON) -> list[JSON]:
        chat = self._resolve_chat(params, write=False)
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        ids = ([chat.creator] if chat.creator is not None else []) + sorted(
            chat.admins - {chat.creator}
        )
        admins = [
            self._member_object(chat, self._user_api(uid), chat.member_status(uid)) for uid in ids
        ]
        if chat.bot_status == "administrator":
            admins.append(self._member_object(chat, self.bot_user, "administrator"))
        return admins

    def _get_chat_member_count(self, params: JSON) -> int:
        chat = self._resolve_chat(params, write=False)
        if chat.type == "private":
            return 2
        return len(chat.members) + (1 if chat.bot_present else 0)

    def _leave_chat(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        if chat.type == "private":
            raise bad_request("chat member status can't be changed in private chats")
        old, chat.bot_status = chat.bot_status, "left"
        self.enqueue("my_chat_member", self.chat_member_updated(chat, self.bot_user, old, "left"))
        return True

    def _set_my_commands(self, params: JSON) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > MAX_COMMANDS:
            raise bad_request("commands must be a list of at most 100 BotCommand")
        for command in commands:
            name = command.get("command") if isinstance(command, dict) else None
            description = command.get("description") if isinstance(command, dict) else None
            if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise bad_request("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        key = self._commands_key(params)
        if commands:
            self.commands[key] = commands
        else:
            self.commands.pop(key, None)
        return True

    def _get_my_commands(self, params: JSON) -> list[JSON]:
        return self.commands.get(self._commands_key(params), [])

    def _delete_my_commands(self, params: JSON) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    def _commands_key(self, params: JSON) -> tuple[str, str]:
        """Where a command list is kept: its scope, read and checked as Telegram's server does
        (a chat scope names a chat the bot is in; a private chat takes only the ``chat`` scope),
        and its language: a two-letter ISO 639-1 code, or empty for every other language."""
        scope = params.get("scope")
        if scope is not None:
            self._check_scope(scope)
        language = params.get("language_code") or ""
        if not isinstance(language, str) or not re.fullmatch(r"([a-z]{2})?", language):
            raise bad_request("invalid language code specified")
        return _scope_key(scope), language

    def _check_scope(self, scope: Any) -> None:
        def unparsable(error: str) -> ApiError:
            return bad_request(f"can't parse BotCommandScope: {error}")

        if not isinstance(scope, dict):
            raise unparsable("BotCommandScope must be an Object")
        kind = scope.get("type")
        if kind not in COMMAND_SCOPES:
            raise unparsable("Unsupported type specified")
        for field in COMMAND_SCOPES[kind]:
            if field not in scope:
                raise unparsable(f'Can\'t find field "{field}"')
            if not isinstance(scope[field], int) or isinstance(scope[field], bool):
                raise unparsable(f'Field "{field}" must be a valid Number')
        if "chat_id" in scope:
            chat = self._resolve_chat({"chat_id": scope["chat_id"]}, write=False)
            if chat.type == "private" and kind != "chat":
                raise bad_request("can't use specified scope in private chats")

    def menu(self, chat_id: int, user: FakeUser | int) -> list[JSON]:
        """The commands ``user`` sees in the bot's menu in chat ``chat_id``: the first list set
        in the order Telegram documents (BotCommandScope, "Determining list of commands"), each
        scope in the user's language first, then for every language."""
        uid = _uid(user)
        chat = self.chat(chat_id)
        language = (self.users[uid].language_code or "")[:2].lower()
        if chat.type == "private":
            scopes: list[JSON] = [
                {"type": "chat", "chat_id": chat_id},
                {"type": "all_private_chats"},
            ]
        else:
            admin = chat.member_status(uid) in ("creator", "administrator")
            scopes = [{"type": "chat_member", "chat_id": chat_id, "user_id": uid}]
            scopes += [{"type": "chat_administrators", "chat_id": chat_id}] if admin else []
            scopes += [{"type": "chat", "chat_id": chat_id}]
            scopes += [{"type": "all_chat_administrators"}] if admin else []
            scopes += [{"type": "all_group_chats"}]
        for scope in [*scopes, {"type": "default"}]:
            for code in dict.fromkeys((language, "")):
                commands = self.commands.get((_scope_key(scope), code))
                if commands:
                    return commands
        return []

    def _set_chat_menu_button(self, params: JSON) -> bool:
        chat_id = params.get("chat_id")
        if chat_id is not None:
            chat = self._resolve_chat(params, write=False)
            if chat.type != "private":
                raise bad_request("chat menu button can be set only in private chats")
        button = params.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or button.get("type") not in (
            "default",
            "commands",
            "web_app",
        ):
            raise bad_request("can't parse menu button")
        self.menu_buttons[chat_id] = button
        return True

    def _get_chat_menu_button(self, params: JSON) -> JSON:
        return self.menu_buttons.get(
            params.get("chat_id"), self.menu_buttons.get(None, {"type": "commands"})
        )

    def _bot_text_setter(self, kind: str) -> Handler:
        limits = {"description": 512, "short_description": 120, "name": 64}

        def handler(params: JSON) -> bool:
            text = str(params.get(kind) or "")
            if len(text) > limits[kind]:
                raise bad_request(f"{kind} is too long")
            self.bot_texts[(kind, str(params.get("language_code") or ""))] = text
            return True

        return handler

    def _bot_text_getter(self, kind: str) -> Handler:
        def handler(params: JSON) -> JSON:
            key = (kind, str(params.get("language_code") or ""))
            return {kind: self.bot_texts.get(key, self.bot_name if kind == "name" else "")}

        return handler

    def _pin_chat_message(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        message_id = params.get("message_id")
        msg = chat.get_message(message_id) if isinstance(message_id, int) else None
        if msg is None:
            raise bad_request(ERR_PIN_NOT_FOUND)
        if chat.type != "private" and not chat.bot_is_admin and not chat.can_pin_messages:
            raise bad_request(ERR_PIN_RIGHTS)
        if msg.message_id in chat.pinned:
            chat.pinned.remove(msg.message_id)
        chat.pinned.append(msg.message_id)
        # Telegram posts a service message (the bot itself does not receive it).
        chat.add_message(
            sender=self.bot_user, service={"pinned_message": msg.to_api(with_reply=False)}
        )
        return True

    def _unpin_chat_message(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        if chat.type != "private" and not chat.bot_is_admin and not chat.can_pin_messages:
            raise bad_request(ERR_PIN_RIGHTS)
        message_id = params.get("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
        elif message_id in chat.pinned:
            chat.pinned.remove(message_id)
        else:
            raise bad_request("message to unpin not found")
        return True

    def _unpin_all_chat_messages(self, params: JSON) -> bool:
        chat = self._resolve_chat(params)
        if chat.type != "private" and not chat.bot_is_admin and not chat.can_pin_messages:
            raise bad_request(ERR_PIN_RIGHTS)
        chat.pinned.clear()
        return True

    def _send_chat_action(self, params: JSON) -> bool:
        self._resolve_chat(params)
        if params.get("action") not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True


def _true(params: JSON) -> bool:
    return True


def _uid(user: FakeUser | int) -> int:
    return user if isinstance(user, int) else user.id


def _scope_key(scope: Any) -> str:
    if not scope or (isinstance(scope, dict) and scope.get("type") == "default"):
        return "default"
    return json.dumps(scope, sort_keys=True)


def _int_param(params: JSON, name: str, default: int) -> int:
    value = params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"wrong parameter {name}") from None


def _ptb_api_method_names() -> frozenset[str]:
    """Lower-cased Bot API method names, taken from PTB's camelCase aliases on ``Bot``."""
    try:
        from telegram import Bot
    except ImportError:  # pragma: no cover
        return frozenset()
    return frozenset(
        name.lower()
        for name in dir(Bot)
        if name[:1].islower() and not name.startswith("_") and any(c.isupper() for c in name)
    )


def _app_tasks(app: Application[Any, Any, Any, Any, Any, Any]) -> list[asyncio.Task[Any]]:
    tasks = getattr(app, "_Application__create_task_tasks", None)
    return list(tasks) if tasks else []


def _app_idle(app: Application[Any, Any, Any, Any, Any, Any] | None) -> bool:
    if app is None:
        return True
    queue = app.update_queue
    unfinished = getattr(queue, "_unfinished_tasks", 0)
    return queue.empty() and not unfinished and all(t.done() for t in _app_tasks(app))
