"""What a game's UI offers the bot (:class:`GameUI`), and what a press on a hand carries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from bot.answer import Answer
from bot.games.page import Page
from bot.hand.state import HandUI, Op
from bot.render import Rendered
from engine.games import GameMatch
from storage import MatchRecord


@dataclass(frozen=True, slots=True)
class HandPress:
    """One press on a player's hand, as a game's UI handles it: the match, the seat, its UI
    state, the press, and what the UI may do (change the UI state, make a move)."""

    record: MatchRecord
    match: GameMatch
    seat: int
    ui: HandUI
    op: Op
    arg: str
    lang: str
    set_ui: Callable[[HandUI], Awaitable[None]]
    """Store a new UI state and show it (gathered with the taps that follow)."""
    move: Callable[[str, HandUI], Awaitable[Answer]]
    """Play an action for the seat, with the UI state it leaves."""


class GameUI(Protocol):
    """What the bot needs to know about one game's messages and presses."""

    def table(
        self, match: GameMatch, names: list[str], lang: str, left: timedelta | None, seal: str
    ) -> str:
        """The group's table message (HTML), within a phone's screen (:mod:`bot.render.table`):
        ``left`` is the time left of the turn (None: no timer), ``seal`` the line of the deck's
        commitment, shown before the first move and at the end."""

    def hand(
        self,
        match_id: int,
        seat: int,
        match: GameMatch,
        ui: HandUI,
        names: list[str],
        group: str,
        lang: str,
        left: timedelta | None = None,
    ) -> Rendered:
        """The seat's private hand message: text and keyboard (``left``: the time left of the
        turn, shown to the player whose turn it is)."""

    def page(self, match: GameMatch, seat: int, ui: HandUI, names: list[str], lang: str) -> Page:
        """The seat's table as the Mini App draws it (:mod:`bot.games.page`): the cards and
        what a tap on each does, with ``covers``, the hand operations those taps stand for (the
        page shows the hand's other buttons as they are; a game with no drawing of its own
        returns ``{}``, and the page shows the hand's text and every button)."""

    def turn_facts(self, match: GameMatch, seat: int, lang: str) -> str:
        """What the turn bell shows of the table (the discard pile, the cards on the table)."""

    def hand_result(self, match: GameMatch, names: list[str], lang: str) -> str:
        """The end of the hand just played, for the group ("" when there is none)."""

    def hand_recap(self, match: GameMatch, seat: int, names: list[str], lang: str) -> str:
        """The end of the hand just played, for one player's hand message: who closed and
        how, the player's own points, the totals ("" when there is none)."""

    def closed_hand(self, match: GameMatch) -> int | None:
        """The number of the latest hand that ended (None before the first): a move that
        changes it ended a hand."""

    def press(self, press: HandPress) -> Awaitable[Answer]:
        """Handle a press on the hand (the caller checked who and when)."""

    def touched_hands(self, match: GameMatch, mover: int) -> list[int]:
        """The seats whose hand message shows a move of ``mover`` (its own, and a partner's
        with open hands)."""

    def lobby_lines(self, record: MatchRecord, lang: str) -> list[str]:
        """What the lobby says about this game beyond the seats (the pairs, say)."""

    def has_partners(self, options: dict[str, Any]) -> bool:
        """Whether the players form pairs (the lobby offers to change them)."""

    def headline_option(self, options: dict[str, Any]) -> str:
        """The option the lobby always names (the points limit, the target; "": none)."""
