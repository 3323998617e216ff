"""Property tests over random seeds, player counts, options and random legal play.

docs/rules.md S40-1.3 (every card exactly once), S40-4 (every table meld valid), S40-9.2 (the player
to move always has a legal action), S40-14 (abandonment and timeouts keep the match going), and
the match log contract (a refused action changes nothing; the JSON round trip is exact; the
log replays the match exactly).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import IllegalAction
from engine.cards import FACE_INDEX, FACES, JOKER_FACE
from engine.scala40 import Match, Options, new_match
from engine.scala40.melds import WILD, resolve
from engine.scala40.options import ACE_PENALTIES, LIMITS
from testkit.s40_helpers import check_cards, position

SEEDS = st.integers(min_value=0, max_value=2**64)


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, Options]:
    """A player count and a consistent set of options."""
    players = draw(st.integers(min_value=2, max_value=6))
    pairs = players == 4 and draw(st.booleans())
    formats = ["points", "hands", "race"] if pairs else ["points", "hands"]
    fmt = draw(st.sampled_from(formats))
    options = Options(
        pairs=pairs,
        jokers=draw(st.booleans()),
        manual_cut=draw(st.booleans()),
        free_discard_take=draw(st.booleans()),
        opening_points=draw(st.sampled_from([30, 40, 51])),
        opening_without_joker=draw(st.booleans()),
        close_in_hand_without_40=draw(st.booleans()),
        strict_discard=draw(st.booleans()),
        joker_close_doubles=draw(st.booleans()),
        max_restocks=draw(st.sampled_from([0, 1, 3])),
        ace_penalty=draw(st.sampled_from(ACE_PENALTIES)),
        format=fmt,
        limit=draw(st.sampled_from(LIMITS[:2])),
        rientro=fmt == "points" and not pairs and draw(st.booleans()),
        timeout_policy=draw(st.sampled_from(["autoplay", "autoplay", "forfeit"])),
    )
    return players, options


def check_melds(m: Match) -> None:
    """S40-4, S40-4.5: every meld on the table is valid, numbered 1.. in order."""
    assert [meld.number for meld in m.melds] == list(range(1, len(m.melds) + 1))
    for meld in m.melds:
        assert 0 <= meld.owner < m.players
        specs = [
            (FACE_INDEX[c], None if FACE_INDEX[c] != JOKER_FACE or s == WILD else s)
            for c, s in zip(meld.cards, meld.stands, strict=True)
        ]
        shape = resolve(specs)
        assert shape.kind == meld.kind
        assert shape.value == meld.value
        assert sorted(shape.stands) == sorted(meld.stands)
        naturals = [FACE_INDEX[c] for c in meld.cards if FACE_INDEX[c] != JOKER_FACE]
        assert all(face in meld.stands for face in naturals)
        assert sum(1 for c in meld.cards if FACE_INDEX[c] == JOKER_FACE) <= 1


def check_invariants(m: Match) -> None:
    """Cards, melds, and a legal action for whoever is to play."""
    check_cards(m)
    check_melds(m)
    if m.to_play is None:
        assert m.is_over
        assert m.result is not None
        assert m.legal_actions() == []
        check_match_points(m)
    else:
        assert m.legal_actions()
        expected = "out" if m.phase == "rientro" else "in"
        assert m.status[m.to_play] == expected


def check_match_points(m: Match) -> None:
    """S40-13.1: MP are zero-sum and no winner ends with negative MP, in every format."""
    result = m.result
    assert result is not None
    assert sum(result.mp) == 0
    assert all(result.mp[seat] >= 0 for seat in result.winners), result.to_dict()


def check_discards_agree(m: Match) -> None:
    """S40-8: the generator lists exactly the discards that ``play`` accepts."""
    listed = {str(a) for a in m.legal_actions() if a.kind == "discard"}
    seat = m.to_play
    assert seat is not None
    before = m.to_json()
    for face in sorted({str(FACES[c]) for c in m.hands[seat]}):
        action = f"discard {face}"
        try:
            Match.from_json(before).play(action)
        except IllegalAction:
            assert action not in listed
        else:
            assert action in listed


def random_illegal(m: Match, rng: random.Random) -> tuple[str, int | None]:
    """An action that must be refused now."""
    seat = m.to_play
    assert seat is not None
    held = {str(FACES[c]) for c in m.hands[seat]}
    missing = [f"{r}{s}" for r in ("2", "5", "9", "K") for s in "SHDC" if f"{r}{s}" not in held]
    others = [s for s in range(m.players) if s != seat]
    choices: list[tuple[str, int | None]] = [
        ("draw", rng.choice(others)),
        (f"attach {len(m.melds) + 5} 5H", None),
        ("rientro maybe", None),
        ("fold", None),
    ]
    if m.phase in ("draw", "play") and missing:
        card = rng.choice(missing)
        choices.append((f"discard {card}", None))
        choices.append((f"meld {card} {card} {card}", None))
    if m.phase == "play":
        choices.append(("draw", None))
    if m.phase == "draw":
        choices.append(("discard " + rng.choice(sorted(held) or ["2S"]), None))
    return rng.choice(choices)


def random_step(m: Match, rng: random.Random) -> tuple[int, str]:
    """One random move: mostly a legal action, sometimes a timeout or an abandonment."""
    seat = m.to_play
    assert seat is not None
    roll = rng.random()
    if roll < 0.002 and m.phase != "over":
        quitter = rng.choice([s for s in range(m.players) if m.status[s] == "in"])
        return quitter, str(m.play("abandon", seat=quitter))
    if roll < 0.015:
        return seat, str(m.play("timeout"))
    actions = m.legal_actions()
    return seat, str(m.play(rng.choice(actions)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(setup=setups(), seed=SEEDS, play_seed=st.integers(0, 2**32))
def test_invariants_under_random_play(
    setup: tuple[int, Options], seed: int, play_seed: int
) -> None:
    """S40-1.3, S40-4, S40-9.2: after every move every card is in exactly one place (hands,
    stock, discard pile, melds, aside), every meld is valid, and the seat to play has a
    legal action; every listed action is accepted; a refused action changes nothing."""
    players, options = setup
    m = new_match(players=players, seed=seed, options=options)
    rng = random.Random(play_seed)
    check_invariants(m)
    for step in range(300):
        if m.to_play is None:
            break
        if step % 6 == 0:
            before = m.to_json()
            for action in rng.sample(m.legal_actions(), min(3, len(m.legal_actions()))):
                Match.from_json(before).play(action)
            if m.phase == "play":
                check_discards_agree(m)
            text, seat = random_illegal(m, rng)
            try:
                m.play(text, seat=seat)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{text!r} by {seat} was accepted")
            assert m.to_json() == before
        random_step(m, rng)
        check_invariants(m)


def check_every_listed_action_plays(m: Match) -> None:
    """Every action the generator lists is accepted by ``play`` from this position."""
    before = m.to_json()
    for action in m.legal_actions():
        try:
            Match.from_json(before).play(action)
        except IllegalAction as error:
            raise AssertionError(f"{action} is listed but refused: {error.code}") from error


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(setup=setups(), seed=SEEDS, play_seed=st.integers(0, 2**32))
def test_every_listed_action_is_accepted(
    setup: tuple[int, Options], seed: int, play_seed: int
) -> None:
    """S40-9.2, S40-8.2: a listed action that ``play`` refuses never happens. From sampled
    positions of random matches (every option drawn), and from every position where a card
    taken from the discard pile is still in hand, each listed action is played on a copy."""
    players, options = setup
    m = new_match(players=players, seed=seed, options=options)
    rng = random.Random(play_seed)
    for step in range(600):
        if m.to_play is None:
            break
        held_taken = m.taken is not None and m.taken in m.hands[m.to_play]
        if step % 15 == 0 or held_taken:
            check_every_listed_action_plays(m)
        eager_step(m, rng)


NEAR = ["10S", "9S", "JS", "10H", "JK", "4C"]
"""Cards that meld with each other often (a run of spades, a set of 10s), and two that do not."""


@settings(max_examples=150, deadline=None)
@example(hand=["9S", "10S", "JK"], top="10S", table="", turns_done=1)  # the review's case
@given(
    hand=st.lists(st.sampled_from(NEAR), min_size=2, max_size=5),
    top=st.sampled_from(NEAR[:4]),
    table=st.sampled_from(["", "7S 8S 9S", "10C 10H 10D", "JK 9H 10H"]),
    turns_done=st.sampled_from([0, 1]),
)
def test_listed_actions_after_a_plain_take(
    hand: list[str], top: str, table: str, turns_done: int
) -> None:
    """Card notation, S40-8.2, S40-9.2: after a plain take (``free_discard_take``), often of
    the twin of a card in hand, every listed meld, attach, swap and discard is accepted."""
    try:
        m = position(
            [" ".join(hand), "AD 2D 3D 4D"],
            melds=[(1, table)] if table else [],
            discard=f"KC {top}",
            opened=[True, True],
            turns_done=[turns_done, 1],
            options=Options(free_discard_take=True),
        )
    except ValueError:
        return  # more copies of a card than the decks hold
    m.play("take")
    check_every_listed_action_plays(m)


def eager_step(m: Match, rng: random.Random) -> None:
    """A random move that mostly takes the discard and lays cards when it can (so that
    positions with a taken card and melds on the table come often), else a random one."""
    lays = [a for a in m.legal_actions() if a.kind not in ("draw", "discard")]
    if lays and rng.random() < 0.8:
        m.play(rng.choice(lays))
    else:
        random_step(m, rng)


@settings(max_examples=120, deadline=None)
@given(setup=setups(), seed=SEEDS, play_seed=st.integers(0, 2**32))
def test_log_replays_exactly(setup: tuple[int, Options], seed: int, play_seed: int) -> None:
    """The match log: replaying (seat, action text) from the seed and options reproduces the
    match exactly; the JSON round trip is exact mid-hand."""
    players, options = setup
    m = new_match(players=players, seed=seed, options=options)
    rng = random.Random(play_seed)
    log: list[tuple[int, str]] = []
    for step in range(400):
        if m.to_play is None:
            break
        log.append(random_step(m, rng))
        if step % 25 == 0:
            text = m.to_json()
            assert Match.from_json(text).to_json() == text
    replay = new_match(players=players, seed=seed, options=options)
    for seat, action in log:
        replay.play(action, seat=seat)
    assert replay.to_json() == m.to_json()


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 6), seed=SEEDS, jokers=st.booleans())
def test_whole_matches_end(players: int, seed: int, jokers: bool) -> None:
    """S40-12.1: with a simple policy (meld what can be melded, else discard the highest
    card) matches go to the end: one winner (or line), MP zero-sum, VP 20 to the winners."""
    m = new_match(players=players, seed=seed, options=Options(jokers=jokers))
    for _ in range(6000):
        if m.to_play is None:
            break
        m.play(greedy(m))
    result = m.result
    assert result is not None
    assert result.reason == "points"
    assert len(result.winners) == 1
    assert sum(result.mp) == 0
    assert result.vp[result.winners[0]] == 20
    assert sum(result.vp) == 20
    assert all(t >= 101 for s, t in enumerate(result.totals) if s not in result.winners)
    assert sorted(result.ranking) == list(range(players))
    assert result.ranking[0] == result.winners[0]


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(setup=setups(), seed=SEEDS, play_seed=st.integers(0, 2**32))
def test_no_winner_ends_with_negative_match_points(
    setup: tuple[int, Options], seed: int, play_seed: int
) -> None:
    """S40-13.1, S40-14: whole matches in every format (the simple policy, with a rare
    timeout or abandonment) end with zero-sum MP and no winner below 0."""
    players, options = setup
    m = new_match(players=players, seed=seed, options=options)
    rng = random.Random(play_seed)
    for _ in range(8000):
        seat = m.to_play
        if seat is None:
            break
        roll = rng.random()
        if roll < 0.0005:
            m.play("abandon", seat=rng.choice([s for s in range(players) if m.active(s)]))
        elif roll < 0.003 and m.phase in ("draw", "play"):
            m.play("timeout")
        elif m.phase in ("draw", "play"):
            m.play(greedy(m))
        else:  # a manual cut, or a rientro offer
            m.play(rng.choice(m.legal_actions()))
    if m.result is not None:
        check_match_points(m)


def greedy(m: Match) -> str:
    """Draw; open or meld or attach when possible; else discard the highest penalty card."""
    actions = [str(a) for a in m.legal_actions()]
    for prefix in ("take", "open", "meld", "attach", "swap"):
        for action in actions:
            if action.startswith(prefix):
                return action
    if "draw" in actions:
        return "draw"
    discards = [a for a in actions if a.startswith("discard")]
    return max(discards, key=penalty_of)


def penalty_of(action: str) -> int:
    """Penalty of the card of a ``discard`` action (joker 25, ace 11, figures 10)."""
    card = action.split()[1]
    if card == "JK":
        return 25
    rank = card[:-1]
    return {"A": 11, "J": 10, "Q": 10, "K": 10}.get(rank, int(rank) if rank.isdigit() else 0)
