"""A phase's `first` that gives nobody stops the match with an EngineError naming `first`'s
position, in both modes, however the phase is entered (the round's first phase, `goto`, a
phase ending by `until` or `end phase`, a phase with `enter` effects, one whose `enter`
shuffles); `turn to nobody` says "nobody" in both modes too."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import rulesengine
from rulesengine import EngineError

HEAD = """\
name: FirstNobody
players: {min: 2, max: 2}
decks:
  d: {suits: [a], ranks: ["1", "2"], zone: stock}
zones:
  stock: {}
  pile: {}
  hand: {per: player}
variables:
  lead: {type: player}
  score: {type: int, per: player}
round:
  setup:
    - lead = holder(top(pile))
    - score[seat(1)] = 42
"""
TAIL = """\
moves:
  go:
    effects: [GO]
  stop:
    legal: size(hand[current]) == 0 and score[current] == 42
    effects: [end game]
match:
  winners: "[current]"
"""
TWO = "  two:\n    first: lead\n    moves: [stop]\n"
WAYS = {
    "start": ("phases:\n  one:\n    first: lead\n    moves: [stop]\n", "reverse"),
    "goto": ("phases:\n  one:\n    moves: [go]\n" + TWO, "goto two"),
    "until": ("phases:\n  one:\n    moves: [go]\n    until: not empty(pile)\n" + TWO, "move top(stock) to pile"),
    "end phase": ("phases:\n  one:\n    moves: [go]\n" + TWO, "end phase"),
    "enter": ("phases:\n  one:\n    moves: [go]\n" + TWO + '    enter: [log "two"]\n', "goto two"),
    "shuffle": ("phases:\n  one:\n    moves: [go]\n" + TWO + "    enter: [shuffle stock]\n", "goto two"),
    "next": ("phases:\n  one:\n    moves: [go]\n    next: two\n" + TWO, "end phase"),
}


def game_file(tmp_path: Path, way: str) -> tuple[str, int, int]:
    phases, effect = WAYS[way]
    text = HEAD + phases + TAIL.replace("GO", effect)
    path = tmp_path / "first.yaml"
    path.write_text(text, encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.strip() == "first: lead")
    return str(path), line, text.splitlines()[line - 1].index("lead") + 1


def play(game: rulesengine.Game, seed: int | None) -> None:
    state = game.new_initial_state(seed=seed)
    for _ in range(20):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])


@pytest.mark.parametrize("seed", [0, None])
@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("way", sorted(WAYS))
def test_first_giving_nobody_is_an_error_naming_first(tmp_path: Path, way: str, optimize: bool, seed) -> None:
    path, line, column = game_file(tmp_path, way)
    game = rulesengine.make_game(path, optimize=optimize)
    with pytest.raises(EngineError, match=rf"^{re.escape(path)}:{line}:{column}: 'first' needs a player, not nobody$"):
        play(game, seed)


def test_a_step_entering_a_phase_itself_checks_its_first(tmp_path: Path) -> None:
    # `goto two` is entered by the step's own entry function, which asks `first` as the engine does
    path, _line, _column = game_file(tmp_path, "goto")
    game = rulesengine.make_game(path)
    assert any("_rule_seat(\"'first'\"" in part.source for part in game.program.source)


def test_the_cli_reports_first_giving_nobody(tmp_path: Path) -> None:
    path, line, column = game_file(tmp_path, "start")
    result = subprocess.run([sys.executable, "-m", "rulesengine", "run", path], capture_output=True, text=True)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"{path}:{line}:{column}: 'first' needs a player, not nobody" in result.stderr


@pytest.mark.parametrize("optimize", [True, False])
def test_turn_to_nobody_says_nobody_in_both_modes(tmp_path: Path, optimize: bool) -> None:
    phases = "phases:\n  one:\n    moves: [go]\n"
    text = HEAD + phases + TAIL.replace("GO", "turn to lead")
    path = tmp_path / "turn.yaml"
    path.write_text(text, encoding="utf-8")
    game = rulesengine.make_game(str(path), optimize=optimize)
    state = game.new_initial_state(seed=0)
    with pytest.raises(EngineError, match=r":\d+:\d+: 'turn to' needs a player, not nobody$"):
        state.apply_action(state.legal_actions()[0])
