"""The child process of the disk tests (:mod:`tests.storage.test_storage_disk`); one line of
JSON out per step.

``python store_probe.py open URL``: open the store; ``{"opened": true}`` or the error
(``{"error": class name, "message": str(error)}``).

``python store_probe.py fill FOLDER MOVES``: on a small disk mounted at ``FOLDER``, commit
``MOVES`` greedy moves (new matches as they end); then fill the disk with another file and go
on until a move is refused; close the store and open it again on the full disk; delete the file
and open it once more, and commit one more move.
"""

from __future__ import annotations

import json
import shutil
import sys
from itertools import count
from pathlib import Path
from typing import Any

from engine.games import GameMatch
from storage import MatchRecord, Store, StoreError
from testkit.storage_helpers import greedy, started


def say(**fields: Any) -> None:
    """One step's outcome, as a line of JSON."""
    print(json.dumps(fields), flush=True)


def error_fields(error: StoreError) -> dict[str, str]:
    """How a step reports a store error."""
    return {"error": type(error).__name__, "message": str(error)}


def try_open(url: str) -> Store | None:
    """Open the store and say how it went."""
    try:
        store = Store.open(url)
    except StoreError as error:
        say(**error_fields(error))
        return None
    say(opened=True)
    return store


class Player:
    """Greedy moves, committed one by one, in a new match (another chat) when one ends."""

    def __init__(self, store: Store, record: MatchRecord | None = None) -> None:
        self.store = store
        self.chats = count(-100 if record is None else -1_000_000)
        if record is None:
            self.record, self.match = self._new()
        else:
            self.record, self.match = record, store.load_engine_match(record)
        self.version = self.record.version

    def _new(self) -> tuple[MatchRecord, GameMatch]:
        return started(self.store, "scopone", 4, chat_id=next(self.chats))

    def move(self) -> None:
        """Commit the next move (raises StoreError when the store refuses it)."""
        if self.match.is_over:
            self.record, self.match = self._new()
            self.version = self.record.version
        seat = self.match.to_play
        action = str(self.match.play(greedy(self.match), seat=seat))
        self.version = self.store.commit_move(
            self.record.id, self.version, seat, action, self.match.to_json()
        )


def fill_up(folder: Path) -> Path:
    """Fill the disk at ``folder`` with a file, to its last byte."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:
        for chunk in (b"\0" * 65536, b"\0" * 4096, b"\0"):
            try:
                while True:
                    out.write(chunk)
            except OSError:
                pass
    return filler


def fill(folder: Path, moves: int) -> None:
    """The small-disk scenario (see the module's docstring)."""
    url = f"sqlite:///{folder / 'tavolo.db'}"
    store = Store.open(url)
    player = Player(store)
    done = 0
    try:
        for _ in range(moves):
            player.move()
            done += 1
    except StoreError as error:
        say(moves=done, **error_fields(error))
        return
    say(moves=done)
    filler = fill_up(folder)
    try:
        for more in count():
            player.move()
            if more > 100_000:
                say(error="none", message="the full disk took every move")
                return
    except StoreError as error:
        say(free=shutil.disk_usage(folder).free, **error_fields(error))
    match_id, version = player.record.id, player.version
    store.close()
    if (reopened := try_open(url)) is not None:
        reopened.close()
        return
    filler.unlink()
    if (roomy := try_open(url)) is None:
        return
    player = Player(roomy, roomy.get_match(match_id))
    kept = player.version == version
    player.move()
    say(kept=kept, moved=player.version == version + 1)
    roomy.close()


def main(argv: list[str]) -> int:
    """Run the step the arguments name."""
    if argv[0] == "open":
        store = try_open(argv[1])
        if store is not None:
            store.close()
    else:
        fill(Path(argv[1]), int(argv[2]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
