"""The Bot API's error answers: :class:`ApiError` and Telegram's error descriptions (``ERR_*``)."""

from __future__ import annotations

from .constants import JSON

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
ERR_THREAD_NOT_FOUND = "Bad Request: message thread not found"
ERR_NOT_A_FORUM = "Bad Request: the chat is not a forum"
ERR_TOPIC_RIGHTS = "Bad Request: not enough rights to create a topic"
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
