"""A fake Telegram Bot API server and simulated users for Tavolo's end-to-end tests.

The server is a real HTTP server (aiohttp) on ``127.0.0.1`` with an ephemeral port, started and
stopped inside the test's event loop.  It speaks the Bot API protocol at
``/bot<token>/<method>`` (method names are case-insensitive, as on Telegram) and answers
``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code": ..., "description": ...}``
(plus ``parameters`` for 429 and chat migrations).  It is deliberately strict: it rejects what
Telegram rejects (text length and HTML, keyboard limits, "message is not modified", callback
queries answered twice or after 15 s, users who never started the bot, ...) and enforces
Telegram's flood limits (:class:`FloodLimits`: per private chat, per group, overall; ``429 retry
after N``), so that a bot that passes here does not fail in production for those reasons.

Typical use (see ``tests/e2e/test_fake_telegram.py`` for complete examples)::

    async def test_ping(fake_telegram):
        server = fake_telegram
        alice = server.add_user(1001, "Alice")
        app = server.application_builder().build()
        app.add_handler(CommandHandler("ping", ping))
        async with server.run(app):              # initialize, start, long polling
            alice.start_private()
            alice.send(alice.id, "/ping")
            msg = await server.wait_for(lambda: server.last_message(alice.id, from_bot=True))
            assert msg.text == "pong"
            press = alice.press(alice.id, msg.message_id, "again")
            assert (await press.answered())["text"] == "ok"
            await server.wait_idle()             # bot consumed everything, parked again

Nothing here sleeps: every wait re-checks its condition whenever the server's state changes
(an asyncio.Event that is swapped on each change), and timeouts are only a safety net.
"""

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from telegram.ext import Application, ApplicationBuilder

JSON = dict[str, Any]

DEFAULT_TOKEN = "123456789:AAF-tavolo-e2e-fake-token"
DEFAULT_BOT_ID = 123456789
DEFAULT_BOT_USERNAME = "tavolo_test_bot"
DEFAULT_BOT_NAME = "Tavolo"

MAX_MESSAGE_LENGTH = 4096  # UTF-16 code units after entity parsing, as entity offsets count
MAX_CALLBACK_DATA_BYTES = 64
MAX_INLINE_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_CALLBACK_ANSWER_LENGTH = 200
MAX_COMMANDS = 100
MAX_CAPTION_LENGTH = 1024  # UTF-16 code units of a media caption
MAX_UPLOAD_BYTES = 50 * 1024 * 1024  # what a bot may upload
QUERY_TIMEOUT = 15.0  # seconds within which a callback query must be answered


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
            chat_wait = 0.0 if tokens >= 1 else (1 - tokens) / limits.private_per_second
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


# --- Telegram's error descriptions -------------------------------------------------------------
ERR_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
ERR_EDIT_NOT_FOUND = "Bad Request: message to edit not found"
ERR_DELETE_NOT_FOUND = "Bad Request: message to delete not found"
ERR_CANT_EDIT = "Bad Request: message can't be edited"
ERR_CANT_DELETE = "Bad Request: message can't be deleted"
ERR_QUERY_INVALID = (
    "Bad Request: query is too old and response timeout expired or query ID is invalid"
)
ERR_CHAT_NOT_FOUND = "Bad Request: chat not found"
ERR_USER_NOT_FOUND = "Bad Request: user not found"
ERR_TEXT_EMPTY = "Bad Request: message text is empty"
ERR_TEXT_TOO_LONG = "Bad Request: message is too long"
ERR_CAPTION_TOO_LONG = "Bad Request: message caption is too long"
ERR_PARSE_ENTITIES = "Bad Request: can't parse entities: "
ERR_BUTTON_DATA = "Bad Request: BUTTON_DATA_INVALID"
ERR_MARKUP_TOO_LONG = "Bad Request: reply markup is too long"
ERR_ROW_TOO_LONG = "Bad Request: too many buttons in a row of the inline keyboard (at most 8)"
ERR_BUTTON_TEXT = "Bad Request: inline keyboard button text must be non-empty"
ERR_TEXT_BUTTONS = "Bad Request: text buttons are unallowed in the inline keyboard"
ERR_ANSWER_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
ERR_MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
ERR_CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
ERR_BLOCKED = "Forbidden: bot was blocked by the user"
ERR_REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
ERR_PIN_NOT_FOUND = "Bad Request: message to pin not found"
ERR_PIN_RIGHTS = "Bad Request: not enough rights to manage pinned messages in the chat"
ERR_CONFLICT_POLL = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
ERR_CONFLICT_WEBHOOK = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)

CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)

# Update kinds Telegram sends when ``allowed_updates`` is unset or empty.
NOT_SENT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})

# Inline keyboard button fields of which exactly one must be present.
BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)

# Form-encoded parameters that are strings even when they look like JSON (PTB sends strings
# verbatim and JSON-encodes everything else, see telegram/request/_requestparameter.py).
STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "inline_query_id",
        "inline_message_id",
        "url",
        "language_code",
        "action",
        "title",
        "description",
        "short_description",
        "name",
        "emoji",
        "business_connection_id",
        "message_effect_id",
        "secret_token",
        "ip_address",
        "custom_title",
        "photo",
        "document",
        "sticker",
        "audio",
        "video",
        "voice",
        "animation",
        "file_id",
        "payload",
        "currency",
        "start_parameter",
        "next_offset",
        "switch_pm_text",
        "switch_pm_parameter",
        "question",
    }
)


class ApiError(Exception):
    """An error answer of the Bot API (raised by method implementations)."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(description: str, parameters: JSON | None = None) -> ApiError:
    if not description.startswith("Bad Request: "):
        description = "Bad Request: " + description
    return ApiError(400, description, parameters)


def forbidden(description: str) -> ApiError:
    return ApiError(403, description)


# --- text helpers ------------------------------------------------------------------------------


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's entity offsets and lengths."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class HtmlParseError(ValueError):
    """``parse_mode=HTML`` text that Telegram would refuse ("can't parse entities")."""


_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_NAMED_HTML_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ENTITY_RE = re.compile(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));")
_SPACES = " \t\r\n\f\v"


def _decode_html_entity(source: str, pos: int) -> tuple[str, int] | None:
    match = _HTML_ENTITY_RE.match(source, pos)
    if match is None:
        return None
    dec, hexa, name = match.groups()
    if name is not None:
        char = _NAMED_HTML_ENTITIES.get(name)
        return None if char is None else (char, match.end())
    code = int(dec) if dec is not None else int(hexa, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), match.end()


def _unescape_attribute(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        decoded = _decode_html_entity(raw, i) if raw[i] == "&" else None
        if decoded is None:
            out.append(raw[i])
            i += 1
        else:
            out.append(decoded[0])
            i = decoded[1]
    return "".join(out)


@dataclass
class _OpenTag:
    name: str
    start: int  # UTF-16 offset in the output text
    attrs: dict[str, str]
    language: str | None = None


def parse_html(source: str, *, strict: bool = True) -> tuple[str, list[JSON]]:
    """Parse Telegram-flavoured HTML into ``(plain_text, entities)`` as Telegram does.

    Only Telegram's tags are accepted (b/strong, i/em, u/ins, s/strike/del, tg-spoiler,
    span class="tg-spoiler", a href, code, pre, pre>code class="language-x", blockquote
    [expandable], tg-emoji emoji-id); tags must be properly nested and closed; ``<`` must be
    escaped; the only named entities are ``&lt; &gt; &amp; &quot;`` (numeric ones are fine).
    The messages follow Telegram's ("Unsupported start tag "div" at byte offset 0", ...).

    ``strict`` (the default) also refuses a bare ``&`` that starts no entity and a bare ``>``:
    Telegram keeps those literally, but they almost always mean a missing ``html.escape``.
    Entity offsets/lengths are in UTF-16 code units; entities are sorted by (offset, -length).
    """
    out: list[str] = []
    u16 = 0
    stack: list[_OpenTag] = []
    entities: list[JSON] = []
    n = len(source)
    i = 0

    def byte_offset(pos: int) -> int:
        return len(source[:pos].encode("utf-8"))

    def fail(message: str) -> HtmlParseError:
        return HtmlParseError(message)

    while i < n:
        ch = source[i]
        if ch == "&":
            decoded = _decode_html_entity(source, i)
            if decoded is None:
                if strict:
                    raise fail(
                        f'Unescaped "&" at byte offset {byte_offset(i)} (strict fake server: '
                        "write &amp;)"
                    )
                decoded = ("&", i + 1)
            out.append(decoded[0])
            u16 += utf16_len(decoded[0])
            i = decoded[1]
            continue
        if ch == ">":
            if strict:
                raise fail(
                    f'Unescaped ">" at byte offset {byte_offset(i)} (strict fake server: '
                    "write &gt;)"
                )
            out.append(ch)
            u16 += 1
            i += 1
            continue
        if ch != "<":
            out.append(ch)
            u16 += 2 if ord(ch) > 0xFFFF else 1
            i += 1
            continue

        begin = i
        i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
        if source[i] == "/":  # end tag
            i += 1
            name_start = i
            while i < n and source[i] not in _SPACES and source[i] != ">":
                i += 1
            name = source[name_start:i].lower()
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n or source[i] != ">":
                raise fail(f"Unclosed end tag at byte offset {byte_offset(begin)}")
            i += 1
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {byte_offset(begin)}")
            top = stack[-1]
            if name != top.name:
                raise fail(
                    f"Unmatched end tag at byte offset {byte_offset(begin)}, expected "
                    f'"</{top.name}>", found "</{name}>"'
                )
            stack.pop()
            entity = _close_tag(top, u16, stack)
            if entity is not None:
                entities.append(entity)
            continue

        # start tag
        name_start = i
        while i < n and source[i] not in _SPACES and source[i] != ">":
            i += 1
        name = source[name_start:i].lower()
        if name not in _HTML_TAGS:
            raise fail(f'Unsupported start tag "{name}" at byte offset {byte_offset(begin)}')
        attrs: dict[str, str] = {}
        while True:
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if source[i] == ">":
                i += 1
                break
            attr_start = i
            while i < n and source[i] not in _SPACES and source[i] not in "=>":
                i += 1
            attr = source[attr_start:i].lower()
            if not attr:
                raise fail(
                    f'Empty attribute name in the tag "{name}" at byte offset {byte_offset(begin)}'
                )
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if source[i] != "=":
                if name == "blockquote" and attr == "expandable":
                    attrs[attr] = ""
                    continue
                raise fail(
                    f'Expected equal sign in declaration of an attribute of the tag "{name}" '
                    f"at byte offset {byte_offset(begin)}"
                )
            i += 1
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            quote = source[i]
            if quote in "\"'":
                end = source.find(quote, i + 1)
                if end < 0:
                    raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
                value = _unescape_attribute(source[i + 1 : end])
                i = end + 1
            else:
                value_start = i
                while i < n and (source[i].isalnum() or source[i] in "._-"):
                    i += 1
                value = source[value_start:i]
                if not value:
                    raise fail(
                        f'Expected quotation mark or an attribute value of the tag "{name}" '
                        f"at byte offset {byte_offset(begin)}"
                    )
            attrs[attr] = value
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise fail(
                f'Tag "span" must have class "tg-spoiler" at byte offset {byte_offset(begin)}'
            )
        if name == "tg-emoji" and not attrs.get("emoji-id", "").isdigit():
            raise fail(
                f'Tag "tg-emoji" must have a numeric attribute "emoji-id" at byte offset '
                f"{byte_offset(begin)}"
            )
        stack.append(_OpenTag(name, u16, attrs))

    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _close_tag(tag: _OpenTag, end: int, stack: list[_OpenTag]) -> JSON | None:
    parent = stack[-1] if stack else None
    if tag.name == "code" and parent is not None and parent.name == "pre":
        css = tag.attrs.get("class", "")
        if css.startswith("language-") and len(css) > len("language-"):
            parent.language = css[len("language-") :]
        return None  # code inside pre is part of the pre entity
    length = end - tag.start
    if length <= 0:
        return None
    kind = _HTML_TAGS[tag.name]
    entity: JSON = {"type": kind, "offset": tag.start, "length": length}
    if kind == "text_link":
        href = tag.attrs.get("href", "")
        if not href:
            return None
        entity["url"] = href
    elif kind == "pre" and tag.language:
        entity["language"] = tag.language
    elif kind == "blockquote" and "expandable" in tag.attrs:
        entity["type"] = "expandable_blockquote"
    elif kind == "custom_emoji":
        entity["custom_emoji_id"] = tag.attrs["emoji-id"]
    return entity


def trim_text(text: str, entities: list[JSON]) -> tuple[str, list[JSON]]:
    """Strip leading/trailing whitespace as Telegram does, clipping the entities."""
    stripped = text.strip(_SPACES)
    if stripped == text:
        return text, entities
    left = utf16_len(text[: len(text) - len(text.lstrip(_SPACES))])
    total = utf16_len(stripped)
    clipped: list[JSON] = []
    for entity in entities:
        start = max(entity["offset"] - left, 0)
        end = min(entity["offset"] + entity["length"] - left, total)
        if end > start:
            clipped.append({**entity, "offset": start, "length": end - start})
    return stripped, clipped


_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_@/])")
_MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{4,31}(?![\w@])")


def detect_entities(text: str) -> list[JSON]:
    """The entities Telegram detects in a user's plain text: bot_command and mention."""
    found: list[JSON] = []
    for kind, regex in (("bot_command", _COMMAND_RE), ("mention", _MENTION_RE)):
        for match in regex.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group()),
                }
            )
    found.sort(key=lambda e: e["offset"])
    return found


