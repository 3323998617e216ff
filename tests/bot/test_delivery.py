"""The outbox: the bot's pace never trips Telegram's flood limits, whatever the latencies;
live messages coalesce, priorities hold, replies are absorbed, a 429 pauses one chat."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from telegram import Chat, Message, ReplyParameters
from telegram.error import BadRequest, Forbidden, RetryAfter, TimedOut

from bot.delivery import (
    Outbox,
    Pace,
    Priority,
    Render,
    SlidingWindow,
    TokenBucket,
    courier,
    digest,
)
from bot.delivery import work as queued
from bot.delivery.limits import Gate, rank
from testkit.fake_telegram import FloodLimits, _Flood


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # RetryAfter warns without it


LATENCY = st.floats(min_value=0.0, max_value=2.0)
GAP = st.floats(min_value=0.0, max_value=3.0)


class TestPaceAgainstTelegram:
    """The bot counts a request when its answer arrives (and, overall, while it is in flight);
    Telegram counts it when it arrives. Whatever the latencies, Telegram never refuses."""

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.tuples(LATENCY, LATENCY, GAP), min_size=1, max_size=80), st.booleans())
    def test_one_chat(self, requests: list[tuple[float, float, float]], group: bool) -> None:
        pace, flood = Pace(), _Flood(FloodLimits())
        chat_id = -5 if group else 5
        if group:
            bucket = TokenBucket(pace.group_burst, pace.group_rate, 0.0)
        else:
            bucket = TokenBucket(pace.private_burst, pace.private_rate, 0.0)
        now = 0.0
        for out, back, gap in requests:
            now += bucket.delay(now)
            arrival = now + out
            assert flood.check(chat_id, arrival) == 0
            now = arrival + back
            bucket.spend(now)
            now += gap

    @settings(max_examples=50, deadline=None)
    @given(st.lists(st.tuples(LATENCY, LATENCY), min_size=200, max_size=400))
    def test_many_chats_overall(self, latencies: list[tuple[float, float]]) -> None:
        """60 private chats sending at once share the overall window (30 a second)."""
        pace, flood = Pace(), _Flood(FloodLimits())
        window = SlidingWindow(pace.overall, pace.overall_window)
        buckets = {c: TokenBucket(pace.private_burst, pace.private_rate, 0.0) for c in range(60)}
        events: list[tuple[float, int, str, int]] = [
            (0.0, n, "ready", c) for n, c in enumerate(buckets)
        ]
        order = itertools.count(len(events))
        pending = iter(latencies)
        while events:
            now, _, kind, chat = heapq.heappop(events)
            if kind == "arrive":
                assert flood.check(chat + 1, now) == 0
                continue
            if kind == "done":
                window.finish(now)
                buckets[chat].spend(now)
                kind = "ready"
            wait_window = window.delay(now)
            wait = max(buckets[chat].delay(now), wait_window or 0.0)
            if wait_window is None:
                wait = 0.01  # until a request in flight is done
            if wait > 0:
                heapq.heappush(events, (now + wait, next(order), "ready", chat))
                continue
            latency = next(pending, None)
            if latency is None:
                continue
            window.start()
            out, back = latency
            heapq.heappush(events, (now + out, next(order), "arrive", chat))
            heapq.heappush(events, (now + out + back, next(order), "done", chat))


class StubBot:
    """Records what the outbox asks of Telegram; fails as told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, object]] = []
        self.replies: list[int | None] = []
        """The message each send replied to."""
        self.failures: dict[tuple[str, int], list[Exception]] = {}
        self._ids = itertools.count(100)

    def fail(self, method: str, chat_id: int, *errors: Exception) -> None:
        self.failures.setdefault((method, chat_id), []).extend(errors)

    def _call(self, method: str, chat_id: int, what: object) -> None:
        failures = self.failures.get((method, chat_id))
        if failures:
            raise failures.pop(0)
        self.calls.append((method, chat_id, what))

    def _message(self, chat_id: int, text: str) -> Message:
        chat = Chat(chat_id, Chat.GROUP if chat_id < 0 else Chat.PRIVATE)
        return Message(next(self._ids), datetime.now(UTC), chat, text=text)

    async def send_message(
        self, chat_id: int, text: str, reply_parameters: ReplyParameters | None = None, **_: object
    ) -> Message:
        self._call("send", chat_id, text)
        self.replies.append(None if reply_parameters is None else reply_parameters.message_id)
        return self._message(chat_id, text)

    async def edit_message_text(
        self, text: str, chat_id: int, message_id: int, **_: object
    ) -> Message:
        self._call("edit", chat_id, (message_id, text))
        return self._message(chat_id, text)

    async def delete_message(self, chat_id: int, message_id: int) -> bool:
        self._call("delete", chat_id, message_id)
        return True


