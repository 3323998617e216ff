"""A tournament's messages: its registration, its board (the standings and the round's
tables), the list of a group's tournaments, and what each player is told of their table.

What a tournament plays and how it ranks is the engine's (:mod:`engine.tournament`); this
module reads the stored tournament into the engine's terms (:func:`facts`) and puts the
answers into words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.callbacks import TournamentOp
from bot.i18n import Html, html_lines, isolated, t
from bot.options_ui import option_rows, value_text
from bot.render import Rendered
from engine.games import game
from engine.seasons import SEASON_ZONE
from engine.tournament import Frame, Result, Standing, standings, winner
from storage import TournamentRecord

ROUND_TIMES = (3_600, 21_600, 86_400, 259_200, 604_800)
"""The time a round may take, to choose from: an hour, six hours, a day, three days, a week."""
DANISH_ROUNDS = (3, 4, 5, 6, 7)
"""The rounds of a Danish tournament, to choose from."""
FORMAT_ICONS = {"robin": "🔁", "knockout": "⚔️", "danish": "🇩🇰"}


@dataclass(frozen=True, slots=True)
class Facts:
    """A stored tournament in the engine's terms: its rules, its seeding (entry numbers, the
    top seed first), every result so far (byes included) and who withdrew."""

    frame: Frame
    seeding: tuple[int, ...]
    results: tuple[Result, ...]
    withdrawn: frozenset[int]

    def board(self) -> tuple[Standing, ...]:
        """The standings (T-3)."""
        return standings(self.seeding, self.results, self.withdrawn)

    def winner(self) -> int | None:
        """The entry that won, once the tournament is over."""
        return winner(self.frame, self.seeding, self.results, self.withdrawn)


def facts(record: TournamentRecord) -> Facts:
    """The tournament's facts, as stored (a tournament still registering has no seeding)."""
    seeded = sorted((e for e in record.entries if e.seed is not None), key=lambda e: e.seed or 0)
    results = [
        Result(
            table.round,
            table.entries,
            tuple(table.result[e][0] for e in table.entries),
            tuple(table.result[e][1] for e in table.entries),
        )
        for table in record.tables
        if table.result is not None
    ]
    results += [
        Result.bye_for(number, entry) for number, byes in record.byes.items() for entry in byes
    ]
    withdrawn = frozenset(e.entry for e in record.entries if e.withdrawn_round is not None)
    frame = Frame(record.format, record.table_size, record.rounds)
    return Facts(frame, tuple(e.entry for e in seeded), tuple(results), withdrawn)


def names(record: TournamentRecord) -> dict[int, str]:
    """Each entry's name, as its messages show it (``Anna & Bea`` for a pair)."""
    return {e.entry: e.display_name for e in record.entries}


def title(record: TournamentRecord, lang: str) -> Html:
    """``🏆 Torneo di Scala 40``."""
    return t(lang, "tourn.title", game=t(lang, f"game.{record.game}"))


def rules_line(record: TournamentRecord, lang: str) -> Html:
    """The format and what it plays: ``🔁 girone all'italiana · tavoli da 2``."""
    form = FORMAT_ICONS[record.format] + " " + t(lang, f"tourn.format.{record.format}")
    if record.format == "danish":
        line = t(lang, "tourn.rules_rounds", format=form, count=record.rounds or 0)
    else:
        line = t(lang, "tourn.rules_tables", format=form, count=record.table_size)
    return t(lang, "tourn.in_pairs", rules=line) if record.pairs else line


def round_end(record: TournamentRecord) -> datetime | None:
    """When the current round's time is up (None: no round under way)."""
    started = record.started.get(record.round)
    if record.status != "running" or started is None:
        return None
    return started + timedelta(seconds=record.round_seconds)


