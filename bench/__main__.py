"""Run a benchmark: ``python -m bench engine|storage [options]``."""

from __future__ import annotations

import importlib
import sys

SUITES = {
    "engine": ["bench.scala40_engine", "bench.scopone_engine"],
    "storage": ["bench.storage"],
    "bot": ["bench.bot"],
    "ai": ["bench.ai_scala40", "bench.ai_scopone"],
}


def main(argv: list[str]) -> int:
    """Dispatch to each module of the named suite; every module has ``main(argv) -> int``."""
    if not argv or argv[0] not in SUITES:
        print(f"usage: python -m bench {{{'|'.join(SUITES)}}} [options]", file=sys.stderr)
        return 2
    status = 0
    for name in SUITES[argv[0]]:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            print(f"({name} not available yet)")
            continue
        status |= module.main(argv[1:])
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
