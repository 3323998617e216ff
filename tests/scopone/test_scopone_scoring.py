"""Hand scoring by category: docs/rules.md SC-4.1 .. SC-4.5 (and SC-3.6 leftover in HandScore)."""

from __future__ import annotations

import pytest

from engine.scopone import CATEGORIES, HandScore, primiera, primiera_value, score_hand
from engine.scopone.deck import to_cards
from engine.scopone.scoring import hand_points, strict_leader


def points(
    *piles: str, scope: tuple[int, ...] | None = None, all_suits: bool = False
) -> list[tuple[int, ...]]:
    """Each side's points by category for the given piles."""
    cards = [to_cards(pile) for pile in piles]
    return hand_points(cards, list(scope or (0,) * len(piles)), all_suits)


class TestPrimiera:
    """SC-4.3: the best card of each suit by primiera value, summed."""

    def test_seed_example_81_beats_75(self) -> None:
        assert primiera("7H 7C 7D 6S") == 81
        assert primiera("7S 6H 6C 6D") == 75

    @pytest.mark.parametrize(
        ("rank", "value"),
        [
            ("7", 21),
            ("6", 18),
            ("A", 16),
            ("5", 15),
            ("4", 14),
            ("3", 13),
            ("2", 12),
            ("J", 10),
            ("Q", 10),
            ("K", 10),
        ],
    )
    def test_card_values(self, rank: str, value: int) -> None:
        assert primiera_value(to_cards(rank + "S")[0]) == value

    def test_only_the_best_card_of_each_suit_counts(self) -> None:
        assert primiera("7S 6S AS KH 2H") == 21 + 12

    def test_missing_suit_adds_zero(self) -> None:
        # SC-4.3 Decision (seed literal): a suit a side did not capture adds 0
        assert primiera("7D") == 21
        assert primiera("") == 0

    def test_seed_example_in_a_hand(self) -> None:
        # SC-4.3: 81 against 75; four cards each and one denaro each: carte and denari tie
        assert points("7H 7C 7D 6S", "7S 6H 6C 6D") == [(0, 0, 1, 1, 0), (0, 0, 0, 0, 0)]

    def test_seed_tie_scores_nothing(self) -> None:
        # SC-4.3 seed: each side two sevens and the sixes of the other two suits
        assert points("7S 7H 6D 6C", "7D 7C 6S 6H") == [(0, 0, 0, 0, 0), (0, 0, 0, 1, 0)]

    def test_all_suits_option(self) -> None:
        # SC-4.3 Option primiera_all_suits: a side missing a suit cannot win the primiera
        piles = ("7S 7H 7D 6D", "AS AH AC KD")
        assert points(*piles)[0][2] == 1
        assert points(*piles, all_suits=True) == [(0, 1, 0, 1, 0), (0, 0, 1, 0, 0)]

    def test_all_suits_option_both_missing(self) -> None:
        assert points("7S 7H", "AS AD", all_suits=True)[0][2] == 0
        assert points("7S 7H", "AS AD", all_suits=True)[1][2] == 0


class TestCategories:
    """SC-4.1 carte, SC-4.2 denari, SC-4.4 settebello, SC-4.5 scope."""

    def test_carte_most_cards(self) -> None:
        assert points("2S 3S 4S", "2H 3H")[0][0] == 1

    def test_carte_tie(self) -> None:
        assert [row[0] for row in points("2S 3S", "2H 3H")] == [0, 0]

    def test_denari_most(self) -> None:
        assert [row[1] for row in points("2D 3D 4S", "4D 2H 3H 5H")] == [1, 0]

    def test_denari_tie(self) -> None:
        assert [row[1] for row in points("2D 3S", "4D 3H")] == [0, 0]

    def test_settebello(self) -> None:
        assert [row[3] for row in points("2S", "7D")] == [0, 1]

    def test_scope_one_point_each(self) -> None:
        assert [row[4] for row in points("2S", "7S", scope=(3, 1))] == [3, 1]

    def test_category_order(self) -> None:
        assert CATEGORIES == ("carte", "denari", "primiera", "settebello", "scope")


class TestIndividual:
    """SC-4 with Option individual: "most" is strictly more than every other player."""

    def test_strict_leader(self) -> None:
        assert strict_leader([6, 5, 3, 2]) == 0
        assert strict_leader([5, 5, 3, 2]) is None
        assert strict_leader([2, 3, 5, 5]) is None
        assert strict_leader([None, None]) is None

    def test_four_players(self) -> None:
        rows = points("2S 3S 4S", "2H 3H 4H", "7D", "KC", scope=(0, 0, 0, 2))
        assert rows == [
            (0, 0, 0, 0, 0),  # carte tied 3-3 between two players: nobody scores it
            (0, 0, 0, 0, 0),
            (0, 1, 1, 1, 0),  # primiera 21 against 14, 14 and 10
            (0, 0, 0, 0, 2),
        ]


class TestHandScore:
    """SC-4 totals and SC-5.3 breakdown: category points add up to each side's total."""

    def test_totals_and_breakdown(self) -> None:
        score = score_hand(
            3,
            [to_cards("7H 7C 7D 6S 2D"), to_cards("7S 6H 6C 6D")],
            [1, 2],
            last_capturer=2,
            leftover=to_cards("2D"),
        )
        # side 0: carte 5-4, denari 2-1, primiera 81-75, settebello, 1 scopa; side 1: 2 scope
        assert score.totals == (5, 2)
        zero = score.sides[0]
        assert zero.points_by_category() == {
            "carte": 1, "denari": 1, "primiera": 1, "settebello": 1, "scope": 1,
        }  # fmt: skip
        assert (zero.cards, zero.denari, zero.primiera, zero.settebello) == (5, 2, 81, True)
        assert score.to_dict()["sides"][1]["points"]["scope"] == 2
        assert score.to_dict()["leftover"] == ["2D"]

    def test_round_trip(self) -> None:
        score = score_hand(1, [to_cards("7H 2D"), to_cards("KS")], [0, 1], 1, to_cards("KS"))
        assert HandScore.from_dict(score.to_dict()) == score
