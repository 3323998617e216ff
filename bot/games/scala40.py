"""Scala 40 in the bot: the table, the private hand and the presses on it (docs/rules.md S40).

Pure translation between buttons and engine actions, no rules: the engine decides whether an
action is legal, and its refusal is shown in words.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.answer import Answer, engine_error
from bot.callbacks import button_index
from bot.games.base import HandPress
from bot.hand_ui import (
    FREED,
    TOP,
    Attach,
    Declare,
    HandUI,
    Op,
    Swap,
    attach_action,
    cleared,
    declare_first_joker,
    display,
    meld_action,
    move_selected_first,
    open_action,
    staged_tokens,
    toggle,
    tokens,
)
from bot.i18n import error_text, safe, t
from bot.render import Rendered
from bot.render import cards as show
from bot.render.hand import (
    HandKeys,
    count_lines,
    header_line,
    rows,
    score_lines,
    since_lines,
)
from bot.render.length import clip
from bot.render.table import (
    MAX_LINES,
    header,
    name_of,
    packed,
    pairs_line,
    recent_lines,
    side_name,
    turn_text,
    waiting_line,
    with_cards,
)
from engine import scala40
from engine.errors import IllegalAction, InvalidMeld
from engine.games import GameMatch
from engine.scala40.actions import parse_action
from engine.scala40.hints import action_joker_choices, fits, meld_joker_choices
from engine.scala40.match import RACE_WINS
from storage import MatchRecord

NEW = "🆕"
"""The mark of the card just drawn (or taken from the discard pile) on its button."""
TARGET_ROW = 2
"""Attach targets a row: each names its meld's cards."""

# --- the table -------------------------------------------------------------------------------


def move_line(lang: str, names: list[str], seat: int, text: str, top: str | None = None) -> str:
    """One line for a move of the public history ("Anna apre con 57"); ``top``: the card a
    ``take`` took, when known (the discard before it)."""
    who = name_of(names, seat)
    action = parse_action(text)
    kind = action.kind
    if kind == "take":
        if action.use is None:
            return t(lang, "move.take_plain", name=who)
        use = _use_text(lang, action.use)
        if top is None:
            return t(lang, "move.take_top", name=who, use=use)
        return t(lang, "move.take", name=who, card=show.card(top), use=use)
    if kind in ("open", "meld", "attach"):
        return t(lang, f"move.{kind}", name=who, **_meld_fields(action))
    if kind == "swap" and action.use is not None:
        return t(lang, "move.swap", name=who, number=action.target)
    if kind == "discard":
        return t(lang, "move.discard", name=who, card=show.card(action.card))
    return t(lang, f"move.{kind}", name=who)


def _meld_fields(action: scala40.Action, short: bool = True) -> dict[str, Any]:
    """The fields of a move's text; ``short``: its melds as the table shows them (``5♠–8♠``)."""
    melds = action.melds
    cards = " ".join(show.short_meld(m) for m in melds) if short else show.cards(sum(melds, ()))
    points = 0
    if action.kind == "open":
        points = sum(scala40.meld_value(list(meld)) for meld in action.melds)
    return {"cards": cards, "number": action.target, "points": points}


def _use_text(lang: str, use: scala40.Action) -> str:
    return t(lang, f"move.use_{use.kind}", **_meld_fields(use))


def recent_moves(lang: str, names: list[str], history: list[tuple[int, str]]) -> list[str]:
    """The hand's moves in words, a draw left out (the table shows the stock shrink); a take
    names the card it took, the discard before it."""
    return [line for _, text, line in _lines(lang, names, history) if text != "draw"]


