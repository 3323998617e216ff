"""People met: a press or a command writes the person's row only when something changed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bot.people import MET_AGAIN, People
from storage import ChatSettings, Store, UserRecord


class Counting:
    """A store that counts the rows it was asked to write."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.writes: list[tuple[int, str, str | None]] = []

    async def off(self, call: Callable[..., Any], *args: Any) -> Any:
        return call(*args)

    def upsert_user(self, user_id: int, name: str, code: str | None = None) -> None:
        self.writes.append((user_id, name, code))
        self.store.upsert_user(user_id, name, code)

    def get_user(self, user_id: int) -> UserRecord | None:
        return self.store.get_user(user_id)

    def chat_settings(self, chat_id: int) -> ChatSettings:
        return self.store.chat_settings(chat_id)

    def known_user(self, user_id: int) -> UserRecord | None:
        return self.store.known_user(user_id)

    def keeps(self, users: Iterable[int] = (), chats: Iterable[int] = ()) -> bool:
        return self.store.keeps(users, chats)

    async def read(self, call: Callable[..., Any], *args: Any) -> Any:
        return call(*args)

    def read_people(self, users: Iterable[int] = (), chats: Iterable[int] = ()) -> None:
        self.store.read_people(users, chats)

    def known_chat(self, chat_id: int) -> ChatSettings:
        return self.store.known_chat(chat_id)

    def set_chat_title(self, chat_id: int, title: str | None) -> None:
        self.writes.append((chat_id, title or "", None))
        self.store.set_chat_title(chat_id, title)


def test_a_person_is_written_when_their_name_or_language_changes(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        counting, clock = Counting(store), [0.0]
        people = People(counting, None, clock=lambda: clock[0])  # type: ignore[arg-type]
        for _ in range(3):
            asyncio.run(people.met(7, "Anna", "it"))
        assert counting.writes == [(7, "Anna", "it")]
        asyncio.run(people.met(7, "Anna B.", "it"))  # renamed
        asyncio.run(people.met(7, "Anna B.", "en"))  # Telegram's language changed
        clock[0] = MET_AGAIN + 1  # another instance may have erased her meanwhile
        asyncio.run(people.met(7, "Anna B.", "en"))
        store.delete_user_data(7)  # she erased her data here
        people.forget(7)
        asyncio.run(people.met(7, "Anna B.", "en"))
        assert counting.writes[1:] == [(7, "Anna B.", "it"), *[(7, "Anna B.", "en")] * 3]
        user = store.get_user(7)
        assert user is not None and (user.name, user.language_code) == ("Anna B.", "en")
    finally:
        store.close()


def test_a_restarted_bot_writes_nobody_it_knew_unchanged(tmp_path: Path) -> None:
    """After a restart the people and the groups met again are written only if they changed
    (a hundred groups coming back at once are not a hundred writes on the event loop)."""
    url = f"sqlite:///{tmp_path / 'p.db'}"
    store = Store.open(url)
    try:
        asyncio.run(People(store, None).met(7, "Anna", "it"))  # type: ignore[arg-type]
        asyncio.run(People(store, None).titled(-100, "Scala al bar"))  # type: ignore[arg-type]
    finally:
        store.close()
    store = Store.open(url)
    try:
        counting = Counting(store)
        people = People(counting, None)  # type: ignore[arg-type]
        asyncio.run(people.met(7, "Anna", "it"))
        asyncio.run(people.titled(-100, "Scala al bar"))
        assert counting.writes == []
        asyncio.run(people.met(7, "Anna", "en"))
        asyncio.run(people.titled(-100, "Scala 40 al bar"))
        assert counting.writes == [(7, "Anna", "en"), (-100, "Scala 40 al bar", None)]
        assert store.chat_settings(-100).title == "Scala 40 al bar"
    finally:
        store.close()
