"""The several tables' texts as a player reads them, word for word, in English and Italian
(the end-to-end tests in tests/e2e/test_bot_tables.py read them in Italian in the chat)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import Html, t
from bot.render.table import labelled, message_link, table_button
from storage import MatchRecord, Store

TEXTS = {
    "en": {
        "tables.which": "🪑 Several tables are in play here: pick one.",
        "ans.seated_elsewhere": (
            "You are already at another table in this group: one table at a time."
        ),
        "ans.tables_full": "All the group's tables are taken.",
        "ans.rematch_open": "The rematch is already open: tap ✋ Join.",
        "ans.topic_taken": (
            "Another table already plays in this topic: for the rematch, /newgame in another topic."
        ),
    },
    "it": {
        "tables.which": "🪑 Qui si gioca a più tavoli: scegli quale.",
        "ans.seated_elsewhere": (
            "Sei già a un altro tavolo del gruppo: si gioca a un tavolo alla volta."
        ),
        "ans.tables_full": "I tavoli del gruppo sono tutti occupati.",
        "ans.rematch_open": "La rivincita è già aperta: tocca ✋ Partecipa.",
        "ans.topic_taken": (
            "In questo argomento si gioca già un altro tavolo: per la rivincita, /nuova in un "
            "altro argomento."
        ),
    },
}


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_plain_texts(lang: str) -> None:
    assert {key: t(lang, key) for key in TEXTS[lang]} == TEXTS[lang]


def test_every_table_taken_and_a_topic_of_its_own() -> None:
    assert t("en", "cmd.tables_full", count=3) == (
        "All the group's tables (3) are taken: one frees up when a match ends. Admins choose "
        "how many in /settings."
    )
    link = Html(f'<a href="{message_link(-1001234, 7)}">➡️</a>')
    assert t("en", "tables.topic_opened", link=link) == (
        '🪑 The new table has a topic of its own: <a href="https://t.me/c/1234/7">➡️</a>'
    )
    assert t("it", "tables.topic_opened", link=link) == (
        '🪑 Il nuovo tavolo ha un argomento tutto suo: <a href="https://t.me/c/1234/7">➡️</a>'
    )
    assert t("en", "tables.topic", number=2, game="Scopone") == "Table 2 · Scopone"
    assert t("it", "tables.topic", number=2, game="Scopone") == "Tavolo 2 · Scopone"


def _tables(tmp_path: Path) -> tuple[MatchRecord, MatchRecord]:
    with Store.open(f"sqlite:///{tmp_path / 't.db'}") as store:
        first = store.create_match(-5, "scala40", {}, 1, "Anna & Co", seed=1, tables=2)
        second = store.create_match(-5, "scopone", {}, 2, "Bea", seed=2, tables=2)
        second = store.add_seat(second.id, None, "🤖 Computer 1 (facile)", "facile")
    return first, second


def test_a_table_names_itself_after_the_first(tmp_path: Path) -> None:
    first, second = _tables(tmp_path)
    assert labelled("en", first, "Score") == "Score"  # one table reads as ever
    assert labelled("en", second, "Score") == "🪑 <b>Table 2</b>\nScore"
    assert labelled("it", second, "Punteggio") == "🪑 <b>Tavolo 2</b>\nPunteggio"


def test_the_buttons_that_ask_which_table(tmp_path: Path) -> None:
    first, second = _tables(tmp_path)
    assert table_button("en", first) == "Table 1 · Scala 40 · Anna & Co"  # plain, not HTML
    assert table_button("en", second) == "Table 2 · Scopone · Bea, 🤖 1"
    assert table_button("it", second) == "Tavolo 2 · Scopone · Bea, 🤖 1"
