"""The child process of the SIGKILL test: commits one match's greedy moves as fast as it can.

Usage: ``python storage_writer.py DATABASE_URL MATCH_ID``. It prints ``ready``, then each new
version right after ``commit_move`` returns (flushed: the parent takes a printed version as a
committed one), and ``over`` if the match ends; then it waits to be killed.
"""

from __future__ import annotations

import sys

from storage import Store
from testkit.storage_helpers import greedy


def main(url: str, match_id: int) -> int:
    """Resume the match from the database and commit moves until killed."""
    store = Store.open(url)
    record = store.get_match(match_id)
    match = store.load_engine_match(record)
    version = record.version
    print("ready", flush=True)
    while not match.is_over:
        seat = match.to_play
        action = str(match.play(greedy(match), seat=seat))
        version = store.commit_move(match_id, version, seat, action, match.to_json())
        print(version, flush=True)
    print("over", flush=True)
    sys.stdin.read()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], int(sys.argv[2])))
