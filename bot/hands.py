"""Presses on a player's private hand: checked against the stored seat and the context the
keyboard was drawn in, then handed to the game's UI (:mod:`bot.games`)."""

from __future__ import annotations

from dataclasses import replace

from bot import callbacks
from bot.answer import Answer
from bot.games import HandPress, ui_for
from bot.hand.state import HandUI, Op, context_token
from bot.i18n import t
from bot.matches import Matches, save_ui, ui_of
from bot.moves import Moves
from bot.shows import Shows

ANY_CONTEXT = (Op.TOGGLE, Op.SORT_SUIT, Op.SORT_RANK, Op.ORDER)
"""Hand presses accepted from a keyboard of any context: a card toggle names its card, an order
all the cards (each checked against the cards shown now), sorting is idempotent."""


class Hands:
    """The hand presses."""

    def __init__(self, matches: Matches, shows: Shows, moves: Moves) -> None:
        self.matches = matches
        self.store = matches.store
        self.shows = shows
        self.moves = moves

    async def press(
        self, data: callbacks.Callback, user_id: int, lang: str, page: bool = False
    ) -> Answer:
        """A hand button: check who and when (the match read once, under its lock), then the
        game's UI handles it. ``lang``: the presser's language; ``page``: a tap in the Mini App
        (:mod:`bot.pages`), where a change of the hand's look is shown, not in the chat."""
        async with self.matches.hold(data.match_id) as record:
            if record is None or record.status != "playing":
                return Answer(t(lang, "ans.no_match"))
            if not 0 <= data.seat < len(record.seats) or record.seats[data.seat].user_id != user_id:
                return Answer(t(lang, "ans.not_yours"))
            match = self.matches.engine(record)
            if data.seat in match.computer_seats:  # its player left: the bot plays it now
                return Answer(t(lang, "ans.abandoned"))
            try:
                op = Op(data.op)
            except ValueError:
                return Answer(t(lang, "ans.stale"))
            ui = ui_of(record.seats[data.seat])
            drawn_in = context_token(match.view(data.seat).hand, ui)
            behind = not page and (record.id, data.seat) in self.shows.behind
            if behind or (op not in ANY_CONTEXT and data.context != drawn_in):
                self.shows.hand(record, data.seat, chat=True)  # an old keyboard: the current one
                return Answer(t(lang, "ans.stale"))
            seat = data.seat

            # The UI states the game's UI makes are replacements of ``ui``: they carry the
            # stored version, on which the store checks the write.
            async def set_ui(new: HandUI) -> None:
                saved = replace(new, version=ui.version)
                await self.store.off(save_ui, self.store, record.id, seat, saved)
                if page:  # the chat shows it at the next move, or at its next press
                    self.shows.behind.add((record.id, seat))
                else:
                    self.shows.hand(record, seat, tap=True, chat=True)

            async def move(action: str, ui_after: HandUI) -> Answer:
                after = replace(ui_after, version=ui.version)
                return await self.moves.move(record, seat, action, lang, after)

            press = HandPress(record, match, seat, ui, op, data.arg, lang, set_ui, move)
            answer = await ui_for(record.game).press(press)
            if answer.text and not answer.news:
                # A refusal may come from a hand that shows less than is stored (an instance
                # died before it showed a tap): the hand shows the stored state again, if
                # it does not already.
                self.shows.hand(record, seat, chat=not page)
            return answer
