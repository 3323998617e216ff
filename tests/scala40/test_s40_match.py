"""The match: dealing (docs/rules.md S40-2), stock exhaustion and stalls (S40-10), match formats,
elimination, rientro (S40-12) and the actions outside the turn (the match log)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import IllegalAction
from engine.cards import scala40_deck, seeded_choice, seeded_shuffle
from engine.scala40 import Match, Options, match_points, new_match
from testkit.s40_helpers import arrange, check_cards, faces, legal, position, rejected


def close_now(m: Match, closer: int, hands: Sequence[str]) -> None:
    """Seat ``closer`` (holding just 7C) closes the current hand of ``m``; everybody is open.

    ``hands`` gives every seat's cards (the closer's entry is ignored; seats out: "").
    """
    cards = [("7C" if seat == closer else text) for seat, text in enumerate(hands)]
    arrange(
        m,
        cards,
        opened=[True] * m.players,
        turns_done=[1] * m.players,
        to_play=closer,
        phase="play",
    )
    m.play("discard 7C")


class TestDeal:
    """S40-2: the dealer, the cut and the deal; S40-3: the first player."""

    @pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
    def test_13_each_and_one_face_up(self, players: int) -> None:
        """S40-2.3: 13 cards each, one face up, the rest is the stock."""
        m = new_match(players=players, seed=3)
        assert [len(h) for h in m.hands] == [13] * players
        assert len(m.discard) == 1
        assert len(m.stock) == 108 - 13 * players - 1
        check_cards(m)
        assert m.hand_number == 1
        assert m.phase == "draw"

    @pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
    def test_first_player_left_of_dealer(self, seed: int) -> None:
        """S40-2.1, S40-3: the first dealer is drawn from the seed; the player on the
        dealer's left (dealer + 1) plays first."""
        m = new_match(players=5, seed=seed)
        assert m.dealer == seeded_choice(5, seed, "dealer")
        assert m.to_play == (m.dealer + 1) % 5
        assert m.turns_done == [0] * 5

    def test_deal_order_after_a_manual_cut(self) -> None:
        """S40-2.2-3: the player on the dealer's right cuts; then one card at a time,
        clockwise from the dealer's left; the next card face up; the rest is the stock."""
        m = new_match(players=4, seed=11, options=Options(manual_cut=True))
        assert (m.phase, m.dealer, m.to_play) == ("cut", 3, 2)
        assert legal(m) == ["cut top", "cut middle", "cut bottom"]
        assert m.hands == [[], [], [], []]
        deck = seeded_shuffle(scala40_deck(), 11, "hand:1")  # top card first
        m.play("cut top")
        cut = deck[18:] + deck[:18]  # the top third's middle: 108 * 1 // 6 = 18
        expected: list[list[int]] = [[], [], [], []]
        for k in range(52):
            expected[(m.dealer + 1 + k) % 4].append(cut[k])
        assert m.hands == expected
        assert m.discard == [cut[52]]
        assert m.stock[::-1] == cut[53:]
        assert (m.phase, m.to_play) == ("draw", 0)

    @pytest.mark.parametrize(("choice", "point"), [("middle", 54), ("bottom", 90)])
    def test_cut_points(self, choice: str, point: int) -> None:
        """S40-2.2: the cut point is the middle of the chosen third."""
        m = new_match(players=2, seed=11, options=Options(manual_cut=True))
        deck = seeded_shuffle(scala40_deck(), 11, "hand:1")
        m.play("cut " + choice)
        cut = deck[point:] + deck[:point]
        first = (m.dealer + 1) % 2
        assert m.hands[first] == cut[0:26:2]
        assert m.hands[1 - first] == cut[1:26:2]

    def test_cut_only_when_due(self) -> None:
        """S40-2.2: ``cut`` is an answer to the cut prompt, not a turn action."""
        m = new_match(players=2, seed=11)
        rejected(m, "cut top", "not-cut-phase")

    def test_timeout_at_the_cut(self) -> None:
        """S40-14.3: a cut left to the timer is the middle cut."""
        a = new_match(players=3, seed=5, options=Options(manual_cut=True))
        b = new_match(players=3, seed=5, options=Options(manual_cut=True))
        a.play("timeout")
        b.play("cut middle")
        assert a.to_json() == b.to_json()

    def test_automatic_cut_is_seeded(self) -> None:
        """S40-2.2: without ``manual_cut`` the cut is automatic and derived from the seed."""
        deck = seeded_shuffle(scala40_deck(), 9, "hand:1")
        m = new_match(players=2, seed=9)
        point = 1 + seeded_choice(107, 9, "cut:1:0")
        cut = deck[point:] + deck[:point]
        first = (m.dealer + 1) % 2
        assert m.hands[first] == cut[0:26:2]
        assert m.discard == [cut[26]]

    def test_dealer_moves_left(self) -> None:
        """S40-2.1: after every hand the dealer moves one seat to the left."""
        m = new_match(players=3, seed=4)
        dealer = m.dealer
        close_now(m, 0, ["", "2C", "3C"])
        assert m.hand_number == 2
        assert m.dealer == (dealer + 1) % 3
        assert m.to_play == (dealer + 2) % 3
        assert [len(h) for h in m.hands] == [13, 13, 13]
        assert m.melds == []
        assert m.opened == [False] * 3
        check_cards(m)

    def test_play_goes_clockwise(self) -> None:
        """S40-3: after the discard, the player on the left plays."""
        m = new_match(players=3, seed=4)
        seat = m.to_play
        assert seat is not None
        for step in range(1, 4):
            m.play("draw")
            m.play(legal(m)[-1])
            assert m.to_play == (seat + step) % 3


