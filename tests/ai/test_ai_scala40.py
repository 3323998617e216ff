"""Scala 40 computer players (engine.ai.scala40): legality, determinism, hidden information, and
exact decisions on rigged positions."""

from __future__ import annotations

import random

import pytest

from engine.ai import scala40 as ai_scala40
from engine.ai import scala40_discard
from engine.ai.scala40 import DEFAULT_BUDGET, choose, esperto, facile, private_world
from engine.ai.scala40_discard import (
    DISCARD_FEATURES,
    DISCARD_WEIGHTS,
    FEED_FEATURES,
    FEED_WEIGHTS,
    DiscardContext,
    discard_features,
    discard_score,
    feed_chance,
    feed_features,
    feed_regime,
)
from engine.ai.scala40_reading import known_pile, usefulness
from engine.cards import FACE_INDEX, face_index, parse_cards
from engine.scala40 import Match, Options, new_match
from engine.scala40.melds import face_text
from testkit.s40_helpers import check_cards, position


def play_hand(match: Match, levels: list[str], budget: int, salt: int) -> int:
    """Play ``match`` to the end of its current hand with the given levels; returns actions."""
    hand = match.hand_number
    count = 0
    while not match.is_over and match.hand_number == hand:
        seat = match.to_play
        assert seat is not None
        legal = match.legal_actions()
        action = choose(match, levels[seat], seed=salt + count, budget=budget)
        assert action in legal, (str(action), [str(a) for a in legal])
        match.play(action)
        count += 1
        assert count < 5000
    return count


class TestLegality:
    @pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
    @pytest.mark.parametrize("jokers", [True, False])
    def test_facile_plays_whole_matches_legally(self, players: int, jokers: bool) -> None:
        for seed in range(3):
            m = new_match(players, seed=seed, options=Options(jokers=jokers))
            for _ in range(40):
                if m.is_over:
                    break
                play_hand(m, ["facile"] * players, 0, seed)
                check_cards(m)

    @pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
    @pytest.mark.parametrize("jokers", [True, False])
    def test_esperto_plays_whole_hands_legally(self, players: int, jokers: bool) -> None:
        for seed in range(2):
            m = new_match(players, seed=100 + seed, options=Options(jokers=jokers))
            levels = ["esperto" if s % 2 == seed % 2 else "facile" for s in range(players)]
            play_hand(m, levels, 4, seed)
            check_cards(m)

    def test_pairs_with_open_partner_hands(self) -> None:
        options = Options(pairs=True, open_hands_for_partners=True)
        m = new_match(4, seed=5, options=options)
        play_hand(m, ["esperto", "facile", "esperto", "facile"], 4, 0)

    def test_choose_rejects_an_unknown_level(self) -> None:
        with pytest.raises(ValueError, match="unknown level"):
            choose(new_match(2, seed=1), "difficile")


class TestDeterminism:
    def test_same_inputs_same_action(self) -> None:
        m = new_match(3, seed=11)
        for step in range(60):
            if m.is_over:
                break
            first = esperto(m, seed=step, budget=8)
            assert esperto(m.copy(), seed=step, budget=8) == first
            assert facile(m, seed=step) == facile(m.copy(), seed=step + 1)
            m.play(first)

    def test_the_private_world_depends_only_on_the_seed(self) -> None:
        m = new_match(2, seed=3)
        assert private_world(m, 0, random.Random(4)).to_json() == (
            private_world(m, 0, random.Random(4)).to_json()
        )


def _reshuffle_hidden(m: Match, seat: int, salt: int) -> Match:
    """The same match for ``seat``'s eyes: other hands and the stock re-dealt, a new seed."""
    other = m.copy()
    hidden = [c for s, h in enumerate(other.hands) if s != seat for c in h] + other.stock
    random.Random(salt).shuffle(hidden)
    for s in range(other.players):
        if s != seat:
            size = len(other.hands[s])
            other.hands[s], hidden = hidden[:size], hidden[size:]
    other.stock = hidden
    other.seed = m.seed + 1000 + salt
    return other


