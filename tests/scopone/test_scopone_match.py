"""Match and turn flow: docs/rules.md SC-1 .. SC-3 (deal, turns, scope), SC-5 (the match's end),
SC-6 and S40-14.3 (timeout, abandon, stop, MP and VP), and the view (SC-5.3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cards import Card, scopone_deck, seeded_choice, seeded_shuffle
from engine.errors import IllegalAction
from engine.scopone import Match, Options, greedy_action, new_match
from engine.scopone.deck import to_cards
from engine.scopone.result import match_result
from testkit.scopone_helpers import build_position

LAST_ROUND = ["KS", "KD", "KH", "KC"]
"""Each seat's last card; seat 0 plays first (dealer 1). Play order 0, 3, 2, 1 (SC-1.2):
0 lays KS, 3 takes it with KC (a scopa), 2 lays KH, 1 takes it with KD on the last play.
The other 36 cards are side 0's: side 0 scores carte, denari, primiera, settebello (4)
and side 1 its scopa (1)."""


def last_round(position: Any, **kwargs: Any) -> Match:
    match: Match = position(LAST_ROUND, **kwargs)
    for seat, action in ((0, "play KS"), (3, "play KC"), (2, "play KH")):
        match.play(action, seat=seat)
    return match


class TestDeal:
    """SC-2: dealer drawn from the seed, 2 + 3 each twice then 3 each; scientifico 10 each."""

    def test_standard_deal(self) -> None:
        match = new_match(seed=11)
        dealer = seeded_choice(4, 11, "dealer")
        deck = seeded_shuffle(scopone_deck(), 11, "hand:1")
        order = [(dealer - 1 - i) % 4 for i in range(4)]
        assert match.dealer == dealer
        assert match.to_play == order[0]  # SC-3.1: the player on the dealer's right
        assert list(match.table) == deck[0:2] + deck[14:16]
        for i, seat in enumerate(order):
            dealt = deck[2 + 3 * i : 5 + 3 * i] + deck[16 + 3 * i : 19 + 3 * i]
            dealt += deck[28 + 3 * i : 31 + 3 * i]
            assert sorted(match.hand(seat)) == sorted(dealt)

    def test_scientifico_deal(self) -> None:
        match = new_match(seed=11, options=Options(deal="scientifico"))
        deck = seeded_shuffle(scopone_deck(), 11, "hand:1")
        order = [(match.dealer - 1 - i) % 4 for i in range(4)]
        assert match.table == ()
        for i, seat in enumerate(order):
            dealt = deck[3 * i : 3 * i + 3] + deck[12 + 3 * i : 15 + 3 * i]
            dealt += deck[24 + 4 * i : 28 + 4 * i]
            assert sorted(match.hand(seat)) == sorted(dealt)

    def test_hands_are_in_canonical_order(self) -> None:
        hand = new_match(seed=3).hand(1)
        assert " ".join(map(str, hand)) == "AS AH 2S 2C 3C 4C QH QD KD"

    @pytest.mark.parametrize(
        ("seed", "dealer", "table", "legal"),
        [(1, 2, "5S 3C JD QD", 9), (2, 1, "KS JS 5S JD", 10), (3, 2, "7D 4H AD JS", 9)],
    )
    def test_recorded_deals(self, seed: int, dealer: int, table: str, legal: int) -> None:
        # "perft"-style records: a change here is a change of the rules or of the shuffle
        match = new_match(seed=seed)
        assert (match.dealer, match.to_play) == (dealer, (dealer - 1) % 4)
        assert " ".join(map(str, match.table)) == table
        assert len(match.legal_actions()) == legal

    def test_dealer_moves_right_each_hand(self, finish_hand: Any) -> None:
        match = new_match(seed=2)
        first = match.dealer
        finish_hand(match)
        assert match.hand_number == 2
        assert match.dealer == (first - 1) % 4
        assert match.to_play == (first - 2) % 4
        deck = seeded_shuffle(scopone_deck(), 2, "hand:2")
        assert list(match.table) == deck[0:2] + deck[14:16]
        assert [len(match.hand(seat)) for seat in range(4)] == [9, 9, 9, 9]

    def test_players_must_be_four(self) -> None:
        with pytest.raises(ValueError, match="exactly 4 players"):
            new_match(players=3, seed=1)

    def test_secure_seed_when_none(self) -> None:
        assert isinstance(new_match().seed, int)


class TestTurns:
    """SC-1.2 and SC-3: one card per turn, counterclockwise."""

    def test_counterclockwise(self) -> None:
        match = new_match(seed=3)
        seats = []
        for _ in range(5):
            seats.append(match.to_play)
            match.play(greedy_action(match))
        assert seats == [1, 0, 3, 2, 1]

    def test_played_card_leaves_the_hand(self) -> None:
        match = new_match(seed=3)
        match.play("play 2S")
        assert Card(2, "S") not in match.hand(1)
        assert match.table[-1] == Card(2, "S")
        assert [str(r) for r in match.history] == ["1: play 2S"]

    def test_capture_goes_to_the_side(self, position: Any) -> None:
        # SC-3.3: the played card and the captured cards go to the side's pile
        match = position(["QH 2C", "2S", "3S", "KS 2H"], "AH 3H 4S 5D JC", rest_side=1)
        match.play("play QH take AH JC")
        assert match.table == tuple(to_cards("3H 4S 5D"))
        assert match.view(0).captured[0] == 3
        assert match.to_play == 3


class TestScopa:
    """SC-3.5: sweeping the table is a scopa, except on the very last play (Option)."""

    def test_scopa(self, position: Any) -> None:
        match = position(["7C 2C", "2S", "3S", "KS 2H"], "3D 4H")
        match.play("play 7C take 3D 4H")
        assert match.history[-1].scopa
        assert match.view(0).scope == (1, 0)

    def test_no_scopa_without_a_sweep(self, position: Any) -> None:
        match = position(["7C 2C", "2S", "3S", "KS 2H"], "3D 4H 5C")
        match.play("play 7C take 3D 4H")
        assert not match.history[-1].scopa

    def test_last_play_sweep_is_not_a_scopa(self, position: Any) -> None:
        match = last_round(position)
        assert match.history[1].scopa  # KC took KS: a scopa mid-hand
        match.play("play KD", seat=1)
        assert match.last_hand is not None
        assert [side.scope for side in match.last_hand.sides] == [0, 1]

    def test_last_play_scopa_option(self, position: Any) -> None:
        match = last_round(position, options=Options(last_play_scopa=True))
        match.play("play KD", seat=1)
        assert match.last_hand is not None
        assert [side.scope for side in match.last_hand.sides] == [0, 2]


class TestHandEnd:
    """SC-3.6 leftover to the last capturer; SC-4 scores added to the match (SC-5.2)."""

    def test_leftover_goes_to_the_last_capturer(self, position: Any) -> None:
        match = position(["2S", "KD", "6D", "5H"], "5C")
        for action in ("play 2S", "play 5H take 5C", "play 6D", "play KD"):
            match.play(action)
        hand = match.last_hand
        assert hand is not None
        assert (hand.last_capturer, hand.leftover) == (3, tuple(to_cards("2S 6D KD")))
        assert hand.sides[1].pile == tuple(to_cards("5C 5H 2S 6D KD"))
        assert [side.scope for side in hand.sides] == [0, 0]

    def test_hand_scores_are_added(self, position: Any) -> None:
        match = last_round(position, scores=[3, 2])
        match.play("play KD take KH", seat=1)
        assert match.last_hand is not None
        assert match.last_hand.totals == (4, 1)
        assert match.scores == (7, 3)
        assert match.last_hand.sides[1].pile == tuple(to_cards("KS KC KH KD"))


class TestMatchEnd:
    """SC-5: target 11/16/21; both past it: the higher wins; a tie plays more hands."""

    @pytest.mark.parametrize(
        ("scores", "target", "final", "winners"),
        [
            ([7, 0], 11, (11, 1), (0,)),  # reaching the target exactly wins
            ([0, 10], 11, (4, 11), (1,)),
            ([9, 10], 11, (13, 11), (0,)),  # both past it: the higher total
            ([12, 0], 16, (16, 1), (0,)),
            ([20, 19], 21, (24, 20), (0,)),
        ],
    )
    def test_winner(
        self,
        position: Any,
        scores: list[int],
        target: int,
        final: tuple[int, ...],
        winners: tuple[int, ...],
    ) -> None:
        match = last_round(position, scores=scores, options=Options(target=target))
        match.play("play KD", seat=1)
        result = match.result
        assert match.is_over and match.to_play is None and match.phase == "over"
        assert result is not None
        assert (match.scores, result.winners) == (final, winners)

    def test_tie_plays_another_hand(self, position: Any) -> None:
        match = last_round(position, scores=[8, 11])
        match.play("play KD", seat=1)
        assert match.scores == (12, 12)
        assert not match.is_over and match.result is None
        assert (match.hand_number, match.dealer, match.to_play) == (2, 0, 3)

    def test_below_target_goes_on(self, position: Any) -> None:
        match = last_round(position, scores=[11, 0], options=Options(target=16))
        match.play("play KD", seat=1)
        assert match.scores == (15, 1) and not match.is_over

    def test_individual(self, position: Any) -> None:
        options = Options(individual=True)
        match = last_round(position, scores=[5, 10, 9, 9], options=options)
        match.play("play KD", seat=1)
        # seat 0: carte, denari, primiera, settebello; seat 3: the scopa; seat 1: nothing
        assert match.scores == (9, 10, 9, 10)
        assert not match.is_over
        assert match.view(2).sides == (0, 1, 2, 3)

    @pytest.mark.parametrize(
        ("seed", "options", "scores", "hands", "winners"),
        [
            (1, Options(), (12, 16), 3, (1,)),
            (3, Options(), (3, 11), 2, (1,)),
            (2, Options(deal="scientifico"), (10, 13), 2, (1,)),
            (2, Options(individual=True), (10, 6, 12, 3), 3, (2,)),
            (3, Options(target=21, last_play_scopa=True), (16, 26), 5, (1,)),
        ],
    )
    def test_recorded_greedy_matches(
        self,
        greedy: Any,
        seed: int,
        options: Options,
        scores: tuple[int, ...],
        hands: int,
        winners: tuple[int, ...],
    ) -> None:
        match = new_match(seed=seed, options=options)
        greedy(match)
        result = match.result
        assert result is not None
        assert (match.scores, result.hands, result.winners) == (scores, hands, winners)


def test_the_end_when_no_person_is_left() -> None:
    """SC-6.4: the one person (seat 0) of a match against computers abandons: the match ends
    at once as it stands, seat 0's side last."""
    match = new_match(seed=5)
    match.play("abandon", seat=0)
    assert not match.is_over
    assert str(match.play("end", seat=0)) == "end"
    result = match.result
    assert match.is_over and result is not None and not result.stopped
    assert (result.winners, result.abandoned, result.vp) == ((1,), (0,), (0, 20, 0, 20))