FAST = Pace().faster(100)


def outbox() -> tuple[Outbox, StubBot]:
    bot = StubBot()
    return Outbox(bot, FAST), bot  # type: ignore[arg-type]


class LiveMessage:
    """A live message as the service keeps one: its id and digest, and what it should show."""

    def __init__(self, message_id: int | None = None) -> None:
        self.message_id, self.shown, self.text = message_id, None, "v0"
        self.done: list[int | None] = []

    async def render(self) -> Render:
        return Render(self.message_id, self.shown, self.text)

    def store(self, message_id: int | None, shown: str | None) -> None:
        self.done.append(message_id)
        if message_id is not None:
            self.message_id, self.shown = message_id, shown


async def test_a_burst_of_changes_is_one_edit_of_the_last() -> None:
    box, bot = outbox()
    live = LiveMessage(7)
    for n in range(1, 11):
        live.text = f"v{n}"
        box.put(1, "hand", live.render, live.store, Priority.HAND)
    await box.drain()
    assert bot.calls == [("edit", 1, (7, "v10"))]
    box.put(1, "hand", live.render, live.store, Priority.HAND)  # nothing new to show
    await box.drain()
    assert len(bot.calls) == 1 and live.done == [7, 7]


async def test_replies_then_the_player_then_the_table_then_notices() -> None:
    box, bot = outbox()
    table, hand = LiveMessage(1), LiveMessage(2)
    box.send(9, "notice", priority=Priority.NOTICE)
    box.put(9, "table", table.render, table.store, Priority.TABLE)
    box.put(9, "hand", hand.render, hand.store, Priority.HAND)
    box.send(9, "reply")
    await box.drain()
    assert [what for _, _, what in bot.calls] == ["reply", (2, "v0"), (1, "v0"), "notice"]


async def test_a_tap_goes_before_the_table_waiting_in_its_group() -> None:
    """A group that spent its budget: the table waits for its turn, and the lobby's change
    (a tap) and a command's reply that come meanwhile go out before it, on the token the
    table leaves for them."""
    box, bot = outbox()
    table, lobby = LiveMessage(1), LiveMessage(2)
    queue = box._queue(-7)
    queue.bucket.level = 0.0  # the match spent the group's budget
    box.put(-7, "table", table.render, table.store, Priority.TABLE)
    box.put(-7, "lobby", lobby.render, lobby.store, Priority.REPLY)
    box.send(-7, "Punteggio")
    await box.drain()
    assert [what for _, _, what in bot.calls] == [(2, "v0"), "Punteggio", (1, "v0")]


def test_what_someone_asked_for_goes_first_in_the_overall_budget() -> None:
    """Among chats, a reply (or a lobby's change) goes before a hand that waited a few seconds;
    a table that waited goes before a fresh hand; what waited longer than the patience goes
    before a fresh reply."""
    now, pace = 100.0, FAST
    few = pace.patience * 0.9
    assert rank(Priority.REPLY, now, now, pace) < rank(Priority.HAND, now - few, now, pace)
    assert rank(Priority.NOTICE, now - few, now, pace) > rank(Priority.REPLY, now, now, pace)
    assert rank(Priority.TABLE, now - 4 * pace.aging, now, pace) < rank(
        Priority.HAND, now, now, pace
    )
    for late in (Priority.HAND, Priority.TABLE, Priority.NOTICE):
        waited = now - pace.patience - 2 * pace.aging
        assert rank(late, waited, now, pace) < rank(Priority.REPLY, now, now, pace)


