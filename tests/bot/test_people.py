"""People met: a press or a command writes the person's row only when something changed."""

from __future__ import annotations

from pathlib import Path

from bot.people import MET_AGAIN, People
from storage import Store


class Counting:
    """A store that counts the rows it was asked to write."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.writes: list[tuple[int, str, str | None]] = []

    def upsert_user(self, user_id: int, name: str, code: str | None = None) -> None:
        self.writes.append((user_id, name, code))
        self.store.upsert_user(user_id, name, code)


def test_a_person_is_written_when_their_name_or_language_changes(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        counting, clock = Counting(store), [0.0]
        people = People(counting, None, clock=lambda: clock[0])  # type: ignore[arg-type]
        for _ in range(3):
            people.met(7, "Anna", "it")
        assert counting.writes == [(7, "Anna", "it")]
        people.met(7, "Anna B.", "it")  # renamed
        people.met(7, "Anna B.", "en")  # Telegram's language changed
        clock[0] = MET_AGAIN + 1  # another instance may have erased her meanwhile
        people.met(7, "Anna B.", "en")
        people.forget(7)  # she erased her data here
        people.met(7, "Anna B.", "en")
        assert counting.writes[1:] == [(7, "Anna B.", "it"), *[(7, "Anna B.", "en")] * 3]
        user = store.get_user(7)
        assert user is not None and (user.name, user.language_code) == ("Anna B.", "en")
    finally:
        store.close()
