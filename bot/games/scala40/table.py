"""Scala 40's group table: the table message, the moves in words, the end of a hand
(docs/rules.md S40)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.i18n import safe, t
from bot.render import cards as show
from bot.render.length import clip
from bot.render.table import (
    MAX_LINES,
    header,
    name_of,
    packed,
    recent_lines,
    side_name,
    turn_text,
    with_cards,
)
from engine import scala40
from engine.scala40.actions import parse_action
from engine.scala40.ending import RACE_WINS


def move_line(lang: str, names: list[str], seat: int, text: str, top: str | None = None) -> str:
    """One line for a move of the public history ("Anna apre con 57"); ``top``: the card a
    ``take`` took, when known (the discard before it)."""
    who = name_of(names, seat)
    action = parse_action(text)
    kind = action.kind
    if kind == "take":
        if action.use is None:
            return t(lang, "move.take_plain", name=who)
        use = _use_text(lang, action.use)
        if top is None:
            return t(lang, "move.take_top", name=who, use=use)
        return t(lang, "move.take", name=who, card=show.card(top), use=use)
    if kind in ("open", "meld", "attach"):
        return t(lang, f"move.{kind}", name=who, **meld_fields(action))
    if kind == "swap" and action.use is not None:
        return t(lang, "move.swap", name=who, number=action.target)
    if kind == "discard":
        return t(lang, "move.discard", name=who, card=show.card(action.card))
    return t(lang, f"move.{kind}", name=who)


def meld_fields(action: scala40.Action, short: bool = True) -> dict[str, Any]:
    """The fields of a move's text; ``short``: its melds as the table shows them (``5♠–8♠``)."""
    melds = action.melds
    cards = " ".join(show.short_meld(m) for m in melds) if short else show.cards(sum(melds, ()))
    points = 0
    if action.kind == "open":
        points = sum(scala40.meld_value(list(meld)) for meld in action.melds)
    return {"cards": cards, "number": action.target, "points": points}


def _use_text(lang: str, use: scala40.Action) -> str:
    return t(lang, f"move.use_{use.kind}", **meld_fields(use))


def recent_moves(lang: str, names: list[str], history: list[tuple[int, str]]) -> list[str]:
    """The hand's moves in words, a draw left out (the table shows the stock shrink); a take
    names the card it took, the discard before it."""
    return [line for _, text, line in _lines(lang, names, history) if text != "draw"]


def moves_since(view: scala40.View, names: list[str], lang: str) -> list[str]:
    """The others' moves of this hand between the seat's last turn and now (or its turn now:
    they stay while it plays), draws included, a draw and the discard after it as one ("Luca
    pesca e scarta 5♦"): what happened while the player waited."""
    history = view.history
    end = len(history)
    if view.to_play == view.seat:
        while end and history[end - 1][0] == view.seat:
            end -= 1  # the moves of the turn in play
    mine = [i for i in range(end) if history[i][0] == view.seat]
    start = mine[-1] + 1 if mine else 0
    out: list[str] = []
    drew: int | None = None
    for seat, text, line in _lines(lang, names, history)[start:end]:
        if drew == seat and text.startswith("discard "):
            out[-1] = t(lang, "move.draw_discard", name=name_of(names, seat), card=_card(text))
        else:
            out.append(line)
        drew = seat if text == "draw" else None
    return out


def _card(text: str) -> str:
    """The card of a ``discard`` move's text, with its suit symbol."""
    return show.card(text.split()[1])


def _lines(
    lang: str, names: list[str], history: list[tuple[int, str]]
) -> list[tuple[int, str, str]]:
    """Every move of the hand as (seat, text, words); a take names the card it took."""
    out: list[tuple[int, str, str]] = []
    top: str | None = None
    for seat, text in history:
        out.append((seat, text, move_line(lang, names, seat, text, top)))
        if text.startswith("discard "):
            top = text.split()[1]
    return out


