"""The Mini App's web side: the page (static files in the package), its JSON API and its live
channel (Server-Sent Events), on tornado, the web server python-telegram-bot's webhooks already
run on. In webhook mode its routes join the webhook's server (:func:`bot.serving.webhook_app`);
when polling, it listens on a port of its own (:func:`listen`).

Every request but the page's files names its user by a session (:mod:`bot.webapp.auth`), got
from Telegram's signed ``initData``; what it asks of a match goes through :class:`bot.pages.Pages`,
which checks the match and the seat. Refusals are JSON ``{"error": text}`` in the user's
language, with the HTTP status that says what kind.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import tornado.web
from tornado.httpserver import HTTPServer
from tornado.iostream import StreamClosedError

from bot.i18n import DEFAULT, t
from bot.pages import Pages, Refused
from bot.webapp.auth import (
    NotSigned,
    WebUser,
    check_init_data,
    check_session,
    check_ticket,
    issue_session,
    issue_ticket,
)

STATIC: Final = Path(__file__).parent / "static"
MAX_BODY: Final = 16 * 1024
"""Bytes a request's body may hold (a tap, or Telegram's ``initData``)."""
KEEP_ALIVE: Final = 20.0
"""Seconds between the live channel's keep-alive comments (proxies close silent streams)."""
STREAM_SECONDS: Final = 600.0
"""Seconds a live channel stays open; the page then opens it again with a new ticket."""
STREAMS_EACH: Final = 4
"""Live channels a user may hold open at once (a few devices)."""
STREAMS: Final = 5000
"""Live channels this process holds open at most."""
Clock = Callable[[], float]


class WebAppError(ValueError):
    """The environment asks for a Mini App that cannot work; the message says what to fix."""


@dataclass(frozen=True)
class WebApp:
    """Where the Mini App is: its public address (the page Telegram opens), and where the
    bot listens for it when it polls (in webhook mode it shares the webhook's server)."""

    url: str
    listen: str = "0.0.0.0"
    port: int = 8080
    name: str = ""
    """The Mini App's short name given to @BotFather (``/newapp``; "": the bot's main Mini
    App), which a group's direct link names."""

    @property
    def path(self) -> str:
        """The path the page is served at (the public address's), with a trailing slash."""
        inner = urlsplit(self.url).path.strip("/")
        return f"/{inner}/" if inner else "/"

    def link(self, match_id: int) -> str:
        """The page of a match (the address a web-app button opens)."""
        return f"{self.url.rstrip('/')}/?m={match_id}"

    def direct_link(self, bot: str, match_id: int) -> str:
        """The match's page as a group can open it (web-app buttons work in private chats
        only): Telegram's direct link to the Mini App, the match in its start parameter."""
        app = f"/{self.name}" if self.name else ""
        return f"https://t.me/{bot}{app}?startapp=m{match_id}"


