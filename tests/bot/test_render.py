"""Rendering: exact texts, escaped names, Telegram's limits on messages and keyboards."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from telegram import InlineKeyboardMarkup

from bot.delivery import Outbox, courier
from bot.games import scala40 as scala40_ui
from bot.games import scopone as scopone_ui
from bot.games.scala40 import hand as s40_hand
from bot.games.scala40 import table as s40_table
from bot.hand.state import Attach, Capture, HandUI, context_token
from bot.i18n import isolated
from bot.lobby_view import lobby_view
from bot.render.cards import card as pretty
from bot.render.cards import short_meld
from bot.render.length import PHONE_COLUMNS, clip, columns, split, utf16_len
from bot.render.table import (
    bell_text,
    left_text,
    match_result_text,
    name_of,
    packed,
    pairs_line,
    short_name,
    side_name,
    table_names,
    turn_line,
)
from engine import scala40, scopone
from engine.scala40.greedy import greedy_action
from engine.scopone.greedy import greedy_action as scopone_greedy
from storage import Store
from testkit import duello

NAMES = ["<Anna & Co>", "Luca", "Marco", "Sara"]


def check_keyboard(markup: InlineKeyboardMarkup) -> None:
    buttons = [b for row in markup.inline_keyboard for b in row]
    assert len(buttons) <= 100
    assert all(len(row) <= 8 for row in markup.inline_keyboard)
    for button in buttons:
        assert button.text
        data = button.callback_data
        assert isinstance(data, str) and data.isascii() and len(data.encode()) <= 64


class TestMoveLines:
    def test_scala40_moves(self) -> None:
        names = ["Anna", "Luca"]
        assert (
            s40_table.move_line("it", names, 0, "open 9H 9S 9D | 10C JC QC") == "Anna apre con 57"
        )
        assert s40_table.move_line("it", names, 1, "discard 7H") == "Luca scarta 7♥"
        assert s40_table.move_line("en", names, 1, "take attach 3 7H") == (
            "Luca takes the discard, adds 7♥ to meld 3"
        )
        assert s40_table.move_line("en", names, 1, "take attach 3 7H", "7H") == (
            "Luca takes 7♥, adds 7♥ to meld 3"
        )
        assert s40_table.move_line("it", names, 0, "meld 5S 6S 7S 8S") == "Anna cala 5♠–8♠"
        assert s40_table.move_line("it", names, 0, "take") == "Anna raccoglie lo scarto"
        assert s40_table.move_line("it", names, 0, "draw") == "Anna pesca"

    def test_recent_moves_leave_out_draws_and_name_the_card_taken(self) -> None:
        history = [(0, "draw"), (0, "discard 7H"), (1, "take meld 7H 8H 9H"), (1, "discard 2S")]
        assert s40_table.recent_moves("it", ["Anna", "Luca"], history) == [
            "Anna scarta 7♥",
            "Luca prende 7♥ e cala 7♥–9♥",
            "Luca scarta 2♠",
        ]

    def test_scopone_plays_name_the_settebello(self) -> None:
        names = ["Anna", "Luca"]
        play = scopone.parse_action
        assert scopone_ui.move_line("it", names, 0, play("play 7D")) == "Anna gioca 7♦ (settebello)"
        assert scopone_ui.move_line("it", names, 1, play("play 7S take 7D"), scopa=True) == (
            "Luca prende 7♦ con 7♠ — <b>settebello!</b> — <b>scopa!</b>"
        )
        assert scopone_ui.move_line("en", names, 1, play("play 5S take 2H 3H")) == (
            "Luca takes 2♥ 3♥ with 5♠"
        )

    def test_names_are_escaped(self) -> None:
        line = s40_table.move_line("it", NAMES, 0, "draw")
        assert line == "&lt;Anna &amp; Co&gt; pesca"


class TestScala40Table:
    def test_table_shows_the_position(self) -> None:
        m = scala40.new_match(players=2, seed=11)
        view = m.view(0)
        text = s40_table.table_text(view, ["<Anna & Co>", "Luca"], "it")
        assert "&lt;Anna &amp; Co&gt;" in text and "<Anna" not in text
        assert "Pozzo: " in text and f"Tallone: {view.stock_size}" in text
        assert "Nessun gioco sul tavolo." in text
        assert "si esce a 101" in text

    def test_long_matches_fit_telegram(self) -> None:
        rng = random.Random(3)
        m = scala40.new_match(players=6, seed=5)
        for _ in range(400):
            if m.is_over:
                break
            m.play(greedy_action(m) if rng.random() < 0.9 else rng.choice(m.legal_actions()))
            text = s40_table.table_text(m.view(0), [n * 8 for n in ["Alessandra"] * 6], "it")
            assert len(text) <= 4096

    def test_clip_cuts_lines(self) -> None:
        text = "\n".join(f"line {i} " + "x" * 100 for i in range(100))
        clipped = clip(text)
        assert len(clipped) <= 4096 and clipped.startswith("line 0") and clipped.endswith("x")

    def test_lengths_are_utf16_units(self) -> None:
        """An emoji is two units: 1,500 lines of "🃏 <b>Anna</b>" are clipped by what Telegram
        counts, and a single long line loses its markup, never half a tag or an entity."""
        assert utf16_len("🃏a") == 3
        text = "\n".join(f"{n} 🃏 <b>Anna</b> 🤖" for n in range(1500))
        clipped = clip(text)
        assert utf16_len(clipped) <= 4096 < len(text) and clipped.startswith("0 🃏 <b>Anna</b>")
        one = clip("<b>" + "&amp;🃏" * 2000 + "</b>")
        assert utf16_len(one) <= 4096 and "<" not in one and one.endswith("🃏…")

    def test_split_keeps_whole_lines(self) -> None:
        lines = [f"{n}. 🤖 Computer {n} — 12 MP" for n in range(400)]
        parts = split("\n".join(lines))
        assert len(parts) > 1 and all(utf16_len(p) <= 4096 for p in parts)
        assert "\n".join(parts).split("\n") == lines


class TestHandKeyboards:
    def test_scala40_hand_within_limits(self) -> None:
        m = scala40.new_match(players=4, seed=2)
        seat = m.to_play
        assert seat is not None
        ui = HandUI(selected=("JK#0",), version=123456)
        text, markup = s40_hand.hand_message(
            987654321, seat, m.view(seat), ui, NAMES, "<Gruppo>", "it", s40_hand.Cockpit()
        )
        check_keyboard(markup)
        assert "&lt;Gruppo&gt;" in text
        assert "👉 Tocca a te: pesca o prendi lo scarto." in text
        first = markup.inline_keyboard[0][0]
        top = m.view(seat).discard_top
        assert top is not None and first.text == f"⤴ Prendi {pretty(top)}"
        context = context_token(m.view(seat).hand, ui)
        assert first.callback_data == f"h:987654321:{seat}:{context}:t:^"

    def test_scopone_capture_choice(self) -> None:
        m = scopone.new_match(seed=3)
        seat = m.to_play
        assert seat is not None
        view = m.view(seat)
        card = str(view.hand[0])
        ui = HandUI(step=Capture(card))
        _, markup = scopone_ui.hand_message(1, seat, view, ui, NAMES, "G", "en")
        assert markup is not None
        check_keyboard(markup)
        options = [a for a in view.legal_actions if str(a.card) == card]
        assert len(markup.inline_keyboard) == len(options) + 1

    def test_scopone_hand_without_cards_has_no_keyboard(self) -> None:
        """A player who laid their last card waits for the deal: no buttons (an empty keyboard
        is markup Telegram cannot parse)."""
        m = scopone.new_match(seed=3)
        seat = m.to_play
        assert seat is not None
        view = replace(m.view(seat), hand=())
        text, markup = scopone_ui.hand_message(1, seat, view, HandUI(), NAMES, "G", "en")
        assert markup is None and text.startswith("🃏 <b>Scopone</b> · G")


class TestOutboxMemory:
    def test_remembers_a_bounded_number_of_messages(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The digests of what messages show stay bounded: the oldest edited goes first."""
        monkeypatch.setattr(courier, "MAX_REMEMBERED", 3)
        outbox = Outbox(bot=None, clock=lambda: 0.0)  # type: ignore[arg-type]
        for message_id in range(5):
            outbox.remember(1, message_id, f"d{message_id}")
        outbox.remember(1, 2, "again")
        assert list(outbox.shown) == [(1, 3), (1, 4), (1, 2)]


