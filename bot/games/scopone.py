"""Scopone in the bot: the table, the private hand and the presses on it (docs/rules.md SC)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import datetime
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.answer import Answer
from bot.callbacks import button_index
from bot.delivery import Rendered
from bot.games.base import HandPress
from bot.hand_ui import Capture, HandUI, Op, cleared
from bot.i18n import t
from bot.render import cards as show
from bot.render.hand import HandKeys, rows
from bot.render.length import clip
from bot.render.table import (
    RECENT_MOVES,
    deadline_text,
    header,
    name_of,
    pairs_line,
    side_name,
    turn_line,
    waiting_line,
)
from engine import scopone
from engine.games import GameMatch
from storage import MatchRecord

HAND_ROW = 5
"""Cards a row in the Scopone hand."""


def table_text(
    view: scopone.View, names: list[str], lang: str, deadline: datetime | None = None
) -> str:
    """The table: seats, the cards on the table, captures, scores, turn, recent plays."""
    lines = [header(lang, "scopone", view.hand_number, names, view.dealer)]
    for seat in range(4):
        marker = "👉" if seat == view.to_play else "▫️"
        extra = t(lang, "table.computer") if seat in view.computer else ""
        lines.append(
            t(
                lang,
                "table.seat",
                marker=marker,
                name=name_of(names, seat),
                count=view.hand_sizes[seat],
                extra=extra,
            )
        )
    table = show.cards([str(c) for c in view.table]) if view.table else "—"
    lines += ["", t(lang, "table.scopone_table", cards=table)]
    sides = list(view.sides)
    for side, score in enumerate(view.scores):
        lines.append(
            t(
                lang,
                "table.scopone_side",
                names=side_name(names, sides, side),
                taken=t(lang, "count.taken", count=view.captured[side]),
                scope=t(lang, "count.scope", count=view.scope[side]),
                score=score,
                target=view.target,
            )
        )
    if view.to_play is not None:
        lines.append(turn_line(lang, name_of(names, view.to_play)) + deadline_text(lang, deadline))
    recent = view.history[-RECENT_MOVES:]
    if recent:
        lines.append("")
        for record in recent:
            if record.auto:  # the turn timer ran out and the bot played
                lines.append("· " + t(lang, "move.timeout", name=name_of(names, record.seat)))
            lines.append("· " + move_line(lang, names, record.seat, record.action, record.scopa))
    return clip("\n".join(lines))


def move_line(
    lang: str, names: list[str], seat: int, action: scopone.Action, scopa: bool = False
) -> str:
    """One line for a play ("Anna gioca 7♦ e prende 3♥ 4♠ — scopa!")."""
    who = name_of(names, seat)
    if action.card is None:
        return t(lang, f"move.{action.kind}", name=who)
    played = show.card(str(action.card))
    if action.take:
        line = t(
            lang,
            "move.capture",
            name=who,
            card=played,
            cards=show.cards([str(c) for c in action.take]),
        )
    else:
        line = t(lang, "move.lay", name=who, card=played)
    return line + (t(lang, "move.scopa") if scopa else "")


def hand_result_text(
    score: scopone.HandScore, names: list[str], sides: list[int], lang: str
) -> str:
    """The end of a hand: each side's pile and its points by category (SC-5.3)."""
    lines = [t(lang, "hand.scopone", hand=score.hand_number)]
    for side in score.sides:
        points = side.points_by_category()
        lines.append(
            t(
                lang,
                "hand.scopone_side",
                names=side_name(names, sides, side.side),
                total=side.total,
                **points,
            )
        )
    for side in score.sides:
        lines.append(
            t(
                lang,
                "hand.scopone_pile",
                names=side_name(names, sides, side.side),
                count=len(side.pile),
                cards=show.cards([str(c) for c in side.pile]) or "—",
            )
        )
    return clip("\n".join(lines))


