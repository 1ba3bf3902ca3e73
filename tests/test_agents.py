"""Agents: they see only their player's view, are deterministic for a seed, and search helps."""

from __future__ import annotations

import gc
import random
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.agents import (
    CheatingMCTSAgent,
    GreedyAgent,
    ISMCTSAgent,
    MonteCarloAgent,
    PlayerView,
    RandomAgent,
    basic,
    declared,
    evaluate,
    play_match,
)
from rulesengine.engine import State
from tests.test_knowledge import TINY

_OPAQUE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.FrameType, types.CodeType)


def reachable(root: object, limit: int = 200_000) -> set[int]:
    """The ids of every object reachable from `root` (not through modules, functions or classes)."""
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < limit:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _OPAQUE):
            continue
        seen.add(id(item))
        stack.extend(gc.get_referents(item))
    return seen


def secrets_of(state: State) -> set[int]:
    """The objects of a true state that hold its hidden cards."""
    secret = {id(state), id(state.zones), id(state._checkpoint), *map(id, state.zones)}
    cell = state.trail
    while cell is not None:
        secret.add(id(cell))
        cell = cell[0]
    cell = state.history
    while cell is not None:
        secret.add(id(cell))
        cell = cell[0]
    secret.add(id(state._tail))
    return secret


class SnoopingAgent:
    """Tries every path it can find from its view to the true state's hidden cards."""

    def __init__(self, secret: set[int]):
        self.secret = secret
        self.found: set[int] = set()
        self.hands: set[tuple] = set()

    def choose(self, view: PlayerView) -> int:
        self.found |= reachable(view) & self.secret
        rng = random.Random(0)
        for _ in range(5):
            sample = view.sample(rng)
            self.found |= reachable(sample) & self.secret
            self.hands.add(tuple(sample.zones[2]))
        return view.legal_actions[0]


def random_step(state: State, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def public_playout(state: State, rng: random.Random, until: str) -> None:
    """A playout through the public interface only: the oracle of `basic.playout`."""
    round_number = state.round_number
    while not state.is_terminal():
        if until == "round" and state.round_number != round_number:
            return
        random_step(state, rng)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["pan", "padan", "padvinderspel", "examples/goofspiel.yaml", "examples/in-between.yaml"]),
    seed=st.integers(0, 2**32),
    chance=st.booleans(),
    until=st.sampled_from(["round", "match"]),
    moves=st.integers(0, 40),
)
def test_the_search_playout_plays_as_the_public_interface_does(
    name: str, seed: int, chance: bool, until: str, moves: int
) -> None:
    game = rulesengine.make_game(name)
    start = game.new_initial_state(None if chance else seed, track=False)
    rng = random.Random(seed)
    for _ in range(moves):  # from some way into the match
        if not start.is_terminal():
            random_step(start, rng)
    fast, plain = start.clone(track=False), start.clone(track=False)
    basic.playout(fast, random.Random(seed), until)
    public_playout(plain, random.Random(seed), until)
    assert fast.history_list() == plain.history_list()
    assert fast.is_terminal() == plain.is_terminal() and fast.round_number == plain.round_number
    assert fast.returns() == plain.returns()


def test_an_agent_cannot_reach_hidden_cards():
    game = rulesengine.make_game("pan", players=3)
    state = game.new_initial_state(seed=11)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    snoop = SnoopingAgent(secrets_of(state))
    view = PlayerView(state, player, random.Random(1))
    snoop.choose(view)
    assert not snoop.found
    assert len(snoop.hands) > 1  # the samples really differ where the player cannot see
    # the control: from the state itself the secrets are reachable, so the walk would find them
    assert secrets_of(state) & reachable(state)


def test_only_the_cheating_reference_is_handed_the_truth():
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=3)
    from rulesengine.agents import as_view

    assert as_view(ISMCTSAgent(10, seed=1), state).true_state is None
    assert as_view(CheatingMCTSAgent(10, seed=1), state).true_state is state


AGENTS = [
    lambda seed: RandomAgent(seed),
    lambda seed: GreedyAgent(seed),
    lambda seed: MonteCarloAgent(12, seed=seed),
    lambda seed: ISMCTSAgent(16, seed=seed, samples=4),
    lambda seed: CheatingMCTSAgent(16, seed=seed),
]


@pytest.mark.parametrize("make", AGENTS, ids=["random", "greedy", "mc", "ismcts", "mcts-cheat"])
def test_agents_are_deterministic_for_a_seed(make):
    game = rulesengine.make_game(TINY)

    def play(seed: int) -> list[int]:
        return play_match(game.new_initial_state(seed=seed), [make(seed), make(seed + 1)]).actions()

    assert play(5) == play(5)
    runs = {tuple(play(seed)) for seed in range(6)}
    assert len(runs) > 1


