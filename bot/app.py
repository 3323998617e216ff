"""Builds the python-telegram-bot ``Application``: handlers registered in one place."""

from __future__ import annotations

import gc
import itertools
import logging
from collections.abc import Callable
from datetime import datetime

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.delivery import Pace
from bot.guide import ITALIAN, MENU_LANGUAGES, MENU_SCOPES, menu
from bot.handlers import buttons, commands, errors, events
from bot.handlers.common import load_asker
from bot.service import Tavolo
from bot.timers import JobQueueScheduler, Scheduler, utc_now
from bot.updates import PerChatUpdates
from bot.webapp.server import WebApp
from bot.work import POLL
from storage import Store

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0
"""Seconds the bot waits, when it stops, for the messages still in its outbox."""


def build_application(
    token: str,
    store: Store,
    base_url: str | None = None,
    table_delay: float | None = None,
    computer_pause: float | None = None,
    scheduler: Scheduler | None = None,
    clock: Callable[[], datetime] | None = None,
    pace: Pace | None = None,
    due_poll: float | None = POLL,
    webapp: WebApp | None = None,
) -> Application:  # type: ignore[type-arg]
    """The bot's Application over ``store``; ``base_url`` points at another Bot API server;
    ``table_delay`` (seconds) is how long a table edit waits to gather moves, ``computer_pause``
    how long a computer seat waits before its move (tests set both to 0); ``scheduler`` and
    ``clock`` run the turn timers (default: the JobQueue and the system clock); ``pace`` is the
    Telegram limits the bot keeps (:class:`bot.delivery.Pace`; tests run it faster);
    ``due_poll`` how often (seconds) the bot looks for due work that no instance holds, such as
    a dead instance's timers (None: never; tests that move the clock themselves); ``webapp``
    the Mini App, when there is one (:mod:`bot.webapp.server`).

    There is no rate limiter on the Bot: every message goes through the service's outbox, which
    keeps the limits per chat, and answers to presses go straight out."""
    builder = ApplicationBuilder().token(token).concurrent_updates(PerChatUpdates())
    if base_url:
        builder = builder.base_url(base_url).base_file_url(base_url.replace("/bot", "/file/bot"))
    builder = builder.post_init(_post_init).post_stop(_post_stop)
    application = builder.build()
    clock = clock or utc_now
    scheduler = scheduler or JobQueueScheduler(application.job_queue, clock)
    service = Tavolo(store, application.bot, scheduler, clock, pace)
    if table_delay is not None:
        service.shows.table_delay = table_delay
    if computer_pause is not None:
        service.computers.pause = computer_pause
    application.bot_data["tavolo"] = service
    if webapp is not None:
        service.shows.page_link = webapp.link
        bot = application.bot
        service.shows.group_link = lambda match_id: webapp.direct_link(bot.username, match_id)
        application.bot_data["webapp"] = webapp
    application.bot_data["due_poll"] = due_poll
    register(application)
    return application


def register(application: Application) -> None:  # type: ignore[type-arg]
    """Every handler, in one place."""
    application.add_handler(TypeHandler(Update, load_asker), group=-2)
    application.add_handler(TypeHandler(Update, events.seen), group=-1)
    handlers = {
        "newgame": commands.new_game,
        "start": commands.start,
        "help": commands.help_command,
        "table": commands.table,
        "score": commands.score,
        "rules": commands.rules,
        "stop": commands.stop,
        "hand": commands.hand,
        "abandon": commands.abandon,
        "language": commands.language,
        "settings": commands.settings,
        "rankings": commands.rankings,
        "tournament": commands.tournament,
        "tournaments": commands.tournaments,
        "verify": commands.verify,
        "stats": commands.stats,
        "deletemydata": commands.delete_my_data,
    }
    for name, callback in handlers.items():
        names = [name, ITALIAN[name]] if name in ITALIAN else [name]
        application.add_handler(CommandHandler(names, callback))
    private_message = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    application.add_handler(
        MessageHandler(filters.UpdateType.MESSAGE & filters.COMMAND, commands.unknown)
    )
    application.add_handler(
        MessageHandler(private_message & filters.TEXT & ~filters.COMMAND, commands.words)
    )
    application.add_handler(CallbackQueryHandler(buttons.on_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, events.migrated))
    application.add_handler(
        MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, events.member_left)
    )
    application.add_handler(
        ChatMemberHandler(events.bot_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_error_handler(errors.on_error)


def freeze_what_lasts() -> None:
    """What the process loaded to start (modules, catalogs, the application) lasts as long
    as it does: collected once, then left out of the garbage collector's full sweeps, which
    otherwise stopped the event loop for 0.15 to 0.2 s several times a minute under load
    (docs/performance.md). Called once the application is built, before it serves."""
    gc.collect()
    gc.freeze()


async def _post_init(application: Application) -> None:  # type: ignore[type-arg]
    """Register the command menus (private and group, in English and Italian) and resume
    every unfinished match."""
    bot = application.bot
    scopes = {"private": BotCommandScopeAllPrivateChats(), "group": BotCommandScopeAllGroupChats()}
    for scope, lang in itertools.product(MENU_SCOPES, MENU_LANGUAGES):
        commands = [BotCommand(name, text) for name, text in menu(scope, lang)]
        await bot.set_my_commands(
            commands, scope=scopes[scope], language_code=MENU_LANGUAGES[lang] or None
        )
    service = application.bot_data["tavolo"]
    assert isinstance(service, Tavolo)
    resumed = await service.resume_all()
    log.info("resumed %d unfinished matches", resumed)
    poll = application.bot_data.get("due_poll")
    if poll:
        service.work.start(poll)


async def _post_stop(application: Application) -> None:  # type: ignore[type-arg]
    """Stop the computer players and let the waiting messages go out (a few seconds at most)."""
    service = application.bot_data["tavolo"]
    assert isinstance(service, Tavolo)
    await service.close(SHUTDOWN_GRACE)
