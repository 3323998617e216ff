"""Translation catalogs: the same keys in Italian and English, fields that fill in."""

from __future__ import annotations

import ast
import re
import string
from collections import defaultdict
from pathlib import Path

from bot.i18n import CATALOGS, error_text, language_for, t

ENGINE = Path(__file__).resolve().parents[2] / "engine"
ERRORS = {"IllegalAction", "InvalidMeld"}


def fields(template: str | tuple[str, ...]) -> set[str]:
    """The named fields of a text (of every plural form of it)."""
    forms = template if isinstance(template, tuple) else (template,)
    return {name for form in forms for _, name, _, _ in string.Formatter().parse(form) if name}


def forms(template: str | tuple[str, ...]) -> tuple[str, ...]:
    return template if isinstance(template, tuple) else (template,)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _enclosing(tree: ast.AST) -> dict[ast.AST, ast.FunctionDef | None]:
    """Every node of ``tree`` mapped to the function it is in (None at module level)."""
    owner: dict[ast.AST, ast.FunctionDef | None] = {}

    def visit(node: ast.AST, function: ast.FunctionDef | None) -> None:
        owner[node] = function
        inner = node if isinstance(node, ast.FunctionDef) else function
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, None)
    return owner


def _assigned(function: ast.FunctionDef | None, variable: str) -> list[str]:
    """The string literals assigned to ``variable`` in ``function`` (``a, b = "x", "y"`` too)."""
    found = []
    for node in ast.walk(function) if function is not None else ():
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts, strict=False))
            for name, value in pairs:
                if isinstance(name, ast.Name) and name.id == variable:
                    assert isinstance(value, ast.Constant), ast.unparse(node)
                    found.append(value.value)
    return found


def _argument_values(
    trees: list[ast.Module], function: ast.FunctionDef, parameter: str
) -> list[str]:
    """The string literals every call of ``function`` in the engine passes as ``parameter``."""
    params = [a.arg for a in function.args.args]
    position = params.index(parameter) - (1 if params[:1] == ["self"] else 0)
    values = []
    for tree in trees:
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _name(call.func) != function.name:
                continue
            given = [k.value for k in call.keywords if k.arg == parameter]
            given = given or call.args[position : position + 1]
            assert given and isinstance(given[0], ast.Constant), ast.unparse(call)
            values.append(given[0].value)
    return values


def engine_codes() -> dict[str, list[set[str] | None]]:
    """Every error code the engine can raise, with the ``details`` fields of each raise site.

    A site is a call ``IllegalAction(code, ...)`` / ``InvalidMeld(code, ...)`` under
    ``engine/``; f-string codes (``f"not-{phase}-phase"``) are expanded to every value the
    enclosing function is called with, and a code held in a variable to its literals. A site that
    re-raises another error's code (``IllegalAction(error.code, error.message)``) is recorded
    under ``None``: it forwards every InvalidMeld code, with only the fields it passes itself.
    """
    paths = sorted(ENGINE.rglob("*.py"))
    trees = [ast.parse(path.read_text(), str(path)) for path in paths]
    sites: dict[str, list[set[str] | None]] = defaultdict(list)
    forwarded: list[set[str] | None] = []
    meld_codes: set[str] = set()
    for tree in trees:
        owner = _enclosing(tree)
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _name(call.func) not in ERRORS:
                continue
            first = call.args[0] if call.args else next(k.value for k in call.keywords)
            keywords = {k.arg for k in call.keywords if k.arg not in (None, "code", "message")}
            passed = None if any(k.arg is None for k in call.keywords) else keywords
            function = owner[call]
            if isinstance(first, ast.Constant):
                codes = [first.value]
            elif isinstance(first, ast.JoinedStr):
                holes = [v.value for v in first.values if isinstance(v, ast.FormattedValue)]
                assert len(holes) == 1 and isinstance(holes[0], ast.Name), ast.unparse(first)
                assert function is not None, ast.unparse(call)
                template = "".join(
                    v.value if isinstance(v, ast.Constant) else "{}" for v in first.values
                )
                values = _argument_values(trees, function, holes[0].id)
                assert values, f"no call gives the values of {ast.unparse(first)}"
                codes = [template.format(value) for value in values]
            elif isinstance(first, ast.Name):
                codes = _assigned(function, first.id)
                assert codes, f"cannot tell the codes of {ast.unparse(call)}"
            else:
                forwarded.append(passed)  # e.g. IllegalAction(error.code, error.message)
                continue
            for code in codes:
                sites[code].append(passed)
                if _name(call.func) == "InvalidMeld":
                    meld_codes.add(code)
    for code in meld_codes:
        sites[code].extend(forwarded)
    return dict(sites)


def regex_codes() -> set[str]:
    """The first string argument of every ``IllegalAction(``/``InvalidMeld(`` in the engine."""
    pattern = re.compile(r"\b(?:IllegalAction|InvalidMeld)\(\s*f?\"([^\"]+)\"")
    return {m[1] for path in ENGINE.rglob("*.py") for m in pattern.finditer(path.read_text())}


