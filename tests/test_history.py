"""A state's history: every step's value, kept cheaply and shared by clones.

The values since the last clone are a list of the state's own; earlier ones are cells shared
with the clones. The oracle here is the plainest record there is: a list of (value, is chance
outcome) appended at every step and copied at every clone.
"""

from __future__ import annotations

import pickle
import random
import re

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError
from rulesengine.position import Position, set_position


@pytest.fixture(scope="module")
def game():
    return rulesengine.make_game("padan", players=2)


def _step(state, rng: random.Random) -> tuple[int, bool]:
    """Apply one random step (a chance outcome or a player's action); return what it records."""
    if state.is_chance_node():
        value = rng.choice(state.chance_outcomes())[0]
        state.apply_action(value)
        return value, True
    value = rng.choice(state.legal_actions())
    state.apply_action(value)
    return value, False


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    plan=st.lists(st.tuples(st.integers(0, 40), st.booleans(), st.integers(0, 7)), min_size=1, max_size=12),
)
def test_history_matches_a_plain_record_through_clones(game, seed, plan):
    """Steps and clones in any order (clones of clones, the original played on after a clone):
    each state's history is exactly the steps it went through."""
    rng = random.Random(seed)
    states = [(game.new_initial_state(seed=None if seed % 2 else seed), [])]  # unseeded: chance steps too
    for steps, clone, which in plan:
        state, record = states[which % len(states)]
        for _ in range(steps):
            if state.is_terminal():
                break
            record.append(_step(state, rng))
        if clone:
            states.append((state.clone(track=bool(which % 2)), record[:]))
    for state, record in states:
        assert state.history_list() == record
        assert state.actions() == [value for value, is_chance in record if not is_chance]


def test_steps_without_clones_make_no_cells(game):
    """The chain grows by one cell per clone, not one per step: the garbage collector has
    nothing new to walk while a match is played."""
    state = game.new_initial_state(seed=1, track=False)
    rng = random.Random(1)
    for _ in range(200):
        _step(state, rng)
    assert state.history is None and len(state.history_list()) == 200
    copy = state.clone()
    assert copy.history is state.history and state.history is not None
    assert state.history_list() == copy.history_list()
    copy.clone()  # nothing recorded since the last clone: no new cell
    assert copy.history is state.history


def test_a_pickled_state_replays_its_history(game):
    state = game.new_initial_state()  # unseeded: the shuffles are in the history too
    rng = random.Random(5)
    for _ in range(120):
        _step(state, rng)
        if rng.random() < 0.1:
            state.clone()  # part of the history in shared cells
    again = pickle.loads(pickle.dumps(state))
    assert again.history_list() == state.history_list()
    assert again.zones == state.zones and again.vars == state.vars


def test_a_state_put_into_a_position_forgets_its_past(game):
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    while state.is_chance_node() or state.steps < 10:
        _step(state, rng)
    position = Position(
        zones=tuple(map(tuple, state.zones)),
        variables=tuple(state.vars),
        phase=state.phase,
        current=state.current,
        round_number=state.round_number,
    )
    set_position(state, position)
    assert state.history_list() == []
    action = state.legal_actions()[0]
    state.apply_action(action)
    assert state.actions() == [action]
    with pytest.raises(EngineError, match="no history from the start"):
        pickle.dumps(state)


def test_a_resampled_state_forgets_the_true_past(game):
    state = game.new_initial_state(seed=4)
    rng = random.Random(4)
    while state.steps < 30:
        _step(state, rng)
    sample = state.resample(state.current, random.Random(0))
    # at most the steps replayed since the last shuffle, relabeled: never the true match's past
    kept = sample.history_list()
    assert len(kept) <= len(state.history_list())
    with pytest.raises(EngineError, match="no history from the start"):
        pickle.dumps(sample)  # unpickling replays from the seed, which would give another state
    if not sample.is_terminal():
        value = _step(sample, rng)
        assert sample.history_list() == [*kept, value]