LONG_NAMES = [
    "Alessandra Lo Presti", "Giuseppe Bianchini", "Maria Vittoria", "Francesco Paolo",
    "Anna Maria Rossi", "Luca",
]  # fmt: skip
TABLE_NAMES = ["Alessandra", "Giuseppe B.", "🤖 1", "🤖 2", "Francesco P.", "Anna Maria"]
"""Two people with long names and computers, as the table shows them (:func:`table_names`)."""
LONG_TITLE = "Circolo della briscola di via Roma"
"""A group's title longer than a bell's line leaves it."""
SEAL = "🔐 Mazzo garantito 3f9a1c0b · /verifica"


def crowded_match(
    players: int = 6, seed: int = 5, options: scala40.Options | None = None
) -> scala40.Match:
    """A Scala 40 first hand at its most crowded: the most melds greedy play puts down."""
    m = scala40.new_match(players=players, seed=seed, options=options)
    crowded, most = m.copy(), 0
    while m.to_play is not None and not m.is_over and m.hand_number == 1:
        m.play(greedy_action(m))
        if len(m.view(0).melds) > most:
            crowded, most = m.copy(), len(m.view(0).melds)
    return crowded


class TestCockpitHeader:
    """The hand's header names the partner and counts what decides the match (S40-12), as
    many to a line as a phone's width holds."""

    @pytest.mark.parametrize(
        ("lang", "expected"),
        [
            (
                "it",
                [
                    "Mano 1 · corsa a 3 mani",
                    "Mani vinte: tu + Carla 0 · Luca + Dino 0",
                    "Carte in mano: Luca 13 · Carla 13",
                    "Dino 13",
                ],
            ),
            (
                "en",
                [
                    "Hand 1 · race to 3 hands",
                    "Hands won: you + Carla 0 · Luca + Dino 0",
                    "Cards in hand: Luca 13 · Carla 13",
                    "Dino 13",
                ],
            ),
        ],
    )
    def test_pairs_in_a_race_count_hands_won(self, lang: str, expected: list[str]) -> None:
        options = scala40.Options(pairs=True, format="race")
        m = scala40.new_match(players=4, seed=3, options=options)
        names = ["Anna", "Luca", "Carla", "Dino"]
        text, _ = s40_hand.hand_message(
            1, 0, m.view(0), HandUI(), names, "G", lang, s40_hand.Cockpit()
        )
        assert text.splitlines()[1 : len(expected) + 1] == expected


