"""Card notation, the Scala 40 decks and seeded shuffles (docs/rules.md "Card notation", S40-1.3,
S40-2.2)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction
from engine.cards import (
    FACE_INDEX,
    FACES,
    JOKER,
    Card,
    SeededStream,
    face_index,
    format_cards,
    is_joker_id,
    parse_card,
    parse_cards,
    scala40_deck,
    seeded_choice,
    seeded_shuffle,
)
from engine.scala40 import Options, new_match


class TestParse:
    """Card notation: rank then suit, case-insensitive, ``T`` for 10, suit symbols, ``JK``."""

    @pytest.mark.parametrize(
        ("token", "rank", "suit"),
        [
            ("AH", 1, "H"),
            ("ah", 1, "H"),
            ("10S", 10, "S"),
            ("10s", 10, "S"),
            ("TH", 10, "H"),
            ("th", 10, "H"),
            ("QD", 12, "D"),
            ("q♦", 12, "D"),
            ("K♣", 13, "C"),
            ("7♠", 7, "S"),
            ("2♥", 2, "H"),
            ("JC", 11, "C"),
            ("jd", 11, "D"),
        ],
    )
    def test_natural_cards(self, token: str, rank: int, suit: str) -> None:
        """Card notation: ``AH``, ``10S``, ``QD``; ``T`` is 10, symbols stand for the letters."""
        assert parse_card(token) == Card(rank, suit)

    @pytest.mark.parametrize("token", ["JK", "jk", "Jk"])
    def test_joker(self, token: str) -> None:
        """Card notation: a joker is ``JK`` (any case)."""
        card = parse_card(token)
        assert card == JOKER
        assert card.is_joker
        assert str(card) == "JK"

    def test_jack_is_not_a_joker(self) -> None:
        """Card notation: ``JH`` is the jack of hearts, ``JK`` the joker."""
        assert parse_card("JH") == Card(11, "H")
        assert not parse_card("JH").is_joker

    @pytest.mark.parametrize(
        ("token", "detail"),
        [("1X", "'1X'"), ("ZZ", "'ZZ'"), ("H", "'H'"), ("11H", "'11H'"), ("", "''")],
    )
    def test_bad_token_raises_value_error_naming_it(self, token: str, detail: str) -> None:
        """Card notation: a token that is not a card is a ValueError naming the token."""
        with pytest.raises(ValueError, match=detail):
            parse_card(token)

    def test_one_is_not_the_ace(self) -> None:
        """Card notation: the ranks are ``A 2 3 … 10 J Q K``; ``1`` is none of them, so
        ``discard 1H`` is refused as a bad card, not read as the ace."""
        with pytest.raises(ValueError, match="'1H'"):
            parse_card("1H")
        m = new_match(players=2, seed=1)
        m.play("draw")
        with pytest.raises(IllegalAction) as refused:
            m.play("discard 1H")
        assert refused.value.code == "bad-card"

    def test_parse_cards_list(self) -> None:
        """Card notation: cards are space separated."""
        assert parse_cards("7H 8h TH jk") == [Card(7, "H"), Card(8, "H"), Card(10, "H"), JOKER]
        assert parse_cards(["AS", "k♥"]) == [Card(1, "S"), Card(13, "H")]
        assert parse_cards("") == []

    def test_parse_cards_names_the_bad_token(self) -> None:
        """Card notation: the error names the offending token, not the whole text."""
        with pytest.raises(ValueError, match="'9X'"):
            parse_cards("7H 9X 8H")


class TestFormat:
    """Card notation out: ``10H``, ``JK``; ``format_cards`` space separates."""

    def test_str(self) -> None:
        """Card notation: rank then suit letter; 10 is written ``10``, never ``T``."""
        assert [str(c) for c in parse_cards("th ah q♦ k♣ jk")] == ["10H", "AH", "QD", "KC", "JK"]

    def test_format_round_trip(self) -> None:
        """Card notation: formatting and parsing are inverse on canonical text."""
        canonical = "AS 2H 10D JC QS KH JK"
        assert format_cards(parse_cards(canonical)) == canonical

    def test_pretty(self) -> None:
        """Card notation: the suit symbols are a display choice (``10♥``)."""
        assert Card(10, "H").pretty() == "10♥"
        assert Card(1, "S").pretty() == "A♠"
        assert JOKER.pretty() == "🃏"

    def test_card_order(self) -> None:
        """Faces are ordered by rank then suit letter (a deterministic sort key)."""
        assert sorted(parse_cards("KH 2S AH JK")) == [
            JOKER,
            Card(1, "H"),
            Card(2, "S"),
            Card(13, "H"),
        ]


class TestDeck:
    """S40-1.3: two 52-card French decks plus 4 jokers; 104 natural cards without jokers."""

    def test_108_cards(self) -> None:
        """S40-1.3: 108 physical cards, ids 0..107."""
        assert scala40_deck() == list(range(108))
        assert scala40_deck(jokers=True) == list(range(108))

    def test_every_natural_twice_and_four_jokers(self) -> None:
        """S40-1.3 and Card notation: every card exists twice; four jokers."""
        counts = Counter(str(FACES[i]) for i in scala40_deck())
        assert counts["JK"] == 4
        naturals = {face: n for face, n in counts.items() if face != "JK"}
        assert len(naturals) == 52
        assert set(naturals.values()) == {2}

    def test_104_without_jokers(self) -> None:
        """S40-1.3 Option ``jokers`` off: the 104 natural cards only."""
        deck = scala40_deck(jokers=False)
        assert len(deck) == 104
        assert not any(is_joker_id(i) for i in deck)
        assert sorted(set(range(108)) - set(deck)) == [52, 53, 106, 107]

    def test_physical_ids(self) -> None:
        """A physical card is ``deck * 54 + suit * 13 + rank - 1``; 52/53 (+54) are jokers."""
        assert str(FACES[0]) == "AS"
        assert str(FACES[13]) == "AH"
        assert str(FACES[26 + 6]) == "7D"
        assert str(FACES[39 + 12]) == "KC"
        assert str(FACES[54 + 39 + 12]) == "KC"
        assert [str(FACES[i]) for i in (52, 53, 106, 107)] == ["JK"] * 4
        assert FACE_INDEX[54 + 13 + 9] == 13 + 9 == face_index(Card(10, "H"))
        assert FACE_INDEX[107] == 52 == face_index(JOKER)


class TestSeededShuffle:
    """S40-2.2: shuffles are derived from the match seed; each label is its own stream."""

    def test_deterministic(self) -> None:
        """S40-2.2: the same seed and label give the same deck."""
        deck = scala40_deck()
        assert seeded_shuffle(deck, 7, "hand:1") == seeded_shuffle(deck, 7, "hand:1")

    def test_is_a_permutation(self) -> None:
        """S40-2.2: a shuffle neither loses nor duplicates cards."""
        deck = scala40_deck()
        shuffled = seeded_shuffle(deck, 7, "hand:1")
        assert sorted(shuffled) == deck
        assert shuffled != deck

    def test_labels_and_seeds_differ(self) -> None:
        """S40-2.2: another label or another seed gives another deck."""
        deck = scala40_deck()
        base = seeded_shuffle(deck, 7, "hand:1")
        assert seeded_shuffle(deck, 7, "hand:2") != base
        assert seeded_shuffle(deck, 8, "hand:1") != base

    def test_input_not_mutated(self) -> None:
        """The shuffle returns a new list."""
        deck = scala40_deck()
        seeded_shuffle(deck, 1, "x")
        assert deck == list(range(108))

    def test_choice(self) -> None:
        """S40-2.2: seeded choices are deterministic and in range."""
        picks = [seeded_choice(6, seed, "dealer") for seed in range(60)]
        assert picks == [seeded_choice(6, seed, "dealer") for seed in range(60)]
        assert set(picks) == set(range(6))

    def test_stream_bound(self) -> None:
        """A bound below 1 is refused."""
        with pytest.raises(ValueError, match="bound"):
            SeededStream(1, "x").below(0)
        assert SeededStream(1, "x").below(1) == 0

    def test_match_deal_is_a_function_of_the_seed(self) -> None:
        """S40-2.2: tests pass their own seed; a match replays exactly from it."""
        a = new_match(players=4, seed=123)
        b = new_match(players=4, seed=123)
        c = new_match(players=4, seed=124)
        assert a.to_json() == b.to_json()
        assert a.hands != c.hands

    def test_match_without_jokers_deals_naturals(self) -> None:
        """S40-1.3: with ``jokers`` off no joker is ever dealt."""
        m = new_match(players=6, seed=5, options=Options(jokers=False))
        cards = [c for h in m.hands for c in h] + m.stock + m.discard
        assert sorted(cards) == scala40_deck(jokers=False)
