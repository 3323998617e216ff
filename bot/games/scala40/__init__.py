"""Scala 40 in the bot (docs/rules.md S40): the table (:mod:`.table`), the private hand
(:mod:`.hand`) and the presses on it (:mod:`.presses`), behind the game's
:class:`~bot.games.base.GameUI`.

Pure translation between buttons and engine actions, no rules: the engine decides whether an
action is legal, and its refusal is shown in words.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import timedelta
from typing import Any

from bot.answer import Answer
from bot.games.base import HandPress
from bot.games.page import Page
from bot.games.scala40.hand import Cockpit, hand_message
from bot.games.scala40.page import page
from bot.games.scala40.presses import attach_targets, press
from bot.games.scala40.table import hand_recap, hand_result_text, table_text
from bot.hand.state import Attach, HandUI, open_action
from bot.i18n import t
from bot.render import Rendered
from bot.render import cards as show
from bot.render.table import pairs_line
from engine import scala40
from engine.games import GameMatch
from engine.scala40.hints import fits
from storage import MatchRecord


class Scala40UI:
    """Scala 40's :class:`~bot.games.base.GameUI`."""

    def table(
        self, match: GameMatch, names: list[str], lang: str, left: timedelta | None, seal: str
    ) -> str:
        """The group's table message."""
        assert isinstance(match, scala40.Match)
        return table_text(match.view(0), names, lang, left, seal, match.options.hands)

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
        """The seat's private hand message (``left``: the time left of the turn)."""
        assert isinstance(match, scala40.Match)
        view = match.view(seat)
        targets: tuple[int, ...] = ()
        top = view.discard_top if view.phase == "draw" else None
        if isinstance(ui.step, Attach) and view.to_play == seat:
            targets = tuple(attach_targets(match, seat, ui, top))
        opens = False
        if ui.staged and view.to_play == seat and not view.opened[seat]:
            opens = fits(match, open_action(ui, top), seat)
        options = match.options
        cockpit = Cockpit(options.opening_points, options.hands, left, targets, opens)
        return hand_message(match_id, seat, view, ui, names, group, lang, cockpit)

    def page(self, match: GameMatch, seat: int, ui: HandUI, names: list[str], lang: str) -> Page:
        """The seat's table as the Mini App draws it (:mod:`.page`)."""
        assert isinstance(match, scala40.Match)
        return page(match.view(seat), ui, names, lang)

    def turn_facts(self, match: GameMatch, seat: int, lang: str) -> str:
        """The discard pile's top and the stock, for the turn bell."""
        assert isinstance(match, scala40.Match)
        view = match.view(seat)
        top = show.card(view.discard_top) if view.discard_top else "—"
        return t(lang, "hand.piles", card=top, stock=view.stock_size)

    def hand_result(self, match: GameMatch, names: list[str], lang: str) -> str:
        """Everyone's cards and points at the end of the hand (S40-15)."""
        assert isinstance(match, scala40.Match)
        last = match.last_hand
        sides = list(match.view(0).sides)
        options = match.options
        if last is None:
            return ""
        return hand_result_text(last, names, sides, lang, options.format, options.limit)

    def hand_recap(self, match: GameMatch, seat: int, names: list[str], lang: str) -> str:
        """The end of the hand for one player: who closed, the player's own points, the
        totals (S40-11, S40-12)."""
        assert isinstance(match, scala40.Match)
        last = match.last_hand
        if last is None:
            return ""
        sides = list(match.view(0).sides)
        options = match.options
        return hand_recap(last, seat, names, sides, lang, options.format, options.limit)

    def closed_hand(self, match: GameMatch) -> int | None:
        """The number of the latest hand that ended (closed or annulled)."""
        assert isinstance(match, scala40.Match)
        return None if match.last_hand is None else match.last_hand.hand_number

    def press(self, press_: HandPress) -> Awaitable[Answer]:
        """A press on the hand."""
        return press(press_)

    def touched_hands(self, match: GameMatch, mover: int) -> list[int]:
        """The mover's hand, and with open hands for partners the partner's (S40-12.5)."""
        assert isinstance(match, scala40.Match)
        if match.options.open_hands_for_partners:
            return [mover, (mover + 2) % 4]
        return [mover]

    def lobby_lines(self, record: MatchRecord, lang: str) -> list[str]:
        """The pairs, when the match is played in pairs."""
        line = pairs_line(record, lang) if record.options.get("pairs") else None
        return [line] if line else []

    def has_partners(self, options: dict[str, Any]) -> bool:
        """Whether the match is played in pairs (Option ``pairs``, S40-1.2)."""
        return bool(options.get("pairs"))

    def headline_option(self, options: dict[str, Any]) -> str:
        """What decides the match in its format (S40-12): the points limit, the number of
        hands, or the race."""
        return {"hands": "hands", "race": "format"}.get(options.get("format", ""), "limit")


UI = Scala40UI()