class TestPhoneFriendly:
    """Every message kind, for the most crowded Scala 40 position, fits a phone's screen: the
    budgets below (characters as Telegram counts them, lines; the table in lines and columns
    as a phone shows them, issue 25), far under Telegram's 4,096."""

    TABLE = (15, PHONE_COLUMNS)
    MOVE_COLUMNS = 52
    """A recent move that names many cards (a take, with what it made) may wrap once."""
    HAND = (1000, 24)
    """A crowded hand of six: the header, the turn, the piles, the melds (12, packed in lines a
    phone need not wrap), the moves since the turn."""
    RESULT = (900, 16)
    """A hand's summary of six: a line a seat, two when its cards do not fit beside it."""

    def fits(self, text: str, budget: tuple[int, int]) -> None:
        assert utf16_len(text) <= budget[0] and text.count("\n") + 1 <= budget[1], text

    def fits_a_phone(self, text: str, exact: bool = True) -> None:
        """At most 15 lines of at most 40 columns (``exact``: every line; else a recent move
        may be a little wider, as 1% of them are)."""
        lines = text.split("\n")
        assert len(lines) <= self.TABLE[0], text
        for line in lines:
            wide = self.MOVE_COLUMNS if line.startswith("· ") and not exact else self.TABLE[1]
            assert columns(line) <= wide, line

    @pytest.mark.parametrize("lang", ["it", "en"])
    @pytest.mark.parametrize(
        "options",
        [scala40.Options(), scala40.Options(pairs=True), scala40.Options(format="hands")],
        ids=["points", "pairs", "hands"],
    )
    def test_a_crowded_table_of_four(self, lang: str, options: scala40.Options) -> None:
        """Four players, two of them with long names and two computers, the most melds of a
        hand (11 and 12): at most 15 lines of at most 40 columns, the time left and all."""
        for seed in (26, 33):
            m = crowded_match(4, seed, options)
            assert len(m.view(0).melds) >= 11
            text = s40_table.table_text(m.view(0), TABLE_NAMES[:4], lang, timedelta(minutes=2))
            self.fits_a_phone(text)

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_every_table_of_four_fits_a_phone(self, lang: str) -> None:
        """Every table of whole matches of four (a tenth of the moves at random): 15 lines at
        most, of 40 columns but for a few recent moves."""
        formats = [scala40.Options(), scala40.Options(pairs=True, format="race")]
        for seed, options in enumerate(formats * 3):
            rng = random.Random(seed)
            m = scala40.new_match(players=4, seed=seed, options=options)
            while not m.is_over:
                m.play(greedy_action(m) if rng.random() < 0.9 else rng.choice(m.legal_actions()))
                view = m.view(0)
                text = s40_table.table_text(
                    view, TABLE_NAMES[:4], lang, timedelta(seconds=90), SEAL
                )
                self.fits_a_phone(text, exact=False)

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_scopone_tables_fit_a_phone(self, lang: str) -> None:
        for options in (scopone.Options(), scopone.Options(individual=True)):
            m = scopone.new_match(seed=4, options=options)
            while not m.is_over:
                m.play(scopone_greedy(m))
                text = scopone_ui.table_text(m.view(0), TABLE_NAMES[:4], lang, None, SEAL)
                lines = text.split("\n")
                assert len(lines) <= self.TABLE[0], text
                assert all(columns(line) <= self.TABLE[1] for line in lines), text

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_hands(self, lang: str) -> None:
        m = crowded_match()
        for seat in range(6):
            text, markup = s40_hand.hand_message(
                1,
                seat,
                m.view(seat),
                HandUI(),
                [short_name(name) for name in LONG_NAMES],  # as the table cuts them
                "Circolo del giovedì",
                lang,
                s40_hand.Cockpit(left=timedelta(seconds=100)),
            )
            self.fits(text, self.HAND)
            self.fits_a_phone_width(text)
            assert markup is not None
            check_keyboard(markup)

    def fits_a_phone_width(self, text: str) -> None:
        """Every line within a phone's width; but a move since the player's turn, which may
        name many cards (a take with what it made), may wrap once, as on the table."""
        for line in text.split("\n"):
            wide = self.MOVE_COLUMNS if line.startswith("· ") else PHONE_COLUMNS
            assert columns(line) <= wide, line

    @pytest.mark.parametrize("lang", ["it", "en"])
    @pytest.mark.parametrize(
        "options",
        [
            scala40.Options(),
            scala40.Options(pairs=True, open_hands_for_partners=True),
            scala40.Options(format="hands"),
        ],
        ids=["points", "pairs", "hands"],
    )
    def test_every_message_of_a_match_of_four_fits_a_phone(
        self, lang: str, options: scala40.Options
    ) -> None:
        """A whole match of four, two computers among them: after every move each seat's hand
        (the header, the melds, the moves since its turn, the prompt; off turn and in the
        attach step), the turn's bell; at the end of each hand the group's summary and every
        seat's recap; at the end the hand without buttons. Every line within 40 columns, but a
        move naming many cards, which may wrap once (as on the table)."""
        names, group = TABLE_NAMES[:4], "Circolo del giovedì"
        bell = bell_text(lang, LONG_TITLE, timedelta(seconds=100))
        m = scala40.new_match(players=4, seed=2, options=options)
        last = None
        while not m.is_over:
            m.play(greedy_action(m))
            for seat in range(4):
                for ui in (HandUI(), HandUI(step=Attach(None))):
                    cockpit = s40_hand.Cockpit(left=timedelta(seconds=100))
                    text, _ = s40_hand.hand_message(
                        1, seat, m.view(seat), ui, names, group, lang, cockpit
                    )
                    self.fits_a_phone_width(text)
            if m.to_play is not None:
                self.fits_a_phone_width(bell + "\n" + scala40_ui.UI.turn_facts(m, m.to_play, lang))
            if m.last_hand is not None and m.last_hand is not last:
                last = m.last_hand
                self.fits_a_phone_width(scala40_ui.UI.hand_result(m, names, lang))
                for seat in range(4):
                    self.fits_a_phone_width(scala40_ui.UI.hand_recap(m, seat, names, lang))
        assert last is not None and last.hand_number > 1
        text, markup = scala40_ui.UI.hand(1, 0, m, HandUI(), names, group, lang)
        assert markup is None
        self.fits_a_phone_width(text)

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_every_scopone_hand_fits_a_phone(self, lang: str) -> None:
        """A Scopone match's hands, after every play: every line within 40 columns but a play
        naming many cards."""
        names, group = TABLE_NAMES[:4], "Circolo del giovedì"
        m = scopone.new_match(seed=4)
        while not m.is_over:
            m.play(scopone_greedy(m))
            for seat in range(4):
                text, _ = scopone_ui.hand_message(
                    1, seat, m.view(seat), HandUI(), names, group, lang
                )
                self.fits_a_phone_width(text)

    @pytest.mark.parametrize("lang", ["it", "en"])
    @pytest.mark.parametrize(
        "options", [scopone.Options(), scopone.Options(individual=True)], ids=["pairs", "alone"]
    )
    def test_every_scopone_summary_and_bell_fits_a_phone(
        self, lang: str, options: scopone.Options
    ) -> None:
        """A whole Scopone match: the group's summary of every hand (the points by category,
        the leftover cards, the scores, the piles), every seat's recap, the turn's bell in a
        group of a long title: every line within 40 columns (a list of cards wraps between
        cards)."""
        names = TABLE_NAMES[:4]
        m = scopone.new_match(seed=4, options=options)
        last = None
        while not m.is_over:
            m.play(scopone_greedy(m))
            if m.to_play is not None:
                bell = bell_text(lang, LONG_TITLE, timedelta(seconds=100))
                self.fits_exactly(bell + "\n" + scopone_ui.UI.turn_facts(m, m.to_play, lang))
            if m.last_hand is not None and m.last_hand is not last:
                last = m.last_hand
                self.fits_exactly(scopone_ui.UI.hand_result(m, names, lang))
                for seat in range(4):
                    self.fits_exactly(scopone_ui.UI.hand_recap(m, seat, names, lang))
        assert last is not None and last.hand_number > 1

    def fits_exactly(self, text: str) -> None:
        """Every line of ``text`` within a phone's width, none excepted."""
        for line in text.split("\n"):
            assert columns(line) <= PHONE_COLUMNS, line

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_the_ranking_fits_a_phone(self, lang: str) -> None:
        """The match's end: two winners of long names, points of three digits and a sign, the
        legend of the points: every line within 40 columns."""
        mp, vp = [-134, 134, -134, 134], [0, 20, 0, 20]
        names = [short_name(name) for name in LONG_NAMES[:4]]
        self.fits_exactly(match_result_text(mp, vp, [1, 3], names, lang, False))
        self.fits_exactly(match_result_text(mp, vp, [1, 3], TABLE_NAMES[:4], lang, False))
        self.fits_exactly(match_result_text([0] * 2, [10] * 2, [0, 1], names[:2], lang, False))

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_the_bell_cuts_a_long_group_title(self, lang: str) -> None:
        """A long group title is cut to what its line leaves, the time left goes below it; a
        short one stays whole, the time left beside it."""
        bell = bell_text(lang, LONG_TITLE, timedelta(seconds=100)).split("\n")
        assert all(columns(line) <= PHONE_COLUMNS for line in bell) and "…" in bell[0], bell
        assert "Circolo della brisc" in bell[0] and bell[0].endswith("…!") and bell[1][0] == "⏳"
        assert len(bell_text(lang, "Circolo", timedelta(seconds=100)).split("\n")) == 1

    @pytest.mark.parametrize("lang", ["it", "en"])
    @pytest.mark.parametrize("game", ["scala40", "scopone"])
    def test_a_full_lobby_fits_a_phone(self, lang: str, game: str, tmp_path: Path) -> None:
        store = Store.open(f"sqlite:///{tmp_path / 'l.db'}")
        try:
            record = store.create_match(-5, game, {}, 1, LONG_NAMES[0], seed=3)
            record = store.add_seat(record.id, 2, LONG_NAMES[1])
            record = store.add_seat(record.id, None, "🤖 Computer 2 (esperto)", "esperto")
            record = store.add_seat(record.id, 4, LONG_NAMES[3])
        finally:
            store.close()
        for panel in (False, True):
            text, _ = lobby_view(record, lang, panel)
            self.fits_a_phone_width(text)

    @pytest.mark.parametrize("lang", ["it", "en"])
    def test_hand_and_match_results(self, lang: str) -> None:
        m = scala40.new_match(players=6, seed=5)
        while m.last_hand is None:
            m.play(greedy_action(m))
        sides = list(m.view(0).sides)
        names = [short_name(name) for name in LONG_NAMES]  # as the table cuts them
        self.fits(s40_table.hand_result_text(m.last_hand, names, sides, lang), self.RESULT)
        mp, vp = [10, -2, -2, -2, -2, -2], [20, 0, 0, 0, 0, 0]
        self.fits(match_result_text(mp, vp, [0], LONG_NAMES, lang, False), self.RESULT)


