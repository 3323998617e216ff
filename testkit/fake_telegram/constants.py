"""Telegram's numbers as the fake keeps them: the fake bot's defaults, the limits it enforces,
the chat actions and the update kinds it knows; and ``JSON``, the type of a Bot API object."""

from __future__ import annotations

from typing import Any

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
COMMAND_SCOPES: dict[str, tuple[str, ...]] = {
    "default": (),
    "all_private_chats": (),
    "all_group_chats": (),
    "all_chat_administrators": (),
    "chat": ("chat_id",),
    "chat_administrators": ("chat_id",),
    "chat_member": ("chat_id", "user_id"),
}  # BotCommandScope's types and their required fields
MAX_CAPTION_LENGTH = 1024  # UTF-16 code units of a media caption
MAX_UPLOAD_BYTES = 50 * 1024 * 1024  # what a bot may upload
QUERY_TIMEOUT = 15.0  # seconds within which a callback query must be answered
DELETE_WINDOW = 48 * 3600  # seconds within which a bot may delete a message

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
