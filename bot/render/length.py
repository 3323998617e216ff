"""Message lengths as Telegram counts them: UTF-16 code units (an emoji counts two).

Telegram takes at most 4,096 of them in a message, after the HTML is parsed; the bot measures
the HTML itself, which is never shorter, and cuts only between lines, so no tag or entity is
ever cut in half.
"""

from __future__ import annotations

import re

MAX_TEXT = 4096
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


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` within ``limit`` units, no entity or surrogate cut."""
    out = text
    while utf16_len(out) > limit:
        out = out[: max(0, len(out) - max(1, (utf16_len(out) - limit) // 2))]
    return _ENTITY_TAIL.sub("", out)