class TestTableWords:
    def test_names_are_cut_as_people_cut_them(self) -> None:
        assert [short_name(n) for n in LONG_NAMES] == [
            "Alessandra", "Giuseppe B.", "Maria V.", "Francesco P.", "Anna Maria", "Luca",
        ]  # fmt: skip
        assert short_name("Bartolomeo-Giacomo") == "Bartolomeo-…"

    def test_computers_are_short_and_people_stay_apart(self, tmp_path: Path) -> None:
        store = Store.open(f"sqlite:///{tmp_path / 'n.db'}")
        try:
            record = store.create_match(-5, "scala40", {}, 1, "Giuseppe Bianchini", seed=3)
            record = store.add_seat(record.id, 2, "Giuseppe Bianchi")
            record = store.add_seat(record.id, None, "🤖 Computer 2 (esperto)", "esperto")
            record = store.add_seat(record.id, 4, "Alessandra Lo Presti")
        finally:
            store.close()
        assert table_names(record) == [
            "Giuseppe Bianchini", "Giuseppe Bianchi", "🤖 2", "Alessandra",
        ]  # fmt: skip

    @pytest.mark.parametrize(
        ("seconds", "it", "en"),
        [
            (120, "⏳ max 2 min", "⏳ up to 2 min"),
            (119.5, "⏳ max 2 min", "⏳ up to 2 min"),
            (150, "⏳ max 3 min", "⏳ up to 3 min"),
            (90, "⏳ max 90 s", "⏳ up to 90 s"),
            (59.2, "⏳ max 60 s", "⏳ up to 60 s"),
            (1, "⏳ max 10 s", "⏳ up to 10 s"),
            (0, "", ""),
        ],
    )
    def test_time_left_is_an_upper_bound(self, seconds: float, it: str, en: str) -> None:
        """Rounded up, so it stays true until the next edit (time left only shrinks)."""
        left = timedelta(seconds=seconds)
        assert (left_text("it", left), left_text("en", left)) == (it, en)
        assert left_text("it", None) == ""

    def test_melds_pack_closer_when_the_table_is_full(self) -> None:
        items = [f"{n}) 7♠ 7♥ 7♦" for n in range(1, 7)]
        assert packed(items) == [
            "1) 7♠ 7♥ 7♦ · 2) 7♠ 7♥ 7♦ · 3) 7♠ 7♥ 7♦",
            "4) 7♠ 7♥ 7♦ · 5) 7♠ 7♥ 7♦ · 6) 7♠ 7♥ 7♦",
        ]
        assert short_meld(["7S", "7H", "7D"], dense=True) == "7♠♥♦"
        assert short_meld(["QS", "KS", "AS", "JK"]) == "Q♠–A♠ 🃏"
        assert short_meld(["JK=QS", "QH", "QD"]) == "🃏(Q♠) Q♥ Q♦"


