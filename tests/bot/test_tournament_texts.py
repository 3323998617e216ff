"""A tournament's messages as a player reads them, word for word, in English and Italian (the
end-to-end tests in tests/e2e/test_bot_tournaments.py read them in Italian in the chat)."""

from __future__ import annotations

from datetime import timedelta
from html import unescape
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import t
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


PLAIN = {
    "it": {
        "ans.tourn_joined": "Sei nel torneo!",
        "ans.tourn_already": "Sei già nel torneo.",
        "ans.tourn_left": "Iscrizione annullata.",
        "ans.tourn_not_entered": "Non sei tra gli iscritti a questo torneo.",
        "ans.tourn_withdrawn": "Hai lasciato il torneo: dal prossimo turno non giochi più.",
        "ans.tourn_only_organiser": "Solo chi organizza il torneo, o un amministratore, può farlo.",
        "ans.tourn_few": "Servono almeno 2 iscritti.",
        "ans.tourn_full": "Il torneo è al completo: non ci sono più posti.",
        "ans.tourn_open_private": (
            "Prima apri la chat privata con me: le partite del torneo si giocano lì."
        ),
        "ans.tourn_waiting": "Sei nel torneo: chi si iscrive subito dopo fa coppia con te.",
        "tourn.already": "C'è già un torneo in questo gruppo: eccolo.",
        "tourn.cancelled": "✖️ Torneo annullato.",
        "tourn.none": (
            "In questo gruppo non c'è ancora stato nessun torneo: /torneo per organizzarne uno."
        ),
        "btn.tourn_pairs": "👥 A coppie",
        "btn.tourn_alone": "👤 Individuale",
        "menu.tournament": "Nuovo torneo",
        "menu.tournaments": "I tornei del gruppo",
    },
    "en": {
        "ans.tourn_joined": "You're in the tournament!",
        "ans.tourn_already": "You have entered already.",
        "ans.tourn_left": "You're no longer entered.",
        "ans.tourn_not_entered": "You haven't entered this tournament.",
        "ans.tourn_withdrawn": "You have withdrawn: you won't be paired in later rounds.",
        "ans.tourn_only_organiser": "Only the organiser or a group admin can do that.",
        "ans.tourn_few": "At least 2 entrants are needed.",
        "ans.tourn_full": "The tournament is full: no places left.",
        "ans.tourn_open_private": (
            "First open the private chat with me: the tournament's matches are played there."
        ),
        "ans.tourn_waiting": "You're in: whoever joins next will be your partner.",
        "tourn.already": "This group already has a tournament: here it is.",
        "tourn.cancelled": "✖️ Tournament cancelled.",
        "tourn.none": "No tournaments in this group yet: /tournament sets one up.",
        "btn.tourn_pairs": "👥 Pairs",
        "btn.tourn_alone": "👤 Singles",
        "menu.tournament": "New tournament",
        "menu.tournaments": "The group's tournaments",
    },
}


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_plain_texts(lang: str) -> None:
    assert {key: t(lang, key) for key in PLAIN[lang]} == PLAIN[lang]


def test_the_texts_of_pairs_in_both_languages(store: Store) -> None:
    """A pairs tournament's texts: the waiting pair, the pairs' line, the partner's notice,
    the start refused, the table's notice with the partner."""
    record = store.create_tournament(-5, "scopone", "knockout", {}, organiser_id=1, pairs=True)
    for user, name in ((1, "Anna"), (2, "Bea"), (3, "Carlo")):
        record = store.enter_tournament(record.id, user, name)
    it_lines = unescape(view.registration_view(record, "it")[0]).splitlines()  # as read
    en_lines = unescape(view.registration_view(record, "en")[0]).splitlines()
    assert it_lines[1] == "⚔️ eliminazione diretta · tavoli da 2 · a coppie"
    assert en_lines[1] == "⚔️ knockout · tables of 2 · in pairs"
    assert it_lines[6:8] == ["1. Anna & Bea", "2. Carlo (coppia da completare)"]
    assert en_lines[6:8] == ["1. Anna & Bea", "2. Carlo (needs a partner)"]
    assert t("it", "ans.tourn_paired", name="Anna") == "Sei in coppia con Anna!"
    assert t("en", "ans.tourn_paired", name="Anna") == "Anna is your partner!"
    assert t("it", "ans.tourn_alone", name="Carlo") == (
        "Non si può ancora iniziare: la coppia di Carlo è da completare."
    )
    assert (
        t("en", "ans.tourn_alone", name="Carlo") == "Can't start yet: Carlo still needs a partner."
    )
    joined = {"name": "Bea", "game": "Scopone", "group": "Circolo"}
    assert t("it", "tourn.partner_joined", **joined) == (
        "🤝 Bea fa coppia con te nel torneo di Scopone in Circolo."
    )
    assert t("en", "tourn.partner_joined", **joined) == (
        "🤝 Bea is your partner in the Scopone tournament in Circolo."
    )
    record = store.enter_tournament(record.id, 4, "Dora")
    record = store.start_tournament(record.id, [1, 2], record.version)
    record = store.pair_round(record.id, 1, [(1, 2)])
    assert unescape(view.table_notice(record, 1, 1, 1, 2, "en", "Circolo")) == (
        "🏆 Scopone tournament in Circolo, round 1: at table 1 you and Anna play Carlo & Dora. "
        "Your cards follow below."
    )
    assert unescape(view.table_notice(record, 1, 1, 2, 3, "it", "Circolo")) == (
        "🏆 Torneo di Scopone in Circolo, turno 1: al tavolo 1 giochi in coppia con Dora contro "
        "Anna & Bea. Le tue carte arrivano qui sotto."
    )
    assert t("it", "tourn.game_not_yet", game="Burraco") == (
        "I tornei di Burraco non ci sono ancora: per ora si gioca a Scala 40 (/torneo)."
    )
    assert t("en", "tourn.game_not_yet", game="Burraco") == (
        "Burraco tournaments aren't available yet: for now, tournaments are Scala 40 only "
        "(/tournament)."
    )