class TestResult:
    """SC-6.2, SC-6.3: MP are the point difference, VP 20 to the winners; abandoning loses."""

    sides = (0, 1, 0, 1)

    def test_pairs(self) -> None:
        result = match_result([11, 7], self.sides, [], False, 3)
        assert (result.winners, result.winner_seats) == ((0,), (0, 2))
        assert (result.mp, result.vp) == ((4, -4, 4, -4), (20, 0, 20, 0))

    def test_abandoning_side_loses_even_when_ahead(self) -> None:
        result = match_result([5, 11], self.sides, [3], False, 2)
        assert (result.winners, result.forfeited, result.abandoned) == ((0,), (1,), (3,))
        assert (result.mp, result.vp) == ((0, 0, 0, 0), (20, 0, 20, 0))

    def test_abandoning_side_behind(self) -> None:
        result = match_result([11, 3], self.sides, [1], False, 2)
        assert (result.mp, result.vp) == ((8, -8, 8, -8), (20, 0, 20, 0))

    def test_first_abandonment_decides(self) -> None:
        result = match_result([11, 3], self.sides, [2, 1], False, 2)
        assert result.winners == (1,)
        assert result.mp == (0, 0, 0, 0)

    def test_individual(self) -> None:
        result = match_result([12, 5, 3, 0], (0, 1, 2, 3), [], False, 4)
        assert result.mp == (28, 0, -8, -20) and sum(result.mp) == 0
        assert result.vp == (20, 0, 0, 0)

    def test_individual_abandonment(self) -> None:
        result = match_result([12, 5, 3, 0], (0, 1, 2, 3), [0], False, 4)
        assert result.winners == (1,)
        assert result.mp == (0, 7, 1, -8)
        assert result.vp == (0, 20, 0, 0)

    def test_stopped_counts_for_nobody(self) -> None:
        result = match_result([5, 3], self.sides, [], True, 1)
        assert (result.stopped, result.winners, result.mp, result.vp) == (
            True, (), (0, 0, 0, 0), (0, 0, 0, 0),
        )  # fmt: skip