class TestNamesAreIsolated:
    """A name that could reorder its line (right-to-left letters, direction controls) is shown
    between FSI and PDI; one of left-to-right letters is shown as typed."""

    def test_isolated(self) -> None:
        assert isolated("Anna") == "Anna"
        assert isolated("<Anna & Co> 7") == "<Anna & Co> 7"
        assert isolated("\u202eAnna") == "\u2068\u202eAnna\u2069"
        assert isolated("لوقا") == "\u2068لوقا\u2069"
        assert isolated("١٢") == "\u2068١٢\u2069"  # Arabic digits
        # A PDI of its own would end the isolation early; an FSI, leave it open.
        assert isolated("x\u2069\u202ey") == "\u2068x\u202ey\u2069"
        assert isolated("\u2068x") == "\u2068x\u2069"

    def test_table_lines(self) -> None:
        names = ["\u202eAnna", "Aisha عائشة"]
        text = s40_table.table_text(scala40.new_match(players=2, seed=11).view(0), names, "it")
        assert "👉 \u2068\u202eAnna\u2069 · 13 carte · 0 pt" in text.splitlines()
        assert "▫️ \u2068Aisha عائشة\u2069 · 13 carte · 0 pt" in text.splitlines()
        assert turn_line("it", name_of(names, 1)) == "Tocca ad <b>\u2068Aisha عائشة\u2069</b>"
        assert side_name(names, [0, 0], 0) == "\u2068\u202eAnna\u2069 + \u2068Aisha عائشة\u2069"

    @pytest.mark.parametrize(
        ("lang", "line"), [("it", "Opzioni: predefinite"), ("en", "Options: the defaults")]
    )
    def test_a_lobby_of_a_game_that_names_no_option(
        self, lang: str, line: str, tmp_path: Path
    ) -> None:
        """A game whose lobby always names none of its options (the tests' own third game),
        left as it comes, says so in words (it read "Opzioni: opt. None")."""
        with duello.registered():
            store = Store.open(f"sqlite:///{tmp_path / 'd.db'}")
            try:
                record = store.create_match(-5, "duello", {}, 1, "Anna", seed=3)
            finally:
                store.close()
            text, _ = lobby_view(record, lang)
        assert line in text.splitlines()

    def test_lobby_and_pairs(self, tmp_path: Path) -> None:
        store = Store.open(f"sqlite:///{tmp_path / 'l.db'}")
        try:
            record = store.create_match(-5, "scopone", {}, 1, "\u202eAnna", seed=3)
            for user, name in ((2, "Luca"), (3, "لوقا"), (4, "Sara")):
                record = store.add_seat(record.id, user, name)
        finally:
            store.close()
        text, _ = lobby_view(record, "it")
        assert "Organizzata da \u2068\u202eAnna\u2069" in text.splitlines()
        assert "1. \u2068\u202eAnna\u2069" in text.splitlines()
        assert "3. \u2068لوقا\u2069" in text.splitlines()
        assert pairs_line(record, "it") == (
            "Coppie: \u2068\u202eAnna\u2069 + \u2068لوقا\u2069 contro Luca + Sara"
        )
