"""The simulated world and what the server records of it: users, chats and their messages,
the bot's requests (:class:`ApiCall`) and pressed buttons (:class:`CallbackRecord`,
:class:`Press`)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .constants import JSON
from .html import detect_entities

if TYPE_CHECKING:
    from .server import FakeTelegramServer


@dataclass
class ApiCall:
    """One HTTP request the bot made, in arrival order (``seq``)."""

    seq: int
    method: str  # canonical Bot API name ("sendMessage"), or the raw name if unknown
    params: JSON
    started: float  # time.monotonic()
    finished: float | None = None
    status: int | None = None  # HTTP status; None while in flight or if the client went away
    response: JSON | None = None

    @property
    def done(self) -> bool:
        return self.finished is not None

    @property
    def ok(self) -> bool:
        return self.response is not None and self.response.get("ok") is True

    @property
    def result(self) -> Any:
        return None if self.response is None else self.response.get("result")

    @property
    def error(self) -> str | None:
        """The error description, e.g. ``"Bad Request: message to edit not found"``."""
        if self.response is None or self.response.get("ok"):
            return None
        return str(self.response.get("description"))

    def summary(self) -> str:
        params = {k: v for k, v in self.params.items() if k != "reply_markup"}
        text = json.dumps(params, ensure_ascii=False, default=str)
        if len(text) > 160:
            text = text[:157] + "..."
        if "reply_markup" in self.params:
            text += " +reply_markup"
        if not self.done:
            outcome = "in flight"
        elif self.status is None:
            outcome = "client went away"
        elif self.ok:
            outcome = "ok"
        else:
            outcome = f"{self.status} {self.error}"
        return f"#{self.seq} {self.method} {text} -> {outcome}"


@dataclass
class FakeMessage:
    """A message in a chat, as it currently is (after edits)."""

    chat_id: int
    message_id: int
    sender: JSON  # the API User object of the sender
    date: int
    text: str | None = None  # plain text after entity parsing
    entities: list[JSON] = field(default_factory=list)
    reply_markup: JSON | None = None  # the inline keyboard (the only editable markup)
    reply_keyboard: JSON | None = None  # a reply keyboard / remove_keyboard / force_reply sent
    source: str | None = None  # the text as sent (HTML source for parse_mode=HTML)
    parse_mode: str | None = None
    edit_date: int | None = None
    deleted: bool = False
    reply_to: FakeMessage | None = None
    service: JSON = field(default_factory=dict)  # e.g. {"left_chat_member": {...}}
    history: list[tuple[str | None, list[JSON], JSON | None]] = field(default_factory=list)
    chat_api: JSON = field(default_factory=dict)
    caption: str | None = None  # a document's caption, after entity parsing
    document: JSON | None = None  # the API Document object of an uploaded file
    document_content: bytes | None = None  # the file itself, for tests to read
    thread_id: int | None = None  # the forum topic it is in (None: a chat, or General)

    @property
    def from_bot(self) -> bool:
        return bool(self.sender.get("is_bot"))

    @property
    def is_service(self) -> bool:
        return bool(self.service)

    @property
    def inline_keyboard(self) -> list[list[JSON]]:
        if self.reply_markup is None:
            return []
        rows = self.reply_markup.get("inline_keyboard")
        return rows if isinstance(rows, list) else []

    @property
    def keyboard(self) -> list[list[str]]:
        """Texts of the inline keyboard buttons, row by row."""
        return [[button["text"] for button in row] for row in self.inline_keyboard]

    @property
    def callback_data(self) -> list[str]:
        """callback_data of every inline button, in reading order."""
        return [
            button["callback_data"]
            for row in self.inline_keyboard
            for button in row
            if "callback_data" in button
        ]

    def button(self, text: str) -> JSON:
        """The inline button whose text is exactly ``text`` (LookupError if none)."""
        for row in self.inline_keyboard:
            for button in row:
                if button.get("text") == text:
                    return button
        raise LookupError(f"no button {text!r} in message {self.message_id}: {self.keyboard}")

    def to_api(self, *, with_reply: bool = True) -> JSON:
        data: JSON = {
            "message_id": self.message_id,
            "from": self.sender,
            "chat": self.chat_api,
            "date": self.date,
        }
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.document is not None:
            data["document"] = self.document
            if self.caption is not None:
                data["caption"] = self.caption
                if self.entities:
                    data["caption_entities"] = self.entities
        if self.reply_markup is not None and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            data["is_topic_message"] = True
        if with_reply and self.reply_to is not None:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        data.update(self.service)
        return data


class FakeUser:
    """A simulated Telegram user.  Its methods enqueue the updates a real client would cause."""

    def __init__(
        self,
        server: FakeTelegramServer,
        user_id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "it",
    ) -> None:
        self.server = server
        self.id = user_id
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code

    def __repr__(self) -> str:
        return f"FakeUser({self.id}, {self.first_name!r})"

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data

    @property
    def private_chat(self) -> FakeChat | None:
        return self.server.chats.get(self.id)

    def start_private(self, payload: str | None = None) -> FakeMessage:
        """Open the private chat with the bot (press START): sends ``/start [payload]``.

        Also unblocks the bot if the user had blocked it (with the ``my_chat_member`` update
        kicked -> member that Telegram sends then).
        """
        server = self.server
        chat = server.chats.get(self.id)
        if chat is None:
            chat = FakeChat(server, self.id, "private", user=self)
            server.chats[self.id] = chat
        if chat.blocked:
            chat.blocked = False
            server.enqueue(
                "my_chat_member",
                server.chat_member_updated(chat, self.to_api(), "kicked", "member"),
            )
        chat.started = True
        text = "/start" if not payload else f"/start {payload}"
        return self._post(chat, text)

    def send(
        self, chat_id: int, text: str, *, reply_to: int | None = None, thread: int | None = None
    ) -> FakeMessage:
        """Send a text message; commands get ``bot_command`` entities (``/cmd@bot`` too). In a
        forum, ``thread`` is the topic it is written in (a reply is in its message's topic).

        In groups with the bot's privacy mode on (the default), the bot only receives commands
        (not ``/cmd@otherbot``), replies to its messages and service messages, unless it is an
        administrator: the message is stored in the chat but no update is enqueued otherwise.
        """
        chat = self.server.chat(chat_id)
        if chat.type == "private":
            if chat.id != self.id:
                raise AssertionError(f"{self} cannot write in {chat.id}'s private chat")
            if not chat.started:
                raise AssertionError(f"{self} never started the bot: call start_private() first")
            if chat.blocked:
                raise AssertionError(f"{self} blocked the bot: start_private() unblocks it")
        else:
            self._check_member(chat)
        if thread is not None and thread not in chat.topics:
            raise AssertionError(f"no topic {thread} in chat {chat.id}")
        return self._post(chat, text, reply_to=reply_to, thread=thread)

    def reply(self, chat_id: int, message_id: int, text: str) -> FakeMessage:
        return self.send(chat_id, text, reply_to=message_id)

    def edit(self, chat_id: int, message_id: int, text: str) -> FakeMessage:
        """Edit one of this user's messages (an ``edited_message`` update)."""
        chat = self.server.chat(chat_id)
        msg = chat.get_message(message_id)
        if msg is None or msg.sender.get("id") != self.id:
            raise AssertionError(f"{self} has no message {message_id} in chat {chat_id}")
        msg.history.append((msg.text, msg.entities, msg.reply_markup))
        msg.text = msg.source = text
        msg.entities = detect_entities(text)
        msg.edit_date = self.server.now()
        if self.server.delivered_to_bot(chat, msg):
            self.server.enqueue("edited_message", msg.to_api())
        return msg

    def press(
        self, chat_id: int, message_id: int, callback_data: str, *, force: bool = False
    ) -> Press:
        """Press an inline button: enqueues a ``callback_query`` update with a fresh id.

        The message must exist and carry a button with that callback_data (a real client can
        only press what it sees); ``force=True`` skips that check.  Await
        ``press.answered()`` for the bot's answerCallbackQuery parameters.
        """
        server = self.server
        chat = server.chat(chat_id)
        if chat.type != "private":
            self._check_member(chat)
        elif chat.id != self.id:
            raise AssertionError(f"{self} cannot see {chat.id}'s private chat")
        msg = chat.get_message(message_id)
        if not force:
            if msg is None:
                raise AssertionError(f"no message {message_id} in chat {chat_id} to press on")
            if callback_data not in msg.callback_data:
                raise AssertionError(
                    f"message {message_id} in chat {chat_id} has no button with callback_data "
                    f"{callback_data!r}; its buttons: {msg.inline_keyboard}"
                )
        query_id = str(next(server._callback_ids))
        query: JSON = {
            "id": query_id,
            "from": self.to_api(),
            "chat_instance": chat.chat_instance,
            "data": callback_data,
        }
        if msg is not None:
            query["message"] = msg.to_api()
        else:  # forced press on an unknown message: an InaccessibleMessage
            query["message"] = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        record = CallbackRecord(query_id, self.id, chat_id, message_id, callback_data)
        server.callbacks[query_id] = record
        update = server.enqueue("callback_query", query)
        return Press(server, record, update)

    def press_button(self, chat_id: int, message_id: int, text: str) -> Press:
        """Press the inline button labelled ``text``."""
        msg = self.server.message(chat_id, message_id)
        if msg is None:
            raise AssertionError(f"no message {message_id} in chat {chat_id}")
        return self.press(chat_id, message_id, msg.button(text)["callback_data"])

    def leave_group(self, chat_id: int) -> FakeMessage:
        """Leave a group: a ``left_chat_member`` service message (and ``chat_member`` update)."""
        chat = self.server.chat(chat_id)
        self._check_member(chat)
        old = chat.member_status(self.id)
        chat.members.discard(self.id)
        chat.admins.discard(self.id)
        if chat.creator == self.id:
            chat.creator = None
        msg = self._post(chat, None, service={"left_chat_member": self.to_api()})
        self.server.enqueue_chat_member(chat, self, old, "left")
        return msg

    def join_group(self, chat_id: int) -> FakeMessage:
        """Join a group: a ``new_chat_members`` service message (and ``chat_member`` update)."""
        chat = self.server.chat(chat_id)
        if chat.type == "private":
            raise AssertionError("cannot join a private chat")
        chat.members.add(self.id)
        msg = self._post(chat, None, service={"new_chat_members": [self.to_api()]})
        self.server.enqueue_chat_member(chat, self, "left", "member")
        return msg

    def add_bot_by_link(self, url: str, chat_id: int) -> FakeMessage:
        """Open a ``https://t.me/<bot>?startgroup=<payload>`` link and pick the group
        ``chat_id``, as Telegram's app does: the bot joins the group unless it is there (the
        updates of :meth:`FakeChat.add_bot`), then the app sends ``/start@<bot> <payload>``
        as this user."""
        server = self.server
        found = re.fullmatch(
            r"https://t\.me/([A-Za-z0-9_]{5,32})\?startgroup=([A-Za-z0-9_-]{0,64})", url
        )
        if found is None or found.group(1).lower() != server.bot_username.lower():
            raise AssertionError(
                f"{url!r} is not a link that adds @{server.bot_username} to a group"
            )
        chat = server.chat(chat_id)
        if chat.type == "private":
            raise AssertionError("a startgroup link picks a group")
        self._check_member(chat)
        if not chat.bot_present:
            chat.add_bot(by=self)
        payload = found.group(2)
        command = f"/start@{server.bot_username}"
        return self._post(chat, f"{command} {payload}" if payload else command)

    def block_bot(self) -> None:
        """Block the bot: a ``my_chat_member`` update (member -> kicked); later sends get 403."""
        chat = self.server.chats.get(self.id)
        if chat is None:
            chat = FakeChat(self.server, self.id, "private", user=self)
            self.server.chats[self.id] = chat
        if chat.blocked:
            return
        chat.blocked = True
        self.server.enqueue(
            "my_chat_member",
            self.server.chat_member_updated(chat, self.to_api(), "member", "kicked"),
        )

    def _check_member(self, chat: FakeChat) -> None:
        if chat.migrated_to is not None:
            raise AssertionError(
                f"group {chat.id} was upgraded to supergroup {chat.migrated_to}: use that id"
            )
        if self.id not in chat.members:
            raise AssertionError(f"{self} is not a member of chat {chat.id}")

    def _post(
        self,
        chat: FakeChat,
        text: str | None,
        *,
        reply_to: int | None = None,
        service: JSON | None = None,
        thread: int | None = None,
    ) -> FakeMessage:
        server = self.server
        replied = None
        if reply_to is not None:
            replied = chat.get_message(reply_to)
            if replied is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id} to reply to")
            thread = replied.thread_id
        msg = chat.add_message(
            thread_id=thread,
            sender=self.to_api(),
            text=text,
            entities=detect_entities(text) if text else [],
            source=text,
            reply_to=replied,
            service=service or {},
        )
        if server.delivered_to_bot(chat, msg):
            server.enqueue("message", msg.to_api())
        return msg


