"""A tournament's messages as a player reads them, word for word, in English and Italian (the
end-to-end tests in tests/e2e/test_bot_tournaments.py read them in Italian in the chat)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.render import tournament as view
from engine.games import game
from storage import Store, TournamentRecord


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'texts.db'}")
    yield opened  # type: ignore[misc]
    opened.close()


def _registration(store: Store) -> TournamentRecord:
    record = store.create_tournament(-5, "scala40", "danish", {}, organiser_id=1, rounds=3)
    record = store.enter_tournament(record.id, 1, "Anna")
    return store.enter_computer(record.id, "🤖 Computer 1 (esperto)", "esperto")


def _played(store: Store) -> TournamentRecord:
    """Round 1 of a Danish tournament of 3: Anna beat Bea, Carlo had the bye."""
    record = store.create_tournament(-5, "scala40", "danish", {}, organiser_id=1, rounds=3)
    for user, name in ((1, "Anna"), (2, "Bea"), (3, "Carlo")):
        record = store.enter_tournament(record.id, user, name)
    record = store.start_tournament(record.id, [1, 2, 3], record.version)
    record = store.pair_round(record.id, 1, [(1, 2)], [3])
    store.record_table_result(record.id, 1, 1, {1: (20, 35), 2: (0, -35)})
    return store.get_tournament(record.id)


REGISTRATION = {
    "it": [
        "🏆 <b>Torneo di Scala 40</b>",
        "🇩🇰 sistema danese · 3 turni",
        "⏳ Ogni turno del torneo dura al massimo 1 giorno",
        "⚙️ Opzioni delle partite: predefinite",
        "Organizzato da Anna",
        "👥 Iscritti: 2",
        "1. Anna",
        "2. 🤖 Computer 1 (esperto)",
        "Tocca ✋ Mi iscrivo per partecipare. Le partite si giocano in privato con me: ognuno "
        "ha lì le sue carte e il tavolo; qui nel gruppo resta il tabellone.",
    ],
    "en": [
        "🏆 <b>Scala 40 tournament</b>",
        "🇩🇰 Danish system · 3 rounds",
        "⏳ Each round lasts at most 1 day",
        "⚙️ Match options: the defaults",
        "Organised by Anna",
        "👥 Entrants: 2",
        "1. Anna",
        "2. 🤖 Computer 1 (esperto)",
        "Tap ✋ Join to take part. The matches are played in private with me: each player "
        "sees their hand and the table there, while the board stays here in the group.",
    ],
}
BUTTONS = {
    "it": [
        ["✋ Mi iscrivo", "🚪 Esci"],
        ["🤖 + Facile", "🤖 + Esperto", "🤖 −"],
        ["🇩🇰 sistema danese", "👤 Individuale", "🔢 3 turni"],
        ["⏳ 1 giorno", "⚙️ Opzioni"],
        ["▶️ Inizia", "✖️ Annulla"],
    ],
    "en": [
        ["✋ Join", "🚪 Leave"],
        ["🤖 + Easy", "🤖 + Expert", "🤖 −"],
        ["🇩🇰 Danish system", "👤 Singles", "🔢 3 rounds"],
        ["⏳ 1 day", "⚙️ Options"],
        ["▶️ Start", "✖️ Cancel"],
    ],
}
BOARD = {
    "it": [
        "🏆 <b>Torneo di Scala 40</b>",
        "🇩🇰 sistema danese · 3 turni",
        "Turno 1 di 3",
        "",
        "<b>Classifica</b>",
        "1. Anna · VP 20 · MP 35 · partite 1, vinte 1",
        "2. Carlo · VP 20 · MP 0 · partite 0, vinte 0",
        "3. Bea · VP 0 · MP -35 · partite 1, vinte 0",
        "",
        "<b>Tavoli del turno 1</b>",
        "🪑 1. Anna – Bea · VP 20–0",
        "Riposa: Carlo",
    ],
    "en": [
        "🏆 <b>Scala 40 tournament</b>",
        "🇩🇰 Danish system · 3 rounds",
        "Round 1 of 3",
        "",
        "<b>Standings</b>",
        "1. Anna · VP 20 · MP 35 · matches 1, won 1",
        "2. Carlo · VP 20 · MP 0 · matches 0, won 0",
        "3. Bea · VP 0 · MP -35 · matches 1, won 0",
        "",
        "<b>Round 1 tables</b>",
        "🪑 1. Anna – Bea · VP 20–0",
        "Bye: Carlo",
    ],
}


def _labels(markup: object) -> list[list[str]]:
    assert markup is not None and hasattr(markup, "inline_keyboard")
    return [[button.text for button in row] for row in markup.inline_keyboard]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_registration(store: Store, lang: str) -> None:
    text, markup = view.registration_view(_registration(store), lang)
    assert text.splitlines() == REGISTRATION[lang]
    assert _labels(markup) == BUTTONS[lang]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_board(store: Store, lang: str) -> None:
    record = _played(store)
    text, markup = view.board_view(record, lang, 3)
    ends = (record.started[1] + timedelta(days=1)).astimezone(ZoneInfo("Europe/Rome"))
    closes = {
        "it": f"⏳ Il turno finisce il {ends:%d/%m} alle {ends:%H:%M} (ora italiana): le partite "
        "ancora in corso si chiudono col punteggio di quel momento.",
        "en": f"⏳ The round ends on {ends:%d/%m} at {ends:%H:%M} (Italian time): matches still "
        "in play end with the score at that moment.",
    }
    assert text.splitlines() == [*BOARD[lang][:3], closes[lang], *BOARD[lang][3:]]
    if lang == "it":
        assert _labels(markup) == [["🚪 Mi ritiro", "✖️ Annulla"]]
    else:
        assert _labels(markup) == [["🚪 Withdraw", "✖️ Cancel"]]


def test_the_private_notice_and_the_list(store: Store) -> None:
    record = _played(store)
    assert view.table_notice(record, 1, 1, 2, 2, "en", "Circolo") == (
        "🏆 Scala 40 tournament in Circolo, round 1: at table 1 you play Anna. "
        "Your cards follow below."
    )
    date = record.created_at.strftime("%d/%m/%Y")
    assert view.list_text([record], "en").splitlines() == [
        "🏆 <b>The group's tournaments</b>",
        f"{date} · Scala 40, Danish system · 3 entrants · round 1 in play",
    ]
    assert view.round_time(21_600, "it") == "6 ore"
    assert view.round_time(3_600, "en") == "1 hour"
    assert view.round_time(604_800, "it") == "7 giorni"
    assert "pairs" not in view.match_options("scala40")
    assert len(view.match_options("scala40")) == len(game("scala40").option_names()) - 1
