"""Scoring: hand penalties (docs/rules.md S40-11), match and victory points (S40-13), timeout and
abandonment (S40-14)."""

from __future__ import annotations

import pytest

from engine import IllegalAction
from engine.scala40 import Match, Options, hand_penalty, match_points
from engine.scala40.scoring import abandon_difference, card_penalty
from testkit.s40_helpers import faces, hand_text, ids, position, rejected


class TestCardPenalty:
    """S40-11.2: joker 25, ace 11, J Q K 10, others face value."""

    @pytest.mark.parametrize(
        ("card", "points"),
        [
            ("JK", 25),
            ("AS", 11),
            ("KH", 10),
            ("QD", 10),
            ("JC", 10),
            ("10S", 10),
            ("9H", 9),
            ("2C", 2),
        ],
    )
    def test_card(self, card: str, points: int) -> None:
        """S40-11.2: the penalty of one card."""
        assert card_penalty(ids(card)[0]) == points


class TestHandPenalty:
    """S40-11.2 Option ``ace_penalty``: ``single_ace_is_1`` (default), ``last_card_is_1``,
    ``always_11``."""

    @pytest.mark.parametrize(
        ("hand", "single", "last", "always"),
        [
            ("JK AH KH 5C", 41, 51, 51),
            ("AH", 1, 1, 11),
            ("AH AS", 22, 22, 22),
            ("AH AH 2C", 24, 24, 24),
            ("2C 3C", 5, 5, 5),
            ("", 0, 0, 0),
            ("JK", 25, 25, 25),
            ("AD JK", 26, 36, 36),
        ],
    )
    def test_ace_options(self, hand: str, single: int, last: int, always: int) -> None:
        """S40-11.2: exactly one ace counts 1 (seed 000); only as the last card (seed 003);
        always 11 (seed 004)."""
        cards = ids(hand)
        assert hand_penalty(cards) == single
        assert hand_penalty(cards, "single_ace_is_1") == single
        assert hand_penalty(cards, "last_card_is_1") == last
        assert hand_penalty(cards, "always_11") == always


def closing(
    hands: list[str],
    opened: list[bool],
    options: Options | None = None,
    closer_open: bool = True,
) -> Match:
    """Seat 0 to play (already drawn) in its second turn; ``opened`` for the other seats."""
    return position(
        hands,
        options=options,
        opened=[closer_open, *opened],
        turns_done=[1] * len(hands),
        phase="play",
    )


class TestHandScore:
    """S40-11.1-3: the closer 0, others their cards, never opened a flat 100."""

    def test_closer_others_and_flat_100(self) -> None:
        """S40-11.1-3: 0 for the closer, 5H KC = 15, a player never open 100."""
        m = closing(["7C", "5H KC", "KS KH KD QS QH JH 2C"], [True, False])
        m.play("discard 7C")
        hand = m.last_hand
        assert hand is not None
        assert (hand.closer, hand.annulled, hand.in_mano) == (0, False, False)
        assert hand.points == [0, 15, 100]
        assert hand.side_points == [0, 15, 100]
        assert hand.totals == [0, 15, 100]
        assert m.totals == [0, 15, 100]
        assert hand.cards == [[], ["5H", "KC"], ["QS", "KS", "JH", "QH", "KH", "KD", "2C"]]

    def test_the_result_says_what_decided_the_hand(self) -> None:
        """The closing discard, who had laid down, what the cards count by themselves (a flat
        100 against 62 here, S40-11.3) and the hands won, for the players to read."""
        m = closing(["7C", "5H KC", "KS KH KD QS QH JH 2C"], [True, False])
        m.play("discard 7C")
        hand = m.last_hand
        assert hand is not None
        assert (hand.discard, hand.opened) == ("7C", [True, True, False])
        assert (hand.card_points, hand.hands_won) == ([0, 15, 62], [1, 0, 0])
        assert type(hand).from_dict(hand.to_dict()) == hand

    def test_flat_100_even_for_a_cheap_hand(self) -> None:
        """S40-11.3: 100 whatever the cards, even 2C alone."""
        m = closing(["7C", "2C"], [False])
        m.play("discard 7C")
        assert m.last_hand is not None
        assert m.last_hand.points == [0, 100]

    def test_scores_accumulate(self) -> None:
        """S40-12.1: scores accumulate across hands."""
        m = closing(["7C", "5H KC"], [True])
        m.totals = [12, 30]
        m.play("discard 7C")
        assert m.totals == [12, 45]
        assert m.last_hand is not None
        assert m.last_hand.totals == [12, 45]

    @pytest.mark.parametrize(
        ("option", "points"), [("single_ace_is_1", 1), ("last_card_is_1", 1), ("always_11", 11)]
    )
    def test_ace_option_in_a_hand(self, option: str, points: int) -> None:
        """S40-11.2: a lone ace under each option."""
        m = closing(["7C", "AH"], [True], Options(ace_penalty=option))
        m.play("discard 7C")
        assert m.last_hand is not None
        assert m.last_hand.points == [0, points]


