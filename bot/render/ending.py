"""The end of a match as every game shows it: who won, the standings in match and victory
points, who abandoned, the seed revealed and the rematch button."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import callbacks
from bot.i18n import t
from bot.render import Rendered
from bot.render import table as table_render
from engine.games import GameMatch
from storage import MatchRecord


def final_ranking(record: MatchRecord, match: GameMatch, names: list[str], lang: str) -> Rendered:
    """The ranking at the end of the match (its table's number when not the first), the seed
    revealed (the deals can be checked), and the rematch button unless it was stopped."""
    outcome = match.outcome
    stopped = outcome is None or outcome.stopped
    seed = t(lang, "match.seed", seed=str(record.seed))
    text = table_render.labelled(lang, record, f"{result_text(match, names, lang)}\n{seed}")
    if stopped:
        return text, None
    button = InlineKeyboardButton(
        t(lang, "btn.rematch"), callback_data=callbacks.rematch(record.id)
    )
    return text, InlineKeyboardMarkup([[button]])


def result_text(match: GameMatch, names: list[str], lang: str) -> str:
    """How the match ended: the winner and the standings with the points in words, who
    abandoned; or that it was interrupted."""
    outcome = match.outcome
    stopped = outcome is None or outcome.stopped
    mp = list(outcome.mp) if outcome else [0] * match.players
    vp = list(outcome.vp) if outcome else [0] * match.players
    winners = list(outcome.winners) if outcome else []
    text = table_render.match_result_text(mp, vp, winners, names, lang, stopped)
    gone = [table_render.name_of(names, s) for s in match.abandoned_seats]
    if gone:
        names_text = table_render.names_list(lang, gone)
        text += "\n" + t(lang, "match.abandoned", names=names_text, count=len(gone))
    return text
