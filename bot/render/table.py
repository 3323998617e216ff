"""What every game's table and results share: the header, names, the deadline, the ranking."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.i18n import FSI, isolated, t
from bot.render.length import clip
from storage import MatchRecord

ITALY = ZoneInfo("Europe/Rome")
RECENT_MOVES = 5
PAIRED_SEATS = 4
"""Pairs are formed at a table of four: seats 0 and 2 against 1 and 3."""


def name_of(names: list[str], seat: int) -> str:
    """The display name of a seat, isolated (plain text: :func:`bot.i18n.t` escapes it)."""
    return isolated(names[seat]) if 0 <= seat < len(names) else f"#{seat}"


def header(lang: str, game: str, hand: int, names: list[str], dealer: int) -> str:
    """The table's first line: game, hand number, dealer."""
    return t(
        lang, "table.header", game=t(lang, f"game.{game}"), hand=hand, dealer=name_of(names, dealer)
    )


def deadline_text(lang: str, deadline: datetime | None) -> str:
    """`` (entro le 21:05 CET)`` for a turn deadline, or nothing."""
    if deadline is None:
        return ""
    local = deadline.astimezone(ITALY)  # the players are Italian first; the zone says so
    return t(lang, "table.until", time=local.strftime("%H:%M"), zone=local.strftime("%Z"))


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
    lines = [t(lang, "match.over", names=names_list(lang, winning), count=len(winning) or 1)]
    order = sorted(range(len(names)), key=lambda s: (s not in winners, -mp[s], s))
    for position, seat in enumerate(order, 1):
        lines.append(
            t(
                lang,
                "match.line",
                position=position,
                name=name_of(names, seat),
                mp=mp[seat],
                vp=vp[seat],
            )
        )
    lines.append(t(lang, "match.legend"))
    return clip("\n".join(lines))


def pairs_line(record: MatchRecord, lang: str) -> str | None:
    """Who partners whom, once four are seated: seats 0 and 2 against 1 and 3."""
    if len(record.seats) != PAIRED_SEATS:
        return None
    names = [isolated(s.name) for s in record.seats]
    return t(lang, "lobby.pairs", a=f"{names[0]} + {names[2]}", b=f"{names[1]} + {names[3]}")
