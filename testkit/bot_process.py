"""The bot in a process of its own, for the crash and scale-out tests:
``python bot_process.py URL DB TOKEN``.

The real Application, on the database ``DB`` (a SQLite file's path, or a SQLAlchemy URL), takes
its updates from the fake Bot API at ``URL`` (``…/bot``) as :mod:`bot.serving` says: by long
polling, or on a webhook when ``WEBHOOK_URL`` is set (with ``PORT``, ``WEBHOOK_LISTEN`` and
``WEBHOOK_SECRET`` as in production). It keeps its share (``BOT_INSTANCES``) of Telegram's
limits at the end-to-end tests' speed (``PACE_SPEED``: at real speed for the bench), until it is
killed.
"""

from __future__ import annotations

import logging
import os
import sys

from bot.app import build_application
from bot.delivery import Pace
from bot.serving import UPDATES, serve, webhook_from_env, with_secret
from storage import Store
from testkit.bot_harness import SPEED


def main() -> None:
    """Run the bot until killed."""
    url, database, token = sys.argv[1:4]
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    instances = int(os.environ.get("BOT_INSTANCES", "1"))
    location = database if "://" in database else f"sqlite:///{database}"
    store = Store.open(location, exclusive=instances == 1, instance=instances > 1)
    application = build_application(
        token,
        store,
        url,
        table_delay=0,
        computer_pause=float(os.environ.get("COMPUTER_PAUSE", "0")),
        pace=Pace().shared(instances).faster(float(os.environ.get("PACE_SPEED", str(SPEED)))),
        due_poll=float(os.environ.get("DUE_POLL", "0.2")),
    )
    webhook = webhook_from_env(os.environ)
    if webhook is None:
        application.run_polling(
            allowed_updates=UPDATES,
            poll_interval=0,
        )
    else:
        serve(application, with_secret(webhook, store))


if __name__ == "__main__":
    main()
