"""``python -m bot``: start Tavolo.

Environment: ``TELEGRAM_BOT_TOKEN`` (required), ``TELEGRAM_API_BASE_URL`` (optional, e.g.
``http://127.0.0.1:8081/bot`` for a local Bot API server), ``DATABASE_URL`` (default
``sqlite:///tavolo.db``), ``WEBHOOK_URL`` (optional; long polling otherwise), ``PORT`` (webhook
listening port, default 8443).
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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        store = Store.open(os.environ.get("DATABASE_URL") or None)
    except StoreError as error:
        print(f"tavolo: {error}", file=sys.stderr)
        return 1
    from bot.app import build_application

    application = build_application(token, store, os.environ.get("TELEGRAM_API_BASE_URL") or None)
    webhook = os.environ.get("WEBHOOK_URL", "").strip()
    if webhook:
        application.run_webhook(
            listen="0.0.0.0",
            port=int(os.environ.get("PORT", "8443")),
            webhook_url=webhook,
            allowed_updates=["message", "callback_query", "my_chat_member", "chat_member"],
        )
    else:
        application.run_polling(
            allowed_updates=["message", "callback_query", "my_chat_member", "chat_member"]
        )
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
