"""Updates of one chat run in order, one at a time; other chats' run meanwhile; none runs once
its answer would come too late."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from telegram import CallbackQuery, Chat, Message, MessageEntity, Update, User

from bot.updates import (
    ANSWER_WINDOW,
    COMMAND_WINDOW,
    WAKING,
    Arrivals,
    PerChatUpdates,
    chat_key,
)


def update(update_id: int, chat_id: int) -> Update:
    chat = Chat(chat_id, Chat.GROUP if chat_id < 0 else Chat.PRIVATE)
    return Update(update_id, message=Message(update_id, None, chat))  # type: ignore[arg-type]


async def test_one_chat_in_order_others_meanwhile() -> None:
    processor = PerChatUpdates()
    log: list[str] = []
    slow = asyncio.Event()

    async def handle(name: str, wait: asyncio.Event | None = None) -> None:
        log.append(f"{name} starts")
        if wait is not None:
            await wait.wait()
        log.append(f"{name} ends")

    first = asyncio.create_task(processor.process_update(update(1, -5), handle("a1", slow)))
    second = asyncio.create_task(processor.process_update(update(2, -5), handle("a2")))
    other = asyncio.create_task(processor.process_update(update(3, 7), handle("b1")))
    await other
    assert log == ["a1 starts", "b1 starts", "b1 ends"]  # a2 waits for a1, b1 does not
    slow.set()
    await asyncio.gather(first, second)
    assert log[3:] == ["a1 ends", "a2 starts", "a2 ends"]
    assert processor._chats == {}
    assert chat_key(update(4, -5)) == -5 and chat_key(object()) == 0


class Clock:
    """The event loop's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
ANNA = User(1001, "Anna", False)


def press(update_id: int) -> Update:
    query = CallbackQuery(str(update_id), ANNA, "ci1001", data="h:1")
    return Update(update_id, callback_query=query)


def command(update_id: int, chat_id: int, sent: datetime, text: str = "/tavolo") -> Update:
    chat = Chat(chat_id, Chat.GROUP)
    start = text.index("/")
    entities = [MessageEntity(MessageEntity.BOT_COMMAND, start, len(text) - start)]
    message = Message(update_id, sent, chat, from_user=ANNA, text=text, entities=entities)
    return Update(update_id, message=message)


def member_left(update_id: int, chat_id: int, sent: datetime) -> Update:
    chat = Chat(chat_id, Chat.GROUP)
    return Update(update_id, message=Message(update_id, sent, chat, left_chat_member=ANNA))


def watched(clock: Clock) -> Arrivals:
    """Arrivals on ``clock`` whose watch the test runs itself (``look``)."""
    arrivals = Arrivals(clock)
    arrivals.watching, arrivals.beat = True, clock.now
    return arrivals


async def run(processor: PerChatUpdates, update: Update, log: list[int]) -> None:
    async def handle() -> None:
        log.append(update.update_id)

    await processor.process_update(update, handle())


async def test_a_press_held_past_its_answer_window_is_dropped_unhandled() -> None:
    """A press waits behind a slow update of its chat: 14 s later it would be answered too
    late (Telegram refuses after 15 s), so its handler never runs; the next one does."""
    clock = Clock()
    processor = PerChatUpdates(arrivals=Arrivals(clock), wall=lambda: NOON)
    log: list[int] = []
    slow = asyncio.Event()

    async def handle_slowly() -> None:
        await slow.wait()

    first = asyncio.create_task(processor.process_update(press(1), handle_slowly()))
    held = asyncio.create_task(run(processor, press(2), log))
    await asyncio.sleep(0)
    clock.now += ANSWER_WINDOW + 0.1
    slow.set()
    await asyncio.gather(first, held)
    await run(processor, press(3), log)
    assert log == [3]
    assert processor.dropped == 1


async def test_what_comes_in_just_after_a_freeze_counts_as_waiting_since_it_began() -> None:
    """The process was frozen for 20 s: a press that comes in before the watch sees the stall,
    or within WAKING seconds after, may have waited in a socket all along (dropped); one that
    comes in later is fresh."""
    clock = Clock()
    arrivals = watched(clock)
    processor = PerChatUpdates(arrivals=arrivals, wall=lambda: NOON)
    log: list[int] = []
    clock.now += 20  # frozen
    await run(processor, press(1), log)  # the watch has not looked yet
    arrivals.look()
    assert arrivals.stall == (100.0, 120.0)
    clock.now += WAKING - 0.5
    arrivals.look()
    await run(processor, press(2), log)
    clock.now += 1
    arrivals.look()
    await run(processor, press(3), log)
    assert log == [3]
    assert arrivals.stall == (100.0, 120.0)
    assert arrivals.stamp() == clock.now


async def test_a_short_stall_drops_nothing() -> None:
    clock = Clock()
    arrivals = watched(clock)
    processor = PerChatUpdates(arrivals=arrivals, wall=lambda: NOON)
    log: list[int] = []
    clock.now += ANSWER_WINDOW - 1  # the event loop was busy, or frozen for a moment
    await run(processor, press(1), log)
    arrivals.look()
    await run(processor, press(2), log)
    assert log == [1, 2]


async def test_an_old_command_is_dropped_and_telegram_s_events_never_are() -> None:
    """A command sent more than COMMAND_WINDOW seconds ago goes unanswered; a younger one
    is answered late; a member who left is handled whenever the update comes."""
    processor = PerChatUpdates(arrivals=Arrivals(Clock()), wall=lambda: NOON)
    log: list[int] = []
    old = NOON - timedelta(seconds=COMMAND_WINDOW + 1)
    late = NOON - timedelta(seconds=COMMAND_WINDOW - 1)
    await run(processor, command(1, -5, old), log)
    await run(processor, command(2, -5, late), log)
    await run(processor, member_left(3, -5, NOON - timedelta(hours=1)), log)
    await run(processor, command(4, -5, old, text="hello /tavolo"), log)  # no command
    assert log == [2, 3, 4]
    assert processor.dropped == 1


async def test_the_watch_runs_from_initialize_to_shutdown() -> None:
    processor = PerChatUpdates()
    await processor.initialize()
    assert processor.arrivals.watching
    await processor.shutdown()
    assert not processor.arrivals.watching
