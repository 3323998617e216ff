"""Every text a player reads is words in their language: plurals, names, values, hints."""

from __future__ import annotations

import pytest

from bot.games import scala40 as scala40_ui
from bot.games import scopone as scopone_ui
from bot.games.scala40 import presses as s40_presses
from bot.games.scala40 import table as s40_table
from bot.i18n import t
from bot.options_ui import rules_lines, value_text
from bot.render.table import match_result_text, names_list
from engine import scala40
from engine import scopone as scopone_engine


class TestPlurals:
    @pytest.mark.parametrize(
        ("lang", "count", "text"),
        [
            ("it", 1, "👉 Anna · 1 carta"),
            ("it", 2, "👉 Anna · 2 carte"),
            ("it", 0, "👉 Anna · 0 carte"),
            ("en", 1, "👉 Anna · 1 card"),
            ("en", 13, "👉 Anna · 13 cards"),
        ],
    )
    def test_cards_in_hand(self, lang: str, count: int, text: str) -> None:
        line = t(lang, "table.seat", marker="👉", name="Anna", count=count)
        assert line == text

    @pytest.mark.parametrize(
        ("lang", "count", "won", "points"),
        [
            ("it", 1, " · 1 vinta", " · 1 pt"),
            ("it", 2, " · 2 vinte", " · 2 pt"),
            ("en", 1, " · 1 won", " · 1 pt"),
            ("en", 2, " · 2 won", " · 2 pts"),
        ],
    )
    def test_hands_won_and_points(self, lang: str, count: int, won: str, points: str) -> None:
        assert t(lang, "table.won", count=count) == won
        assert t(lang, "table.score", count=count) == points

    def test_scopone_captures_and_scope(self) -> None:
        """English says "scopas", not "scope" (an English word of its own)."""
        line = t("it", "table.taken", taken="1–7", scope="1–0")
        assert line == "Carte prese: 1–7 · scope: 1–0"
        line = t("en", "table.taken", taken="1–7", scope="1–0")
        assert line == "Cards taken: 1–7 · scopas: 1–0"


class TestNames:
    def test_lists_of_names(self) -> None:
        assert names_list("it", ["Anna"]) == "Anna"
        assert names_list("it", ["Anna", "Luca"]) == "Anna e Luca"
        assert names_list("en", ["Anna", "Bea", "Luca"]) == "Anna, Bea and Luca"

    def test_the_winners_agree_with_their_number_and_mp_vp_are_explained(self) -> None:
        text = match_result_text([70, -70], [20, 0], [0], ["Anna", "Luca"], "en", False)
        assert text.splitlines() == [
            "🏆 <b>Match over!</b> Anna wins.",
            "1. Anna",
            "  70 match points, 20 victory points",
            "2. Luca",
            "  -70 match points, 0 victory points",
            "Match points: the margin over opponents.",
            "Victory points: 20 a win, 10 a draw.",
        ]
        text = match_result_text(
            [5, 5, -5, -5], [20] * 2 + [0] * 2, [0, 1], list("ABCD"), "it", False
        )
        assert text.splitlines()[0] == "🏆 <b>Partita finita!</b> Vincono A e B."


class TestScala40HandEnd:
    def test_totals_name_their_side_and_who_is_out(self) -> None:
        result = scala40.HandResult(
            hand_number=4,
            closer=0,
            cards=[[], ["KS", "QS"], ["7H"]],
            points=[0, 20, 7],
            side_points=[0, 20, 7],
            totals=[40, 105, 60],
            eliminated=[1],
        )
        text = s40_table.hand_result_text(result, ["Anna", "Luca", "Bea"], [0, 1, 2], "it")
        assert text.splitlines()[-2:] == [
            "Totali: Anna 40 · Luca 105 · Bea 60",
            "❌ Luca è fuori con 105 punti.",
        ]

    def test_the_summary_says_what_decided_each_line(self) -> None:
        """The closing card, the closer's 0 and their partner's, a flat 100 said as such,
        the limit with the totals; in the hands format, the hands won."""
        result = scala40.HandResult(
            hand_number=2,
            closer=0,
            in_mano=True,
            cards=[[], ["KS", "QS"], ["7H", "8H"], ["2C"]],
            points=[0, 40, 15, 100],
            side_points=[0, 140],
            totals=[0, 140],
            discard="9H",
            opened=[True, True, True, False],
            card_points=[0, 20, 15, 2],
            hands_won=[1, 0],
        )
        names, sides = ["Anna", "Luca", "Bea", "Dino"], [0, 1, 0, 1]
        assert s40_table.hand_result_text(result, names, sides, "it", "points", 201).split(
            "\n"
        ) == [
            "🏁 <b>Mano 2</b>: Anna chiude in mano",
            "con 9♥! Punti doppi.",
            "Anna: ha chiuso → 0",
            "Luca: 40 (K♠ Q♠)",
            "Bea: 0, in coppia con chi chiude (7♥ 8♥)",
            "Dino: non ha calato → 100 fissi (2♣)",
            "Totali: Anna + Bea 0 · Luca + Dino 140",
            "si esce a 201",
        ]
        text = s40_table.hand_result_text(result, names, sides, "en", "hands")
        assert text.split("\n")[2:] == [
            "Anna: closed → 0",
            "Luca: 40 (K♠ Q♠)",
            "Bea: 0, the closer's partner (7♥ 8♥)",
            "Dino: never opened → a flat 100 (2♣)",
            "Totals: Anna + Bea 0 · Luca + Dino 140",
            "Hands won: Anna + Bea 1 · Luca + Dino 0",
        ]
        recap = s40_table.hand_recap(result, 3, names, sides, "it", "points", 201)
        assert recap.split("\n")[2:4] == [
            "Non hai calato: 100 fissi.",
            "Le tue carte ne varrebbero 2 (2♣)",
        ]
        recap = s40_table.hand_recap(result, 2, names, sides, "en", "points", 201)
        assert recap.split("\n")[2:4] == ["Your cards: 0, your partner closed", "(7♥ 8♥)"]

    def test_an_eliminated_seat_shows_no_cards(self) -> None:
        line = t("it", "table.seat_out", marker="▫️", name="Luca")
        assert line == "▫️ Luca · ❌ fuori"


