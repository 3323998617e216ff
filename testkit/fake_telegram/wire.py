"""Requests in and answers out: a Bot API request's parameters decoded (form, multipart, JSON,
query string) as PTB encodes them, and answers encoded as JSON."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from .constants import JSON

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