class TestAbandon:
    """SC-6.2: the seat passes to the computer, the match goes on, the side loses."""

    def test_abandon_out_of_turn(self, greedy: Any, rejected: Any) -> None:
        match = new_match(seed=3)
        assert str(match.play("abandon", seat=2)) == "abandon"
        assert (match.computer_seats, match.to_play, match.history) == ((2,), 1, ())
        assert match.view(0).computer == (2,)
        rejected(match, "abandon", "already-abandoned", seat=2)
        greedy(match)
        result = match.result
        assert result is not None
        assert (result.winners, result.forfeited, result.vp) == ((1,), (0,), (0, 20, 0, 20))
        assert result.mp[1] == max(0, match.scores[1] - match.scores[0])

    def test_abandon_defaults_to_the_seat_to_play(self) -> None:
        match = new_match(seed=3)
        match.play("abandon")
        assert match.computer_seats == (1,)


class TestTimeout:
    """S40-14.3 (SC-6.1): autoplay the computer move; a third in a row, or forfeit, abandons."""

    def test_autoplay_plays_the_facile_move(self) -> None:
        """SC-6.1, S40-14.3: on an empty table the greedy player would lay JH; the ``facile``
        computer move, which the rules name, lays the lowest card, 2C."""
        match = build_position(["JH 2C 5S", "KS 2S", "QC 3C", "KH 4D"], "", to_play=0)
        assert str(greedy_action(match)) == "play JH"
        assert str(match.play("timeout")) == "timeout"
        record = match.history[-1]
        assert (record.seat, str(record.action), record.auto) == (0, "play 2C", True)
        assert match.to_play == 3 and match.computer_seats == ()

    def test_third_consecutive_autoplay_abandons(self) -> None:
        match = new_match(seed=3)
        for _ in range(8):  # two timeouts for every seat
            match.play("timeout")
        assert not match.computer_seats
        match.play("timeout")  # seat 1's third
        assert match.computer_seats == (1,)
        assert match.history[-1].auto

    def test_own_play_resets_the_count(self) -> None:
        match = new_match(seed=3)
        for turn in range(12):
            if turn == 4:  # seat 1 plays by itself once between its timeouts
                match.play(greedy_action(match))
            else:
                match.play("timeout")
        assert 1 not in match.computer_seats
        assert set(match.computer_seats) == {0, 2, 3}

    def test_forfeit_policy(self) -> None:
        match = new_match(seed=3, options=Options(timeout_policy="forfeit"))
        match.play("timeout")
        assert match.computer_seats == (1,)
        assert match.history[-1].auto and match.to_play == 0

    def test_no_timer(self, rejected: Any) -> None:
        match = new_match(seed=3, options=Options(turn_seconds=0))
        rejected(match, "timeout", "no-timer")