class TestChiusuraInMano:
    """S40-9.4, S40-11.4: closing in the turn the player first put cards on the table doubles
    the others' points; the flat 100 is not doubled."""

    def test_in_mano_doubles(self) -> None:
        """S40-11.4: 5H KC = 15 doubled to 30; the never-opened player still 100."""
        m = closing(
            ["9H 9S 9D 10C JC QC 2S 3S 4S 5D", "5H KC", "KS KH KD QS QH JH 2C"],
            [True, False],
            closer_open=False,
        )
        m.play("open 9H 9S 9D | 10C JC QC | 2S 3S 4S")
        m.play("discard 5D")
        hand = m.last_hand
        assert hand is not None
        assert hand.in_mano
        assert not hand.joker_close
        assert hand.points == [0, 30, 100]

    def test_opened_earlier_is_not_in_mano(self) -> None:
        """S40-9.4: a player who opened in an earlier turn does not close in mano."""
        m = closing(["2S 3S 4S 5D", "5H KC"], [True])
        m.play("meld 2S 3S 4S")
        m.play("discard 5D")
        assert m.last_hand is not None
        assert not m.last_hand.in_mano
        assert m.last_hand.points == [0, 15]

    def test_open_action_by_an_open_player_is_not_in_mano(self) -> None:
        """S40-9.4: chiusura in mano is closing in the turn the player *first* put cards on
        the table. A player open since an earlier turn who lays melds with the ``open``
        action did not first put cards down now: whether the engine refuses that action
        (``already-open``, as for ``take open``) or treats it as plain melds, the close that
        follows is not in mano and 5H KC scores 15, not 30."""
        m = position(
            ["9H 9S 9D 10C JC QC 5D", "5H KC"],
            melds=[(0, "2H 3H 4H")],
            opened=[True, True],
            turns_done=[2, 2],
            phase="play",
        )
        try:
            m.play("open 9H 9S 9D | 10C JC QC")
        except IllegalAction as error:
            assert error.code == "already-open"
            m.play("meld 9H 9S 9D")
            m.play("meld 10C JC QC")
        m.play("discard 5D")
        assert m.last_hand is not None
        assert not m.last_hand.in_mano
        assert m.last_hand.points == [0, 15]

    def test_joker_close_doubles_does_not_stack(self) -> None:
        """S40-11.4 Decision: in mano and closing on a joker double once (15 -> 30)."""
        m = closing(
            ["9H 9S 9D 10C JC QC JK", "5H KC"],
            [True],
            Options(joker_close_doubles=True),
            closer_open=False,
        )
        m.play("open 9H 9S 9D | 10C JC QC")
        m.play("discard JK")
        hand = m.last_hand
        assert hand is not None
        assert (hand.in_mano, hand.joker_close) == (True, True)
        assert hand.points == [0, 30]

    def test_joker_close_flat_100_not_doubled(self) -> None:
        """S40-11.4: the flat 100 is not doubled by a joker close either."""
        m = closing(["JK", "2C"], [False], Options(joker_close_doubles=True))
        m.play("discard JK")
        assert m.last_hand is not None
        assert m.last_hand.points == [0, 100]