class TestScoponeHandEnd:
    def test_the_recap_says_who_took_the_leftover_and_the_scores(self) -> None:
        """SC-3.6, SC-5.2: the cards left on the table go to who took last; the scores are
        read against the target; the piles are left to the group's summary."""
        m = scopone_engine.new_match(seed=3)
        while m.last_hand is None:
            m.play(scopone_engine.greedy_action(m))
        names = ["Anna", "Luca", "Bea", "Dino"]
        assert scopone_ui.UI.hand_recap(m, 0, names, "it").splitlines()[7:] == [
            "Ultima presa di Bea:",
            "sue anche le carte rimaste (Q♣ J♣ A♥)",
            "Punti (si vince a 11):",
            "  Anna + Bea 2",
            "  Luca + Dino 3",
        ]
        assert scopone_ui.UI.hand_recap(m, 1, names, "en").splitlines()[7:] == [
            "Bea took last, so also gets",
            "the cards left on the table (Q♣ J♣ A♥)",
            "Points (to win: 11):",
            "  Anna + Bea 2",
            "  Luca + Dino 3",
        ]
        summary = scopone_ui.UI.hand_result(m, names, "it").splitlines()
        assert len(summary) == 18 and summary[-6:-4] == [
            "Anna + Bea (17):",
            "7♦ 7♥ J♥ J♦ 5♠ 5♥ 5♣ 5♦ 6♥ 6♦ 2♣ 2♦ 7♠",
        ]


class TestOptionValues:
    @pytest.mark.parametrize(
        ("name", "value", "it", "en"),
        [
            ("ace_penalty", "single_ace_is_1", "1 se è l'unico", "1 if it is the only one"),
            ("format", "points", "a punti", "points"),
            ("timeout_policy", "autoplay", "gioca il computer", "the computer plays"),
            ("deal", "scientifico", "scientifico: 10 carte", "scientifico: 10 cards"),
            ("turn_seconds", 120, "120 s", "120 s"),
            ("turn_seconds", 0, "senza limite", "no limit"),
            ("match_minutes", 30, "30 min", "30 min"),
            ("pairs", True, "sì", "on"),
            ("limit", 101, "101", "101"),
        ],
    )
    def test_values_in_words(self, name: str, value: object, it: str, en: str) -> None:
        assert (value_text(name, value, "it"), value_text(name, value, "en")) == (it, en)

    def test_every_choice_has_words(self) -> None:
        from engine.games import GAMES

        for spec in GAMES.values():
            for name, values in spec.choices.items():
                for value in values:
                    for lang in ("it", "en"):
                        text = value_text(name, value, lang)
                        assert not text.startswith("val."), (name, value, lang)


class TestHints:
    def test_a_hint_is_a_sentence(self) -> None:
        action = scala40.parse_action("attach 3 JH")
        assert s40_presses.hint_text("it", action) == "Puoi attaccare J♥ al gioco 3."
        action = scala40.parse_action("meld 7H 8H 9H")
        assert s40_presses.hint_text("en", action) == "You can lay 7♥ 8♥ 9♥."


class TestRules:
    def test_rules_list_what_applies_the_changed_first(self) -> None:
        """/regole of a match of pairs racing to 3: no points limit, no hands, no rientro; the
        changed options first."""
        options = scala40.Options(pairs=True, format="race", turn_seconds=0).to_dict()
        lines = rules_lines("scala40", options, "it")
        assert lines[:3] == [
            "A coppie: sì",
            "Formato: corsa a 3 mani",
            "Secondi per turno: senza limite",
        ]
        labels = [line.split(":")[0] for line in lines]
        for idle in ("Limite punti", "Smazzate", "Rientro", "Tempo scaduto"):
            assert idle not in labels
        assert "Minuti di partita" in labels and "Carte scoperte in coppia" in labels

    def test_scopone_rules_and_the_options_the_lobby_names(self) -> None:
        assert rules_lines("scopone", {"turn_seconds": 0}, "en")[0] == "Seconds per turn: no limit"
        assert len(rules_lines("scopone", {}, "en")) == 8
        ui = scala40_ui.UI
        assert [ui.headline_option({"format": f}) for f in ("points", "hands", "race")] == [
            "limit",
            "hands",
            "format",
        ]
