"""Pan played end to end, and the properties every step of it must keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rulesengine
from tests.game_checks import (
    assert_cards_conserved,
    assert_observations_hide_cards,
    assert_replays_identically,
    play_random,
)

OPTIONS = st.fixed_dictionaries(
    {
        "triples": st.sampled_from(["equal", "nines_only", "equal_or_higher"]),
        "fours": st.sampled_from(["higher", "equal_or_higher"]),
        "reversed_spades": st.booleans(),
        "word": st.sampled_from(["P", "PA", "PAN"]),
    }
)


def labels(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), options=OPTIONS)
def test_every_step_conserves_cards_and_hides_hands(players, seed, options):
    game = rulesengine.make_game("pan", players=players, options=options)
    state = game.new_initial_state(seed=seed)

    def check(s):
        assert_cards_conserved(s)
        assert_observations_hide_cards(s)

    check(state)
    play_random(state, seed, max_steps=300, each_step=check)


@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), options=OPTIONS)
def test_every_match_ends_with_one_loser(players, seed, options):
    game = rulesengine.make_game("pan", players=players, options=options)
    state = play_random(game.new_initial_state(seed=seed), seed)
    assert state.is_terminal() and not state.truncated
    returns = state.returns()
    assert sorted(returns) == [-1.0] + [1.0] * (players - 1)
    loser = returns.index(-1.0)
    assert state.variables()["letters"][loser] == len(options["word"])


@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_same_seed_and_actions_give_the_same_game(seed, players):
    assert_replays_identically(rulesengine.make_game("pan", players=players, options={"word": "P"}), seed)


def test_the_holder_of_the_nine_of_hearts_opens():
    game = rulesengine.make_game("pan", players=3)
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        hand = state.card_locations()[f"hand[P{state.current_player() + 1}]"]
        assert "9♥" in hand
        assert labels(state)[0] == "lays 9♥"


def test_only_equal_or_higher_single_cards_and_pick_up_are_offered():
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=4)
    play_random(state, 4, max_steps=6)
    order = ["9", "10", "J", "Q", "K", "A"]
    top = state.card_locations()["pile"][-1]
    for label in labels(state):
        if label.startswith("lays ") and not label.startswith(("lays three", "lays four")):
            card = label.removeprefix("lays ")
            assert order.index(card[:-1]) >= order.index(top[:-1])
    assert ("picks up" in " ".join(labels(state))) == (len(state.card_locations()["pile"]) > 1)


def test_picking_up_never_takes_the_nine_of_hearts():
    game = rulesengine.make_game("pan", players=3)
    for seed in range(20):
        state = game.new_initial_state(seed=seed)
        for _ in range(60):
            if state.is_terminal() or state.round_number > 1:
                break
            pick_ups = [a for a in state.legal_actions() if state.action_to_string(a).startswith("picks up")]
            state.apply_action(pick_ups[0] if pick_ups else state.legal_actions()[0])
            pile = state.card_locations()["pile"]
            assert not pile or pile[0] == "9♥"


def test_reversed_spades_turns_the_direction():
    game = rulesengine.make_game("pan-reversed-spades", players=4)
    turned = False
    for seed in range(30):
        state = game.new_initial_state(seed=seed)
        for _ in range(40):
            spade_moves = [
                a
                for a in state.legal_actions()
                if state.action_to_string(a).endswith("♠") and state.action_to_string(a).startswith("lays")
            ]
            if spade_moves:
                mover, before = state.current_player(), state.direction
                state.apply_action(spade_moves[0])
                if state.round_number == 1 and not state.is_terminal():
                    assert state.direction == -before
                    expected = state.next_active(mover)
                    assert state.current_player() == expected == (mover - 1) % 4 or not state.active[(mover - 1) % 4]
                    turned = True
                break
            state.apply_action(state.legal_actions()[-1])
    assert turned


def test_deal_limit_ends_a_deal_as_a_draw():
    game = rulesengine.make_game("pan", players=3)
    state = game.new_initial_state(seed=0, record_log=True)
    # Always pick up when possible: nobody ever goes out, so only the limit ends the deal.
    while state.round_number == 1:
        pick_ups = [a for a in state.legal_actions() if state.action_to_string(a).startswith("picks up")]
        state.apply_action(pick_ups[0] if pick_ups else state.legal_actions()[0])
    assert any("2000 turns" in line for line in state.log)
    assert state.variables()["letters"] == [0, 0, 0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hands_are_dealt_evenly(players):
    state = rulesengine.make_game("pan", players=players).new_initial_state(seed=1)
    sizes = {len(cards) for zone, cards in state.card_locations().items() if zone.startswith("hand")}
    assert sizes == {24 // players}