async def test_a_wait_for_the_overall_budget_stops_when_told_as_it_is_woken() -> None:
    """A table waiting for the overall budget makes way for a reply to its group: its wait is
    cancelled. The budget's waiters are woken many times a second, so the cancel often comes
    in the turn of a wake-up: the wait still stops (with ``asyncio.wait_for``, on Python
    3.11, it went on, and the reply waited behind the table for 3 to 7 s)."""
    gate = Gate(Pace(), lambda: 0.0)
    for _ in range(gate.window.limit):  # the overall budget is spent
        gate.window.start()
        gate.window.finish(0.0)
    entering = asyncio.ensure_future(gate.enter(Priority.TABLE, 0.0))
    await asyncio.sleep(0)
    gate.window.finished.clear()  # the window moved on: a place is free
    gate.changed()  # the table, the only waiter, is woken to take it
    entering.cancel()  # in the same turn, a reply came to the table's group
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(entering, 1.0)
    assert not gate._waiting


async def test_the_overall_budget_wakes_only_the_waiter_it_lets_in() -> None:
    """Three hundred chats wait for a budget of two requests every 2 ms: they go in the order
    of their rank, none is forgotten, and each place is given by choosing once (two choices a
    request), not by waking every waiter when the window moves on to compare itself with the
    others: 23,449 choices of the best here, and with a hundred matches the herd took more of
    the loop than the requests did."""
    loop = asyncio.get_running_loop()
    gate = Gate(replace(Pace(), overall=2, overall_window=0.002), loop.time)
    chosen = 0
    best = gate._best

    def counted_best(now: float) -> int:
        nonlocal chosen
        chosen += 1
        return best(now)

    gate._best = counted_best  # type: ignore[method-assign]
    let_in: list[int] = []

    since = loop.time()

    async def wait(n: int, priority: int) -> None:
        await gate.enter(priority, since)
        let_in.append(n)
        await asyncio.sleep(0)
        gate.leave()

    priorities = [Priority.TABLE, Priority.HAND, Priority.REPLY] * 100
    await asyncio.gather(*(wait(n, p) for n, p in enumerate(priorities)))
    order = sorted(range(300), key=lambda n: (priorities[n], n))
    assert let_in[:2] == [0, 1]  # they came while the budget was free
    assert let_in[2:] == [n for n in order if n > 1]  # then the replies, the hands, the tables
    assert chosen <= 6 * 300


def work_a_group(
    replies_every: float, until: float, busy: bool = False, spacing: float = 0.0
) -> list[tuple[float, str]]:
    """A group whose budget a match spent, worked on a fake clock (each request done at once):
    its table and summary wait from 0 s while a reply to a different command comes every
    ``replies_every`` seconds (``busy``: the match goes on, more than the budget takes: the
    table has a change waiting again as soon as it went out, and an old message to delete;
    ``spacing``: the chat's budget shared by instances lets this one send only so often);
    what went out, and when."""
    clock = [0.0]
    box = Outbox(StubBot(), Pace(), clock=lambda: clock[0])  # type: ignore[arg-type]
    queue = box._queue(-7)
    queue.bucket.level = 0.0
    seq = itertools.count()

    def add(key: str, priority: Priority, expires: float | None = None) -> None:
        now = clock[0]
        work = queued.Send(key)
        queue.entries[key] = queued.Entry(key, work, priority, next(seq), now, now, expires)

    add("table", Priority.TABLE)
    add("summary", Priority.NOTICE)
    sent: list[tuple[float, str]] = []
    arrival = 0.5
    while clock[0] < until and (busy or any(not k.startswith("reply") for k in queue.entries)):
        now = clock[0]
        if arrival <= now:
            add(f"reply {arrival}", Priority.REPLY, now + box.pace.reply_ttl)
            arrival += replies_every
        box._expire(queue, now)
        entry, wait = box._first(queue, list(queue.entries.values()), now)
        if wait <= 0:
            del queue.entries[entry.key]
            queue.bucket.spend(now)
            sent.append((now, str(entry.key)))
            queue.went(entry.priority, now, shared=spacing > 0)
            queue.paused_until = now + spacing
            if busy and entry.key == "table":
                add("table", Priority.TABLE)
                add(f"delete {now}", Priority.CLEANUP)
        else:
            clock[0] = min(now + max(wait, 1e-9), arrival)  # a float's width is time too
    return sent


