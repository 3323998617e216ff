"""A group's settings (``/impostazioni``): a panel of buttons that only the group's admins
change, in that group. Today one: whether matches against computer players move a person's
rating (docs/rules.md R-4.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.answer import Answer
from bot.callbacks import Setting
from bot.delivery import Outbox, Priority, Render
from bot.i18n import Html, t
from bot.people import People
from storage import Store

if TYPE_CHECKING:
    from bot.service import Pressed

YES, NO = "1", "0"
"""A yes/no setting's values on its buttons."""

PANEL_MARK = "⚙️"
"""How the panel's text begins (its title, in either language): a setting's button is taken
only from a message that shows the panel."""


class GroupSettings:
    """The settings panel and its buttons."""

    def __init__(self, store: Store, people: People, outbox: Outbox) -> None:
        self.store = store
        self.people = people
        self.outbox = outbox

    def show(self, chat_id: int, reply_to: int | None) -> None:
        """``/impostazioni`` in a group: the panel, in the group's language."""
        text, markup = self.panel(chat_id)
        self.outbox.send(chat_id, text, markup, Priority.REPLY, reply_to=reply_to)

    def panel(self, chat_id: int) -> tuple[Html, InlineKeyboardMarkup]:
        """The panel as the group's settings are now."""
        lang = self.people.group_lang(chat_id)
        rated = self.store.chat_settings(chat_id).rate_computers
        text = t(
            lang, "settings.panel", computers=t(lang, "settings.yes" if rated else "settings.no")
        )
        buttons = [
            InlineKeyboardButton(
                ("✓ " if chosen == rated else "") + t(lang, key),
                callback_data=callbacks.setting(Setting.RATE_COMPUTERS, YES if chosen else NO),
            )
            for chosen, key in (
                (True, "settings.computers_count"),
                (False, "settings.computers_not"),
            )
        ]
        return text, InlineKeyboardMarkup([buttons])

    async def choose(self, pressed: Pressed) -> Answer:
        """A setting's button, pressed on the panel: an admin of this group changes it, and
        the panel shows it. Any other message's button (forged data) changes nothing."""
        data, chat_id, lang = pressed.data, pressed.chat_id, pressed.lang
        value, on_panel = data.arg, (pressed.shown or "").startswith(PANEL_MARK)
        if chat_id > 0 or data.op != Setting.RATE_COMPUTERS or value not in (YES, NO):
            return Answer(t(lang, "ans.stale"))
        if not on_panel or pressed.message_id is None:
            return Answer(t(lang, "ans.stale"))
        if not await self.people.is_admin(chat_id, pressed.user_id):
            return Answer(t(lang, "ans.only_admin"), alert=True)
        self.store.set_rate_computers(chat_id, value == YES)
        text, markup = self.panel(chat_id)
        message_id = pressed.message_id
        self.outbox.put(
            chat_id,
            ("settings", message_id),
            lambda: Render(message_id, None, text, markup),
            lambda _id, _shown: None,
            Priority.REPLY,
        )
        return Answer(t(lang, "ans.ok"))
