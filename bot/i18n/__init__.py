"""Translation catalogs (Italian first, English too) and the one lookup, :func:`t`.

The texts live in gettext catalogs, ``it.po`` and ``en.po`` beside this module, read with Babel
when the bot starts. A message's ``msgid`` is its key (``"hand.title"``), its ``msgstr`` the text:
HTML with named ``str.format`` fields. A text that depends on a number has plural forms
(``msgid_plural``); the caller passes the number as the field ``count``, and the language's
``Plural-Forms`` rule picks the form. Group messages use the group's language, private ones the
player's own.

Messages are HTML. :func:`t` is the one place where text meets markup: every field that is a
plain ``str`` (a player's name, a group's title, an engine message) is escaped, and what
:func:`t` returns is :class:`Html`, which is not escaped again when it fills another template.
A name people chose (a player's, a group's) is shown through :func:`isolated`, so that it cannot
reorder the line around it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from html import escape
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = ("it", "en")
DEFAULT = "it"
HERE = Path(__file__).parent

Text = str | tuple[str, ...]
"""A catalog's text: one string, or one per plural form."""


def _read(lang: str) -> tuple[dict[str, Text], Translations]:
    """A language's texts by key, and its gettext translations (which pick plural forms)."""
    with (HERE / f"{lang}.po").open("rb") as po:
        catalog = read_po(po, locale=lang)
    texts: dict[str, Text] = {}
    for message in catalog:
        key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
        if key:
            string = message.string
            texts[key] = tuple(string) if isinstance(string, (tuple, list)) else string or ""
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return texts, Translations(compiled)


_LOADED = {lang: _read(lang) for lang in LANGUAGES}
CATALOGS: dict[str, dict[str, Text]] = {lang: texts for lang, (texts, _) in _LOADED.items()}
"""Every language's texts by key (a plural text as the tuple of its forms)."""
_TRANSLATIONS = {lang: translations for lang, (_, translations) in _LOADED.items()}


FSI, PDI = "\u2068", "\u2069"
"""Unicode's first-strong isolate and its end (UAX #9): what lies between is laid out on its own."""
_REORDERING = frozenset(
    ("R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")
)
"""Bidirectional classes that can move the text around them: right-to-left letters and digits,
and the explicit embeddings, overrides and isolates."""
_ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))


def isolated(name: str) -> str:
    """A name people chose, as it may sit in a line: a name that could reorder the line (one
    with right-to-left letters or digits, or direction controls, such as a right-to-left
    override) is wrapped in FSI ... PDI; its own isolates go, since one of them could end the
    wrapping early or leave it open (embeddings and overrides inside end with it). A name of
    left-to-right letters cannot reorder a line and is shown as typed.

    >>> isolated("Anna")
    'Anna'
    >>> isolated("\u202eanna") == FSI + "\u202eanna" + PDI
    True
    >>> isolated("x\u2069\u202e") == FSI + "x\u202e" + PDI
    True
    """
    if not any(unicodedata.bidirectional(c) in _REORDERING for c in name):
        return name
    return FSI + name.translate(_ISOLATES) + PDI


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
    template = _template(lang if lang in CATALOGS else DEFAULT, key, fields.get("count"))
    if not fields:
        return Html(template)
    return Html(template.format(**{name: safe(value) for name, value in fields.items()}))


def _template(lang: str, key: str, count: object) -> str:
    """The text of ``key`` in ``lang``, in the plural form for ``count``; else the Italian one,
    else the key itself."""
    for source in (lang, DEFAULT):
        text = CATALOGS[source].get(key)
        if isinstance(text, tuple):
            number = count if isinstance(count, int) else 1
            return str(_TRANSLATIONS[source].ngettext(key, key, number))
        if text:
            return text
    return key


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