def hand_message(
    match_id: int,
    seat: int,
    view: scopone.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The hand, the player's cockpit: whose turn it is, the cards on the table and the
    scores; on the player's turn the cards are buttons (then the capture choice when several
    are allowed), off turn they are text, as nothing can be done with them then."""
    keys = HandKeys(match_id, seat, ui, lang, view.hand)
    lines: list[str] = [t(lang, "hand.title", game=t(lang, "game.scopone"), group=group)]
    my_turn = view.to_play == seat and view.result is None
    if view.result is not None:
        lines.append(t(lang, "hand.over"))
    elif my_turn:
        lines.append(t(lang, "hand.scopone_idle"))
    elif view.to_play is not None:
        lines.append(waiting_line(lang, name_of(names, view.to_play)))
    table = show.cards([str(c) for c in view.table]) if view.table else "—"
    lines.append(t(lang, "hand.scopone_table", cards=table))
    sides = list(view.sides)
    scores = " · ".join(
        f"{side_name(names, sides, side)} {score}" for side, score in enumerate(view.scores)
    )
    lines.append(t(lang, "hand.scores", scores=scores, target=view.target))
    keyboard: list[list[InlineKeyboardButton]] = []
    if not my_turn:
        if view.hand:
            lines.append(t(lang, "hand.cards", cards=show.cards([str(c) for c in view.hand])))
    elif isinstance(ui.step, Capture):
        card = ui.step.card
        lines.append(t(lang, "hand.pick_capture", card=show.card(card)))
        options = [str(a) for a in view.legal_actions if str(a.card) == card]
        buttons = [
            keys.button(_capture_label(option, lang), Op.CAPTURE, index)
            for index, option in enumerate(options)
        ]
        keyboard = [[b] for b in buttons] + [[keys.button(keys.label("btn.cancel"), Op.CLEAR)]]
    else:
        hand = [str(c) for c in view.hand]
        keyboard = rows(
            [keys.button(show.card(face), Op.PLAY, index) for index, face in enumerate(hand)],
            HAND_ROW,
        )
    # An empty keyboard is not valid JSON markup for Telegram: no cards, no keyboard.
    return clip("\n".join(lines)), InlineKeyboardMarkup(keyboard) if keyboard else None


def _capture_label(action_text: str, lang: str) -> str:
    words = action_text.split()
    if "take" not in words:
        return t(lang, "btn.take_nothing", card=show.card(words[1]))
    taken = words[words.index("take") + 1 :]
    return f"{show.card(words[1])} → {show.cards(taken)}"


async def press(p: HandPress) -> Answer:
    """Tap a card to play it; when it may capture in several ways, choose the capture."""
    match = p.match
    assert isinstance(match, scopone.Match)
    ui, lang = p.ui, p.lang
    if p.op == Op.CLEAR:
        await p.set_ui(cleared(ui))
        return Answer()
    if match.to_play != p.seat:
        return Answer(t(lang, "ans.not_your_turn"))
    view = match.view(p.seat)
    index = button_index(p.arg)
    if p.op == Op.PLAY and index is not None and index < len(view.hand):
        card = str(view.hand[index])
        options = [str(a) for a in view.legal_actions if str(a.card) == card]
        if len(options) > 1:
            await p.set_ui(replace(ui, step=Capture(card)))
            return Answer()
        return await p.move(options[0] if options else f"play {card}", cleared(ui))
    if p.op == Op.CAPTURE and isinstance(ui.step, Capture) and index is not None:
        options = [str(a) for a in view.legal_actions if str(a.card) == ui.step.card]
        if index < len(options):
            return await p.move(options[index], cleared(ui))
    return Answer(t(lang, "ans.stale"))


class ScoponeUI:
    """Scopone's :class:`~bot.games.base.GameUI`."""

    def table(
        self, match: GameMatch, names: list[str], lang: str, deadline: datetime | None
    ) -> str:
        """The group's table message."""
        return table_text(match.view(0), names, lang, deadline)

    def hand(
        self,
        match_id: int,
        seat: int,
        match: GameMatch,
        ui: HandUI,
        names: list[str],
        group: str,
        lang: str,
    ) -> Rendered:
        """The seat's private hand message."""
        return hand_message(match_id, seat, match.view(seat), ui, names, group, lang)

    def turn_facts(self, match: GameMatch, seat: int, lang: str) -> str:
        """The cards on the table, for the turn bell."""
        cards = " ".join(show.card(str(c)) for c in match.view(seat).table) or "—"
        return t(lang, "hand.scopone_table", cards=cards)

    def hand_result(self, match: GameMatch, names: list[str], lang: str) -> str:
        """Each side's pile and points at the end of the hand (SC-5.3)."""
        assert isinstance(match, scopone.Match)
        if match.last_hand is None:
            return ""
        sides = list(match.view(0).sides)
        return hand_result_text(match.last_hand, names, sides, lang)

    def press(self, press_: HandPress) -> Awaitable[Answer]:
        """A press on the hand."""
        return press(press_)

    def touched_hands(self, match: GameMatch, mover: int) -> list[int]:
        """Only the mover's hand shows the move."""
        return [mover]

    def lobby_lines(self, record: MatchRecord, lang: str) -> list[str]:
        """The pairs, once four are seated (unless every player plays alone)."""
        line = None if record.options.get("individual") else pairs_line(record, lang)
        return [line] if line else []

    def has_partners(self, options: dict[str, Any]) -> bool:
        """Scopone is played in pairs (SC-1.1), unless ``individual``."""
        return not options.get("individual")

    def headline_option(self, options: dict[str, Any]) -> str:
        """The target score."""
        return "target"


UI = ScoponeUI()