def test_a_stream_of_replies_holds_the_table_and_summary_for_a_bounded_time() -> None:
    """Two members repeat /punti and /regole: a reply or pointer every 2.5 s, more than a
    group's budget. The table and the summary still go out: the table after the patience and
    a token, the summary (which ages from a lower priority) after the replies that came in
    its first seconds; without a stream, the replies go first."""
    sent = work_a_group(2.5, until=120.0)
    when = {what: at for at, what in sent}
    bound = Pace().patience + 1 / Pace().group_rate
    assert when["table"] <= bound
    assert when["summary"] <= bound + 2 / Pace().group_rate
    assert sent[0][1].startswith("reply")  # a tap still goes first
    calm = work_a_group(30.0, until=120.0)
    assert [what for _, what in calm] == ["reply 0.5", "table", "summary"]


def test_a_rare_command_finds_its_token_however_long_the_table_waited() -> None:
    """A match keeps the group's table waiting for the budget (past the patience, at times),
    and someone types /punti about every half a minute: every reply goes out as it comes, since the
    table leaves the chat's spare token for it unless replies took it lately."""
    sent = work_a_group(31.3, until=300.0, busy=True)
    replies = [(at, what) for at, what in sent if what.startswith("reply")]
    waited = [at - float(what.split()[1]) for at, what in replies]
    assert waited == [3.25] + [0.0] * 9  # the first came while the bucket was empty
    assert len(sent) >= 300 * Pace().group_rate - 2  # the budget is spent but the spare token
    assert "summary" in {what for _, what in sent}


@pytest.mark.parametrize("replies_every", [4.0, 6.0, 8.0])
def test_replies_at_every_turn_of_a_shared_budget_leave_the_table_its_turns(
    replies_every: float,
) -> None:
    """Two instances share the group's budget, so this one sends every 8.25 s, and a reply
    waits at each of its turns: the table and the summary still go, every other turn."""
    sent = work_a_group(replies_every, until=120.0, spacing=8.25)
    when = {what: at for at, what in sent}
    assert when["table"] <= 3 * 8.25
    assert when["summary"] <= 5 * 8.25


def test_a_command_every_few_seconds_goes_before_a_table_that_waited_long() -> None:
    """A match keeps the group's table waiting past the patience, and a player asks /punti
    every 9 s: every reply goes at the chat's next token, never behind the table (the two
    take turns), and the table still goes out between them (and the deletion of an old
    message after each)."""
    sent = work_a_group(9.0, until=300.0, busy=True)
    replies = [(at, what) for at, what in sent if what.startswith("reply")]
    waited = [at - float(what.split()[1]) for at, what in replies]
    assert len(replies) == 34
    assert max(waited) <= 1 / Pace().group_rate
    tables = [at for at, what in sent if what == "table"]  # each with a deletion after it
    assert len(tables) >= (300 * Pace().group_rate - len(replies)) / 2 - 2


def test_replies_from_many_chats_do_not_hold_a_hand_in_the_overall_budget() -> None:
    """28 private chats each writing once a second fill the overall budget with replies: a
    hand (a table, a summary) waiting meanwhile still gets a place, after the patience."""
    clock = [0.0]
    pace = Pace()
    gate = Gate(pace, lambda: clock[0])
    waiting = gate._waiting
    for n, priority in enumerate((Priority.HAND, Priority.TABLE, Priority.NOTICE)):
        waiting[-1 - n] = (priority, 0.0)
    let_in: dict[int, float] = {}
    slot = pace.overall_window / pace.overall
    tickets = itertools.count()
    while clock[0] < 60.0 and any(t < 0 for t in waiting):
        waiting[next(tickets)] = (Priority.REPLY, clock[0])  # one of 28 replies a second
        best = gate._best(clock[0])
        gate._let_in(best)
        gate.window.finish(clock[0], counted=False)
        del waiting[best]
        let_in[best] = clock[0]
        clock[0] += slot
    assert max(let_in[t] for t in (-1, -2, -3)) <= pace.patience + pace.aging * 3
    assert let_in[0] == 0.0  # the first reply went before them all


