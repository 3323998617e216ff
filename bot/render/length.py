"""Message lengths as Telegram counts them: UTF-16 code units (an emoji counts two); and widths
as a phone shows them: columns (an emoji or a wide letter takes two).

Telegram takes at most 4,096 of them in a message, after the HTML is parsed; the bot measures
the HTML itself, which is never shorter, and cuts only between lines, so no tag or entity is
ever cut in half.

A phone shows about :data:`PHONE_COLUMNS` columns of a message's line before it wraps it;
:func:`columns` measures a line as it is shown (markup gone, entities read), with the terminal
widths of :mod:`wcwidth` (an emoji two columns, a card suit one).
"""

from __future__ import annotations

import html
import re

from wcwidth import wcswidth, wcwidth

MAX_TEXT = 4096
PHONE_COLUMNS = 40
"""The columns a phone shows of a message's line (portrait, the default font size)."""
_TAG = re.compile(r"<[^>]*>")
_ENTITY_TAIL = re.compile(r"&[#a-zA-Z0-9]*$")


def utf16_len(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """Keep a message within ``limit``, cutting whole lines from the middle (the first and the
    last lines stay); a single line too long loses its markup and its end."""
    if utf16_len(text) <= limit:
        return text
    lines = text.split("\n")
    while utf16_len("\n".join(lines)) > limit - 2 and len(lines) > 2:
        lines.pop(len(lines) // 2)
    joined = "\n".join(lines)
    if utf16_len(joined) <= limit:
        return joined
    return _cut(_TAG.sub("", joined), limit - 1) + "…"


def split(text: str, limit: int = MAX_TEXT) -> list[str]:
    """``text`` in as few messages of at most ``limit`` as whole lines allow."""
    parts: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        line = clip(line, limit)
        if current and utf16_len("\n".join([*current, line])) > limit:
            parts.append("\n".join(current))
            current = []
        current.append(line)
    parts.append("\n".join(current))
    return [part for part in parts if part.strip()]


def plain(text: str) -> str:
    """The text a message's HTML reads as: tags left out, entities as their characters.

    >>> plain("👉 <b>Anna</b> &amp; 7♥")
    '👉 Anna & 7♥'
    """
    return html.unescape(_TAG.sub("", text))


def columns(text: str) -> int:
    """The columns a line of HTML takes on a screen: tags left out, entities as the character
    they stand for, an emoji or a wide letter two columns, a control character none.

    >>> columns("👉 <b>Anna</b> &amp; 7♥")
    12
    """
    shown = plain(text)
    width = wcswidth(shown)
    if width >= 0:
        return width
    return sum(max(0, wcwidth(char)) for char in shown)  # a control character takes none


def shortened(name: str, limit: int) -> str:
    """``name`` within ``limit`` columns: whole when it fits, else its start and "…".

    >>> shortened("Alessandra Lo Presti", 12)
    'Alessandra…'
    """
    if columns(html.escape(name, quote=False)) <= limit:
        return name
    out = name
    while out and columns(html.escape(out, quote=False)) > limit - 1:
        out = out[:-1]
    return out.rstrip() + "…"


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` within ``limit`` units, no entity or surrogate cut."""
    out = text
    while utf16_len(out) > limit:
        out = out[: max(0, len(out) - max(1, (utf16_len(out) - limit) // 2))]
    return _ENTITY_TAIL.sub("", out)
