"""Misuse of the adapters is refused with the engine's own errors, and changes nothing.

The OpenSpiel and PettingZoo tests are skipped only when their extra is not installed.
"""

from __future__ import annotations

import pickle
import random

import pytest

from rulesengine import api
from rulesengine.adapters.observation import ObservationEncoder, encode_observation, observation_layout
from rulesengine.api import make_game
from rulesengine.diagnostics import EngineError, IllegalActionError, OptionError

# the largest max_game_length pyspiel.GameInfo takes (a C++ int)
MAX_GAME_LENGTH = 2**31 - 1


def _finish(environment, seed: int) -> None:
    """Play a whole match with random legal actions, every agent leaving at the end."""
    rng = random.Random(seed)
    for _agent in environment.agent_iter():
        observation, _reward, termination, truncation, _info = environment.last()
        if termination or truncation:
            environment.step(None)
        else:
            environment.step(rng.choice([a for a, bit in enumerate(observation["action_mask"]) if bit]))


# ---- the observation tensor (no extra needed) ------------------------------------------


def test_the_encoder_refuses_a_state_of_another_game():
    encoder = ObservationEncoder(make_game("pan", players=3))
    own = make_game("pan", players=3).new_initial_state(seed=1)
    expected = encoder.encode(own, 0)
    two = make_game("pan", players=2).new_initial_state(seed=1)
    with pytest.raises(EngineError, match=r"State of 'Pan' \(3 players.*got one of 'Pan' \(2 players"):
        encoder.encode(two, 0)
    with pytest.raises(EngineError, match=r"the game this encoder was made for; got one of 'Padan'"):
        encoder.encode(make_game("padan").new_initial_state(seed=1), 0)
    other_options = make_game("pan", players=3, options={"word": "P"}).new_initial_state(seed=1)
    with pytest.raises(EngineError, match="word=P"):
        encoder.encode(other_options, 0)
    for not_a_state in (None, "state", own.game):
        with pytest.raises(EngineError, match=r"encode_observation needs a State of 'Pan'"):
            encoder.encode(not_a_state, 0)
    # the refusals changed nothing: the encoder still encodes its own game's states
    assert encoder.encode(own, 0) == expected == ObservationEncoder(own.game).encode(own, 0)


def test_the_encoder_takes_its_game_made_again(monkeypatch):
    game = make_game("pan", players=3)
    encoder = ObservationEncoder(game)
    expected = encoder.encode(game.new_initial_state(seed=4), 1)
    # compiled again (the reference mode), with another step limit, unpickled, or from rules loaded anew
    assert encoder.encode(make_game("pan", players=3, optimize=False).new_initial_state(seed=4), 1) == expected
    assert encoder.encode(make_game("pan", players=3, max_steps=9).new_initial_state(seed=4), 1) == expected
    state = pickle.loads(pickle.dumps(game.new_initial_state(seed=4)))
    assert encoder.encode(state, 1) == expected
    monkeypatch.setattr(api, "_kept", {})
    again = make_game("pan", players=3)
    assert again.ruleset is not game.ruleset
    assert encoder.encode(again.new_initial_state(seed=4), 1) == expected


def test_split_refuses_a_vector_of_another_length():
    game = make_game("padan")
    encoder = ObservationEncoder(game)
    values = encoder.encode(game.new_initial_state(seed=1), 0)
    for wrong in ([0.0] * 3, [], values + [0.0], values[:-1]):
        with pytest.raises(EngineError, match=rf"split needs the {encoder.size} numbers of an observation .*"):
            encoder.split(wrong)
    with pytest.raises(EngineError, match=r"numbers of an observation of 'Padan' \(2 players, target=100\), not 3$"):
        encoder.split([0.0] * 3)
    for not_a_vector in (None, 3.0, "abc", set(values), dict(enumerate(values))):
        with pytest.raises(EngineError, match=rf"split needs the {encoder.size} numbers of an observation, not "):
            encoder.split(not_a_vector)
    parts = encoder.split(values)  # a whole vector still splits, into every part
    assert [len(parts[name]) for name, _ in encoder.layout] == [size for _, size in encoder.layout]
    assert encoder.split(tuple(values)) == {name: tuple(part) for name, part in parts.items()}
    numpy = pytest.importorskip("numpy")
    array = encoder.split(numpy.asarray(values, dtype=numpy.float32))
    assert {name: list(part) for name, part in array.items()} == parts


