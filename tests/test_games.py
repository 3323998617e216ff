"""The game registry (engine/games.py): every game answers the same questions the same way."""

from __future__ import annotations

import pytest

from engine import actions, games, outcome
from engine.errors import SnapshotError
from engine.games import GAMES, by_word, game, load_match, new_match
from testkit import duello

SPECS = list(GAMES.values())


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_choice_is_a_valid_value_and_the_default_comes_first(spec: games.GameSpec) -> None:
    defaults = spec.default_options()
    for name, values in spec.choices.items():
        assert name in spec.option_names()
        assert values[0] == defaults[name], name
        assert len(set(values)) == len(values), name
        for value in values:
            assert _valid_somewhere(spec, {**defaults, name: value}), (name, value)


def _valid_somewhere(spec: games.GameSpec, options: dict[str, object]) -> bool:
    """Whether the options are valid as they are, or in a race of pairs (``match_minutes``)."""
    for candidate in (options, {**options, "pairs": True, "format": "race"}):
        try:
            spec.parse_options(candidate)
        except ValueError:
            continue
        return True
    return False


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_a_new_match_round_trips_through_its_json(spec: games.GameSpec) -> None:
    players = spec.seats[1] if spec.name == "scopone" else spec.seats[0]
    match = new_match(spec.name, players, 7, {})
    again = load_match(match.to_json())
    assert again.to_json() == match.to_json()
    assert (again.players, again.seed, again.to_play) == (players, 7, match.to_play)
    assert match.outcome is None and match.computer_seats == () and not match.is_over


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_a_computer_choice_is_legal(spec: games.GameSpec) -> None:
    match = new_match(spec.name, spec.seats[1] if spec.name == "scopone" else 2, 3, {})
    for level in spec.levels:
        action = spec.choose(match, level, 11)
        assert str(action) in {str(a) for a in match.legal_actions()}


def test_words_name_games() -> None:
    assert by_word("Scala") is games.SCALA40
    assert by_word("40") is games.SCALA40
    assert by_word("SCOPA") is games.SCOPONE
    assert by_word("briscola") is None
    assert next(iter(GAMES)) == "scala40"  # the default of /newgame


def test_unknown_games_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown game 'briscola'"):
        game("briscola")
    with pytest.raises(SnapshotError) as refused:
        load_match('{"game": "briscola"}')
    assert refused.value.code == "snapshot-wrong-game"
    with pytest.raises(SnapshotError) as unreadable:
        load_match("not json")
    assert unreadable.value.code == "snapshot-unreadable"


def test_options_are_checked_against_the_players() -> None:
    with pytest.raises(ValueError):
        games.SCALA40.checked_options({"pairs": True}, 3)
    assert games.SCALA40.checked_options({"pairs": True}, 4)["pairs"] is True


CONTRACT = [*SPECS, duello.SPEC]
"""Every game, and the tests' own third game (:mod:`testkit.duello`), against the contract."""


def _table(spec: games.GameSpec) -> games.GameMatch:
    """A new match with three seats or more, so one can leave and the match go on."""
    return spec.new_match(max(3, spec.seats[0]), 5, {})


@pytest.mark.parametrize("spec", CONTRACT, ids=lambda s: s.name)
def test_every_game_is_stopped_by_the_core_word(spec: games.GameSpec) -> None:
    """``stop`` ends the match at once, for nobody (engine/actions.py)."""
    match = _table(spec)
    match.play(actions.STOP, seat=0)
    assert match.is_over and match.outcome is not None
    assert match.outcome.stopped and match.outcome.winners == ()
    assert match.outcome.reason == outcome.STOPPED


@pytest.mark.parametrize("spec", CONTRACT, ids=lambda s: s.name)
def test_every_game_plays_a_timeout_for_the_seat_to_play(spec: games.GameSpec) -> None:
    match = _table(spec)
    seat = match.to_play
    assert seat is not None
    match.play(actions.TIMEOUT, seat=seat)
    assert not match.is_over and spec.load(match.to_json()).to_json() == match.to_json()


@pytest.mark.parametrize("spec", CONTRACT, ids=lambda s: s.name)
def test_every_game_lets_a_seat_abandon_then_ends_with_nobody_left(spec: games.GameSpec) -> None:
    """``abandon`` takes a seat out for good; ``end`` ends a match no person is left in, and
    whoever abandoned does not win."""
    match = _table(spec)
    match.play(actions.ABANDON, seat=1)
    assert 1 in match.abandoned_seats and not match.is_over
    match.play(actions.END, seat=match.to_play)
    assert match.is_over and match.outcome is not None and not match.outcome.stopped
    assert 1 not in match.outcome.winners and match.outcome.reason == outcome.ABANDONED


@pytest.mark.parametrize("spec", CONTRACT, ids=lambda s: s.name)
def test_every_game_shows_what_the_bot_reads(spec: games.GameSpec) -> None:
    """The view says each seat's side and each side's score (``/score``); the options have a
    turn timer (``turn_seconds``, 0: none), which the bot keeps."""
    match = _table(spec)
    view = match.view(0)
    assert len(view.sides) == match.players
    assert len(view.scores) == len(set(view.sides))
    assert isinstance(spec.default_options()["turn_seconds"], int)
    assert set(actions.CORE) == {"stop", "abandon", "timeout", "end"}
