"""Players for the end-to-end tests that run the bot in processes of its own: each presses
what the hand of the seat to play shows, and counts the presses the bot answered as moves."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from storage import Store
from testkit.bot_harness import keyboard_data
from testkit.fake_telegram import FakeTelegramServer

MOVES = ("c", "dr", "ds", "p")
"""The hand buttons' operations that make a move."""


@dataclass
class Table:
    """One match's players: they press what their hand shows, and count what was answered."""

    server: FakeTelegramServer
    store: Store
    match_id: int
    rng: random.Random
    presses: int = 0
    acknowledged: list[int] = field(default_factory=list)  # log lengths a press was answered at
    move_presses: int = 0
    """Presses of a button that makes a move (draw, discard, lay, capture): the log can hold
    no more moves than these when nothing else moves in the match."""
    grew: list[int] = field(default_factory=list)
    """By how much the log grew over each answered press (a move applied twice: 2)."""

    async def step(self) -> None:
        record = self.store.get_match(self.match_id)
        if record.status != "playing":
            return
        seat = self.store.load_engine_match(record).to_play
        if seat is None:
            return
        user = record.seats[seat].user_id or 0
        hand = self.server.message(user, record.seats[seat].hand_message_id or 0)
        buttons = keyboard_data(hand) if hand is not None else {}
        data = self.choose(buttons)
        if hand is None or data is None:
            return
        before = len(self.store.moves(self.match_id))
        press = self.server.user(user).press(user, hand.message_id, data, force=True)
        self.presses += 1
        self.move_presses += data.split(":")[4] in MOVES
        try:
            answer = await press.answered(timeout=3)
        except AssertionError:
            return  # killed before it answered
        after = len(self.store.moves(self.match_id))
        self.grew.append(after - before)
        if answer["text"] is None and after == before + 1:
            self.acknowledged.append(after)

    def choose(self, buttons: dict[str, str]) -> str | None:
        """The button to press: a move if one is offered, else a card. Two cards selected (a
        tap pressed again before the hand showed the first) are one too many for a discard:
        one is let go first."""
        ops = {label: data.split(":")[4] for label, data in buttons.items()}
        selected = [buttons[label] for label, op in ops.items() if op == "t" and "✓" in label]
        if len(selected) > 1:
            return selected[-1]
        for wanted in ("c", "dr", "ds", "p"):
            found = [buttons[label] for label, op in ops.items() if op == wanted]
            if found:
                return found[0]
        cards = [
            buttons[label]
            for label, op in ops.items()
            if op == "t" and "✓" not in label and not label.startswith("⤴")
        ]
        return (selected or [self.rng.choice(cards)] if cards or selected else [None])[0]

    async def play(self, until: float) -> None:
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            await self.step()
            await asyncio.sleep(self.rng.uniform(0, 0.05))