def validate_reply_markup(markup: Any) -> JSON | None:
    """Check a reply_markup like Telegram does; returns it (None for an empty inline keyboard).

    Inline keyboards: a list of rows, at most 100 buttons, at most 8 per row, non-empty button
    text, exactly one action field per button, callback_data 1..64 UTF-8 bytes.
    """
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'can\'t parse inline keyboard: field "inline_keyboard" must be an Array of Arrays'
            )
        rows = [row for row in rows if row]
        if not rows:
            return None
        if sum(len(row) for row in rows) > MAX_INLINE_BUTTONS:
            raise bad_request(ERR_MARKUP_TOO_LONG)
        for row in rows:
            if len(row) > MAX_BUTTONS_PER_ROW:
                raise bad_request(ERR_ROW_TOO_LONG)
            for button in row:
                _validate_inline_button(button)
        return {**markup, "inline_keyboard": rows}
    if "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'can\'t parse reply keyboard: field "keyboard" must be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                text = button if isinstance(button, str) else button.get("text")
                if not isinstance(text, str) or not text.strip():
                    raise bad_request("keyboard button text must be non-empty")
        return markup
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return markup
    raise bad_request("can't parse reply keyboard markup JSON object")


def _validate_inline_button(button: Any) -> None:
    if not isinstance(button, dict):
        raise bad_request(
            "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
        )
    text = button.get("text")
    if not isinstance(text, str) or not text.strip():
        raise bad_request(ERR_BUTTON_TEXT)
    actions = [key for key in BUTTON_ACTIONS if key in button]
    if not actions:
        raise bad_request(ERR_TEXT_BUTTONS)
    if len(actions) > 1:
        raise bad_request(
            f"can't parse inline keyboard button: only one of {', '.join(actions)} may be used"
        )
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= (
            MAX_CALLBACK_DATA_BYTES
        ):
            raise bad_request(ERR_BUTTON_DATA)
    if "url" in button and (not isinstance(button["url"], str) or not button["url"].strip()):
        raise bad_request("BUTTON_URL_INVALID")


