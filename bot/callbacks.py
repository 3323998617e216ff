"""The one codec for inline-button callback data (ASCII, at most 64 bytes).

Every button names the match, and for hand buttons the seat and the context the keyboard was
drawn in (:func:`bot.hand.state.context_token`: the hand and the pending step), so a press can be
checked against the stored state after a restart or on another instance:

- hand:   ``h:<match>:<seat>:<context>:<op>[:<arg>]``  (``h:12:0:kqzpam:t:5H.0`` toggles 5H)
- lobby:  ``l:<match>:<version>:<op>[:<arg>]``
- confirm:``k:<question>:y|n`` (the stored yes/no questions), rematch ``r:<match>``
- language ``g:0:<code>``, a group setting ``s:0:<setting>:<value>``
- a table chosen for a command ``t:<match>:<command>`` (a group playing several tables)
- tournament: ``u:<tournament>:<version>:<op>[:<arg>]`` (its registration and its board)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_BYTES = 64


class LobbyOp(StrEnum):
    """What a lobby button does."""

    JOIN = "j"
    LEAVE = "l"
    OPTIONS = "o"
    OPTIONS_BACK = "ob"
    OPTION_VALUE = "ov"
    PARTNERS = "p"
    COMPUTER = "c"
    COMPUTER_REMOVE = "cr"
    START = "s"
    CANCEL = "x"


class TournamentOp(StrEnum):
    """What a tournament's button does (:mod:`bot.tournaments`)."""

    JOIN = "j"
    LEAVE = "l"
    FORMAT = "f"
    TABLE_SIZE = "z"
    ROUNDS = "n"
    ROUND_TIME = "d"
    OPTIONS = "o"
    OPTIONS_BACK = "ob"
    OPTION_VALUE = "ov"
    COMPUTER = "c"
    COMPUTER_REMOVE = "cr"
    START = "s"
    CANCEL = "x"
    WITHDRAW = "w"
    PAIRS = "p"


class Setting(StrEnum):
    """A group setting a button changes (:mod:`bot.settings`)."""

    RATE_COMPUTERS = "rc"
    LOBBY_LEVELS = "ll"
    TABLES = "tb"


class TableCommand(StrEnum):
    """A command about one match, which a group playing several tables may be asked to
    point at (:mod:`bot.tables`)."""

    TABLE = "t"
    SCORE = "p"
    RULES = "r"
    STOP = "s"
    VERIFY = "v"


class Reply(StrEnum):
    """The answers to a stored yes/no question."""

    YES = "y"
    NO = "n"


_OP = re.compile(r"^[a-z]{1,3}$")
_ARG = re.compile(r"^[A-Za-z0-9=_.^-]{0,24}$")
_CONTEXT = re.compile(r"^[a-z]{6}$")


@dataclass(frozen=True, slots=True)
class Callback:
    """A decoded button press."""

    kind: str
    match_id: int
    op: str
    seat: int = -1
    version: int = -1
    arg: str = ""
    context: str = ""


def encode(data: Callback) -> str:
    """The callback data string of a button; raises ValueError past Telegram's 64 bytes."""
    if not _OP.match(data.op) or not _ARG.match(data.arg):
        raise ValueError(f"bad callback op/arg: {data.op!r} {data.arg!r}")
    if data.kind == "h":
        if not _CONTEXT.match(data.context):
            raise ValueError(f"bad hand context: {data.context!r}")
        parts = ["h", str(data.match_id), str(data.seat), data.context, data.op]
    elif data.kind in ("l", "u"):
        parts = [data.kind, str(data.match_id), str(data.version), data.op]
    elif data.kind in ("k", "r", "g", "s", "t"):
        parts = [data.kind, str(data.match_id), data.op]
    else:
        raise ValueError(f"unknown callback kind {data.kind!r}")
    if data.arg:
        parts.append(data.arg)
    text = ":".join(parts)
    if len(text.encode("ascii")) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {text!r}")
    return text


def decode(text: str | None) -> Callback | None:
    """Parse callback data; None for anything malformed or forged (never raises)."""
    if not text or len(text) > MAX_BYTES or not text.isascii():
        return None
    parts = text.split(":")
    try:
        return _decode_parts(parts)
    except (ValueError, IndexError):
        return None


def _decode_parts(parts: list[str]) -> Callback | None:
    kind = parts[0]
    if kind == "h" and len(parts) in (5, 6) and _CONTEXT.match(parts[3]):
        match_id, seat = _number(parts[1]), _number(parts[2])
        return _checked(
            Callback("h", match_id, parts[4], seat, arg=_arg(parts, 5), context=parts[3])
        )
    if kind in ("l", "u") and len(parts) in (4, 5):
        match_id, version = _number(parts[1]), _number(parts[2])
        return _checked(Callback(kind, match_id, parts[3], version=version, arg=_arg(parts, 4)))
    if kind in ("k", "r", "g", "s", "t") and len(parts) in (3, 4):
        return _checked(Callback(kind, _number(parts[1]), parts[2], arg=_arg(parts, 3)))
    return None


MAX_ID = 2**31 - 1
"""Match and question ids are 32-bit in the store: a larger number names nothing."""


def button_index(text: str) -> int | None:
    """A button's small number ("3"), or None for anything else ("", "x", "²", "٣", "99999")."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 4 else None


def _number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) > MAX_ID:
        raise ValueError(text)
    return int(text)


def _arg(parts: list[str], index: int) -> str:
    return parts[index] if len(parts) > index else ""


def _checked(data: Callback) -> Callback | None:
    if not _OP.match(data.op) or not _ARG.match(data.arg):
        return None
    return data


def hand(match_id: int, seat: int, context: str, op: str, arg: str | int = "") -> str:
    """Callback data of a hand button drawn in ``context``."""
    return encode(Callback("h", match_id, op, seat, arg=str(arg), context=context))


def lobby(match_id: int, version: int, op: str, arg: str | int = "") -> str:
    """Callback data of a lobby button."""
    return encode(Callback("l", match_id, op, version=version, arg=str(arg)))


def tournament(tournament_id: int, version: int, op: str, arg: str | int = "") -> str:
    """Callback data of a tournament's button (its ``match_id`` field holds the tournament)."""
    return encode(Callback("u", tournament_id, op, version=version, arg=str(arg)))


def confirm(question: int, answer: str) -> str:
    """Callback data of a yes (``y``) or no (``n``) to a stored question (:meth:`Store.ask`)."""
    return encode(Callback("k", question, answer))


def language(code: str) -> str:
    """Callback data of a language button (``it``, ``en``)."""
    return encode(Callback("g", 0, code))


def setting(name: str, value: str) -> str:
    """Callback data of a group setting's button (``name`` set to ``value``)."""
    return encode(Callback("s", 0, name, arg=value))


def table(match_id: int, command: str) -> str:
    """Callback data of a table chosen for ``command`` (:class:`TableCommand`)."""
    return encode(Callback("t", match_id, command))


def rematch(match_id: int) -> str:
    """Callback data of the rematch button."""
    return encode(Callback("r", match_id, "go"))
