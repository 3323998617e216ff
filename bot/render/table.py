"""The group's table message (HTML), built from an engine view and the seat names."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.i18n import t
from bot.render import cards as show
from bot.render.length import clip
from engine import scala40, scopone
from engine.scala40.actions import parse_action as parse_s40

ITALY = ZoneInfo("Europe/Rome")
RECENT_MOVES = 5


def name_of(names: list[str], seat: int) -> str:
    """The display name of a seat (plain text: :func:`bot.i18n.t` escapes it)."""
    return names[seat] if 0 <= seat < len(names) else f"#{seat}"


def header(lang: str, game: str, hand: int, names: list[str], dealer: int) -> str:
    """The table's first line: game, hand number, dealer."""
    return t(
        lang, "table.header", game=t(lang, f"game.{game}"), hand=hand, dealer=name_of(names, dealer)
    )


def deadline_text(lang: str, deadline: datetime | None) -> str:
    """`` (entro le 21:05)`` for a turn deadline, or nothing."""
    if deadline is None:
        return ""
    local = deadline.astimezone(ITALY)  # the players are Italian first
    return t(lang, "table.until", time=local.strftime("%H:%M"))


def s40_move(lang: str, names: list[str], seat: int, text: str) -> str:
    """One line for a Scala 40 move of the public history ("Anna apre con 57")."""
    who = name_of(names, seat)
    action = parse_s40(text)
    kind = action.kind
    if kind == "take" and action.use is not None:
        return t(lang, "move.take", name=who, use=_use_text(lang, action.use))
    if kind in ("open", "meld", "attach"):
        return t(lang, f"move.{kind}", name=who, **_meld_fields(action))
    if kind == "swap" and action.use is not None:
        return t(lang, "move.swap", name=who, number=action.target, card=show.card(action.card))
    if kind == "discard":
        return t(lang, "move.discard", name=who, card=show.card(action.card))
    return t(lang, f"move.{kind}", name=who)


def _meld_fields(action: scala40.Action) -> dict[str, Any]:
    tokens = [token for meld in action.melds for token in meld]
    points = 0
    if action.kind == "open":
        points = sum(scala40.meld_value(list(meld)) for meld in action.melds)
    return {"cards": show.cards(tokens), "number": action.target, "points": points}


def _use_text(lang: str, use: scala40.Action) -> str:
    return t(lang, f"move.use_{use.kind}", **_meld_fields(use))


def scala40_table(
    view: scala40.View,
    names: list[str],
    lang: str,
    deadline: datetime | None = None,
) -> str:
    """The Scala 40 table: seats, melds, discard pile, stock, scores, turn, recent moves."""
    lines = [header(lang, "scala40", view.hand_number, names, view.dealer)]
    lines += _s40_seats(view, names, lang)
    lines.append("")
    lines += _s40_melds(view, names, lang)
    top = show.card(view.discard_top) if view.discard_top else "—"
    lines.append(t(lang, "table.piles", card=top, count=view.discard_size, stock=view.stock_size))
    lines.append(_s40_scores(view, names, lang))
    if view.to_play is not None and view.result is None:
        lines.append(
            t(lang, "table.turn", name=name_of(names, view.to_play)) + deadline_text(lang, deadline)
        )
    recent = view.history[-RECENT_MOVES:]
    if recent:
        lines.append("")
        lines += ["· " + s40_move(lang, names, seat, text) for seat, text in recent]
    return clip("\n".join(lines))


def _s40_seats(view: scala40.View, names: list[str], lang: str) -> list[str]:
    order = sorted(range(view.players), key=lambda s: (s - view.dealer - 1) % view.players)
    out: list[str] = []
    for seat in order:
        marker = "👉" if seat == view.to_play else "▫️"
        status = view.status[seat]
        extra = ""
        if status != "in":
            extra = t(lang, f"table.status_{status}")
        elif view.opened[seat]:
            extra = t(lang, "table.opened")
        out.append(
            t(
                lang,
                "table.seat",
                marker=marker,
                name=name_of(names, seat),
                cards=view.hand_sizes[seat],
                extra=extra,
            )
        )
    return out


def _s40_melds(view: scala40.View, names: list[str], lang: str) -> list[str]:
    if not view.melds:
        return [t(lang, "table.no_melds")]
    out: list[str] = [t(lang, "table.melds")]
    for meld in view.melds:
        out.append(
            t(
                lang,
                "table.meld",
                number=meld.number,
                cards=show.meld(meld.cards, meld.jokers),
                owner=name_of(names, meld.owner),
            )
        )
    return out


def _side_name(names: list[str], sides: list[int], side: int) -> str:
    return " + ".join(name_of(names, s) for s in range(len(sides)) if sides[s] == side)


