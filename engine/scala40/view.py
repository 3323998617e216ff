"""What one seat may see of a Scala 40 match (``Match.view(seat)``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from engine.cards import FACE_INDEX
from engine.scala40.melds import WILD, face_text
from engine.scala40.results import HandResult, MatchResult

if TYPE_CHECKING:
    from engine.scala40.match import Match


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld on the table: number, who laid it, its cards, and what each joker stands for.

    ``jokers`` maps a card index to the card the joker stands for (``None`` for the 14th).
    """

    number: int
    owner: int
    kind: str
    cards: list[str]
    jokers: dict[int, str | None]
    value: int


@dataclass(frozen=True, slots=True)
class View:
    """Everything one seat may know (docs/rules.md S40; issue "view(seat)").

    Private: ``hand`` (sorted by suit and rank, jokers last), ``taken`` (a card taken from the
    discard pile still in hand), ``drawn`` (the card drawn or taken this turn, while in hand),
    ``partner_hand`` (with ``open_hands_for_partners``).
    Public: phase and turn, melds, discard top and size, stock size, each seat's hand size,
    who opened, each seat's status (``in``, ``out``, ``abandoned``), dealer, hand number,
    scores per side, the hand's public history, the last hand's result and the match result.
    """

    game: str
    seat: int
    players: int
    phase: str
    to_play: int | None
    hand: list[str]
    taken: str | None
    drawn: str | None
    melds: list[MeldView]
    discard_top: str | None
    discard_size: int
    stock_size: int
    hand_sizes: list[int]
    opened: list[bool]
    status: list[str]
    turns_done: list[int]
    dealer: int
    hand_number: int
    sides: list[int]
    scores: list[int]
    hands_won: list[int]
    format: str
    limit: int
    history: list[tuple[int, str]]
    partner_hand: list[str] | None
    last_hand: HandResult | None
    result: MatchResult | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict."""
        return asdict(self)


def _texts(cards: list[int]) -> list[str]:
    return [face_text(FACE_INDEX[c]) for c in sorted(cards, key=lambda c: (FACE_INDEX[c], c))]


def build_view(match: Match, seat: int) -> View:
    """The :class:`View` of ``seat``."""
    options = match.options
    partner = (seat + 2) % 4 if options.pairs else None
    partner_hand = None
    if partner is not None and options.open_hands_for_partners:
        partner_hand = _texts(match.hands[partner])
    melds = [
        MeldView(
            m.number,
            m.owner,
            m.kind,
            m.tokens(),
            {
                i: (None if m.stands[i] == WILD else face_text(m.stands[i]))
                for i in range(len(m.cards))
                if FACE_INDEX[m.cards[i]] == 52
            },
            m.value,
        )
        for m in match.melds
    ]
    taken = match.taken if match.to_play == seat else None
    drawn = match.drawn if match.drawn is not None else match.taken
    if match.to_play != seat or drawn not in match.hands[seat]:
        drawn = None
    return View(
        game="scala40",
        seat=seat,
        players=match.players,
        phase=match.phase,
        to_play=match.to_play,
        hand=_texts(match.hands[seat]),
        taken=None if taken is None else face_text(FACE_INDEX[taken]),
        drawn=None if drawn is None else face_text(FACE_INDEX[drawn]),
        melds=melds,
        discard_top=face_text(FACE_INDEX[match.discard[-1]]) if match.discard else None,
        discard_size=len(match.discard),
        stock_size=len(match.stock),
        hand_sizes=[len(h) for h in match.hands],
        opened=list(match.opened),
        status=list(match.status),
        turns_done=list(match.turns_done),
        dealer=match.dealer,
        hand_number=match.hand_number,
        sides=[match.side_of(s) for s in range(match.players)],
        scores=list(match.totals),
        hands_won=list(match.hands_won),
        format=options.format,
        limit=options.limit,
        history=list(match.history),
        partner_hand=partner_hand,
        last_hand=match.last_hand,
        result=match.result,
    )
