"""Goofspiel (examples/goofspiel.yaml): simultaneous bids for a face-up prize."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import State
from tests.game_checks import assert_cards_conserved, assert_observations_hide_cards
from tests.reference_information import replayed_observations

GOOFSPIEL = Path(__file__).resolve().parent.parent / "examples" / "goofspiel.yaml"


def _game(players: int = 2, optimize: bool = True) -> rulesengine.Game:
    return rulesengine.make_game(GOOFSPIEL, players=players, optimize=optimize)


def _cards(state: State, zone: str, index: int | None = None) -> list[int]:
    family = state.program.families[zone]
    return state.zones[family.base + (index or 0)]


def _value(state: State, card: int) -> int:
    return state.program.attributes["order"][card]


def _suit(state: State, card: int) -> str:
    return state.program.suit_names[state.program.attributes["suit"][card]]


def _bid(state: State, card: int) -> None:
    name = f"bids {state.program.card_names[card]}"
    (action,) = [a for a in state.legal_actions() if state.action_to_string(a) == name]
    state.apply_action(action)


def test_each_player_holds_one_suit_and_the_diamonds_are_the_prizes() -> None:
    state = _game(3).new_initial_state(seed=1)
    for player, suit in enumerate(["hearts", "spades", "clubs"]):
        hand = _cards(state, "hand", player)
        assert len(hand) == 13 and {_suit(state, c) for c in hand} == {suit}
    assert [_suit(state, c) for c in _cards(state, "prize")] == ["diamonds"]
    assert len(_cards(state, "prizes")) == 12


def test_a_bid_is_hidden_until_every_player_has_bid() -> None:
    state = _game().new_initial_state(seed=2)
    assert state.current_player() == 0
    keys, legal = set(), set()
    for action in state.legal_actions():
        twin = state.clone()
        twin.apply_action(action)
        assert twin.current_player() == 1  # the same bidding round: nothing resolved yet
        assert twin.observation(1)["chosen"] == [[0, None]]
        assert twin.observation(0)["chosen"] == [[0, twin.game.key_name(action)]]
        assert _cards(twin, "bid", 0) == []  # the card stays in the hand until the bids resolve
        keys.add(twin.information_state_key(1))
        legal.add(tuple(twin.legal_actions()))
    assert len(keys) == 1 and len(legal) == 1  # P2 cannot tell what P1 bid


def test_the_log_hides_a_bid_from_the_others_until_the_reveal() -> None:
    state = _game().new_initial_state(seed=4, record_log=True)
    card = _cards(state, "hand", 0)[0]
    name = state.program.card_names[card]
    _bid(state, card)
    assert state.log_for(1)[-1] == "P1: chooses"
    assert state.log_for(0)[-1].startswith(f"P1: bids {name}")
    _bid(state, _cards(state, "hand", 1)[0])
    assert any(line.startswith("the choices are revealed: P1: bids " + name) for line in state.log_for(1))


def test_the_highest_bid_takes_the_prize_and_a_tie_discards_it() -> None:
    state = _game().new_initial_state(seed=3)
    prize = _cards(state, "prize")[0]
    high = max(_cards(state, "hand", 0), key=lambda c: _value(state, c))
    low = min(_cards(state, "hand", 1), key=lambda c: _value(state, c))
    _bid(state, high)
    _bid(state, low)
    assert state.variables()["score"] == [_value(state, prize), 0]
    assert _cards(state, "won", 0) == [prize]
    assert high in _cards(state, "discard") and low in _cards(state, "discard")
    # a tie: both bid their queen
    prize = _cards(state, "prize")[0]
    first = state.current_player()
    queens = {p: next(c for c in _cards(state, "hand", p) if _value(state, c) == 12) for p in (0, 1)}
    _bid(state, queens[first])
    _bid(state, queens[1 - first])
    assert prize in _cards(state, "discard")
    assert state.variables()["score"][1] == 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 3))
def test_scores_and_discarded_prizes_add_up_to_every_prize(seed: int, players: int) -> None:
    game = _game(players)
    state = game.new_initial_state(seed=seed)
    reference = _game(players, optimize=False).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        assert_cards_conserved(state)
        assert_observations_hide_cards(state)
        legal = state.legal_actions()
        assert legal == reference.legal_actions()
        action = rng.choice(legal)
        state.apply_action(action)
        reference.apply_action(action)
    discarded = sum(_value(state, c) for c in _cards(state, "discard") if _suit(state, c) == "diamonds")
    assert sum(state.variables()["score"]) + discarded == sum(range(1, 14))
    assert state.steps == 13 * players
    assert state.returns() == reference.returns()
    for player in range(players):
        assert state.information_state(player) == replayed_observations(state, player)


def test_through_openspiel_a_later_bidder_cannot_tell_the_earlier_bids_apart() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register(str(GOOFSPIEL), players=2))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL  # hidden sequential decisions
    seen, own = set(), set()
    for action in state.legal_actions():
        child = state.child(action)
        assert child.current_player() == 1
        seen.add(child.information_state_string(1))
        own.add(child.information_state_string(0))
    assert len(seen) == 1  # P2 decides without knowing P1's bid
    assert len(own) == len(state.legal_actions())  # P1 remembers its own (perfect recall)
