"""The table as a Mini App page: what a seat's page shows, a tap on it, and who is watching.

A page is one more face of the seat's hand. It shows what the private hand message shows (its
text, the same buttons) and the game's drawing of the table (:meth:`GameUI.page`); a tap on it is
a press on the hand (:meth:`bot.hands.Hands.press`): checked against the match, the seat's user
and the context it was drawn in, committed before it is answered. A tap that only changes the
hand's look (a card lifted, the hand reordered) is not shown in the chat; a move is, as always.

Who asks is the user Telegram signed for (:mod:`bot.webapp.auth`); a page sees its own seat
only. Every change of a match (a move, a tap, a timer) wakes the pages watching it, which then
ask for the state again.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from bot import callbacks
from bot.answer import Answer
from bot.games import ui_for
from bot.hand.state import Op, context_token
from bot.i18n import t
from bot.matches import Matches, ui_of
from bot.people import People
from bot.render.length import plain
from bot.render.table import time_left
from bot.shows import Shows
from storage import MatchRecord

log = logging.getLogger(__name__)

Press = Callable[[callbacks.Callback, int, str], Awaitable[Answer]]
"""A press on the hand as the page makes it: the decoded button, the user, the language."""
SHARED_LOOK = 1.0
"""Seconds between looks at a watched match when instances share the database."""
MAX_ARG = 200
"""Characters of a tap's argument (a hand's whole order is the longest)."""
WORDS = (
    *("stock", "discard", "melds", "staged", "table", "choose"),
    *("details", "your_turn", "waiting", "over", "area_table", "area_hand"),
    *("cards", "opened", "turn"),
)
"""The page's own words (``web.<word>``), sent with its state in the user's language."""
_ARG = re.compile(r"[A-Za-z0-9 =_.^-]*")
"""A tap's argument: what a hand button's carries (``callbacks``), and spaces (an order)."""


class Refused(Exception):
    """The page asked for what it may not have: ``key`` is the text that says why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class Pages:
    """The Mini App's pages of the matches."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        shows: Shows,
        press: Press,
        clock: Callable[[], datetime],
    ) -> None:
        self.matches = matches
        self.people = people
        self.shows = shows
        self.press = press
        self.clock = clock
        self._watching: dict[int, set[asyncio.Event]] = {}
        self._open: collections.Counter[tuple[int, int]] = collections.Counter()
        """The pages open (their live channels), by match and user."""
        self._looking: dict[int, asyncio.Task[None]] = {}
        shows.watchers.append(self.changed)
        shows.on_page = lambda match_id, user: (match_id, user) in self._open

    def seat(self, record: MatchRecord, user_id: int) -> int:
        """The user's seat in the match (:class:`Refused` if none)."""
        seat = record.seat_of(user_id)
        if seat is None:
            raise Refused("web.not_seated")
        return seat

    async def _record(self, match_id: int) -> MatchRecord:
        record = await self.matches.load(match_id)
        if record is None or record.state_json is None:
            raise Refused("ans.no_match")
        return record

    async def state(self, match_id: int, user_id: int) -> dict[str, Any]:
        """What the user's page of the match shows: the hand's text and buttons, the game's
        table, whose turn and the time left, the context a tap names (:class:`Refused`: no
        such match, or no seat of the user's)."""
        record = await self._record(match_id)
        seat = self.seat(record, user_id)
        lang = self.people.user_lang(user_id)
        match = self.matches.engine(record)
        ui = ui_of(record.seats[seat])
        text, markup = self.shows.hand_view(record, seat)
        running = record.status == "playing" and not match.is_over
        game = ui_for(record.game)
        table = game.page(match, seat, ui, self.matches.names(record), lang) if running else {}
        covered = set(table.pop("covers", []))
        left = time_left(record.deadline, self.clock()) if running else None
        return {
            "match": record.id,
            "game": record.game,
            "title": t(lang, f"game.{record.game}"),
            "lang": lang,
            "seat": seat,
            "version": record.version,
            "context": context_token(match.view(seat).hand, ui),
            "running": running,
            "my_turn": running and match.to_play == seat,
            "left": None if left is None else int(left.total_seconds()),
            "text": plain(text),
            "table": table,
            "actions": [a for a in _actions(markup) if a["op"] not in covered] if running else [],
            "words": {word: str(t(lang, f"web.{word}")) for word in WORDS},
        }

    async def act(
        self, match_id: int, user_id: int, op: str, arg: str, context: str
    ) -> dict[str, Any]:
        """A tap on the user's page: pressed on the seat's hand as the button with ``op`` and
        ``arg`` would be, in the ``context`` the page was drawn in. The answer's text (a
        refusal, what was drawn) and the new state."""
        record = await self._record(match_id)
        seat = self.seat(record, user_id)
        lang = self.people.user_lang(user_id)
        if op not in {o.value for o in Op} or len(arg) > MAX_ARG or not _ARG.fullmatch(arg):
            raise Refused("web.bad_request")
        data = callbacks.Callback("h", match_id, op, seat, arg=arg, context=context[:16])
        answer = str((await self.press(data, user_id, lang)).text or "")
        self.changed(match_id)
        if answer == t(lang, "ans.stale"):  # the page was drawn before the latest change
            answer = t(lang, "web.stale")
        return {"answer": plain(answer), "state": await self.state(match_id, user_id)}

    async def fingerprint(self, match_id: int, user_id: int) -> tuple[int, int, str]:
        """What changes whenever the user's page would (a move, the seat's hand UI, the
        status): the live channel compares it (:class:`Refused` as :meth:`state`)."""
        record = await self._record(match_id)
        seat = self.seat(record, user_id)
        return record.version, record.seats[seat].ui.version, record.status

    @property
    def shared(self) -> bool:
        """Whether other instances may change the matches (their moves wake no page here)."""
        return self.matches.store.shared

    # --- who watches -------------------------------------------------------------------------

    def opened(self, match_id: int, user_id: int) -> None:
        """A page of the user's is open on the match (its live channel), counted at once
        (:meth:`open_for`): while one is, the chat's hand message waits
        (:attr:`Shows.on_page`). :meth:`closed` once it closes, whatever happens."""
        self._open[(match_id, user_id)] += 1

    async def looking(self, match_id: int) -> None:
        """A page is looking at the match: the player's bell, if it rang, goes."""
        record = await self.matches.load(match_id)
        if record is not None:
            self.shows.ring(record)

    def open_for(self, user_id: int | None = None) -> int:
        """How many pages ``user_id`` has open (their live channels), on every match; None:
        how many are open in all."""
        if user_id is None:
            return self._open.total()
        return sum(count for (_, user), count in self._open.items() if user == user_id)

    async def closed(self, match_id: int, user_id: int) -> None:
        """A page closed: once none is open, the chat's hand message catches up."""
        key = (match_id, user_id)
        self._open[key] -= 1
        if self._open[key] > 0:
            return
        del self._open[key]
        try:
            record = await self.matches.load(match_id)
            if record is None or record.state_json is None:
                return
            seat = record.seat_of(user_id)
            if seat is not None and (match_id, seat) in self.shows.behind:
                self.shows.hand(record, seat)
            self.shows.ring(record)  # a bell, if it is the player's turn
        except Exception:  # the database is away: the next move brings the chat up to date
            log.exception("the hand of %s in match %s could not catch up", user_id, match_id)

    def watch(self, match_id: int) -> asyncio.Event:
        """An event set at the match's next change (:meth:`unwatch` it when done). Where other
        instances share the database, one look a second per match watched, off the event
        loop, sees their moves too."""
        event = asyncio.Event()
        self._watching.setdefault(match_id, set()).add(event)
        if self.shared and match_id not in self._looking:
            self._looking[match_id] = asyncio.create_task(self._look(match_id))
        return event

    def unwatch(self, match_id: int, event: asyncio.Event) -> None:
        """Stop watching."""
        events = self._watching.get(match_id)
        if events is not None:
            events.discard(event)
            if not events:
                del self._watching[match_id]
                looking = self._looking.pop(match_id, None)
                if looking is not None:
                    looking.cancel()

    async def _look(self, match_id: int) -> None:
        """Tell the pages of a match another instance changed (see :meth:`watch`)."""
        seen: tuple[object, ...] | None = None
        while True:
            try:
                now: tuple[object, ...] | None = await self.matches.store.read(
                    self._stamp, match_id
                )
            except Exception:  # the database is away: look again later
                now = seen
            if seen is not None and now != seen:
                self.changed(match_id)
            seen = now
            await asyncio.sleep(SHARED_LOOK)

    def _stamp(self, match_id: int) -> tuple[object, ...]:
        """What changes with any change of the stored match (its version, a seat's hand UI,
        its status)."""
        record = self.matches.store.get_match(match_id)
        return record.version, record.status, *(s.ui.version for s in record.seats)

    def changed(self, match_id: int) -> None:
        """The match changed: every page watching it asks for its state again."""
        for event in self._watching.get(match_id, ()):
            event.set()


def _actions(markup: object) -> list[dict[str, str]]:
    """The hand's buttons as the page shows them: each one's words and its operation."""
    rows = getattr(markup, "inline_keyboard", None) or ()
    out = []
    for row in rows:
        for button in row:
            data = button.callback_data
            if not isinstance(data, str):
                continue
            decoded = callbacks.decode(data)
            if decoded is not None and decoded.kind == "h":
                out.append({"label": button.text, "op": decoded.op, "arg": decoded.arg})
    return out
