"""End to end: the group's table fits a phone (issue 25): at most 15 lines of about 40 columns for
a crowded match of four with long names and computers, the time left rather than a clock time,
the deck's commitment at the start and at the end; and what /rules and the lobby say of the
options that apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.length import PHONE_COLUMNS, columns
from engine import fairness, scala40, scopone
from engine.scala40.greedy import greedy_action
from storage import Store
from testkit.bot_harness import (
    RIGGED_HANDS,
    running_bot,
    say,
    seat_people,
    settle,
    store_started_match,
    tap,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer
from testkit.s40_helpers import position
from testkit.scopone_helpers import build_position

GROUP = -100400
ANNA, LUCA = 4001, 4002
PEOPLE = [(ANNA, "Alessandra Lo Presti", "it"), (LUCA, "Giuseppe Bianchini", "en")]


def crowded_turn(seed: int = 26) -> scala40.Match:
    """The most crowded start of a person's turn in a first hand of four greedy players (seats
    0 and 1 people, 2 and 3 computers): 11 melds on the table."""
    m = scala40.new_match(players=4, seed=seed)
    crowded, most = m.copy(), 0
    while m.to_play is not None and m.hand_number == 1:
        view = m.view(0)
        if view.phase == "draw" and m.to_play in (0, 1) and len(view.melds) > most:
            crowded, most = m.copy(), len(view.melds)
        m.play(greedy_action(m))
    return crowded


def group_speaks(database: Path, lang: str) -> None:
    store = Store.open(f"sqlite:///{database}")
    try:
        store.set_chat_language(GROUP, lang)
    finally:
        store.close()


CROWDED = {
    "it": [
        "🃏 Scala 40 · mano 1 · si esce a 101",
        "👉 Alessandra · 1 carta · 0 pt ✅",
        "▫️ Giuseppe B. · 1 carta · 0 pt ✅",
        "▫️ 🤖 1 · 1 carta · 0 pt ✅",
        "▫️ 🤖 2 · 4 carte · 0 pt ✅",
        "1) J♦–K♦ 🃏 · 2) K♠ K♦ K♣",
        "3) 4♠–6♠ 🃏 8♠ 9♠ · 4) 🃏(Q♠) Q♥ Q♦ Q♣",
        "5) 8♦–10♦ · 6) A♠ A♥ A♦ A♣",
        "7) 10♠ 10♥ 10♦ 10♣ · 8) 7♥–K♥ · 9) A♥–4♥",
        "10) 7♣–9♣ · 11) 5♥–7♥",
        "Pozzo: 8♠ (25) · Tallone: 31",
        "Tocca ad Alessandra · ⏳ max 2 min",
        "· 🤖 2 attacca Q♥ K♥ al gioco 8",
        "· 🤖 2 attacca J♦ al gioco 1",
        "· 🤖 2 scarta 8♠",
    ],
    "en": [
        "🃏 Scala 40 · hand 1 · out at 101",
        "👉 Alessandra · 1 card · 0 pts ✅",
        "▫️ Giuseppe B. · 1 card · 0 pts ✅",
        "▫️ 🤖 1 · 1 card · 0 pts ✅",
        "▫️ 🤖 2 · 4 cards · 0 pts ✅",
        "1) J♦–K♦ 🃏 · 2) K♠ K♦ K♣",
        "3) 4♠–6♠ 🃏 8♠ 9♠ · 4) 🃏(Q♠) Q♥ Q♦ Q♣",
        "5) 8♦–10♦ · 6) A♠ A♥ A♦ A♣",
        "7) 10♠ 10♥ 10♦ 10♣ · 8) 7♥–K♥ · 9) A♥–4♥",
        "10) 7♣–9♣ · 11) 5♥–7♥",
        "Discard: 8♠ (25) · Stock: 31",
        "Alessandra to play · ⏳ up to 2 min",
        "· 🤖 2 adds Q♥ K♥ to meld 8",
        "· 🤖 2 adds J♦ to meld 1",
        "· 🤖 2 discards 8♠",
    ],
}


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_a_crowded_table_of_four_fits_a_phone(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Two people with long names, two computers, 11 melds: 15 lines of at most 40 columns;
    names cut as people cut them, computers as "🤖 1", one line per side with its score, the
    melds side by side, the time left, the latest moves without the draws, no commitment."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "t.db"
    match = crowded_turn()
    store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        scala40.Options().to_dict(), computers=2,
    )  # fmt: skip
    group_speaks(database, lang)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        table = server.message(GROUP, record.table_message_id or 0)
        assert table is not None
        lines = table.text.split("\n")
        assert lines == CROWDED[lang]
        assert len(lines) <= 15 and all(columns(line) <= PHONE_COLUMNS for line in lines)


@pytest.mark.parametrize(
    ("lang", "verify"), [("it", "/verifica"), ("en", "/verify")], ids=["it", "en"]
)
async def test_the_commitment_is_shown_at_the_start_and_at_the_end(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str, verify: str
) -> None:
    """The deck's commitment closes the table before the first move and after the last; in
    between /verifica gives it (the table has no line to spare)."""
    server = fake_telegram
    people = [(ANNA, "Anna", lang), (LUCA, "Luca", lang)]
    seat_people(server, GROUP, "Circolo", people)
    database = tmp_path / "c.db"
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    group_speaks(database, lang)
    luca = server.user(LUCA)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        code = fairness.commitment(record.seed)
        seal = {
            "it": f"🔐 Mazzo garantito {code[:16]} · /verifica",
            "en": f"🔐 Fair deck {code[:16]} · /verify",
        }[lang]
        table = server.message(GROUP, record.table_message_id or 0)
        assert table is not None and table.text.split("\n")[-1] == seal
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        draw = {"it": "🂠 Pesca", "en": "🂠 Draw"}[lang]
        await tap(server, service, luca, hand, draw)
        assert not any(line.startswith("🔐") for line in table.text.split("\n"))
        promise = await say(server, service, luca, GROUP, verify)
        assert code in promise.text
        question = await say(server, service, luca, LUCA, "/abandon")
        await tap(server, service, luca, question, "✅")
        assert table.text.split("\n")[-1] == seal


async def test_the_turn_bell_says_the_time_left(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """The bell in each player's language: how long at most, not a clock time in Rome's zone."""
    server = fake_telegram
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]
    seat_people(server, GROUP, "Circolo", people)
    database = tmp_path / "b.db"
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(),
        scala40.Options(turn_seconds=90).to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    async with running_bot(server, database) as service:
        await settle(server, service)
        bell = server.last_message(LUCA, from_bot=True)
        assert bell is not None
        assert bell.text == "🔔 Your turn in Circolo! ⏳ up to 90 s\nDiscard: K♦ · Stock: 81"
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        _, hand = await tap(server, service, luca, hand, "🂠 Draw")
        _, hand = await tap(server, service, luca, hand, "2♠")
        await tap(server, service, luca, hand, "🗑 Discard 2♠")
        bell = server.last_message(ANNA, from_bot=True)
        assert bell is not None
        assert bell.text == "🔔 Tocca a te in Circolo! ⏳ max 90 s\nPozzo: 2♠ · Tallone: 80"


RULES = {
    "it": [
        "Opzioni della partita",
        "Formato: a smazzate",
        "Secondi per turno: 60 s",
        "A coppie: no",
        "Jolly: sì",
        "Taglio a mano: no",
        "Scarto senza obbligo di calarlo: no",
        "Punti d'apertura: 40",
        "Apertura senza jolly: no",
        "Chiusura in mano senza 40: no",
        "Scarto rigido: no",
        "Chiusura col jolly raddoppia: no",
        "Rimescolate al massimo: 3",
        "Asso in mano: 1 se è l'unico",
        "Smazzate: 3",
        "Tempo scaduto: gioca il computer",
    ],
    "en": [
        "Match options",
        "Format: hands",
        "Seconds per turn: 60 s",
        "Pairs: off",
        "Jokers: on",
        "Manual cut: off",
        "Keep the taken discard (once open): off",
        "Opening points: 40",
        "Open without jokers: off",
        "Close in one go without 40: off",
        "Strict discard: off",
        "Closing on a joker doubles: off",
        "Max reshuffles: 3",
        "Ace in hand: 1 if it is the only one",
        "Hands: 3",
        "On timeout: the computer plays",
    ],
}


@pytest.mark.parametrize(("lang", "command"), [("it", "/regole"), ("en", "/rules")])
async def test_rules_list_the_options_that_apply_the_changed_first(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str, command: str
) -> None:
    """A match "a smazzate": no points limit, no clock of the race, nothing of pairs; the two
    options changed from the defaults come first."""
    server = fake_telegram
    people = [(ANNA, "Anna", lang), (LUCA, "Luca", lang)]
    seat_people(server, GROUP, "Circolo", people)
    database = tmp_path / "r.db"
    options = scala40.Options(format="hands", turn_seconds=60)
    match = position(list(RIGGED_HANDS), options=options, discard="KD", to_play=1)
    store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(), options.to_dict()
    )
    group_speaks(database, lang)
    async with running_bot(server, database) as service:
        await settle(server, service)
        rules = await say(server, service, server.user(ANNA), GROUP, command)
        assert rules.text.split("\n") == RULES[lang]


@pytest.mark.parametrize(
    ("lang", "new", "headline"),
    [
        ("it", "/nuova scala40", "Opzioni: Smazzate 3, Formato a smazzate"),
        ("en", "/newgame scala40", "Options: Hands 3, Format hands"),
    ],
)
async def test_the_lobby_names_what_decides_the_match(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str, new: str, headline: str
) -> None:
    """A lobby "a smazzate" names the number of hands, not the points limit that does not
    apply; a second /nuova is told a match is being set up, not that one is running."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", [(ANNA, "Anna", lang)], admins=(ANNA,))
    anna = server.user(ANNA)
    async with running_bot(server, tmp_path / "l.db") as service:
        await settle(server, service)
        lobby = await say(server, service, anna, GROUP, new)
        _, panel = await tap(server, service, anna, lobby, "⚙️")
        fmt = {"it": "Formato: a punti", "en": "Format: points"}[lang]
        _, panel = await tap(server, service, anna, panel, fmt)
        _, lobby = await tap(server, service, anna, panel, "⬅️")
        assert headline in lobby.text.split("\n")
        again = await say(server, service, anna, GROUP, new)
        assert (
            again.text
            == {
                "it": "Qui c'è già una partita in preparazione: ⬆️",
                "en": "A match is already being set up here: ⬆️",
            }[lang]
        )


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_the_scopone_table_names_the_italian_suits(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str
) -> None:
    """Scopone's table says what the French suits stand for (denari, coppe, bastoni, spade),
    counts "scopas" in English, and names the settebello when it is taken."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    database = tmp_path / "s.db"
    match = build_position(["3D 4S", "7H 2S", "AC 2D", "2H 3S"], "7D 4H", to_play=1)
    store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scopone", match.to_json(),
        scopone.Options().to_dict(), computers=2,
    )  # fmt: skip
    group_speaks(database, lang)
    giuseppe = server.user(LUCA)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        table = server.message(GROUP, record.table_message_id or 0)
        assert table is not None
        assert table.text.split("\n")[:-2] == SCOPONE[lang]
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        await tap(server, service, giuseppe, hand, "7♥")
        taken = {
            "it": "· Giuseppe B. prende 7♦ con 7♥ —\n  settebello!",
            "en": "· Giuseppe B. takes 7♦ with 7♥ —\n  settebello!",
        }[lang]
        assert taken in table.text  # a play wider than a phone goes on below


SCOPONE = {
    "it": [
        "🃏 Scopone · mano 1 · si vince a 11",
        "▫️ Alessandra · 2 carte",
        "👉 Giuseppe B. · 2 carte",
        "▫️ 🤖 1 · 2 carte",
        "▫️ 🤖 2 · 2 carte",
        "🤝 Alessandra + 🤖 1 · 0 pt",
        "🤝 Giuseppe B. + 🤖 2 · 0 pt",
        "Carte prese: 30–0 · scope: 0–0",
        "In tavola: 7♦ 4♥",
        "♦ denari · ♥ coppe · ♣ bastoni · ♠ spade",
    ],
    "en": [
        "🃏 Scopone · hand 1 · first to 11",
        "▫️ Alessandra · 2 cards",
        "👉 Giuseppe B. · 2 cards",
        "▫️ 🤖 1 · 2 cards",
        "▫️ 🤖 2 · 2 cards",
        "🤝 Alessandra + 🤖 1 · 0 pts",
        "🤝 Giuseppe B. + 🤖 2 · 0 pts",
        "Cards taken: 30–0 · scopas: 0–0",
        "On the table: 7♦ 4♥",
        "♦ coins · ♥ cups · ♣ batons · ♠ swords",
    ],
}


@pytest.mark.parametrize(
    ("lang", "by_rank", "by_suit"), [("it", "↕ Valore", "↕ Seme"), ("en", "↕ Rank", "↕ Suit")]
)
async def test_the_joker_sits_on_the_left_in_both_orders(
    fake_telegram: FakeTelegramServer, tmp_path: Path, lang: str, by_rank: str, by_suit: str
) -> None:
    """S40-15 (seed 000: "per valore con i jolly a sinistra"): the joker on the left in the
    value order, and in the suit order too (Decision, docs/rules-notes.md)."""
    server = fake_telegram
    people = [(ANNA, "Anna", lang), (LUCA, "Luca", lang)]
    seat_people(server, GROUP, "Circolo", people)
    database = tmp_path / "j.db"
    match = position(list(RIGGED_HANDS), discard="KD", to_play=0)
    store_started_match(
        database, GROUP, "Circolo", people, "scala40", match.to_json(),
        scala40.Options().to_dict(),
    )  # fmt: skip
    luca = server.user(LUCA)
    async with running_bot(server, database) as service:
        await settle(server, service)
        record = service.store.active_match_in_chat(GROUP)
        assert record is not None
        hand = server.message(LUCA, record.seats[1].hand_message_id or 0)
        assert hand is not None
        suit_order = ["🃏", "2♠", "3♠", "10♠", "J♠", "Q♠", "K♠", "6♥", "7♥", "9♥", "Q♦", "8♣", "Q♣"]
        assert cards_shown(hand) == suit_order
        _, hand = await tap(server, service, luca, hand, by_rank)
        assert cards_shown(hand)[:3] == ["🃏", "2♠", "3♠"]
        _, hand = await tap(server, service, luca, hand, by_suit)
        assert cards_shown(hand) == suit_order


def cards_shown(hand: FakeMessage) -> list[str]:
    """The cards of a Scala 40 hand's keyboard, left to right (the discard's top left out)."""
    return [
        button["text"]
        for row in (hand.reply_markup or {}).get("inline_keyboard", [])
        for button in row
        if ":t:" in button.get("callback_data", "") and ":t:^" not in button["callback_data"]
    ]
