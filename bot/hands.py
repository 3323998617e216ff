"""Presses on the private hand: card selection, staging, the declaration panel, moves."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot import callbacks
from bot.core import Answer, Core, engine_error, ui_changes, ui_of
from bot.hand_ui import (
    FREED,
    TOP,
    HandUI,
    attach_action,
    cleared,
    context_token,
    declare_first_joker,
    display,
    meld_action,
    move_selected_first,
    open_action,
    toggle,
    tokens,
)
from bot.i18n import error_text, t
from engine import scala40, scopone
from engine.errors import IllegalAction, InvalidMeld
from engine.scala40.hints import action_joker_choices, meld_joker_choices
from storage import MatchRecord

log = logging.getLogger(__name__)

ANY_CONTEXT = ("t", "ss", "sr")
"""Hand presses accepted from a keyboard of any context: a card toggle names its card (and is
checked against the cards shown now), sorting is idempotent."""


class Hands(Core):
    """Hand presses, checked against the stored seat and UI version."""

    async def hand_press(self, data: callbacks.Callback, user_id: int) -> Answer:
        """A hand button: check who and when, then a UI change or a move."""
        if self.record_or_none(data.match_id) is None:  # no lock for a match that is not
            return Answer(t(self.user_lang(user_id), "ans.no_match"))
        async with self.lock(data.match_id):
            record = self.record_or_none(data.match_id)
            lang = self.user_lang(user_id)
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            if not 0 <= data.seat < len(record.seats) or record.seats[data.seat].user_id != user_id:
                return Answer(t(lang, "ans.not_yours"))
            match = self.engine(record)
            hand = match.view(data.seat).hand
            drawn_in = context_token(hand, ui_of(record.seats[data.seat]))
            if data.op not in ANY_CONTEXT and data.context != drawn_in:
                return Answer(t(lang, "ans.stale"))
            if isinstance(match, scala40.Match):
                return await self._scala40_press(record, match, data, lang)
            assert isinstance(match, scopone.Match)
            return await self._scopone_press(record, match, data, lang)

    async def _set_ui(self, record: MatchRecord, seat: int, ui: HandUI) -> None:
        self.store.update_seat_ui(record.id, seat, ui.version, **ui_changes(ui))
        self.request_hand(record.id, seat, tap=True)

    async def _scala40_press(
        self, record: MatchRecord, match: scala40.Match, data: callbacks.Callback, lang: str
    ) -> Answer:
        seat = data.seat
        ui = ui_of(record.seats[seat])
        view = match.view(seat)
        my_turn = match.to_play == seat
        playing = my_turn and view.phase == "play"
        # The discard is selectable except while playing after the draw (the keyboard shows it).
        running = view.result is None and view.phase in ("draw", "play")
        top = view.discard_top if running and not playing else None
        op, arg = data.op, data.arg
        shown = display(view.hand, ui)
        if op == "t":
            key = arg.replace(".", "#")
            valid = {k for k, _ in shown}
            if top is not None:
                valid.add(TOP)
            if ui.mode == "swap":
                valid.add(FREED)
            if key not in valid:
                return Answer(t(lang, "ans.stale"))
            await self._set_ui(record, seat, toggle(ui, key))
            return Answer()
        if op in ("ss", "sr"):
            await self._set_ui(record, seat, replace(ui, sort="suit" if op == "ss" else "rank"))
            return Answer()
        if op == "mv":
            await self._set_ui(record, seat, move_selected_first(ui, shown))
            return Answer()
        if op == "cl":
            await self._set_ui(record, seat, cleared(ui))
            return Answer()
        if op == "us":  # staging is the player's own business, in turn or not
            await self._set_ui(record, seat, replace(ui, staged=(), selected=()))
            return Answer()
        if op == "sg" and ui.selected:
            return await self._stage(record, seat, ui, top, lang)
        if not my_turn:
            return Answer(t(lang, "ans.not_your_turn"))
        return await self._scala40_turn_press(record, match, seat, ui, op, arg, top, lang)

    async def _scala40_turn_press(
        self,
        record: MatchRecord,
        match: scala40.Match,
        seat: int,
        ui: HandUI,
        op: str,
        arg: str,
        top: str | None,
        lang: str,
    ) -> Answer:
        if op == "dr":
            return await self.move(record, seat, "draw", lang, cleared(ui))
        if op == "hn":
            return await self._scala40_hint(record, match, seat, ui, lang)
        if op == "us":
            await self._set_ui(record, seat, replace(ui, staged=(), selected=()))
            return Answer()
        if op == "op":
            return await self._try_move(record, match, seat, open_action(ui, top), lang, ui)
        if op == "jd":
            if ui.mode != "joker" or arg not in ui.pending.split("|", 1)[0].split():
                return Answer(t(lang, "ans.stale"))  # not one of the choices offered
            pending = ui.pending.split("|", 1)[1] if "|" in ui.pending else ""
            if pending.startswith("stage:"):
                staged_meld = tuple(declare_first_joker(pending[6:], arg).split())
                await self._set_ui(
                    record, seat, replace(cleared(ui), staged=(*ui.staged, staged_meld))
                )
                return Answer()
            return await self._try_move(
                record, match, seat, declare_first_joker(pending, arg), lang, ui
            )
        if not ui.selected:
            return Answer(t(lang, "ans.select_cards"))
        if op == "md":
            return await self._try_move(record, match, seat, meld_action(ui, top), lang, ui)
        if op == "at":
            pending = f"{ui.pending}|swap" if ui.mode == "swap" else ""
            await self._set_ui(record, seat, replace(ui, mode="attach", pending=pending))
            return Answer()
        if op == "a" and arg.isdigit():
            return await self._try_move(
                record, match, seat, attach_action(ui, top, int(arg)), lang, ui
            )
        if op == "sg":
            return await self._stage(record, seat, ui, top, lang)
        if op == "ds" and len(ui.selected) == 1:
            if arg and arg.replace(".", "#") != ui.selected[0]:
                return Answer(t(lang, "ans.stale"))  # the button names another card
            return await self.move(record, seat, f"discard {tokens(ui, top)[0]}", lang, cleared(ui))
        if op == "sw" and len(ui.selected) == 1:
            return await self._swap_target(record, match, seat, ui, tokens(ui, top)[0], lang)
        return Answer(t(lang, "ans.select_one"))

    async def _stage(
        self, record: MatchRecord, seat: int, ui: HandUI, top: str | None, lang: str
    ) -> Answer:
        meld = tuple(TOP if key == TOP else key.split("#")[0] for key in ui.selected)
        cards = [top or "" if token == TOP else token for token in meld]
        try:
            scala40.meld_value(cards)
        except InvalidMeld as error:
            if error.code in ("joker-ambiguous", "joker-undeclared"):
                choices = meld_joker_choices(cards)
                if choices:
                    pending = " ".join(choices) + "|stage:" + " ".join(meld)
                    await self._set_ui(record, seat, replace(ui, mode="joker", pending=pending))
                    return Answer(engine_error(lang, error))
            return Answer(engine_error(lang, error), alert=True)
        await self._set_ui(record, seat, replace(cleared(ui), staged=(*ui.staged, meld)))
        return Answer()

    async def _swap_target(
        self, record: MatchRecord, match: scala40.Match, seat: int, ui: HandUI, card: str, lang: str
    ) -> Answer:
        for meld in match.view(seat).melds:
            if card in meld.jokers.values():
                pending = f"{meld.number} {card}"
                await self._set_ui(
                    record, seat, replace(ui, mode="swap", pending=pending, selected=(FREED,))
                )
                return Answer()
        return Answer(error_text(lang, "no-joker"), alert=True)

    async def _scala40_hint(
        self, record: MatchRecord, match: scala40.Match, seat: int, ui: HandUI, lang: str
    ) -> Answer:
        actions = match.legal_actions()
        opening = next(
            (
                a
                for a in actions
                if a.kind == "open" or (a.kind == "take" and a.use and a.use.kind == "open")
            ),
            None,
        )
        if opening is not None:
            use = opening.use if opening.kind == "take" and opening.use else opening
            top = match.view(seat).discard_top if opening.kind == "take" else None
            staged = mark_top(use.melds, top)
            await self._set_ui(record, seat, replace(cleared(ui), staged=staged))
            total = sum(scala40.meld_value(list(m)) for m in use.melds)
            return Answer(t(lang, "ans.hint_open", total=total))
        plays = [a for a in actions if a.kind in ("meld", "attach")]
        if plays:
            return Answer(t(lang, "ans.hint_play", action=str(plays[0])))
        if not match.opened[seat]:
            best = scala40.best_opening(match.view(seat).hand, match.options.opening_points)
            return Answer(t(lang, "ans.hint_none", total=best.total))
        return Answer(t(lang, "ans.hint_nothing"))

    async def _try_move(
        self,
        record: MatchRecord,
        match: scala40.Match,
        seat: int,
        action: str,
        lang: str,
        ui: HandUI,
    ) -> Answer:
        """A move that may need a joker declaration first (the declaration panel)."""
        try:
            match.copy().play(action, seat=seat)
        except IllegalAction as error:
            if error.code in ("joker-ambiguous", "joker-undeclared"):
                choices = action_joker_choices(match, action, seat)
                if choices:
                    await self._set_ui(
                        record,
                        seat,
                        replace(ui, mode="joker", pending=" ".join(choices) + "|" + action),
                    )
                    return Answer(engine_error(lang, error))
            return Answer(engine_error(lang, error), alert=True)
        return await self.move(
            record,
            seat,
            action,
            lang,
            cleared(ui, keep_staged=action.split()[0] not in ("open", "take")),
        )

    async def _scopone_press(
        self, record: MatchRecord, match: scopone.Match, data: callbacks.Callback, lang: str
    ) -> Answer:
        seat = data.seat
        ui = ui_of(record.seats[seat])
        if data.op == "cl":
            await self._set_ui(record, seat, cleared(ui))
            return Answer()
        if match.to_play != seat:
            return Answer(t(lang, "ans.not_your_turn"))
        view = match.view(seat)
        if data.op == "p" and data.arg.isdigit() and int(data.arg) < len(view.hand):
            card = str(view.hand[int(data.arg)])
            options = [str(a) for a in view.legal_actions if str(a.card) == card]
            if len(options) > 1:
                await self._set_ui(record, seat, replace(ui, mode="capture", pending=card))
                return Answer()
            return await self.move(
                record, seat, options[0] if options else f"play {card}", lang, cleared(ui)
            )
        if data.op == "c" and ui.mode == "capture" and data.arg.isdigit():
            options = [str(a) for a in view.legal_actions if str(a.card) == ui.pending]
            if int(data.arg) < len(options):
                return await self.move(record, seat, options[int(data.arg)], lang, cleared(ui))
        return Answer(t(lang, "ans.stale"))


def mark_top(melds: tuple[tuple[str, ...], ...], top: str | None) -> tuple[tuple[str, ...], ...]:
    """Staged melds with the discard pile's top (used once, by ``take open``) marked as ``^``."""
    out = []
    for meld in melds:
        tokens = list(meld)
        if top is not None and top in tokens:
            tokens[tokens.index(top)] = TOP
            top = None
        out.append(tuple(tokens))
    return tuple(out)
