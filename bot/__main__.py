"""``python -m bot``: start Tavolo.

Environment: ``TELEGRAM_BOT_TOKEN`` (required), ``TELEGRAM_API_BASE_URL`` (optional, e.g.
``http://127.0.0.1:8081/bot`` for a local Bot API server), ``DATABASE_URL`` (default
``sqlite:///tavolo.db``), ``WEBHOOK_URL`` (optional; long polling otherwise), ``PORT`` (webhook
listening port, default 8443), ``WEBHOOK_LISTEN`` (default ``0.0.0.0``), ``WEBHOOK_SECRET``
(default: generated once and kept in the database): see :mod:`bot.serving`; ``BOT_INSTANCES``
(default 1): how many instances share the bot's Telegram budget; ``WEBAPP_URL`` (optional: the
Mini App's public HTTPS address), ``WEBAPP_PORT`` and ``WEBAPP_LISTEN``: see
:mod:`bot.webapp.server`.

Exit status: 0 when stopped, 1 when the database cannot be used (the line says why), 2 when the
configuration is wrong (likewise; a token Telegram refuses too). While Telegram cannot be reached
the bot tries again with a growing delay (:func:`bot.serving.reach`).
"""

from __future__ import annotations

import logging
import os
import sys

from storage import Store, StoreError


def main() -> int:
    """Read the environment, open (and upgrade) the database, run the bot."""
    token = os.environ.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        print(
            "tavolo: TELEGRAM_BOT_TOKEN is not set; get a token from @BotFather and run "
            "TELEGRAM_BOT_TOKEN=... python -m bot",
            file=sys.stderr,
        )
        return 2
    from bot.serving import ServingError, instances_from_env, serve, webhook_from_env, with_secret
    from bot.webapp.server import WebAppError, webapp_from_env

    try:
        webhook = webhook_from_env(os.environ)
        instances = instances_from_env(os.environ)
        webapp = webapp_from_env(os.environ)
    except (ServingError, WebAppError) as error:
        print(f"tavolo: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request, with the token
    try:
        url = os.environ.get("DATABASE_URL") or None
        store = Store.open(url, exclusive=instances == 1, instance=instances > 1)
        webhook = None if webhook is None else with_secret(webhook, store)
    except StoreError as error:
        print(f"tavolo: {error}", file=sys.stderr)
        return 1
    from bot.app import build_application, freeze_what_lasts
    from bot.delivery import Pace

    application = build_application(
        token,
        store,
        os.environ.get("TELEGRAM_API_BASE_URL") or None,
        pace=Pace().shared(instances),
        webapp=webapp,
    )
    freeze_what_lasts()
    try:
        serve(application, webhook)
    except ServingError as error:
        print(f"tavolo: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # stopped while it was still trying to reach Telegram
        pass
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
