"""Translation catalogs (Italian first, English too) and the one lookup, :func:`t`.

Texts live in ``it.py`` and ``en.py`` as ``{key: template}``; templates use ``str.format``
fields. Group messages use the group's language, private ones the player's own.

Messages are HTML. :func:`t` is the one place where text meets markup: every field that is a
plain ``str`` (a player's name, a group's title, an engine message) is escaped, and what
:func:`t` returns is :class:`Html`, which is not escaped again when it fills another template.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from bot.i18n import en, it

LANGUAGES = ("it", "en")
DEFAULT = "it"
CATALOGS: dict[str, dict[str, str]] = {"it": it.TEXTS, "en": en.TEXTS}


def language_for(code: str | None) -> str:
    """The UI language for a Telegram ``language_code``: Italian for ``it``, else English."""
    if code is None:
        return DEFAULT
    return "it" if code.lower().startswith("it") else "en"


class Html(str):
    """Text that is already HTML (a template filled by :func:`t`, or lines of such texts)."""

    __slots__ = ()


def safe(value: object) -> object:
    """A field value as it may enter HTML: plain text escaped, markup and numbers as they are."""
    if isinstance(value, str) and not isinstance(value, Html):
        return escape(value, quote=False)
    return value


def html_lines(lines: Iterable[str], separator: str = "\n") -> Html:
    """Lines joined into one HTML text (plain ones escaped)."""
    return Html(separator.join(str(safe(line)) for line in lines))


def t(lang: str, key: str, **fields: object) -> Html:
    """The text of ``key`` in ``lang`` (Italian if unknown), with ``fields`` filled in
    (escaped: :func:`safe`)."""
    catalog = CATALOGS.get(lang, CATALOGS[DEFAULT])
    template = catalog.get(key)
    if template is None:
        template = CATALOGS[DEFAULT].get(key, key)
    if not fields:
        return Html(template)
    return Html(template.format(**{name: safe(value) for name, value in fields.items()}))


def error_text(lang: str, code: str, message: str = "", **details: object) -> Html:
    """A player-facing text for an engine error code and its details (figures, cards).

    Falls back to the engine's English message when the catalog has no text for the code.
    """
    key = f"err.{code}"
    if key in CATALOGS.get(lang, CATALOGS[DEFAULT]):
        try:
            return t(lang, key, message=message, **details)
        except (KeyError, IndexError):
            pass
    return t(lang, "err.generic", message=message or code)
