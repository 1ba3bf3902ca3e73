"""Sum capture (examples/sum-capture.yaml): a laid card takes any group of table cards adding up to it."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import State
from tests.game_checks import assert_cards_conserved

SUM_CAPTURE = Path(__file__).resolve().parent.parent / "examples" / "sum-capture.yaml"


def _zone(state: State, name: str, index: int = 0) -> list[int]:
    return state.zones[state.program.families[name].base + index]


def _expected(state: State) -> set[tuple[int, tuple[int, ...]]]:
    """Every (card, group) the rules allow, by brute force over the table."""
    value = state.program.attributes["value"]
    table = sorted(_zone(state, "table"))
    out = set()
    for card in _zone(state, "hand", state.current_player()):
        out.add((card, ()))
        for size in range(1, 4):  # at most three table cards
            for group in itertools.combinations(table, size):
                if sum(value[c] for c in group) == value[card]:
                    out.add((card, group))
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_the_legal_captures_are_exactly_the_groups_that_add_up(seed: int, players: int) -> None:
    game = rulesengine.make_game(SUM_CAPTURE, players=players, options={"target": 2})
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        assert_cards_conserved(state)
        if not state._pending:
            offered = {values for _name, values in state.legal_moves()}
            assert offered == _expected(state)
        state.apply_action(rng.choice(state.legal_actions()))
    assert max(state.variables()["score"]) >= 2


def test_a_capture_is_chosen_card_by_card_then_done() -> None:
    game = rulesengine.make_game(SUM_CAPTURE, players=2)
    done = game.encoding.blocks[0].offset + game.program.num_cards
    for seed in range(100):
        state = game.new_initial_state(seed=seed)
        captures = [(card, group) for card, group in _expected(state) if len(group) >= 2]
        if not captures:
            continue
        card, group = captures[0]
        player = state.current_player()
        state.apply_action(card)
        assert done in state.legal_actions()  # laying the card without a capture
        for picked in group:
            # only cards that can still complete a group adding up to the card are offered
            assert picked in state.legal_actions()
            state.apply_action(picked)
            assert state.current_player() == player and state.steps == 0
        assert state.legal_actions() == [done]  # the group adds up: nothing more fits
        state.apply_action(done)
        assert state.steps == 1
        assert set(group) | {card} <= set(_zone(state, "won", player))
        return
    raise AssertionError("no deal of 100 offered a capture of two cards or more")


def test_a_sweep_scores_a_point() -> None:
    game = rulesengine.make_game(SUM_CAPTURE, players=2)
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    while not state.is_terminal():
        table = tuple(sorted(_zone(state, "table")))
        sweeps = [(card, group) for card, group in _expected(state) if group and group == table]
        if not state._pending and sweeps:
            card, group = sweeps[0]
            player = state.current_player()
            before = state.variables()["sweeps"][player]
            for step in game.encoding.steps_of(game.encoding.blocks[0].move, (card, group)):
                state.apply_action(step)
            assert _zone(state, "table") == []
            assert state.variables()["sweeps"][player] == before + 1
            return
        state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the match offered no sweep")


def test_a_pettingzoo_episode_makes_captures_step_by_step_through_the_mask() -> None:
    pytest.importorskip("pettingzoo")
    from rulesengine.adapters.pettingzoo import env

    environment = env(str(SUM_CAPTURE), players=2, options={"target": 1})
    environment.reset(seed=7)
    rng = random.Random(7)
    assert environment.action_space("player_0").n == 41  # 40 cards and "done"
    steps = 0
    for _agent in environment.agent_iter():
        observation, _reward, termination, truncation, _info = environment.last()
        if termination or truncation:
            environment.step(None)
            continue
        legal = [a for a, bit in enumerate(observation["action_mask"]) if bit]
        assert legal == environment.state.legal_actions()
        environment.step(rng.choice(legal))
        steps += 1
    state = environment.state
    assert state.is_terminal() and steps == len(state.actions()) > state.steps
