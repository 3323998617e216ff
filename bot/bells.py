"""The turn bells: the player whose turn it is gets one message that rings (where the group's
name and the time left stand), rung for this very turn and deleted when the turn passes.

Everything here is derived from the store: a bell is rung for the turn the store says
(``turn_version``), and stored once Telegram has confirmed it, so a restart, another
instance or a crash between a move and its bell leaves one bell at most, for the right turn.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime

from bot.delivery import Claim, Outbox, Priority, Render, Stored, Then
from bot.games import ui_for
from bot.matches import Matches, alone
from bot.people import People
from bot.render import table as table_render
from storage import MatchRecord

log = logging.getLogger(__name__)

Claimer = Callable[[str, int, int], Claim | None]
"""The claim of a live message's delivery (kind, match, seat), when instances share the store."""


class Bells:
    """The turn bells of every match."""

    def __init__(
        self,
        matches: Matches,
        people: People,
        outbox: Outbox,
        clock: Callable[[], datetime],
        claim: Claimer,
        blocked: Callable[[int, int], None],
    ) -> None:
        self.matches = matches
        self.store = matches.store
        self.people = people
        self.outbox = outbox
        self.clock = clock
        self.claim = claim
        self.blocked = blocked
        """Told of a seat whose player the bot cannot write to (match, seat)."""
        self.on_page: Callable[[int, int], bool] = lambda match_id, user: False
        """Whether the user has the match's page open (no bell rings for a player looking)."""
        self._ringing: dict[tuple[int, int], int] = {}

    def ring(self, record: MatchRecord) -> None:
        """Bring every player's turn bell in line with the stored state: the player whose turn
        it is has one bell, rung for this very turn (``turn_version``); nobody else has one.

        Idempotent, and derived from the store only: called after every move, at the start and
        at a resume, it rings what is missing (a crash between a move and its bell, or a new
        hand started by the player who closed the last) and deletes what is stale. ``record``:
        the match as stored now."""
        match_id = record.id
        for seat in record.seats:
            if record.status != "playing":
                self._ringing.pop((match_id, seat.seat), None)  # no bell rings any more
            if seat.user_id is None:
                continue
            wanted = self._bell_turn(record, seat.seat)
            # A bell stored for no turn (it was on its way when its turn was let go) is stale.
            stale = seat.turn_version is None or seat.turn_version != wanted
            if seat.turn_message_id is not None and stale:
                chat_id = seat.turn_chat_id or seat.user_id
                self._unring(match_id, seat.seat, chat_id, seat.turn_message_id)
            if wanted is not None and seat.turn_version != wanted:
                self._ring(match_id, seat.seat, seat.user_id)

    def _bell_turn(self, record: MatchRecord, seat: int) -> int | None:
        """The turn the seat's bell should ring for, or None (not its turn, or no bell: a
        person alone in a private match, or one with the match's page open, is looking at the
        game already)."""
        if record.status != "playing" or record.state_json is None:
            return None
        if alone(record):
            return None
        user = record.seats[seat].user_id
        if user is not None and self.on_page(record.id, user):
            return None  # the player looks at the match's page: it says whose turn it is
        match = self.matches.engine(record)
        if match.to_play != seat or self.matches.is_computer(record, match, seat):
            return None
        return record.turn_version if record.turn_version is not None else record.version

    def _unring(self, match_id: int, seat: int, chat_id: int, bell: int) -> None:
        """Delete a bell whose turn is over (forgotten once Telegram confirms it is gone),
        before a new one rings: a stop between the two leaves no bell behind, only one to
        ring again at the next start. It is deleted if the store still names it then."""
        done = functools.partial(self._bell_gone, match_id, seat, chat_id, bell)
        still = functools.partial(self._bell_stored, match_id, seat, bell)
        claim = self.claim("bell", match_id, seat)
        self.outbox.delete(chat_id, bell, done, Priority.HAND, claim=claim, still=still)

    def _ring(self, match_id: int, seat: int, user: int) -> None:
        self.outbox.put(
            user,
            ("bell", match_id, seat),
            functools.partial(self._bell_render, match_id, seat, user),
            lambda message_id, _: self._bell_rung(match_id, seat, user, message_id),
            Priority.HAND,
            fresh=True,
            claim=self.claim("bell", match_id, seat),
        )

    async def _bell_render(self, match_id: int, seat: int, user: int) -> Render | None:
        """The bell, if it is still wanted when the player's chat lets it out."""
        record = await self.matches.load(match_id, render=True)
        if record is None:
            return None
        seat_record = record.seats[seat]
        turn = self._bell_turn(record, seat)
        if turn is None or seat_record.user_id != user:
            return None
        if seat_record.turn_version == turn:
            return None  # rung already
        self._ringing[(match_id, seat)] = turn
        lang = self.people.user_lang(user)
        group = self.people.title(record.chat_id) if record.chat_id < 0 else None
        left = table_render.time_left(record.deadline, self.clock())
        text = table_render.bell_text(lang, group, left)
        match = self.matches.engine(record)
        text += "\n" + ui_for(record.game).turn_facts(match, seat, lang)
        return Render(seat_record.turn_message_id, None, text)

    def _bell_rung(
        self, match_id: int, seat: int, user: int, message_id: int | None
    ) -> Stored | Then:
        """The bell is out (or the player cannot be written to): the write that stores it,
        which the outbox runs off the event loop (told again while the store is away, so the
        turn it rings for stays known until the match ends), then the bells brought in line
        with the match as stored after it."""
        turn = self._ringing.get((match_id, seat))
        if message_id is None:
            self.blocked(match_id, seat)
            return functools.partial(self.store.set_turn_message, match_id, seat, None, None)
        log.info("bell %s/%s rung", user, message_id)
        write = functools.partial(self._stored_bell, match_id, seat, user, message_id, turn)
        return Then(write, self._ring_again)

    def _stored_bell(
        self, match_id: int, seat: int, user: int, message_id: int, turn: int | None
    ) -> MatchRecord:
        """Store a rung bell; the match as stored after it."""
        self.store.set_turn_message(match_id, seat, user, message_id, turn)
        return self.store.get_match(match_id)

    def _ring_again(self, stored: object) -> None:
        """A move may have passed the turn while its bell was on its way to the player: its
        bells found no bell to delete then, and this one is stale once stored. Ringing again
        deletes it (and changes nothing when the bell is still wanted)."""
        assert isinstance(stored, MatchRecord)
        self.ring(stored)

    def _bell_stored(self, match_id: int, seat: int, message_id: int) -> bool:
        """Whether the seat's stored bell is still that message (another instance may have
        deleted and forgotten it since this one asked)."""
        return self.store.get_match(match_id).seats[seat].turn_message_id == message_id

    def _bell_gone(self, match_id: int, seat: int, chat_id: int, message_id: int) -> Stored:
        """The bell is deleted: the write that forgets it, run off the event loop."""
        log.info("bell %s/%s gone", chat_id, message_id)
        return functools.partial(self.store.forget_turn_message, match_id, seat, message_id)
