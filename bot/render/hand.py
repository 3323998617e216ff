"""The private hand message: text and inline keyboard, for Scala 40 and Scopone."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.hand_ui import FREED, TOP, HandUI, context_token, display, staged_tokens
from bot.i18n import t
from bot.render import cards as show
from bot.render.length import clip
from engine import scala40, scopone
from engine.errors import InvalidMeld

ROW = 8
"""Telegram shows at most 8 buttons a row."""


def rows(buttons: list[InlineKeyboardButton], width: int = ROW) -> list[list[InlineKeyboardButton]]:
    """Split buttons into rows of at most ``width``."""
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


def staged_total(ui: HandUI, top: str | None) -> int | None:
    """The total value of the staged melds, or None if one is not a valid meld."""
    try:
        return sum(scala40.meld_value(meld) for meld in staged_tokens(ui, top))
    except InvalidMeld:
        return None


class HandKeys:
    """Builds the hand's buttons for one seat, drawn in one context (the hand and its step)."""

    def __init__(
        self, match_id: int, seat: int, ui: HandUI, lang: str, hand: Sequence[object]
    ) -> None:
        self.match_id = match_id
        self.seat = seat
        self.ui = ui
        self.lang = lang
        self.context = context_token(hand, ui)

    def button(self, text: str, op: str, arg: str | int = "") -> InlineKeyboardButton:
        """One hand button."""
        data = callbacks.hand(self.match_id, self.seat, self.context, op, arg)
        return InlineKeyboardButton(text, callback_data=data)

    def label(self, key: str, **fields: object) -> str:
        """A translated button label."""
        return t(self.lang, key, **fields)


def scala40_hand(
    match_id: int,
    seat: int,
    view: scala40.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
    threshold: int,
) -> tuple[str, InlineKeyboardMarkup]:
    """The Scala 40 hand message of ``seat``: cards as buttons, then the actions.

    Between the player's own turns the message does not change when others move (so a turn
    costs few Bot API calls): it shows the draw-phase keys, the discard as ``⤴`` and the staged
    melds; the bell of the player's turn says what the discard is. After drawing it shows the
    play-phase keys, the piles and the melds on the table.
    """
    keys = HandKeys(match_id, seat, ui, lang, view.hand)
    running = view.result is None and view.phase in ("draw", "play")
    playing = running and view.to_play == seat and view.phase == "play"
    shown = display(view.hand, ui)
    card_buttons = []
    if running and not playing:
        mark = "✓" if TOP in ui.selected else ""
        card_buttons.append(keys.button(mark + keys.label("btn.top"), "t", TOP))
    if ui.mode == "swap":
        card_buttons.append(keys.button(("✓" if FREED in ui.selected else "") + "🃏", "t", FREED))
    for key, face in shown:
        mark = "✓" if key in ui.selected else ""
        card_buttons.append(keys.button(mark + show.card(face), "t", key.replace("#", ".")))
    keyboard = rows(card_buttons)
    keyboard += _s40_actions(keys, view, ui, running, playing)
    text = _s40_text(view, ui, group, lang, threshold, running, playing)
    return text, InlineKeyboardMarkup(keyboard)


def _s40_text(
    view: scala40.View,
    ui: HandUI,
    group: str,
    lang: str,
    threshold: int,
    running: bool,
    playing: bool,
) -> str:
    lines = [t(lang, "hand.title", game=t(lang, "game.scala40"), group=group)]
    top = view.discard_top
    if not running:
        lines.append(t(lang, "hand.over"))
    elif not playing:
        lines.append(t(lang, "hand.idle"))
    else:
        key = "hand.play" if view.opened[view.seat] else "hand.play_not_open"
        lines.append(t(lang, key, threshold=threshold))
        top_text = show.card(top) if top else "—"
        lines.append(t(lang, "hand.piles", card=top_text, stock=view.stock_size))
        if view.melds:
            melds = " · ".join(f"{m.number}) {show.meld(m.cards, m.jokers)}" for m in view.melds)
            lines.append(t(lang, "hand.melds", melds=melds))
    if ui.staged:
        staged = " | ".join(show.cards(m) for m in staged_tokens(ui, top))
        total = staged_total(ui, top)
        lines.append(
            t(lang, "hand.staged", melds=staged, total=total if total is not None else "?")
        )
    if view.partner_hand is not None:
        lines.append(t(lang, "hand.partner", cards=show.cards(view.partner_hand)))
    if ui.mode == "attach":
        lines.append(t(lang, "hand.pick_meld"))
    elif ui.mode == "joker":
        lines.append(t(lang, "hand.pick_joker"))
    elif ui.mode == "swap":
        lines.append(t(lang, "hand.swap", number=ui.pending.split()[0]))
    return clip("\n".join(lines))