class FakeChat:
    """A private chat, group or supergroup known to the fake server."""

    def __init__(
        self,
        server: FakeTelegramServer,
        chat_id: int,
        chat_type: str,
        *,
        title: str | None = None,
        user: FakeUser | None = None,
    ) -> None:
        self.server = server
        self.id = chat_id
        self.type = chat_type  # "private" | "group" | "supergroup"
        self.title = title
        self.user = user  # the other party of a private chat
        self.members: set[int] = set()
        self.admins: set[int] = set()
        self.creator: int | None = None
        self.bot_status = "member"  # member | administrator | left | kicked
        self.can_pin_messages = False  # chat permission for plain members
        self.started = False  # private chats: the user pressed START
        self.blocked = False  # private chats: the user blocked the bot
        self.migrated_to: int | None = None
        self.topics: dict[int, str] = {}  # a forum's topics: thread id -> name
        self.is_forum = False
        self.bot_manages_topics = False  # an admin bot's right to create topics (a forum's)
        self.pinned: list[int] = []
        self.messages: dict[int, FakeMessage] = {}
        self._next_id = 1
        self.chat_instance = f"ci{abs(chat_id)}"

    def __repr__(self) -> str:
        return f"FakeChat({self.id}, {self.type}, {self.title or self.user!r})"

    def to_api(self) -> JSON:
        if self.type == "private" and self.user is not None:
            data: JSON = {"id": self.id, "type": "private", "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            return data
        data = {"id": self.id, "type": self.type, "title": self.title or ""}
        if self.is_forum:
            data["is_forum"] = True
        return data

    def get_message(self, message_id: int) -> FakeMessage | None:
        msg = self.messages.get(message_id)
        return None if msg is None or msg.deleted else msg

    def add_message(self, **kwargs: Any) -> FakeMessage:
        msg = FakeMessage(
            chat_id=self.id,
            message_id=self._next_id,
            date=self.server.now(),
            chat_api=self.to_api(),
            **kwargs,
        )
        self._next_id += 1
        self.messages[msg.message_id] = msg
        return msg

    @property
    def bot_is_admin(self) -> bool:
        return self.type == "private" or self.bot_status == "administrator"

    @property
    def bot_present(self) -> bool:
        return self.bot_status in ("member", "administrator")

    def member_status(self, user_id: int) -> str:
        if user_id == self.server.bot_id:
            return self.bot_status
        if self.type == "private":
            return "member" if user_id == self.id else "left"
        if user_id == self.creator:
            return "creator"
        if user_id in self.admins:
            return "administrator"
        return "member" if user_id in self.members else "left"

    # group simulation -----------------------------------------------------------------------

    def migrate_to_supergroup(self, new_id: int, *, by: FakeUser | int | None = None) -> FakeChat:
        """Upgrade this group: enqueues the ``migrate_to_chat_id`` message (in the old chat)
        and the ``migrate_from_chat_id`` message (in the new one), as Telegram does.  Later
        requests to the old id fail with 400 and ``parameters.migrate_to_chat_id``."""
        server = self.server
        if self.type != "group":
            raise AssertionError("only basic groups can be upgraded")
        if new_id in server.chats or not str(new_id).startswith("-100"):
            raise AssertionError(f"bad supergroup id {new_id}: use a fresh -100... id")
        actor = server._actor(self, by)
        new = FakeChat(server, new_id, "supergroup", title=self.title)
        new.members = set(self.members)
        new.admins = set(self.admins)
        new.creator = self.creator
        new.bot_status = self.bot_status
        new.can_pin_messages = self.can_pin_messages
        server.chats[new_id] = new
        old_msg = self.add_message(sender=actor, service={"migrate_to_chat_id": new_id})
        self.migrated_to = new_id
        if self.bot_present:
            server.enqueue("message", old_msg.to_api())
            new_msg = new.add_message(sender=actor, service={"migrate_from_chat_id": self.id})
            server.enqueue("message", new_msg.to_api())
        return new

    def remove_bot(self, *, kicked: bool = True, by: FakeUser | int | None = None) -> None:
        """Remove the bot (``my_chat_member`` update, status ``kicked`` or ``left``)."""
        server = self.server
        old = self.bot_status
        self.bot_status = "kicked" if kicked else "left"
        server.enqueue(
            "my_chat_member",
            server.chat_member_updated(self, server._actor(self, by), old, self.bot_status),
        )

    def add_bot(self, *, by: FakeUser | int | None = None, admin: bool = False) -> None:
        """(Re-)add the bot: ``my_chat_member`` update and a ``new_chat_members`` message."""
        server = self.server
        old = self.bot_status
        self.bot_status = "administrator" if admin else "member"
        actor = server._actor(self, by)
        server.enqueue(
            "my_chat_member", server.chat_member_updated(self, actor, old, self.bot_status)
        )
        msg = self.add_message(sender=actor, service={"new_chat_members": [server.bot_user]})
        server.enqueue("message", msg.to_api())

    def set_bot_admin(self, admin: bool = True, *, by: FakeUser | int | None = None) -> None:
        """Promote (or demote) the bot, with the ``my_chat_member`` update."""
        server = self.server
        old = self.bot_status
        self.bot_status = "administrator" if admin else "member"
        server.enqueue(
            "my_chat_member",
            server.chat_member_updated(self, server._actor(self, by), old, self.bot_status),
        )


@dataclass
class CallbackRecord:
    query_id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    answer: JSON | None = None  # the answerCallbackQuery parameters, once answered
    pressed: float = field(default_factory=time.monotonic)
    answered_at: float | None = None  # time.monotonic() of the answer

    @property
    def latency(self) -> float | None:
        """Seconds from the press to its answer (None: not answered)."""
        return None if self.answered_at is None else self.answered_at - self.pressed


class Press:
    """Handle for a pressed inline button (a pending callback query)."""

    def __init__(self, server: FakeTelegramServer, record: CallbackRecord, update: JSON | None):
        self._server = server
        self.record = record
        self.update = update

    @property
    def id(self) -> str:
        return self.record.query_id

    @property
    def answer(self) -> JSON | None:
        """The answer (``text``, ``show_alert``, ``url``, ``cache_time``) or None so far."""
        return self.record.answer

    async def answered(self, timeout: float = 10.0) -> JSON:
        """Wait for the bot's answerCallbackQuery and return its parameters."""
        answer: JSON = await self._server.wait_for(
            lambda: self.record.answer,
            timeout=timeout,
            message=f"callback query {self.id} ({self.record.data!r}) was never answered",
        )
        return answer

    def __await__(self) -> Any:
        return self.answered().__await__()