def exhaust(m: Match) -> None:
    """Seat 0 draws the last card of the stock (7H) and discards it."""
    m.play("draw")
    m.play("discard 7H")


class TestStock:
    """S40-10.1: when the stock is empty at the end of a turn, the discard pile except its top
    card is shuffled into a new stock."""

    def test_rebuilt_from_the_discards(self) -> None:
        """S40-10.1: the top card (the last discard) stays; the rest becomes the stock."""
        m = position(["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock="7H")
        under = sorted(m.discard)
        exhaust(m)
        assert faces(m.discard) == ["7H"]
        assert sorted(m.stock) == under
        assert len(m.stock) == 101
        assert m.restocks == 1
        assert (m.to_play, m.phase) == (1, "draw")
        check_cards(m)

    def test_rebuild_is_seeded(self) -> None:
        """S40-10.1, S40-2.2: the new stock is a seeded shuffle of the old pile, then cut."""
        a = position(["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock="7H")
        b = Match.from_json(a.to_json())
        exhaust(a)
        exhaust(b)
        assert a.stock == b.stock
        assert a.stock != sorted(a.stock)

    def test_manual_cut_of_the_new_stock(self) -> None:
        """S40-10.1: the player to the dealer's left cuts the rebuilt stock."""
        m = position(
            ["2S 9H KD", "AD 2D 3D", "5C"],
            opened=[True, True, True],
            turns_done=[1, 1, 1],
            stock="7H",
            options=Options(manual_cut=True),
            dealer=1,
        )
        exhaust(m)
        assert (m.phase, m.to_play) == ("cut", 2)
        m.play("cut bottom")
        assert (m.phase, m.to_play) == ("draw", 1)
        assert len(m.stock) == 108 - 3 - 3 - 1 - 1

    def test_abandon_during_the_restock_cut(self) -> None:
        """S40-12.0, S40-14.2: abandoned seats are skipped for turns. Seat 0 empties the stock;
        seat 1 (next to play) abandons while seat 0 (dealer's left) cuts the new stock: after
        the cut the turn goes to seat 2, not to the abandoned seat 1."""
        m = position(
            ["2S 9H KD", "AD 2D 3D", "5C 6C"],
            opened=[True, True, True],
            turns_done=[1, 1, 1],
            stock="7H",
            options=Options(manual_cut=True),
            dealer=2,
        )
        exhaust(m)
        assert (m.phase, m.to_play) == ("cut", 0)
        m.play("abandon", seat=1)
        assert m.status == ["in", "abandoned", "in"]
        m.play("cut top")
        assert (m.phase, m.to_play) == ("draw", 2)


class TestStall:
    """S40-10.2: the hand is annulled when the stock would be rebuilt a fourth time
    (``max_restocks``), or when fewer than 2 cards lie under the top of the discard pile."""

    def test_fourth_rebuild_annuls(self) -> None:
        """S40-10.2: after 3 rebuilds the next exhaustion annuls the hand, with no points."""
        m = position(["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock="7H")
        m.restocks = 3
        m.totals = [10, 20]
        dealer = m.dealer
        exhaust(m)
        hand = m.last_hand
        assert hand is not None
        assert (hand.hand_number, hand.annulled, hand.closer) == (1, True, None)
        assert hand.side_points == [0, 0]
        assert m.totals == [10, 20]
        assert m.hand_number == 2
        assert m.restocks == 0
        assert m.dealer == 1 - dealer
        assert [len(h) for h in m.hands] == [13, 13]
        check_cards(m)

    def test_third_rebuild_is_allowed(self) -> None:
        """S40-10.2: the third rebuild still happens."""
        m = position(["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock="7H")
        m.restocks = 2
        exhaust(m)
        assert m.restocks == 3
        assert m.hand_number == 1

    def test_max_restocks_option(self) -> None:
        """S40-10.2 Option ``max_restocks`` 0: the first exhaustion annuls."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"],
            opened=[True, True],
            turns_done=[1, 1],
            stock="7H",
            options=Options(max_restocks=0),
        )
        exhaust(m)
        assert m.last_hand is not None
        assert m.last_hand.annulled

    @pytest.mark.parametrize(("under", "annulled"), [(1, True), (2, False)])
    def test_too_few_discards(self, under: int, annulled: bool) -> None:
        """S40-10.2: fewer than 2 cards under the top card: annulled; 2 are enough."""
        m = position(["2S 9H KD", "AD 2D 3D"], opened=[True, True], turns_done=[1, 1], stock="7H")
        keep = under  # cards under the discard that 7H will cover
        m.aside, m.discard = m.discard[:-keep], m.discard[-keep:]
        exhaust(m)
        assert (m.last_hand is not None and m.last_hand.annulled) is annulled
        assert m.hand_number == (2 if annulled else 1)

    def test_annulled_hand_moves_the_deal(self) -> None:
        """S40-2.1: annulled hands included, the dealer moves one seat to the left."""
        m = position(
            ["2S", "AD", "5C"], opened=[True] * 3, turns_done=[1] * 3, stock="7H", dealer=2
        )
        m.restocks = 3
        m.play("draw")
        m.play("discard 7H")
        assert m.dealer == 0
        assert m.to_play == 1


class TestPointsFormat:
    """S40-12.1: scores accumulate; reaching or passing the limit eliminates; the last player
    (or line) in wins."""

    def test_elimination_and_skipping(self) -> None:
        """S40-12.1, S40-12.0: seat 1 reaches 106 and is out; the next deal skips it."""
        m = position(["7C", "5H 6H", "2C"], turns_done=[1, 1, 1])
        m.totals = [0, 95, 50]
        close_now(m, 0, ["", "5H 6H", "2C"])
        assert m.totals == [0, 106, 52]
        assert m.status == ["in", "out", "in"]
        assert m.last_hand is not None
        assert m.last_hand.eliminated == [1]
        assert m.result is None
        assert [len(h) for h in m.hands] == [13, 0, 13]
        assert m.dealer == 0
        assert m.to_play == 2
        check_cards(m)
        close_now(m, 0, ["", "", "KH KS KD QS QH QD"])
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("points", [0])
        assert m.outcome is not None and m.outcome.reason == "finished"
        assert result.totals == [0, 106, 112]
        assert result.mp == match_points([0, 106, 112])
        assert result.vp == [20, 0, 0]
        assert result.ranking == [0, 2, 1]
        assert m.to_play is None

    def test_deal_skips_an_eliminated_seat(self) -> None:
        """S40-12.0: the deal passes to the next seat still in (seat 1 is out: 0 -> 2)."""
        m = position(["7C", "5H 6H", "2C"], turns_done=[1, 1, 1], dealer=0)
        m.totals = [0, 95, 50]
        close_now(m, 0, ["", "5H 6H", "2C"])
        assert m.status == ["in", "out", "in"]
        assert m.dealer == 2
        assert m.to_play == 0

    def test_exactly_the_limit(self) -> None:
        """S40-12.1: "reaching or passing": 101 is out."""
        m = position(["7C", "5H"], turns_done=[1, 1])
        m.totals = [0, 96]
        close_now(m, 0, ["", "5H"])
        assert m.status == ["in", "out"]
        assert m.result is not None

    def test_below_the_limit(self) -> None:
        """S40-12.1: 100 is still in."""
        m = position(["7C", "5H"], turns_done=[1, 1])
        m.totals = [0, 95]
        close_now(m, 0, ["", "5H"])
        assert m.status == ["in", "in"]
        assert m.result is None

    def test_limit_option(self) -> None:
        """S40-12.1 Option ``limit`` 151."""
        m = position(["7C", "5H"], turns_done=[1, 1], options=Options(limit=151))
        m.totals = [0, 140]
        close_now(m, 0, ["", "5H"])
        assert m.result is None
        close_now(m, 0, ["", "6H"])
        assert m.result is not None
        assert m.result.totals == [0, 151]

    def test_match_over(self) -> None:
        """After the end nothing more is played."""
        m = position(["7C", "5H"], turns_done=[1, 1])
        m.totals = [0, 100]
        close_now(m, 0, ["", "5H"])
        assert m.legal_actions() == []
        with pytest.raises(IllegalAction) as caught:
            m.play("draw")
        assert caught.value.code == "match-over"


class TestHandsFormat:
    """S40-12.2: a fixed number of hands; most hands closed wins; the match stops as soon as
    nobody can catch up; a tie goes to the lowest total."""

    def test_two_of_three(self) -> None:
        """S40-12.2 ("2 su 3"): two closes of three decide the match."""
        m = position(["7C", "5H"], turns_done=[1, 1], options=Options(format="hands"))
        close_now(m, 0, ["", "5H"])
        assert m.result is None
        assert m.hands_won == [1, 0]
        close_now(m, 0, ["", "KH KS KD QS QH QD 2C 3C 4C 9D 9S"])
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("hands", [0])
        assert m.counted_hands == 2
        assert result.totals == [0, 5 + 87]
        assert result.vp == [20, 0]
        assert result.mp == [92, -92]

    def test_the_winner_gets_the_losers_total(self) -> None:
        """S40-13.1, seed 000 ("Partite e smazzate"): the MP are the losing line's total, also
        when the winner's own total is higher: [100, 19] after two hands of seat 0 give
        +19 / -19, never a loss of MP for the winner."""
        m = position(["7C", "5H"], turns_done=[1, 1], options=Options(format="hands"))
        m.totals = [100, 5]
        close_now(m, 0, ["", "5H"])
        close_now(m, 0, ["", "9H"])
        result = m.result
        assert result is not None
        assert (result.winners, result.totals) == ([0], [100, 19])
        assert result.mp == [19, -19]
        assert result.vp == [20, 0]

    def test_no_elimination(self) -> None:
        """S40-12.2: points accumulate but nobody is eliminated at a limit."""
        m = position(["7C", "5H"], turns_done=[1, 1], options=Options(format="hands"))
        m.totals = [0, 300]
        close_now(m, 1, ["5H", ""])
        assert m.status == ["in", "in"]
        assert m.result is None

    def test_annulled_hands_do_not_count(self) -> None:
        """S40-12.2: annulled hands do not count."""
        m = position(
            ["2S 9H KD", "AD 2D 3D"],
            opened=[True, True],
            turns_done=[1, 1],
            stock="7H",
            options=Options(format="hands", hands=1),
        )
        m.restocks = 3
        exhaust(m)
        assert m.counted_hands == 0
        assert m.result is None
        close_now(m, 1, ["5H", ""])
        assert m.result is not None
        assert m.result.winners == [1]

    def test_tie_goes_to_the_lowest_total(self) -> None:
        """S40-12.2 Decision: one hand each: the lowest total wins (seat 1 with 4)."""
        m = position(["7C", "2C", "KH"], turns_done=[1, 1, 1], options=Options(format="hands"))
        close_now(m, 0, ["", "2C", "KH"])
        close_now(m, 1, ["3C", "", "KS"])
        assert m.result is None
        close_now(m, 2, ["4C", "2D", ""])
        result = m.result
        assert result is not None
        assert result.totals == [7, 4, 20]
        assert result.winners == [1]
        assert result.vp == [0, 20, 0]
        # S40-13.1 Decision: each pays its own total to every side ranked above it
        # (seat 0 before seat 2: equal hands won, lower total).
        assert result.ranking == [1, 0, 2]
        assert result.mp == [-7 + 20, 7 + 20, -40]

    def test_full_tie_is_a_draw(self) -> None:
        """S40-12.2, S40-13.2: same hands won and same total: a draw, 10 VP each."""
        m = position(["7C", "2C", "KH"], turns_done=[1, 1, 1], options=Options(format="hands"))
        close_now(m, 0, ["", "2C", "KH"])
        close_now(m, 1, ["3C", "", "KS"])
        close_now(m, 2, ["4C", "5D", ""])
        result = m.result
        assert result is not None
        assert result.totals == [7, 7, 20]
        assert result.winners == [0, 1]
        assert result.vp == [10, 10, 0]
        assert result.mp == [20, 20, -40]  # the drawn winners settle nothing between them


class TestRace:
    """S40-12.3: pairs; the line that closes a hand earns a hand win; first to 3 wins;
    Option ``match_minutes``: when the clock runs out, more hand wins, then fewer points in
    hand."""

    RACE = Options(pairs=True, format="race")

    def test_first_line_to_three(self) -> None:
        """S40-12.3: line 0+2 closes three hands (seats 0, 2, 0) and wins."""
        m = position(["7C", "5H", "2C", "3C"], turns_done=[1] * 4, options=self.RACE)
        close_now(m, 0, ["", "5H", "2C", "3C"])
        close_now(m, 1, ["4S", "", "2C", "3C"])
        close_now(m, 2, ["4S", "5H", "", "3C"])
        assert m.hands_won == [2, 1]
        assert m.result is None
        close_now(m, 0, ["", "KH", "2C", "3C"])
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("race", [0, 2])
        assert result.vp == [20, 0, 20, 0]
        assert result.totals == [6, 29]
        assert result.mp == [29, -29, 29, -29]  # the losing line's total (S40-13.1)

    def test_points_do_not_eliminate(self) -> None:
        """S40-12.3: the race is decided by hand wins only."""
        m = position(["7C", "5H", "2C", "3C"], turns_done=[1] * 4, options=self.RACE)
        m.totals = [0, 500]
        close_now(m, 0, ["", "5H", "2C", "3C"])
        assert m.status == ["in"] * 4
        assert m.result is None

    def clock_match(self) -> Match:
        m = position(
            ["KH QH", "5H", "2C", "3C"],
            turns_done=[1] * 4,
            options=Options(pairs=True, format="race", match_minutes=30),
        )
        m.hands_won = [1, 1]
        return m

    def test_clock_tie_on_hand_wins(self) -> None:
        """S40-12.3: on equal hand wins, the line with fewer points in hand wins (5 + 3 = 8
        against 20 + 2 = 22)."""
        m = self.clock_match()
        assert str(m.play("clock", seat=3)) == "clock"
        result = m.result
        assert result is not None
        assert (result.reason, result.winners) == ("clock", [1, 3])
        assert m.outcome is not None and m.outcome.reason == "timed out"

    def test_clock_more_hand_wins(self) -> None:
        """S40-12.3: more hand wins wins, whatever the cards."""
        m = self.clock_match()
        m.hands_won = [2, 1]
        m.play("clock", seat=1)
        assert m.result is not None
        assert m.result.winners == [0, 2]

    def test_clock_waits_for_the_turn(self) -> None:
        """S40-12.3: the current turn is finished first."""
        m = self.clock_match()
        m.play("draw")
        m.play("clock", seat=2)
        assert m.result is None
        assert m.to_play == 0
        m.play("discard KH")
        result = m.result
        assert result is not None
        assert result.reason == "clock"

    def test_a_close_in_the_last_turn_counts(self) -> None:
        """S40-12.3: the clock runs out while seat 0 plays the turn that closes: the close
        counts (2-1 to line 0+2) and the match ends right after that discard, no hand dealt."""
        m = position(
            ["KH", "5H", "2C", "3C"],
            turns_done=[1] * 4,
            phase="play",
            options=Options(pairs=True, format="race", match_minutes=30),
        )
        m.hands_won = [1, 1]
        m.play("clock", seat=2)
        assert m.result is None
        m.play("discard KH")
        result = m.result
        assert result is not None
        assert (result.reason, result.winners, m.hands_won) == ("clock", [0, 2], [2, 1])
        assert m.hand_number == 1 and m.last_hand is not None and m.last_hand.closer == 0

    def test_the_end_when_no_person_is_left(self) -> None:
        """S40-14.5: the person of seat 0 abandons a match of three against computers; the
        match ends at once, decided as by the clock among seats 1 and 2 (the fewest points in
        hand: 5 against 2 + 4), seat 0 keeping its loss."""
        m = position(["KH QH", "5H", "2C 4C"], turns_done=[1] * 3)
        m.play("abandon", seat=0)
        assert m.result is None
        assert str(m.play("end", seat=0)) == "end"
        result = m.result
        assert result is not None
        assert (result.reason, result.winners, result.abandoned) == ("abandon", [1], [0])
        assert result.vp == [0, 20, 0]
        rejected(m, "end", "match-over", seat=1)

    def test_no_clock(self) -> None:
        """S40-12.3: ``match_minutes`` 0 is no clock."""
        m = position(["7C", "5H", "2C", "3C"], turns_done=[1] * 4, options=self.RACE)
        rejected(m, "clock", "no-clock")


class TestRientro:
    """S40-12.4 Option ``rientro``: before the next deal an eliminated player may re-enter,
    once, while at least two others are in, taking the highest score still in."""

    def eliminated(self) -> Match:
        m = position(["7C", "5H 6H", "2C", "3C"], turns_done=[1] * 4, options=Options(rientro=True))
        m.totals = [0, 95, 50, 30]
        close_now(m, 0, ["", "5H 6H", "2C", "3C"])
        return m

    def test_offer(self) -> None:
        """S40-12.4: the eliminated seat is asked before the deal."""
        m = self.eliminated()
        assert m.status == ["in", "out", "in", "in"]
        assert (m.phase, m.to_play) == ("rientro", 1)
        assert legal(m) == ["rientro yes", "rientro no"]
        assert m.hand_number == 1
        rejected(m, "rientro yes", "not-your-turn", seat=0)

    def test_yes(self) -> None:
        """S40-12.4: re-entering with the highest score still in (52); dealt in again."""
        m = self.eliminated()
        m.play("rientro yes")
        assert m.status == ["in"] * 4
        assert m.totals == [0, 52, 52, 33]
        assert m.rientro_used == [False, True, False, False]
        assert m.hand_number == 2
        assert [len(h) for h in m.hands] == [13] * 4
        assert m.phase == "draw"

    def test_no(self) -> None:
        """S40-12.4: declining leaves the seat out."""
        m = self.eliminated()
        m.play("rientro no")
        assert m.status == ["in", "out", "in", "in"]
        assert m.totals == [0, 106, 52, 33]
        assert [len(h) for h in m.hands] == [13, 0, 13, 13]

    def test_only_once(self) -> None:
        """S40-12.4: once: a second elimination is final."""
        m = self.eliminated()
        m.play("rientro yes")
        close_now(m, 0, ["", "KH KS KD QS QH QD", "2C", "3C"])
        assert m.status == ["in", "out", "in", "in"]
        assert m.phase == "draw"

    def test_timeout_declines(self) -> None:
        """S40-14.3: an unanswered offer is declined."""
        m = self.eliminated()
        m.play("timeout")
        assert m.status == ["in", "out", "in", "in"]
        assert m.phase == "draw"

    def test_not_without_the_option(self) -> None:
        """S40-12.4: default off."""
        m = position(["7C", "5H 6H", "2C", "3C"], turns_done=[1] * 4)
        m.totals = [0, 95, 50, 30]
        close_now(m, 0, ["", "5H 6H", "2C", "3C"])
        assert m.phase == "draw"
        assert m.status[1] == "out"


class TestStop:
    """S40-13.3, S40-14.4: ``stop`` ends a match that counts for nobody."""

    def test_stop(self) -> None:
        """S40-13.3: no winners, no MP, no VP."""
        m = new_match(players=3, seed=2)
        m.totals = [10, 20, 30]
        assert str(m.play("stop", seat=1)) == "stop"
        result = m.result
        assert result is not None
        assert result.stopped
        assert (result.reason, result.winners) == ("stopped", [])
        assert (result.mp, result.vp) == ([0, 0, 0], [0, 0, 0])
        assert m.to_play is None
        assert m.is_over
        with pytest.raises(IllegalAction) as caught:
            m.play("stop", seat=0)
        assert caught.value.code == "match-over"
