"""What a seat may see (``Match.view``; docs/rules.md S40-12.5, S40-15) and the saved match
(``to_json`` / ``from_json``; "The match log")."""

from __future__ import annotations

import json
import random

import pytest

from engine.errors import SnapshotError
from engine.scala40 import Match, Options, new_match
from engine.scala40.hints import fits
from testkit.s40_helpers import legal, position, text


def play_some(m: Match, moves: int, seed: int = 0) -> list[tuple[int, str]]:
    """Play ``moves`` random legal actions; return the log of (seat, applied text)."""
    rng = random.Random(seed)
    log = []
    for _ in range(moves):
        if m.to_play is None:
            break
        seat = m.to_play
        action = rng.choice(m.legal_actions())
        log.append((seat, str(m.play(action))))
    return log


class TestView:
    def test_the_card_just_drawn_or_taken_is_the_player_s_own(self) -> None:
        """The card drawn this turn (or taken from the discard pile), while it is in hand: the
        hand marks it; nobody else sees it."""
        m = position(["4S 4H 4D 3C", "10S JS QS KS"], discard="KD", stock_top="AC", to_play=0)
        assert m.view(0).drawn is None
        m.play("draw")
        assert (m.view(0).drawn, m.view(1).drawn) == ("AC", None)
        m.play("discard AC")
        assert m.view(0).drawn is None

    def test_fits_names_the_melds_a_selection_can_join(self) -> None:
        """S40-6: the attach panel offers the melds the cards fit, a joker to declare too."""
        m = position(
            ["8H JK 2S 5D", "9C 9D 3S 4D"],
            melds=[(0, "9H 10H JH"), (1, "8S 8D 8C")],
            opened=[True, True],
            turns_done=[1, 1],
            phase="play",
        )
        assert [n for n in (1, 2) if fits(m, f"attach {n} 8H", 0)] == [1, 2]
        assert [n for n in (1, 2) if fits(m, f"attach {n} JK", 0)] == [1, 2]
        assert not fits(m, "attach 1 2S", 0)

    """A seat sees its own hand and the public table, never the other hands."""

    def test_own_hand_only(self) -> None:
        """S40-15: each player sees their own cards; others only as hand sizes."""
        m = new_match(players=4, seed=21)
        for seat in range(4):
            view = m.view(seat)
            assert view.seat == seat
            assert " ".join(view.hand) == text(m.hands[seat])
            assert view.partner_hand is None
            assert view.hand_sizes == [13, 13, 13, 13]
            dumped = json.dumps(view.to_dict())
            for other in range(4):
                if other != seat:
                    assert json.dumps(view.hand) != json.dumps(m.view(other).hand)
                    assert json.dumps(m.view(other).hand)[1:-1] not in dumped

    def test_public_fields(self) -> None:
        """S40-15: table, discard top, stock size, scores, turn are public."""
        m = position(
            ["2S 9H", "AD 2D", "5C"],
            melds=[(1, "6H JK 8H"), (2, "9S 9H JK=9D")],
            discard="KC 4S",
            opened=[False, True, True],
            turns_done=[1, 1, 1],
        )
        m.totals = [5, 10, 20]
        view = m.view(2)
        assert (view.to_play, view.phase, view.dealer) == (0, "draw", 2)
        assert (view.discard_top, view.discard_size) == ("4S", 2)
        assert view.stock_size == 108 - 5 - 6 - 2
        assert view.opened == [False, True, True]
        assert view.scores == [5, 10, 20]
        assert view.sides == [0, 1, 2]
        assert [(x.number, x.owner, x.kind, x.cards, x.value) for x in view.melds] == [
            (1, 1, "run", ["6H", "JK", "8H"], 21),
            (2, 2, "set", ["9S", "9H", "JK=9D"], 27),
        ]
        assert view.melds[0].jokers == {1: "7H"}
        assert view.melds[1].jokers == {2: "9D"}
        assert view.status == ["in", "in", "in"]
        assert view.format == "points"
        assert view.limit == 101

    def test_history_is_public_and_hides_draws(self) -> None:
        """The match log: every seat sees the same history; a draw does not show the card."""
        m = position(["2S 9H", "AD 2D"], turns_done=[1, 1], stock_top="KH")
        m.play("draw")
        m.play("discard 9H")
        assert m.view(0).history == m.view(1).history == [(0, "draw"), (0, "discard 9H")]
        assert "KH" not in json.dumps(m.view(1).to_dict())
        assert m.view(0).hand == ["2S", "KH"]

    def test_taken_card_shown_to_its_owner(self) -> None:
        """S40-8.2: the player sees which card was taken (it cannot be discarded)."""
        m = position(
            ["2S 9H", "AD 2D"],
            opened=[True, True],
            turns_done=[1, 1],
            discard="KH 5C",
            options=Options(free_discard_take=True),
        )
        m.play("take")
        assert m.view(0).taken == "5C"
        assert m.view(1).taken is None

    def test_partner_hand(self) -> None:
        """S40-12.5 ``open_hands_for_partners``: in pairs each player also sees the partner's
        hand, never an opponent's."""
        options = Options(pairs=True, open_hands_for_partners=True)
        m = new_match(players=4, seed=21, options=options)
        for seat in range(4):
            assert m.view(seat).partner_hand == m.view((seat + 2) % 4).hand
        assert new_match(4, 21, Options(pairs=True)).view(0).partner_hand is None

    def test_bad_seat(self) -> None:
        """There is no seat 4 in a 4-player match."""
        m = new_match(players=4, seed=21)
        with pytest.raises(ValueError, match="seat 4"):
            m.view(4)

    def test_hand_end_shows_every_hand(self) -> None:
        """S40-15: when a hand ends every player's remaining cards and points are shown."""
        m = position(
            ["7C", "5H KC", "2S"], opened=[True, True, True], turns_done=[1, 1, 1], phase="play"
        )
        m.play("discard 7C")
        last = m.view(2).last_hand
        assert last is not None
        assert last.cards == [[], ["5H", "KC"], ["2S"]]
        assert last.points == [0, 15, 2]


