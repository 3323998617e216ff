"""What a newcomer reads: the welcome of ``/start``, how to play (``/help``), a short guide
to whoever writes to the bot in words or with a command it does not know, and the command
menus Telegram shows."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import Html, isolated, t
from bot.people import People
from bot.render.table import names_list
from engine.games import GAMES

GROUP_COMMANDS = (
    "newgame", "table", "score", "rules", "stop", "verify", "rankings", "tournament",
    "tournaments", "help", "language", "settings",
)  # fmt: skip
PRIVATE_COMMANDS = (
    "newgame", "hand", "table", "score", "rules", "stop", "abandon", "verify", "stats",
    "language", "help", "deletemydata",
)  # fmt: skip
"""What works in private: a match against the computer and the player's own affairs."""
ITALIAN = {
    "newgame": "nuova",
    "table": "tavolo",
    "score": "punti",
    "rules": "regole",
    "hand": "mano",
    "abandon": "abbandona",
    "help": "aiuto",
    "language": "lingua",
    "rankings": "classifica",
    "verify": "verifica",
    "settings": "impostazioni",
    "tournament": "torneo",
    "tournaments": "tornei",
}
"""The Italian name of each command (both names work; Italian menus show the Italian one)."""

MENU_SCOPES = {"private": PRIVATE_COMMANDS, "group": GROUP_COMMANDS}
MENU_LANGUAGES = {"en": "", "it": "it"}
"""Each language's ``language_code`` for its menus: English is the menu of every language but
Italian, as the bot's texts are (:func:`bot.i18n.language_for`)."""


def menu(scope: str, lang: str) -> list[tuple[str, str]]:
    """The command menu of ``scope`` (``private`` or ``group``) in ``lang``: (command,
    description) pairs, the command by its name in that language."""
    key = "menu.newgame_private" if scope == "private" else "menu.newgame"
    return [
        (
            ITALIAN.get(name, name) if lang == "it" else name,
            t(lang, key if name == "newgame" else f"menu.{name}"),
        )
        for name in MENU_SCOPES[scope]
    ]


def games_named(lang: str) -> str:
    """The games the bot plays, as a sentence names them ("a Scala 40 e a Scopone")."""
    return names_list(lang, [t(lang, f"game.{name}.play") for name in GAMES])


def other_games(lang: str) -> Html:
    """How to start each game but the default ("/nuova scopone per lo Scopone")."""
    return Html("; ".join(t(lang, f"newgame.{name}") for name in list(GAMES)[1:]))


def or_list(lang: str, choices: Sequence[Html]) -> Html:
    """Choices as a sentence offers them ("a, b o c")."""
    if len(choices) < 2:
        return choices[0] if choices else Html("")
    return t(lang, "list.or", first=Html(", ".join(choices[:-1])), last=choices[-1])


def unknown_game(lang: str) -> Html:
    """What ``/newgame`` with a word naming no game answers: the games there are."""
    choices = [t(lang, "newgame.word", word=name) for name in GAMES]
    return t(lang, "cmd.bad_game", choices=or_list(lang, choices))


GUIDE_GAP = 600.0
"""Seconds during which a player writing in words during a match against the computer gets no
other guide (the one they got is in sight; each would also post their hand again below it)."""

Reply = Callable[[int, str, int | None, InlineKeyboardMarkup | None], None]
"""How a reply goes out: chat, text, the message it answers, buttons (:meth:`bot.service.Tavolo.
reply`, which keeps a private match's hand the chat's last message)."""


class Guide:
    """The welcome, the help and the guide, each in the reader's language."""

    def __init__(
        self, people: People, reply: Reply, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.people = people
        self.reply = reply
        self.clock = clock
        self._guided: dict[int, float] = {}
        """When each player writing during a private match last got the guide."""

    def welcome(self, user_id: int, name: str, lang: str) -> None:
        """``/start`` in private: what can be done here (play the computer) and in a group,
        with a button that adds the bot to a group."""
        default, *others = GAMES
        commands = [t(lang, "newgame.default", game=t(lang, f"game.{default}"))]
        commands += [t(lang, "newgame.word", word=name) for name in others]
        text = t(
            lang,
            "cmd.start",
            name=isolated(name),
            games=games_named(lang),
            commands=or_list(lang, commands),
        )
        self.reply(user_id, text, None, self.add_to_group(lang))

    def greet_group(self, chat_id: int, lang: str, reply_to: int | None) -> None:
        """``/start`` in a group (the bot just added by its link, or asked): what it plays and
        how to begin."""
        text = t(lang, "cmd.start_group", games=games_named(lang), others=other_games(lang))
        self.reply(chat_id, text, reply_to, None)

    def help(self, chat_id: int, lang: str, reply_to: int | None) -> None:
        """``/help``: how a turn goes in each game, and the main commands."""
        games = Html("\n\n".join(t(lang, f"help.{name}") for name in GAMES))
        self.reply(
            chat_id, t(lang, "cmd.help", games=games, others=other_games(lang)), reply_to, None
        )

    def words(self, user_id: int, lang: str, playing: bool = False) -> None:
        """A message in words in private: the bot plays by commands and buttons; how to start.
        While a match is ``playing`` there, once in :data:`GUIDE_GAP` seconds (a "dai!" to the
        computer needs no answer, and the hand stays the last message)."""
        now = self.clock()
        if playing:
            if now - self._guided.get(user_id, -GUIDE_GAP) < GUIDE_GAP:
                return
            self._guided[user_id] = now
            if len(self._guided) > 1000:
                self._guided = {u: at for u, at in self._guided.items() if now - at < GUIDE_GAP}
        self.reply(user_id, t(lang, "cmd.guide"), None, self.add_to_group(lang))

    def unknown(self, chat_id: int, lang: str, reply_to: int | None) -> None:
        """A command the bot does not know: where the known ones are (a group's is short)."""
        key = "cmd.unknown_group" if chat_id < 0 else "cmd.unknown"
        self.reply(chat_id, t(lang, key), reply_to, None)

    def add_to_group(self, lang: str) -> InlineKeyboardMarkup:
        """The button that opens Telegram's group picker and adds the bot to the chosen group
        (``t.me/<bot>?startgroup=…``); the group then gets ``/start`` (:meth:`greet_group`)."""
        url = f"https://t.me/{self.people.bot.username}?startgroup=tavolo"
        return InlineKeyboardMarkup([[InlineKeyboardButton(t(lang, "btn.add_to_group"), url=url)]])
