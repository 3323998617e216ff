"""What the players see: the table, the hands, the turn bells, the summaries (via the outbox).

Nothing here waits for Telegram: live messages are rendered from the store when their chat's
budget lets them out (:mod:`bot.delivery`), so a burst of moves becomes one edit, and every id
and digest is stored once Telegram has confirmed it. With several instances on one database,
each live message's delivery is claimed in the store (:class:`bot.work.Delivery`): one instance
at a time renders, posts, edits or deletes it, so a bell is deleted once and a seat has one
hand message.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Collection
from datetime import datetime

from bot.bells import Bells
from bot.delivery import Claim, Outbox, Priority, Render, Stored, Then
from bot.games import ui_for
from bot.i18n import isolated, t
from bot.lobby_view import lobby_view
from bot.matches import Matches, alone, ui_of
from bot.people import People
from bot.render import Rendered, ending
from bot.render import table as table_render
from bot.render.length import clip
from bot.work import Delivery
from engine import fairness
from engine.games import GameMatch
from storage import FINISHED, MatchRecord

log = logging.getLogger(__name__)

BURIED = 8
"""Messages below the table after which it is posted again at the bottom (a phone's screen);
in a group playing several tables, this many per table: each of them buries the others, and
posting each again whenever it is buried would spend the group's budget on it."""

TABLE_DELAY = 0.3
"""Seconds a table edit waits for more moves to show at once; end-to-end tests set it to 0.
(The group's budget paces the edits: :class:`bot.delivery.Pace`.)"""

WATCH_FACTOR = 10
"""A hand shows another player's move after ``WATCH_FACTOR * table_delay`` seconds (3 s): the
moves of a turn (a draw, then a discard) reach the hands watching in one edit."""


class Shows:
    """Renders and delivery requests for every message a match shows."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        outbox: Outbox,
        clock: Callable[[], datetime],
    ) -> None:
        self.matches = matches
        self.clock = clock
        """The time the turn's time left is counted from (the turn timers' clock)."""
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.table_delay = TABLE_DELAY
        self.panels: dict[int, bool] = {}
        """Matches whose lobby shows its options panel."""
        self._reposted: dict[int, float] = {}
        self._live: dict[tuple[int, int | None], set[int]] = {}
        """The matches whose table is live (a lobby, a match being played) in each chat and
        forum topic."""
        self._posting: dict[tuple[int, int], int | None] = {}
        self._blocked: set[tuple[int, int]] = set()
        self._summing: set[int] = set()
        """Matches whose hand summary is on its way: their next table goes below it."""
        self._unplaced: set[int] = set()
        """Matches whose latest summary went out at a place not stored (the bot stopped first):
        the table posted anew at a resume stands in for it."""
        self._recapped: dict[tuple[int, int], int] = {}
        """Seats whose old hand message (the value) turned into the recap of the hand just
        ended: their next hand is a new message below it, while that message is still the
        stored hand (another instance may have moved on meanwhile)."""
        self._recaps_out: set[tuple[int, int]] = set()
        """Seats whose recap is on its way (not yet stored as shown)."""
        self.bells = Bells(matches, people, outbox, clock, self._claim, self.report_blocked)

    def _claim(self, kind: str, match_id: int, seat: int = 0) -> Claim | None:
        """The claim of a live message's delivery, when instances may share the store (one
        process alone needs none)."""
        return Delivery(self.store, (match_id, kind, seat)) if self.store.shared else None

    # --- the table ---------------------------------------------------------------------------

    def table(
        self, record: MatchRecord, quiet: bool = False, fresh: bool = False, follow: bool = True
    ) -> None:
        """Show the match's latest state in its table message (the lobby before the start, as
        soon as the chat's budget allows: it shows what someone just tapped).

        The edit waits ``table_delay`` seconds so that moves made meanwhile join it; a ``quiet``
        move (a draw) waits three times as long, so it often shows together with the discard
        that follows it. ``fresh`` posts it again at the bottom, as does (``follow``) a table
        buried under :data:`BURIED` messages; the old copy is deleted (or, too old to delete,
        points down). While the end of a hand is being posted, the table waits to go below it;
        a running match's table is never left above its latest summary. ``record``: the match
        as stored now (what the table shows is read when it goes out).
        """
        match_id = record.id
        if match_id in self._summing or record.tournament_id is not None:
            return  # a tournament's table: each player's hand shows the table
        chat_id = record.table_chat_id or record.chat_id
        posted = record.table_message_id
        live, place = record.status in ("lobby", "playing"), (chat_id, record.thread_id)
        buried = BURIED * self._live_tables(place, match_id, live)
        if follow and live and posted is not None:  # what is below it in its topic
            fresh = fresh or self.outbox.newest.get(place, 0) - posted >= buried
        fresh = fresh or (live and posted is not None and above_summary(record, posted))
        lang = self.people.group_lang(record.chat_id)
        self.outbox.put(
            chat_id,
            ("table", match_id),
            lambda: self.table_render(match_id),
            lambda message_id, shown: self._table_shown(match_id, chat_id, message_id, shown),
            Priority.REPLY if record.status == "lobby" else Priority.TABLE,
            fresh=fresh,
            retire=fresh and posted is not None,
            delay=self.table_delay * (3 if quiet else 1),
            sending=lambda shown: self.store.set_table_digest(match_id, shown, pending=True),
            retired_text=t(lang, "table.moved"),
            claim=self._claim("table", match_id),
            thread=record.thread_id,
        )

    def _live_tables(self, place: tuple[int, int | None], match_id: int, live: bool) -> int:
        """How many tables are live in the chat's topic, the match's included (at least 1)."""
        tables = self._live.setdefault(place, set())
        if live:
            tables.add(match_id)
        else:
            tables.discard(match_id)
        count = len(tables)
        if not tables:
            del self._live[place]
        return max(count, 1)

    def repost(self, record: MatchRecord) -> None:
        """Post the table again at the bottom; within ``Pace.repost_gap`` seconds of the last
        repost it is only brought up to date (a flood of ``/table`` posts it once)."""
        now = asyncio.get_running_loop().time()
        last = self._reposted.get(record.id)
        fresh = last is None or now - last >= self.outbox.pace.repost_gap
        if fresh:
            self._reposted[record.id] = now
        self.table(record, fresh=fresh, follow=False)

    def table_render(self, match_id: int) -> Render | None:
        """What the table message shows now: the lobby, the table, or a cancelled lobby."""
        record = self.store.get_match(match_id)
        lang = self.people.group_lang(record.chat_id)
        if record.status == "lobby":
            panel = self.panels.get(match_id, False)
            rendered = lobby_view(record, lang, panel, self.people.lobby_levels(record))
        elif record.state_json is None:
            if record.table_message_id is None:
                return None
            rendered = (t(lang, "lobby.cancelled"), None)
        else:
            rendered = self.table_view(record)
        text, markup = rendered
        text = table_render.labelled(lang, record, text)
        return Render(
            record.table_message_id, record.table_digest, text, markup, record.table_pending
        )

    def table_view(self, record: MatchRecord) -> Rendered:
        """The table message of a running or finished match: the time left of the turn, and
        the deck's commitment before the first move and at the end."""
        match = self.matches.engine(record)
        lang = self.people.group_lang(record.chat_id)
        names = table_render.table_names(record)
        left = table_render.time_left(record.deadline, self.clock())
        seal = t(lang, "table.commitment", code=fairness.short(fairness.commitment(record.seed)))
        return ui_for(record.game).table(match, names, lang, left, seal), None

    def _table_shown(
        self, match_id: int, chat_id: int, message_id: int | None, shown: str | None
    ) -> Stored | Then | None:
        """The table message shows ``shown``: the write that stores it (a new message, or a
        new digest), run off the event loop; in a private chat a new table has the player's
        hand posted below it once stored."""
        if message_id is None:
            return None
        record = self.store.get_match(match_id)
        if record.table_chat_id not in (None, chat_id):
            return None  # the group became a supergroup meanwhile: its new id stays
        if (record.table_chat_id, record.table_message_id) != (chat_id, message_id):
            below = match_id in self._unplaced  # below the summary: the table keeps its place
            self._unplaced.discard(match_id)
            write = functools.partial(
                self._table_posted, match_id, chat_id, message_id, shown, below
            )
            return Then(write, lambda _: self._after_table(match_id, chat_id))
        if shown != record.table_digest or record.table_pending != shown:
            return functools.partial(self.store.set_table_digest, match_id, shown)
        return None

    def _table_posted(
        self, match_id: int, chat_id: int, message_id: int, shown: str | None, below: bool
    ) -> None:
        """Store a table posted anew (and, ``below`` a hand's summary, that it is there)."""
        self.store.set_table_message(match_id, chat_id, message_id, shown)
        if below:
            self.store.set_summary_message(match_id, message_id)

    def _after_table(self, match_id: int, chat_id: int) -> None:
        """A table posted anew is stored: in a private chat the hand goes below it again."""
        record = self.store.get_match(match_id)
        if chat_id > 0 and record.status == "playing":
            self._hands_below(record, chat_id)

    def _hands_below(self, record: MatchRecord, chat_id: int) -> None:
        """A match played in a private chat: its table was posted anew, so the player's hand
        goes below it again (the hand stays the chat's last message)."""
        for seat in record.seats:
            if seat.user_id == chat_id:
                self.hand(record, seat.seat, fresh=True, retire=True)

    # --- the hands ---------------------------------------------------------------------------

    def hand(
        self,
        record: MatchRecord,
        seat: int,
        fresh: bool = False,
        tap: bool = False,
        watch: bool = False,
        retire: bool = False,
    ) -> None:
        """Show a seat's latest hand in its private hand message (``fresh``: a new message,
        ``retire``: the old one deleted; ``tap``: a change of the player's own, gathered with
        the taps that follow it; ``watch``: another player's move, shown after the player's
        own messages and a little later, so that the moves of a turn show in one edit).

        After the recap of a hand (:meth:`recap`) the next hand is a new message below it;
        in a private match it waits for the table, and goes below it. ``record``: the match as
        stored now (what the hand shows is read when it goes out)."""
        match_id = record.id
        user = record.seats[seat].user_id
        if user is None:
            return
        if match_id in self._summing and user == record.table_chat_id:
            return  # the table is posted first, then the hand below it (_hands_below)
        recapped = self._recapped.pop((match_id, seat), None)
        if recapped is not None and recapped == record.seats[seat].hand_message_id:
            fresh, retire = True, False
        moved = t(self.people.user_lang(user), "hand.moved") if retire else None
        self.outbox.put(
            user,
            ("hand", match_id, seat),
            lambda: self._hand_render(match_id, seat, user),
            lambda message_id, shown: self._hand_shown(match_id, seat, message_id, shown),
            Priority.TABLE if watch else Priority.HAND,
            fresh=fresh,
            retire=retire,
            gather=tap,
            delay=self.table_delay * WATCH_FACTOR if watch else 0.0,
            sending=lambda shown: self.store.set_hand_digest(match_id, seat, shown, pending=True),
            retired_text=moved,
            claim=self._claim("hand", match_id, seat),
        )

    def recap(
        self, record: MatchRecord, match: GameMatch, seats: Collection[int] | None = None
    ) -> None:
        """The end of a hand where each person looks: their hand message turns into the hand's
        recap (who closed and how, their own points, the totals), without buttons, and the new
        hand is posted below it (:meth:`hand`). On a phone the chat then reads as the game
        went: the hand that ended and how, then the new cards, which ring as a new message;
        and no keyboard of a hand that is over is left to press. ``seats``: only those (a
        resume shows the recaps that were not shown). In a private match the recap is the
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
            text = self.hand_title(record, lang) + "\n" + recap
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
            self._recapped[(record.id, seat.seat)] = old
            self._recaps_out.add((record.id, seat.seat))

    def _recap_render(self, match_id: int, seat: int, old: int, text: str) -> Render:
        """The recap, edited into the hand message ``old`` with what the store knows of it:
        an edit the bot sent as it stopped (its fate unknown) has it posted anew instead."""
        stored = self.store.get_match(match_id).seats[seat]
        if stored.hand_message_id != old:
            return Render(old, None, text)
        return Render(old, stored.hand_digest, text, None, stored.hand_pending)

    def _recap_shown(
        self, match_id: int, seat: int, hand: int, recapped: int, summary: bool, *_: object
    ) -> None:
        """The recap is out (or could not be): a resume does not show it again, and the seat
        has no hand message until the next hand is posted below it (a bot stopped before it
        posts it, or another instance, posts it then: it would edit the recap). A recap that
        is the hand's ``summary`` (a private match) has the table go below it."""
        self.store.set_recap_hand(match_id, seat, hand)
        self.store.replace_hand_message(match_id, seat, recapped, None)
        self._recaps_out.discard((match_id, seat))
        if summary:
            self._summary_shown(match_id, recapped)

    def hand_end(self, record: MatchRecord) -> None:
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
        if shown is not None and shown < closed and record.id not in self._summing:
            self.summaries(record, match, closed=True)
        elif shown == closed and record.summary_message_id is None:
            self._unplaced.add(record.id)
            self.table(record, fresh=True, follow=False)
        seats = [
            s.seat
            for s in record.seats
            if s.recap_hand is not None
            and s.recap_hand < closed
            and (record.id, s.seat) not in self._recaps_out
        ]
        if seats:
            self.recap(record, match, seats)  # the whole record: names go by seat

    def hand_title(self, record: MatchRecord, lang: str) -> str:
        """A hand message's first line: the game and where it is played."""
        group = self.people.group_title(record.chat_id)
        return t(lang, "hand.title", game=t(lang, f"game.{record.game}"), group=group)

    def hand_view(self, record: MatchRecord, seat: int) -> Rendered:
        """The private hand message of a seat: the names as the table shows them, the time
        left of the turn as the hand is rendered (again at the turn's reminder); at the end of
        the match, how the last hand ended (when it ended it) and the winner and the standings,
        without buttons (in a private match, all the group would read, with the rematch)."""
        seat_record = record.seats[seat]
        match = self.matches.engine(record)
        if match.is_over:
            return self._hand_at_end(record, match, seat)
        return ui_for(record.game).hand(
            record.id,
            seat,
            match,
            ui_of(seat_record),
            table_render.table_names(record),
            self.people.group_title(record.chat_id),
            self.people.user_lang(seat_record.user_id or 0),
            table_render.time_left(record.deadline, self.clock()),
        )

    def _hand_at_end(self, record: MatchRecord, match: GameMatch, seat: int) -> Rendered:
        """The hand message of a finished or stopped match; in a private match it stands for
        the group's messages too (the whole last hand, the ranking, the seed, the rematch)."""
        lang = self.people.user_lang(record.seats[seat].user_id or 0)
        ui = ui_for(record.game)
        names = self.matches.names(record)
        lines = [self.hand_title(record, lang)]
        if ui.closed_hand(match) == match.hand_number:  # the last move ended a hand
            if alone(record):
                lines.append(ui.hand_result(match, names, lang))
            else:
                lines.append(ui.hand_recap(match, seat, names, lang))
        if not alone(record):
            lines.append(ending.result_text(match, self.matches.names(record), lang))
            return clip("\n".join(lines)), None
        text, markup = self.final_ranking(record, match, lang)
        return clip("\n".join([*lines, text])), markup

    def _hand_render(self, match_id: int, seat: int, user: int) -> Render | None:
        record = self.store.get_match(match_id)
        seat_record = record.seats[seat]
        if seat_record.user_id != user or record.state_json is None:
            return None
        rendered = self.hand_view(record, seat)
        self._posting[(match_id, seat)] = seat_record.hand_message_id
        return Render(
            seat_record.hand_message_id,
            seat_record.hand_digest,
            *rendered,
            seat_record.hand_pending,
        )

    def _hand_shown(
        self, match_id: int, seat: int, message_id: int | None, shown: str | None
    ) -> Stored | Then | None:
        """The seat's hand message shows ``shown``: the write that stores it (a new message,
        or a new digest), run off the event loop; a new message that another instance posted
        too (it stored its own first) has the spare copy deleted."""
        # Told again while the store is away: what it keeps is forgotten once it is stored.
        if message_id is None:
            self._posting.pop((match_id, seat), None)
            self.report_blocked(match_id, seat)
            return None
        self._blocked.discard((match_id, seat))
        seat_record = self.store.get_match(match_id).seats[seat]
        if message_id != seat_record.hand_message_id:
            old = self._posting.pop((match_id, seat), None)  # what it replaces, when rendered
            write = functools.partial(
                self.store.replace_hand_message, match_id, seat, old, message_id, shown
            )
            return Then(
                write, lambda stored: self._spare_unless(stored, match_id, seat, message_id)
            )
        self._posting.pop((match_id, seat), None)
        if shown != seat_record.hand_digest or seat_record.hand_pending != shown:
            return functools.partial(self.store.set_hand_digest, match_id, seat, shown)
        return None

    def _spare_unless(self, stored: object, match_id: int, seat: int, message_id: int) -> None:
        if not stored:
            self._spare_hand(match_id, seat, message_id)

    def _spare_hand(self, match_id: int, seat: int, message_id: int) -> None:
        """Another instance posted the seat's hand and stored it first (this one lost its
        claim meanwhile: it was frozen, or the database restarted): this copy goes at once,
        and the stored one shows the latest state."""
        user = self.store.get_match(match_id).seats[seat].user_id
        log.warning("hand %s/%s posted twice: the spare copy goes", user, message_id)
        if user is not None:
            self.outbox.delete(user, message_id, priority=Priority.HAND)
        self.hand(self.store.get_match(match_id), seat)

    def report_blocked(self, match_id: int, seat: int) -> None:
        """A player the bot cannot write to: say so in the group with the deep link, once
        (until a message to that player gets through again)."""
        if (match_id, seat) in self._blocked:
            return
        self._blocked.add((match_id, seat))
        record = self.store.get_match(match_id)
        lang = self.people.group_lang(record.chat_id)
        name, link = isolated(record.seats[seat].name), self.people.deep_link(record.id)
        text = table_render.labelled(lang, record, t(lang, "notify.blocked", name=name, link=link))
        self.outbox.send(record.chat_id, text, priority=Priority.NOTICE, thread=record.thread_id)

    # --- the turn bells ----------------------------------------------------------------------

    def ring(self, record: MatchRecord) -> None:
        """Bring every player's turn bell in line with the stored match (:class:`Bells`)."""
        self.bells.ring(record)

    # --- summaries -------------------------------------------------------------------------

    def summaries(self, record: MatchRecord, match: GameMatch, closed: bool) -> None:
        """The end of a hand (``closed``: this move ended one) and of the match, rendered now,
        from this very state, each posted once at most (the store says who posts it). The next
        hand's table goes below the hand's summary; a stop or an abandonment posts no hand's
        summary (the last one was posted when it ended)."""
        if closed:
            self._hand_ended(record, match)
        if match.is_over:
            self._match_ending(record, match)

    def _hand_ended(self, record: MatchRecord, match: GameMatch) -> None:
        if self._summed_in_recap(record):
            self._hand_end_in_recap(record, match)
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

    def _hand_end_in_recap(self, record: MatchRecord, match: GameMatch) -> None:
        """A private match: the recap (or the hand at the end) says how the hand ended; the
        table waits to go below it."""
        hand = ui_for(record.game).closed_hand(match) or 0
        shown = self.store.show_hand_end(record.id, hand)
        if shown and not match.is_over and record.tournament_id is None:
            self._summing.add(record.id)

    def _hand_summary(self, record: MatchRecord, match: GameMatch) -> None:
        lang = self.people.group_lang(record.chat_id)
        summary = ui_for(record.game).hand_result(match, self.matches.names(record), lang)
        if not summary:
            return
        summary = table_render.labelled(lang, record, summary)
        if not match.is_over:
            self._summing.add(record.id)
        hand = ui_for(record.game).closed_hand(match) or 0
        self.outbox.send(
            record.chat_id,
            summary,
            priority=Priority.NOTICE,
            done=functools.partial(self._summary_shown, record.id),
            sending=functools.partial(self.store.show_hand_end, record.id, hand),
            thread=record.thread_id,
        )

    def _match_ending(self, record: MatchRecord, match: GameMatch) -> None:
        if record.tournament_id is not None:  # each hand shows the end; the board, the rest
            self.store.show_match_end(record.id)
            return
        if alone(record):  # the person's hand shows the end, with the rematch: the last word
            self.store.show_match_end(record.id)
            for seat in record.seats:
                user, posted = seat.user_id, seat.hand_message_id
                if user and posted and self.outbox.newest.get((user, None), 0) > posted:
                    self.hand(record, seat.seat, fresh=True, retire=True)  # a reply below
            return
        text, markup = self.final_ranking(record, match)
        sending = functools.partial(self.store.show_match_end, record.id)
        place = functools.partial(self.store.set_summary_message, record.id)  # a reply names it
        self.outbox.send(
            record.chat_id, text, markup, Priority.NOTICE, sending=sending, thread=record.thread_id,
            done=lambda sent: None if sent is None else functools.partial(place, sent),
        )  # fmt: skip

    def _summary_shown(self, match_id: int, message_id: int | None) -> None:
        """The hand's summary is out (or could not be, or was already): the table of the next
        hand goes below it."""
        if message_id is not None:
            self.store.set_summary_message(match_id, message_id)
        if match_id in self._summing:
            self._summing.discard(match_id)
            self.table(self.store.get_match(match_id), follow=False)

    def match_end(self, record: MatchRecord) -> None:
        """At a resume, a match that ended as the bot stopped: its end in the group if it was
        not shown (the last hand's summary, then the ranking), the final table, and every hand
        and bell brought in line (no bell rings, no hand keeps its buttons)."""
        if not record.end_shown and record.state_json is not None:
            match = self.matches.engine(record)
            closed, shown = ui_for(record.game).closed_hand(match), record.shown_hand
            unshown = closed is not None and shown is not None and shown < closed
            if unshown and record.status == FINISHED:  # a stop shows no hand's end
                self._hand_ended(record, match)
            self._match_ending(record, match)
            record = self.store.get_match(record.id)  # as the end left it
            self.table(record)
        for seat in record.seats:
            if seat.hand_message_id is not None:  # a hand is edited, never posted anew
                self.hand(record, seat.seat)
        self.ring(record)

    def final_ranking(
        self, record: MatchRecord, match: GameMatch, lang: str | None = None
    ) -> Rendered:
        """The ranking at the end of the match (in the group's language, or ``lang``)."""
        lang = lang or self.people.group_lang(record.chat_id)
        return ending.final_ranking(record, match, self.matches.names(record), lang)

    def everything(self, record: MatchRecord) -> None:
        """The table, every hand and the bells (after a start or a resume), after the end of
        the last hand if it was not shown yet."""
        self.hand_end(record)
        record = self.store.get_match(record.id)  # as the end of the hand left it
        self.table(record)
        for seat in range(len(record.seats)):
            self.hand(record, seat)
        self.ring(record)


def above_summary(record: MatchRecord, table_message_id: int) -> bool:
    """Whether the table message is above the latest hand's summary in the same chat."""
    summary = record.summary_message_id
    same_chat = record.table_chat_id in (None, record.chat_id)
    return summary is not None and same_chat and table_message_id < summary
