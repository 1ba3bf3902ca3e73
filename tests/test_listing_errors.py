"""An error in a `legal` test is the same error in both modes, whatever order the optimised
listing tests the moves in.

The optimised listing of a phase tests the moves over the same cards in one loop, card by
card (pass `shared card loops`), and lists those moves after the moves without cards; the
reference mode lists one move after another in the phase's order. When several `legal`
tests would stop the match, the listing runs the moves' own enumerators in the phase's
order and raises the first one's error, as the reference mode does. And a test that may
fail is asked only of whole actions, as the reference mode asks it: never of a card for a
set that cannot be formed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError
from tests.oracle import play_both

# The cards, the zones (`slots`: two zones, indexed by a card's order in the tests) and the
# start of the round's setup, shared by the files below (each goes on with its own deal).
_HEAD = """
players: {min: 2, max: 2}
decks:
  standard:
    suits: [hearts, spades, clubs, diamonds]
    ranks: ["2", "3", "4", "5", "6", "7", "8"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
  slots: {per: 2}
round:
  setup:
    - shuffle stock
"""

# Each `legal` test indexes a family of two zones by the card's order: `low` fails for every
# card but the 4s and 5s, `high` for every card but the 6s and 7s, so that a hand mostly
# holds a card where one fails and the other does not.
_RULES = (
    _HEAD
    + """
    - deal 5 of stock to hand from seat(0)
name: Two Tests
phases:
  play:
    moves: MOVES
    until: empty(hand[current])
moves:
  low:
    params: {card: "hand[me]"}
    legal: size(slots[card.order - 3]) >= 0
    effects:
      - move card to pile
  high:
    params: {card: "hand[me]"}
    legal: size(slots[card.order - 5]) >= 0
    effects:
      - move card to pile
  wait:
    legal: size(slots[size(hand[me]) - 9]) >= 0
    effects: []
match:
  until: round >= 1
"""
)


def _games(tmp_path: Path, moves: str) -> tuple[rulesengine.Game, rulesengine.Game]:
    path = tmp_path / "two_tests.yaml"
    path.write_text(_RULES.replace("MOVES", moves), encoding="utf-8")
    return rulesengine.make_game(str(path), players=2), rulesengine.make_game(str(path), players=2, optimize=False)


def _error(game: rulesengine.Game, seed: int) -> str:
    with pytest.raises(EngineError) as raised:  # at the first decision, or at a later one
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
    return str(raised.value)


@pytest.mark.parametrize("moves", ["[low, high]", "[high, low]", "[wait, low, high]", "[low, wait, high]"])
def test_the_first_move_in_the_phase_order_reports_its_error(tmp_path: Path, moves: str) -> None:
    fast, reference = _games(tmp_path, moves)
    assert "_first_listing_error" in _source(fast)  # the moves are tested in another order than listed
    first = moves.strip("[]").split(", ")[0]
    rows = _RULES.splitlines()
    line = next(n for n in range(rows.index(f"  {first}:"), len(rows)) if rows[n].startswith("    legal:")) + 1
    errors = [_error(fast, seed) for seed in range(12)]
    assert errors == [_error(reference, seed) for seed in range(12)]
    # mostly the first move's `legal`: a hand of five fails it but for five cards of its two ranks
    assert sum(f"two_tests.yaml:{line}:" in error for error in errors) >= 10


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.sampled_from(["[low, high]", "[high, low]", "[high, wait, low]"]))
def test_both_modes_stop_at_the_same_error(tmp_path_factory: pytest.TempPathFactory, seed: int, moves: str) -> None:
    fast, reference = _games(tmp_path_factory.mktemp("listing"), moves)
    play_both(fast, reference, seed, choice_seed=seed)


def test_a_listing_in_the_phase_order_is_not_guarded(tmp_path: Path) -> None:
    fast, _reference = _games(tmp_path, "[wait, low]")  # moves over cards are listed after the others
    assert "_first_listing_error" not in _source(fast)


def _source(game: rulesengine.Game) -> str:
    return "\n".join(f.source for f in game.program.source)


# `trio` needs three cards of one suit, which a hand of two never holds: the reference mode
# never asks `legal`, which would fail for most cards.
_NO_TRIO = (
    _HEAD
    + """
    - deal 2 of stock to hand from seat(0)
name: No Trio
phases:
  play:
    moves: [lay, trio]
    until: empty(hand[current])
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
  trio:
    params:
      card: "hand[me]"
      three: {from: "hand[me]", size: 3, same: suit}
    legal: size(slots[card.order - 3]) >= 0
    effects:
      - move three to pile
match:
  until: round >= 1
"""
)


def test_a_test_that_may_fail_is_not_asked_of_a_set_that_cannot_be_formed(tmp_path: Path) -> None:
    path = tmp_path / "no_trio.yaml"
    path.write_text(_NO_TRIO, encoding="utf-8")
    fast = rulesengine.make_game(str(path), players=2)
    reference = rulesengine.make_game(str(path), players=2, optimize=False)
    for seed in range(6):
        assert play_both(fast, reference, seed, choice_seed=seed) >= 4  # the match is played out
