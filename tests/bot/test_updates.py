"""Updates of one chat run in order, one at a time; other chats' run meanwhile."""

from __future__ import annotations

import asyncio

from telegram import Chat, Message, Update

from bot.updates import PerChatUpdates, chat_key


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