def _s40_actions(
    keys: HandKeys, view: scala40.View, ui: HandUI, running: bool, playing: bool
) -> list[list[InlineKeyboardButton]]:
    if ui.mode == "attach":
        numbers = [
            keys.button(keys.label("btn.meld_number", number=m.number), "a", m.number)
            for m in view.melds
        ]
        return [*rows(numbers), [keys.button(keys.label("btn.cancel"), "cl")]]
    if ui.mode == "joker":
        choices = [
            keys.button(show.card(face), "jd", face) for face in ui.pending.split("|")[0].split()
        ]
        return [*rows(choices), [keys.button(keys.label("btn.cancel"), "cl")]]
    out: list[list[InlineKeyboardButton]] = []
    if running:
        out += _s40_turn_rows(keys, view, ui, playing)
    selected = len(ui.selected)
    tools = [
        keys.button(keys.label("btn.sort_suit"), "ss"),
        keys.button(keys.label("btn.sort_rank"), "sr"),
    ]
    if selected:
        tools.append(keys.button(keys.label("btn.move"), "mv"))
    if selected or ui.mode:
        tools.append(keys.button(keys.label("btn.clear"), "cl"))
    if running:
        tools.append(keys.button(keys.label("btn.hint"), "hn"))
    out.append(tools)
    return [row for row in out if row]


def _s40_turn_rows(
    keys: HandKeys, view: scala40.View, ui: HandUI, playing: bool
) -> list[list[InlineKeyboardButton]]:
    """The draw-phase keys (also shown while waiting) or the play-phase keys."""
    selected = len(ui.selected)
    opened = view.opened[view.seat]
    row: list[InlineKeyboardButton] = []
    if not playing:
        row.append(keys.button(keys.label("btn.draw"), "dr"))
    can_lay = playing or TOP in ui.selected
    if selected and can_lay and (opened or ui.mode == "swap"):
        row += [
            keys.button(keys.label("btn.meld"), "md"),
            keys.button(keys.label("btn.attach"), "at"),
        ]
    if selected and not opened:
        row.append(keys.button(keys.label("btn.stage"), "sg"))
    actions: list[InlineKeyboardButton] = []
    if ui.staged and not opened:
        total = staged_total(ui, view.discard_top)
        label = keys.label("btn.open", total=total if total is not None else "?")
        actions += [keys.button(label, "op"), keys.button(keys.label("btn.unstage"), "us")]
    if playing and selected == 1 and ui.selected[0] not in (TOP, FREED):
        face = ui.selected[0].split("#")[0]
        label = keys.label("btn.discard", card=show.card(face))
        actions.append(keys.button(label, "ds", ui.selected[0].replace("#", ".")))
        if opened and ui.mode != "swap":
            actions.append(keys.button(keys.label("btn.swap"), "sw"))
    return [row, actions]


def scopone_hand(
    match_id: int,
    seat: int,
    view: scopone.View,
    ui: HandUI,
    names: list[str],
    group: str,
    lang: str,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The Scopone hand: the cards as buttons; then the capture choice when several are allowed."""
    keys = HandKeys(match_id, seat, ui, lang, view.hand)
    lines = [t(lang, "hand.title", game=t(lang, "game.scopone"), group=group)]
    my_turn = view.to_play == seat and view.result is None
    lines.append(t(lang, "hand.over" if view.result is not None else "hand.scopone_idle"))
    keyboard: list[list[InlineKeyboardButton]]
    if ui.mode == "capture" and my_turn:
        card = ui.pending
        lines.append(t(lang, "hand.pick_capture", card=show.card(card)))
        options = [str(a) for a in view.legal_actions if str(a.card) == card]
        buttons = [
            keys.button(_capture_label(option, lang), "c", index)
            for index, option in enumerate(options)
        ]
        keyboard = [[b] for b in buttons] + [[keys.button(keys.label("btn.cancel"), "cl")]]
    else:
        hand = [str(c) for c in view.hand]
        keyboard = rows(
            [keys.button(show.card(face), "p", index) for index, face in enumerate(hand)], 5
        )
    # An empty keyboard is not valid JSON markup for Telegram: no cards, no keyboard.
    return clip("\n".join(lines)), InlineKeyboardMarkup(keyboard) if keyboard else None


def _capture_label(action_text: str, lang: str) -> str:
    words = action_text.split()
    if "take" not in words:
        return t(lang, "btn.take_nothing", card=show.card(words[1]))
    taken = words[words.index("take") + 1 :]
    return f"{show.card(words[1])} → {show.cards(taken)}"