def test_a_backlog_of_hands_and_tables_does_not_hold_a_reply_in_the_overall_budget() -> None:
    """A hundred matches keep hands and tables waiting for the overall budget for good, long
    past the patience: a lobby tap or a command that comes meanwhile goes next. Replies that
    come in a storm take every other place, the backlog the rest."""
    clock = [0.0]
    pace = Pace()
    gate = Gate(pace, lambda: clock[0])
    waiting = gate._waiting
    for n in range(200):
        waiting[-1 - n] = (Priority.TABLE if n % 2 else Priority.HAND, -30.0)
    waiting[0] = (Priority.REPLY, 0.0)
    assert gate._best(0.0) == 0
    went = []
    for ticket in range(1, 4 * pace.overall):
        waiting[ticket] = (Priority.REPLY, clock[0])  # one reply more at every place
        best = gate._best(clock[0])
        gate._let_in(best)
        gate.window.finish(clock[0], counted=False)
        went.append(waiting.pop(best)[0])
        clock[0] += pace.overall_window / pace.overall
    replied = [priority == Priority.REPLY for priority in went]
    assert replied == [n % 2 == 0 for n in range(len(went))]


async def test_replies_merge_and_a_repeat_points_up_in_a_group() -> None:
    box, bot = outbox()
    box.pointer = lambda chat_id: f"see above ({chat_id})"
    for _ in range(5):
        box.send(-3, "Punteggio")
        box.send(4, "Punteggio")
    await box.drain()
    for _ in range(3):
        box.send(-3, "Punteggio")  # sent a moment ago in this group: pointed up at, once
    box.send(4, "Punteggio")  # a private chat asks again: answered again
    await box.drain()
    first = box.chats[-3].replied[digest("Punteggio", None)][1]
    assert bot.calls == [
        ("send", -3, "Punteggio"),
        ("send", 4, "Punteggio"),
        ("send", -3, "see above (-3)"),
        ("send", 4, "Punteggio"),
    ]
    assert bot.replies[2] == first
    assert box.dropped == 10


async def test_a_429_pauses_its_chat_only_and_late_replies_are_dropped() -> None:
    box, bot = outbox()
    wait = FAST.reply_ttl * 2
    bot.fail("edit", -1, RetryAfter(timedelta(seconds=wait)))
    table_a, table_b = LiveMessage(1), LiveMessage(2)
    box.put(-1, "table", table_a.render, table_a.store, Priority.TABLE)
    await_first = box.chats[-1]
    while not box.refused:  # the table asked first, and was told to wait
        await asyncio.sleep(0)
    box.send(-1, "a reply that waits too long")
    box.put(-2, "table", table_b.render, table_b.store, Priority.TABLE)
    await box.drain()
    assert bot.calls == [("edit", -2, (2, "v0")), ("edit", -1, (1, "v0"))]
    assert box.refused == 1 and box.dropped == 1 and await_first.paused_until > 0


async def test_a_message_gone_is_sent_again_and_a_bell_retires_the_old_one() -> None:
    box, bot = outbox()
    hand = LiveMessage(5)
    bot.fail("edit", 8, BadRequest("Message to edit not found"))
    box.put(8, "hand", hand.render, hand.store, Priority.HAND)
    await box.drain()
    assert bot.calls == [("send", 8, "v0")] and hand.message_id == 100
    bell = LiveMessage(100)
    box.put(8, "bell", bell.render, bell.store, Priority.HAND, fresh=True, retire=True)
    await box.drain()
    assert bot.calls[1:] == [("send", 8, "v0"), ("delete", 8, 100)] and bell.message_id == 101


async def test_a_chat_closed_to_the_bot_is_reported() -> None:
    box, bot = outbox()
    hand = LiveMessage(5)
    bot.fail("edit", 8, Forbidden("Forbidden: bot was blocked by the user"))
    box.put(8, "hand", hand.render, hand.store, Priority.HAND)
    await box.drain()
    assert bot.calls == [] and hand.done == [None]