def test_the_encoder_refuses_what_is_no_game_zone_or_state():
    with pytest.raises(OptionError, match="made for a Game"):
        ObservationEncoder("padan")
    with pytest.raises(OptionError, match="made for a Game"):
        observation_layout(None)
    with pytest.raises(EngineError, match="encode_observation needs a State, not str"):
        encode_observation("state", 0)
    encoder = ObservationEncoder(make_game("padan"))
    zones = len(encoder.game.program.zone_names)
    for zone in (-1, zones, 1.0, True, "0"):
        with pytest.raises(EngineError, match=rf"may_see needs a zone slot from 0 to {zones - 1}"):
            encoder.may_see(zone, 0)
    with pytest.raises(EngineError, match="may_see needs a player from 0 to 1, not 2"):
        encoder.may_see(0, 2)
    assert encoder.may_see(0, 0) in (True, False)


# ---- OpenSpiel ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyspiel():
    return pytest.importorskip("pyspiel")


def test_openspiel_refuses_a_game_length_it_cannot_declare(pyspiel):
    from rulesengine.adapters.openspiel import _REGISTERED, register

    most_steps = make_game("pan", players=3).encoding.most_steps
    largest = MAX_GAME_LENGTH // most_steps
    registered, known = dict(_REGISTERED), set(pyspiel.registered_names())
    for too_many in (2**62, largest + 1):
        with pytest.raises(OptionError, match=rf"max_steps must be at most {largest} for OpenSpiel, not {too_many}"):
            register("pan", players=3, max_steps=too_many)
    assert _REGISTERED == registered and set(pyspiel.registered_names()) == known  # nothing registered
    # the largest that works loads, with the longest game length OpenSpiel takes
    game = pyspiel.load_game(register("pan", players=3, max_steps=largest))
    assert game.max_game_length() == largest * most_steps <= MAX_GAME_LENGTH
    # the generic game refuses it as well (with a max_steps OpenSpiel's own parameter can hold)
    with pytest.raises(OptionError, match=rf"max_steps must be at most {largest} for OpenSpiel, not 1000000000"):
        pyspiel.load_game("rulesengine(ruleset=pan,players=3,max_steps=1000000000)")
    assert pyspiel.load_game(f"rulesengine(ruleset=pan,players=3,max_steps={largest})").max_game_length() == (
        largest * most_steps
    )


def test_openspiel_refuses_a_name_it_could_not_register(pyspiel):
    from rulesengine.adapters.openspiel import register

    for name in (5, b"pan", ["pan"]):
        with pytest.raises(ValueError, match="an OpenSpiel game name is a text of letters, digits and '_'"):
            register("pan", short_name=name)
    # one of OpenSpiel's own games is not replaced
    with pytest.raises(ValueError, match="'tic_tac_toe' is already registered for another game"):
        register("pan", short_name="tic_tac_toe")
    game = pyspiel.load_game("tic_tac_toe")
    assert game.get_type().long_name == "Tic Tac Toe" and game.num_distinct_actions() == 9