class TestStop:
    """S40-13.3, S40-14.4: a stopped match ends at once and counts for nobody."""

    def test_stop(self, rejected: Any) -> None:
        match = new_match(seed=3)
        match.play(greedy_action(match))
        assert str(match.play("stop", seat=3)) == "stop"
        result = match.result
        assert match.is_over and match.to_play is None and match.phase == "stopped"
        assert result is not None and result.stopped and result.winners == ()
        assert match.legal_actions() == []
        for action in ("play 2S", "abandon", "stop", "timeout"):
            rejected(match, action, "match-over")


class TestView:
    """SC-5.3 and the view contract: own hand only, everything public, JSON-friendly."""

    def test_view_hides_other_hands(self) -> None:
        match = new_match(seed=3)
        view = match.view(0)
        assert view.hand == match.hand(0)
        assert view.hand_sizes == (9, 9, 9, 9)
        assert view.legal_actions == () and view.to_play == 1
        assert match.view(1).legal_actions == tuple(match.legal_actions())
        text = json.dumps(view.to_dict())
        for seat in (1, 2, 3):
            assert all(f'"{card}"' not in text for card in match.hand(seat))

    def test_view_fields(self) -> None:
        match = new_match(seed=3)
        match.play("play QH take AD JS")
        data = match.view(2).to_dict()
        assert data["game"] == "scopone" and data["phase"] == "playing"
        assert (data["seat"], data["to_play"], data["dealer"], data["hand_number"]) == (2, 0, 2, 1)
        assert data["table"] == ["7D", "4H"] and data["captured"] == [0, 3]
        assert data["sides"] == [0, 1, 0, 1] and data["scores"] == [0, 0]
        assert data["history"] == [
            {"seat": 1, "action": "play QH take AD JS", "scopa": False, "auto": False}
        ]
        assert data["target"] == 11 and data["last_hand"] is None and data["result"] is None

    def test_last_hand_in_view(self, finish_hand: Any) -> None:
        match = new_match(seed=3)
        finish_hand(match)
        data = match.view(0).to_dict()["last_hand"]
        assert sum(len(side["pile"]) for side in data["sides"]) == 40
        assert data["totals"] == [side["total"] for side in data["sides"]]

    def test_bad_seat(self) -> None:
        with pytest.raises(ValueError):
            new_match(seed=3).view(4)

    def test_denari_and_sevens_taken_so_far_per_side(self) -> None:
        """SC-4.2, SC-4.3: what the piles hold so far, public as the captures are."""
        match = new_match(seed=3)  # seat 1 first; 7D 4H AD JS on the table
        match.play("play QH take AD JS", seat=1)
        match.play("play 7H take 7D", seat=0)
        view = match.view(2)
        assert (view.denari, view.sevens) == ((1, 1), (2, 0))


