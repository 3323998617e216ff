"""The bot service's core: state caches, rendering requests, moves, timers, computers.

Every move follows one path (:meth:`Core.move`): play it on the engine under the match's lock,
commit it to the store (whose version check refuses a racing writer), then ask the outbox
(:mod:`bot.delivery`) to show it. Nothing here waits for Telegram: live messages (table, hands,
bells) are rendered from the store when their chat's budget lets them out, so a press is
answered at once and a burst of moves becomes one edit. Caches here are rebuilt from the store
after a restart.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from bot import callbacks
from bot.delivery import Outbox, Pace, Priority, Render, Rendered
from bot.hand_ui import (
    HandUI,
    cleared,
)
from bot.i18n import error_text, language_for, t
from bot.render import hand as hand_render
from bot.render import table as table_render
from bot.render.cards import card as show_card
from bot.timers import Scheduler, utc_now
from engine import fairness, games, scala40, scopone
from engine.ai import scala40 as ai_scala40
from engine.ai import scopone as ai_scopone
from engine.errors import IllegalAction, InvalidMeld
from storage import MatchNotFound, MatchRecord, PlayerResult, SeatRecord, StaleVersion, Store

log = logging.getLogger(__name__)

SEATS = {"scala40": (2, 6), "scopone": (4, 4)}
ADMINS = ("creator", "administrator")
MEMBERS = (*ADMINS, "member", "restricted")
TABLE_DELAY = 0.3
"""Seconds a table edit waits for more moves to show at once; end-to-end tests set it to 0.
(The group's budget paces the edits: :class:`bot.delivery.Pace`.)"""
COMPUTER_PAUSE = 1.2
"""Seconds a computer seat waits before its move, so the table reads like a game."""
MID_TURN = ("draw", "take", "open", "meld", "attach", "swap", "clock")
"""Scala 40 actions inside a turn: the turn's deadline stays as it is."""
TURN_ENDS = ("discard", "timeout", "play")
"""Actions that end the mover's turn (a new one starts even when the same player goes on, as
the player who closed a hand and starts the next)."""


class LobbyPress(NamedTuple):
    """A lobby button press, as the lobby's handlers take it."""

    record: MatchRecord
    data: callbacks.Callback
    user_id: int
    name: str
    lang: str


@dataclass(frozen=True, slots=True)
class Answer:
    """The short answer to a button press (answerCallbackQuery)."""

    text: str = ""
    url: str | None = None
    alert: bool = False


def ui_of(seat: SeatRecord) -> HandUI:
    """The stored seat UI as the bot's :class:`HandUI`."""
    ui = seat.ui
    return HandUI(
        selected=tuple(ui.selected),
        staged=tuple(tuple(m) for m in ui.staged),
        order=tuple(ui.order or ()),
        sort=ui.sort,
        mode=ui.mode,
        pending=ui.pending,
        version=ui.version,
    )


def ui_changes(ui: HandUI) -> dict[str, Any]:
    """The fields of a :class:`HandUI` as the store's ``update_seat_ui`` takes them."""
    return {
        "selected": list(ui.selected),
        "staged": [list(m) for m in ui.staged],
        "order": list(ui.order) or None,
        "sort": ui.sort,
        "mode": ui.mode,
        "pending": ui.pending,
    }


class Core:
    """Shared machinery of :class:`bot.service.Tavolo`."""

    """The service behind every handler."""

    def __init__(
        self,
        store: Store,
        bot: Bot,
        scheduler: Scheduler | None = None,
        clock: Callable[[], datetime] = utc_now,
        pace: Pace | None = None,
    ) -> None:
        self.store = store
        self.bot = bot
        self.outbox = Outbox(bot, pace)
        self.scheduler = scheduler
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._engines: dict[int, tuple[int, games.GameMatch]] = {}
        self.table_delay = TABLE_DELAY
        self._reposted: dict[int, float] = {}
        self._panels: dict[int, bool] = {}
        self._ringing: dict[tuple[int, int], int] = {}
        self._blocked: set[tuple[int, int]] = set()
        self._driving: set[int] = set()
        self.computer_pause = COMPUTER_PAUSE
        self.closing = False
        self._background: set[asyncio.Task[None]] = set()
        self.titles: dict[int, str] = {}

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run event messages (bells, results) after the answer, tracked for :meth:`drain`."""
        task = asyncio.create_task(self._guarded(work))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @staticmethod
    async def _guarded(work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:
            log.exception("background work failed")

    async def close(self, grace: float) -> None:
        """Stop: no more computer moves, then ``grace`` seconds for the messages still
        waiting (a restart shows the stored state anyway)."""
        self.closing = True
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*list(self._background), return_exceptions=True)
        await self.outbox.close(grace)

    async def drain(self) -> None:
        """Wait until every background task is done and every message is out."""
        while self._background or not self.outbox.idle:
            if self._background:
                await asyncio.gather(*list(self._background), return_exceptions=True)
            await self.outbox.drain()

    # --- small helpers -------------------------------------------------------------------------

    def lock(self, match_id: int) -> asyncio.Lock:
        """The per-match lock that serialises moves in this process."""
        return self._locks.setdefault(match_id, asyncio.Lock())

    def engine(self, record: MatchRecord) -> games.GameMatch:
        """The engine match of a record (cached per version; a private copy per version)."""
        cached = self._engines.get(record.id)
        if cached is not None and cached[0] == record.version:
            return cached[1]
        match = self.store.load_engine_match(record)
        self._engines[record.id] = (record.version, match)
        return match

    def record_or_none(self, match_id: int) -> MatchRecord | None:
        """The stored match, or None when there is no such match (a forged button)."""
        try:
            return self.store.get_match(match_id)
        except MatchNotFound:
            return None

    def forget(self, match_id: int) -> None:
        """Drop the cached engine (after a failed commit it may be ahead of the store)."""
        self._engines.pop(match_id, None)

    def group_lang(self, chat_id: int) -> str:
        """The group's language (set with /language; Italian by default); in a private chat,
        where a player plays against the computer, the player's own."""
        if chat_id > 0:
            return self.user_lang(chat_id)
        return self.store.chat_settings(chat_id).language or "it"

    def user_lang(self, user_id: int, code: str | None = None) -> str:
        """A user's language: chosen with /language, else from Telegram's language code."""
        user = self.store.get_user(user_id)
        if user is not None and user.language:
            return user.language
        return language_for(
            code if user is None or user.language_code is None else user.language_code
        )

    def names(self, record: MatchRecord) -> list[str]:
        """Seat display names, in seat order."""
        return [seat.name for seat in record.seats]

    def group_title(self, chat_id: int) -> str:
        """The group's title for labelling hands (remembered from updates)."""
        if chat_id > 0:
            return t(self.user_lang(chat_id), "private.title")
        return self.titles.get(chat_id) or self.store.chat_settings(chat_id).title or str(chat_id)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` administers the group ``chat_id`` (asked of Telegram there)."""
        return await self._member_status(chat_id, user_id) in ADMINS

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is in the group ``chat_id`` (a private chat: is its user)."""
        if chat_id > 0:
            return chat_id == user_id
        return await self._member_status(chat_id, user_id) in MEMBERS

    async def _member_status(self, chat_id: int, user_id: int) -> str:
        if chat_id > 0:
            return ""
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.info("membership of %s in %s unknown: %s", user_id, chat_id, error)
            return ""
        if member.status == "restricted" and not getattr(member, "is_member", False):
            return "left"
        return str(member.status)

    def deep_link(self, match_id: int) -> str:
        """``t.me/<bot>?start=j<match>``: opens the private chat and joins the match."""
        return f"https://t.me/{self.bot.username}?start=j{match_id}"

    # --- rendering -----------------------------------------------------------------------------

    def table_view(self, record: MatchRecord) -> Rendered:
        """The table message of a running or finished match."""
        match = self.engine(record)
        lang = self.group_lang(record.chat_id)
        names = self.names(record)
        if isinstance(match, scala40.Match):
            text = table_render.scala40_table(match.view(0), names, lang, record.deadline)
        else:
            assert isinstance(match, scopone.Match)
            text = table_render.scopone_table(match.view(0), names, lang, record.deadline)
        code = fairness.short(fairness.commitment(record.seed))
        return f"{text}\n{t(lang, 'table.commitment', code=code)}", None

    def hand_view(self, record: MatchRecord, seat: int) -> Rendered:
        """The private hand message of a seat."""
        match = self.engine(record)
        seat_record = record.seats[seat]
        lang = self.user_lang(seat_record.user_id or 0)
        names = self.names(record)
        title = self.group_title(record.chat_id)
        ui = ui_of(seat_record)
        if isinstance(match, scala40.Match):
            return hand_render.scala40_hand(
                record.id,
                seat,
                match.view(seat),
                ui,
                names,
                title,
                lang,
                match.options.opening_points,
            )
        assert isinstance(match, scopone.Match)
        return hand_render.scopone_hand(record.id, seat, match.view(seat), ui, names, title, lang)

    def request_table(self, match_id: int, quiet: bool = False, fresh: bool = False) -> None:
        """Show the match's latest state in its table message (the lobby before the start).

        The edit waits ``table_delay`` seconds so that moves made meanwhile join it; a
        ``quiet`` move (a draw) waits three times as long, so it often shows together with the
        discard that follows it. The outbox renders it when the group's budget lets it out,
        so requests made meanwhile cost nothing. ``fresh`` posts it again at the bottom.
        """
        record = self.store.get_match(match_id)
        chat_id = record.table_chat_id or record.chat_id
        self.outbox.put(
            chat_id,
            ("table", match_id),
            lambda: self.table_render(match_id),
            lambda message_id, shown: self._table_shown(match_id, chat_id, message_id, shown),
            Priority.TABLE,
            fresh=fresh,
            delay=self.table_delay * (3 if quiet else 1),
            sending=lambda shown: self.store.set_table_digest(match_id, shown, pending=True),
        )

    def table_render(self, match_id: int) -> Render | None:
        """What the table message shows now (a cancelled lobby says so)."""
        record = self.store.get_match(match_id)
        if record.state_json is None:
            if record.table_message_id is None:
                return None
            rendered: Rendered = (t(self.group_lang(record.chat_id), "lobby.cancelled"), None)
        else:
            rendered = self.table_view(record)
        return Render(record.table_message_id, record.table_digest, *rendered, record.table_pending)

    def _table_shown(
        self, match_id: int, chat_id: int, message_id: int | None, shown: str | None
    ) -> None:
        if message_id is None:
            return
        record = self.store.get_match(match_id)
        if record.table_chat_id not in (None, chat_id):
            return  # the group became a supergroup meanwhile: its new id stays
        if (record.table_chat_id, record.table_message_id) != (chat_id, message_id):
            self.store.set_table_message(match_id, chat_id, message_id)
        if shown != record.table_digest or record.table_pending != shown:
            self.store.set_table_digest(match_id, shown)

    def request_hand(
        self, match_id: int, seat: int, fresh: bool = False, tap: bool = False
    ) -> None:
        """Show a seat's latest hand in its private hand message (``fresh``: a new message;
        ``tap``: a change of the player's own, gathered with the taps that follow it)."""
        user = self.store.get_match(match_id).seats[seat].user_id
        if user is None:
            return
        self.outbox.put(
            user,
            ("hand", match_id, seat),
            lambda: self._hand_render(match_id, seat, user),
            lambda message_id, shown: self._hand_shown(match_id, seat, message_id, shown),
            Priority.HAND,
            fresh=fresh,
            gather=tap,
            sending=lambda shown: self.store.set_hand_digest(match_id, seat, shown, pending=True),
        )

    def _hand_render(self, match_id: int, seat: int, user: int) -> Render | None:
        record = self.store.get_match(match_id)
        seat_record = record.seats[seat]
        if seat_record.user_id != user or record.state_json is None:
            return None
        rendered = self.hand_view(record, seat)
        return Render(
            seat_record.hand_message_id,
            seat_record.hand_digest,
            *rendered,
            seat_record.hand_pending,
        )

    def _hand_shown(
        self, match_id: int, seat: int, message_id: int | None, shown: str | None
    ) -> None:
        if message_id is None:
            self.report_blocked(match_id, seat)
            return
        self._blocked.discard((match_id, seat))
        seat_record = self.store.get_match(match_id).seats[seat]
        if message_id != seat_record.hand_message_id:
            self.store.set_hand_message(match_id, seat, message_id)
        if shown != seat_record.hand_digest or seat_record.hand_pending != shown:
            self.store.set_hand_digest(match_id, seat, shown)

    def report_blocked(self, match_id: int, seat: int) -> None:
        """A player the bot cannot write to: say so in the group with the deep link, once
        (until a message to that player gets through again)."""
        if (match_id, seat) in self._blocked:
            return
        self._blocked.add((match_id, seat))
        record = self.store.get_match(match_id)
        lang = self.group_lang(record.chat_id)
        text = t(
            lang,
            "notify.blocked",
            name=record.seats[seat].name,
            link=self.deep_link(record.id),
        )
        self.outbox.send(record.chat_id, text, priority=Priority.NOTICE)

    def ring(self, match_id: int) -> None:
        """Bring every player's turn bell in line with the stored state: the player whose turn
        it is has one bell, rung for this very turn (``turn_version``); nobody else has one.

        Idempotent, and derived from the store only: called after every move, at the start and
        at a resume, it rings what is missing (a crash between a move and its bell, or a new
        hand started by the player who closed the last) and deletes what is stale."""
        record = self.store.get_match(match_id)
        for seat in record.seats:
            if seat.user_id is None:
                continue
            wanted = self._bell_turn(record, seat.seat)
            if seat.turn_message_id is not None and seat.turn_version != wanted:
                self._unring(match_id, seat.seat, seat.turn_chat_id or seat.user_id)
            if wanted is not None and seat.turn_version != wanted:
                self._ring(match_id, seat.seat, seat.user_id)

    def _unring(self, match_id: int, seat: int, chat_id: int) -> None:
        """Delete a bell whose turn is over (forgotten once Telegram confirms it is gone),
        before a new one rings: a stop between the two leaves no bell behind, only one to
        ring again at the next start."""
        bell = self.store.get_match(match_id).seats[seat].turn_message_id
        if bell is not None:
            done = functools.partial(self._bell_gone, match_id, seat, bell)
            self.outbox.delete(chat_id, bell, done, Priority.HAND)

    def _bell_turn(self, record: MatchRecord, seat: int) -> int | None:
        """The turn the seat's bell should ring for, or None (not its turn, or no bell)."""
        if record.status != "playing" or record.state_json is None:
            return None
        match = self.engine(record)
        if match.to_play != seat or self.is_computer(record, match, seat):
            return None
        return record.turn_version if record.turn_version is not None else record.version

    def _ring(self, match_id: int, seat: int, user: int) -> None:
        self.outbox.put(
            user,
            ("bell", match_id, seat),
            lambda: self._bell_render(match_id, seat, user),
            lambda message_id, _: self._bell_rung(match_id, seat, user, message_id),
            Priority.HAND,
            fresh=True,
        )

    def _bell_render(self, match_id: int, seat: int, user: int) -> Render | None:
        """The bell, if it is still wanted when the player's chat lets it out."""
        record = self.store.get_match(match_id)
        seat_record = record.seats[seat]
        turn = self._bell_turn(record, seat)
        if turn is None or seat_record.user_id != user:
            return None
        if seat_record.turn_version == turn:
            return None  # rung already
        self._ringing[(match_id, seat)] = turn
        lang = self.user_lang(user)
        text: str = t(lang, "notify.turn", group=self.group_title(record.chat_id))
        text += table_render.deadline_text(lang, record.deadline)
        text += "\n" + self.turn_facts(record, seat, lang)
        return Render(seat_record.turn_message_id, None, text)

    def _bell_rung(self, match_id: int, seat: int, user: int, message_id: int | None) -> None:
        turn = self._ringing.pop((match_id, seat), None)
        if message_id is None:
            self.report_blocked(match_id, seat)
            self.store.set_turn_message(match_id, seat, None, None)
            return
        self.store.set_turn_message(match_id, seat, user, message_id, turn)

    def _bell_gone(self, match_id: int, seat: int, message_id: int) -> None:
        if self.store.get_match(match_id).seats[seat].turn_message_id == message_id:
            self.store.set_turn_message(match_id, seat, None, None)

    def turn_facts(self, record: MatchRecord, seat: int, lang: str) -> str:
        """What the bell shows: the discard pile (Scala 40) or the table's cards (Scopone)."""
        match = self.engine(record)
        if isinstance(match, scala40.Match):
            view = match.view(seat)
            top = show_card(view.discard_top) if view.discard_top else "—"
            return t(lang, "hand.piles", card=top, stock=view.stock_size)
        assert isinstance(match, scopone.Match)
        cards = " ".join(show_card(str(c)) for c in match.view(seat).table) or "—"
        return t(lang, "hand.scopone_table", cards=cards)

    def render_all(self, record: MatchRecord) -> None:
        """After a start or a resume: the table, every hand, the computers, the bells."""
        self.request_table(record.id)
        for seat in range(len(record.seats)):
            self.request_hand(record.id, seat)
        match = self.engine(record)
        if match.to_play is not None and self.is_computer(record, match, match.to_play):
            self.drive_computers(record.id)
        self.ring(record.id)

    # --- moves -----------------------------------------------------------------------------------
    async def move(
        self,
        record: MatchRecord,
        seat: int | None,
        action: str,
        lang: str,
        ui_after: HandUI | None = None,
    ) -> Answer:
        """Play ``action`` for ``seat``, commit it, then render. The caller holds the lock."""
        match = self.engine(record)
        before_to_play = match.to_play
        before_hand = getattr(match, "hand_number", 0)
        try:
            applied = match.play(action, seat=seat)
        except IllegalAction as error:
            return Answer(engine_error(lang, error), alert=error.code != "not-your-turn")
        status = None
        results = None
        if match.is_over:
            winners, mp, vp, stopped = result_figures(match)
            status = "stopped" if stopped else "finished"
            if not stopped:
                results = [
                    PlayerResult(
                        s.seat,
                        s.user_id,
                        s.name,
                        s.is_computer,
                        mp[s.seat],
                        vp[s.seat],
                        s.seat in winners,
                        hands_won(match, s.seat),
                    )
                    for s in record.seats
                ]
        new_hand = getattr(match, "hand_number", 0) != before_hand
        turn_starts = not match.is_over and (
            match.to_play != before_to_play or new_hand or applied.kind in TURN_ENDS
        )
        timing: dict[str, Any] = {}
        if match.to_play != before_to_play or applied.kind not in MID_TURN:
            deadline, deadline_seat = self.next_deadline(record, match)
            timing = {"deadline": deadline, "deadline_seat": deadline_seat}
        try:
            version = self.store.commit_move(
                record.id,
                record.version,
                seat,
                str(applied),
                match.to_json(),
                status=status,
                results=results,
                turn_starts=turn_starts,
                **timing,
            )
        except StaleVersion:
            self.forget(record.id)
            return Answer(t(lang, "ans.stale"))
        except BaseException:
            self.forget(record.id)  # the cached engine is ahead of the store now
            raise
        self._engines[record.id] = (version, match)
        if ui_after is not None and seat is not None:
            self.store.update_seat_ui(record.id, seat, ui_after.version, **ui_changes(ui_after))
        record = self.store.get_match(record.id)
        if timing:
            self.arm_timer(record)
        quiet = getattr(applied, "kind", "") == "draw"
        self.after_move(record, match, seat, before_to_play, before_hand, quiet)
        return Answer()

    def after_move(
        self,
        record: MatchRecord,
        match: games.GameMatch,
        mover: int | None,
        before_to_play: int | None,
        before_hand: int,
        quiet: bool = False,
    ) -> None:
        """Schedule what a committed move shows: the table, the hands that changed, the end of
        a hand or match in the group, the next player's bell. Summaries are rendered now, from
        this very state; live messages when their chat's budget lets them out."""
        self.request_table(record.id, quiet)
        new_hand = getattr(match, "hand_number", 0) != before_hand
        messages: list[Rendered] = []
        if new_hand or match.is_over:
            summary = self.hand_result_text(record, match)
            if summary:
                messages.append((summary, None))
            seats = list(range(len(record.seats)))
            if new_hand and not match.is_over:
                self._clear_hands(record)
        else:
            # Other hands do not show others' moves: only the mover's hand changes (and, with
            # open hands for partners, the partner's, which shows it).
            seats = [mover] if mover is not None else []
            options = getattr(match, "options", None)
            if mover is not None and getattr(options, "open_hands_for_partners", False):
                seats.append((mover + 2) % 4)
        for seat in seats:
            self.request_hand(record.id, seat)
        if match.is_over:
            messages.append(self.final_ranking(record, match))
            self._engines.pop(record.id, None)  # a finished match is never played again
            self._panels.pop(record.id, None)
        for text, markup in messages:
            self.outbox.send(record.chat_id, text, markup, Priority.NOTICE)
        if match.to_play is not None and self.is_computer(record, match, match.to_play):
            self.drive_computers(record.id)
        self.ring(record.id)

    def _clear_hands(self, record: MatchRecord) -> None:
        """A new deal: every player's selection, staged melds and pending step go."""
        for seat in record.seats:
            ui = ui_of(seat)
            if seat.user_id is not None and (ui.selected or ui.staged or ui.mode):
                fresh = cleared(ui, keep_staged=False)
                self.store.update_seat_ui(record.id, seat.seat, ui.version, **ui_changes(fresh))

    # --- turn timers (RULES.md S40-14.3, SC-6.1) -------------------------------------------------

    def next_deadline(
        self, record: MatchRecord, match: games.GameMatch
    ) -> tuple[datetime | None, int | None]:
        """The deadline of the turn starting now, or None (no timer, a computer, the end)."""
        seconds = int(record.options.get("turn_seconds", 0) or 0)
        seat = match.to_play
        if not seconds or seat is None or match.is_over or self.is_computer(record, match, seat):
            return None, None
        return self.clock() + timedelta(seconds=seconds), seat

    def arm_timer(self, record: MatchRecord) -> None:
        """Schedule the reminder at half time and the timeout at the stored deadline."""
        if self.scheduler is None:
            return
        remind, expire = f"remind:{record.id}", f"timeout:{record.id}"
        deadline = record.deadline
        if deadline is None or record.status != "playing":
            self.scheduler.cancel(remind)
            self.scheduler.cancel(expire)
            return
        seconds = int(record.options.get("turn_seconds", 0) or 0)
        half = deadline - timedelta(seconds=seconds / 2)
        if half > self.clock():
            self.scheduler.schedule(remind, half, lambda: self._remind(record.id, deadline))
        else:
            self.scheduler.cancel(remind)
        self.scheduler.schedule(expire, deadline, lambda: self._expire(record.id, deadline))

    async def _remind(self, match_id: int, deadline: datetime) -> None:
        record = self.store.get_match(match_id)
        seat = record.deadline_seat
        if record.deadline != deadline or seat is None or record.seats[seat].user_id is None:
            return
        user = record.seats[seat].user_id or 0
        lang = self.user_lang(user)
        left = max(0, int((deadline - self.clock()).total_seconds()))
        group = self.group_title(record.chat_id)
        text = t(lang, "notify.reminder", seconds=left, group=group)
        self.outbox.send(user, text, priority=Priority.HAND, key=("remind", match_id))

    async def _expire(self, match_id: int, deadline: datetime) -> None:
        """The turn timer ran out: the engine applies ``timeout_policy`` (autoplay/forfeit)."""
        async with self.lock(match_id):
            record = self.store.get_match(match_id)
            if record.status != "playing" or record.deadline != deadline:
                return
            match = self.engine(record)
            seat = match.to_play
            if seat is None:
                return
            ui = ui_of(record.seats[seat])  # autoplay takes the staged melds back
            await self.move(record, seat, "timeout", "it", cleared(ui, keep_staged=False))

    # --- computer seats ---------------------------------------------------------------------

    @staticmethod
    def is_computer(record: MatchRecord, match: games.GameMatch, seat: int) -> bool:
        """A seat the bot plays: a computer player, or a Scopone seat whose player abandoned."""
        if record.seats[seat].is_computer:
            return True
        return isinstance(match, scopone.Match) and seat in match.computer_seats

    def drive_computers(self, match_id: int) -> None:
        """Play the computer seats' turns, each after a short, human-looking pause."""
        if match_id not in self._driving and not self.closing:
            self._driving.add(match_id)
            self.spawn(self._computer_turns(match_id))

    async def _computer_turns(self, match_id: int) -> None:
        """Think without the match's lock (a search may take a second, and presses in the
        match must not wait for it), then move if nobody moved meanwhile."""
        try:
            while True:
                await asyncio.sleep(self.computer_pause)
                record = self.store.get_match(match_id)
                if record.status != "playing":
                    return
                match = self.engine(record)
                seat = match.to_play
                if seat is None or not self.is_computer(record, match, seat):
                    return
                level = record.seats[seat].computer_level or "facile"
                seed = (record.seed + record.version) % 2**32  # reproducible per position
                # The search runs off the event loop, on a private copy of the position.
                private = self.store.load_engine_match(record)
                action = await asyncio.to_thread(computer_action, private, level, seed)
                async with self.lock(match_id):
                    current = self.store.get_match(match_id)
                    if current.version == record.version:
                        await self.move(current, seat, str(action), "it")
        finally:
            self._driving.discard(match_id)

    def hand_result_text(self, record: MatchRecord, match: games.GameMatch) -> str:
        """The end of a hand in the group: everyone's cards and points (S40-15, SC-5.3)."""
        lang = self.group_lang(record.chat_id)
        names = self.names(record)
        if isinstance(match, scala40.Match) and match.last_hand is not None:
            return table_render.scala40_hand_result(match.last_hand, names, lang)
        if isinstance(match, scopone.Match) and match.last_hand is not None:
            sides = list(match.view(0).sides)
            return table_render.scopone_hand_result(match.last_hand, names, sides, lang)
        return ""

    def final_ranking(self, record: MatchRecord, match: games.GameMatch) -> Rendered:
        """The ranking at the end of the match, with the rematch button."""
        lang = self.group_lang(record.chat_id)
        winners, mp, vp, stopped = result_figures(match)
        text = table_render.match_result_text(mp, vp, winners, self.names(record), lang, stopped)
        text += "\n" + t(lang, "match.seed", seed=str(record.seed))  # the deals can be checked
        if stopped:
            return text, None
        button = InlineKeyboardButton(
            t(lang, "btn.rematch"), callback_data=callbacks.rematch(record.id)
        )
        return text, InlineKeyboardMarkup([[button]])


def engine_error(lang: str, error: IllegalAction | InvalidMeld) -> str:
    """The translated text of an engine refusal, cards shown with suit symbols."""
    details = {
        key: show_card(value) if key == "card" and isinstance(value, str) else value
        for key, value in error.details.items()
    }
    return error_text(lang, error.code, error.message, **details)


def computer_action(match: games.GameMatch, level: str, seed: int) -> Any:
    """The move of the computer seat to play, at its level, from a seed (engine.ai)."""
    if isinstance(match, scala40.Match):
        return ai_scala40.choose(match, level, seed)
    assert isinstance(match, scopone.Match)
    return ai_scopone.choose(match, level, seed)


def hands_won(match: games.GameMatch, seat: int) -> int:
    """Hands the seat's side closed (Scala 40) or won (Scopone: hands are not counted; 0)."""
    if isinstance(match, scala40.Match):
        return match.hands_won[match.side_of(seat)]
    return 0


def result_figures(match: games.GameMatch) -> tuple[list[int], list[int], list[int], bool]:
    """Winners (seats), MP and VP per seat, and whether the match was stopped."""
    result: Any = match.result
    players = match.players
    if result is None:
        return [], [0] * players, [0] * players, True
    if isinstance(match, scala40.Match):
        return list(result.winners), list(result.mp), list(result.vp), result.stopped
    return list(result.winner_seats), list(result.mp), list(result.vp), bool(result.stopped)
