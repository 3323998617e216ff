"""A group's settings (``/impostazioni``): a panel of buttons that only the group's admins
change, in that group: whether matches against computer players move a person's rating
(docs/rules.md R-4.2), whether the lobby shows each player's level (R-6.3), and how many
tables the group plays at once."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import Setting
from bot.delivery import Outbox, Priority, Render
from bot.i18n import Html, t
from bot.people import People
from storage import MOST_TABLES, Store

if TYPE_CHECKING:
    from bot.service import Pressed

YES, NO = "1", "0"
"""A yes/no setting's values on its buttons."""

PANEL_MARK = "⚙️"
"""How the panel's text begins (its title, in either language): a setting's button is taken
only from a message that shows the panel."""


SETTERS: dict[str, Callable[[Store, int, bool], None]] = {
    Setting.RATE_COMPUTERS: Store.set_rate_computers,
    Setting.LOBBY_LEVELS: Store.set_levels_in_lobby,
}
"""How each yes/no setting is stored."""
TABLE_CHOICES = tuple(str(number) for number in range(1, MOST_TABLES + 1))
"""The values of the tables' buttons."""


class GroupSettings:
    """The settings panel and its buttons."""

    def __init__(self, store: Store, people: People, outbox: Outbox) -> None:
        self.store = store
        self.people = people
        self.outbox = outbox
        self.changed: Callable[[int], Awaitable[None]] = nothing
        """Told of a group whose settings changed (its lobby shows the levels, or not)."""

    def show(self, chat_id: int, reply_to: int | None) -> None:
        """``/impostazioni`` in a group: the panel, in the group's language."""
        text, markup = self.panel(chat_id)
        self.outbox.send(chat_id, text, markup, Priority.REPLY, reply_to=reply_to)

    def panel(self, chat_id: int) -> tuple[Html, InlineKeyboardMarkup]:
        """The panel as the group's settings are now: a line and a row of buttons each."""
        lang = self.people.group_lang(chat_id)
        settings = self.store.known_chat(chat_id)  # read before the update, or after the change
        now = {
            Setting.RATE_COMPUTERS: settings.rate_computers,
            Setting.LOBBY_LEVELS: settings.levels_in_lobby,
        }
        words = {name: t(lang, "settings.yes" if on else "settings.no") for name, on in now.items()}
        text = t(
            lang,
            "settings.panel",
            computers=words[Setting.RATE_COMPUTERS],
            levels=words[Setting.LOBBY_LEVELS],
            tables=settings.tables,
        )
        tables = [
            InlineKeyboardButton(
                ("✓ " if int(value) == settings.tables else "")
                + t(lang, "settings.tb", tables=value),
                callback_data=callbacks.setting(Setting.TABLES, value),
            )
            for value in TABLE_CHOICES
        ]
        rows = [
            [
                InlineKeyboardButton(
                    ("✓ " if chosen == now[name] else "") + t(lang, f"settings.{name}.{chosen:d}"),
                    callback_data=callbacks.setting(name, YES if chosen else NO),
                )
                for chosen in (True, False)
            ]
            for name in now
        ]
        return text, InlineKeyboardMarkup([*rows, tables])

    async def choose(self, pressed: Pressed) -> Answer:
        """A setting's button, pressed on the panel: an admin of this group changes it, and
        the panel shows it. Any other message's button (forged data) changes nothing."""
        data, chat_id, lang = pressed.data, pressed.chat_id, pressed.lang
        write, on_panel = (
            self._write(data.op, chat_id, data.arg),
            (pressed.shown or "").startswith(PANEL_MARK),
        )
        if chat_id > 0 or write is None:
            return Answer(t(lang, "ans.stale"))
        if not on_panel or pressed.message_id is None:
            return Answer(t(lang, "ans.stale"))
        if not await self.people.is_admin(chat_id, pressed.user_id):
            return Answer(t(lang, "ans.only_admin"), alert=True)
        await self.store.off(write)
        await self.changed(chat_id)
        text, markup = self.panel(chat_id)
        message_id = pressed.message_id
        self.outbox.put(
            chat_id,
            ("settings", message_id),
            Render(message_id, None, text, markup),
            lambda _id, _shown: None,
            Priority.REPLY,
        )
        return Answer(t(lang, "ans.ok"))

    def _write(self, name: str, chat_id: int, value: str) -> Callable[[], None] | None:
        """How a setting's button is stored (None: no such setting, or no such value)."""
        if name == Setting.TABLES and value in TABLE_CHOICES:
            return functools.partial(self.store.set_tables, chat_id, int(value))
        if name in SETTERS and value in (YES, NO):
            return functools.partial(SETTERS[name], self.store, chat_id, value == YES)
        return None


async def nothing(_chat_id: int) -> None:
    """Told of nothing (until the service says whom a change of settings concerns)."""
