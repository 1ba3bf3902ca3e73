"""The OpenSpiel and PettingZoo adapters, and the observation tensor they share.

The OpenSpiel and PettingZoo tests are skipped only when their extra is not installed.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesengine.adapters.observation import ObservationEncoder, encode_observation, observation_layout
from rulesengine.api import make_game
from rulesengine.diagnostics import IllegalActionError

# Small but complete matches: Pan with a one-letter word ends after one deal.
GAMES = [("pan", 2, {"word": "P"}), ("pan", 3, {"word": "P"}), ("padan", None, None), ("padvinderspel", None, None)]


def _play_randomly(state, rng: random.Random, steps: int):
    """Up to `steps` random decisions (chance outcomes too, if the state has any)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def _scramble_hidden(state, player: int, rng: random.Random):
    """A copy of `state` whose zones hidden from `player` hold other cards (same sizes)."""
    other = state.clone()
    encoder = ObservationEncoder(state.game)
    hidden = [z for z in range(len(other.zones)) if not encoder.may_see(z, player)]
    cards = [card for z in hidden for card in other.zones[z]]
    rng.shuffle(cards)
    for z in hidden:
        size = len(other.zones[z])
        other.zones[z], cards = cards[:size], cards[size:]
        for card in other.zones[z]:
            other.where[card] = z
    return other


# ---- the observation tensor (no extra needed) ------------------------------------------


@pytest.mark.parametrize("name, players, options", GAMES)
def test_layout_matches_the_encoding(name, players, options):
    game = make_game(name, players, options)
    layout = observation_layout(game)
    state = game.new_initial_state(seed=1)
    values = encode_observation(state, 0)
    assert len(values) == sum(size for _, size in layout) == ObservationEncoder(game).size
    assert len({part for part, _ in layout}) == len(layout)  # the names are unique
    parts = ObservationEncoder(game).split(values)
    assert parts["player"][0] == 1.0 and sum(parts["player"]) == 1.0
    assert parts["zone_sizes"] == [float(len(z)) for z in state.zones]


@given(
    game_index=st.integers(0, len(GAMES) - 1),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    player=st.integers(0, 5),
)
def test_the_tensor_never_holds_a_hidden_card(game_index, seed, steps, player):
    name, players, options = GAMES[game_index]
    game = make_game(name, players, options)
    player %= game.num_players
    rng = random.Random(seed)
    state = _play_randomly(game.new_initial_state(seed=seed), rng, steps)
    encoder = ObservationEncoder(game)
    values = encoder.encode(state, player)
    parts = encoder.split(values)
    visible = state.observation(player)["zones"]
    names = game.program.card_names
    for zone, zone_name in enumerate(game.program.zone_names):
        block = parts.get(f"zone:{zone_name}")
        if block is None:  # a zone nobody sees has no block at all
            assert game.program.zone_visibility[zone] == "nobody"
            continue
        marked = sorted(names[c] for c, bit in enumerate(block) if bit)
        expected = sorted(visible[zone_name]) if isinstance(visible[zone_name], list) else []
        assert marked == expected
    # The strongest form: other cards in the hidden zones give exactly the same numbers.
    assert encoder.encode(_scramble_hidden(state, player, rng), player) == values


def test_a_scrambled_state_can_differ_for_the_owner():
    """The scramble above really moves hidden cards: the owner of a hand sees the change."""
    game = make_game("padan")
    state = game.new_initial_state(seed=4)
    rng = random.Random(0)
    encoder = ObservationEncoder(game)
    changed = any(encoder.encode(_scramble_hidden(state, 0, rng), 1) != encoder.encode(state, 1) for _ in range(5))
    assert changed


# ---- OpenSpiel ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyspiel():
    return pytest.importorskip("pyspiel")