class TestJson:
    """The saved match: ``to_json`` / ``from_json`` restore it exactly."""

    def test_exact_round_trip_at_the_deal(self) -> None:
        """A restored match saves to the same text."""
        m = new_match(players=3, seed=8)
        text_ = m.to_json()
        assert Match.from_json(text_).to_json() == text_

    @pytest.mark.parametrize("moves", [1, 7, 40, 150])
    def test_round_trip_mid_match(self, moves: int) -> None:
        """The round trip holds mid-hand and across hands."""
        m = new_match(players=4, seed=8)
        play_some(m, moves, seed=moves)
        text_ = m.to_json()
        assert Match.from_json(text_).to_json() == text_

    def test_restored_match_plays_identically(self) -> None:
        """The match log: a restored match continues exactly as the original."""
        m = new_match(players=3, seed=8, options=Options(free_discard_take=True))
        play_some(m, 30, seed=1)
        copy = Match.from_json(m.to_json())
        rng = random.Random(5)
        for _ in range(120):
            if m.to_play is None:
                break
            assert legal(m) == legal(copy)
            action = rng.choice(legal(m))
            assert str(m.play(action)) == str(copy.play(action))
            assert m.to_json() == copy.to_json()

    def test_round_trip_with_results(self) -> None:
        """``last_hand`` and ``result`` survive the round trip."""
        m = position(["7C", "5H"], opened=[True, True], turns_done=[1, 1], phase="play")
        m.totals = [0, 100]
        m.play("discard 7C")
        assert m.result is not None
        restored = Match.from_json(m.to_json())
        assert restored.result == m.result
        assert restored.last_hand == m.last_hand
        assert restored.to_json() == m.to_json()

    def test_copy(self) -> None:
        """``copy()`` is independent."""
        m = new_match(players=2, seed=8)
        c = m.copy()
        c.play("draw")
        assert m.phase == "draw"
        assert c.phase == "play"

    def test_newer_format(self) -> None:
        """A snapshot from a newer format is refused with SnapshotError."""
        data = json.loads(new_match(players=2, seed=8).to_json())
        data["format"] += 1
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(json.dumps(data))
        assert caught.value.code == "snapshot-too-new"

    @pytest.mark.parametrize(
        ("garbage", "code"),
        [
            ("not json", "snapshot-unreadable"),
            ("", "snapshot-unreadable"),
            ("[1, 2]", "snapshot-wrong-game"),
            ('{"game": "scopone", "format": 1}', "snapshot-wrong-game"),
            ('{"game": "scala40", "format": "1"}', "snapshot-corrupt"),
            ('{"game": "scala40", "format": 1}', "snapshot-corrupt"),
        ],
    )
    def test_garbage(self, garbage: str, code: str) -> None:
        """Anything that is not a saved Scala 40 match is a SnapshotError (a ValueError)."""
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(garbage)
        assert caught.value.code == code
        assert isinstance(caught.value, ValueError)

    def test_damaged_snapshot(self) -> None:
        """A snapshot missing a field or with bad options is a SnapshotError."""
        data = json.loads(new_match(players=2, seed=8).to_json())
        del data["stock"]
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(json.dumps(data))
        assert caught.value.code == "snapshot-corrupt"
        data = json.loads(new_match(players=2, seed=8).to_json())
        data["options"]["limit"] = 99
        with pytest.raises(SnapshotError) as caught:
            Match.from_json(json.dumps(data))
        assert caught.value.code == "snapshot-corrupt"
