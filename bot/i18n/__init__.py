"""Translation catalogs (Italian first, English too) and the one lookup, :func:`t`.

Texts live in ``it.py`` and ``en.py`` as ``{key: template}``; templates use ``str.format``
fields. Group messages use the group's language, private ones the player's own.
"""

from __future__ import annotations

from bot.i18n import en, it

LANGUAGES = ("it", "en")
DEFAULT = "it"
CATALOGS: dict[str, dict[str, str]] = {"it": it.TEXTS, "en": en.TEXTS}


def language_for(code: str | None) -> str:
    """The UI language for a Telegram ``language_code``: Italian for ``it``, else English."""
    if code is None:
        return DEFAULT
    return "it" if code.lower().startswith("it") else "en"


def t(lang: str, key: str, **fields: object) -> str:
    """The text of ``key`` in ``lang`` (Italian if unknown), with ``fields`` filled in."""
    catalog = CATALOGS.get(lang, CATALOGS[DEFAULT])
    template = catalog.get(key)
    if template is None:
        template = CATALOGS[DEFAULT].get(key, key)
    return template.format(**fields) if fields else template


def error_text(lang: str, code: str, message: str = "", **details: object) -> str:
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