@pytest.mark.parametrize("name, players, options", GAMES)
def test_openspiel_random_simulation(pyspiel, name, players, options):
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register(name, players=players, options=options))
    assert game.num_distinct_actions() == make_game(name, players, options).num_distinct_actions
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_openspiel_chance_observations_and_returns(pyspiel):
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register("padan"))
    engine = make_game("padan")
    encoder = ObservationEncoder(engine)
    rng = random.Random(7)
    state = game.new_initial_state()
    assert state.is_chance_node()  # the first shuffle is OpenSpiel's to draw
    chance_nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            chance_nodes += 1
            state.apply_action(rng.choice(outcomes)[0])
            continue
        player = state.current_player()
        assert list(state.observation_tensor(player)) == pytest.approx(encoder.encode(state.inner, player))
        assert json.loads(state.observation_string(player)) == json.loads(json.dumps(state.inner.observation(player)))
        for seat in range(2):  # perfect recall: the key of the engine's information state
            assert state.information_state_string(seat) == state.inner.information_state_key(seat)
        copy = state.clone()
        action = rng.choice(state.legal_actions())
        copy.apply_action(action)
        assert copy.history() != state.history()  # a clone is independent of its original
        state.apply_action(action)
    assert chance_nodes > 0
    returns = state.returns()
    assert returns == state.inner.returns()
    assert sorted(returns) == [-1.0, 1.0] or returns == [0.0, 0.0]


@pytest.mark.parametrize("name, players", [("pan", 3), ("padan", 2)])
def test_openspiel_python_shortcuts_answer_as_pyspiel_does(pyspiel, name, players):
    """legal_actions and is_chance_node answer Python callers directly: the same as the C++ path."""
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register(name, players=players))
    rng = random.Random(3)
    state = game.new_initial_state()
    seen = set()
    while True:
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for player in range(players):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        seen.add(state.current_player())
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert {-1, -4, *range(players)} <= seen  # chance, the end and every seat were compared


def test_openspiel_information_states_are_strings_only(pyspiel):
    from rulesengine.adapters.openspiel import register

    game = pyspiel.load_game(register("padan"))
    kind = game.get_type()
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert observer.tensor is None
    state = game.new_initial_state()
    assert observer.string_from(state, 1) == state.inner.information_state_key(1)


def test_openspiel_missing_extra_is_explained(monkeypatch):
    from rulesengine.adapters import openspiel

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    with pytest.raises(ImportError, match=r"rulesengine\[openspiel\]"):
        openspiel.register("padan")


def test_openspiel_names(pyspiel):
    from rulesengine.adapters.openspiel import register

    first = register("pan", players=2, options={"word": "P"})
    assert register("pan", players=2, options={"word": "P"}) == first
    with pytest.raises(ValueError, match="already registered"):
        register("padan", short_name=first)


def test_openspiel_refuses_what_it_could_not_load(pyspiel):
    from rulesengine.adapters.openspiel import register
    from rulesengine.diagnostics import OptionError

    with pytest.raises(ValueError, match="option 'word' is given twice"):
        pyspiel.load_game("rulesengine(ruleset=pan,options=word:P;word:Q)")
    with pytest.raises(OptionError, match="max_steps must be at least 1, not -5"):
        pyspiel.load_game("rulesengine(ruleset=padan,max_steps=-5)")
    with pytest.raises(ValueError, match="only letters, digits and '_'"):
        register("padan", short_name="bad name(with)=chars")


def test_registering_a_game_again_after_its_ruleset_was_loaded_anew(pyspiel, monkeypatch):
    # a process that loads many rulesets checks one again once it is no longer kept
    from rulesengine import api
    from rulesengine.adapters.openspiel import register

    first = register("pan", players=3, options={"word": "Q"})
    monkeypatch.setattr(api, "_kept", {})
    assert register("pan", players=3, options={"word": "Q"}) == first


# ---- PettingZoo ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pettingzoo():
    return pytest.importorskip("pettingzoo")


@pytest.mark.parametrize("name, players, options", [GAMES[0], GAMES[2]])
@pytest.mark.filterwarnings("ignore::UserWarning")  # the API test's advice about Dict observations
def test_pettingzoo_api(pettingzoo, name, players, options):
    from pettingzoo.test import api_test

    from rulesengine.adapters.pettingzoo import env

    api_test(env(name, players=players, options=options, seed=3), num_cycles=200)


def _episode(environment, seed: int) -> tuple[list[int], dict[str, float]]:
    """A whole random match using the masks; the actions and the final rewards."""
    environment.reset(seed=seed)
    rng = random.Random(seed)
    actions, final = [], {}
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _info = environment.last()
        if termination or truncation:
            final[agent] = reward
            environment.step(None)
            continue
        mask = observation["action_mask"]
        for other in environment.agents:  # only the agent to move has legal actions
            assert environment.observe(other)["action_mask"].any() == (other == agent)
        assert observation in environment.observation_space(agent)
        action = rng.choice([a for a, bit in enumerate(mask) if bit])
        actions.append(action)
        environment.step(action)
    return actions, final


