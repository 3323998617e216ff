"""The Mini App's texts, word for word in Italian and English (issue 28): the page's own
words, its refusals, its buttons in the chat, and the cards as a screen reader says them."""

from __future__ import annotations

import pytest

from bot.i18n import t
from bot.pages import WORDS
from bot.render.cards import spoken

TEXTS = {
    "web.signed_out": (
        "Sessione scaduta: riapri il tavolo con il pulsante 🃏 Tavolo sotto le tue carte.",
        "Your session has expired: tap 🃏 Table under your cards to open it again.",
    ),
    "web.not_signed": (
        "Apri il tavolo da Telegram: questa pagina funziona solo lì.",
        "Open the table from Telegram: this page only works there.",
    ),
    "web.bad_request": (
        "Richiesta non valida.",
        "Invalid request.",
    ),
    "web.stock": (
        "Tallone",
        "Stock",
    ),
    "web.discard": (
        "Pozzo",
        "Discard",
    ),
    "web.melds": (
        "Giochi sul tavolo",
        "Melds on the table",
    ),
    "web.staged": (
        "Giochi per l'apertura",
        "Opening melds",
    ),
    "web.table": (
        "Carte in tavola",
        "Cards on the table",
    ),
    "web.choose": (
        "Scegli la presa",
        "Choose your capture",
    ),
    "web.details": (
        "Riepilogo della mano",
        "Hand summary",
    ),
    "web.your_turn": (
        "Tocca a te",
        "Your turn",
    ),
    "web.waiting": (
        "In attesa del tuo turno",
        "Waiting for your turn",
    ),
    "web.over": (
        "Partita finita",
        "Match over",
    ),
    "btn.webapp": (
        "🃏 Tavolo",
        "🃏 Table",
    ),
    "web.not_seated": (
        "Non stai giocando questa partita.",
        "You are not playing in this match.",
    ),
    "web.stale": (
        "Il tavolo è cambiato nel frattempo: controlla e riprova.",
        "The table has changed in the meantime: check it and try again.",
    ),
    "btn.webapp_group": (
        "🃏 Apri il tavolo",
        "🃏 Open the table",
    ),
    "web.area_table": (
        "Tavolo",
        "Table",
    ),
    "web.area_hand": (
        "La tua mano",
        "Your hand",
    ),
    "web.too_many": (
        "Hai già troppe pagine aperte: chiudine una e riprova.",
        "You already have too many pages open: close one and try again.",
    ),
    "web.cards": (
        "carte",
        "cards",
    ),
    "web.opened": (
        "ha aperto",
        "has opened",
    ),
    "web.turn": (
        "di turno",
        "to play",
    ),
}
"""Each text: Italian, English."""


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_every_text_reads_as_written(key: str) -> None:
    assert (str(t("it", key)), str(t("en", key))) == TEXTS[key]


def test_the_page_is_sent_every_word_it_shows() -> None:
    assert {f"web.{word}" for word in WORDS} <= set(TEXTS)


@pytest.mark.parametrize(
    ("card", "italian", "it", "en"),
    [
        ("7H", False, "sette di cuori", "seven of hearts"),
        ("QS", False, "donna di picche", "queen of spades"),
        ("AC", False, "asso di fiori", "ace of clubs"),
        ("JD", False, "fante di quadri", "jack of diamonds"),
        ("7D", True, "sette di denari", "seven of coins"),
        ("QH", True, "cavallo di coppe", "knight of cups"),
        ("KC", True, "re di bastoni", "king of batons"),
        ("JK", False, "jolly", "joker"),
        ("JK=5H", False, "jolly come cinque di cuori", "joker as five of hearts"),
    ],
)
def test_a_card_as_a_screen_reader_says_it(card: str, italian: bool, it: str, en: str) -> None:
    assert (spoken("it", card, italian), spoken("en", card, italian)) == (it, en)