def test_history_since_needs_a_state_this_one_went_on_from(game):
    state = game.new_initial_state(seed=2)
    rng = random.Random(2)
    for _ in range(20):
        _step(state, rng)
    checkpoint = state.clone()
    later = [_step(state, rng) for _ in range(5)]
    assert state.history_since(checkpoint) == later
    stranger = game.new_initial_state(seed=2)
    _step(stranger, rng)
    stranger.clone()
    with pytest.raises(EngineError, match="did not go on from"):
        state.history_since(stranger)
    checkpoint.apply_action(checkpoint.legal_actions()[0])  # played on: no longer a checkpoint
    with pytest.raises(EngineError, match="played on after it was cloned"):
        state.history_since(checkpoint)
    # a state at the start has no history to tell it by: another game's or seed's is refused
    assert state.history_since(game.new_initial_state(seed=2)) == state.history_list()
    for other in (game.new_initial_state(seed=9), rulesengine.make_game("pan").new_initial_state(seed=2)):
        with pytest.raises(EngineError, match="did not go on from"):
            state.history_since(other)


def _standing(state) -> Position:
    """The position a state stands at, written out."""
    return Position(
        zones=tuple(tuple(cards) for cards in state.zones),
        variables=tuple(state.vars),
        phase=state.phase,
        current=state.current,
        round_number=state.round_number,
    )


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ({"current": 7}, "the player to move must be a seat from 0 to 1, not 7"),
        ({"current": -1}, "the player to move must be a seat"),
        ({"phase": 99}, "the phase must be a phase's index"),
        ({"direction": 0}, "the direction of play is 1 or -1"),
        ({"round_number": 0}, "round_number must be a whole number of at least 1"),
        ({"out": frozenset({5})}, "the players out must be seats"),
        ("a card twice", "every card must lie in exactly one zone"),
        ("a card missing", "every card must lie in exactly one zone"),
    ],
)
def test_a_position_that_cannot_be_is_refused_and_changes_nothing(game, change, refusal):
    state = game.new_initial_state(seed=1)
    twin = state.clone()
    position = _standing(state)
    zones = list(position.zones)
    full = next(i for i, cards in enumerate(zones) if cards)
    if change == "a card twice":
        other = next(i for i in range(len(zones)) if i != full)
        zones[other] += (zones[full][0],)
        position = attrs.evolve(position, zones=tuple(zones))
    elif change == "a card missing":
        zones[full] = zones[full][1:]
        position = attrs.evolve(position, zones=tuple(zones))
    else:
        position = attrs.evolve(position, **change)
    with pytest.raises(ValueError, match=re.escape(refusal)):
        set_position(state, position)
    assert state.zones == twin.zones and state.where == twin.where and state.vars == twin.vars
    assert state.observation(0) == twin.observation(0) and state.current == twin.current


@pytest.mark.parametrize("optimize", [True, False])
def test_a_log_past_its_limit_stops_and_the_match_goes_on(monkeypatch, optimize):
    """A valid file may log a whole zone at every step: the log stops growing at its limit,
    with a line that says so, and the match is played as it is without a log."""
    from rulesengine import engine

    monkeypatch.setattr(engine, "MAX_LOG_CHARACTERS", 2_000)
    game = rulesengine.make_game("padan", players=2, options={"target": 1}, optimize=optimize)
    logged = game.new_initial_state(seed=5, record_log=True)
    silent = game.new_initial_state(seed=5)
    rng = random.Random(5)
    while not logged.is_terminal():
        action = rng.choice(logged.legal_actions())
        logged.apply_action(action)
        silent.apply_action(action)
    assert silent.is_terminal() and logged.returns() == silent.returns()
    assert logged.log[-1] == "(the log stops here: it passed 2,000 characters; the match goes on)"
    assert sum(map(len, logged.log[:-1])) <= 2_000 < logged.log.characters
    assert logged.log_for(0)[-1] == logged.log[-1]
