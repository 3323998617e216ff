"""Scala 40's presses on the private hand: a UI change, or a move the engine checks
(docs/rules.md S40)."""

from __future__ import annotations

from dataclasses import replace

from bot.answer import Answer, engine_error
from bot.callbacks import button_index
from bot.games.base import HandPress
from bot.games.scala40.table import meld_fields
from bot.hand.state import (
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
    reordered,
    toggle,
    tokens,
)
from bot.i18n import error_text, t
from bot.render import cards as show
from engine import scala40
from engine.errors import IllegalAction, InvalidMeld
from engine.scala40.hints import action_joker_choices, fits, meld_joker_choices


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
    if op == Op.ORDER:
        order = reordered(ui, shown, [face.upper() for face in p.arg.split()])
        if order is None:
            return Answer(t(lang, "ans.stale"))
        await p.set_ui(order)
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
    return t(lang, f"hint.{action.kind}", **meld_fields(action, short=False))


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
