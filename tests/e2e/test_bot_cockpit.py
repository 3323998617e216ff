"""End to end: the private hand is the player's cockpit. It says whose turn it is and shows the
piles, the melds and who opened (Scala 40), or the table and the scores (Scopone); it offers
only the buttons that can act now; a bell goes when its turn passes; a finished match leaves
its hands without buttons."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import Tavolo
from engine import scopone
from engine.scala40 import Options
from testkit.bot_harness import (
    RIGGED_HANDS,
    button_data,
    hand_of,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeTelegramServer
from testkit.s40_helpers import position

GROUP = -100890
ANNA, LUCA = 1891, 1892  # Anna reads Italian, Luca English
BEA, DINO = 1893, 1894
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]


async def press(
    server: FakeTelegramServer, service: Tavolo, match_id: int, user: int, label: str
) -> dict[str, object]:
    hand = hand_of(server, service, match_id, user)
    answer = await server.user(user).press(user, hand.message_id, button_data(hand, label))
    await settle(server, service)
    return answer


async def test_the_scala40_hand_says_whose_turn_and_shows_the_table(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE, admins=(ANNA,))
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    match_id = store_started_match(
        tmp_path / "c.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(),
        Options().to_dict(),
    )  # fmt: skip
    async with running_bot(server, tmp_path / "c.db") as service:
        await settle(server, service)
        anna, luca = (
            hand_of(server, service, match_id, ANNA),
            hand_of(server, service, match_id, LUCA),
        )
        assert anna.text.splitlines()[1:] == [
            "Mano 1 · si esce a 101",
            "Punti: tu 0 · Luca 0",
            "Carte in mano: Luca 13",
            "⏳ Tocca a Luca.",
            "Pozzo: K♦ · Tallone: 81",
        ]
        assert luca.text.splitlines()[1:] == [
            "Hand 1 · out at 101 · ⏳ up to 2 min",  # the time left, to the player to play
            "Points: you 0 · Anna 0",
            "Cards in hand: Anna 13",
            "👉 Your turn: draw or take the discard.",
            "Discard: K♦ · Stock: 81",
        ]
        assert "🂠 Draw" in keyboard_data(luca) and "⤴ Take K♦" in keyboard_data(luca)
        assert "🂠 Pesca" not in keyboard_data(anna) and "💡 Aiuto" not in keyboard_data(anna)
        assert "⤴ Prendi K♦" in keyboard_data(anna)  # selecting the discard prepares a turn
        bell = service.store.get_match(match_id).seats[1].turn_message_id
        assert bell is not None and not server.message(LUCA, bell).deleted  # type: ignore[union-attr]

        # Luca draws and opens with JK 6H 7H and 10S-KS, then discards 2S.
        drawn = await press(server, service, match_id, LUCA, "🂠 Draw")
        assert drawn["text"] == "You drew A♣."
        assert "🆕A♣" in keyboard_data(hand_of(server, service, match_id, LUCA))
        for cards in (("🃏", "6♥", "7♥"), ("10♠", "J♠", "Q♠", "K♠")):
            for card in cards:
                await press(server, service, match_id, LUCA, card)
            await press(server, service, match_id, LUCA, "➕ Stage")
            if len(cards) == 3:  # 18 points are not enough to open: the button says so
                keys = keyboard_data(hand_of(server, service, match_id, LUCA))
                assert "🔒 Open 18/40" in keys and "↩️ Take back 🃏 6♥ 7♥" in keys
                refused = await press(server, service, match_id, LUCA, "🔒 Open 18/40")
                assert refused["text"] == "Opening too low: 18 points, 40 needed."
        # Taking back the last meld staged leaves the first.
        await press(server, service, match_id, LUCA, "↩️ Take back 10♠–K♠")
        keys = keyboard_data(hand_of(server, service, match_id, LUCA))
        assert "🔒 Open 18/40" in keys and "↩️ Take back 🃏 6♥ 7♥" in keys
        for card in ("10♠", "J♠", "Q♠", "K♠", "➕ Stage"):
            await press(server, service, match_id, LUCA, card)
        await press(server, service, match_id, LUCA, "✅ Open 58")
        await press(server, service, match_id, LUCA, "2♠")
        await press(server, service, match_id, LUCA, "🗑 Discard 2♠")

        anna = hand_of(server, service, match_id, ANNA)
        assert anna.text.splitlines()[1:] == [
            "Mano 1 · si esce a 101 · ⏳ max 2 min",
            "Punti: tu 0 · Luca 0",
            "Carte in mano: Luca 6 ✅",  # he opened
            "👉 Tocca a te: pesca o prendi lo scarto.",
            "Pozzo: 2♠ · Tallone: 80",
            "Giochi: 1) 🃏 6♥ 7♥ · 2) 10♠–K♠",
            "Dal tuo ultimo turno:",
            "· Luca pesca",
            "· Luca apre con 58",
            "· Luca scarta 2♠",
        ]
        # Anna draws: the answer names the card, and Luca's moves stay while she plays.
        drawn = await press(server, service, match_id, ANNA, "🂠 Pesca")
        assert drawn["text"] == "Hai pescato A♦."
        anna = hand_of(server, service, match_id, ANNA)
        assert "🆕A♦" in keyboard_data(anna)
        assert anna.text.splitlines()[-4:] == [
            "Dal tuo ultimo turno:",
            "· Luca pesca",
            "· Luca apre con 58",
            "· Luca scarta 2♠",
        ]
        luca = hand_of(server, service, match_id, LUCA)
        assert luca.text.splitlines()[1:] == [
            "Hand 1 · out at 101",
            "Points: you 0 · Anna 0",
            "Cards in hand: Anna 13",
            "⏳ Anna to play.",
            "Discard: 2♠ · Stock: 80",
            "Melds: 1) 🃏 6♥ 7♥ · 2) 10♠–K♠",
        ]
        assert "🂠 Draw" not in keyboard_data(luca)
        assert server.message(LUCA, bell).deleted  # type: ignore[union-attr]  # his turn passed

        # Anna stops the match: the hands say so, without buttons; no bell is left.
        server.user(ANNA).send(GROUP, "/stop")
        await settle(server, service)
        question = server.last_message(GROUP, from_bot=True)
        assert question is not None
        await server.user(ANNA).press_button(GROUP, question.message_id, "✅ Sì").answered()
        await settle(server, service)
        record = service.store.get_match(match_id)
        stopped = (
            (ANNA, "⏹ Partita interrotta: non conta per la classifica."),
            (LUCA, "⏹ Match stopped: it does not count for the rankings."),
        )
        for user, over in stopped:
            hand = hand_of(server, service, match_id, user)
            assert hand.text.splitlines()[1] == over and not hand.inline_keyboard
        bells = [s.turn_message_id for s in record.seats if s.turn_message_id is not None]
        assert bells == []
        sent = server.messages(ANNA, from_bot=True, include_deleted=True)
        rung = [m for m in sent if m.text.startswith("🔔")]
        assert rung and all(m.deleted for m in rung)


async def test_the_scopone_hand_shows_the_table_the_scores_and_the_plays_since(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en"), (BEA, "Bea", "it"), (DINO, "Dino", "it")]
    seat_people(server, GROUP, "Circolo", people, admins=(ANNA,))
    match = scopone.new_match(seed=3)  # Luca plays first; the settebello is on the table
    match_id = store_started_match(
        tmp_path / "s.db", GROUP, "Circolo", people, "scopone", match.to_json(),
        scopone.Options().to_dict(),
    )  # fmt: skip
    async with running_bot(server, tmp_path / "s.db") as service:
        await settle(server, service)
        anna = hand_of(server, service, match_id, ANNA)
        assert anna.text.splitlines()[1:] == [
            "Mano 1 · si vince a 11",
            "Punti: tu + Bea 0 · Luca + Dino 0",
            "Carte in mano: Luca 9 · Bea 9 · Dino 9",
            "Scope 0–0 · denari 0–0 · sette 0–0",
            "⏳ Tocca a Luca.",
            "In tavola: 7♦ 4♥ A♦ J♠",
            "♦ denari · ♥ coppe · ♣ bastoni · ♠ spade",
            "Le tue carte: 3♦ 4♠ 5♠ 5♦ 5♣ 6♦ 6♣ 7♥ K♣",
        ]
        assert not anna.inline_keyboard  # nothing to press off turn
        luca = hand_of(server, service, match_id, LUCA)
        assert luca.text.splitlines()[1:] == [
            "Hand 1 · first to 11 · ⏳ up to 2 min",
            "Points: you + Dino 0 · Anna + Bea 0",
            "Cards in hand: Anna 9 · Bea 9 · Dino 9",
            "Scopas 0–0 · coins 0–0 · sevens 0–0",
            "👉 Your turn: tap a card to play it.",
            "On the table: 7♦ 4♥ A♦ J♠",
            "♦ coins · ♥ cups · ♣ batons · ♠ swords",
        ]
        assert len(keyboard_data(luca)) == 9

        # One tap plays (the default): Luca's Q♥ takes A♦ J♠, Anna's 7♥ the settebello.
        assert (await press(server, service, match_id, LUCA, "Q♥"))["text"] is None
        assert (await press(server, service, match_id, ANNA, "7♥"))["text"] is None
        bea = hand_of(server, service, match_id, BEA)
        assert bea.text.splitlines()[1:] == [
            "Mano 1 · si vince a 11",
            "Punti: tu + Anna 0 · Luca + Dino 0",
            "Carte in mano: Anna 8 · Luca 8 · Dino 9",
            "Scope 0–0 · denari 1–1 · sette 2–0",
            "⏳ Tocca a Dino.",
            "In tavola: 4♥",
            "♦ denari · ♥ coppe · ♣ bastoni · ♠ spade",
            "Dal tuo ultimo turno:",
            "· Luca prende A♦ J♠ con Q♥",
            "· Anna prende 7♦ con 7♥ — settebello!",
            "Le tue carte: A♣ 2♦ 5♥ 6♥ 7♠ 7♣ J♥ J♦ J♣",
        ]
        luca = hand_of(server, service, match_id, LUCA)
        assert luca.text.splitlines()[4:] == [
            "Scopas 0–0 · coins 1–1 · sevens 0–2",
            "⏳ Dino to play.",
            "On the table: 4♥",
            "♦ coins · ♥ cups · ♣ batons · ♠ swords",
            "Since your last turn:",
            "· Anna takes 7♦ with 7♥ — settebello!",
            "Your cards: A♠ A♥ 2♠ 2♣ 3♣ 4♣ Q♦ K♦",
        ]


async def test_a_scopone_card_is_played_in_two_taps_with_confirm_play(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """SC-3.7: with ``confirm_play`` a tap chooses the card, a second confirms it; cancel
    takes it back; the settebello is named."""
    server = fake_telegram
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en"), (BEA, "Bea", "it"), (DINO, "Dino", "it")]
    seat_people(server, GROUP, "Circolo", people, admins=(ANNA,))
    match = scopone.new_match(seed=3, options=scopone.Options(confirm_play=True))
    match_id = store_started_match(
        tmp_path / "s.db", GROUP, "Circolo", people, "scopone", match.to_json(),
        scopone.Options(confirm_play=True).to_dict(),
    )  # fmt: skip
    async with running_bot(server, tmp_path / "s.db") as service:
        await settle(server, service)
        assert (await press(server, service, match_id, LUCA, "Q♥"))["text"] is None
        luca = hand_of(server, service, match_id, LUCA)
        assert luca.text.splitlines()[-1] == "Play Q♥? Confirm or cancel."
        assert list(keyboard_data(luca)) == ["✅ Q♥ → A♦ J♠", "✖️ Cancel"]
        assert service.store.moves(match_id) == []  # chosen, not played
        assert (await press(server, service, match_id, LUCA, "✅ Q♥ → A♦ J♠"))["text"] is None
        assert len(service.store.moves(match_id)) == 1

        assert (await press(server, service, match_id, ANNA, "7♥"))["text"] is None
        anna = hand_of(server, service, match_id, ANNA)
        assert anna.text.splitlines()[-1] == "Giochi 7♥? Conferma o annulla."
        assert list(keyboard_data(anna)) == ["✅ 7♥ → 7♦ (settebello)", "✖️ Annulla"]
        await press(server, service, match_id, ANNA, "✖️ Annulla")  # changed her mind
        assert len(keyboard_data(hand_of(server, service, match_id, ANNA))) == 9
        await press(server, service, match_id, ANNA, "5♠")
        assert list(keyboard_data(hand_of(server, service, match_id, ANNA))) == [
            "✅ Gioca 5♠",
            "✖️ Annulla",
        ]
        await press(server, service, match_id, ANNA, "✅ Gioca 5♠")
        assert [move.action for move in service.store.moves(match_id)][-1] == "play 5S"


STAGE = {ANNA: "➕ Prepara", LUCA: "➕ Stage"}
CLOSE_IN_HAND = {
    ANNA: ("🔒 Apri 30/40", "✅ Apri 30", "🗑 Scarta 9♠", "Anna"),
    LUCA: ("🔒 Open 30/40", "✅ Open 30", "🗑 Discard 9♠", "Luca"),
}


@pytest.mark.parametrize("user", [ANNA, LUCA], ids=["it", "en"])
@pytest.mark.parametrize("without_40", [False, True], ids=["threshold", "close_in_hand"])
async def test_the_open_button_knows_an_opening_that_closes_in_hand(
    fake_telegram: FakeTelegramServer, tmp_path: Path, user: int, without_40: bool
) -> None:
    """With the option of closing in hand without 40 (S40-5.6), two staged melds worth 30 that
    leave one card to discard offer the opening as possible, and it closes the hand; without
    the option the button says 30 of 40."""
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    seat = [ANNA, LUCA].index(user)
    hands = ["2C 3C 4C 6H 7H 8H 9S", "AD 5D 9D JD 2S 4S 6S"]
    if seat:
        hands.reverse()
    match = position(
        hands,
        options=Options(close_in_hand_without_40=without_40),
        discard="KD",
        turns_done=[3, 3],
        to_play=seat,
        phase="play",
    )
    options = Options(close_in_hand_without_40=without_40).to_dict()
    match_id = store_started_match(
        tmp_path / "o.db", GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), options
    )
    locked, ready, discard, name = CLOSE_IN_HAND[user]
    async with running_bot(server, tmp_path / "o.db") as service:
        await settle(server, service)
        for label in ("2♣", "3♣", "4♣", STAGE[user], "6♥", "7♥", "8♥", STAGE[user]):
            await press(server, service, match_id, user, label)
        keys = keyboard_data(hand_of(server, service, match_id, user))
        if not without_40:
            assert locked in keys and ready not in keys
            return
        assert ready in keys and locked not in keys
        assert (await press(server, service, match_id, user, ready))["text"] is None
        await press(server, service, match_id, user, "9♠")
        await press(server, service, match_id, user, discard)
        summary = [m.text for m in server.messages(GROUP, from_bot=True) if m.text[0] == "🏁"]
        assert [text.splitlines()[:2] for text in summary] == [  # the group reads Italian
            [f"🏁 Mano 1: {name} chiude in mano", "con 9♠! Punti doppi."]
        ]
