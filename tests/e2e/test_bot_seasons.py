"""End to end: a group's month (docs/rules.md SE-2, SE-3) through the fake Bot API.

``/classifica mese`` ranks the month so far; once a month is over (October here, which the
bot finds over as it starts looking), the group is sent its final standings by whichever
instance claims the month first, once, however often the instances look.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import storage.base
import storage.matches
from storage import FINISHED, PlayerResult, Store
from testkit.bot_harness import another_instance, running_bot, say, seat_people, settle
from testkit.fake_telegram import FakeTelegramServer
from testkit.manual_scheduler import ManualScheduler

GROUP = -100770
ANNA, BEA = 1771, 1772
PEOPLE = [(ANNA, "Anna", "it"), (BEA, "Bea", "it")]

NOVEMBER_TABLE = (
    "🏆 Classifica di Scala 40 · novembre 2026\n"
    "1. Bea · MP 40 · VP 20 · partite 2, vinte 1\n"
    "2. Anna · MP -40 · VP 20 · partite 2, vinte 1\n"
    "MP: punti partita · VP: punti vittoria (20 a chi vince, 10 a un pari)"
)


def finished(database: Path, monkeypatch: pytest.MonkeyPatch, when: datetime, mp: int) -> None:
    """A Scala 40 match of Anna and Bea in the group, finished at ``when`` and shown: Anna's
    ``mp``."""
    for module in (storage.base, storage.matches):
        monkeypatch.setattr(module, "_now", lambda: when)
    with Store.open(f"sqlite:///{database}") as store:
        record = store.create_match(GROUP, "scala40", {}, ANNA, "Anna", seed=1)
        record = store.add_seat(record.id, BEA, "Bea")
        version = store.start_match(record.id, "{}", record.version)
        won = mp > 0
        rows = [
            PlayerResult(0, ANNA, "Anna", False, mp, 20 if won else 0, won, 1),
            PlayerResult(1, BEA, "Bea", False, -mp, 0 if won else 20, not won, 0),
        ]
        store.commit_move(record.id, version, 0, "abandon", "{}", status=FINISHED, results=rows)
        store.show_match_end(record.id)  # shown long ago
    monkeypatch.undo()


async def test_the_month_so_far_and_its_announcement_once(
    fake_telegram: FakeTelegramServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, database = fake_telegram, tmp_path / "seasons.db"
    anna, _ = seat_people(server, GROUP, "Circolo", PEOPLE)
    finished(database, monkeypatch, datetime(2026, 10, 20, 20, 0, tzinfo=UTC), 90)
    finished(database, monkeypatch, datetime(2026, 11, 3, 20, 0, tzinfo=UTC), 30)
    finished(database, monkeypatch, datetime(2026, 11, 29, 20, 0, tzinfo=UTC), -70)
    clock = ManualScheduler(datetime(2026, 11, 30, 12, 0, tzinfo=UTC))
    async with running_bot(server, database, clock) as service:
        asked = await say(server, service, anna, GROUP, "/classifica mese")
        assert asked.text == (
            NOVEMBER_TABLE + "\n\nNessuna partita di Scopone conclusa qui a novembre 2026."
        )
        last = await say(server, service, anna, GROUP, "/classifica mese scorso scala40")
        assert last.text == (
            "🏆 Classifica di Scala 40 · ottobre 2026\n"
            "1. Anna · MP 90 · VP 20 · partite 1, vinte 1\n"
            "2. Bea · MP -90 · VP 0 · partite 1, vinte 0\n"
            "MP: punti partita · VP: punti vittoria (20 a chi vince, 10 a un pari)"
        )
        levels = (await say(server, service, anna, GROUP, "/classifica livelli")).text or ""
        assert levels.split("\n")[0] == "🎖 Livelli di Scala 40"
        assert sorted(line.split(" · ")[0][3:] for line in levels.split("\n")[1:]) == [
            "Anna",
            "Bea",
        ]
        assert await service.work.poll() == 1  # October is over, November is not
        await settle(server, service)
        # 23:05 UTC is five past midnight on 1 December in Rome: November is over.
        await clock.advance((datetime(2026, 11, 30, 23, 5, tzinfo=UTC) - clock.now()).seconds)
        async with another_instance(server, database) as other:
            other.work.clock = clock.now
            assert await other.work.poll() + await service.work.poll() == 1
            await settle(server, service)
            await other.drain()
            await clock.advance(timedelta(minutes=15).seconds)  # past every lease
            assert await other.work.poll() + await service.work.poll() == 0
        await settle(server, service)
    announced = [m.text for m in server.messages(GROUP, from_bot=True) if "È finito" in m.text]
    assert announced == [
        "🗓 È finito ottobre 2026! Ecco la classifica finale del mese.\n"
        "🥇 Scala 40 · primo posto del mese: Anna\n\n"
        "🏆 Classifica di Scala 40 · ottobre 2026\n"
        "1. Anna · MP 90 · VP 20 · partite 1, vinte 1\n"
        "2. Bea · MP -90 · VP 0 · partite 1, vinte 0\n"
        "MP: punti partita · VP: punti vittoria (20 a chi vince, 10 a un pari)",
        "🗓 È finito novembre 2026! Ecco la classifica finale del mese.\n"
        "🥇 Scala 40 · primo posto del mese: Bea\n\n" + NOVEMBER_TABLE,
    ]
