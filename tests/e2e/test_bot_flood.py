"""End to end under Telegram's flood limits (the fake enforces them, at the harness's speed).

A flooded group never slows another chat; a 429 pauses only its own chat; a whole Scopone hand
at a person's pace meets no 429; a burst of taps on a hand whose edits are paced all counts.
Every test also ends with the harness's checks: no request refused by the flood limits, no
press answered late.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from engine import scala40, scopone
from testkit.bot_harness import (
    RIGGED_HANDS,
    SPEED,
    button_data,
    hand_of,
    keyboard_data,
    running_bot,
    seat_people,
    settle,
    store_started_match,
)
from testkit.fake_telegram import FakeMessage, FakeTelegramServer, Press
from testkit.s40_helpers import position

GROUP_A, GROUP_B = -100810, -100820
PEOPLE_A = [(2001, "Gino", "it"), (2002, "Pia", "it")]
ANNA, LUCA = 1001, 1002
PEOPLE_B = [(ANNA, "Anna", "it"), (LUCA, "Luca", "en")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def two_groups(server: FakeTelegramServer, database: Path) -> tuple[int, int]:
    """Group A (Gino and Pia) and group B (Anna and Luca, Luca to draw) each play Scala 40."""
    seat_people(server, GROUP_A, "Bar", PEOPLE_A)
    seat_people(server, GROUP_B, "Circolo", PEOPLE_B)
    options = scala40.Options().to_dict()
    match_a = scala40.new_match(players=2, seed=5).to_json()
    match_b = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD 2H 3H", to_play=1)
    return (
        store_started_match(database, GROUP_A, "Bar", PEOPLE_A, "scala40", match_a, options),
        store_started_match(
            database, GROUP_B, "Circolo", PEOPLE_B, "scala40", match_b.to_json(), options
        ),
    )


def choices(hand: FakeMessage) -> list[str]:
    """The capture choices a Scopone hand offers."""
    return [data for data in keyboard_data(hand).values() if ":c:" in data]


async def shows(server: FakeTelegramServer, message: FakeMessage, label: str) -> None:
    """Wait until the message's keyboard has a button labelled ``label``."""
    await server.wait_for(lambda: label in keyboard_data(message), message=f"no {label!r}")