def round_time(seconds: int, lang: str) -> Html:
    """A round's time in words: ``1 ora``, ``6 ore``, ``1 giorno``, ``7 giorni``."""
    if seconds % 86_400 == 0:
        return t(lang, "tourn.days", count=seconds // 86_400)
    return t(lang, "tourn.hours", count=max(1, seconds // 3_600))


def registration_view(record: TournamentRecord, lang: str, panel: bool = False) -> Rendered:
    """The registration message: the rules, the entrants, and the buttons to join, to change
    the rules (the organiser), to add computers, to start and to cancel."""
    if panel:
        return _options_panel(record, lang)
    lines: list[str] = [title(record, lang), rules_line(record, lang)]
    lines.append(t(lang, "tourn.round_time", time=round_time(record.round_seconds, lang)))
    lines.append(t(lang, "tourn.options", summary=_options_summary(record, lang)))
    organiser = next((e.name for e in record.entries if e.user_id == record.organiser_id), None)
    if organiser:
        lines.append(t(lang, "tourn.organiser", name=isolated(organiser)))
    lines.append(t(lang, "tourn.entrants", count=len(record.entries)))
    lines += [
        t(
            lang,
            "tourn.entrant_waiting" if record.pairs and e.waiting else "tourn.entrant",
            number=i,
            name=isolated(e.display_name),
        )
        for i, e in enumerate(record.entries, 1)
    ]
    lines.append(t(lang, "tourn.hint"))

    def button(text: str, op: TournamentOp, arg: str = "") -> InlineKeyboardButton:
        data = callbacks.tournament(record.id, record.version, op, arg)
        return InlineKeyboardButton(text, callback_data=data)

    spec = game(record.game)
    computers = [
        button(t(lang, f"btn.computer_{level}"), TournamentOp.COMPUTER, level)
        for level in spec.levels
    ]
    if any(e.computer_level for e in record.entries):
        computers.append(button(t(lang, "btn.computer_remove"), TournamentOp.COMPUTER_REMOVE))
    form = FORMAT_ICONS[record.format] + " " + t(lang, f"tourn.format.{record.format}")
    rules = [button(form, TournamentOp.FORMAT)]
    if not always_pairs(record.game):
        alone = t(lang, "btn.tourn_pairs" if record.pairs else "btn.tourn_alone")
        rules.append(button(alone, TournamentOp.PAIRS))
    if record.format == "robin" and not record.pairs:
        size = t(lang, "btn.tourn_size", count=record.table_size)
        rules.append(button(size, TournamentOp.TABLE_SIZE))
    elif record.format == "danish":
        rounds = t(lang, "btn.tourn_rounds", count=record.rounds or 0)
        rules.append(button(rounds, TournamentOp.ROUNDS))
    time = t(lang, "btn.tourn_time", time=round_time(record.round_seconds, lang))
    join = button(t(lang, "btn.tourn_join"), TournamentOp.JOIN)
    leave = button(t(lang, "btn.leave"), TournamentOp.LEAVE)
    options = button(t(lang, "btn.options"), TournamentOp.OPTIONS)
    start = button(t(lang, "btn.start"), TournamentOp.START)
    cancel = button(t(lang, "btn.cancel"), TournamentOp.CANCEL)
    keyboard = [[join, leave], computers, rules, [button(time, TournamentOp.ROUND_TIME), options]]
    keyboard.append([start, cancel])
    return "\n".join(lines), InlineKeyboardMarkup(keyboard)


def _options_panel(record: TournamentRecord, lang: str) -> Rendered:
    """The matches' options, each a button that moves it to its next value (as a lobby's)."""
    lines = [
        title(record, lang),
        t(lang, "lobby.options_title", game=t(lang, f"game.{record.game}")),
    ]
    buttons = option_rows(
        record.options,
        match_options(record.game),
        lang,
        lambda i: callbacks.tournament(record.id, record.version, TournamentOp.OPTION_VALUE, i),
    )
    back = callbacks.tournament(record.id, record.version, TournamentOp.OPTIONS_BACK)
    buttons.append([InlineKeyboardButton(t(lang, "btn.back"), callback_data=back)])
    return "\n".join(lines), InlineKeyboardMarkup(buttons)


ENTRY_OPTIONS = ("pairs", "individual")
"""The options a tournament's entry decides, not its matches: a pair enters together."""


def match_options(game_name: str) -> list[str]:
    """The matches' options a tournament's organiser sets (whether players meet alone or in
    pairs is the tournament's: no ``pairs``, no ``individual``)."""
    return [name for name in game(game_name).option_names() if name not in ENTRY_OPTIONS]


def always_pairs(game_name: str) -> bool:
    """Whether the game is played in pairs only (Scopone, SC-1.1): its tournaments are."""
    return "pairs" not in game(game_name).option_names()


def _options_summary(record: TournamentRecord, lang: str) -> Html:
    """The matches' options that differ from the game's defaults (or: as they come)."""
    spec = game(record.game)
    defaults = spec.default_options()
    idle = spec.parse_options(record.options).idle()
    changed = [
        name
        for name, value in record.options.items()
        if defaults.get(name) != value and name not in idle
    ]
    if not changed:
        return t(lang, "opt.defaults")
    return html_lines(
        [f"{t(lang, f'opt.{n}')} {value_text(n, record.options.get(n), lang)}" for n in changed],
        ", ",
    )


def board_view(record: TournamentRecord, lang: str, total_rounds: int) -> Rendered:
    """The board once it runs, and at its end: the round, the standings, the round's tables
    (played or being played, with their VP), the byes; the winner at the end. A running
    tournament has the button to withdraw."""
    found, called = facts(record), names(record)
    lines: list[str] = [title(record, lang), rules_line(record, lang)]
    if record.status == "cancelled":
        lines.append(t(lang, "tourn.cancelled"))
    elif record.status == "finished":
        champion = found.winner()
        if champion is not None:
            lines.append(t(lang, "tourn.winner", name=isolated(called[champion])))
    else:
        lines.append(t(lang, "tourn.round", round=record.round, count=total_rounds))
        ends = round_end(record)
        if ends is not None:
            local = ends.astimezone(SEASON_ZONE)
            when = t(lang, "tourn.ends", date=f"{local:%d/%m}", time=f"{local:%H:%M}")
            lines.append(when)
    lines.append("")
    lines.append(t(lang, "tourn.standings"))
    lines += standings_lines(found.board(), called, lang)
    if record.status == "running" and record.round:
        lines.append("")
        lines.append(t(lang, "tourn.tables_of_round", round=record.round))
        lines += _table_lines(record, called, lang)
    if record.status != "running":
        return "\n".join(lines), None
    data = callbacks.tournament(record.id, 0, TournamentOp.WITHDRAW)
    withdraw = InlineKeyboardButton(t(lang, "btn.tourn_withdraw"), callback_data=data)
    data = callbacks.tournament(record.id, record.version, TournamentOp.CANCEL)
    cancel = InlineKeyboardButton(t(lang, "btn.cancel"), callback_data=data)
    return "\n".join(lines), InlineKeyboardMarkup([[withdraw, cancel]])


def standings_lines(board: Sequence[Standing], called: dict[int, str], lang: str) -> list[str]:
    """``1. Anna · VP 40 · MP 55 · 2 partite: 2 vinte``, a line per entrant."""
    return [
        t(
            lang,
            "tourn.standing_out" if line.withdrawn else "tourn.standing",
            place=line.place,
            name=isolated(called[line.entrant]),
            vp=line.vp,
            mp=line.mp,
            count=line.played,
            won=line.won,
        )
        for line in board
    ]


def _table_lines(record: TournamentRecord, called: dict[int, str], lang: str) -> list[str]:
    lines: list[str] = []
    for table in record.tables:
        if table.round != record.round:
            continue
        players = " – ".join(isolated(called[e]) for e in table.entries)
        if table.result is None:
            lines.append(t(lang, "tourn.table_playing", number=table.table, players=players))
        else:
            vp = "–".join(str(table.result[e][0]) for e in table.entries)
            lines.append(t(lang, "tourn.table_played", number=table.table, players=players, vp=vp))
    byes = record.byes.get(record.round, ())
    if byes:
        rested = html_lines([isolated(called[e]) for e in byes], ", ")
        lines.append(t(lang, "tourn.byes", names=rested, count=len(byes)))
    return lines


def list_text(records: Sequence[TournamentRecord], lang: str) -> str:
    """``/tornei``: the group's tournaments, the latest first: what, when, where it stands."""
    if not records:
        return t(lang, "tourn.none")
    lines = [t(lang, "tourn.list_title")]
    for record in records[:10]:
        found = facts(record)
        state: Any
        if record.status == "finished":
            champion = found.winner()
            state = t(lang, "tourn.list_won", name=isolated(names(record).get(champion or 0, "?")))
        elif record.status == "running":
            state = t(lang, "tourn.list_round", round=record.round)
        else:
            state = t(lang, f"tourn.list_{record.status}")
        lines.append(
            t(
                lang,
                "tourn.list_line",
                game=t(lang, f"game.{record.game}"),
                format=t(lang, f"tourn.format.{record.format}"),
                date=record.created_at.strftime("%d/%m/%Y"),
                count=len(record.entries),
                state=state,
            )
        )
    return "\n".join(lines)


def table_notice(
    record: TournamentRecord,
    round_: int,
    table: int,
    entry: int,
    user: int,
    lang: str,
    group: str,
) -> str:
    """What ``user`` is told privately of their table: the round, the partner in a pair, the
    opponents, where the hand is (below, in this chat)."""
    called = names(record)
    seated = next(p for p in record.tables if p.round == round_ and p.table == table)
    others = html_lines([isolated(called[e]) for e in seated.entries if e != entry], ", ")
    own = next(e for e in record.entries if e.entry == entry)
    game_title = t(lang, f"game.{record.game}")
    fields = {"game": game_title, "group": group, "round": round_, "table": table}
    if own.partner_name is not None:
        partner = own.partner_name if user == own.user_id else own.name
        return t(lang, "tourn.your_table_pair", partner=isolated(partner), others=others, **fields)
    return t(lang, "tourn.your_table", others=others, **fields)