class TestPairs:
    """S40-11.5: in pairs the line's hand score is the sum of its players; the closing line
    scores 0."""

    def test_line_scores(self) -> None:
        """S40-11.5: seat 0 closes: line 0 scores 0 though seat 2 holds KH QH; line 1 scores
        5 + 100 = 105, reaches 101 and is out: the match ends (S40-12.1)."""
        m = closing(["7C", "5H", "KH QH", "2S 3S"], [True, True, False], Options(pairs=True))
        m.play("discard 7C")
        hand = m.last_hand
        assert hand is not None
        assert hand.points == [0, 5, 20, 100]
        assert hand.side_points == [0, 105]
        assert m.totals == [0, 105]
        assert hand.eliminated == [1, 3]
        result = m.result
        assert result is not None
        assert result.reason == "points"
        assert result.winners == [0, 2]
        assert result.mp == [105, -105, 105, -105]
        assert result.vp == [20, 0, 20, 0]
        assert result.ranking == [0, 2, 1, 3]


class TestMatchPoints:
    """S40-13.1: MP(i) = sum over the other players j of (points(j) - points(i))."""

    def test_two_players_seed_example(self) -> None:
        """S40-13.1 (seed 000): A 0 and B 70: A +70, B -70."""
        assert match_points([0, 70]) == [70, -70]

    def test_three_players_zero_sum(self) -> None:
        """S40-13.1 Decision: pairwise settlements, zero-sum."""
        assert match_points([10, 20, 30]) == [30, 0, -30]
        assert match_points([0, 101, 55]) == [156, -147, -9]
        assert sum(match_points([7, 99, 140, 3])) == 0

    def test_equal_totals(self) -> None:
        """S40-13.1: nobody gains from equal totals."""
        assert match_points([40, 40, 40]) == [0, 0, 0]

    def test_match_end_mp_and_vp(self) -> None:
        """S40-13.1-2: at the end MP from the totals, VP win 20, loss 0."""
        m = closing(["7C", "5H KC"], [True])
        m.totals = [20, 90]
        m.play("discard 7C")
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("points", [0])
        assert result.totals == [20, 105]
        assert result.mp == [85, -85]
        assert result.vp == [20, 0]
        assert m.to_play is None
        assert m.is_over


