"""The generated fast paths list legal actions consistently.

A step normally runs as generated code: the move's effects with the triggers, then the
phase's `settle` (pass the turn, list the next legal actions, with moves that go over the
same cards sharing one loop), in one function for a move of one phase only (pass `play`),
else as two. Whether these decide as the language says is
tested against the reference mode, which shares none of their code, in
tests/test_reference_oracle.py (that comparison replaced one with the same generator
minus `step`, which could not see the generator's own mistakes). What is left here: the
per-move enumerators, which `can_move` uses, agree with the phase's shared listing at
every step of the same matches.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine

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
    (str(ROOT / "examples" / "partnership-spades.yaml"), 4, {"deals": 1}),
    (str(ROOT / "examples" / "goofspiel.yaml"), 2, {}),
    (str(ROOT / "examples" / "sum-capture.yaml"), 2, {}),
]


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


def play_checking_enumerators(name: str, players: int, options: dict, seed: int, max_steps: int = 3000) -> int:
    game = rulesengine.make_game(name, players=players, options=options)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        legal = state.legal_actions()
        # the complete actions (the engine's keys), whatever ids the players see for them
        assert state._legal_ids() == legal_by_move(state), f"step {steps}"
        state.apply_action(rng.choice(legal))
        steps += 1
    return steps


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
def test_move_and_phase_enumerators_agree(name: str, players: int, options: dict) -> None:
    total = sum(play_checking_enumerators(name, players, options, seed) for seed in range(3))
    assert total > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), setting=st.sampled_from(SETTINGS))
def test_move_and_phase_enumerators_agree_for_any_seed(seed: int, setting) -> None:
    name, players, options = setting
    play_checking_enumerators(name, players, options, seed, max_steps=600)


def test_a_step_without_shuffles_is_one_generated_function() -> None:
    game = rulesengine.make_game("pan", players=3)
    assert all(move.step is not None for move in game.program.moves)
    reference = rulesengine.make_game("pan", players=3, optimize=False)
    assert all(move.step is None for move in reference.program.moves)  # the reference mode uses the agenda