SHARED_WORDS = {
    "scala",
    "scopone",
    "scopa",
    "scope",
    "settebello",
    "computer",
    "no",
    "mp",
    "vp",
    "s",
    "min",
    "pt",
    "in",
}
"""Words spelt the same in both languages: game names, loanwords, ranking abbreviations."""


def letters_words(template: str) -> list[str]:
    """The words of a template, without fields, HTML tags, emoji, digits and punctuation."""
    text = re.sub(r"\{[^}]*\}|<[^>]*>", " ", template)
    return re.findall(r"[^\W\d_]+", text)


class TestEngineErrors:
    def test_enumeration_matches_the_source(self) -> None:
        codes = set(engine_codes())
        literal = {code for code in regex_codes() if "{" not in code}
        assert literal <= codes
        assert {"not-cut-phase", "not-rientro-phase", "opening-below-40"} <= codes

    def test_every_code_has_a_text(self) -> None:
        for code in sorted(engine_codes()):
            for lang in ("it", "en"):
                assert f"err.{code}" in CATALOGS[lang], f"{lang}: err.{code}"

    def test_fields_are_passed_by_every_raise_site(self) -> None:
        for code, sites in sorted(engine_codes().items()):
            used = fields(CATALOGS["it"][f"err.{code}"]) - {"message"}
            for passed in sites:
                assert passed is None or used <= passed, f"err.{code} uses {used - passed}"

    def test_italian_is_translated(self) -> None:
        for key, italian in CATALOGS["it"].items():
            for form, english in zip(forms(italian), forms(CATALOGS["en"][key]), strict=True):
                if form != english:
                    continue
                words = {word.lower() for word in letters_words(form)}
                assert words <= SHARED_WORDS, f"{key}: {form!r} is the same in both languages"


class TestCatalogs:
    def test_same_keys(self) -> None:
        assert set(CATALOGS["it"]) == set(CATALOGS["en"])

    def test_same_fields_per_key(self) -> None:
        for key, template in CATALOGS["it"].items():
            assert fields(template) == fields(CATALOGS["en"][key]), key

    def test_every_plural_form_has_the_same_fields(self) -> None:
        """Both languages have two forms (one, many); the caller passes the number as count."""
        for lang, catalog in CATALOGS.items():
            for key, template in catalog.items():
                if isinstance(template, tuple):
                    assert len(template) == 2, (lang, key)
                    assert len({frozenset(fields(form)) for form in template}) == 1, (lang, key)
                    assert isinstance(CATALOGS["en" if lang == "it" else "it"][key], tuple), key

    def test_no_text_is_empty(self) -> None:
        for lang, catalog in CATALOGS.items():
            for key, template in catalog.items():
                assert all(form.strip() for form in forms(template)), (lang, key)

    def test_html_tags_balanced(self) -> None:
        for catalog in CATALOGS.values():
            for key, template in catalog.items():
                for form in forms(template):
                    opened = re.findall(r"<(b|i|code)>", form)
                    closed = re.findall(r"</(b|i|code)>", form)
                    assert sorted(opened) == sorted(closed), key

    def test_language_for(self) -> None:
        assert language_for("it-IT") == "it"
        assert language_for("en") == "en"
        assert language_for("de") == "en"
        assert language_for(None) == "it"

    def test_engine_error_translated(self) -> None:
        assert error_text("it", "close-first-round") == "Non si può chiudere al primo giro."
        assert error_text("en", "opening-below-40", "x", points=37, needed=40) == (
            "Opening too low: 37 points, 40 needed."
        )
        assert error_text("it", "opening-below-40", "37 points, 40 needed") == (
            "Mossa non valida: 37 points, 40 needed"
        )
        assert error_text("en", "unknown-code", "raw") == "Not a legal move: raw"
        assert error_text("it", "discard-empty", "the discard pile is empty") == (
            "Il pozzo è vuoto: pesca dal tallone."
        )

    def test_fill(self) -> None:
        assert t("it", "move.open", name="Anna", points=57) == "Anna apre con 57"
        assert t("en", "move.discard", name="Luca", card="7♥") == "Luca discards 7♥"


def test_every_game_in_the_registry_has_its_texts() -> None:
    """``/start``, ``/help`` and the unknown-game answer list the games from the registry: each
    needs its name, its name in a sentence, its turn in six steps and (but the default) how to
    start it, in both catalogs (docs/adding-a-game.md)."""
    from engine.games import GAMES

    default, *others = GAMES
    wanted = [f"{prefix}.{name}" for name in GAMES for prefix in ("game", "help")]
    wanted += [f"game.{name}.play" for name in GAMES] + [f"newgame.{name}" for name in others]
    for lang, catalog in CATALOGS.items():
        assert [key for key in wanted if not catalog.get(key)] == [], lang
        assert all(len(forms(catalog[f"help.{name}"])[0].splitlines()) == 7 for name in GAMES)
    assert "newgame.scala40" not in CATALOGS["it"] and default == "scala40"
