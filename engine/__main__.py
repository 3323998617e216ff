"""``python -m engine verify FILE``: check a finished match's deals (:mod:`engine.fairness`).

``FILE`` is the match file the bot sends on ``/verifica`` (``-`` reads standard input). Prints
every deal rebuilt from the revealed seed and whether the seed matches the commitment shown at
the start; exits 0 when verified, 1 when not, 2 on a usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.fairness import describe, verify


def main(argv: list[str]) -> int:
    """Run the command line."""
    if len(argv) != 2 or argv[0] != "verify":
        print("usage: python -m engine verify FILE", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if argv[1] == "-" else Path(argv[1]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"cannot read {argv[1]}: {error}", file=sys.stderr)
        return 2
    verdict = verify(text)
    print(describe(verdict))
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
