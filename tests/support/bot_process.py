"""The bot in a process of its own, for the crash test: ``python bot_process.py URL DB TOKEN``.

The real Application polls the fake Bot API at ``URL`` (``…/bot``) on the SQLite file ``DB``,
keeping Telegram's limits at the end-to-end tests' speed, until it is killed.
"""

from __future__ import annotations

import logging
import os
import sys

from bot_harness import SPEED

from bot.app import build_application
from bot.delivery import Pace
from storage import Store


def main() -> None:
    """Run the bot until killed."""
    url, database, token = sys.argv[1:4]
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    store = Store.open(f"sqlite:///{database}")
    application = build_application(
        token, store, url, table_delay=0, computer_pause=0, pace=Pace().faster(SPEED)
    )
    application.run_polling(
        allowed_updates=["message", "callback_query", "my_chat_member", "chat_member"],
        poll_interval=0,
    )


if __name__ == "__main__":
    main()