def table_text(
    view: scala40.View,
    names: list[str],
    lang: str,
    left: timedelta | None = None,
    seal: str = "",
    hands: int = 3,
) -> str:
    """The group's table, within a phone's screen (:mod:`bot.render.table`): what wins the
    match, each seat's cards (and score, when each plays alone), each pair's score, the melds,
    the piles, whose turn and the time left, the latest moves; ``seal`` (the deck's
    commitment) before the first move and at the end. ``hands``: the hands of the ``hands``
    format (S40-12.2)."""
    top = [header(lang, "scala40", view.hand_number, goal(view, lang, hands))]
    top += _seats(view, names, lang)
    if len(set(view.sides)) < view.players:
        top += [_side(view, names, lang, side) for side in range(len(view.scores))]
    pile = show.card(view.discard_top) if view.discard_top else "—"
    bottom: list[str] = [
        t(lang, "table.piles", card=pile, count=view.discard_size, stock=view.stock_size)
    ]
    if view.to_play is not None and view.result is None:
        bottom.append(turn_text(lang, name_of(names, view.to_play), left))
    moves = recent_moves(lang, names, view.history)
    at_start = view.hand_number == 1 and not view.history
    sealed = seal if at_start or view.result is not None else ""
    room = MAX_LINES - len(top) - len(bottom) - (1 if moves else 0) - (1 if sealed else 0)
    lines: list[str] = [*top, *_melds(view, lang, room), *bottom]
    return clip("\n".join(lines + recent_lines(lines, moves, sealed)))


def goal(view: scala40.View, lang: str, hands: int) -> str:
    """What wins the match, for the header (S40-12)."""
    if view.format == "points":
        return t(lang, "table.goal_points", limit=view.limit)
    if view.format == "hands":
        return t(lang, "table.goal_hands", count=hands)
    return t(lang, "table.goal_race", count=RACE_WINS)


def _seats(view: scala40.View, names: list[str], lang: str) -> list[str]:
    """A line per seat, in turn order from the dealer's left: whose turn, the cards in hand,
    who opened; the score too when each seat is a side of its own."""
    order = sorted(range(view.players), key=lambda s: (s - view.dealer - 1) % view.players)
    alone = len(set(view.sides)) == view.players
    out: list[str] = []
    for seat in order:
        marker = "👉" if seat == view.to_play else "▫️"
        status = view.status[seat]
        name, count = name_of(names, seat), view.hand_sizes[seat]
        key = "table.seat" if status == "in" else f"table.seat_{status}"
        line: str = t(lang, key, marker=marker, name=name, count=count)
        if alone:
            line += _score(view, lang, view.sides[seat])
        if status == "in" and view.opened[seat]:
            line += t(lang, "table.opened")
        out.append(line)
    return out


def _score(view: scala40.View, lang: str, side: int) -> str:
    """A side's score after its line: the points, or the hands won (S40-12.2, S40-12.3)."""
    if view.format == "points":
        return t(lang, "table.score", count=view.scores[side])
    return t(lang, "table.won", count=view.hands_won[side])


def _side(view: scala40.View, names: list[str], lang: str, side: int) -> str:
    """A pair's line: its players and its score."""
    return t(lang, "table.side", names=side_name(names, view.sides, side)) + _score(
        view, lang, side
    )


def _melds(view: scala40.View, lang: str, room: int) -> list[str]:
    """The melds, numbered, as many to a line as a phone's width holds; closer together when
    they would take more than ``room`` lines: two spaces apart, then a set as its rank and
    suits (``Q♠♦♣``)."""
    if not view.melds:
        return [t(lang, "table.no_melds")]
    lines: list[str] = []
    for separator, dense in ((" · ", False), ("  ", False), ("  ", True)):
        texts = [
            t(lang, "table.meld", number=m.number, cards=show.short_meld(m.cards, m.jokers, dense))
            for m in view.melds
        ]
        lines = packed(texts, separator)
        if len(lines) <= room:
            break
    return lines