class TestAbandon:
    """S40-14.1-2: abandoning loses the match (two sides) or leaves it (three or more)."""

    def test_difference_formula(self) -> None:
        """S40-14.1: D = max(0, L + h + 50 - O)."""
        assert abandon_difference(30, 21, 10) == 91
        assert abandon_difference(0, 5, 100) == 0
        assert abandon_difference(0, 0, 50) == 0
        assert abandon_difference(0, 1, 50) == 1

    def test_two_players(self) -> None:
        """S40-14.1: L 30, h = 2S 9H KD = 21, O 10: D = 91; MP -91/+91, VP 0/20."""
        m = closing(["2S 9H KD", "AD 2D 3D"], [True])
        m.totals = [30, 10]
        assert str(m.play("abandon")) == "abandon"
        result = m.result
        assert result is not None
        assert (result.reason, result.winners, result.abandoned) == ("abandon", [1], [0])
        assert result.mp == [-91, 91]
        assert result.vp == [0, 20]
        assert m.status == ["abandoned", "in"]
        assert m.to_play is None

    def test_two_players_in_the_losers_favour(self) -> None:
        """S40-14.1: L 0, h 6, O 90: 0 + 6 + 50 - 90 < 0, so D = 0."""
        m = closing(["2S", "AD 2D 3D"], [True])
        m.totals = [90, 0]
        m.play("abandon", seat=1)
        result = m.result
        assert result is not None
        assert result.winners == [0]
        assert result.mp == [0, 0]
        assert result.vp == [20, 0]

    def test_any_seat_any_time(self) -> None:
        """The match log: ``abandon`` may be played by any seat, not only the one to play."""
        m = closing(["2S 9H KD", "AD 2D 3D"], [True])
        m.play("abandon", seat=1)
        assert m.result is not None
        assert m.result.winners == [0]
        assert m.result.mp == [6 + 50, -(6 + 50)]

    def test_pairs_line_loses(self) -> None:
        """S40-14.1: in pairs the line loses and the match ends."""
        m = closing(["2S", "5H", "KH QH", "2C 3C"], [True, True, True], Options(pairs=True))
        m.totals = [10, 40]
        m.play("abandon", seat=2)
        result = m.result
        assert result is not None
        assert result.winners == [1, 3]
        difference = 10 + 20 + 50 - 40
        assert result.mp == [-difference, difference, -difference, difference]
        assert result.vp == [0, 20, 0, 20]

    def test_three_players_the_match_goes_on(self) -> None:
        """S40-14.2: the abandoning player is out with L + h + 50, at least the limit (66 is
        raised to 101); hand aside, melds stay."""
        m = position(
            ["2S 9H KD", "AD 2D 3D", "5C 6C"],
            melds=[(1, "7H 8H 9H")],
            opened=[True, True, False],
            turns_done=[1, 1, 1],
            stock_top="7S",
        )
        m.totals = [30, 10, 5]
        m.play("abandon", seat=1)
        assert m.status == ["in", "abandoned", "in"]
        assert m.totals == [30, 101, 5]
        assert faces(m.aside) == ["AD", "2D", "3D"]
        assert m.hands[1] == []
        assert [x.text() for x in m.melds] == ["7H 8H 9H"]
        assert m.result is None
        assert (m.to_play, m.phase) == (0, "draw")
        m.play("draw")
        m.play("discard 7S")
        assert m.to_play == 2  # seat 1 is skipped

    def test_three_players_abandon_on_turn(self) -> None:
        """S40-14.2, S40-12.0: when the seat to play abandons, the next seat in plays."""
        m = position(["2S 9H KD", "AD 2D 3D", "5C 6C"], turns_done=[1, 1, 1], phase="play")
        m.play("abandon")
        assert (m.to_play, m.phase) == (1, "draw")
        assert m.status == ["abandoned", "in", "in"]

    def test_last_two_of_three(self) -> None:
        """S40-14.2: when only one player is left, the match ends with that player winning."""
        m = position(["2S 9H KD", "AD 2D 3D", "5C 6C"], turns_done=[1, 1, 1])
        m.totals = [30, 10, 5]
        m.play("abandon", seat=1)
        m.play("abandon", seat=0)
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("abandon", [2])
        assert result.totals == [30 + 21 + 50, 101, 5]
        assert result.mp == match_points([101, 101, 5]) == [-96, -96, 192]
        assert result.vp == [0, 0, 20]

    def test_over_the_limit_keeps_its_total(self) -> None:
        """S40-14.2: L + h + 50 above the limit stays as it is (80 + 6 + 50 = 136)."""
        m = position(["2S 9H KD", "AD 2D 3D", "5C 6C"], turns_done=[1, 1, 1])
        m.totals = [30, 80, 5]
        m.play("abandon", seat=1)
        assert m.totals == [30, 136, 5]

    def test_the_winner_never_pays_an_early_abandonment(self) -> None:
        """S40-13.1, S40-14.2: seat 0 leaves (0 + 2 + 50, raised to 101), seat 2 closes and
        seat 1 reaches 101: seat 2 wins with 95. Had the abandonment counted 52, the winner
        would have paid seat 0 and ended with negative MP."""
        m = position(
            ["2S", "AD", "5C"],
            opened=[True, True, True],
            turns_done=[1, 1, 1],
            to_play=2,
            phase="play",
        )
        m.totals = [0, 100, 95]
        m.play("abandon", seat=0)
        assert m.totals == [101, 100, 95]
        m.play("discard 5C")
        result = m.result
        assert result is not None
        assert (result.reason, result.winners, result.totals) == ("points", [2], [101, 101, 95])
        assert result.mp == [-6, -6, 12]
        assert result.ranking == [2, 1, 0]

    def test_abandoned_seat_cannot_act(self) -> None:
        """S40-14.2: an abandoned seat is no longer in the match."""
        m = position(["2S 9H KD", "AD 2D 3D", "5C 6C"], turns_done=[1, 1, 1])
        m.play("abandon", seat=1)
        rejected(m, "abandon", "not-in-match", seat=1)


