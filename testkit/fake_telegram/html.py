"""Text as Telegram reads it: ``parse_mode=HTML`` parsed into entities, the trimming, the
entities Telegram detects in a user's text, and UTF-16 lengths and slices (the unit of entity
offsets)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .constants import JSON


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's entity offsets and lengths."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class HtmlParseError(ValueError):
    """``parse_mode=HTML`` text that Telegram would refuse ("can't parse entities")."""


_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_NAMED_HTML_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ENTITY_RE = re.compile(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));")
_SPACES = " \t\r\n\f\v"


def _decode_html_entity(source: str, pos: int) -> tuple[str, int] | None:
    match = _HTML_ENTITY_RE.match(source, pos)
    if match is None:
        return None
    dec, hexa, name = match.groups()
    if name is not None:
        char = _NAMED_HTML_ENTITIES.get(name)
        return None if char is None else (char, match.end())
    code = int(dec) if dec is not None else int(hexa, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), match.end()


def _unescape_attribute(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        decoded = _decode_html_entity(raw, i) if raw[i] == "&" else None
        if decoded is None:
            out.append(raw[i])
            i += 1
        else:
            out.append(decoded[0])
            i = decoded[1]
    return "".join(out)


@dataclass
class _OpenTag:
    name: str
    start: int  # UTF-16 offset in the output text
    attrs: dict[str, str]
    language: str | None = None


def parse_html(source: str, *, strict: bool = True) -> tuple[str, list[JSON]]:
    """Parse Telegram-flavoured HTML into ``(plain_text, entities)`` as Telegram does.

    Only Telegram's tags are accepted (b/strong, i/em, u/ins, s/strike/del, tg-spoiler,
    span class="tg-spoiler", a href, code, pre, pre>code class="language-x", blockquote
    [expandable], tg-emoji emoji-id); tags must be properly nested and closed; ``<`` must be
    escaped; the only named entities are ``&lt; &gt; &amp; &quot;`` (numeric ones are fine).
    The messages follow Telegram's ("Unsupported start tag "div" at byte offset 0", ...).

    ``strict`` (the default) also refuses a bare ``&`` that starts no entity and a bare ``>``:
    Telegram keeps those literally, but they almost always mean a missing ``html.escape``.
    Entity offsets/lengths are in UTF-16 code units; entities are sorted by (offset, -length).
    """
    out: list[str] = []
    u16 = 0
    stack: list[_OpenTag] = []
    entities: list[JSON] = []
    n = len(source)
    i = 0

    def byte_offset(pos: int) -> int:
        return len(source[:pos].encode("utf-8"))

    def fail(message: str) -> HtmlParseError:
        return HtmlParseError(message)

    while i < n:
        ch = source[i]
        if ch == "&":
            decoded = _decode_html_entity(source, i)
            if decoded is None:
                if strict:
                    raise fail(
                        f'Unescaped "&" at byte offset {byte_offset(i)} (strict fake server: '
                        "write &amp;)"
                    )
                decoded = ("&", i + 1)
            out.append(decoded[0])
            u16 += utf16_len(decoded[0])
            i = decoded[1]
            continue
        if ch == ">":
            if strict:
                raise fail(
                    f'Unescaped ">" at byte offset {byte_offset(i)} (strict fake server: '
                    "write &gt;)"
                )
            out.append(ch)
            u16 += 1
            i += 1
            continue
        if ch != "<":
            out.append(ch)
            u16 += 2 if ord(ch) > 0xFFFF else 1
            i += 1
            continue

        begin = i
        i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
        if source[i] == "/":  # end tag
            i += 1
            name_start = i
            while i < n and source[i] not in _SPACES and source[i] != ">":
                i += 1
            name = source[name_start:i].lower()
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n or source[i] != ">":
                raise fail(f"Unclosed end tag at byte offset {byte_offset(begin)}")
            i += 1
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {byte_offset(begin)}")
            top = stack[-1]
            if name != top.name:
                raise fail(
                    f"Unmatched end tag at byte offset {byte_offset(begin)}, expected "
                    f'"</{top.name}>", found "</{name}>"'
                )
            stack.pop()
            entity = _close_tag(top, u16, stack)
            if entity is not None:
                entities.append(entity)
            continue

        # start tag
        name_start = i
        while i < n and source[i] not in _SPACES and source[i] != ">":
            i += 1
        name = source[name_start:i].lower()
        if name not in _HTML_TAGS:
            raise fail(f'Unsupported start tag "{name}" at byte offset {byte_offset(begin)}')
        attrs: dict[str, str] = {}
        while True:
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if source[i] == ">":
                i += 1
                break
            attr_start = i
            while i < n and source[i] not in _SPACES and source[i] not in "=>":
                i += 1
            attr = source[attr_start:i].lower()
            if not attr:
                raise fail(
                    f'Empty attribute name in the tag "{name}" at byte offset {byte_offset(begin)}'
                )
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if source[i] != "=":
                if name == "blockquote" and attr == "expandable":
                    attrs[attr] = ""
                    continue
                raise fail(
                    f'Expected equal sign in declaration of an attribute of the tag "{name}" '
                    f"at byte offset {byte_offset(begin)}"
                )
            i += 1
            while i < n and source[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            quote = source[i]
            if quote in "\"'":
                end = source.find(quote, i + 1)
                if end < 0:
                    raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
                value = _unescape_attribute(source[i + 1 : end])
                i = end + 1
            else:
                value_start = i
                while i < n and (source[i].isalnum() or source[i] in "._-"):
                    i += 1
                value = source[value_start:i]
                if not value:
                    raise fail(
                        f'Expected quotation mark or an attribute value of the tag "{name}" '
                        f"at byte offset {byte_offset(begin)}"
                    )
            attrs[attr] = value
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise fail(
                f'Tag "span" must have class "tg-spoiler" at byte offset {byte_offset(begin)}'
            )
        if name == "tg-emoji" and not attrs.get("emoji-id", "").isdigit():
            raise fail(
                f'Tag "tg-emoji" must have a numeric attribute "emoji-id" at byte offset '
                f"{byte_offset(begin)}"
            )
        stack.append(_OpenTag(name, u16, attrs))

    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _close_tag(tag: _OpenTag, end: int, stack: list[_OpenTag]) -> JSON | None:
    parent = stack[-1] if stack else None
    if tag.name == "code" and parent is not None and parent.name == "pre":
        css = tag.attrs.get("class", "")
        if css.startswith("language-") and len(css) > len("language-"):
            parent.language = css[len("language-") :]
        return None  # code inside pre is part of the pre entity
    length = end - tag.start
    if length <= 0:
        return None
    kind = _HTML_TAGS[tag.name]
    entity: JSON = {"type": kind, "offset": tag.start, "length": length}
    if kind == "text_link":
        href = tag.attrs.get("href", "")
        if not href:
            return None
        entity["url"] = href
    elif kind == "pre" and tag.language:
        entity["language"] = tag.language
    elif kind == "blockquote" and "expandable" in tag.attrs:
        entity["type"] = "expandable_blockquote"
    elif kind == "custom_emoji":
        entity["custom_emoji_id"] = tag.attrs["emoji-id"]
    return entity


def trim_text(text: str, entities: list[JSON]) -> tuple[str, list[JSON]]:
    """Strip leading/trailing whitespace as Telegram does, clipping the entities."""
    stripped = text.strip(_SPACES)
    if stripped == text:
        return text, entities
    left = utf16_len(text[: len(text) - len(text.lstrip(_SPACES))])
    total = utf16_len(stripped)
    clipped: list[JSON] = []
    for entity in entities:
        start = max(entity["offset"] - left, 0)
        end = min(entity["offset"] + entity["length"] - left, total)
        if end > start:
            clipped.append({**entity, "offset": start, "length": end - start})
    return stripped, clipped


_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_@/])")
_MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{4,31}(?![\w@])")


def detect_entities(text: str) -> list[JSON]:
    """The entities Telegram detects in a user's plain text: bot_command and mention."""
    found: list[JSON] = []
    for kind, regex in (("bot_command", _COMMAND_RE), ("mention", _MENTION_RE)):
        for match in regex.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group()),
                }
            )
    found.sort(key=lambda e: e["offset"])
    return found


def _utf16_slice(text: str, offset: int, length: int) -> str:
    encoded = text.encode("utf-16-le")
    return encoded[2 * offset : 2 * (offset + length)].decode("utf-16-le")