def _s40_scores(view: scala40.View, names: list[str], lang: str) -> str:
    parts = [
        f"{_side_name(names, view.sides, side)} {score}" for side, score in enumerate(view.scores)
    ]
    if view.format == "points":
        return t(lang, "table.scores_limit", scores=" · ".join(parts), limit=view.limit)
    wins = [
        f"{_side_name(names, view.sides, side)} {won}" for side, won in enumerate(view.hands_won)
    ]
    return t(lang, "table.scores_hands", scores=" · ".join(parts), wins=" · ".join(wins))


def scala40_hand_result(result: scala40.HandResult, names: list[str], lang: str) -> str:
    """The end of a hand: every player's remaining cards and points (S40-15)."""
    if result.annulled:
        return t(lang, "hand.annulled", hand=result.hand_number)
    closer = name_of(names, result.closer) if result.closer is not None else "—"
    key = "hand.closed_in_mano" if result.in_mano else "hand.closed"
    lines = [t(lang, key, hand=result.hand_number, name=closer)]
    for seat, points in enumerate(result.points):
        if points is None:
            continue
        hand = show.cards(result.cards[seat]) if result.cards[seat] else "—"
        lines.append(t(lang, "hand.line", name=name_of(names, seat), cards=hand, points=points))
    totals = " · ".join(str(v) for v in result.totals)
    lines.append(t(lang, "hand.totals", totals=totals))
    return clip("\n".join(lines))


def match_result_text(
    mp: list[int], vp: list[int], winners: list[int], names: list[str], lang: str, stopped: bool
) -> str:
    """The final ranking (both games): winners, then MP and VP of every seat."""
    if stopped:
        return t(lang, "match.stopped")
    lines = [t(lang, "match.over", names=", ".join(name_of(names, s) for s in winners) or "—")]
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
    return clip("\n".join(lines))


def scopone_table(
    view: scopone.View, names: list[str], lang: str, deadline: datetime | None = None
) -> str:
    """The Scopone table: seats, the cards on the table, captures, scores, turn, recent plays."""
    lines = [header(lang, "scopone", view.hand_number, names, view.dealer)]
    for seat in range(4):
        marker = "👉" if seat == view.to_play else "▫️"
        extra = t(lang, "table.computer") if seat in view.computer else ""
        lines.append(
            t(
                lang,
                "table.seat",
                marker=marker,
                name=name_of(names, seat),
                cards=view.hand_sizes[seat],
                extra=extra,
            )
        )
    table = show.cards([str(c) for c in view.table]) if view.table else "—"
    lines += ["", t(lang, "table.scopone_table", cards=table)]
    sides = list(view.sides)
    for side, score in enumerate(view.scores):
        lines.append(
            t(
                lang,
                "table.scopone_side",
                names=_side_name(names, sides, side),
                captured=view.captured[side],
                scope=view.scope[side],
                score=score,
                target=view.target,
            )
        )
    if view.to_play is not None:
        lines.append(
            t(lang, "table.turn", name=name_of(names, view.to_play)) + deadline_text(lang, deadline)
        )
    recent = view.history[-RECENT_MOVES:]
    if recent:
        lines.append("")
        for record in recent:
            lines.append("· " + scopone_move(lang, names, record.seat, record.action, record.scopa))
    return clip("\n".join(lines))


def scopone_move(
    lang: str, names: list[str], seat: int, action: scopone.Action, scopa: bool = False
) -> str:
    """One line for a Scopone play ("Anna gioca 7♦ e prende 3♥ 4♠ — scopa!")."""
    who = name_of(names, seat)
    if action.card is None:
        return t(lang, f"move.{action.kind}", name=who)
    played = show.card(str(action.card))
    if action.take:
        line = t(
            lang,
            "move.capture",
            name=who,
            card=played,
            cards=show.cards([str(c) for c in action.take]),
        )
    else:
        line = t(lang, "move.lay", name=who, card=played)
    return line + (t(lang, "move.scopa") if scopa else "")


def scopone_hand_result(
    score: scopone.HandScore, names: list[str], sides: list[int], lang: str
) -> str:
    """The end of a Scopone hand: each side's pile and its points by category (SC-5.3)."""
    lines = [t(lang, "hand.scopone", hand=score.hand_number)]
    for side in score.sides:
        points = side.points_by_category()
        lines.append(
            t(
                lang,
                "hand.scopone_side",
                names=_side_name(names, sides, side.side),
                total=side.total,
                **points,
            )
        )
    for side in score.sides:
        lines.append(
            t(
                lang,
                "hand.scopone_pile",
                names=_side_name(names, sides, side.side),
                count=len(side.pile),
                cards=show.cards([str(c) for c in side.pile]) or "—",
            )
        )
    return clip("\n".join(lines))