class TestHiddenInformation:
    def test_rigged_positions_differing_only_in_hidden_cards(self) -> None:
        me = "7H 8H 7S KD 2C 5S JS QD 9C 4D 3H AC 6D 10S"
        a = position([me, "AH 2H 3H 4H 5H 6H 9H 10H JH QH KH AS 2S"], phase="play", seed=1)
        b = position([me, "3D 5D 7D 8D 9D 10D JD 2D AD 4C 5C 6C 8C"], phase="play", seed=9)
        assert a.view(0) == b.view(0)
        assert a.to_json() != b.to_json()
        for seed in range(3):
            assert esperto(a, seed=seed, budget=12) == esperto(b, seed=seed, budget=12)

    def test_real_positions_differing_only_in_hidden_cards(self) -> None:
        m = new_match(3, seed=21)
        decided = 0
        for step in range(90):
            if m.is_over:
                break
            seat = m.to_play
            assert seat is not None
            if step % 7 == 3 and m.phase in ("draw", "play"):
                twin = _reshuffle_hidden(m, seat, step)
                assert twin.view(seat) == m.view(seat)
                assert private_world(twin, seat, random.Random(step)).to_json() == (
                    private_world(m, seat, random.Random(step)).to_json()
                )
                assert esperto(twin, seed=step, budget=9) == esperto(m, seed=step, budget=9)
                decided += 1
            m.play(facile(m))
        assert decided >= 5

    def test_the_private_world_keeps_what_the_seat_sees_and_counts(self) -> None:
        m = new_match(4, seed=8)
        for _ in range(70):
            m.play(facile(m))
        seat = m.to_play
        assert seat is not None
        world = private_world(m, seat, random.Random(1))
        check_cards(world)
        assert world.view(seat).hand == m.view(seat).hand
        assert [len(h) for h in world.hands] == [len(h) for h in m.hands]
        assert len(world.stock) == len(m.stock)
        assert world.view(seat).melds == m.view(seat).melds
        assert world.seed != m.seed
        assert known_pile(m.view(seat), True)[-1] == FACE_INDEX[m.discard[-1]]


