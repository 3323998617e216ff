"""Who is at the page: the Mini App's ``initData`` checked as Telegram documents it, then a
short-lived session of the bot's own.

Telegram signs ``initData`` (the query string a Mini App is opened with) with a key derived from
the bot's token: ``secret = HMAC-SHA256(key="WebAppData", msg=token)``, and ``hash`` is the hex
``HMAC-SHA256(key=secret, msg=data_check_string)``, where the data-check string is every other
field, ``key=value``, sorted by key, joined by line feeds
(https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app). Nothing the
page says about its user counts but what that signature covers (``initDataUnsafe`` is never
read), and only while ``auth_date`` is recent.

The session is a token the page sends with each request: the user and an expiry, signed with a
key derived from the bot's token too, so that every instance of the bot checks it without a
shared store, and a new token ends every session.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

INIT_DATA_MAX_AGE = 3600
"""Seconds an ``initData`` is taken after Telegram signed it (the page trades it for a session
as it opens)."""
SESSION_SECONDS = 6 * 3600
"""Seconds a session lasts: a long match; the page then asks Telegram's data again."""
TICKET_SECONDS = 60
"""Seconds a ticket to a live channel may open it (the page asks for a new one to reopen)."""
MAX_INIT_DATA = 4096
"""Bytes of ``initData`` read (Telegram's are a few hundred)."""


class NotSigned(ValueError):
    """What the page sent is not Telegram's (or the bot's), or no longer good."""


@dataclass(frozen=True, slots=True)
class WebUser:
    """The user Telegram vouches for: the id, the name to show, the client's language."""

    id: int
    name: str
    language: str = ""


def _key(token: str, purpose: bytes) -> bytes:
    return hmac.new(purpose, token.encode(), hashlib.sha256).digest()


def sign_init_data(fields: dict[str, str], token: str) -> str:
    """``initData`` as Telegram makes it from ``fields`` (for tests and local trials): the
    fields and their ``hash``, URL-encoded."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    mac = hmac.new(_key(token, b"WebAppData"), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": mac})


def check_init_data(init_data: str, token: str, now: float) -> WebUser:
    """The user of a genuine, recent ``initData``; :class:`NotSigned` says why not."""
    if len(init_data) > MAX_INIT_DATA:
        raise NotSigned("too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise NotSigned("not a query string") from None
    fields = dict(pairs)
    given = fields.pop("hash", "")
    if len(fields) + 1 != len(pairs) or not given:
        raise NotSigned("no hash, or a field twice")
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    mac = hmac.new(_key(token, b"WebAppData"), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(mac.encode(), given.lower().encode()):
        raise NotSigned("bad hash")
    try:
        signed_at = int(fields.get("auth_date", ""))
    except ValueError:
        raise NotSigned("no auth_date") from None
    if not now - INIT_DATA_MAX_AGE <= signed_at <= now + 60:
        raise NotSigned("auth_date too old")
    return _user(fields.get("user", ""))


def _user(text: str) -> WebUser:
    try:
        user = json.loads(text)
        user_id = user["id"]
    except (ValueError, TypeError, KeyError):
        raise NotSigned("no user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise NotSigned("no user")
    first, last = str(user.get("first_name", "")), str(user.get("last_name", ""))
    name = " ".join(part for part in (first, last) if part) or str(user_id)
    return WebUser(user_id, name[:64], str(user.get("language_code", ""))[:8])


def issue_session(user: WebUser, token: str, now: float) -> str:
    """A session token for ``user``, good for :data:`SESSION_SECONDS`."""
    return _sign(
        b"TavoloSession", [user.id, int(now) + SESSION_SECONDS, user.name, user.language], token
    )


def check_session(session: str, token: str, now: float) -> WebUser:
    """The user of a session this bot issued and that has not expired (:class:`NotSigned`)."""
    try:
        user_id, expires, name, language = _unsign(b"TavoloSession", session, token)
    except (ValueError, TypeError):
        raise NotSigned("bad session") from None
    if now >= expires:
        raise NotSigned("session expired")
    return WebUser(int(user_id), str(name), str(language))


def issue_ticket(user_id: int, match_id: int, token: str, now: float) -> str:
    """A ticket to one match's live channel for ``user_id``, good for :data:`TICKET_SECONDS`
    (an address holds it: a session would be left in the logs of whatever it passes)."""
    return _sign(b"TavoloTicket", [user_id, match_id, int(now) + TICKET_SECONDS], token)


def check_ticket(ticket: str, match_id: int, token: str, now: float) -> int:
    """The user of a good ticket to ``match_id``'s live channel (:class:`NotSigned`)."""
    try:
        user_id, ticket_match, expires = _unsign(b"TavoloTicket", ticket, token)
    except (ValueError, TypeError):
        raise NotSigned("bad ticket") from None
    if ticket_match != match_id or now >= expires:
        raise NotSigned("ticket expired, or for another match")
    return int(user_id)


def _sign(purpose: bytes, body: list[object], token: str) -> str:
    """``body`` as JSON, and its signature with the bot token's key for ``purpose``."""
    payload = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
    return payload + "." + _mac(purpose, payload, token)


def _unsign(purpose: bytes, text: str, token: str) -> list[Any]:
    """The body of what :func:`_sign` signed for ``purpose`` (:class:`NotSigned` if not)."""
    payload, _, mac = text.partition(".")
    if len(text) > 1024 or not mac:
        raise NotSigned("not signed")
    if not hmac.compare_digest(_mac(purpose, payload, token).encode(), mac.encode()):
        raise NotSigned("bad signature")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    if not isinstance(body, list):
        raise NotSigned("not a body")
    return body


def _mac(purpose: bytes, payload: str, token: str) -> str:
    digest = hmac.new(_key(token, purpose), payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