async def test_a_flooded_group_never_slows_another_chat(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """66 commands typed at once in group A cost that group 3 messages, and a pointer up at a
    reply now and then; meanwhile Luca's
    presses in group B are each answered as a move (none late: the harness checks) and his
    moves reach B's table. How fast, with a group flooding all along: ``python -m bench bot
    --spam``."""
    server = fake_telegram
    a_id, b_id = two_groups(server, tmp_path / "f.db")
    async with running_bot(server, tmp_path / "f.db") as service:
        await settle(server, service)
        old = {m.message_id for m in server.messages(GROUP_A, from_bot=True)}
        old_table = service.store.get_match(a_id).table_message_id
        gino, luca = server.user(2001), server.user(LUCA)
        for _ in range(22):
            for command in ("/tavolo", "/punti", "/regole"):
                gino.send(GROUP_A, command)
        hand = hand_of(server, service, b_id, LUCA)
        presses: list[Press] = [luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Draw"))]
        await presses[-1].answered()
        await shows(server, hand, "2♠")
        presses.append(luca.press(LUCA, hand.message_id, button_data(hand, "2♠")))
        await presses[-1].answered()
        await shows(server, hand, "🗑 Discard 2♠")
        presses.append(luca.press(LUCA, hand.message_id, button_data(hand, "🗑 Discard 2♠")))
        await presses[-1].answered()

        answers = [p.answer["text"] for p in presses if p.answer]
        assert answers == ["You drew A♣.", None, None]
        await settle(server, service)
        assert [m.action for m in service.store.moves(b_id)] == ["draw", "discard 2S"]
        table = server.message(GROUP_B, service.store.get_match(b_id).table_message_id or 0)
        assert table is not None and "· Luca scarta 2♠" in table.text
        # Group A: one score, one rules, the table posted again once (the old copy deleted);
        # a command that came after its reply went out gets a pointer up at it (one every
        # ``Pace.point_gap`` seconds at most); the rest absorbed. Which goes first, and how many
        # pointers, depends on when each command's match is read.
        new = [m for m in server.messages(GROUP_A, from_bot=True) if m.message_id not in old]
        pointers = [m for m in new if m.text == "⬆️ Vedi sopra."]
        assert sorted(m.text.split("\n")[0] for m in new if m not in pointers) == [
            "Opzioni della partita",
            "Punteggio",
            "🃏 Scala 40 · mano 1 · si esce a 101",
        ]
        pointed = [m.reply_to.text.split("\n")[0] for m in pointers if m.reply_to is not None]
        assert len(pointed) == len(pointers)
        assert set(pointed) <= {"Punteggio", "Opzioni della partita"}
        tables = [m.message_id for m in new if m.text.startswith("🃏")]
        assert service.store.get_match(a_id).table_message_id == tables[0]
        assert server.message(GROUP_A, old_table or 0).deleted  # type: ignore[union-attr]


async def test_a_429_pauses_only_its_own_chat(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Telegram refuses group A's table edit with retry after 3: group B's table is edited
    meanwhile, and A's edit is made again once the wait is over."""
    server = fake_telegram
    a_id, b_id = two_groups(server, tmp_path / "f.db")
    async with running_bot(server, tmp_path / "f.db") as service:
        await settle(server, service)
        server.fail_next("editMessageText", 429, retry_after=3, chat_id=GROUP_A)
        pia_hand = hand_of(server, service, a_id, 2002)
        pia = server.user(2002)
        answer = await pia.press(2002, pia_hand.message_id, button_data(pia_hand, "🂠 Pesca"))
        assert answer["text"] == "Hai pescato 10♥."
        refused = await server.wait_for_call("editMessageText", lambda c: c.status == 429)
        assert refused.params["chat_id"] == GROUP_A
        hand = hand_of(server, service, b_id, LUCA)
        answer = await server.user(LUCA).press(LUCA, hand.message_id, button_data(hand, "🂠 Draw"))
        assert answer["text"] == "You drew A♣."
        table_b = server.message(GROUP_B, service.store.get_match(b_id).table_message_id or 0)
        table_a = server.message(GROUP_A, service.store.get_match(a_id).table_message_id or 0)
        assert table_a is not None and table_b is not None
        await server.wait_for(lambda: "👉 Luca · 14 carte · 0 pt" in table_b.text)  # he drew
        assert "👉 Pia · 14 carte · 0 pt" not in table_a.text
        await settle(server, service)
        assert "👉 Pia · 14 carte · 0 pt" in table_a.text
        retried = server.calls_of("editMessageText", ok=True)[-1]
        assert retried.params["chat_id"] == GROUP_A
        assert retried.started - refused.started >= 3


async def test_a_scopone_hand_at_a_persons_pace_meets_no_429(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Four players play a whole Scopone hand, each tapping 1 to 2 s (at the harness's speed)
    after the previous move: 40 moves, every press answered, the group within its budget."""
    server = fake_telegram
    people = [
        (3001, "Anna", "it"),
        (3002, "Bruno", "it"),
        (3003, "Carla", "it"),
        (3004, "Dario", "en"),
    ]
    users = seat_people(server, GROUP_A, "Bar", people)
    match = scopone.new_match(seed=11)
    match_id = store_started_match(
        tmp_path / "s.db",
        GROUP_A,
        "Bar",
        people,
        "scopone",
        match.to_json(),
        scopone.Options().to_dict(),
    )
    rng = random.Random(3)
    async with running_bot(server, tmp_path / "s.db") as service:
        await settle(server, service)
        mark = server.mark()
        answers = []
        while (match := service.engine(service.store.get_match(match_id))).hand_number == 1:
            moves = len(service.store.moves(match_id))
            await asyncio.sleep(rng.uniform(1.0, 2.0) / SPEED)  # a person's pace
            seat = match.to_play
            assert seat is not None
            user = users[seat]
            hand = hand_of(server, service, match_id, user.id)
            # The store may pass the turn before the hand's edit shows the player's cards.
            await server.wait_for(lambda h=hand: plays(h), message="no card to play shown")
            answers.append(await user.press(user.id, hand.message_id, plays(hand)[0]))
            if len(service.store.moves(match_id)) == moves:  # several captures: choose one
                await server.wait_for(lambda h=hand: choices(h))
                answers.append(await user.press(user.id, hand.message_id, choices(hand)[0]))
        await settle(server, service)
        assert all(a["text"] is None for a in answers)
        assert service.engine(service.store.get_match(match_id)).hand_number == 2
        group = [c for c in server.calls[mark:] if c.params.get("chat_id") == GROUP_A]
        assert group and all(c.ok for c in group)
        summary = [
            m for m in server.messages(GROUP_A, from_bot=True) if m.text.startswith("🏁 Mano 1")
        ]
        assert len(summary) == 1


async def test_quick_taps_on_a_paced_hand_all_count(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    """Anna taps four cards and ➕ on a keyboard that her earlier taps already made old: every
    press counts (the context is the same), the meld is staged. Presses that no longer apply
    are refused: a second draw from the keyboard before the draw, a discard naming a card that
    is no longer the one selected."""
    server = fake_telegram
    _, b_id = two_groups(server, tmp_path / "f.db")
    anna, luca = server.user(ANNA), server.user(LUCA)
    async with running_bot(server, tmp_path / "f.db") as service:
        await settle(server, service)
        hand = hand_of(server, service, b_id, ANNA)
        assert (await anna.press(ANNA, hand.message_id, button_data(hand, "3♣")))["text"] is None
        await shows(server, hand, "➕ Prepara")
        seen = keyboard_data(hand)  # what Anna sees now; her next taps make it old
        # Her phone has not shown the edits yet: she presses what she saw (force=True).
        taps = [
            anna.press(ANNA, hand.message_id, seen[card], force=True)
            for card in ("4♣", "5♣", "6♣", "7♣", "➕ Prepara")
        ]
        assert [(await tap)["text"] for tap in taps] == [None] * 5
        await settle(server, service)
        ui = service.store.get_match(b_id).seats[0].ui
        assert ui.staged == (("3C", "4C", "5C", "6C", "7C"),) and ui.selected == ()
        # Off turn the opening is staged but cannot be played: no "✅ Apri", only "↩️ Riprendi".
        assert "↩️ Riprendi 3♣–7♣" in keyboard_data(hand) and "🔒 Apri 25/40" not in keyboard_data(
            hand
        )
        assert "In preparazione: 3♣ 4♣ 5♣ 6♣ 7♣ → 25" in hand.text.splitlines()

        luca_hand = hand_of(server, service, b_id, LUCA)
        draw = button_data(luca_hand, "🂠 Draw")
        assert (await luca.press(LUCA, luca_hand.message_id, draw))["text"] == "You drew A♣."
        again = await luca.press(LUCA, luca_hand.message_id, draw, force=True)
        assert again["text"] == "This button is no longer valid."
        assert [m.action for m in service.store.moves(b_id)] == ["draw"]

        # Luca selects 2♠, then changes his mind for 3♠ before his keyboard catches up: the
        # old "Discard 2♠" no longer says what it would do, and is refused.
        await shows(server, luca_hand, "2♠")
        await luca.press(LUCA, luca_hand.message_id, button_data(luca_hand, "2♠"))
        await shows(server, luca_hand, "🗑 Discard 2♠")
        seen = keyboard_data(luca_hand)
        # His phone still shows that keyboard whatever the bot edits meanwhile (force=True).
        for card in ("✓2♠", "3♠"):
            tap = luca.press(LUCA, luca_hand.message_id, seen[card], force=True)
            assert (await tap)["text"] is None
        stale = await luca.press(LUCA, luca_hand.message_id, seen["🗑 Discard 2♠"], force=True)
        assert stale["text"] == "This button is no longer valid."
        await shows(server, luca_hand, "🗑 Discard 3♠")
        discard = button_data(luca_hand, "🗑 Discard 3♠")
        assert (await luca.press(LUCA, luca_hand.message_id, discard))["text"] is None
        assert [m.action for m in service.store.moves(b_id)] == ["draw", "discard 3S"]


def plays(hand: FakeMessage) -> list[str]:
    """The callback data of the Scopone hand's buttons that play a card."""
    return [data for data in keyboard_data(hand).values() if ":p:" in data]