@pytest.mark.parametrize("name, players, options", GAMES)
def test_pettingzoo_episode_ends_with_the_returns(pettingzoo, name, players, options):
    from rulesengine.adapters.pettingzoo import env

    environment = env(name, players=players, options=options)
    actions, final = _episode(environment, seed=11)
    state = environment.state
    assert state.is_terminal() and environment.agents == []
    assert final == {f"player_{p}": r for p, r in enumerate(state.returns())}
    assert actions == state.actions()
    assert _episode(env(name, players=players, options=options), seed=11)[0] == actions  # the seed decides


def test_pettingzoo_illegal_action_and_render(pettingzoo):
    from rulesengine.adapters.pettingzoo import env

    environment = env("padan", seed=2, render_mode="ansi")
    environment.reset(seed=2)
    mask = environment.observe(environment.agent_selection)["action_mask"]
    illegal = int(next(a for a, bit in enumerate(mask) if not bit))
    with pytest.raises(IllegalActionError, match="not legal"):
        environment.step(illegal)
    assert environment.state.actions() == []  # the illegal action changed nothing
    legal = int(next(a for a, bit in enumerate(mask) if bit))
    for not_an_id in (legal + 0.9, float(legal), str(legal)):  # never truncated or converted
        with pytest.raises(IllegalActionError, match="an action is an integer id"):
            environment.step(not_an_id)
    assert environment.state.actions() == []
    mover = environment.agent_selection
    text = environment.render()
    assert f"{mover} to move" in text
    # The player to move sees its own draft and only the size of the other's.
    own = int(mover[-1]) + 1  # zone names number players from 1
    lines = dict(line.strip().split(": ", 1) for line in text.splitlines()[1:] if ": " in line)
    assert lines[f"draft[P{3 - own}]"].endswith("hidden cards")
    assert lines[f"draft[P{own}]"] != "" and "hidden" not in lines[f"draft[P{own}]"]


# ---- the documentation ----------------------------------------------------------------------


def test_the_examples_in_the_documentation_run(capsys):
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    text = (Path(__file__).parent.parent / "docs" / "adapters.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    for block in blocks:
        exec(compile(block, "docs/adapters.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "player_0" in printed and "zone:hand[P1]" in printed


def test_pettingzoo_takes_numpy_seeds_and_asks_for_reset_first(pettingzoo):
    import numpy as np

    from rulesengine.adapters.pettingzoo import env
    from rulesengine.diagnostics import EngineError, OptionError

    environment = env("padan", seed=np.int64(3))
    with pytest.raises(EngineError, match="call it before step"):
        environment.step(0)
    with pytest.raises(EngineError, match="call it before observe"):
        environment.observe("player_0")
    environment.reset(seed=np.int64(4))
    first = environment.state.observation(0)
    environment.reset(seed=4)
    assert environment.state.observation(0) == first  # the same match as with the plain int
    for seed in (1.5, "4", True):
        with pytest.raises(OptionError, match="seed is a whole number or None"):
            environment.reset(seed=seed)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 500))
def test_the_tensor_tells_the_points_of_a_choice_in_steps_apart(seed):
    """Two points of one choice made in steps (other cards picked so far) have other legal
    actions, so the mover's tensor differs; the others' tensors show no pick at all."""
    game = make_game(str(Path(__file__).parents[1] / "examples" / "ladder.yaml"), players=3, options={"deals": 1})
    encoder = ObservationEncoder(game)
    state, rng = game.new_initial_state(seed=seed), random.Random(seed)
    while not state.is_terminal():
        points = []
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if after._pending:
                points.append(after)
        if len(points) >= 2:
            mover = state.current_player()
            first, second = points[:2]
            assert encoder.encode(first, mover) != encoder.encode(second, mover)
            for other in range(3):
                if other != mover:
                    assert encoder.encode(first, other) == encoder.encode(second, other)
            return
        state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("the match met no point of a choice made in steps")


def test_an_observation_tensor_is_of_a_seat():
    from rulesengine.diagnostics import EngineError

    state = make_game("padan").new_initial_state(seed=1)
    for player in (-1, 2, 1.0, "0"):
        with pytest.raises(EngineError, match="encode_observation needs a player from 0 to 1"):
            encode_observation(state, player)