def test_evaluation_is_the_return_if_the_match_ended_now():
    game = rulesengine.make_game(TINY)
    state = game.new_initial_state(seed=1)
    assert evaluate(state, 0) == 0.0  # nobody has laid anything: everybody ties
    state.apply_action(state.legal_actions()[-1])
    laid = state.variables()["laid"]
    assert evaluate(state, 0) == (1.0 if laid[0] > laid[1] else -1.0)
    assert not state.is_terminal()


def test_greedy_takes_the_action_that_evaluates_best():
    """The return if the match ended now, then the rule file's `match.evaluation`; in the tiny
    game both read public scores only, so the true state rates the actions as a sample does."""
    game = rulesengine.make_game(TINY)
    checked = 0
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        state.apply_action(state.legal_actions()[0])
        if len(state.legal_actions()) < 2:
            continue
        values = {}
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            values[action] = (evaluate(after, state.current_player()), declared(after, state.current_player()))
        if len(set(values.values())) > 1:
            checked += 1
            assert values[GreedyAgent(seed).choose(state)] == max(values.values())
    assert checked >= 5


def test_the_declared_evaluation_is_read_for_the_player_asked():
    game = rulesengine.make_game(TINY)  # evaluation: laid[me] - others(me).max(p, laid[p])
    state = game.new_initial_state(seed=2)
    state.apply_action(state.legal_actions()[-1])
    laid = state.variables()["laid"]
    assert declared(state, 0) == laid[0] - laid[1] and declared(state, 1) == laid[1] - laid[0]
    assert declared(rulesengine.make_game("pan", players=2).new_initial_state(seed=1), 0) == 0.0  # none declared


def test_an_agent_chooses_only_at_a_decision():
    game = rulesengine.make_game("padan", options={"target": 1})
    chance = game.new_initial_state()  # no seed: the first shuffle is a chance node
    assert chance.is_chance_node()
    ended = play_match(game.new_initial_state(seed=2), [RandomAgent(1), RandomAgent(2)])
    agents = [RandomAgent(0), GreedyAgent(0), MonteCarloAgent(2, seed=0), ISMCTSAgent(2, seed=0)]
    agents.append(CheatingMCTSAgent(2, seed=0))
    for agent in agents:
        with pytest.raises(rulesengine.EngineError, match="at a chance node"):
            agent.choose(chance)
        with pytest.raises(rulesengine.EngineError, match="after the match is over"):
            agent.choose(ended)


def test_play_match_needs_one_agent_a_seat():
    game = rulesengine.make_game("padan")
    for agents in ([RandomAgent(0)], [RandomAgent(0)] * 3):
        with pytest.raises(rulesengine.OptionError, match=f"one agent for each of the 2 seats, not {len(agents)}"):
            play_match(game.new_initial_state(seed=1), agents)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ISMCTSAgent(float("nan")), "iterations takes a whole number"),
        (lambda: ISMCTSAgent(-5), "iterations must be at least 1"),
        (lambda: ISMCTSAgent(2.5), "iterations takes a whole number"),
        (lambda: ISMCTSAgent(10, seconds=float("nan")), "seconds takes a finite number above 0"),
        (lambda: ISMCTSAgent(10, seconds="1"), "seconds takes a number"),
        (lambda: ISMCTSAgent(10, exploration=float("inf")), "exploration takes a finite number"),
        (lambda: ISMCTSAgent(10, samples=0), "samples must be at least 1"),
        (lambda: ISMCTSAgent(10**20), "iterations takes at most 1,000,000,000"),
        (lambda: ISMCTSAgent(10, seconds=10**6), "seconds takes at most 86,400"),
        (lambda: ISMCTSAgent(10, rollout="rund"), "rollout is 'round' or 'match'"),
        (lambda: MonteCarloAgent(0), "playouts must be at least 1"),
        (lambda: RandomAgent(1.5), "seed is a whole number or None"),
        (lambda: GreedyAgent("abc"), "seed is a whole number or None"),
    ],
)
def test_an_agent_refuses_settings_it_would_not_honour(make, message):
    with pytest.raises(rulesengine.OptionError, match=message):
        make()


def test_agents_take_numpy_seeds_and_refuse_a_view_with_nothing_to_choose():
    import numpy as np

    game = rulesengine.make_game("padan")
    state = game.new_initial_state(seed=1)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert RandomAgent(np.int64(7)).choose(state) == RandomAgent(7).choose(state)
    waiting = 1 - state.current_player()
    for agent in (RandomAgent(0), GreedyAgent(0), MonteCarloAgent(2, seed=0), ISMCTSAgent(2, seed=0)):
        with pytest.raises(rulesengine.EngineError, match=f"P{waiting + 1} has no action to choose here"):
            agent.choose(PlayerView(state, waiting))
    with pytest.raises(rulesengine.EngineError, match="give it the state itself"):
        CheatingMCTSAgent(2, seed=0).choose(PlayerView(state, state.current_player()))
