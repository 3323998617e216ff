"""End to end: a rigged Scala 40 hand played through the buttons (docs/rules.md S40-3 to S40-8).

The match is stored in a known position; the bot picks it up at start (resume), then two
simulated players draw, stage melds, are refused an opening of 37 and open with 45 taking the
discard, attach, swap a joker through the declaration panel, and are refused a discard.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.cards import card as pretty
from bot.service import Tavolo
from engine.scala40 import Options
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_rigged_scala40,
    store_started_match,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, FakeUser
from testkit.s40_helpers import position

ANNA, LUCA, GROUP = 1001, 1002, -100700
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def rigged_store(database: Path) -> int:
    """A 2-player match, Luca to play first, stored as the bot would have stored it."""
    return store_rigged_scala40(database, GROUP, "Tavolo di prova", PEOPLE)


class Player:
    """A simulated player pressing the buttons of their private hand message."""

    def __init__(
        self, server: FakeTelegramServer, service: Tavolo, user: FakeUser, match_id: int, lang: str
    ) -> None:
        self.server, self.service, self.user, self.match_id = server, service, user, match_id
        self.lang = lang

    def hand(self) -> FakeMessage:
        record = self.service.store.get_match(self.match_id)
        seat = record.seat_of(self.user.id)
        assert seat is not None
        message = self.server.message(self.user.id, record.seats[seat].hand_message_id or 0)
        assert message is not None
        return message

    async def press(self, label: str) -> dict[str, object]:
        message = self.hand()
        answer = await self.user.press(
            self.user.id, message.message_id, button_data(message, label)
        ).answered()
        await settle(self.server, self.service)
        return answer

    async def select(self, *cards: str) -> None:
        for card in cards:
            buttons = keyboard_data(self.hand())
            if card == "^":  # the discard's button names it: "⤴ Scarto K♦"
                label = next(b.lstrip("✓") for b in buttons if b.lstrip("✓").startswith("⤴"))
            else:
                label = pretty(card)
            for mark in ("✓", "🆕"):  # a selected card (pressed again, unselected), a new one
                if label not in buttons and mark + label in buttons:
                    label = mark + label
            assert label in buttons, (label, list(buttons))
            answer = await self.press(label)
            assert answer["text"] is None, answer


def table_text(server: FakeTelegramServer, service: Tavolo, match_id: int) -> str:
    record = service.store.get_match(match_id)
    message = server.message(GROUP, record.table_message_id or 0)
    assert message is not None
    return message.text


async def test_rigged_hand_through_the_buttons(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    anna_user, luca_user = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match_id = rigged_store(tmp_path / "t.db")
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        anna = Player(server, service, anna_user, match_id, "it")
        luca = Player(server, service, luca_user, match_id, "en")
        assert (
            "Luca</b>"
            in server.message(GROUP, service.store.get_match(match_id).table_message_id).source
        )  # type: ignore[union-attr]

        # Luca (S40-5): draws, stages JK 6H 7H (the joker is 5H by position) and 10S-KS, opens 58.
        assert (await luca.press("🂠 Draw"))["text"] == "You drew A♣."  # marked in the hand
        assert "🆕A♣" in keyboard_data(luca.hand())
        await luca.select("JK", "6H", "7H")
        await luca.press("➕ Stage")
        await luca.select("10S", "JS", "QS", "KS")
        await luca.press("➕ Stage")
        assert "Staged: 🃏 6♥ 7♥ | 10♠ J♠ Q♠ K♠ → 58" in luca.hand().text
        assert (await luca.press("✅ Open 58"))["text"] is None
        await luca.select("2S")
        await luca.press("🗑 Discard 2♠")
        table = table_text(server, service, match_id)
        assert "1) 🃏 6♥ 7♥ · 2) 10♠–K♠" in table.splitlines()  # the joker's place says 5♥
        assert "· Luca apre con 58" in table and "· Luca scarta 2♠" in table

        # Anna, not open (S40-8.3): 9S fits meld 2, so she may not discard it.
        assert (await anna.press("🂠 Pesca"))["text"] == "Hai pescato A♦."
        assert "🆕A♦" in keyboard_data(anna.hand())
        await anna.select("9S")
        refused = await anna.press("🗑 Scarta 9♠")
        assert refused == {
            **refused,
            "text": "Non puoi scartare 9♠: si attacca a un gioco sul tavolo.",
            "show_alert": True,
        }
        await anna.select("9S")  # unselect
        # S40-5.2: 4-4-4 (12) and 3-7 of clubs (25) make 37: refused.
        await anna.select("4S", "4H", "4D")
        await anna.press("➕ Prepara")
        await anna.select("3C", "4C", "5C", "6C", "7C")
        await anna.press("➕ Prepara")
        refused = await anna.press("🔒 Apri 37/40")  # below the threshold: the press says why
        assert refused["text"] == "Apertura insufficiente: 37 punti, ne servono 40."
        assert service.store.get_match(match_id).status == "playing"
        await anna.press("↩️ Riprendi 3♣–7♣")  # the last meld staged comes back, the other stays
        assert "In preparazione: 4♠ 4♥ 4♦ → 12" in anna.hand().text.splitlines()
        await anna.press("↩️ Riprendi 4♠ 4♥ 4♦")
        await anna.select("AD")
        await anna.press("🗑 Scarta A♦")

        # Luca draws and throws the 8C that Anna wants.
        await luca.press("🂠 Draw")
        await luca.select("8C")
        await luca.press("🗑 Discard 8♣")

        # Anna takes the discard to open (S40-3.1b): 3-8 of clubs (33) + 4-4-4 (12) = 45.
        await anna.select("^", "3C", "4C", "5C", "6C", "7C")
        await anna.press("➕ Prepara")
        await anna.select("4S", "4H", "4D")
        await anna.press("➕ Prepara")
        assert (await anna.press("✅ Apri 45"))["text"] is None
        table = table_text(server, service, match_id)
        assert "· Anna prende 8♣ e apre con 45" in table
        assert "3) 3♣–8♣" in table

        # An attach (S40-6): 9C onto her run.
        hint = await anna.press("💡 Aiuto")  # a hint in words, not "attach 3 9C"
        assert hint["text"] in (
            "💡 Puoi attaccare 9♣ al gioco 3.",
            "💡 Puoi attaccare 9♠ al gioco 2.",
        )
        await anna.select("9C")
        assert (await anna.press("📎 Attacca"))["text"] is None  # it fits meld 3 alone: done
        assert "3) 3♣–9♣" in table_text(server, service, match_id)

        # A joker swap (S40-7): 5H frees Luca's joker; attached to 10S-KS it could be 9S or AS,
        # so the declaration panel asks.
        await anna.select("5H")
        await anna.press("🃏 Jolly")
        await anna.press("📎 Attacca")
        targets = [label for label in keyboard_data(anna.hand()) if label.startswith("📎")]
        assert targets == ["📎 🃏 6♥ 7♥", "📎 10♠–K♠", "📎 3♣–9♣", "📎 4♠ 4♥ 4♦"]  # it fits
        answer = await anna.press("📎 10♠–K♠")
        assert answer["text"] == "Scegli che carta fa il jolly."
        assert {"9♠", "A♠"} <= set(keyboard_data(anna.hand()))
        assert (await anna.press("A♠"))["text"] is None
        table = table_text(server, service, match_id)
        assert "1) 5♥–7♥ · 2) 10♠–K♠ 🃏 · 3) 3♣–9♣" in table.splitlines()
        await anna.select("2D")
        await anna.press("🗑 Scarta 2♦")

        moves = [m.action for m in service.store.moves(match_id)]
        assert moves == [
            "draw",
            "open JK 6H 7H | 10S JS QS KS",
            "discard 2S",
            "draw",
            "discard AD",
            "draw",
            "discard 8C",
            "take open 3C 4C 5C 6C 7C 8C | 4S 4H 4D",
            "attach 3 9C",
            "swap 1 5H attach 2 JK=AS",
            "discard 2D",
        ]
        assert server.last_message(LUCA, from_bot=True).text == (
            "🔔 Your turn in Tavolo di prova!\n⏳ up to 2 min\nDiscard: 2♦ · Stock: 78"
        )  # type: ignore[union-attr]


async def test_attach_offers_the_melds_the_cards_fit(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """📎 Attacca lists the melds the selection fits, by their cards; one alone is attached to
    at once; none is said (S40-6)."""
    server = fake_telegram
    anna_user, luca_user = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match = position(
        ["8H 7C 2S 3D 4D 5S KD", "8H QH 2S 3S 4S 6D KC"],
        melds=[(0, "7S 7H 7D"), (1, "9H 10H JH"), (0, "8S 8D 8C"), (1, "QS QD QC")],
        discard="KH",
        stock_top="5H",
        opened=[True, True],
        turns_done=[2, 2],
        phase="play",
    )
    match_id = store_started_match(
        tmp_path / "a.db", GROUP, "Tavolo di prova", PEOPLE, "scala40", match.to_json(),
        Options().to_dict(),
    )  # fmt: skip
    async with running_bot(server, tmp_path / "a.db") as service:
        await settle(server, service)
        anna = Player(server, service, anna_user, match_id, "it")
        luca = Player(server, service, luca_user, match_id, "en")

        def moves() -> list[str]:
            return [move.action for move in service.store.moves(match_id)]

        def targets(player: Player) -> list[str]:
            return [label for label in keyboard_data(player.hand()) if label.startswith("📎")]

        await anna.select("8H")  # 8♥ fits the run 9♥–J♥ and the set of 8s
        assert (await anna.press("📎 Attacca"))["text"] is None
        assert anna.hand().text.splitlines()[-1] == "A quale gioco attacchi?"
        assert targets(anna) == ["📎 9♥–J♥", "📎 8♠ 8♦ 8♣"]
        await anna.press("📎 9♥–J♥")
        assert moves() == ["attach 2 8H"]
        await anna.select("7C")  # only the set of 7s: attached at once
        assert (await anna.press("📎 Attacca"))["text"] is None
        assert moves()[-1] == "attach 1 7C"
        await anna.select("2S")
        nowhere = await anna.press("📎 Attacca")
        assert nowhere == {
            **nowhere,
            "text": "Queste carte non si attaccano a nessun gioco in tavola.",
            "show_alert": True,
        }
        await anna.press("🗑 Scarta 2♠")

        assert (await luca.press("🂠 Draw"))["text"] == "You drew 5♥."
        assert "🆕5♥" in keyboard_data(luca.hand())
        await luca.select("QH")  # Q♥ fits the run 8♥–J♥ and the set of queens
        await luca.press("📎 Attach")
        assert luca.hand().text.splitlines()[-1] == "Attach to which meld?"
        assert targets(luca) == ["📎 8♥–J♥", "📎 Q♠ Q♦ Q♣"]
        await luca.press("📎 Q♠ Q♦ Q♣")
        assert moves()[-1] == "attach 4 QH"
        await luca.select("8H")  # the run starts at 8♥ now: only the set of 8s
        assert (await luca.press("📎 Attach"))["text"] is None
        assert moves()[-1] == "attach 3 8H"
        await luca.select("2S")
        assert (await luca.press("📎 Attach"))["text"] == "These cards fit no meld on the table."


NO_MELD = "2S 5S 9S KS 3H 6H 10H 4D 8D QD AC 7C JC"
"""13 cards with no set and no run: nothing to lay."""
HINTS = {
    "it": (
        "Non hai ancora nessun gioco da calare: per aprire servono 40 punti.",
        "Non puoi ancora aprire: con i tuoi giochi arrivi a 37 punti, ne servono 40.",
    ),
    "en": (
        "You have no meld to lay yet: opening takes 40 points.",
        "You cannot open yet: your melds make 37 points, you need 40.",
    ),
}


@pytest.mark.parametrize("langs", [("it", "en"), ("en", "it")])
async def test_the_hint_says_how_far_an_opening_is(
    fake_telegram: FakeTelegramServer, tmp_path: Path, langs: tuple[str, str]
) -> None:
    """💡 before opening: no meld at all, or the best opening short of 40 (not "at best 0")."""
    server = fake_telegram
    people = [(ANNA, "Anna", langs[0]), (LUCA, "Luca", langs[1])]
    anna_user, luca_user = seat_people(server, GROUP, "Tavolo di prova", people)
    match = position([RIGGED_HANDS[0], NO_MELD], discard="KD", stock_top="2H KH", to_play=1)
    match_id = store_started_match(
        tmp_path / "h.db", GROUP, "Tavolo", people, "scala40", match.to_json(),
        Options().to_dict(),
    )  # fmt: skip
    async with running_bot(server, tmp_path / "h.db") as service:
        await settle(server, service)
        anna = Player(server, service, anna_user, match_id, langs[0])
        luca = Player(server, service, luca_user, match_id, langs[1])
        words = {"it": ("🂠 Pesca", "💡 Aiuto", "Scarta"), "en": ("🂠 Draw", "💡 Hint", "Discard")}
        draw, hint, discard = words[langs[1]]
        await luca.press(draw)
        assert (await luca.press(hint))["text"] == HINTS[langs[1]][0]
        await luca.select("2H")
        await luca.press(f"🗑 {discard} 2♥")
        draw, hint, _ = words[langs[0]]
        await anna.press(draw)
        assert (await anna.press(hint))["text"] == HINTS[langs[0]][1]


async def test_staging_while_waiting(fake_telegram: FakeTelegramServer, tmp_path: Path) -> None:
    """Between turns a player may select the discard and stage melds; playing waits the turn."""
    server = fake_telegram
    anna_user, _ = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match_id = rigged_store(tmp_path / "w.db")
    async with running_bot(server, tmp_path / "w.db") as service:
        await settle(server, service)
        anna = Player(server, service, anna_user, match_id, "it")  # Luca is to play
        await anna.select("^", "4S", "4H")  # the discard, KD, with two 4s: not a meld
        refused = await anna.press("➕ Prepara")
        assert refused["text"] == "Queste carte non formano né una scala né una combinazione."
        await anna.press("✖")
        await anna.select("4S", "4H", "4D")
        assert (await anna.press("➕ Prepara"))["text"] is None
        assert "In preparazione: 4♠ 4♥ 4♦ → 12" in anna.hand().text
        hand = anna.hand()
        assert hand.text.splitlines()[4] == "⏳ Tocca a Luca."
        assert "🂠 Pesca" not in keyboard_data(hand)  # off turn, only what prepares
        assert "✅ Apri 12" not in keyboard_data(hand) and "💡 Aiuto" not in keyboard_data(hand)
        # A forged draw (the sort button's data with the draw's op) changes nothing.
        forged = button_data(hand, "↕ Seme").replace(":ss", ":dr")
        refused = await anna_user.press(ANNA, hand.message_id, forged, force=True).answered()
        assert refused["text"] == "Non è il tuo turno."
        assert service.store.moves(match_id) == []


async def test_a_refused_press_shows_the_hand_as_stored(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Another instance stored a tap (Luca selected 10♠ too) and died before it showed it:
    the hand shows one card selected, the store two. The refused discard shows the truth."""
    server = fake_telegram
    _, luca_user = seat_people(server, GROUP, "Tavolo di prova", PEOPLE)
    match_id = rigged_store(tmp_path / "t.db")
    async with running_bot(server, tmp_path / "t.db") as service:
        await settle(server, service)
        luca = Player(server, service, luca_user, match_id, "en")
        assert (await luca.press("🂠 Draw"))["text"] == "You drew A♣."
        await luca.select("2S")
        seat = service.store.get_match(match_id).seats[1]
        service.store.update_seat_ui(match_id, 1, seat.ui.version, selected=["2S#0", "10S#0"])
        assert "✓10♠" not in keyboard_data(luca.hand())  # the other instance never showed it
        refused = await luca.press("🗑 Discard 2♠")
        assert refused["text"] == "Select exactly one card."
        buttons = keyboard_data(luca.hand())
        assert "✓2♠" in buttons and "✓10♠" in buttons
