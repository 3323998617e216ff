"""Scopone in the bot: the table, the private hand and the presses on it (docs/rules.md SC)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.answer import Answer
from bot.callbacks import button_index
from bot.games.base import HandPress
from bot.games.page import Page, card, players, tap
from bot.hand.keys import HandKeys, count_lines, header_line, rows, score_lines, since_lines
from bot.hand.state import Capture, HandUI, Op, cleared
from bot.i18n import t
from bot.render import Rendered
from bot.render import cards as show
from bot.render.length import clip
from bot.render.table import (
    header,
    name_of,
    pairs_line,
    recent_lines,
    side_name,
    turn_text,
    waiting_line,
    with_cards,
)
from engine import scopone
from engine.games import GameMatch
from storage import MatchRecord

HAND_ROW = 5
"""Cards a row in the Scopone hand."""


SETTEBELLO = "7D"
"""The 7 of denari, a point of its own (SC-4.4)."""


def table_text(
    view: scopone.View, names: list[str], lang: str, left: timedelta | None = None, seal: str = ""
) -> str:
    """The group's table, within a phone's screen (:mod:`bot.render.table`): the target, each
    seat's cards (and score, when each plays alone), each pair's score, the cards taken and the
    scope, the cards on the table and what the suits are called, whose turn and the time left,
    the latest plays; ``seal`` (the deck's commitment) before the first play and at the end."""
    goal = t(lang, "table.goal_target", target=view.target)
    lines = [header(lang, "scopone", view.hand_number, goal), *_seats(view, names, lang)]
    sides = list(view.sides)
    if len(set(sides)) < len(sides):
        lines += [
            t(lang, "table.side", names=side_name(names, sides, side))
            + t(lang, "table.score", count=score)
            for side, score in enumerate(view.scores)
        ]
    lines.append(t(lang, "table.taken", taken=_each(view.captured), scope=_each(view.scope)))
    table = show.cards([str(c) for c in view.table]) if view.table else "—"
    lines += [t(lang, "table.scopone_table", cards=table), t(lang, "table.suits")]
    if view.to_play is not None and view.result is None:
        lines.append(turn_text(lang, name_of(names, view.to_play), left))
    moves: list[str] = []
    for record in view.history:
        if record.auto:  # the turn timer ran out and the bot played
            moves.append(t(lang, "move.timeout", name=name_of(names, record.seat)))
        moves.append(move_line(lang, names, record.seat, record.action, record.scopa))
    at_start = view.hand_number == 1 and not view.history
    sealed = seal if at_start or view.result is not None else ""
    lines += recent_lines(lines, moves, sealed, wrap=True)
    return clip("\n".join(lines))


def _seats(view: scopone.View, names: list[str], lang: str) -> list[str]:
    """A line per seat: whose turn, the cards in hand, the score when each plays alone."""
    alone = len(set(view.sides)) == len(view.sides)
    out: list[str] = []
    for seat in range(len(view.sides)):
        marker = "👉" if seat == view.to_play else "▫️"
        name, count = name_of(names, seat), view.hand_sizes[seat]
        line: str = t(lang, "table.seat", marker=marker, name=name, count=count)
        if seat in view.computer and not names[seat].startswith("🤖"):
            line += t(lang, "table.computer")  # a player who left: the computer plays on
        if alone:
            line += t(lang, "table.score", count=view.scores[view.sides[seat]])
        out.append(line)
    return out


def _each(counts: tuple[int, ...]) -> str:
    """One count per side, in the order the sides are listed: ``12–8``."""
    return "–".join(str(count) for count in counts)


def move_line(
    lang: str, names: list[str], seat: int, action: scopone.Action, scopa: bool = False
) -> str:
    """One line for a play ("Anna gioca 7♦ e prende 3♥ 4♠ — scopa!"); the settebello named."""
    who = name_of(names, seat)
    if action.card is None:
        return t(lang, f"move.{action.kind}", name=who)
    played = show.card(str(action.card))
    cards = {str(action.card), *(str(c) for c in action.take)}
    line: str
    if action.take:
        line = t(
            lang,
            "move.capture",
            name=who,
            card=played,
            cards=show.cards([str(c) for c in action.take]),
        )
        if SETTEBELLO in cards:
            line += t(lang, "move.settebello_taken")
    else:
        line = t(lang, "move.lay", name=who, card=played)
        if SETTEBELLO in cards:
            line += t(lang, "move.settebello")
    return line + (t(lang, "move.scopa") if scopa else "")


def hand_result_text(
    score: scopone.HandScore,
    names: list[str],
    sides: list[int],
    lang: str,
    scores: tuple[int, ...] = (),
    target: int | None = None,
    piles: bool = True,
) -> str:
    """The end of a hand: each side's points by category, who took the cards left on the
    table (SC-3.6), the scores against the target (SC-5.2) and, with ``piles``, each side's
    pile (SC-5.3)."""
    lines: list[str] = [t(lang, "hand.scopone", hand=score.hand_number)]
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
    if score.leftover and score.last_capturer is not None:
        name = name_of(names, score.last_capturer)
        text = t(lang, "hand.scopone_leftover", name=name)
        lines.append(with_cards(text, [str(c) for c in score.leftover]))
    if scores and target is not None:
        lines.append(t(lang, "hand.scores", target=target))
        lines += [f"  {side_name(names, sides, side)} {n}" for side, n in enumerate(scores)]
    if piles:
        for side in score.sides:
            text = t(
                lang,
                "hand.scopone_pile",
                names=side_name(names, sides, side.side),
                count=len(side.pile),
            )
            pile = [str(c) for c in side.pile]
            lines.append(with_cards(text, pile, brackets=False) if pile else f"{text} —")
    return clip("\n".join(lines))


def hand_message(
    match_id: int,
    seat: int,
    view: scopone.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
    left: timedelta | None = None,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The hand, the player's cockpit: the hand, the target and the time left, the scores,
    the cards each player holds, this hand's scope, denari and sevens; whose turn it is, the
    cards on the table and what the suits are called, the plays since the player's last; on
    the player's turn the cards are buttons (then the capture choice, or the confirmation
    with ``confirm_play``), off turn they are text, as nothing can be done with them then."""
    keys = HandKeys(match_id, seat, ui, lang, view.hand)
    lines: list[str] = [t(lang, "hand.title", game=t(lang, "game.scopone"), group=group)]
    my_turn = view.to_play == seat and view.result is None
    if view.result is None:
        lines += _header(view, names, lang, left if my_turn else None)
    if view.result is not None:
        lines.append(t(lang, "hand.over"))
    elif my_turn:
        lines.append(t(lang, "hand.scopone_idle"))
    elif view.to_play is not None:
        lines.append(waiting_line(lang, name_of(names, view.to_play)))
    table = show.cards([str(c) for c in view.table]) if view.table else "—"
    lines += [t(lang, "hand.scopone_table", cards=table), t(lang, "table.suits")]
    if view.result is None:
        lines += since_lines(lang, plays_since(view, names, lang))
    keyboard: list[list[InlineKeyboardButton]] = []
    if not my_turn:
        if view.hand:
            lines.append(t(lang, "hand.cards", cards=show.cards([str(c) for c in view.hand])))
    elif isinstance(ui.step, Capture):
        card = ui.step.card
        options = [str(a) for a in view.legal_actions if str(a.card) == card]
        key = "hand.pick_capture" if len(options) > 1 else "hand.confirm_play"
        lines.append(t(lang, key, card=card_name(lang, card)))
        buttons = [
            keys.button(_capture_label(option, lang, len(options) == 1), Op.CAPTURE, index)
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


def _header(view: scopone.View, names: list[str], lang: str, left: timedelta | None) -> list[str]:
    """The cockpit's header: the hand, the target and the time left; each side's score, the
    player's side first with the partner's name; the cards each other player holds; this
    hand's scope, denari and sevens per side, in the same order (SC-4)."""
    goal = t(lang, "table.goal_target", target=view.target)
    lines = [header_line(lang, view.hand_number, goal, left)]
    lines += score_lines(lang, "hand.points", names, view.sides, view.seat, view.scores)
    lines += count_lines(lang, names, view.seat, view.hand_sizes)
    own = view.sides[view.seat]
    order = [own] + [side for side in range(len(view.scores)) if side != own]

    def each(counts: tuple[int, ...]) -> str:
        return "–".join(str(counts[side]) for side in order)

    scope, denari, sevens = each(view.scope), each(view.denari), each(view.sevens)
    return [*lines, t(lang, "hand.so_far", scope=scope, denari=denari, sevens=sevens)]


def plays_since(view: scopone.View, names: list[str], lang: str) -> list[str]:
    """The others' plays of this hand since the seat's last (all of them before it played)."""
    mine = [i for i, record in enumerate(view.history) if record.seat == view.seat]
    start = mine[-1] + 1 if mine else 0
    return [move_line(lang, names, r.seat, r.action, r.scopa) for r in view.history[start:]]


def card_name(lang: str, card: str) -> str:
    """A card as a sentence names it: ``7♦``, the settebello named (SC-4.4)."""
    text = show.card(card)
    return text + t(lang, "move.settebello") if card == SETTEBELLO else text


def _capture_label(action_text: str, lang: str, confirm: bool = False) -> str:
    """A capture's button ("7♠ → 7♦ (settebello)", "Gioca 5♦"); ``confirm``: the one play of a card
    chosen for the two-tap play, marked as its confirmation."""
    words = action_text.split()
    if "take" not in words:
        label: str = t(lang, "btn.take_nothing", card=show.card(words[1]))
    else:
        taken = words[words.index("take") + 1 :]
        label = f"{show.card(words[1])} → {show.cards(taken)}"
    if SETTEBELLO in words:
        label += t(lang, "move.settebello")
    return f"✅ {label}" if confirm else label


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
        if len(options) > 1 or match.options.confirm_play:
            await p.set_ui(replace(ui, step=Capture(card)))
            return Answer()
        return await p.move(options[0] if options else f"play {card}", cleared(ui))
    if p.op == Op.CAPTURE and isinstance(ui.step, Capture) and index is not None:
        options = [str(a) for a in view.legal_actions if str(a.card) == ui.step.card]
        if index < len(options):
            return await p.move(options[index], cleared(ui))
    return Answer(t(lang, "ans.stale"))


def page(view: scopone.View, ui: HandUI, names: list[str], lang: str) -> Page:
    """The seat's table as the Mini App draws it, with the Italian deck's suits: the hand,
    each card played by a tap; the cards on the table; once a card may capture in several
    ways, the captures it may make, each chosen by a tap."""
    my_turn = view.result is None and view.to_play == view.seat
    page: Page = {
        "players": players(names, view.seat, view.hand_sizes, view.to_play),
        "hand": [
            card(lang, str(c), True, tap(Op.PLAY, i) if my_turn else None)
            for i, c in enumerate(view.hand)
        ],
        "table": [card(lang, str(c), True) for c in view.table],
        "covers": [Op.PLAY.value, Op.CAPTURE.value],
    }
    if isinstance(ui.step, Capture) and my_turn:
        options = [a for a in view.legal_actions if str(a.card) == ui.step.card]
        page["choices"] = [
            {
                "card": card(lang, ui.step.card, True),
                "takes": [card(lang, str(c), True) for c in option.take],
                "tap": tap(Op.CAPTURE, i),
            }
            for i, option in enumerate(options)
        ]
    return page


class ScoponeUI:
    """Scopone's :class:`~bot.games.base.GameUI`."""

    def table(
        self, match: GameMatch, names: list[str], lang: str, left: timedelta | None, seal: str
    ) -> str:
        """The group's table message."""
        assert isinstance(match, scopone.Match)
        return table_text(match.view(0), names, lang, left, seal)

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
        assert isinstance(match, scopone.Match)
        return hand_message(match_id, seat, match.view(seat), ui, names, group, lang, left)

    def page(self, match: GameMatch, seat: int, ui: HandUI, names: list[str], lang: str) -> Page:
        """The seat's table as the Mini App draws it (:func:`page`)."""
        assert isinstance(match, scopone.Match)
        return page(match.view(seat), ui, names, lang)

    def turn_facts(self, match: GameMatch, seat: int, lang: str) -> str:
        """The cards on the table, for the turn bell."""
        assert isinstance(match, scopone.Match)
        table = [str(c) for c in match.view(seat).table]
        if not table:
            return t(lang, "hand.scopone_table", cards="—")
        return with_cards(t(lang, "hand.scopone_table", cards="").rstrip(), table, brackets=False)

    def hand_result(self, match: GameMatch, names: list[str], lang: str) -> str:
        """Each side's pile and points at the end of the hand (SC-5.3)."""
        assert isinstance(match, scopone.Match)
        if match.last_hand is None:
            return ""
        view = match.view(0)
        return hand_result_text(
            match.last_hand, names, list(view.sides), lang, view.scores, view.target
        )

    def hand_recap(self, match: GameMatch, seat: int, names: list[str], lang: str) -> str:
        """The end of the hand for one player: the points by category, the scores."""
        assert isinstance(match, scopone.Match)
        if match.last_hand is None:
            return ""
        view = match.view(seat)
        sides = list(view.sides)
        return hand_result_text(
            match.last_hand, names, sides, lang, view.scores, view.target, piles=False
        )

    def closed_hand(self, match: GameMatch) -> int | None:
        """The number of the latest hand that ended."""
        assert isinstance(match, scopone.Match)
        return None if match.last_hand is None else match.last_hand.hand_number

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
