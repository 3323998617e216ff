"""The house's layout (CONTRIBUTING.md, "Layout"): dependencies go one way, handlers only
translate (they never reach the store), the test kit is imported by name, and files stay a size
one can read. Checked from the sources' own imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("engine", "storage", "bot")

LONGEST = 600
"""Lines a product file may hold."""


def sources(*folders: str) -> list[Path]:
    """The Python files under the folders."""
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def imported(path: Path) -> set[str]:
    """The top-level packages and the modules a file imports (``bot.service``, ``storage``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def importing(folders: tuple[str, ...], banned: tuple[str, ...]) -> list[str]:
    """Files under ``folders`` that import any of ``banned`` (a package or a module)."""
    return [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sources(*folders)
        for name in sorted(imported(path))
        if any(name == b or name.startswith(b + ".") for b in banned)
    ]


def test_dependencies_go_one_way() -> None:
    """``bot`` -> ``storage`` -> ``engine``: the engine knows neither the store nor Telegram,
    the store knows no bot."""
    assert importing(("engine",), ("bot", "storage", "telegram", "sqlalchemy")) == []
    assert importing(("storage",), ("bot", "telegram")) == []


def test_handlers_only_translate() -> None:
    """A handler translates an update (a web request of the Mini App, too) and calls the
    service: it never imports the store."""
    assert importing(("bot/handlers", "bot/webapp"), ("storage",)) == []


def test_the_product_never_imports_the_test_kit() -> None:
    """The fake Bot API and the helpers serve the tests and the benchmarks only."""
    assert importing(PRODUCT, ("testkit", "tests", "bench")) == []


BLOCKS = (
    "answer",
    "callbacks",
    "hand",
    "i18n",
    "options_ui",
    "rankings",
    "render",
    "delivery",
    "games",
)
"""The lower floor of ``bot/``: the building blocks the games use (button data, the hand's
state, texts, renders, delivery under Telegram's limits, each game's face). Above them the
orchestration: the matches, the lobby, moves, shows, timers, computers, questions, people,
the service, the handlers and the application."""


def test_the_bots_building_blocks_never_import_what_stands_above_them() -> None:
    """A building block imports other building blocks only (and ``render`` stands below
    ``delivery`` and ``games``: no two folders import each other)."""
    blocks = [ROOT / "bot" / name for name in BLOCKS]
    files = [p for p in blocks if p.is_dir()] + [p.with_suffix(".py") for p in blocks]
    upward = [
        f"{path.relative_to(ROOT)}: {module}"
        for folder in files
        for path in ([folder] if folder.suffix else sorted(folder.rglob("*.py")))
        if path.exists()
        for module in sorted(imported(path))
        if module.startswith("bot.") and module.split(".")[1] not in BLOCKS
    ]
    assert upward == []
    assert importing(("bot/render",), ("bot.delivery", "bot.games", "bot.hand")) == []


def test_files_stay_a_size_one_can_read() -> None:
    """No product file over :data:`LONGEST` lines."""
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sources(*PRODUCT)
    }
    too_long = {name: count for name, count in lines.items() if count > LONGEST}
    assert too_long == {}
