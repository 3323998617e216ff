"""Run a benchmark: ``python -m bench SUITE [options]``.

``SUITE`` is one of engine, storage, bot, ai, ai-sweep.

``ai`` runs the Scala 40 then the Scopone computer-player benches on the same options (each reads
the options it knows and ignores the rest); ``ai-sweep`` is the legality sweep of both games'
computer players (:mod:`bench.ai_sweep`), exiting nonzero when any chosen action was illegal.
``--help`` prints every module's options of the suite in turn. The benches run from the checkout
(the package does not ship them); the AI trainers and probes are in ``research/``.
"""

from __future__ import annotations

import importlib
import sys

SUITES = {
    "engine": ["bench.scala40_engine", "bench.scopone_engine"],
    "storage": ["bench.storage"],
    "bot": ["bench.bot"],
    "ai": ["bench.ai_scala40", "bench.ai_scopone"],
    "ai-sweep": ["bench.ai_sweep"],
}


def main(argv: list[str]) -> int:
    """Dispatch to each module of the named suite; every module has ``main(argv) -> int``.

    A module that exits (``--help``, or an option value it cannot parse) does not stop the
    others; its exit status is kept.
    """
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
        try:
            status |= module.main(argv[1:])
        except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
            code = exit_.code
            status |= code if isinstance(code, int) else 0 if code is None else 1
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