def moves_since(view: scala40.View, names: list[str], lang: str) -> list[str]:
    """The others' moves of this hand between the seat's last turn and now (or its turn now:
    they stay while it plays), draws included, a draw and the discard after it as one ("Luca
    pesca e scarta 5♦"): what happened while the player waited."""
    history = view.history
    end = len(history)
    if view.to_play == view.seat:
        while end and history[end - 1][0] == view.seat:
            end -= 1  # the moves of the turn in play
    mine = [i for i in range(end) if history[i][0] == view.seat]
    start = mine[-1] + 1 if mine else 0
    out: list[str] = []
    drew: int | None = None
    for seat, text, line in _lines(lang, names, history)[start:end]:
        if drew == seat and text.startswith("discard "):
            out[-1] = t(lang, "move.draw_discard", name=name_of(names, seat), card=_card(text))
        else:
            out.append(line)
        drew = seat if text == "draw" else None
    return out


def _card(text: str) -> str:
    """The card of a ``discard`` move's text, with its suit symbol."""
    return show.card(text.split()[1])


def _lines(
    lang: str, names: list[str], history: list[tuple[int, str]]
) -> list[tuple[int, str, str]]:
    """Every move of the hand as (seat, text, words); a take names the card it took."""
    out: list[tuple[int, str, str]] = []
    top: str | None = None
    for seat, text in history:
        out.append((seat, text, move_line(lang, names, seat, text, top)))
        if text.startswith("discard "):
            top = text.split()[1]
    return out


def table_text(
    view: scala40.View,
    names: list[str],
    lang: str,
    left: timedelta | None = None,
    seal: str = "",
    hands: int = 3,
) -> str:
    """The group's table, within a phone's screen (:mod:`bot.render.table`): what wins the
    match, each seat's cards (and score, when each plays alone), each pair's score, the melds,
    the piles, whose turn and the time left, the latest moves; ``seal`` (the deck's
    commitment) before the first move and at the end. ``hands``: the hands of the ``hands``
    format (S40-12.2)."""
    top = [header(lang, "scala40", view.hand_number, _goal(view, lang, hands))]
    top += _seats(view, names, lang)
    if len(set(view.sides)) < view.players:
        top += [_side(view, names, lang, side) for side in range(len(view.scores))]
    pile = show.card(view.discard_top) if view.discard_top else "—"
    bottom: list[str] = [
        t(lang, "table.piles", card=pile, count=view.discard_size, stock=view.stock_size)
    ]
    if view.to_play is not None and view.result is None:
        bottom.append(turn_text(lang, name_of(names, view.to_play), left))
    moves = recent_moves(lang, names, view.history)
    at_start = view.hand_number == 1 and not view.history
    sealed = seal if at_start or view.result is not None else ""
    room = MAX_LINES - len(top) - len(bottom) - (1 if moves else 0) - (1 if sealed else 0)
    lines: list[str] = [*top, *_melds(view, lang, room), *bottom]
    return clip("\n".join(lines + recent_lines(lines, moves, sealed)))


def _goal(view: scala40.View, lang: str, hands: int) -> str:
    """What wins the match, for the header (S40-12)."""
    if view.format == "points":
        return t(lang, "table.goal_points", limit=view.limit)
    if view.format == "hands":
        return t(lang, "table.goal_hands", count=hands)
    return t(lang, "table.goal_race", count=RACE_WINS)


def _seats(view: scala40.View, names: list[str], lang: str) -> list[str]:
    """A line per seat, in turn order from the dealer's left: whose turn, the cards in hand,
    who opened; the score too when each seat is a side of its own."""
    order = sorted(range(view.players), key=lambda s: (s - view.dealer - 1) % view.players)
    alone = len(set(view.sides)) == view.players
    out: list[str] = []
    for seat in order:
        marker = "👉" if seat == view.to_play else "▫️"
        status = view.status[seat]
        name, count = name_of(names, seat), view.hand_sizes[seat]
        key = "table.seat" if status == "in" else f"table.seat_{status}"
        line: str = t(lang, key, marker=marker, name=name, count=count)
        if alone:
            line += _score(view, lang, view.sides[seat])
        if status == "in" and view.opened[seat]:
            line += t(lang, "table.opened")
        out.append(line)
    return out


def _score(view: scala40.View, lang: str, side: int) -> str:
    """A side's score after its line: the points, or the hands won (S40-12.2, S40-12.3)."""
    if view.format == "points":
        return t(lang, "table.score", count=view.scores[side])
    return t(lang, "table.won", count=view.hands_won[side])