def webapp_from_env(env: Mapping[str, str]) -> WebApp | None:
    """The Mini App the environment asks for (None: none): ``WEBAPP_URL``, the page's public
    HTTPS address, turns it on; ``WEBAPP_PORT`` (default 8080) and ``WEBAPP_LISTEN`` (default
    ``0.0.0.0``) say where a polling bot serves it; ``WEBAPP_NAME``, its short name at
    @BotFather (default: the bot's main Mini App), makes the groups' direct links."""
    url = env.get("WEBAPP_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc:
        raise WebAppError(f"WEBAPP_URL must be an https:// address (Telegram's rule), not {url!r}")
    port = env.get("WEBAPP_PORT", "8080").strip() or "8080"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise WebAppError(f"WEBAPP_PORT must be a port number, not {port!r}")
    listen = env.get("WEBAPP_LISTEN", "0.0.0.0").strip() or "0.0.0.0"
    name = env.get("WEBAPP_NAME", "").strip()
    if name and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", name):
        raise WebAppError(
            f"WEBAPP_NAME must be the Mini App's short name at @BotFather, not {name!r}"
        )
    return WebApp(url, listen, int(port), name)


def routes(pages: Pages, token: str, path: str = "/", clock: Clock = time.time) -> list[Any]:
    """The Mini App's routes under ``path``: the page, its files, the API, the live channel."""
    base = re.escape(path.rstrip("/"))
    api = {"pages": pages, "token": token, "clock": clock}
    return [
        (rf"{base}/", _Page),
        (rf"{base}/static/(.*)", _Files, {"path": str(STATIC)}),
        (rf"{base}/api/session", _Session, api),
        (rf"{base}/api/matches/(\d{{1,18}})", _State, api),
        (rf"{base}/api/matches/(\d{{1,18}})/act", _Act, api),
        (rf"{base}/api/matches/(\d{{1,18}})/ticket", _Ticket, api),
        (rf"{base}/api/matches/(\d{{1,18}})/live", _Live, api),
    ]


def listen(pages: Pages, token: str, webapp: WebApp, port: int | None = None) -> HTTPServer:
    """Serve the Mini App on a port of its own (a polling bot): ``port`` (0: any free one, for
    tests) or the configured one."""
    application = tornado.web.Application(routes(pages, token, webapp.path), log_function=_quiet)
    server = HTTPServer(application, max_body_size=MAX_BODY)
    server.listen(webapp.port if port is None else port, webapp.listen)
    return server


def _quiet(handler: tornado.web.RequestHandler) -> None:
    """No access log: a page asks at every move."""


class _Page(tornado.web.RequestHandler):
    """The page itself (the match comes in its query, or in Telegram's start parameter)."""

    def get(self) -> None:
        """Send the page; it is the same for everyone."""
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Content-Security-Policy", _POLICY)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write((STATIC / "index.html").read_bytes())


_POLICY: Final = (
    "default-src 'self'; script-src 'self' https://telegram.org/js/telegram-web-app.js; "
    "style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors https://telegram.org https://*.telegram.org"
)
"""What the page may load and where it may be framed (Telegram's web clients frame it)."""


class _Files(tornado.web.StaticFileHandler):
    """The page's files, under the page's own policy (``static/index.html`` is the page too)."""

    def set_default_headers(self) -> None:
        """The page's content policy."""
        self.set_header("Content-Security-Policy", _POLICY)


class _Api(tornado.web.RequestHandler):
    """What the API's requests share: JSON in and out, the session's user, refusals."""

    def initialize(self, pages: Pages, token: str, clock: Clock) -> None:
        """Told the pages, the bot's token (the signatures' key) and the clock."""
        self.pages = pages
        self.token = token
        self.clock = clock

    def set_default_headers(self) -> None:
        """Nothing is cached: every answer is the state of now."""
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json; charset=utf-8")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Whatever went wrong, the page gets JSON (tornado's own error page is HTML)."""
        self.finish(json.dumps({"error": str(t(DEFAULT, "ans.error"))}, ensure_ascii=False))

    def send(self, body: Mapping[str, Any], status: HTTPStatus = HTTPStatus.OK) -> None:
        """Answer with ``body`` as JSON."""
        self.set_status(status)
        self.finish(json.dumps(body, ensure_ascii=False))

    def refuse(self, status: HTTPStatus, key: str, lang: str = DEFAULT) -> None:
        """Answer a refusal in words."""
        self.send({"error": str(t(lang, key))}, status)

    def user(self) -> WebUser | None:
        """The session's user (None, and the request refused, without a good one)."""
        header = self.request.headers.get("Authorization", "")
        given = header[7:] if header.startswith("Bearer ") else ""
        try:
            return check_session(given, self.token, self.clock())
        except NotSigned:
            self.refuse(HTTPStatus.UNAUTHORIZED, "web.signed_out")
            return None

    def body(self) -> dict[str, Any] | None:
        """The request's JSON object (None, and the request refused, if it is none)."""
        try:
            too_long = len(self.request.body) > MAX_BODY  # the webhook's server takes more
            body = None if too_long else json.loads(self.request.body or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self.refuse(HTTPStatus.BAD_REQUEST, "web.bad_request")
            return None
        return body

    async def refused(self, refusal: Refused, user: WebUser) -> None:
        """The pages refused: no such match (404), not the user's (403), or malformed (400),
        in the user's language (read off the loop)."""
        await self.pages.people.load([user.id])
        statuses = {"ans.no_match": HTTPStatus.NOT_FOUND, "web.bad_request": HTTPStatus.BAD_REQUEST}
        status = statuses.get(refusal.key, HTTPStatus.FORBIDDEN)
        self.refuse(status, refusal.key, self.pages.people.user_lang(user.id))


class _Session(_Api):
    """``POST {"initData": ...}``: Telegram's signed data traded for a session."""

    def post(self) -> None:
        """Check the data as Telegram documents, then issue the session."""
        body = self.body()
        if body is None:
            return
        given = body.get("initData")
        try:
            user = check_init_data(
                given if isinstance(given, str) else "", self.token, self.clock()
            )
        except NotSigned:
            self.refuse(HTTPStatus.UNAUTHORIZED, "web.not_signed")
            return
        session = issue_session(user, self.token, self.clock())
        self.send({"session": session, "user": {"id": user.id, "name": user.name}})


class _State(_Api):
    """``GET``: what the user's page of the match shows."""

    async def get(self, match_id: str) -> None:
        """The state, or why not."""
        user = self.user()
        if user is None:
            return
        try:
            self.send(await self.pages.state(int(match_id), user.id))
        except Refused as refusal:
            await self.refused(refusal, user)


class _Act(_Api):
    """``POST {"op", "arg", "context"}``: a tap on the page, pressed on the seat's hand."""

    async def post(self, match_id: str) -> None:
        """Press it; the answer's words and the new state."""
        user = self.user()
        body = None if user is None else self.body()
        if user is None or body is None:
            return
        op, arg, context = (body.get(name, "") for name in ("op", "arg", "context"))
        if not all(isinstance(value, str) for value in (op, arg, context)):
            self.refuse(HTTPStatus.BAD_REQUEST, "web.bad_request")
            return
        try:
            self.send(await self.pages.act(int(match_id), user.id, op, arg, context))
        except Refused as refusal:
            await self.refused(refusal, user)


class _Ticket(_Api):
    """``POST``: a ticket to the match's live channel (:func:`~bot.webapp.auth.issue_ticket`)."""

    async def post(self, match_id: str) -> None:
        """The ticket, for a user with a seat in the match."""
        user = self.user()
        if user is None:
            return
        try:
            await self.pages.fingerprint(int(match_id), user.id)
        except Refused as refusal:
            await self.refused(refusal, user)
            return
        self.send({"ticket": issue_ticket(user.id, int(match_id), self.token, self.clock())})


class _Live(_Api):
    """``GET ?ticket=...``: Server-Sent Events, ``changed`` at each change of the match (the page
    then asks for its state), a comment every :data:`KEEP_ALIVE` seconds. A stream ends once
    the match is over, and after :data:`STREAM_SECONDS` (the page comes back with a new
    ticket, so an ended session hears no more); a user has :data:`STREAMS_EACH` at most, the
    process :data:`STREAMS`."""

    def set_default_headers(self) -> None:
        """An event stream, never cached nor buffered by a proxy."""
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("X-Accel-Buffering", "no")

    async def get(self, match_id: str) -> None:
        """Stream the match's changes until the page goes (or the match ends)."""
        number = int(match_id)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        try:
            user_id = check_ticket(
                self.get_argument("ticket", ""), number, self.token, self.clock()
            )
        except NotSigned:
            self.refuse(HTTPStatus.UNAUTHORIZED, "web.signed_out")
            return
        await self.pages.people.load([user_id])
        lang = self.pages.people.user_lang(user_id)
        if self.pages.open_for(user_id) >= STREAMS_EACH or self.pages.open_for() >= STREAMS:
            self.refuse(HTTPStatus.TOO_MANY_REQUESTS, "web.too_many", lang)
            return
        self.pages.opened(number, user_id)  # counted before anything is awaited
        try:
            await self._open(number, user_id, lang)
        finally:
            await self.pages.closed(number, user_id)

    async def _open(self, number: int, user_id: int, lang: str) -> None:
        try:
            seen = await self.pages.fingerprint(number, user_id)
        except Refused as refusal:
            self.refuse(HTTPStatus.FORBIDDEN, refusal.key, lang)
            return
        self.set_header("Content-Type", "text/event-stream")
        event = self.pages.watch(number)
        self._gone, self._event = asyncio.Event(), event
        try:
            await self.pages.looking(number)
            await self._stream(number, user_id, event, seen)
        except (StreamClosedError, Refused):
            pass
        finally:
            self.pages.unwatch(number, event)

    async def _stream(self, match_id: int, user_id: int, event: asyncio.Event, seen: Any) -> None:
        self.write("retry: 1000\n\n")
        await self.flush()
        ends = self.clock() + STREAM_SECONDS
        while not self._gone.is_set() and self.clock() < ends and seen[2] == "playing":
            try:
                await asyncio.wait_for(event.wait(), KEEP_ALIVE)
            except TimeoutError:
                self.write(": still here\n\n")
                await self.flush()
            event.clear()
            now = await self.pages.fingerprint(match_id, user_id)
            if now != seen:
                seen = now
                self.write("event: changed\ndata: {}\n\n")
                await self.flush()

    def on_connection_close(self) -> None:
        """The page went: the stream ends."""
        if hasattr(self, "_gone"):
            self._gone.set()
            self._event.set()