class TestDecisions:
    def test_facile_opens_when_it_can(self) -> None:
        m = position(
            [
                "9H 9S 9D 10C JC QC 2S 4D 6H KS 3C 8D 5S 7C",
                "AH 2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AS",
            ],
            phase="play",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "open 9S 9H 9D | 10C JC QC"
        assert str(esperto(m, budget=8)) == "open 9S 9H 9D | 10C JC QC"

    def test_facile_takes_the_discard_to_open_with_it(self) -> None:
        m = position(
            ["9H 9S 10C JC QC 2S 4D 6H KS 3C 8D 5S 7C", "AH 2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AS"],
            discard="9D",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "take open 9S 9H 9D | 10C JC QC"

    def test_facile_draws_when_the_discard_is_of_no_use(self) -> None:
        m = position(
            ["9H 9S 10C JC 2S 4D 6H KS 3C 8D 5S 7C AD", "AH 2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AS"],
            discard="KD",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "draw"

    def test_facile_discards_the_least_useful_card(self) -> None:
        # 9C and 3H belong to no potential meld; 9C has more penalty points.
        m = position(
            [
                "7H 8H 7S KD 2C 5S JS QD 9C 4D 3H AC 6D 10S",
                "AH 2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AS",
            ],
            phase="play",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "discard 9C"

    def test_facile_never_discards_a_joker_unless_forced(self) -> None:
        m = position(
            ["KS QD 9C 5H JK", "AH 2H 3H 4H 5S 6H 7H 8H 10H JH QH KH AS"],
            phase="play",
            opened=[True, True],
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "discard KS"

    def test_usefulness_counts_sets_near_runs_and_jokers(self) -> None:
        faces = [FACE_INDEX[c] for c in position(["7H 8H 7S 9H KD JK", "2S 3S 4S"]).hands[0]]
        use = usefulness(faces)
        # 7H: 7S, 8H, 9H; 8H and 9H: two run neighbours; 7S: 7H; KD: nothing; JK: most.
        expected = {"7H": 3.0, "8H": 2.0, "9H": 2.0, "7S": 1.0, "KD": 0.0, "JK": 100.0}
        assert {face_text(f): v for f, v in use.items()} == expected

    def test_esperto_keeps_the_card_the_next_player_can_attach(self) -> None:
        # First round: attaching KD would leave one card, so one of the two must go. KD attaches
        # to the Ks on the table and the next player is open: facile throws it (more points),
        # esperto keeps it.
        m = position(
            ["KD 5H", "2S 3S 4S 8C 9C 10C 4D 5D 6D"],
            melds=[(1, "KS KH KC")],
            opened=[True, True],
            phase="play",
        )
        assert str(facile(m)) == "discard KD"
        for seed in range(3):
            assert str(esperto(m, seed=seed)) == "discard 5H"

    def test_esperto_keeps_high_cards_before_opening(self) -> None:
        # 9C and 3H belong to no potential meld. Before opening esperto keeps the 9C (high cards
        # reach the opening threshold sooner) and throws the 3H; facile throws the 9C.
        m = position(
            [
                "7H 8H 7S KD 2C 5S JS QD 9C 4D 3H AC 6D 10S",
                "AH 2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AS",
            ],
            phase="play",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "discard 9C"
        assert str(esperto(m)) == "discard 3H"

    def test_esperto_keeps_run_neighbours_over_gapped_cards(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Open, every card has one partner for facile, which throws a king (most points). For
        # esperto's score a 7C-9C gap needs one exact card, a pair of kings either of two: by
        # points alone the 9C goes. The next player has not opened, and a 7 feeds an opening
        # less than a 9 (fewer points towards the 40): with the feed cost the 7C goes.
        m = position(
            ["5H 6H 7C 9C KD KS", "2D 3D 4D 8S 9S 10S QH QC JD"],
            melds=[(0, "2S 3S 4S")],
            opened=[True, False],
            phase="play",
            turns_done=[1, 1],
        )
        assert str(facile(m)) == "discard KD"
        assert str(esperto(m)) == "discard 7C"
        monkeypatch.setattr(scala40_discard, "FEED_COST", {"closed": 0.0, "open": 0.0})
        assert str(esperto(m)) == "discard 9C"


class TestDiscardScore:
    """esperto's learned discard score: the features it reads, and the filter in front of it."""

    def attach_position(self) -> Match:
        return position(
            ["KD 5H", "2S 3S 4S 8C 9C 10C 4D 5D 6D"],
            melds=[(1, "KS KH KC")],
            opened=[True, True],
            phase="play",
        )

    def nonzero(self, match: Match, token: str) -> dict[str, float]:
        context = DiscardContext.of(match, match.view(0))
        features = discard_features(context, face_index(parse_cards(token)[0]))
        return {n: round(x, 4) for n, x in zip(DISCARD_FEATURES, features, strict=True) if x}

    def test_features_of_a_card_the_open_next_player_can_attach(self) -> None:
        # KD: 10 points; attaches to the Ks (danger 3, the next player is open); one KS, KH, KC
        # each still unseen (3 pairs of suits for a set); JD-QD and QD-AD unseen (2 runs); the
        # next player holds 9 cards of 13 (penalty_late 1.0 x 4/13).
        assert self.nonzero(self.attach_position(), "KD") == {
            "penalty": 1.0,
            "penalty_open": 1.0,
            "danger": 3.0,
            "set_feed": 3.0,
            "run_feed": 2.0,
            "open_feed": 5.0,
            "penalty_late": round(4 / 13, 4),
            "danger_open": 3.0,
        }

    def test_features_of_a_loose_low_card(self) -> None:
        # 5H: every 5 of another suit unseen, and 3H-4H, 4H-6H, 6H-7H unseen.
        assert self.nonzero(self.attach_position(), "5H") == {
            "penalty": 0.5,
            "penalty_open": 0.5,
            "set_feed": 3.0,
            "run_feed": 3.0,
            "open_feed": 6.0,
            "penalty_late": round(2 / 13, 4),
        }

    def test_outs_count_cards_that_make_a_meld_with_the_hand(self) -> None:
        # 7H with 8H in hand: 6H and 9H would each make a run of three; with 7S in hand, 7D and
        # 7C would each make a set of three: 4 outs. Joker: only its own features.
        m = position(
            ["7H 8H 7S KD JK", "2D 3D 4D 8S 9S 10S QH QC JD"],
            phase="play",
            turns_done=[1, 1],
        )
        assert self.nonzero(m, "7H")["outs"] == 4.0
        assert self.nonzero(m, "JK") == {"joker": 1.0, "penalty": 2.5}

    def test_score_is_the_weighted_sum(self) -> None:
        m = self.attach_position()
        context = DiscardContext.of(m, m.view(0))
        face = face_index(parse_cards("5H")[0])
        features = discard_features(context, face)
        expected = sum(
            DISCARD_WEIGHTS[n] * x for n, x in zip(DISCARD_FEATURES, features, strict=True)
        )
        assert discard_score(context, face) == pytest.approx(expected)


class TestFeedModel:
    """esperto's feed model: the chance that the next player takes a discard."""

    def refusal_position(self) -> Match:
        # Seat 0 throws one of its two 5H; seat 1 draws (refusing it) and throws 9D; seat 0
        # draws and is to discard. Draws: KC, 4H, 10H.
        m = position(
            [
                "5H 5H 9D 2C 7S KD QS 3D 8C 4S JH 6C AD",
                "2H 3H 9S 9D 10C 3C 8D 7D 6S 5C 4C JC QC",
            ],
            stock_top="KC 4H 10H 2D 7H 5S 8S",
            turns_done=[1, 1],
        )
        for action in ("draw", "discard 5H", "draw", "discard 9D", "draw"):
            m.play(action)
        return m

    def nonzero(self, match: Match, token: str) -> dict[str, float]:
        context = DiscardContext.of(match, match.view(match.to_play or 0))
        features = feed_features(context, face_index(parse_cards(token)[0]))
        return {n: x for n, x in zip(FEED_FEATURES, features, strict=True) if x}

    def test_features_of_a_card_the_next_player_refused(self) -> None:
        # 5H: no 5 of another suit seen (6 unseen), 3H 4H 6H 7H two each unseen (4H is in the
        # other hand), so 3 sets and 3 runs could start; refused by the next player in its last
        # turn (danger -0.5).
        assert self.nonzero(self.refusal_position(), "5H") == {
            "bias": 1.0,
            "penalty": 0.5,
            "unseen_rank": 6.0,
            "unseen_minus2": 2.0,
            "unseen_minus1": 2.0,
            "unseen_plus1": 2.0,
            "unseen_plus2": 2.0,
            "set_feed": 3.0,
            "run_feed": 3.0,
            "danger": -0.5,
            "refused_recent": 1.0,
        }

    def test_features_of_a_card_the_next_player_threw(self) -> None:
        features = self.nonzero(self.refusal_position(), "9D")
        assert (features["thrown"], features["thrown_recent"], features["danger"]) == (1, 1, -0.5)
        assert "refused_recent" not in features

    def test_features_of_a_king_count_the_ace_above_it(self) -> None:
        # KC: one KD in hand (5 kings of other suits unseen); JC, QC and the AC above unseen,
        # nothing two ranks above; runs JC-QC-KC and QC-KC-AC.
        assert self.nonzero(self.refusal_position(), "KC") == {
            "bias": 1.0,
            "penalty": 1.0,
            "unseen_rank": 5.0,
            "unseen_minus2": 2.0,
            "unseen_minus1": 2.0,
            "unseen_plus1": 2.0,
            "set_feed": 3.0,
            "run_feed": 2.0,
        }

    def test_a_refusal_is_recent_for_the_next_player_s_last_two_turns(self) -> None:
        m = self.refusal_position()
        for action in ("discard 2C", "draw", "discard 2D", "draw"):  # seat 1's second turn
            m.play(action)
        assert self.nonzero(m, "5H")["refused_recent"] == 1.0
        for action in ("discard 3D", "draw", "discard 9S", "draw"):  # its third turn
            m.play(action)
        features = self.nonzero(m, "5H")
        assert "refused_recent" not in features
        assert features["danger"] == -0.5  # the refusal itself is still known

    def test_a_joker_has_only_its_own_feature(self) -> None:
        m = position(["JK 5H 9D", "2D 3D 4D 8S 9S 10S QH QC JD"], phase="play")
        assert self.nonzero(m, "JK") == {"bias": 1.0, "joker": 1.0}

    def test_the_regime_follows_the_next_player(self) -> None:
        m = self.refusal_position()
        context = DiscardContext.of(m, m.view(0))
        assert feed_regime(context) == "closed"
        m.opened = [False, True]
        assert feed_regime(DiscardContext.of(m, m.view(0))) == "open"

    def test_chance_is_the_regime_s_weighted_sum(self) -> None:
        m = self.refusal_position()
        context = DiscardContext.of(m, m.view(0))
        face = face_index(parse_cards("KC")[0])
        features = feed_features(context, face)
        weights = FEED_WEIGHTS["closed"]
        expected = sum(weights[n] * x for n, x in zip(FEED_FEATURES, features, strict=True))
        assert feed_chance(context, face) == pytest.approx(expected)

    def test_esperto_keeps_the_card_that_would_let_the_next_player_open(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # The next player holds 7H 8H 9H 10H (34): the 6H opens it (S40-5). Seat 0 threw one of
        # its two KD, refused. By points alone the 6H goes (its score is the highest); with the
        # feed cost esperto throws the second KD instead.
        def arranged() -> Match:
            m = position(
                [
                    "2S 4S 5S QS 2H 6H 8D 9D KD KD AC 8C 9C 9C",
                    "5S 7S 7S 9S QS 2H 7H 8H 9H 10H 10D QD JC",
                ],
                stock_top="2C 2D",
                phase="play",
                turns_done=[1, 1],
            )
            for action in ("discard KD", "draw", "discard JC", "draw"):
                m.play(action)
            return m

        fed = arranged()
        fed.play("discard 6H")
        assert str(facile(fed)).startswith("take open")
        assert str(esperto(arranged())) == "discard KD"
        monkeypatch.setattr(scala40_discard, "FEED_COST", {"closed": 0.0, "open": 0.0})
        assert str(esperto(arranged())) == "discard 6H"

    def test_no_chance_when_the_next_player_is_a_partner(self) -> None:
        # Pairs (seats 1 and 3 together): with seat 2 out, seat 1 passes to its partner.
        m = position(
            ["5H 9D 2C", "2D 3D 4D", "8S 9S 10S", "QH QC JD"],
            options=Options(pairs=True),
            phase="play",
            to_play=1,
        )
        m.status[2] = "out"
        context = DiscardContext.of(m, m.view(1))
        assert context.following == 3 and feed_regime(context) is None
        assert feed_chance(context, face_index(parse_cards("2D")[0])) == 0.0


class TestChiusuraSearch:
    """esperto's search over private worlds: hold back for a chiusura in mano (S40-9.4, S40-11.4)
    or open now."""

    # Four melds (78 points) and two loose cards: opening lays 12 cards and keeps 2H and KS; held
    # back, a single card that fits (6H, 10H, 9C, KC, 5H, AD, 5D, a joker) closes in mano.
    HAND = "7H 8H 9H 10C JC QC 5S 5D 5C 2D 3D 4D KS 2H"
    OPEN = "open 7H 8H 9H | 10C JC QC | 5S 5D 5C | 2D 3D 4D"

    def far(self) -> Match:
        """The opponent is open with ten cards: far from closing, much to double."""
        return position(
            [self.HAND, "KD QD JS 9S 8C 6C 4S AH AC 3C"],
            melds=[(1, "6D 7D 8D")],
            opened=[False, True],
            phase="play",
            turns_done=[3, 3],
        )

    def test_holds_back_when_the_open_opponent_is_far_from_closing(self) -> None:
        m = self.far()
        assert str(facile(m)) == self.OPEN
        for seed in range(3):
            assert str(esperto(m, seed=seed)) == "discard KS"

    def test_opens_when_the_open_opponent_is_about_to_close(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Two cards left: held back, the hand would likely end with the flat 100 (S40-11.3).
        calls = _count_play_outs(monkeypatch)
        m = position(
            [self.HAND, "KD QD"],
            melds=[(1, "6D 7D 8D"), (1, "8S 9S 10S"), (1, "AH AC AS")],
            opened=[False, True],
            phase="play",
            turns_done=[3, 3],
        )
        for seed in range(3):
            assert str(esperto(m, seed=seed)) == self.OPEN
        assert len(calls) == 3 * DEFAULT_BUDGET

    def test_no_search_when_no_opponent_is_open(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # Nobody's points could be doubled (S40-11.4: the flat 100 is not), so esperto opens
        # without a single play-out.
        m = position(
            [self.HAND, "KD QD JS 9S 8C 6C 4S AH AC 3C 6D 7D 8D"], phase="play", turns_done=[3, 3]
        )
        monkeypatch.setattr(ai_scala40, "hand_value", _no_play_out)
        assert str(esperto(m, seed=1)) == self.OPEN

    def test_no_search_when_opening_already_closes(self, monkeypatch: pytest.MonkeyPatch) -> None:
        m = position(
            ["7H 8H 9H 10C JC QC 5S 5D 5C 2D 3D 4D 6H KS", "KD QD JS 9S 8C 6C 4S AH AC 3C"],
            melds=[(1, "6D 7D 8D")],
            opened=[False, True],
            phase="play",
            turns_done=[3, 3],
        )
        monkeypatch.setattr(ai_scala40, "hand_value", _no_play_out)
        assert str(esperto(m, seed=1)) == "open 6H 7H 8H 9H | 10C JC QC | 5S 5D 5C | 2D 3D 4D"

    def test_the_budget_counts_play_outs(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = _count_play_outs(monkeypatch)
        esperto(self.far(), seed=2, budget=10)
        assert calls == [0] * 10

    def test_the_decision_reads_only_the_seat_view(self) -> None:
        for m in (self.far(), self.draw_phase("KD QD JS 9S 8C 6C 4S AH AC 3C")):
            for salt in range(3):
                twin = _reshuffle_hidden(m, 0, salt)
                assert twin.view(0) == m.view(0)
                assert esperto(twin, seed=5, budget=12) == esperto(m, seed=5, budget=12)

    def draw_phase(self, opponent: str, *melds: str) -> Match:
        """Draw phase: the 5C on the discard pile would open the same four melds."""
        return position(
            ["7H 8H 9H 10C JC QC 5S 5D 2D 3D 4D KS 2H", opponent],
            melds=[(1, "6D 7D 8D"), *((1, meld) for meld in melds)],
            discard="5C",
            opened=[False, True],
            turns_done=[3, 3],
        )

    def test_in_the_draw_phase_it_weighs_drawing_against_taking_to_open(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls = _count_play_outs(monkeypatch)
        m = self.draw_phase("KD QD", "8S 9S 10S", "AH AC AS")
        assert str(facile(m)) == f"take {self.OPEN}"
        for seed in range(3):
            assert str(esperto(m, seed=seed, budget=10)) == f"take {self.OPEN}"
        assert len(calls) == 30


def _no_play_out(match: Match, seat: int) -> float:
    raise AssertionError("no play-out expected")


def _count_play_outs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count esperto's play-outs: the returned list grows by the seat of each one."""
    calls: list[int] = []
    real = ai_scala40.hand_value

    def counted(match: Match, seat: int) -> float:
        calls.append(seat)
        return real(match, seat)

    monkeypatch.setattr(ai_scala40, "hand_value", counted)
    return calls