async def test_a_group_closed_to_the_bot_gets_nothing_more_and_is_told_once() -> None:
    """Telegram refuses the table's edit (the bot was removed): what waits for that group is
    dropped, what comes for it later too, and the service hears it once; once the bot is back
    (or CLOSED_FOR has passed) messages go there again. A group that is gone ("chat not
    found") is closed too; a player who blocked the bot closes nothing."""
    box, bot = outbox()
    told: list[int] = []

    async def closed(chat_id: int) -> None:
        told.append(chat_id)
        box.send(chat_id, "what the end of the match says")  # dropped too

    box.on_closed = closed
    table = LiveMessage(1)
    bot.fail("edit", -1, Forbidden("Forbidden: bot was kicked from the group chat"))
    box.put(-1, "table", table.render, table.store, Priority.TABLE)
    box.send(-1, "a notice", priority=Priority.NOTICE)
    await box.drain()
    box.put(-1, "table", table.render, table.store, Priority.TABLE)
    await box.drain()
    assert bot.calls == [] and told == [-1] and table.done == [None, None]
    box.reopen_chat(-1)
    box.send(-1, "back")
    bot.fail("send", -2, BadRequest("Chat not found"))
    box.send(-2, "nobody reads this")
    await box.drain()
    box.send(-2, "nor this")
    box.closed_chats[-2] = box.clock() - 1  # CLOSED_FOR has passed
    box.send(-2, "but this")
    bot.fail("send", 8, Forbidden("Forbidden: bot was blocked by the user"))
    box.send(8, "a blocked player")
    await box.drain()
    box.send(8, "unblocked")
    await box.drain()
    assert bot.calls == [("send", -1, "back"), ("send", -2, "but this"), ("send", 8, "unblocked")]
    assert told == [-1, -2] and not box.is_closed(8)


async def test_a_burst_of_taps_costs_two_edits() -> None:
    """The first tap shows at once; the taps right after it are gathered into one edit of the
    final state, sent once they pause."""
    bot = StubBot()
    box = Outbox(bot, replace(FAST, gather=0.2))  # type: ignore[arg-type]
    hand = LiveMessage(3)
    hand.text = "tap 1"
    box.put(1, "hand", hand.render, hand.store, Priority.HAND, gather=True)
    await box.drain()
    for n in range(2, 8):
        hand.text = f"tap {n}"
        box.put(1, "hand", hand.render, hand.store, Priority.HAND, gather=True)
    await box.drain()
    assert bot.calls == [("edit", 1, (3, "tap 1")), ("edit", 1, (3, "tap 7"))]


async def test_a_timed_out_send_is_not_sent_again_a_timed_out_edit_is() -> None:
    """After a timeout Telegram may have posted the message: a send is not made twice (no
    duplicate summaries), an edit is made again (it is harmless)."""
    box, bot = outbox()
    bot.fail("send", -4, TimedOut("Timed out"))
    bot.fail("edit", 5, TimedOut("Timed out"))
    box.send(-4, "Mano 3", priority=Priority.NOTICE)
    hand = LiveMessage(9)
    box.put(5, "hand", hand.render, hand.store, Priority.HAND)
    await box.drain()
    assert bot.calls == [("edit", 5, (9, "v0"))]


async def test_a_new_chat_is_not_forgotten_among_many_idle_ones() -> None:
    box, bot = outbox()
    for chat_id in range(1, 10_001):
        box._queue(chat_id)
    box.send(-5, "ciao")
    await box.drain()
    assert bot.calls == [("send", -5, "ciao")] and -5 in box.chats and len(box.chats) == 1


async def test_closing_stops_what_cannot_go_out_in_time() -> None:
    box, bot = outbox()
    bot.fail("edit", -1, RetryAfter(timedelta(seconds=30)))
    table = LiveMessage(1)
    box.put(-1, "table", table.render, table.store, Priority.TABLE)
    box.send(2, "bye", priority=Priority.NOTICE)
    await box.close(grace=0.2)
    assert bot.calls == [("send", 2, "bye")]
    assert box.idle and box.waiting() == 1
    box.put(-1, "table", table.render, table.store, Priority.TABLE)  # nothing starts again
    assert box.idle


