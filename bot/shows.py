"""What the players see: the table, the hands, the turn bells (via the outbox; the end of a
hand and of the match: :mod:`bot.endings`).

Nothing here waits for Telegram: live messages are rendered from the store when their chat's
budget lets them out (:mod:`bot.delivery`), so a burst of moves becomes one edit, and every id
and digest is stored once Telegram has confirmed it. A render loads its match then (the latest
state, not a snapshot taken when it was asked for, which another instance's move may have
overtaken): from what the store keeps, else off the event loop (:meth:`Matches.load`). With
several instances on one database, each live message's delivery is claimed in the store
(:class:`bot.work.Delivery`): one instance at a time renders, posts, edits or deletes it, so a
bell is deleted once and a seat has one hand message.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from datetime import datetime

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.background import Background
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
from storage import MatchRecord, SeatRecord

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
        self.reporting = Background()
        """Telling groups that a player blocked the bot (:meth:`report_blocked`)."""
        # What the end of a hand (bot.endings) asks of the table and the hands:
        self.summing: set[int] = set()
        """Matches whose hand summary is on its way: their next table goes below it."""
        self.unplaced: set[int] = set()
        """Matches whose latest summary went out at a place not stored (the bot stopped first):
        the table posted anew at a resume stands in for it."""
        self.recapped: dict[tuple[int, int], int] = {}
        """Seats whose old hand message (the value) turned into the recap of the hand just
        ended: their next hand is a new message below it, while that message is still the
        stored hand (another instance may have moved on meanwhile)."""
        self.page_link: Callable[[int], str] | None = None
        """The Mini App's page of a match (None: no Mini App): the hand's 🃏 button opens it."""
        self.group_link: Callable[[int], str] | None = None
        """The Mini App's direct link to a match, which its group's table offers."""
        self.behind: set[tuple[int, int]] = set()
        """Seats whose hand a tap in the Mini App changed (a card lifted) since their chat's
        hand message was last asked to show it: a press there acts on what it does not show."""
        self.on_page: Callable[[int, int], bool] = lambda match_id, user: False
        """Whether the user has the match's page open (:mod:`bot.pages`): their hand message
        is brought up to date once they close it, not at every move meanwhile, and no turn
        bell rings for them."""
        self.watchers: list[Callable[[int], None]] = []
        """Told of each match whose hands change (the Mini App's pages watching it)."""
        self.bells = Bells(matches, people, outbox, clock, self._claim, self.report_blocked)
        self.bells.on_page = lambda match_id, user: self.on_page(match_id, user)

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
        if match_id in self.summing or record.tournament_id is not None:
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
            functools.partial(self.table_render, match_id),
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

    async def table_render(self, match_id: int) -> Render | None:
        """What the table message shows now: the lobby, the table, or a cancelled lobby."""
        record = await self.matches.load(match_id, render=True)
        if record is None:
            return None
        lang = self.people.group_lang(record.chat_id)
        if record.status == "lobby":
            panel = self.panels.get(match_id, False)
            levels = await self.people.lobby_levels(record)
            rendered = lobby_view(record, lang, panel, levels)
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
        text = ui_for(record.game).table(match, names, lang, left, seal)
        if self.group_link is None or record.status != "playing" or match.is_over:
            return text, None
        button = InlineKeyboardButton(t(lang, "btn.webapp_group"), url=self.group_link(record.id))
        return text, InlineKeyboardMarkup([[button]])

    def _table_shown(
        self, match_id: int, chat_id: int, message_id: int | None, shown: str | None
    ) -> Stored | Then | None:
        """The table message shows ``shown``: the write that stores it (a new message, or a
        new digest), run off the event loop; in a private chat a new table has the player's
        hand posted below it once stored."""
        if message_id is None:
            return None
        kept = self.store.kept_match(match_id)
        if kept is not None and (kept.table_chat_id, kept.table_message_id) == (
            chat_id,
            message_id,
        ):
            # What the store keeps says what to note, on the loop (often: nothing).
            if table_noted(kept, shown):
                return None
            return functools.partial(self.store.set_table_digest, match_id, shown)
        below = match_id in self.unplaced  # below the summary: the table keeps its place
        write = functools.partial(self._store_table, match_id, chat_id, message_id, shown, below)
        return Then(write, lambda posted: self._after_table(match_id, chat_id, posted))

    def _store_table(
        self, match_id: int, chat_id: int, message_id: int, shown: str | None, below: bool
    ) -> MatchRecord | None:
        """Store what the table message shows: a table posted anew (and, ``below`` a hand's
        summary, that it is there), or its new digest. The match as stored after a table
        posted anew; None otherwise."""
        record = self.store.get_match(match_id)
        if record.table_chat_id not in (None, chat_id):
            return None  # the group became a supergroup meanwhile: its new id stays
        if (record.table_chat_id, record.table_message_id) != (chat_id, message_id):
            self.store.set_table_message(match_id, chat_id, message_id, shown)
            if below:
                self.store.set_summary_message(match_id, message_id)
            return self.store.get_match(match_id)
        if not table_noted(record, shown):
            self.store.set_table_digest(match_id, shown)
        return None

    def _after_table(self, match_id: int, chat_id: int, posted: object) -> None:
        """A table posted anew (``posted``: the match as stored after it) is below the latest
        summary, and in a private chat the hand goes below it again."""
        if not isinstance(posted, MatchRecord):
            return
        self.unplaced.discard(match_id)
        if chat_id > 0 and posted.status == "playing":
            self._hands_below(posted, chat_id)

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
        chat: bool = False,
    ) -> None:
        """Show a seat's latest hand in its private hand message (``fresh``: a new message,
        ``retire``: the old one deleted; ``tap``: a change of the player's own, gathered with
        the taps that follow it; ``watch``: another player's move, shown after the player's
        own messages and a little later, so that the moves of a turn show in one edit;
        ``chat``: a press in the chat asked for it, so it shows even while the player has the
        match's page open).

        After the recap of a hand (:meth:`bot.endings.Endings.recap`) the next hand is a new
        message below it; in a private match it waits for the table, and goes below it.
        ``record``: the match as stored now (what the hand shows is read when it goes out)."""
        match_id = record.id
        self.behind.discard((match_id, seat))
        for watcher in self.watchers:
            watcher(match_id)
        user = record.seats[seat].user_id
        if user is None:
            return
        if not chat and self.on_page(match_id, user):  # the page is looked at: the chat waits
            self.behind.add((match_id, seat))
            return
        if match_id in self.summing and user == record.table_chat_id:
            return  # the table is posted first, then the hand below it (_hands_below)
        recapped = self.recapped.pop((match_id, seat), None)
        if recapped is not None and recapped == record.seats[seat].hand_message_id:
            fresh, retire = True, False
        moved = t(self.people.user_lang(user), "hand.moved") if retire else None
        self.outbox.put(
            user,
            ("hand", match_id, seat),
            functools.partial(self._hand_render, match_id, seat, user),
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
        lang = self.people.user_lang(seat_record.user_id or 0)
        text, markup = ui_for(record.game).hand(
            record.id,
            seat,
            match,
            ui_of(seat_record),
            table_render.table_names(record),
            self.people.group_title(record.chat_id),
            lang,
            table_render.time_left(record.deadline, self.clock()),
        )
        if self.page_link is None or markup is None:
            return text, markup
        page = WebAppInfo(self.page_link(record.id))
        button = InlineKeyboardButton(t(lang, "btn.webapp"), web_app=page)
        return text, InlineKeyboardMarkup([*markup.inline_keyboard, [button]])

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
            lines.append(ending.result_text(match, names, lang))
            return clip("\n".join(lines)), None
        text, markup = ending.final_ranking(record, match, names, lang)
        return clip("\n".join([*lines, text])), markup

    async def _hand_render(self, match_id: int, seat: int, user: int) -> Render | None:
        record = await self.matches.load(match_id, render=True)
        if record is None:
            return None
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
        old = self._posting.pop((match_id, seat), None)  # what it replaces, when rendered
        kept = self.store.kept_match(match_id)
        if kept is not None and kept.seats[seat].hand_message_id == message_id:
            # What the store keeps says what to note, on the loop (often: nothing).
            if hand_noted(kept.seats[seat], shown):
                return None
            return functools.partial(self.store.set_hand_digest, match_id, seat, shown)
        write = functools.partial(self._store_hand, match_id, seat, old, message_id, shown)
        return Then(write, lambda spare: self._spare_hand(spare, seat, message_id))

    def _store_hand(
        self, match_id: int, seat: int, old: int | None, message_id: int, shown: str | None
    ) -> MatchRecord | None:
        """Store what the seat's hand message shows: a new message in place of ``old`` (the
        one it was rendered to replace), or its new digest. None when stored; the match as
        stored when another instance stored a hand message of its own first."""
        seat_record = self.store.get_match(match_id).seats[seat]
        if message_id != seat_record.hand_message_id:
            if self.store.replace_hand_message(match_id, seat, old, message_id, shown):
                return None
            return self.store.get_match(match_id)
        if not hand_noted(seat_record, shown):
            self.store.set_hand_digest(match_id, seat, shown)
        return None

    def _spare_hand(self, spare: object, seat: int, message_id: int) -> None:
        """Another instance posted the seat's hand and stored it first (``spare``: the match
        as stored then; this one lost its claim meanwhile: it was frozen, or the database
        restarted): this copy goes at once, and the stored one shows the latest state."""
        if not isinstance(spare, MatchRecord):
            return
        user = spare.seats[seat].user_id
        log.warning("hand %s/%s posted twice: the spare copy goes", user, message_id)
        if user is not None:
            self.outbox.delete(user, message_id, priority=Priority.HAND)
        self.hand(spare, seat)

    def report_blocked(self, match_id: int, seat: int) -> None:
        """A player the bot cannot write to: say so in the group with the deep link, once
        (until a message to that player gets through again), the match read off the loop."""
        if (match_id, seat) in self._blocked:
            return
        self._blocked.add((match_id, seat))
        self.reporting.spawn(self._report_blocked(match_id, seat))

    async def _report_blocked(self, match_id: int, seat: int) -> None:
        try:
            record = await self.matches.load(match_id, render=True)
        except Exception:  # the database is away: the next message that fails tells
            log.exception("match %s: a blocked player could not be reported", match_id)
            self._blocked.discard((match_id, seat))
            return
        if record is None:
            return
        lang = self.people.group_lang(record.chat_id)
        name, link = isolated(record.seats[seat].name), self.people.deep_link(record.id)
        text = table_render.labelled(lang, record, t(lang, "notify.blocked", name=name, link=link))
        self.outbox.send(record.chat_id, text, priority=Priority.NOTICE, thread=record.thread_id)

    # --- the turn bells ----------------------------------------------------------------------

    def ring(self, record: MatchRecord) -> None:
        """Bring every player's turn bell in line with the stored match (:class:`Bells`)."""
        self.bells.ring(record)


def above_summary(record: MatchRecord, table_message_id: int) -> bool:
    """Whether the table message is above the latest hand's summary in the same chat."""
    summary = record.summary_message_id
    same_chat = record.table_chat_id in (None, record.chat_id)
    return summary is not None and same_chat and table_message_id < summary


def table_noted(record: MatchRecord, shown: str | None) -> bool:
    """Whether the store notes already that the match's table message shows ``shown``."""
    return shown == record.table_digest and record.table_pending == shown


def hand_noted(seat: SeatRecord, shown: str | None) -> bool:
    """Whether the store notes already that the seat's hand message shows ``shown``."""
    return shown == seat.hand_digest and seat.hand_pending == shown