def _side(view: scala40.View, names: list[str], lang: str, side: int) -> str:
    """A pair's line: its players and its score."""
    return t(lang, "table.side", names=side_name(names, view.sides, side)) + _score(
        view, lang, side
    )


def _melds(view: scala40.View, lang: str, room: int) -> list[str]:
    """The melds, numbered, as many to a line as a phone's width holds; closer together when
    they would take more than ``room`` lines: two spaces apart, then a set as its rank and
    suits (``Q♠♦♣``)."""
    if not view.melds:
        return [t(lang, "table.no_melds")]
    lines: list[str] = []
    for separator, dense in ((" · ", False), ("  ", False), ("  ", True)):
        texts = [
            t(lang, "table.meld", number=m.number, cards=show.short_meld(m.cards, m.jokers, dense))
            for m in view.melds
        ]
        lines = packed(texts, separator)
        if len(lines) <= room:
            break
    return lines


def hand_result_text(
    result: scala40.HandResult,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> str:
    """The end of a hand for the group: who closed and with which card, every player's
    remaining cards and points (the closer's 0 and their partner's, a flat 100 said as such),
    each side's total (the hands won where they decide, S40-12.2), and who is out (S40-15,
    S40-11, S40-12.1). ``limit``: the points format's limit, named with the totals."""
    if result.annulled:
        return t(lang, "hand.annulled", hand=result.hand_number)
    lines = [closing_line(result, names, lang)]
    for seat in range(len(result.points)):
        line = _seat_line(result, names, sides, seat, lang)
        if line is not None:
            lines.append(line)
    lines += standing_lines(result, names, sides, lang, fmt, limit)
    return clip("\n".join(lines))


def closing_line(result: scala40.HandResult, names: list[str], lang: str) -> str:
    """Who closed the hand, how and with which card ("🏁 Mano 2: Anna chiude scartando 9♥.")."""
    closer = name_of(names, result.closer) if result.closer is not None else "—"
    key = "hand.closed"
    if result.in_mano:
        key = "hand.closed_in_mano"
    elif result.joker_close:  # allowed only where it doubles the points (S40-11.4)
        key = "hand.closed_joker"
    card = show.card(result.discard) if result.discard else "—"
    return t(lang, key, hand=result.hand_number, name=closer, card=card)


def _seat_line(
    result: scala40.HandResult, names: list[str], sides: list[int], seat: int, lang: str
) -> str | None:
    """A seat's cards and points, and why they count what they count."""
    points = result.points[seat]
    if points is None:
        return None
    name = name_of(names, seat)
    if seat == result.closer:
        return t(lang, "hand.line_closer", name=name)
    if result.closer is not None and sides[seat] == sides[result.closer]:
        line = t(lang, "hand.line_partner", name=name)
    elif result.opened and not result.opened[seat]:
        line = t(lang, "hand.line_unopened", name=name, points=points)
    else:
        line = t(lang, "hand.line", name=name, points=points)
    return with_cards(line, result.cards[seat])


def standing_lines(
    result: scala40.HandResult,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> list[str]:
    """Each side's total after the hand (with the limit, in the points format), the hands
    won where they decide the match (S40-12.2, S40-12.3), and who is out (S40-12.1)."""
    totals = [f"{side_name(names, sides, side)} {n}" for side, n in enumerate(result.totals)]
    if fmt == "points" and limit is not None:
        totals.append(t(lang, "table.goal_points", limit=limit))
    lines = _labelled(t(lang, "hand.totals", totals=totals[0]), totals[1:])
    if fmt != "points" and result.hands_won:
        won = [f"{side_name(names, sides, side)} {n}" for side, n in enumerate(result.hands_won)]
        lines += _labelled(t(lang, "hand.won", won=won[0]), won[1:])
    for seat in result.eliminated:
        points = result.totals[sides[seat]]
        lines.append(t(lang, "table.eliminated", name=name_of(names, seat), points=points))
    return lines


def _labelled(first: str, items: list[str], separator: str = " · ") -> list[str]:
    """``first`` (a text with its label) then plain-text ``items``, as many to a line as a
    phone's width holds."""
    return packed([first, *(str(safe(item)) for item in items)], separator)


def hand_recap(
    result: scala40.HandResult,
    seat: int,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> str:
    """The end of a hand in a player's own hand message: who closed and how, the player's
    cards left and points (a flat 100 explained against what the cards would count), the
    totals and hands won, who is out."""
    if result.annulled:
        return t(lang, "hand.annulled", hand=result.hand_number)
    lines = [closing_line(result, names, lang)]
    mine = _own_line(result, sides, seat, lang)
    if mine:
        lines.append(mine)
    lines += standing_lines(result, names, sides, lang, fmt, limit)
    return "\n".join(lines)


def _own_line(result: scala40.HandResult, sides: list[int], seat: int, lang: str) -> str:
    """The player's own cards and points at the end of the hand ("" when not in it)."""
    points = result.points[seat] if seat < len(result.points) else None
    if points is None:
        return ""
    if seat == result.closer:
        return t(lang, "hand.recap_closer")
    if result.closer is not None and sides[seat] == sides[result.closer]:
        line = t(lang, "hand.recap_partner")
    elif result.opened and not result.opened[seat]:
        total = result.card_points[seat] if result.card_points else None
        line = t(lang, "hand.recap_unopened", points=points, sum=total or "?")
    else:
        line = t(lang, "hand.recap_cards", points=points)
    return with_cards(line, result.cards[seat])


# --- the hand --------------------------------------------------------------------------------


def staged_total(ui: HandUI, top: str | None) -> int | None:
    """The total value of the staged melds, or None if one is not a valid meld."""
    try:
        return sum(scala40.meld_value(meld) for meld in staged_tokens(ui, top))
    except InvalidMeld:
        return None


@dataclass(frozen=True, slots=True)
class Cockpit:
    """What a hand shows beyond its view: the opening threshold (S40-5), the hands of the
    ``hands`` format (S40-12.2), the time left of the turn, and in the attach step the melds
    the selection fits (the engine's :func:`~engine.scala40.hints.fits`), and whether the
    staged opening is legal now (below the threshold too where it closes in hand, S40-5.6)."""

    threshold: int = 40
    hands: int = 3
    left: timedelta | None = None
    targets: tuple[int, ...] = ()
    opens: bool = False


def hand_message(
    match_id: int,
    seat: int,
    view: scala40.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
    cockpit: Cockpit,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The hand message of ``seat``, the player's cockpit: the hand, the scores, the cards
    each player holds and the time left; whose turn it is, the piles, the melds on the table
    and who opened, the others' moves since the player's last; the cards as buttons (the one
    just drawn marked), then the actions that can act now (off turn, only those that prepare:
    selecting, staging, sorting). A finished match leaves the cards without buttons."""
    running = view.result is None and view.phase in ("draw", "play")
    text = _hand_text(view, ui, names, group, lang, cockpit, running)
    if not running:
        return text, None
    keys = HandKeys(match_id, seat, ui, lang, view.hand)
    my_turn = view.to_play == seat
    playing = my_turn and view.phase == "play"
    card_buttons = []
    if not playing and view.discard_top is not None:
        mark = "✓" if TOP in ui.selected else ""
        label = keys.label("btn.top", card=show.card(view.discard_top))
        card_buttons.append(keys.button(mark + label, Op.TOGGLE, TOP))
    if isinstance(ui.step, Swap):
        mark = "✓" if FREED in ui.selected else ""
        card_buttons.append(keys.button(mark + "🃏", Op.TOGGLE, FREED))
    new = f"{view.drawn}#0" if view.drawn is not None else None
    for key, face in display(view.hand, ui):
        mark = "✓" if key in ui.selected else NEW if key == new else ""
        card_buttons.append(keys.button(mark + show.card(face), Op.TOGGLE, key.replace("#", ".")))
    keyboard = rows(card_buttons)
    keyboard += _actions(keys, view, ui, cockpit, my_turn)
    return text, InlineKeyboardMarkup(keyboard)


def _hand_text(
    view: scala40.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
    cockpit: Cockpit,
    running: bool,
) -> str:
    lines: list[str] = [t(lang, "hand.title", game=t(lang, "game.scala40"), group=group)]
    if running:
        lines += _header(view, names, lang, cockpit)
    top = view.discard_top
    threshold = cockpit.threshold
    if not running:
        lines.append(t(lang, "hand.over"))
    elif view.to_play != view.seat:
        lines.append(waiting_line(lang, name_of(names, view.to_play or 0)))
    elif view.phase == "draw":
        lines.append(t(lang, "hand.draw"))
    else:
        key = "hand.play" if view.opened[view.seat] else "hand.play_not_open"
        lines.append(t(lang, key, threshold=threshold))
    if running:
        top_text = show.card(top) if top else "—"
        lines.append(t(lang, "hand.piles", card=top_text, stock=view.stock_size))
        lines += _hand_melds(view, lang)
        lines += since_lines(lang, moves_since(view, names, lang))
    if ui.staged:
        staged = " | ".join(show.cards(m) for m in staged_tokens(ui, top))
        total = staged_total(ui, top)
        lines.append(
            t(lang, "hand.staged", melds=staged, total=total if total is not None else "?")
        )
    if view.partner_hand is not None:
        cards = show.cards(view.partner_hand).split(" ")  # wraps between cards, as it must
        lines += _labelled(t(lang, "hand.partner", cards=cards[0]), cards[1:], " ")
    if isinstance(ui.step, Attach):
        lines.append(t(lang, "hand.pick_meld"))
    elif isinstance(ui.step, Declare):
        lines.append(t(lang, "hand.pick_joker"))
    elif isinstance(ui.step, Swap):
        lines.append(t(lang, "hand.swap", number=ui.step.meld))
    return clip("\n".join(lines))


def _hand_melds(view: scala40.View, lang: str) -> list[str]:
    """The melds on the table, numbered and as the table shows them, as many to a line as a
    phone's width holds ("Giochi: 1) 7♠ 7♥ 7♦ · 2) 5♠–8♠")."""
    items = [
        t(lang, "table.meld", number=m.number, cards=show.short_meld(m.cards, m.jokers))
        for m in view.melds
    ]
    if not items:
        return []
    return packed([t(lang, "hand.melds", melds=items[0]), *items[1:]])


def _header(view: scala40.View, names: list[str], lang: str, cockpit: Cockpit) -> list[str]:
    """The cockpit's header: the hand, what wins and the time left; each side's score (or
    hands won, S40-12.2, S40-12.3), the player's own side first with the partner's name; the
    cards each other player still in the hand holds."""
    left = cockpit.left if view.to_play == view.seat else None
    lines = [header_line(lang, view.hand_number, _goal(view, lang, cockpit.hands), left)]
    key, values = ("hand.points", view.scores)
    if view.format != "points":
        key, values = ("hand.hands_won", view.hands_won)
    lines += score_lines(lang, key, names, view.sides, view.seat, values)
    out = [s for s in range(view.players) if view.status[s] != "in"]
    opened = [t(lang, "table.opened") if done else "" for done in view.opened]  # as the table
    return lines + count_lines(lang, names, view.seat, view.hand_sizes, out, opened)


def _actions(
    keys: HandKeys, view: scala40.View, ui: HandUI, cockpit: Cockpit, my_turn: bool
) -> list[list[InlineKeyboardButton]]:
    if isinstance(ui.step, Attach):
        melds = {m.number: m for m in view.melds}
        targets = [
            keys.button(
                keys.label("btn.attach_to", cards=show.short_meld(melds[n].cards, melds[n].jokers)),
                Op.ATTACH_TO,
                n,
            )
            for n in cockpit.targets
            if n in melds
        ]
        return [*rows(targets, TARGET_ROW), [keys.button(keys.label("btn.cancel"), Op.CLEAR)]]
    if isinstance(ui.step, Declare):
        choices = [keys.button(show.card(face), Op.DECLARE, face) for face in ui.step.choices]
        return [*rows(choices), [keys.button(keys.label("btn.cancel"), Op.CLEAR)]]
    out = _turn_rows(keys, view, ui, cockpit, my_turn)
    selected = len(ui.selected)
    tools = [
        keys.button(keys.label("btn.sort_suit"), Op.SORT_SUIT),
        keys.button(keys.label("btn.sort_rank"), Op.SORT_RANK),
    ]
    if selected:
        tools.append(keys.button(keys.label("btn.move"), Op.MOVE_LEFT))
    if selected or ui.step is not None:
        tools.append(keys.button(keys.label("btn.clear"), Op.CLEAR))
    if my_turn:
        tools.append(keys.button(keys.label("btn.hint"), Op.HINT))
    out.append(tools)
    return [row for row in out if row]


def _turn_rows(
    keys: HandKeys, view: scala40.View, ui: HandUI, cockpit: Cockpit, my_turn: bool
) -> list[list[InlineKeyboardButton]]:
    """The keys of the turn's phase; off turn, only staging (the player's own preparation).
    The opening shows its total, and against the threshold while it cannot open (S40-5; an
    opening that closes in hand needs none, S40-5.6): the press then answers why."""
    playing = my_turn and view.phase == "play"
    selected = len(ui.selected)
    opened = view.opened[view.seat]
    swapping = isinstance(ui.step, Swap)
    row: list[InlineKeyboardButton] = []
    if my_turn and not playing:
        row.append(keys.button(keys.label("btn.draw"), Op.DRAW))
    can_lay = my_turn and (playing or TOP in ui.selected)
    if selected and can_lay and (opened or swapping):
        row += [
            keys.button(keys.label("btn.meld"), Op.MELD),
            keys.button(keys.label("btn.attach"), Op.ATTACH),
        ]
    if selected and not opened:
        row.append(keys.button(keys.label("btn.stage"), Op.STAGE))
    actions: list[InlineKeyboardButton] = []
    if ui.staged and not opened:
        if my_turn:
            total = staged_total(ui, view.discard_top)
            threshold = cockpit.threshold
            if total is not None and (total >= threshold or cockpit.opens):
                label = keys.label("btn.open", total=total)
            else:
                shown = total if total is not None else "?"
                label = keys.label("btn.open_short", total=shown, threshold=threshold)
            actions.append(keys.button(label, Op.OPEN))
        last = staged_tokens(ui, view.discard_top)[-1]
        label = keys.label("btn.unstage", cards=show.short_meld(last))
        actions.append(keys.button(label, Op.UNSTAGE))
    if playing and selected == 1 and ui.selected[0] not in (TOP, FREED):
        face = ui.selected[0].split("#")[0]
        label = keys.label("btn.discard", card=show.card(face))
        actions.append(keys.button(label, Op.DISCARD, ui.selected[0].replace("#", ".")))
        if opened and not swapping:
            actions.append(keys.button(keys.label("btn.swap"), Op.SWAP))
    return [row, actions]


# --- presses ---------------------------------------------------------------------------------


async def press(p: HandPress) -> Answer:
    """A press on the hand: a UI change, or a move (checked by the engine)."""
    match = p.match
    assert isinstance(match, scala40.Match)
    seat, ui, lang = p.seat, p.ui, p.lang
    view = match.view(seat)
    my_turn = match.to_play == seat
    playing = my_turn and view.phase == "play"
    # The discard is selectable except while playing after the draw (the keyboard shows it).
    running = view.result is None and view.phase in ("draw", "play")
    top = view.discard_top if running and not playing else None
    shown = display(view.hand, ui)
    op = p.op
    if op == Op.TOGGLE:
        key = p.arg.replace(".", "#")
        valid = {k for k, _ in shown}
        if top is not None:
            valid.add(TOP)
        if isinstance(ui.step, Swap):
            valid.add(FREED)
        if key not in valid:
            return Answer(t(lang, "ans.stale"))
        await p.set_ui(toggle(ui, key))
        return Answer()
    if op in (Op.SORT_SUIT, Op.SORT_RANK):
        await p.set_ui(replace(ui, sort="suit" if op == Op.SORT_SUIT else "rank"))
        return Answer()
    if op == Op.MOVE_LEFT:
        await p.set_ui(move_selected_first(ui, shown))
        return Answer()
    if op == Op.CLEAR:
        await p.set_ui(cleared(ui))
        return Answer()
    if op == Op.UNSTAGE:  # staging is the player's own business, in turn or not
        await p.set_ui(replace(ui, staged=ui.staged[:-1], selected=()))
        return Answer()
    if op == Op.STAGE and ui.selected:
        return await _stage(p, top)
    if not my_turn:
        return Answer(t(lang, "ans.not_your_turn"))
    return await _turn_press(p, match, top)


async def _turn_press(p: HandPress, match: scala40.Match, top: str | None) -> Answer:
    ui, lang, op = p.ui, p.lang, p.op
    if op == Op.DRAW:
        return await _draw(p, match)
    if op == Op.HINT:
        return await _hint(p, match)
    if op == Op.OPEN:
        return await _try_move(p, match, open_action(ui, top))
    if op == Op.DECLARE:
        return await _declare(p, match)
    if not ui.selected:
        return Answer(t(lang, "ans.select_cards"))
    if op == Op.MELD:
        return await _try_move(p, match, meld_action(ui, top))
    if op == Op.ATTACH:
        return await _attach(p, match, top)
    number = button_index(p.arg)
    if op == Op.ATTACH_TO and number is not None:
        return await _try_move(p, match, attach_action(ui, top, number))
    if op == Op.STAGE:
        return await _stage(p, top)
    if op == Op.DISCARD and len(ui.selected) == 1:
        if p.arg and p.arg.replace(".", "#") != ui.selected[0]:
            return Answer(t(lang, "ans.stale"))  # the button names another card
        return await p.move(f"discard {tokens(ui, top)[0]}", cleared(ui))
    if op == Op.SWAP and len(ui.selected) == 1:
        return await _swap_target(p, match, tokens(ui, top)[0])
    return Answer(t(lang, "ans.select_one"))


async def _draw(p: HandPress, match: scala40.Match) -> Answer:
    """Draw from the stock; the answer names the card ("Hai pescato 9♥")."""
    answer = await p.move("draw", cleared(p.ui))
    drawn = match.view(p.seat).drawn  # the move played on this very engine
    if answer.text or drawn is None:
        return answer
    return Answer(t(p.lang, "ans.drawn", card=show.card(drawn)), news=True)


async def _attach(p: HandPress, match: scala40.Match, top: str | None) -> Answer:
    """The attach panel: the melds the selection fits (the engine decides); one alone is
    attached to at once, none is answered."""
    swap = p.ui.step if isinstance(p.ui.step, Swap) else None
    ui = replace(p.ui, step=Attach(swap))
    targets = attach_targets(match, p.seat, ui, top)
    if len(targets) == 1:
        return await _try_move(p, match, attach_action(ui, top, targets[0]))
    if not targets:
        return Answer(t(p.lang, "ans.attach_nowhere"), alert=True)
    await p.set_ui(ui)
    return Answer()


def attach_targets(match: scala40.Match, seat: int, ui: HandUI, top: str | None) -> list[int]:
    """The melds on the table the selected cards can be attached to now (S40-6)."""
    numbers = [meld.number for meld in match.view(seat).melds]
    return [n for n in numbers if fits(match, attach_action(ui, top, n), seat)]


async def _declare(p: HandPress, match: scala40.Match) -> Answer:
    """A joker's declaration from the panel: completes the staged meld or the move."""
    step = p.ui.step
    if not isinstance(step, Declare) or p.arg not in step.choices:
        return Answer(t(p.lang, "ans.stale"))  # not one of the choices offered
    if step.stage:
        staged_meld = tuple(declare_first_joker(" ".join(step.stage), p.arg).split())
        await p.set_ui(replace(cleared(p.ui), staged=(*p.ui.staged, staged_meld)))
        return Answer()
    return await _try_move(p, match, declare_first_joker(step.action, p.arg))


async def _stage(p: HandPress, top: str | None) -> Answer:
    ui, lang = p.ui, p.lang
    meld = tuple(TOP if key == TOP else key.split("#")[0] for key in ui.selected)
    cards = [top or "" if token == TOP else token for token in meld]
    try:
        scala40.meld_value(cards)
    except InvalidMeld as error:
        if error.code in ("joker-ambiguous", "joker-undeclared"):
            choices = meld_joker_choices(cards)
            if choices:
                await p.set_ui(replace(ui, step=Declare(tuple(choices), stage=meld)))
                return Answer(engine_error(lang, error))
        return Answer(engine_error(lang, error), alert=True)
    await p.set_ui(replace(cleared(ui), staged=(*ui.staged, meld)))
    return Answer()


async def _swap_target(p: HandPress, match: scala40.Match, card: str) -> Answer:
    for meld in match.view(p.seat).melds:
        if card in meld.jokers.values():
            await p.set_ui(replace(p.ui, step=Swap(meld.number, card), selected=(FREED,)))
            return Answer()
    return Answer(error_text(p.lang, "no-joker"), alert=True)


async def _hint(p: HandPress, match: scala40.Match) -> Answer:
    actions = match.legal_actions()
    opening = next(
        (
            a
            for a in actions
            if a.kind == "open" or (a.kind == "take" and a.use and a.use.kind == "open")
        ),
        None,
    )
    lang = p.lang
    if opening is not None:
        use = opening.use if opening.kind == "take" and opening.use else opening
        top = match.view(p.seat).discard_top if opening.kind == "take" else None
        await p.set_ui(replace(cleared(p.ui), staged=mark_top(use.melds, top)))
        total = sum(scala40.meld_value(list(m)) for m in use.melds)
        return Answer(t(lang, "ans.hint_open", total=total))
    plays = [a for a in actions if a.kind in ("meld", "attach")]
    if plays:
        return Answer(t(lang, "ans.hint_play", action=hint_text(lang, plays[0])))
    if not match.opened[p.seat]:
        needed = match.options.opening_points
        best = scala40.best_opening(match.view(p.seat).hand, needed)
        if not best.total:
            return Answer(t(lang, "ans.hint_no_meld", needed=needed))
        return Answer(t(lang, "ans.hint_none", count=best.total, needed=needed))
    return Answer(t(lang, "ans.hint_nothing"))


def hint_text(lang: str, action: scala40.Action) -> str:
    """A meld or attach the player can make, in words ("Puoi attaccare J♥ al gioco 3.")."""
    return t(lang, f"hint.{action.kind}", **_meld_fields(action, short=False))


async def _try_move(p: HandPress, match: scala40.Match, action: str) -> Answer:
    """A move that may need a joker declaration first (the declaration panel)."""
    try:
        match.copy().play(action, seat=p.seat)
    except IllegalAction as error:
        if error.code in ("joker-ambiguous", "joker-undeclared"):
            choices = action_joker_choices(match, action, p.seat)
            if choices:
                await p.set_ui(replace(p.ui, step=Declare(tuple(choices), action=action)))
                return Answer(engine_error(p.lang, error))
        return Answer(engine_error(p.lang, error), alert=True)
    keep_staged = action.split()[0] not in ("open", "take")
    return await p.move(action, cleared(p.ui, keep_staged=keep_staged))


def mark_top(melds: tuple[tuple[str, ...], ...], top: str | None) -> tuple[tuple[str, ...], ...]:
    """Staged melds with the discard pile's top (used once, by ``take open``) marked as ``^``."""
    out = []
    for meld in melds:
        cards = list(meld)
        if top is not None and top in cards:
            cards[cards.index(top)] = TOP
            top = None
        out.append(tuple(cards))
    return tuple(out)


# --- the game's UI -------------------------------------------------------------------------


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
