"""The group settings panel (``/impostazioni``, docs/rules.md R-4.2, R-6.3) as it reads in
English, and the state each button shows (the Italian one is read end to end in
tests/e2e/test_bot_settings.py); the levels a lobby shows when the group asks (R-6.3)."""

from __future__ import annotations

from pathlib import Path

from bot.lobby_view import lobby_view
from bot.settings import GroupSettings
from engine.ratings import COMPUTER_RATINGS, NEW_RATING
from storage import Store

GROUP = -5


class English:
    """A group that speaks English."""

    def group_lang(self, chat_id: int) -> str:
        return "en"


def test_the_panel_in_english(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 's.db'}") as store:
        panel = GroupSettings(store, English(), None)  # type: ignore[arg-type]
        text, markup = panel.panel(GROUP)
        assert text == (
            "⚙️ <b>Group settings</b>\n"
            "🤖 Matches with computers count for levels: <b>yes</b>\n"
            "🎖 Players' levels shown before a match: <b>no</b>\n"
            "🪑 Tables that can run at once: <b>3</b>\n"
            "Only a group admin can change them."
        )
        labels = [[button.text for button in row] for row in markup.inline_keyboard]
        assert labels == [
            ["✓ 🤖 Counted", "🤖 Not counted"],
            ["🎖 Levels shown", "✓ 🎖 Levels hidden"],
            ["🪑 1", "🪑 2", "✓ 🪑 3", "🪑 4"],
        ]
        store.set_rate_computers(GROUP, False)
        store.set_levels_in_lobby(GROUP, True)
        store.set_tables(GROUP, 1)
        text, markup = panel.panel(GROUP)
        assert "count for levels: <b>no</b>" in text and "before a match: <b>yes</b>" in text
        assert "run at once: <b>1</b>" in text
        labels = [[button.text for button in row] for row in markup.inline_keyboard]
        assert labels == [
            ["🤖 Counted", "✓ 🤖 Not counted"],
            ["✓ 🎖 Levels shown", "🎖 Levels hidden"],
            ["✓ 🪑 1", "🪑 2", "🪑 3", "🪑 4"],
        ]


def test_the_lobby_shows_levels_when_asked(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'l.db'}") as store:
        record = store.create_match(GROUP, "scala40", {}, 1, "Anna", seed=1)
        record = store.add_seat(record.id, 2, "Bea")
    levels = {0: NEW_RATING, 1: COMPUTER_RATINGS["esperto"]}
    text, _ = lobby_view(record, "en", levels=levels)
    assert "1. Anna · beginner (1,000)\n2. Bea · expert (1,872)\n" in text
    text, _ = lobby_view(record, "it", levels=levels)
    assert "1. Anna · principiante (1.000)\n2. Bea · esperto (1.872)\n" in text
    text, _ = lobby_view(record, "en")
    assert "1. Anna\n2. Bea\n" in text