class TestTimeout:
    """S40-14.3: ``timeout_policy`` ``autoplay`` (default) or ``forfeit``."""

    def test_no_timer_no_timeout(self) -> None:
        """S40-14.3: ``turn_seconds`` 0 is no timer, so no turn can time out."""
        m = position(["2S 9H KD", "AD 2D 3D"], options=Options(turn_seconds=0))
        rejected(m, "timeout", "no-timer")

    def test_autoplay_draws_and_discards_the_drawn_card(self) -> None:
        """S40-14.3: draw from the stock, then discard the drawn card if legal."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock_top="7H"
        )
        assert str(m.play("timeout")) == "timeout"
        assert hand_text(m, 0) == "2S 9H KD"
        assert faces(m.discard) == ["7H"]
        assert m.history == [(0, "timeout"), (0, "draw"), (0, "discard 7H")]
        assert m.autoplays == [1, 0]
        assert (m.to_play, m.phase) == (1, "draw")

    def test_autoplay_when_the_drawn_card_is_not_discardable(self) -> None:
        """S40-14.3: otherwise the first legal discard (in hand order): 7S is attachable for
        a player who is not open, so 2S goes."""
        m = position(
            ["9H 2S KD", "AD 2D 3D"],
            melds=[(1, "4S 5S 6S")],
            opened=[False, True],
            turns_done=[1, 1],
            stock_top="7S",
        )
        m.play("timeout")
        assert faces(m.discard) == ["2S"]
        assert hand_text(m, 0) == "7S 9H KD"

    def test_autoplay_after_the_draw(self) -> None:
        """S40-14.3: a player who drew already just discards (the first legal discard)."""
        m = position(["9H 2S KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], phase="play")
        m.play("timeout")
        assert faces(m.discard) == ["2S"]
        assert m.to_play == 1

    def test_third_consecutive_timeout_abandons(self) -> None:
        """S40-14.3: a third consecutive autoplay of the same player counts as abandonment."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"],
            opened=[True, True],
            turns_done=[1, 1],
            stock_top="7H 8C 4S 5C",
        )
        m.play("timeout")
        m.play("draw")
        m.play("discard AD")
        m.play("timeout")
        assert m.autoplays == [2, 0]
        m.play("draw")
        m.play("discard 8C")
        m.play("timeout")
        result = m.result
        assert result is not None
        assert (result.reason, result.winners, result.abandoned) == ("abandon", [1], [0])
        assert result.vp == [0, 20]
        difference = abandon_difference(0, hand_penalty(ids("2S 9H KD")), 0)
        assert result.mp == [-difference, difference]

    def test_own_discard_resets_the_count(self) -> None:
        """S40-14.3: only *consecutive* autoplays count."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock_top="7H 8C 4S"
        )
        m.play("timeout")
        m.play("draw")
        m.play("discard AD")
        m.play("draw")
        m.play("discard 2S")
        assert m.autoplays == [0, 0]

    def test_refused_discard_keeps_the_count(self) -> None:
        """S40-14.3 (only *consecutive* autoplays) and the engine's contract that a refused
        action changes nothing: a discard refused as ``card-not-in-hand`` is no move of the
        player's and must not reset the autoplay count."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock_top="7H 8C 4S"
        )
        m.play("timeout")
        m.play("draw")
        m.play("discard AD")
        m.play("draw")
        assert m.autoplays == [1, 0]
        rejected(m, "discard 5C", "card-not-in-hand")
        assert m.autoplays == [1, 0]

    def test_timeout_only_for_the_seat_to_play(self) -> None:
        """S40-14.3: the timer is the turn's."""
        m = position(["2S 9H KD", "AD 2D 3D"], turns_done=[1, 1])
        rejected(m, "timeout", "not-your-turn", seat=1)

    def test_forfeit(self) -> None:
        """S40-14.3 ``forfeit`` (seed 000): the first expiry is an abandonment."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"],
            opened=[True, True],
            turns_done=[1, 1],
            options=Options(timeout_policy="forfeit"),
        )
        m.totals = [10, 0]
        m.play("timeout")
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("abandon", [1])
        assert result.mp == [-(10 + 21 + 50), 10 + 21 + 50]

    def test_forfeit_three_players(self) -> None:
        """S40-14.2-3: with three players the forfeiting seat leaves, the others go on."""
        m = position(
            ["2S 9H KD", "AD 2D 3D", "5C"],
            turns_done=[1, 1, 1],
            options=Options(timeout_policy="forfeit"),
        )
        m.play("timeout")
        assert m.status == ["abandoned", "in", "in"]
        assert m.totals == [101, 0, 0]  # 21 + 50, raised to the limit
        assert (m.to_play, m.phase) == (1, "draw")
