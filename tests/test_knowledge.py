"""The knowledge model: information states from the kept trail agree with a replay."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import State
from rulesengine.resources import shipped_rulesets
from tests.reference_information import replayed_key, replayed_observations

ROOT = Path(__file__).resolve().parent.parent
TINY = str(Path(__file__).parent / "games" / "tiny-hidden.yaml")
EXAMPLES = sorted(str(p) for p in (ROOT / "examples").glob("*.yaml"))
GAMES = [(name, 2) for name in shipped_rulesets()] + [(path, None) for path in EXAMPLES] + [("pan", 3)]


def game_of(name: str, players: int | None) -> rulesengine.Game:
    ruleset = rulesengine.load_ruleset(name)
    count = players if players is not None else ruleset.min_players
    return rulesengine.make_game(ruleset, players=count)


def step_randomly(state: State, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_action(rng.choice([c for c, _ in state.chance_outcomes()]))
    else:
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name,players", GAMES, ids=lambda v: Path(str(v)).stem if v else "")
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000), seeded=st.booleans(), length=st.integers(0, 120))
def test_information_state_equals_the_replay(name, players, seed, seeded, length):
    game = game_of(name, players)
    rng = random.Random(seed)
    state = game.new_initial_state(seed if seeded else None)
    for number in range(length):
        if state.is_terminal():
            break
        step_randomly(state, rng)
        if number % 37 == 5:  # ask on the way: what is kept must be continued correctly
            state.information_state_key(number % game.num_players)
    twin = state.clone()
    for player in range(game.num_players):
        assert state.information_state(player) == replayed_observations(state, player)
        assert state.information_state(player)[-1] == state.observation(player)
    for _ in range(10):
        if twin.is_terminal():
            break
        step_randomly(twin, rng)
    for player in range(game.num_players):
        assert twin.information_state(player) == replayed_observations(twin, player)


def all_deals(game: rulesengine.Game, actions_after: int, rng: random.Random) -> list[State]:
    """States after every shuffle of the tiny game, then the same first actions where legal."""
    states = []
    for order in itertools.permutations(range(game.program.num_cards)):
        state = game.new_initial_state()
        for card in order[:-1]:
            state.apply_action(card)
        for _ in range(actions_after):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0])
        states.append(state)
    return states


@pytest.mark.parametrize("actions_after", [0, 1, 2, 3])
def test_keys_partition_states_as_the_replayed_observations_do(actions_after):
    """Same key exactly when the same observations: across every deal of a small game."""
    game = rulesengine.make_game(TINY)
    states = all_deals(game, actions_after, random.Random(actions_after))
    for player in (0, 1):
        new: dict[str, set] = {}
        old: dict[str, set] = {}
        for index, state in enumerate(states):
            new.setdefault(state.information_state_key(player), set()).add(index)
            old.setdefault(replayed_key(state, player), set()).add(index)
        assert sorted(map(sorted, new.values())) == sorted(map(sorted, old.values()))
        assert 1 < len(new) < len(states)  # the test means something: some states are told apart, some not


def test_knowledge_follows_what_a_player_saw():
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=4)
    known = state.knowledge(0)
    hand = state.observation(0)["zones"]["hand[P1]"]
    assert all(known[card] == "hand[P1]" for card in hand)
    assert all(known[card] is None for card in state.observation(1)["zones"]["hand[P2]"])
    mover = state.current_player()
    action = state.legal_actions()[0]
    state.apply_action(action)
    played = state.observation(0)["zones"]["pile"]
    assert all(state.knowledge(p)[card] == "pile" for p in (0, 1) for card in played)
    assert mover in (0, 1)


def test_a_clone_keeps_its_own_knowledge():
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=2)
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert state.knowledge(0) == game.new_initial_state(seed=2).knowledge(0)
    assert state.known is not twin.known


def test_information_state_is_the_callers_to_change():
    """The observations are kept between calls and shared with clones; what a caller is given
    are copies, so changing them changes neither the state nor its clones."""
    state = rulesengine.make_game("pan", players=3).new_initial_state(seed=1)
    for _ in range(30):
        state.apply_action(state.legal_actions()[0])
    before = state.information_state(0)
    twin = state.clone()
    given = state.information_state(0)
    given[0]["zones"]["stock"] = 12345
    given[-1]["zones"]["hand[P1]"].append("forged")
    given[-1]["variables"].clear()
    given.pop()
    assert state.information_state(0) == before == twin.information_state(0)


def test_a_record_shares_the_parts_that_did_not_change():
    """Each step appends a record to the trail; the variables, the seats in the round and the
    public position, when equal to the previous record's, are that record's own objects (a
    long match keeps no second copy for the garbage collector to walk). The information
    states stay those of the replay."""
    game = game_of("padan", 2)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    shared = {"values": 0, "active": 0}
    for _ in range(150):
        before = state.trail[1]
        step_randomly(state, rng)
        after = state.trail[1]
        if type(before[0]) is not tuple or type(after[0]) is not tuple:
            continue  # a pick, commit or base record
        if after[1] == before[1]:
            assert after[1] is before[1]
            shared["values"] += 1
        if after[2][4] == before[2][4]:
            assert after[2][4] is before[2][4]
            shared["active"] += 1
        if after[2] == before[2]:
            assert after[2] is before[2]
    assert shared["values"] > 20 and shared["active"] > 100
    assert state.information_state(0) == replayed_observations(state, 0)
