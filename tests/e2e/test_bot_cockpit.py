"""End to end: the private hand is the player's cockpit. It says whose turn it is and shows the
piles, the melds and who opened (Scala 40), or the table and the scores (Scopone); it offers
only the buttons that can act now; a bell goes when its turn passes; a finished match leaves
its hands without buttons."""

from __future__ import annotations

from pathlib import Path

from bot_harness import (
    RIGGED_HANDS,
    button_data,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from fake_telegram import FakeMessage, FakeTelegramServer
from s40_helpers import position

from bot.service import Tavolo
from engine import scopone
from engine.scala40 import Options

GROUP = -100890
ANNA, LUCA = 1891, 1892  # Anna reads Italian, Luca English
BEA, DINO = 1893, 1894
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]


def hand_of(server: FakeTelegramServer, service: Tavolo, match_id: int, user: int) -> FakeMessage:
    record = service.store.get_match(match_id)
    seat = record.seat_of(user)
    assert seat is not None
    message = server.message(user, record.seats[seat].hand_message_id or 0)
    assert message is not None
    return message


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
        assert anna.text.splitlines()[1:3] == ["⏳ Tocca a Luca.", "Pozzo: K♦ · Tallone: 81"]
        assert luca.text.splitlines()[1:3] == [
            "👉 Your turn: 🂠 draw, or select the discard ⤴ with the cards that use it.",
            "Discard: K♦ · Stock: 81",
        ]
        assert "🂠 Draw" in keyboard_data(luca) and "⤴ Discard K♦" in keyboard_data(luca)
        assert "🂠 Pesca" not in keyboard_data(anna) and "💡 Aiuto" not in keyboard_data(anna)
        assert "⤴ Scarto K♦" in keyboard_data(anna)  # selecting the discard prepares a turn
        bell = service.store.get_match(match_id).seats[1].turn_message_id
        assert bell is not None and not server.message(LUCA, bell).deleted  # type: ignore[union-attr]

        # Luca draws and opens with JK 6H 7H and 10S-KS, then discards 2S.
        await press(server, service, match_id, LUCA, "🂠 Draw")
        for cards in (("🃏", "6♥", "7♥"), ("10♠", "J♠", "Q♠", "K♠")):
            for card in cards:
                await press(server, service, match_id, LUCA, card)
            await press(server, service, match_id, LUCA, "➕ Stage")
        await press(server, service, match_id, LUCA, "✅ Open 58")
        await press(server, service, match_id, LUCA, "2♠")
        await press(server, service, match_id, LUCA, "🗑 Discard 2♠")

        anna = hand_of(server, service, match_id, ANNA)
        assert anna.text.splitlines()[1:5] == [
            "👉 Tocca a te: 🂠 pesca, o seleziona lo scarto ⤴ con le carte che lo usano.",
            "Pozzo: 2♠ · Tallone: 80",
            "Giochi: 1) 🃏(5♥) 6♥ 7♥ · 2) 10♠ J♠ Q♠ K♠",
            "Ha aperto: Luca",
        ]
        luca = hand_of(server, service, match_id, LUCA)
        assert luca.text.splitlines()[1] == "⏳ Anna to play."
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


async def test_the_scopone_hand_shows_the_table_and_the_scores(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    people = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en"), (BEA, "Bea", "it"), (DINO, "Dino", "it")]
    seat_people(server, GROUP, "Circolo", people, admins=(ANNA,))
    match = scopone.new_match(seed=3)
    match_id = store_started_match(
        tmp_path / "s.db", GROUP, "Circolo", people, "scopone", match.to_json(),
        scopone.Options().to_dict(),
    )  # fmt: skip
    first = match.to_play
    assert first is not None
    users = [p[0] for p in people]
    table = " ".join(c.pretty() for c in match.view(0).table)
    async with running_bot(server, tmp_path / "s.db") as service:
        await settle(server, service)
        waiting = next(u for u in users if u != users[first] and u != LUCA)
        hand = hand_of(server, service, match_id, waiting)
        name = people[first][1]
        turn = f"⏳ Tocca ad {name}." if name.startswith("A") else f"⏳ Tocca a {name}."
        cards = " ".join(c.pretty() for c in match.view(users.index(waiting)).hand)
        assert hand.text.splitlines()[1:5] == [
            turn,
            f"In tavola: {table}",
            "Punti: Anna + Bea 0 · Luca + Dino 0 (si vince a 11)",
            f"Le tue carte: {cards}",
        ]
        assert not hand.inline_keyboard  # nothing to press off turn
        playing = hand_of(server, service, match_id, users[first])
        assert len(keyboard_data(playing)) == len(match.view(first).hand)
        assert playing.text.splitlines()[1] in (
            "👉 Tocca a te: tocca una carta per giocarla.",
            "👉 Your turn: tap a card to play it.",
        )