class TestOptions:
    """Options: docs/rules.md defaults, validation naming the field, dict round trip."""

    def test_defaults(self) -> None:
        assert Options().to_dict() == {
            "individual": False, "deal": "standard", "last_play_scopa": False,
            "primiera_all_suits": False, "target": 11, "turn_seconds": 120,
            "timeout_policy": "autoplay", "confirm_play": False,
        }  # fmt: skip

    @pytest.mark.parametrize(
        ("kwargs", "field"),
        [
            ({"target": 15}, "target"),
            ({"deal": "fast"}, "deal"),
            ({"timeout_policy": "kick"}, "timeout_policy"),
            ({"turn_seconds": -1}, "turn_seconds"),
            ({"individual": 1}, "individual"),
            ({"target": "11"}, "target"),
        ],
    )
    def test_invalid(self, kwargs: dict[str, Any], field: str) -> None:
        with pytest.raises(ValueError, match=field):
            Options(**kwargs)

    def test_round_trip(self) -> None:
        options = Options(individual=True, deal="scientifico", target=21, turn_seconds=0)
        assert Options.from_dict(options.to_dict()) == options

    def test_unknown_key(self) -> None:
        with pytest.raises(ValueError, match="colour"):
            Options.from_dict({"colour": "red"})


def test_illegal_action_is_an_engine_error() -> None:
    """Errors: IllegalAction carries a code; the reason is ``code: message``."""
    with pytest.raises(IllegalAction) as caught:
        new_match(seed=3).play("play 5D")
    assert caught.value.reason.startswith("card-not-in-hand: ")
