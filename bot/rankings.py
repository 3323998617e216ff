"""Leaderboards and statistics texts (docs/rules.md S40-13): MP, VP, matches played and won,
and a person's skill levels (R-5, R-6)."""

from __future__ import annotations

from babel.numbers import format_decimal

from bot.i18n import DEFAULT, LANGUAGES, Html, isolated, t
from engine.ratings import CATEGORIES, Rating
from storage import GameStats, LeaderboardEntry, RatedPerson, RatingRecord

LEVEL_WORDS = frozenset({"livelli", "livello", "levels", "level"})
"""What after ``/classifica`` asks for the group's levels."""


def leaderboard_text(
    entries: list[LeaderboardEntry], game: str, lang: str, title: str | None = None
) -> str:
    """A group's ranking for one game, under ``title`` (None: the ranking of all time);
    computer players ranked apart, after the people (as long as it is: the outbox sends a
    long one as several messages, whole lines in each)."""
    name = t(lang, f"game.{game}")
    if not entries:
        return t(lang, "rank.empty", game=name)
    lines: list[str] = [title or t(lang, "rank.title", game=name)]
    people = [e for e in entries if not e.computer]
    computers = [e for e in entries if e.computer]
    lines += [_line(e, lang) for e in people]
    if computers:
        lines.append(t(lang, "rank.computers"))
        lines += [_line(e, lang) for e in computers]
    lines.append(t(lang, "rank.legend"))
    return "\n".join(lines)  # the outbox splits a long ranking into several messages


def _line(entry: LeaderboardEntry, lang: str) -> str:
    return t(
        lang,
        "rank.line",
        rank=entry.rank,
        name=isolated(entry.name),
        mp=entry.mp,
        vp=entry.vp,
        matches=entry.matches,
        won=entry.won,
    )


def stats_text(stats: list[GameStats], ratings: list[RatingRecord], lang: str) -> str:
    """A player's own figures across groups, per game, then their level per rated category."""
    if not stats and not ratings:
        return t(lang, "stats.empty")
    lines: list[str] = [t(lang, "stats.title")]
    for figures in stats:
        lines.append(
            t(
                lang,
                "stats.line",
                game=t(lang, f"game.{figures.game}"),
                matches=figures.matches,
                won=figures.won,
                mp=figures.mp,
                vp=figures.vp,
                hands=figures.hands_won,
            )
        )
    by_category = {record.category: record for record in ratings}
    lines += [level_line(by_category[c], lang) for c in CATEGORIES if c in by_category]
    return "\n".join(lines)


def level_line(record: RatingRecord, lang: str) -> str:
    """``Livello di Scala 40: dilettante (1.456)``: a category's named level and number (R-6)."""
    level, points = level_words(Rating(record.mu, record.sigma), lang)
    category = t(lang, f"rating.{record.category}")
    return t(lang, "stats.level", category=category, level=level, points=points)


def level_words(rating: Rating, lang: str) -> tuple[Html, str]:
    """A rating's named level and its number as ``lang`` writes it (R-5, R-6)."""
    points = format_decimal(rating.points, locale=lang if lang in LANGUAGES else DEFAULT)
    return t(lang, f"level.{rating.level}"), points


def levels_text(rated: list[RatedPerson], lang: str) -> str:
    """``/classifica livelli``: the group's people by rating, per category (R-5, R-6); equal
    numbers share a place."""
    if not rated:
        return t(lang, "levels.empty")
    parts: list[str] = []
    for category in CATEGORIES:
        people = [p for p in rated if p.rating.category == category]
        if not people:
            continue
        points = {p.user_id: Rating(p.rating.mu, p.rating.sigma).points for p in people}
        people.sort(key=lambda p: -points[p.user_id])
        lines: list[str] = [t(lang, "levels.title", category=t(lang, f"rating.{category}"))]
        place = 0
        for number, person in enumerate(people, start=1):
            if number == 1 or points[person.user_id] != points[people[number - 2].user_id]:
                place = number
            lines.append(_level_entry(place, person, lang))
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _level_entry(place: int, person: RatedPerson, lang: str) -> str:
    level, points = level_words(Rating(person.rating.mu, person.rating.sigma), lang)
    name = isolated(person.name)
    return t(lang, "levels.line", rank=place, name=name, level=level, points=points)
