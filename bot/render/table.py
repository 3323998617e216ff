"""What every game's table and results share: names, the header, the time left, the recent
moves, the ranking.

The group's table fits a phone: at most :data:`MAX_LINES` lines of about
:data:`~bot.render.length.PHONE_COLUMNS` columns for a crowded match (names cut to
:data:`NAME_COLUMNS`, computers as "🤖 1"), and it shows the time left of the turn, not a clock
time the players would have to compare with their own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape, unescape

from bot.i18n import FSI, Html, isolated, t
from bot.render import cards as show
from bot.render.length import PHONE_COLUMNS, clip, columns, shortened
from storage import MatchRecord

MAX_LINES = 15
"""The lines of a table at most, for four players and a crowded table (a phone's screen)."""
NAME_COLUMNS = 12
"""The columns of a name at the table: a longer one is cut ("Giuseppe B.", :func:`short_name`)."""
RECENT_MOVES = 3
"""The latest moves a table lists, room permitting (a draw is not one of them)."""
PAIRED_SEATS = 4
"""Pairs are formed at a table of four: seats 0 and 2 against 1 and 3."""
MINUTES_FROM = 120
"""Seconds left from which the time left is told in whole minutes (below, in tens of seconds)."""


def name_of(names: list[str], seat: int) -> str:
    """The display name of a seat, isolated (plain text: :func:`bot.i18n.t` escapes it)."""
    return isolated(names[seat]) if 0 <= seat < len(names) else f"#{seat}"


def table_names(record: MatchRecord) -> list[str]:
    """The seats' names as the table shows them: a computer as "🤖 1" (its number in the lobby),
    a person's name within :data:`NAME_COLUMNS` columns; two people whose cut names would be
    the same keep their whole names."""
    cut: list[str] = []
    computers = 0
    for seat in record.seats:
        if seat.is_computer:
            computers += 1
            number = re.search(r"\d+", seat.name)  # "🤖 Computer 2 (esperto)": its lobby number
            cut.append(f"🤖 {number.group() if number else computers}")
        else:
            cut.append(short_name(seat.name))
    return [
        seat.name if not seat.is_computer and cut.count(cut[seat.seat]) > 1 else cut[seat.seat]
        for seat in record.seats
    ]


def short_name(name: str, limit: int = NAME_COLUMNS) -> str:
    """A name within ``limit`` columns, as people shorten one: its first words and the initial
    of the next ("Giuseppe B."), or failing that its start and "…".

    >>> short_name("Giuseppe Bianchini"), short_name("Alessandra Lo Presti"), short_name("Luca")
    ('Giuseppe B.', 'Alessandra', 'Luca')
    """
    if columns(escape(name, quote=False)) <= limit:
        return name
    words = name.split()
    kept: list[str] = []
    for word in words:
        if columns(escape(" ".join([*kept, word]), quote=False)) > limit:
            break
        kept.append(word)
    if not kept:
        return shortened(name, limit)
    initial = " ".join([*kept, words[len(kept)][0] + "."])
    return initial if columns(escape(initial, quote=False)) <= limit else " ".join(kept)


def header(lang: str, game: str, hand: int, goal: str) -> str:
    """The table's first line: the game, the hand, what wins ("🃏 Scala 40 · mano 2 · si esce
    a 101")."""
    return t(lang, "table.header", game=t(lang, f"game.{game}"), hand=hand, goal=goal)


def time_left(deadline: datetime | None, now: datetime) -> timedelta | None:
    """The time left of the turn (None: no turn timer)."""
    return None if deadline is None else deadline - now


def left_text(lang: str, left: timedelta | None) -> str:
    """The time left of a turn as an upper bound, rounded up: "⏳ max 2 min", "⏳ max 60 s".

    A message is edited only when something happens, and time left only shrinks, so "at most"
    stays true until the next edit; the turn's reminder, at half time, edits the table again
    with the half left. Nothing once the time is up (the timeout's move follows).
    """
    if left is None:
        return ""
    seconds = math.ceil(left.total_seconds())
    if seconds <= 0:
        return ""
    tens = math.ceil(seconds / 10) * 10
    if tens >= MINUTES_FROM:
        return t(lang, "time.left_minutes", count=math.ceil(seconds / 60))
    return t(lang, "time.left_seconds", count=tens)


def turn_text(lang: str, name: str, left: timedelta | None) -> str:
    """The table's turn line: "Tocca ad <b>Anna</b> · ⏳ max 2 min"."""
    text = left_text(lang, left)
    return turn_line(lang, name) + (f" · {text}" if text else "")


def packed(items: Sequence[str], separator: str = " · ") -> list[str]:
    """``items`` side by side, as many to a line as a phone's width holds."""
    lines: list[str] = []
    for item in items:
        joined = f"{lines[-1]}{separator}{item}" if lines else item
        if lines and columns(joined) <= PHONE_COLUMNS:
            lines[-1] = joined
        else:
            lines.append(item)
    return lines


def recent_lines(
    lines: Sequence[str], moves: Sequence[str], seal: str, wrap: bool = False
) -> list[str]:
    """The latest of ``moves`` (lines of the public history, a draw left out) that the table of
    ``lines`` has room for, :data:`RECENT_MOVES` at most; then ``seal`` (the deck's commitment,
    at the start and at the end of the match) when not empty. ``wrap``: a move wider than a
    phone goes on as many lines as it takes, each counted against the room."""
    room = min(RECENT_MOVES, MAX_LINES - len(lines) - (1 if seal else 0))
    if not wrap:
        shown = list(moves[-room:]) if room > 0 else []
        return ["· " + move for move in shown] + ([seal] if seal else [])
    room = MAX_LINES - len(lines) - (1 if seal else 0)
    out: list[str] = []
    for move in reversed(moves[-RECENT_MOVES:]):
        wrapped = wrapped_lines("· " + move, "  ")
        if len(out) + len(wrapped) > room:
            break
        out[:0] = wrapped
    return out + ([seal] if seal else [])


def wrapped_lines(text: str, indent: str = "") -> list[str]:
    """``text`` cut between words into lines of a phone's width, the later ones indented."""
    lines: list[str] = []
    for word in text.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and columns(joined) > PHONE_COLUMNS:
            lines.append(indent + word)
        else:
            lines[-1:] = [joined]
    return lines


def with_cards(text: str, cards: list[str], brackets: bool = True) -> str:
    """``text``, then the ``cards`` it counts (in brackets): on its last line when the line
    still fits a phone's width, else on lines of their own ("(9♠ 10♠ K♦ 2♣)")."""
    if not cards:
        return text
    shown = show.cards(cards)
    inline = f"{text} ({shown})" if brackets else f"{text} {shown}"
    if columns(inline.rsplit("\n", 1)[-1]) <= PHONE_COLUMNS:
        return inline
    words = shown.split(" ")
    if brackets:
        words[0], words[-1] = "(" + words[0], words[-1] + ")"
    return "\n".join([text, *packed(words, " ")])


def bell_text(lang: str, group: str | None, left: timedelta | None) -> str:
    """The turn bell's start, "🔔 Tocca a te in Amici! ⏳ max 2 min": the time left on a
    line of its own when the line would be wider than a phone, the group's title (``None``: a
    private match) cut to what its line leaves it."""
    text = left_text(lang, left)
    if group is None:
        bell = t(lang, "notify.turn", where=t(lang, "where.private"))
    else:
        rest = t(lang, "notify.turn", where=t(lang, "where.group", group=""))
        title = isolated(shortened(group, max(PHONE_COLUMNS - columns(rest), 8)))
        bell = t(lang, "notify.turn", where=t(lang, "where.group", group=title))
    if not text:
        return bell
    joined = f"{bell} {text}"
    return joined if columns(joined) <= PHONE_COLUMNS else f"{bell}\n{text}"


def waiting_line(lang: str, name: str) -> str:
    """Whose turn it is, seen by a player waiting: "⏳ Tocca a Luca." ("ad" before an "a")."""
    return t(lang, "hand.wait_ad" if _vowel_a(name) else "hand.wait", name=name)


def turn_line(lang: str, name: str) -> str:
    """The table's "Tocca a <b>Luca</b>" ("ad" before an "a")."""
    return t(lang, "table.turn_ad" if _vowel_a(name) else "table.turn", name=name)


def _vowel_a(name: str) -> bool:
    """Whether Italian says "ad" before the name (it starts with an "a")."""
    return name.lstrip(FSI)[:1].lower() in ("a", "à")


def side_name(names: list[str], sides: list[int], side: int) -> str:
    """The names of a side's players ("Anna + Carla")."""
    return " + ".join(name_of(names, s) for s in range(len(sides)) if sides[s] == side)


def names_list(lang: str, names: list[str]) -> str:
    """Names as a sentence says them: "Anna", "Anna e Luca", "Anna, Bea e Luca"."""
    if len(names) < 2:
        return names[0] if names else "—"
    return t(lang, "list.pair", first=", ".join(names[:-1]), last=names[-1])


def match_result_text(
    mp: list[int], vp: list[int], winners: list[int], names: list[str], lang: str, stopped: bool
) -> str:
    """The final ranking (both games): winners, then MP and VP of every seat."""
    if stopped:
        return t(lang, "match.stopped")
    winning = [name_of(names, s) for s in winners]
    count = len(winning) or 1
    lines = [t(lang, "match.over", names=names_list(lang, winning), count=count)]
    if columns(lines[0]) > PHONE_COLUMNS:
        lines = [t(lang, "match.over_wrapped", names=names_list(lang, winning), count=count)]
    order = sorted(range(len(names)), key=lambda s: (s not in winners, -mp[s], s))
    short = [shortened(name, PHONE_COLUMNS - 4) for name in names]  # "1. " and a margin
    for position, seat in enumerate(order, 1):
        name = name_of(short, seat)
        lines.append(t(lang, "match.line", position=position, name=name, mp=mp[seat], vp=vp[seat]))
    lines.append(t(lang, "match.legend"))
    return clip("\n".join(lines))


def pairs_line(record: MatchRecord, lang: str) -> str | None:
    """Who partners whom, once four are seated: seats 0 and 2 against 1 and 3, named as the
    table names them; each pair on a line of its own when one line is wider than a phone."""
    if len(record.seats) != PAIRED_SEATS:
        return None
    names = [isolated(name) for name in table_names(record)]
    pairs = {"a": f"{names[0]} + {names[2]}", "b": f"{names[1]} + {names[3]}"}
    line = t(lang, "lobby.pairs", **pairs)
    return line if columns(line) <= PHONE_COLUMNS else t(lang, "lobby.pairs_wrapped", **pairs)


def labelled(lang: str, record: MatchRecord, text: str) -> Html:
    """A message about a match (HTML), below its table's number when that is not the group's
    first ("🪑 Tavolo 2"): a group playing one table reads it as ever (docs/rules-notes.md)."""
    if record.table_number <= 1 or record.tournament_id is not None:  # no table of the group
        return Html(text)
    return Html(f"{t(lang, 'table.label', number=record.table_number)}\n{text}")


def table_button(lang: str, record: MatchRecord) -> str:
    """A button naming a table: its number, its game and who sits there (plain text)."""
    names = table_names(record)
    players = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    game = t(lang, f"game.{record.game}")
    text = t(lang, "tables.button", number=record.table_number, game=game, players=players)
    return unescape(text)  # the names were escaped for HTML; a button shows plain text


def message_link(chat_id: int, message_id: int, thread: int | None = None) -> str:
    """The link that opens a supergroup's message (in its forum topic), for its members.

    >>> message_link(-1001234567890, 42), message_link(-1001234567890, 42, 7)
    ('https://t.me/c/1234567890/42', 'https://t.me/c/1234567890/7/42')
    """
    internal = str(chat_id).removeprefix("-100")
    return f"https://t.me/c/{internal}/" + (f"{thread}/" if thread else "") + str(message_id)
