"""The generated fast paths decide exactly as the engine's general path does.

A step normally runs as two generated functions: the move's effects with the triggers,
then the phase's `settle` (pass the turn, list the next legal actions, with moves that go
over the same cards sharing one loop). The engine keeps a general path — the agenda, and
one enumerator per move — for steps a shuffle can interrupt. These tests play the same
matches both ways and require the same legal actions, logs and results at every step.
"""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.engine import Game

ROOT = Path(__file__).resolve().parent.parent

SETTINGS = [
    ("pan", 2, {}),
    ("pan", 3, {}),
    ("pan", 4, {"triples": "equal_or_higher", "fours": "equal_or_higher", "reversed_spades": True}),
    ("pan", 3, {"triples": "nines_only"}),
    ("pan-reversed-spades", 3, {}),
    ("padan", 2, {}),
    ("padan-original", 2, {}),
    ("padvinderspel", 4, {}),
    ("padvinderspel", 3, {"attach": "higher_only"}),
    (str(ROOT / "examples" / "tutorial-game.yaml"), 3, {}),
    (str(ROOT / "examples" / "ladder.yaml"), 3, {}),
    (str(ROOT / "examples" / "fishing.yaml"), 2, {}),
    (str(ROOT / "examples" / "knock-out-whist.yaml"), 4, {}),
    (str(ROOT / "examples" / "pan-house-rules.yaml"), 3, {}),
]


def general_path(game: Game) -> Game:
    """The same game with every step run through the agenda, as steps with a shuffle are."""
    program = game.program
    moves = tuple(attrs.evolve(move, step=None) for move in program.moves)
    return Game(attrs.evolve(program, moves=moves), max_steps=game.max_steps)


def legal_by_move(state) -> list[int]:
    """The legal actions from the per-move enumerators (no shared loops), a pass only when alone."""
    if state.is_terminal() or state.is_chance_node():
        return []
    program = state.program
    found: list[int] = []
    moves = [program.moves[i] for i in program.phases[state.phase].moves]
    for move in moves:
        if not move.is_pass:
            move.enumerate(state, state.current, found)
    if not found:
        for move in moves:
            if move.is_pass:
                move.enumerate(state, state.current, found)
    return sorted(set(found))


def play_both(name: str, players: int, options: dict, seed: int, max_steps: int = 3000) -> int:
    fast = rulesengine.make_game(name, players=players, options=options)
    general = general_path(fast)
    a = fast.new_initial_state(seed=seed, record_log=True)
    b = general.new_initial_state(seed=seed, record_log=True)
    rng = random.Random(seed)
    steps = 0
    while not a.is_terminal() and steps < max_steps:
        legal = a.legal_actions()
        assert legal == b.legal_actions(), f"step {steps}"
        assert legal == legal_by_move(a), f"step {steps}"
        action = rng.choice(legal)
        a.apply_action(action)
        b.apply_action(action)
        assert a.log == b.log
        steps += 1
    assert a.is_terminal() == b.is_terminal()
    assert a.zones == b.zones and a.vars == b.vars
    assert a.returns() == b.returns()
    return steps


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
def test_fast_and_general_paths_agree(name: str, players: int, options: dict) -> None:
    total = sum(play_both(name, players, options, seed) for seed in range(3))
    assert total > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), setting=st.sampled_from(SETTINGS))
def test_fast_and_general_paths_agree_for_any_seed(seed: int, setting) -> None:
    name, players, options = setting
    play_both(name, players, options, seed, max_steps=600)


def test_a_step_without_shuffles_is_one_generated_function() -> None:
    game = rulesengine.make_game("pan", players=3)
    assert all(move.step is not None for move in game.program.moves)
    assert all(move.step is None for move in general_path(game).program.moves)