def hand_result_text(
    result: scala40.HandResult,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> str:
    """The end of a hand for the group: who closed and with which card, every player's
    remaining cards and points (the closer's 0 and their partner's, a flat 100 said as such),
    each side's total (the hands won where they decide, S40-12.2), and who is out (S40-15,
    S40-11, S40-12.1). ``limit``: the points format's limit, named with the totals."""
    if result.annulled:
        return t(lang, "hand.annulled", hand=result.hand_number)
    lines = [closing_line(result, names, lang)]
    for seat in range(len(result.points)):
        line = _seat_line(result, names, sides, seat, lang)
        if line is not None:
            lines.append(line)
    lines += standing_lines(result, names, sides, lang, fmt, limit)
    return clip("\n".join(lines))


def closing_line(result: scala40.HandResult, names: list[str], lang: str) -> str:
    """Who closed the hand, how and with which card ("🏁 Mano 2: Anna chiude scartando 9♥.")."""
    closer = name_of(names, result.closer) if result.closer is not None else "—"
    key = "hand.closed"
    if result.in_mano:
        key = "hand.closed_in_mano"
    elif result.joker_close:  # allowed only where it doubles the points (S40-11.4)
        key = "hand.closed_joker"
    card = show.card(result.discard) if result.discard else "—"
    return t(lang, key, hand=result.hand_number, name=closer, card=card)


def _seat_line(
    result: scala40.HandResult, names: list[str], sides: list[int], seat: int, lang: str
) -> str | None:
    """A seat's cards and points, and why they count what they count."""
    points = result.points[seat]
    if points is None:
        return None
    name = name_of(names, seat)
    if seat == result.closer:
        return t(lang, "hand.line_closer", name=name)
    if result.closer is not None and sides[seat] == sides[result.closer]:
        line = t(lang, "hand.line_partner", name=name)
    elif result.opened and not result.opened[seat]:
        line = t(lang, "hand.line_unopened", name=name, points=points)
    else:
        line = t(lang, "hand.line", name=name, points=points)
    return with_cards(line, result.cards[seat])


def standing_lines(
    result: scala40.HandResult,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> list[str]:
    """Each side's total after the hand (with the limit, in the points format), the hands
    won where they decide the match (S40-12.2, S40-12.3), and who is out (S40-12.1)."""
    totals = [f"{side_name(names, sides, side)} {n}" for side, n in enumerate(result.totals)]
    if fmt == "points" and limit is not None:
        totals.append(t(lang, "table.goal_points", limit=limit))
    lines = labelled(t(lang, "hand.totals", totals=totals[0]), totals[1:])
    if fmt != "points" and result.hands_won:
        won = [f"{side_name(names, sides, side)} {n}" for side, n in enumerate(result.hands_won)]
        lines += labelled(t(lang, "hand.won", won=won[0]), won[1:])
    for seat in result.eliminated:
        points = result.totals[sides[seat]]
        lines.append(t(lang, "table.eliminated", name=name_of(names, seat), points=points))
    return lines


def labelled(first: str, items: list[str], separator: str = " · ") -> list[str]:
    """``first`` (a text with its label) then plain-text ``items``, as many to a line as a
    phone's width holds."""
    return packed([first, *(str(safe(item)) for item in items)], separator)


def hand_recap(
    result: scala40.HandResult,
    seat: int,
    names: list[str],
    sides: list[int],
    lang: str,
    fmt: str = "points",
    limit: int | None = None,
) -> str:
    """The end of a hand in a player's own hand message: who closed and how, the player's
    cards left and points (a flat 100 explained against what the cards would count), the
    totals and hands won, who is out."""
    if result.annulled:
        return t(lang, "hand.annulled", hand=result.hand_number)
    lines = [closing_line(result, names, lang)]
    mine = _own_line(result, sides, seat, lang)
    if mine:
        lines.append(mine)
    lines += standing_lines(result, names, sides, lang, fmt, limit)
    return "\n".join(lines)


def _own_line(result: scala40.HandResult, sides: list[int], seat: int, lang: str) -> str:
    """The player's own cards and points at the end of the hand ("" when not in it)."""
    points = result.points[seat] if seat < len(result.points) else None
    if points is None:
        return ""
    if seat == result.closer:
        return t(lang, "hand.recap_closer")
    if result.closer is not None and sides[seat] == sides[result.closer]:
        line = t(lang, "hand.recap_partner")
    elif result.opened and not result.opened[seat]:
        total = result.card_points[seat] if result.card_points else None
        line = t(lang, "hand.recap_unopened", points=points, sum=total or "?")
    else:
        line = t(lang, "hand.recap_cards", points=points)
    return with_cards(line, result.cards[seat])
