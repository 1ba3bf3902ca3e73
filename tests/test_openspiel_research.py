"""OpenSpiel for research use: ISMCTSBot, serialization, pickling, loading by name in a fresh
process, the declared utility and game length. Skipped only when open_spiel is not installed."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rulesengine.api import make_game
from tests.test_knowledge import TINY

pyspiel = pytest.importorskip("pyspiel")
openspiel = pytest.importorskip("rulesengine.adapters.openspiel")

ROOT = Path(__file__).resolve().parent.parent
# every shipped ruleset and example, with options that keep a match short
SHORT = [
    ("pan", 2, "word:P"),
    ("pan-reversed-spades", 2, "word:P"),
    ("padan", 2, "target:1"),
    ("padan-original", 2, "target:1"),
    ("padvinderspel", 2, "target:1"),
    ("examples/fishing.yaml", 2, "target:1"),
    ("examples/ladder.yaml", 3, "deals:1"),
    ("examples/pan-house-rules.yaml", 4, "word:P"),
    ("examples/tutorial-game.yaml", 2, "target:1;hand_size:3"),
    ("examples/knock-out-whist.yaml", 3, ""),
    ("examples/partnership-spades.yaml", 4, "deals:1"),
    ("examples/in-between.yaml", 3, "hands:2"),
    ("examples/goofspiel.yaml", 2, ""),
    ("examples/sum-capture.yaml", 2, "target:1"),
]


def game_string(name: str, players: int, options: str) -> str:
    return f"rulesengine(ruleset={name},players={players}" + (f",options={options})" if options else ")")


def play_randomly(state, rng: random.Random, steps: int):
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_every_shipped_game_is_listed():
    from rulesengine.resources import shipped_rulesets

    listed = {name for name, _, _ in SHORT}
    assert set(shipped_rulesets()) <= listed
    assert {f"examples/{p.name}" for p in (ROOT / "examples").glob("*.yaml")} <= listed


@pytest.mark.parametrize("name,players,options", SHORT, ids=[Path(n).stem for n, _, _ in SHORT])
def test_random_simulation_with_serialization(name, players, options):
    game = pyspiel.load_game(game_string(str(ROOT / name) if name.startswith("examples") else name, players, options))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_games_and_states_pickle():
    for text in (game_string("padan", 2, "target:3"), openspiel.register("pan", players=3, options={"word": "P"})):
        game = pyspiel.load_game(text)
        again = pickle.loads(pickle.dumps(game))
        assert str(again) == str(game) and again.num_distinct_actions() == game.num_distinct_actions()
        state = play_randomly(game.new_initial_state(), random.Random(3), 60)
        copy = pickle.loads(pickle.dumps(state))
        assert str(copy) == str(state) and copy.history() == state.history()
        assert copy.information_state_string(1) == state.information_state_string(1)
        text_form = pyspiel.serialize_game_and_state(game, state)
        _, restored = pyspiel.deserialize_game_and_state(text_form)
        assert restored.inner.zones == state.inner.zones


def test_load_game_with_parameters_in_a_fresh_process():
    code = (
        "import pyspiel, rulesengine.adapters.openspiel\n"
        "g = pyspiel.load_game('rulesengine(ruleset=padan,players=2,options=target:5)')\n"
        "print(g.num_players(), g.num_distinct_actions(), g.get_parameters()['options'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    expected = make_game("padan", 2, {"target": 5})
    assert done.stdout.split() == ["2", str(expected.num_distinct_actions), "target:5"]


def test_a_bad_game_string_says_what_is_wrong():
    with pytest.raises(Exception, match="unknown option 'targte'"):
        pyspiel.load_game("rulesengine(ruleset=padan,options=targte:5)")


def test_utility_and_game_length_are_declared():
    two = pyspiel.load_game(game_string("pan", 2, "word:P"))
    three = pyspiel.load_game(game_string("pan", 3, "word:P"))
    assert two.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and two.utility_sum() == 0.0
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    for seed in range(3):
        final = play_randomly(two.new_initial_state(), random.Random(seed), 100_000)
        assert sum(final.returns()) == 0.0
    short = pyspiel.load_game("rulesengine(ruleset=padan,players=2,max_steps=40)")
    assert short.max_game_length() == 40
    final = play_randomly(short.new_initial_state(), random.Random(1), 100_000)
    decisions = sum(1 for _ in final.inner.actions())
    assert final.is_terminal() and decisions == 40 and final.returns() == [0.0, 0.0]


def test_openspiel_ismcts_bot_plays_through_resampling():
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(game_string(TINY, 2, ""))
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(
        game=game, evaluator=evaluator, uct_c=1.0, max_simulations=20, random_state=np.random.RandomState(2)
    )
    for seed in range(3):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif state.current_player() == 0:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    state = play_randomly(game.new_initial_state(), random.Random(0), 6)
    sample = state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0))
    player = state.current_player()
    assert sample.information_state_string(player) == state.information_state_string(player)


def test_the_generic_game_needs_a_ruleset():
    with pytest.raises(Exception, match="needs ruleset=NAME"):
        pyspiel.load_game("rulesengine(players=2)")


def test_an_observer_of_another_kind_than_a_players_own_view_is_refused():
    from open_spiel.python.observation import make_observation

    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register("padan"))
    for kind in (
        pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE),
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        ),
        pyspiel.IIGObservationType(perfect_recall=True, public_info=False),
    ):
        with pytest.raises(ValueError, match="only a player's own view is provided"):
            make_observation(game, kind)
    assert make_observation(game).tensor is not None  # the default: the player's own view


def test_the_generic_game_refuses_what_its_game_string_could_not_hold():
    import rulesengine.adapters.openspiel  # noqa: F401  (registers the generic game)

    for params in ({"options": "word:P,A"}, {"options": "word:P=A"}, {"options": "word:(P)"}):
        with pytest.raises(ValueError, match="options cannot hold"):
            pyspiel.load_game("rulesengine", {"ruleset": "pan", "players": 2, **params})
    game = pyspiel.load_game("rulesengine", {"ruleset": "pan", "players": 2, "options": "word:PA"})
    state = game.new_initial_state()
    again, _ = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(again) == str(game)
