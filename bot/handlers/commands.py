"""Commands in groups and in private."""

from __future__ import annotations

import re

from telegram import Chat, Message, Update
from telegram.ext import ContextTypes

from bot.callbacks import MAX_ID, TableCommand
from bot.guide import unknown_game
from bot.handlers.common import (
    display_name,
    is_admin,
    is_group,
    remember,
    reply,
    tavolo,
    thread_of,
)
from bot.i18n import LANGUAGES, t
from bot.rankings import LEVEL_WORDS
from bot.seasons import LAST_WORDS, MONTH_WORDS
from bot.tables import Asked
from engine.games import GAMES, by_word


async def new_game(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/newgame [scala40|scopone]`` (alias ``/nuova``): open a lobby in the group, or in the
    private chat for a match against computer players (the table is shown there)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    await remember(update, context)
    service = tavolo(context)
    if not is_group(chat):
        await service.private_chat_opened(user.id)
    lang = service.people.reply_lang(chat.id, user.id, user.language_code)
    spec = by_word(context.args[0]) if context.args else next(iter(GAMES.values()))
    if spec is None:
        reply(update, context, unknown_game(lang))
        return
    forum = bool(chat.is_forum)
    asked = Asked(chat.id, user.id, message.message_id, thread=thread_of(message), forum=forum)
    await service.new_game(asked, display_name(user), spec.name)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/start [j<match>]``: in private, what can be done here (or join a lobby by its deep
    link); in a group, what the bot plays and how to begin."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    await remember(update, context)
    service = tavolo(context)
    lang = service.people.reply_lang(chat.id, user.id, user.language_code)
    if is_group(chat):
        service.guide.greet_group(chat.id, lang, message.message_id)
        return
    await service.private_chat_opened(user.id)
    payload = (context.args or [""])[0]
    joining = re.fullmatch(r"j[0-9]{1,10}", payload) is not None and int(payload[1:]) <= MAX_ID
    joined = joining and await service.join_from_link(int(payload[1:]), user.id, display_name(user))
    if joined:
        reply(update, context, t(lang, joined))
        return
    service.guide.welcome(user.id, display_name(user), lang)
    await service.resend_hands(user.id)


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help`` (``/aiuto``): how to play each game, and the main commands."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    service = tavolo(context)
    lang = service.people.reply_lang(chat.id, user.id, user.language_code)
    service.guide.help(chat.id, lang, message.message_id if is_group(chat) else None)


async def words(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A message in words in private ("ciao, come si gioca?"): a short guide."""
    user = update.effective_user
    if user is None:
        return
    await remember(update, context)
    service = tavolo(context)
    await service.words(user.id, service.user_lang(user.id, user.language_code))


async def unknown(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command the bot does not know: in private, a short guide; in a group, a hint only
    when the command names this bot (``/x@bot``), since a bare ``/x`` may be another bot's."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None or message.text is None:
        return
    if is_group(chat) and not _names_this_bot(message.text, context.bot.username):
        return
    service = tavolo(context)
    lang = service.people.reply_lang(chat.id, user.id, user.language_code)
    service.guide.unknown(chat.id, lang, message.message_id if is_group(chat) else None)


def _names_this_bot(text: str, username: str) -> bool:
    """Whether a command (``/x@name …``) is addressed to the bot named ``username``."""
    command = text.split(maxsplit=1)[0] if text.strip() else ""
    _, at, name = command.partition("@")
    return bool(at) and name.lower() == username.lower()


async def table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/table`` (``/tavolo``): post the table again at the bottom and keep editing that one
    (in private, the table of the match against the computer)."""
    await about_table(update, context, TableCommand.TABLE)


async def score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/score`` (``/punti``): the scores of the chat's match (a group's, or in private the
    match against the computer)."""
    await about_table(update, context, TableCommand.SCORE)


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules`` (``/regole``): the options of the chat's match."""
    await about_table(update, context, TableCommand.RULES)


async def stop(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/stop``: the creator or an admin stops the chat's match, after a confirmation; in
    private, the player stops their match against the computer (it counts for nobody)."""
    await about_table(update, context, TableCommand.STOP)


async def about_table(
    update: Update, context: ContextTypes.DEFAULT_TYPE, command: TableCommand
) -> None:
    """A command about one match: in a group playing several tables, the one whose message
    it replies to, else the one where the person sits, else the group is asked which
    (:meth:`bot.service.Tavolo.table_command`)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    await remember(update, context)  # where the command was: its answer goes there
    group = is_group(chat)
    admin = command == TableCommand.STOP and group and await is_admin(update, context)
    replied = message.reply_to_message
    to_bot = replied is not None and replied.from_user is not None
    to_bot = to_bot and replied.from_user.id == context.bot.id  # type: ignore[union-attr]
    reply_to = message.message_id if group else None
    asked = Asked(
        chat.id,
        user.id,
        reply_to,
        replied.message_id if replied else None,
        admin,
        thread_of(message),
        to_bot,
    )
    await tavolo(context).table_command(command, asked)


async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/hand`` (``/mano``) in private: send every hand of the user again."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    service = tavolo(context)
    if not is_group(chat):  # typed in a group, it proves nothing about the private chat
        await service.private_chat_opened(user.id)
    count = await service.resend_hands(user.id)
    if is_group(chat):  # the reply is read by the group (one that never chose: the asker)
        lang = service.people.reply_lang(chat.id, user.id, user.language_code)
    elif count:
        return  # in private the new hand is the answer, and stays the last message
    else:
        lang = service.user_lang(user.id, user.language_code)
    reply(update, context, t(lang, "cmd.hands_sent" if count else "cmd.no_match"))


async def abandon(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/abandon`` (``/abbandona``) in private: abandon a match, after a confirmation."""
    user = update.effective_user
    if user is None:
        return
    await tavolo(context).ask_abandon(user.id)


async def language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/language [it|en]`` (``/lingua``): the group's or the user's own language."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    service = tavolo(context)
    wanted = (context.args or [""])[0].lower()
    if wanted not in LANGUAGES:
        service.languages.ask(chat.id, user.id, message.message_id if is_group(chat) else None)
        return
    answer = await service.languages.choose(chat.id, user.id, wanted, None)
    if answer.alert:  # the only refusal: neither the host nor an admin
        reply_to = message.message_id if is_group(chat) else None
        service.refuse(chat.id, user.id, "ans.only_creator_admin", reply_to)


async def verify(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/verify`` (``/verifica``): the commitment to the deals; after the match, the proof."""
    await about_table(update, context, TableCommand.VERIFY)


async def rankings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/classifica [mese] [scala40|scopone]`` in a group: players ranked by MP, then VP, of
    all time or (``mese``, ``month``) in the month so far (``mese scorso``: the month before);
    ``/classifica livelli``: by skill level."""
    found = in_group(update, context)
    if found is None:
        return
    chat, _ = found
    service = tavolo(context)
    lang = service.group_lang(chat.id)
    words = [word.lower() for word in context.args or []]
    wanted = [spec.name for spec in map(by_word, words) if spec is not None]
    games = wanted or list(GAMES)
    if LEVEL_WORDS.intersection(words):
        reply(update, context, await service.seasons.levels_text(chat.id, lang))
    elif MONTH_WORDS.intersection(words):
        previous = bool(LAST_WORDS.intersection(words))
        text = await service.seasons.standings_text(chat.id, games, lang, previous)
        reply(update, context, text)
    else:
        reply(update, context, await service.seasons.rankings_text(chat.id, games, lang))


async def tournament(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/torneo [scala40]`` (``/tournament``) in a group: open a tournament's registration
    (or point at the group's tournament)."""
    found = in_group(update, context)
    user = update.effective_user
    if found is None or user is None:
        return
    chat, message = found
    await remember(update, context)
    service = tavolo(context)
    lang = service.group_lang(chat.id)
    spec = by_word(context.args[0]) if context.args else next(iter(GAMES.values()))
    if spec is None:
        reply(update, context, unknown_game(lang))
        return
    asked = Asked(chat.id, user.id, message.message_id, thread=thread_of(message))
    await service.tournaments.open(asked, display_name(user), spec.name)


async def tournaments(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/tornei`` (``/tournaments``) in a group: its tournaments, past and running."""
    found = in_group(update, context)
    if found is not None:
        chat, _ = found
        service = tavolo(context)
        lang = service.group_lang(chat.id)
        reply(update, context, await service.tournaments.list_text(chat.id, lang))


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/impostazioni`` (``/settings``) in a group: its settings, as buttons an admin
    presses."""
    found = in_group(update, context)
    if found is not None:
        chat, message = found
        tavolo(context).settings.show(chat.id, message.message_id)


def in_group(update: Update, context: ContextTypes.DEFAULT_TYPE) -> tuple[Chat, Message] | None:
    """The group and the message of a command that works in groups only; elsewhere None, and
    the command is answered so."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return None
    if not is_group(chat):
        service = tavolo(context)
        reply(update, context, t(service.user_lang(chat.id), "cmd.group_only"))
        return None
    return chat, message


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/stats`` in private: the player's own figures across groups."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    service = tavolo(context)
    lang = service.user_lang(user.id, user.language_code)
    reply(update, context, await service.seasons.stats_text(user.id, lang))


async def delete_my_data(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/deletemydata`` in private: erase the profile and results, after a confirmation."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    service = tavolo(context)
    lang = service.user_lang(user.id, user.language_code)
    if is_group(chat):
        reply(update, context, t(lang, "cmd.private_only"))
        return
    await service.ask_delete(user.id, lang)
