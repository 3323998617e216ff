"""End to end: the bot's process frozen (SIGSTOP) for longer than a press's answer window,
then woken (SIGCONT), as a paused container or a stalled instance is.

A press made meanwhile can no longer be answered (Telegram refuses the answer 15 s after the
press) and another instance may have played it long ago: it is dropped, with no call and no
move. A command typed meanwhile has a date that says it is young enough: it is answered late.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest

from engine.scala40 import Options
from storage import Store
from testkit.bot_harness import RIGGED_HANDS, button_data, seat_people, store_started_match
from testkit.fake_telegram import QUERY_TIMEOUT, FakeMessage, FakeTelegramServer
from testkit.processes import start_bot
from testkit.s40_helpers import position

GROUP = -100960
ANNA, LUCA = 1001, 1002
PEOPLE = [(ANNA, "Anna", "it"), (LUCA, "Luca", "it")]


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


def reply_to(server: FakeTelegramServer, chat_id: int, message: FakeMessage) -> FakeMessage | None:
    """The bot's reply to ``message``, once there is one."""
    for said in server.messages(chat_id, from_bot=True):
        if said.reply_to is not None and said.reply_to.message_id == message.message_id:
            return said
    return None


@pytest.mark.slow
async def test_a_frozen_bot_drops_the_presses_it_wakes_up_to(
    fake_telegram: FakeTelegramServer, tmp_path: Path
) -> None:
    server = fake_telegram
    seat_people(server, GROUP, "Circolo", PEOPLE)
    match = position(list(RIGGED_HANDS), discard="KD", stock_top="AC AD", to_play=1)
    database = tmp_path / "f.db"
    match_id = store_started_match(
        database, GROUP, "Circolo", PEOPLE, "scala40", match.to_json(), Options().to_dict()
    )
    anna, luca = server.user(ANNA), server.user(LUCA)
    with (tmp_path / "bot.log").open("wb") as log:
        process = await start_bot(server, database, log)
        try:
            hand = await server.wait_for(
                lambda: next(m for m in server.messages(LUCA, from_bot=True) if m.inline_keyboard),
                timeout=30,
            )
            await server.wait_for(server.is_idle, timeout=30)
            process.send_signal(signal.SIGSTOP)
            frozen_at = time.monotonic()
            pressed = luca.press(LUCA, hand.message_id, button_data(hand, "🂠 Pesca"))
            typed = anna.send(GROUP, "/punti")
            # The freeze is the scenario: it outlasts the press's answer window.
            await asyncio.sleep(frozen_at + QUERY_TIMEOUT + 1 - time.monotonic())
            process.send_signal(signal.SIGCONT)
            answered = await server.wait_for(lambda: reply_to(server, GROUP, typed), timeout=30)
            # Luca's chat takes its updates in order: once his /aiuto is answered, the bot
            # has been through the press before it.
            said = len(server.messages(LUCA, from_bot=True))
            luca.send(LUCA, "/aiuto")
            await server.wait_for(
                lambda: len(server.messages(LUCA, from_bot=True)) > said, timeout=30
            )
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    assert answered.text == "Punteggio\nAnna: 0\nLuca: 0"
    assert pressed.answer is None
    assert server.calls_of("answerCallbackQuery") == []
    store = Store.open(f"sqlite:///{database}")
    try:
        assert store.moves(match_id) == []  # the press was not played
    finally:
        store.close()
