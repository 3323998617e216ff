"""How the bot receives its updates: long polling (one instance), or webhooks (one or more
instances behind a reverse proxy), read from the environment.

Webhooks are authenticated: ``setWebhook`` gets a secret token, and python-telegram-bot's
webhook server refuses (403) every request without it in the ``X-Telegram-Bot-Api-Secret-Token``
header. The secret comes from ``WEBHOOK_SECRET``, or else is generated once and stored in the
database, so that every instance on it sets the same one.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from storage import Store

UPDATES: Final = ["message", "callback_query", "my_chat_member", "chat_member"]
"""The update kinds the bot asks Telegram for."""
SECRET_SETTING: Final = "webhook_secret"
"""The stored setting that holds a generated webhook secret."""
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class ServingError(ValueError):
    """The environment asks for something that cannot work; the message says what to fix."""


@dataclass(frozen=True)
class Webhook:
    """Where the instance listens for webhooks, and what it tells Telegram."""

    url: str
    """The public address Telegram posts to (the reverse proxy's)."""
    listen: str
    port: int
    path: str
    """The path the instance serves (the public URL's path)."""
    secret: str


def webhook_from_env(env: Mapping[str, str], store: Store) -> Webhook | None:
    """The webhook the environment asks for (None: poll). ``WEBHOOK_URL`` turns it on;
    ``WEBHOOK_LISTEN`` (default ``0.0.0.0``), ``PORT`` (default 8443) and ``WEBHOOK_SECRET``
    (default: generated and stored in the database) complete it."""
    url = env.get("WEBHOOK_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ServingError(f"WEBHOOK_URL must be an https:// address, not {url!r}")
    port_text = env.get("PORT", "8443").strip() or "8443"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ServingError(f"PORT must be a port number, not {port_text!r}")
    secret = env.get("WEBHOOK_SECRET", "").strip()
    if secret and not _SECRET.fullmatch(secret):
        raise ServingError(
            "WEBHOOK_SECRET may hold only letters, digits, '_' and '-', at most 256 of them"
        )
    secret = secret or store.setting(SECRET_SETTING, lambda: secrets.token_urlsafe(32))
    listen = env.get("WEBHOOK_LISTEN", "0.0.0.0").strip() or "0.0.0.0"
    return Webhook(url, listen, int(port_text), parts.path.lstrip("/"), secret)


def serve(application: Any, webhook: Webhook | None) -> None:
    """Run the bot until it is stopped: on its webhook, or by long polling."""
    if webhook is None:
        application.run_polling(allowed_updates=UPDATES)
        return
    application.run_webhook(
        listen=webhook.listen,
        port=webhook.port,
        url_path=webhook.path,
        webhook_url=webhook.url,
        secret_token=webhook.secret,
        allowed_updates=UPDATES,
    )
