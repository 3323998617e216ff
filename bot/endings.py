"""The end of a hand and of a match where each person looks: each player's recap in their hand
message, the hand's summary and the final ranking in the group, and what a resume still owes of
them. The table and the hands themselves are :class:`bot.shows.Shows`'s; what the end of a hand
asks of them (the table below the summary, the new hand below the recap) is in its marks.

The store's notes of what went out (a recap shown, a summary's place) are written off the event
loop, as the outbox's other notes are (:class:`bot.delivery.Then`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection

from bot.delivery import Priority, Render, Stored, Then
from bot.games import ui_for
from bot.i18n import t
from bot.matches import alone
from bot.render import Rendered, ending
from bot.render import table as table_render
from bot.render.length import clip
from bot.shows import Shows
from engine.games import GameMatch
from storage import FINISHED, MatchNotFound, MatchRecord


class Endings:
    """The recaps, the summaries and the final ranking of the matches :class:`Shows` shows."""

    def __init__(self, shows: Shows) -> None:
        self.shows = shows
        self.matches = shows.matches
        self.store = shows.store
        self.people = shows.people
        self.outbox = shows.outbox
        self._recaps_out: set[tuple[int, int]] = set()
        """Seats whose recap is on its way (not yet stored as shown)."""

    # --- each player's recap -----------------------------------------------------------------

    def recap(
        self, record: MatchRecord, match: GameMatch, seats: Collection[int] | None = None
    ) -> None:
        """The end of a hand where each person looks: their hand message turns into the hand's
        recap (who closed and how, their own points, the totals), without buttons, and the new
        hand is posted below it (:meth:`Shows.hand`). On a phone the chat then reads as the
        game went: the hand that ended and how, then the new cards, which ring as a new
        message; and no keyboard of a hand that is over is left to press. ``seats``: only those
        (a resume shows the recaps that were not shown). In a private match the recap is the
        hand's whole summary (no other message repeats it), and the table goes below it."""
        ui = ui_for(record.game)
        names = self.matches.names(record)
        closed = ui.closed_hand(match)
        for seat in record.seats:
            old, user = seat.hand_message_id, seat.user_id
            if user is None or old is None or (seats is not None and seat.seat not in seats):
                continue
            lang = self.people.user_lang(user)
            if alone(record):
                recap = ui.hand_result(match, names, lang)
            else:
                recap = ui.hand_recap(match, seat.seat, names, lang)
            text = self.shows.hand_title(record, lang) + "\n" + recap
            if closed is not None and match.hand_number > closed:
                text += "\n" + t(lang, "hand.recap_next", hand=match.hand_number)
            done = functools.partial(
                self._recap_shown, record.id, seat.seat, closed or 0, old, alone(record)
            )
            self.outbox.put(
                user,
                ("recap", record.id, seat.seat, old),
                functools.partial(self._recap_render, record.id, seat.seat, old, clip(text)),
                done,
                Priority.HAND,
                sending=functools.partial(
                    self.store.set_hand_digest, record.id, seat.seat, pending=True
                ),
            )
            self.shows.recapped[(record.id, seat.seat)] = old
            self._recaps_out.add((record.id, seat.seat))

    async def _recap_render(self, match_id: int, seat: int, old: int, text: str) -> Render:
        """The recap, edited into the hand message ``old`` with what the store knows of it:
        an edit the bot sent as it stopped (its fate unknown) has it posted anew instead."""
        record = await self.matches.load(match_id, render=True)
        if record is None:
            raise MatchNotFound(self.store.database, match_id)
        stored = record.seats[seat]
        if stored.hand_message_id != old:
            return Render(old, None, text)
        return Render(old, stored.hand_digest, text, None, stored.hand_pending)

    def _recap_shown(
        self, match_id: int, seat: int, hand: int, recapped: int, summary: bool, *_: object
    ) -> Then:
        """The recap is out (or could not be): a resume does not show it again, and the seat
        has no hand message until the next hand is posted below it (a bot stopped before it
        posts it, or another instance, posts it then: it would edit the recap). A recap that
        is the hand's ``summary`` (a private match) has the table go below it."""

        def write() -> MatchRecord:
            self.store.set_recap_hand(match_id, seat, hand)
            self.store.replace_hand_message(match_id, seat, recapped, None)
            if summary:
                self.store.set_summary_message(match_id, recapped)
            return self.store.get_match(match_id)

        def then(stored: object) -> None:
            self._recaps_out.discard((match_id, seat))
            if summary:
                self._below_summary(stored)

        return Then(write, then)

    # --- the group's summaries ---------------------------------------------------------------

    async def summaries(self, record: MatchRecord, match: GameMatch, closed: bool) -> None:
        """The end of a hand (``closed``: this move ended one) and of the match, rendered now,
        from this very state, each posted once at most (the store says who posts it). The next
        hand's table goes below the hand's summary; a stop or an abandonment posts no hand's
        summary (the last one was posted when it ended)."""
        if closed:
            await self._hand_ended(record, match)
        if match.is_over:
            await self._match_ending(record, match)

    async def _hand_ended(self, record: MatchRecord, match: GameMatch) -> None:
        if self._summed_in_recap(record):
            await self._hand_end_in_recap(record, match)
        else:
            self._hand_summary(record, match)

    def _summed_in_recap(self, record: MatchRecord) -> bool:
        """Whether the end of a hand is shown in the recaps alone (a tournament's table, or a
        private match whose hand message is there to turn into it)."""
        if record.tournament_id is not None:
            return True
        return alone(record) and any(
            s.user_id is not None and s.hand_message_id is not None for s in record.seats
        )

    async def _hand_end_in_recap(self, record: MatchRecord, match: GameMatch) -> None:
        """A private match: the recap (or the hand at the end) says how the hand ended; the
        table waits to go below it."""
        hand = ui_for(record.game).closed_hand(match) or 0
        shown = await self.store.off(self.store.show_hand_end, record.id, hand)
        if shown and not match.is_over and record.tournament_id is None:
            self.shows.summing.add(record.id)

    def _hand_summary(self, record: MatchRecord, match: GameMatch) -> None:
        lang = self.people.group_lang(record.chat_id)
        summary = ui_for(record.game).hand_result(match, self.matches.names(record), lang)
        if not summary:
            return
        summary = table_render.labelled(lang, record, summary)
        if not match.is_over:
            self.shows.summing.add(record.id)
        hand = ui_for(record.game).closed_hand(match) or 0
        self.outbox.send(
            record.chat_id,
            summary,
            priority=Priority.NOTICE,
            done=functools.partial(self._summary_shown, record.id),
            sending=functools.partial(self.store.show_hand_end, record.id, hand),
            thread=record.thread_id,
        )

    async def _match_ending(self, record: MatchRecord, match: GameMatch) -> None:
        if record.tournament_id is not None:  # each hand shows the end; the board, the rest
            await self.store.off(self.store.show_match_end, record.id)
            return
        if alone(record):  # the person's hand shows the end, with the rematch: the last word
            await self.store.off(self.store.show_match_end, record.id)
            for seat in record.seats:
                user, posted = seat.user_id, seat.hand_message_id
                if user and posted and self.outbox.newest.get((user, None), 0) > posted:
                    self.shows.hand(record, seat.seat, fresh=True, retire=True)  # a reply below
            return
        text, markup = self.final_ranking(record, match)
        sending = functools.partial(self.store.show_match_end, record.id)
        place = functools.partial(self.store.set_summary_message, record.id)  # a reply names it
        self.outbox.send(
            record.chat_id, text, markup, Priority.NOTICE, sending=sending, thread=record.thread_id,
            done=lambda sent: None if sent is None else functools.partial(place, sent),
        )  # fmt: skip

    def _summary_shown(self, match_id: int, message_id: int | None) -> Stored | Then | None:
        """The hand's summary is out (or could not be, or was already): its place is stored,
        then the table of the next hand goes below it."""
        if message_id is None:
            return Then(functools.partial(self.store.get_match, match_id), self._below_summary)
        write = functools.partial(self._summary_placed, match_id, message_id)
        return Then(write, self._below_summary)

    def _summary_placed(self, match_id: int, message_id: int) -> MatchRecord:
        """Store where the hand's summary is; the match as stored after it."""
        self.store.set_summary_message(match_id, message_id)
        return self.store.get_match(match_id)

    def _below_summary(self, stored: object) -> None:
        """The hand's summary is where it stays (``stored``: the match as stored after it):
        the table it held back goes below it."""
        assert isinstance(stored, MatchRecord)
        if stored.id in self.shows.summing:
            self.shows.summing.discard(stored.id)
            self.shows.table(stored, follow=False)

    def final_ranking(
        self, record: MatchRecord, match: GameMatch, lang: str | None = None
    ) -> Rendered:
        """The ranking at the end of the match (in the group's language, or ``lang``)."""
        lang = lang or self.people.group_lang(record.chat_id)
        return ending.final_ranking(record, match, self.matches.names(record), lang)

    # --- what a resume owes ------------------------------------------------------------------

    async def hand_end(self, record: MatchRecord) -> None:
        """At a resume (or once the store is back): the end of the latest hand, if the bot
        stopped before showing it (its summary in the group, then the table below it; each
        recap, then the new hand below it), exactly as it would have been shown; what was
        shown (or is on its way) is not shown again. A bot stopped before storing where the
        summary went posts the table again, so that it is below it."""
        if record.status != "playing" or record.state_json is None:
            return
        match = self.matches.engine(record)
        closed = ui_for(record.game).closed_hand(match)
        if closed is None or match.is_over:
            return
        shown = record.shown_hand
        if shown is not None and shown < closed and record.id not in self.shows.summing:
            await self.summaries(record, match, closed=True)
        elif shown == closed and record.summary_message_id is None:
            self.shows.unplaced.add(record.id)
            self.shows.table(record, fresh=True, follow=False)
        seats = [
            s.seat
            for s in record.seats
            if s.recap_hand is not None
            and s.recap_hand < closed
            and (record.id, s.seat) not in self._recaps_out
        ]
        if seats:
            self.recap(record, match, seats)  # the whole record: names go by seat

    async def match_end(self, record: MatchRecord) -> None:
        """At a resume, a match that ended as the bot stopped: its end in the group if it was
        not shown (the last hand's summary, then the ranking), the final table, and every hand
        and bell brought in line (no bell rings, no hand keeps its buttons)."""
        if not record.end_shown and record.state_json is not None:
            match = self.matches.engine(record)
            closed, shown = ui_for(record.game).closed_hand(match), record.shown_hand
            unshown = closed is not None and shown is not None and shown < closed
            if unshown and record.status == FINISHED:  # a stop shows no hand's end
                await self._hand_ended(record, match)
            await self._match_ending(record, match)
            record = await self.matches.stored(record.id)  # as the end left it
            self.shows.table(record)
        for seat in record.seats:
            if seat.hand_message_id is not None:  # a hand is edited, never posted anew
                self.shows.hand(record, seat.seat)
        self.shows.ring(record)

    async def everything(self, record: MatchRecord) -> None:
        """The table, every hand and the bells (after a start or a resume), after the end of
        the last hand if it was not shown yet."""
        await self.hand_end(record)
        record = await self.matches.stored(record.id)  # as the end of the hand left it
        self.shows.table(record)
        for seat in range(len(record.seats)):
            self.shows.hand(record, seat)
        self.shows.ring(record)
