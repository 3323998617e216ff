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

The package, one module per job (``__init__`` re-exports every name the tests use)::

    constants.py  JSON, the fake bot's defaults, Telegram's limits, chat actions, update kinds
    errors.py     ApiError, bad_request/forbidden, Telegram's error descriptions (ERR_*)
    html.py       parse_mode=HTML -> entities, trim_text, detect_entities, UTF-16 helpers
    markup.py     validate_reply_markup: inline and reply keyboards as Telegram checks them
    flood.py      FloodLimits and _Flood, the flood accounting (per chat, per group, overall)
    world.py      FakeUser, FakeChat, FakeMessage; ApiCall, CallbackRecord, Press (records)
    wire.py       a request's parameters decoded as PTB encodes them; JSON answers
    server.py     FakeTelegramServer: lifecycle, updates, waits, HTTP, the Bot API methods
"""

from __future__ import annotations

from .constants import (
    CHAT_ACTIONS,
    DEFAULT_BOT_ID,
    DEFAULT_BOT_NAME,
    DEFAULT_BOT_USERNAME,
    DEFAULT_TOKEN,
    JSON,
    MAX_BUTTONS_PER_ROW,
    MAX_CALLBACK_ANSWER_LENGTH,
    MAX_CALLBACK_DATA_BYTES,
    MAX_CAPTION_LENGTH,
    MAX_COMMANDS,
    MAX_INLINE_BUTTONS,
    MAX_MESSAGE_LENGTH,
    MAX_UPLOAD_BYTES,
    NOT_SENT_BY_DEFAULT,
    QUERY_TIMEOUT,
)
from .errors import (
    ERR_ANSWER_TOO_LONG,
    ERR_BLOCKED,
    ERR_BUTTON_DATA,
    ERR_BUTTON_TEXT,
    ERR_CANT_DELETE,
    ERR_CANT_EDIT,
    ERR_CANT_INITIATE,
    ERR_CAPTION_TOO_LONG,
    ERR_CHAT_NOT_FOUND,
    ERR_CONFLICT_POLL,
    ERR_CONFLICT_WEBHOOK,
    ERR_DELETE_NOT_FOUND,
    ERR_EDIT_NOT_FOUND,
    ERR_MARKUP_TOO_LONG,
    ERR_MIGRATED,
    ERR_NOT_MODIFIED,
    ERR_PARSE_ENTITIES,
    ERR_PIN_NOT_FOUND,
    ERR_PIN_RIGHTS,
    ERR_QUERY_INVALID,
    ERR_REPLY_NOT_FOUND,
    ERR_ROW_TOO_LONG,
    ERR_TEXT_BUTTONS,
    ERR_TEXT_EMPTY,
    ERR_TEXT_TOO_LONG,
    ERR_USER_NOT_FOUND,
    ApiError,
    bad_request,
    forbidden,
)
from .flood import FLOOD_METHODS, FloodLimits, _Flood
from .html import HtmlParseError, detect_entities, parse_html, trim_text, utf16_len
from .markup import BUTTON_ACTIONS, validate_reply_markup
from .server import FakeTelegramServer, Handler
from .wire import STRING_PARAMS
from .world import ApiCall, CallbackRecord, FakeChat, FakeMessage, FakeUser, Press

__all__ = [
    "BUTTON_ACTIONS",
    "CHAT_ACTIONS",
    "DEFAULT_BOT_ID",
    "DEFAULT_BOT_NAME",
    "DEFAULT_BOT_USERNAME",
    "DEFAULT_TOKEN",
    "ERR_ANSWER_TOO_LONG",
    "ERR_BLOCKED",
    "ERR_BUTTON_DATA",
    "ERR_BUTTON_TEXT",
    "ERR_CANT_DELETE",
    "ERR_CANT_EDIT",
    "ERR_CANT_INITIATE",
    "ERR_CAPTION_TOO_LONG",
    "ERR_CHAT_NOT_FOUND",
    "ERR_CONFLICT_POLL",
    "ERR_CONFLICT_WEBHOOK",
    "ERR_DELETE_NOT_FOUND",
    "ERR_EDIT_NOT_FOUND",
    "ERR_MARKUP_TOO_LONG",
    "ERR_MIGRATED",
    "ERR_NOT_MODIFIED",
    "ERR_PARSE_ENTITIES",
    "ERR_PIN_NOT_FOUND",
    "ERR_PIN_RIGHTS",
    "ERR_QUERY_INVALID",
    "ERR_REPLY_NOT_FOUND",
    "ERR_ROW_TOO_LONG",
    "ERR_TEXT_BUTTONS",
    "ERR_TEXT_EMPTY",
    "ERR_TEXT_TOO_LONG",
    "ERR_USER_NOT_FOUND",
    "FLOOD_METHODS",
    "JSON",
    "MAX_BUTTONS_PER_ROW",
    "MAX_CALLBACK_ANSWER_LENGTH",
    "MAX_CALLBACK_DATA_BYTES",
    "MAX_CAPTION_LENGTH",
    "MAX_COMMANDS",
    "MAX_INLINE_BUTTONS",
    "MAX_MESSAGE_LENGTH",
    "MAX_UPLOAD_BYTES",
    "NOT_SENT_BY_DEFAULT",
    "QUERY_TIMEOUT",
    "STRING_PARAMS",
    "ApiCall",
    "ApiError",
    "CallbackRecord",
    "FakeChat",
    "FakeMessage",
    "FakeTelegramServer",
    "FakeUser",
    "FloodLimits",
    "Handler",
    "HtmlParseError",
    "Press",
    "_Flood",
    "bad_request",
    "detect_entities",
    "forbidden",
    "parse_html",
    "trim_text",
    "utf16_len",
    "validate_reply_markup",
]