# --- recorded state ----------------------------------------------------------------------------


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

    def send(self, chat_id: int, text: str, *, reply_to: int | None = None) -> FakeMessage:
        """Send a text message; commands get ``bot_command`` entities (``/cmd@bot`` too).

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
        return self._post(chat, text, reply_to=reply_to)

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
    ) -> FakeMessage:
        server = self.server
        replied = None
        if reply_to is not None:
            replied = chat.get_message(reply_to)
            if replied is None:
                raise AssertionError(f"no message {reply_to} in chat {chat.id} to reply to")
        msg = chat.add_message(
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
        return {"id": self.id, "type": self.type, "title": self.title or ""}

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


# --- the server --------------------------------------------------------------------------------

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
        flood_limits: FloodLimits | None = FloodLimits(),
        query_timeout: float = QUERY_TIMEOUT,
    ) -> None:
        self.token = token
        self.bot_id = bot_id if bot_id is not None else int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.privacy_mode = privacy_mode
        self.strict_html = strict_html
        self.host = host
        self.port: int | None = None

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.calls: list[ApiCall] = []
        self.callbacks: dict[str, CallbackRecord] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.menu_buttons: dict[int | None, JSON] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}  # (kind, language_code) -> text
        self.webhook_url = ""
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
        site = web.TCPSite(runner, self.host, 0)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        self._closing = True
        self._notify()
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
    ) -> FakeChat:
        """A group the bot is already in (no update).  ``admins`` are members too; the creator
        defaults to the first admin.  Supergroup ids must look like ``-100...``."""
        if chat_id >= 0:
            raise AssertionError("group ids are negative")
        if supergroup and not str(chat_id).startswith("-100"):
            raise AssertionError("supergroup ids look like -100xxxxxxxxxx")
        chat = FakeChat(self, chat_id, "supergroup" if supergroup else "group", title=title)
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
                rights["can_manage_topics"] = False
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
                    "(see tests/e2e/fake_telegram.py: register_method)"
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

    def _delete_webhook(self, params: JSON) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _set_webhook(self, params: JSON) -> bool:
        self.webhook_url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._updates.clear()
        if isinstance(params.get("allowed_updates"), list):
            self.allowed_updates = list(params["allowed_updates"])
        return True

    def _get_webhook_info(self, params: JSON) -> JSON:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

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

    def _send_message(self, params: JSON) -> JSON:
        chat = self._resolve_chat(params)
        text, entities, source = self._parse_text(params)
        markup = validate_reply_markup(params.get("reply_markup"))
        reply_to = None
        reply = params.get("reply_parameters")
        reply_id = reply.get("message_id") if isinstance(reply, dict) else None
        reply_id = reply_id or params.get("reply_to_message_id")
        if reply_id:
            reply_to = chat.get_message(int(reply_id))
            allow = params.get("allow_sending_without_reply") or (
                isinstance(reply, dict) and reply.get("allow_sending_without_reply")
            )
            if reply_to is None and not allow:
                raise bad_request(ERR_REPLY_NOT_FOUND)
        msg = chat.add_message(
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
            reply_markup=validate_reply_markup(params.get("reply_markup")),
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
        _, msg = self._editable_message(params)
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities, source = self._parse_text(params)
        markup = validate_reply_markup(params.get("reply_markup"))
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
        _, msg = self._editable_message(params)
        markup = validate_reply_markup(params.get("reply_markup"))
        if markup is not None and "inline_keyboard" not in markup:
            raise bad_request("inline keyboard expected")
        if markup == msg.reply_markup:
            raise bad_request(ERR_NOT_MODIFIED)
        msg.history.append((msg.text, msg.entities, msg.reply_markup))
        msg.reply_markup = markup
        msg.edit_date = self.now()
        return msg.to_api()

    def _can_delete(self, chat: FakeChat, msg: FakeMessage) -> bool:
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
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        if commands:
            self.commands[key] = commands
        else:
            self.commands.pop(key, None)
        return True

    def _get_my_commands(self, params: JSON) -> list[JSON]:
        return self.my_commands(params.get("scope"), str(params.get("language_code") or ""))

    def _delete_my_commands(self, params: JSON) -> bool:
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        self.commands.pop(key, None)
        return True

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


# --- helpers -----------------------------------------------------------------------------------


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


def _utf16_slice(text: str, offset: int, length: int) -> str:
    encoded = text.encode("utf-16-le")
    return encoded[2 * offset : 2 * (offset + length)].decode("utf-16-le")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _decode_form_value(name: str, value: str) -> Any:
    if name in STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


async def _read_params(request: web.Request) -> JSON:
    """Parameters of a Bot API request, whatever the encoding.

    PTB (HTTPXRequest) POSTs ``application/x-www-form-urlencoded`` (``multipart/form-data`` when
    uploading files) where strings are sent verbatim and every other value (ints, bools, lists,
    objects such as reply_markup) is JSON-encoded.  JSON bodies and query strings work too.
    """
    params: JSON = {}
    for name, query_value in request.query.items():
        params[name] = _decode_form_value(name, query_value)
    if request.method != "POST" or not request.body_exists:
        return params
    if request.content_type == "application/json":
        body = await request.json()
        if not isinstance(body, dict):
            raise ValueError("request body must be a JSON object")
        params.update(body)
        return params
    form = await request.post()
    for name, value in form.items():
        if isinstance(value, str):
            params[name] = _decode_form_value(name, value)
        elif isinstance(value, bytes | bytearray):
            params[name] = _decode_form_value(name, bytes(value).decode("utf-8"))
        else:  # an uploaded file
            content = value.file.read()
            params[name] = {"filename": value.filename, "size": len(content), "content": content}
    return params


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


__all__ = [
    "DEFAULT_TOKEN",
    "ApiCall",
    "ApiError",
    "CallbackRecord",
    "FakeChat",
    "FakeMessage",
    "FakeTelegramServer",
    "FakeUser",
    "HtmlParseError",
    "Press",
    "detect_entities",
    "parse_html",
    "trim_text",
    "utf16_len",
    "validate_reply_markup",
]