async def test_an_edit_whose_fate_is_unknown_is_not_repeated() -> None:
    """The bot died after sending an edit to "v1" and before Telegram's answer: the message
    shows "v0" or "v1". An edit to either could be refused as not modified, so that one is
    posted anew (the old message deleted); any other content is an edit."""
    box, bot = outbox()
    sent: list[str] = []
    unknown = Render(7, digest("v0", None), "v1", pending=digest("v1", None))
    box.put(1, "hand", unknown, lambda *_: None, Priority.HAND, sending=sent.append)
    await box.drain()
    assert bot.calls == [("send", 1, "v1"), ("delete", 1, 7)] and sent == []
    other = replace(unknown, text="v2")
    box.put(2, "hand", other, lambda *_: None, Priority.HAND, sending=sent.append)
    await box.drain()
    assert bot.calls[2:] == [("edit", 2, (7, "v2"))] and sent == [digest("v2", None)]


class Away(Exception):
    """The store did not answer."""


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(courier, "STORE_WAIT", 0.01)


async def test_a_render_the_store_cannot_answer_is_made_once_it_answers(
    quick_retries: None,
) -> None:
    """The store is away when the hand's turn comes: the hand waits, then shows what the
    store holds (it is not dropped)."""
    bot = StubBot()
    box = Outbox(bot, FAST, unavailable=(Away,))  # type: ignore[arg-type]
    hand = LiveMessage(7)
    hand.text = "v1"
    away = [Away("connection refused"), Away("connection refused")]

    async def render() -> Render:
        if away:
            raise away.pop()
        return await hand.render()

    box.put(1, "hand", render, hand.store, Priority.HAND)
    await box.drain()
    assert bot.calls == [("edit", 1, (7, "v1"))] and hand.done == [7] and away == []


async def test_what_telegram_did_is_stored_once_the_store_answers(quick_retries: None) -> None:
    """Telegram posted the hand while the store was away: its id is stored once the store
    answers, and the hand is not posted twice."""
    bot = StubBot()
    box = Outbox(bot, FAST, unavailable=(Away,))  # type: ignore[arg-type]
    hand = LiveMessage()
    away = [Away("connection refused"), Away("connection refused")]

    def store(message_id: int | None, shown: str | None) -> None:
        if away:
            raise away.pop()
        hand.store(message_id, shown)

    box.put(1, "hand", hand.render, store, Priority.HAND)
    await box.drain()
    box.put(1, "hand", hand.render, store, Priority.HAND)
    await box.drain()
    assert bot.calls == [("send", 1, "v0")] and hand.done == [100, 100]


class Claimed:
    """A live message's delivery that another instance holds for the first ``busy`` asks."""

    def __init__(self, busy: int) -> None:
        self.busy, self.taken, self.released = busy, 0, 0

    def take(self) -> bool:
        if self.busy:
            self.busy -= 1
            return False
        self.taken += 1
        return True

    def release(self) -> None:
        self.released += 1


async def test_a_message_another_instance_delivers_waits_for_it() -> None:
    """Another instance holds the hand: it is shown once that one is done (rendered then);
    a deletion is made under the claim, and not at all once the message is gone already."""
    box, bot = outbox()
    hand, claim = LiveMessage(7), Claimed(busy=2)
    hand.text = "v1"
    box.put(1, "hand", hand.render, hand.store, Priority.HAND, claim=claim)
    gone, there = Claimed(busy=1), Claimed(busy=0)
    box.delete(1, 5, claim=gone, still=lambda: False)
    box.delete(1, 6, claim=there, still=lambda: True)
    await box.drain()
    assert sorted(bot.calls) == [("delete", 1, 6), ("edit", 1, (7, "v1"))]
    assert (claim.taken, claim.released, claim.busy) == (1, 1, 0)
    assert (gone.taken, gone.released, there.taken, there.released) == (1, 1, 1, 1)
