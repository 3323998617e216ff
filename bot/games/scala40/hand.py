"""Scala 40's private hand: the cockpit's text and its buttons (docs/rules.md S40)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.games.scala40.table import goal, labelled, moves_since
from bot.hand.keys import (
    HandKeys,
    count_lines,
    header_line,
    rows,
    score_lines,
    since_lines,
)
from bot.hand.state import (
    FREED,
    TOP,
    Attach,
    Declare,
    HandUI,
    Op,
    Swap,
    display,
    staged_tokens,
)
from bot.i18n import t
from bot.render import cards as show
from bot.render.length import clip
from bot.render.table import (
    name_of,
    packed,
    waiting_line,
)
from engine import scala40
from engine.errors import InvalidMeld

NEW = "🆕"
"""The mark of the card just drawn (or taken from the discard pile) on its button."""
TARGET_ROW = 2
"""Attach targets a row: each names its meld's cards."""


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
        lines += labelled(t(lang, "hand.partner", cards=cards[0]), cards[1:], " ")
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
    lines = [header_line(lang, view.hand_number, goal(view, lang, cockpit.hands), left)]
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