def test_openspiel_observers_refuse_a_state_of_another_game(pyspiel):
    from open_spiel.python.observation import make_observation

    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register("padan"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    observation = make_observation(game)
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    other_rules = pyspiel.load_game(register("pan", players=3, options={"word": "P"})).new_initial_state()
    other_game = pyspiel.load_game("tic_tac_toe").new_initial_state()
    for observer in (observation, recall):
        with pytest.raises(EngineError, match="got one of 'Pan' \\(3 players"):
            observer.string_from(other_rules, 0)
        with pytest.raises(EngineError, match="needs a state of this rulesengine game, not TicTacToeState"):
            observer.string_from(other_game, 0)
    with pytest.raises(EngineError, match="observation_tensor needs a State of 'Padan'"):
        observation.set_from(other_rules, 0)
    with pytest.raises(EngineError, match="not TicTacToeState"):
        observation.set_from(other_game, 0)
    # still observing its own game's states, as the state itself does
    observation.set_from(state, 1)
    assert list(observation.tensor) == pytest.approx(state.observation_tensor(1))
    assert recall.string_from(state, 0) == state.information_state_string(0)
    with pytest.raises(ValueError, match="a pyspiel.IIGObservationType or None, not 'x'"):
        game.make_py_observer("x")


def test_openspiel_resampling_refuses_a_sampler_of_no_probability(pyspiel):
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register("padan"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = str(state)
    for drawn in ("x", None, -0.5, 1.5, float("nan"), True):
        with pytest.raises(EngineError, match="probability sampler must return a number from 0 to 1"):
            state.resample_from_infostate(0, lambda drawn=drawn: drawn)
    with pytest.raises(EngineError, match="needs a probability sampler"):
        state.resample_from_infostate(0, 0.5)
    assert str(state) == before
    sample = state.resample_from_infostate(0, lambda: 0.25)
    assert sample.information_state_string(0) == state.information_state_string(0)


# ---- PettingZoo ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pettingzoo():
    return pytest.importorskip("pettingzoo")


MATCH_ATTRIBUTES = ("agents", "num_agents", "agent_selection", "rewards", "terminations", "truncations", "infos")


def test_pettingzoo_before_reset_everything_asks_for_it(pettingzoo):
    from rulesengine.adapters.pettingzoo import ResetFirstError, env

    environment = env("pan", seed=1, render_mode="ansi")
    for name in MATCH_ATTRIBUTES:
        with pytest.raises(ResetFirstError, match=rf"reset\(\) starts a match: call it before reading {name}$"):
            getattr(environment, name)
        assert not hasattr(environment, name)  # an AttributeError too, as PettingZoo's wrapper raises
        assert getattr(environment, name, "absent") == "absent"
    assert issubclass(ResetFirstError, EngineError) and issubclass(ResetFirstError, AttributeError)
    for call, asked in (
        (lambda: environment.last(), "last"),
        (lambda: environment.last(observe=False), "last"),
        (lambda: environment.render(), "render"),
        (lambda: environment.agent_iter(), "agent_iter"),
        (lambda: environment.step(0), "step"),
        (lambda: environment.observe("player_0"), "observe"),
    ):
        with pytest.raises(EngineError, match=rf"reset\(\) starts a match: call it before {asked}\(\)"):
            call()
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        environment.no_such_thing  # noqa: B018 (other attributes are missing as usual)
    # the refusals changed nothing: the environment deals as a fresh one with the same seed
    environment.reset()
    fresh = env("pan", seed=1)
    fresh.reset()
    assert environment.state.zones == fresh.state.zones
    assert environment.last() is not None and environment.num_agents == 3
    mover = environment.agent_selection
    assert mover in environment.agents and f"{mover} to move" in environment.render()


def test_pettingzoo_after_every_agent_left_step_and_last_are_refused(pettingzoo):
    from rulesengine.adapters.pettingzoo import env

    environment = env("pan", players=2, options={"word": "P"})
    environment.reset(seed=3)
    _finish(environment, 3)
    assert environment.agents == [] and environment.state.is_terminal()
    actions, returns = environment.state.actions(), environment.state.returns()
    for call, asked in (
        (lambda: environment.step(None), "step"),
        (lambda: environment.step(0), "step"),
        (lambda: environment.last(), "last"),
        (lambda: environment.last(observe=False), "last"),
    ):
        with pytest.raises(EngineError, match=rf"every agent has left it: {asked}\(\) has no agent; call reset\(\)"):
            call()
    assert environment.state.actions() == actions and environment.state.returns() == returns
    assert environment.agents == [] and environment.rewards == {}
    assert list(environment.agent_iter()) == []  # nothing left to step
    final = environment.observe("player_0")  # the final state can still be observed
    assert final["observation"].shape == environment.observation_space("player_0")["observation"].shape
    # a new match plays as usual
    environment.reset(seed=3)
    assert environment.num_agents == 2
    _finish(environment, 3)
    assert environment.state.actions() == actions


def test_pettingzoo_a_finished_agent_steps_with_none_only(pettingzoo):
    from rulesengine.adapters.pettingzoo import env

    environment = env("pan", players=2, options={"word": "P"})
    environment.reset(seed=5)
    rng = random.Random(5)
    while True:
        observation, _reward, termination, truncation, _info = environment.last()
        if termination or truncation:
            break
        environment.step(rng.choice([a for a, bit in enumerate(observation["action_mask"]) if bit]))
    agent = environment.agent_selection
    with pytest.raises(IllegalActionError, match=rf"{agent}'s match is over: it steps with None to leave, not 0"):
        environment.step(0)
    assert agent in environment.agents and environment.terminations[agent]  # it has not left
    environment.step(None)
    assert agent not in environment.agents


def test_pettingzoo_a_refused_reset_changes_nothing(pettingzoo):
    from rulesengine.adapters.pettingzoo import env

    a, b = env("pan", seed=5), env("pan", seed=5)
    for seed in (2**64, -(2**64)):
        with pytest.raises(OptionError, match=rf"seed must be a whole number from .* not {seed}"):
            a.reset(seed=seed)
    with pytest.raises(OptionError, match="seed is a whole number or None"):
        a.reset(seed=1.5)
    assert a.state is None and not hasattr(a, "agents")  # still before the first match
    for _ in range(2):  # the generator was not touched: the same matches as b's
        a.reset()
        b.reset()
        assert a.state.zones == b.state.zones
    # refused in the middle of a match: the match goes on as it was
    a.reset(seed=8)
    b.reset(seed=8)
    mover = a.agent_selection
    legal = int(next(i for i, bit in enumerate(a.observe(mover)["action_mask"]) if bit))
    a.step(legal)
    b.step(legal)
    state, selection = a.state, a.agent_selection
    with pytest.raises(OptionError, match="seed must be a whole number from"):
        a.reset(seed=2**64)
    assert a.state is state and a.agent_selection == selection and a.state.actions() == [legal]
    _finish(a, 2)
    _finish(b, 2)
    assert a.state.actions() == b.state.actions()
    a.reset()
    b.reset()
    assert a.state.zones == b.state.zones


def test_pettingzoo_refuses_an_agent_it_does_not_have(pettingzoo):
    from rulesengine.adapters.pettingzoo import RulesEnv, env

    environment = env("padan", seed=1)
    environment.reset()
    for agent in ("player_2", "player_-1", 0, None, ["player_0"]):
        for method in ("observe", "observation_space", "action_space"):
            with pytest.raises(EngineError, match=rf"{method} needs an agent of this environment, player_0 to"):
                getattr(environment, method)(agent)
    assert environment.observe("player_1")["observation"] in environment.observation_space("player_1")["observation"]
    assert environment.action_space("player_0").n == environment.game.num_distinct_actions
    with pytest.raises(OptionError, match="RulesEnv plays a Game"):
        RulesEnv("padan")


def test_pettingzoo_order_enforcing_wrapper_keeps_its_conventions(pettingzoo):
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    from rulesengine.adapters.pettingzoo import env

    wrapped = OrderEnforcingWrapper(env("pan", players=2, options={"word": "P"}))
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        wrapped.agents  # noqa: B018
    wrapped.reset(seed=2)
    _finish(wrapped, 2)
    wrapped.step(None)  # PettingZoo's warning there, and nothing else
    assert wrapped.agents == []
