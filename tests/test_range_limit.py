"""`range` holds at most limits.MAX_RANGE (10,000) numbers; more is never cut short: a
constant or an option's default the checker folds is RE324 at the range, and a value known
only while playing (or an option given when the game is made) stops with an EngineError
naming the range's position, in both modes alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rulesengine
from rulesengine import EngineError
from rulesengine.api import validate_file
from rulesengine.limits import MAX_RANGE

MODES = [True, False]

GAME = """\
name: Ranges
players: {min: 1, max: 1}
options:
  big: {default: 20, min: 1}
decks:
  d: {suits: [a], ranks: ["1"], zone: stock}
zones:
  stock: {}
variables:
  n: {type: int}
  low: {type: int}
  counted: {type: int}
  largest: {type: int}
setup:
  - SETUP
phases:
  play:
    moves: [bid]
moves:
  bid:
    params: {amount: "range(big)"}
    legal: amount >= big - 1
    effects:
      - counted = range(n).count(i, true)
      - largest = range(low, n).max(i, i)
      - end game
match: {until: "true"}
"""


def write(tmp_path: Path, setup: str) -> tuple[str, str]:
    text = GAME.replace("SETUP", setup)
    path = tmp_path / "ranges.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path), text


def position(path: str, text: str, needle: str) -> str:
    row = next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)
    return f"{re.escape(path)}:{row}:{text.splitlines()[row - 1].index(needle) + 1}"


def play(game: rulesengine.Game) -> dict:
    state = game.new_initial_state(seed=0)
    state.apply_action(state.legal_actions()[-1])
    return state.variables()


@pytest.mark.parametrize("optimize", MODES)
def test_a_range_at_the_limit_has_every_number(tmp_path: Path, optimize: bool) -> None:
    path, _text = write(tmp_path, f"n = {MAX_RANGE}")
    values = play(rulesengine.make_game(path, optimize=optimize))
    assert values["counted"] == MAX_RANGE and values["largest"] == MAX_RANGE - 1
    path, _text = write(tmp_path, "low = -5")
    values = play(rulesengine.make_game(path, optimize=optimize))
    assert values["counted"] == 0 and values["largest"] == -1


@pytest.mark.parametrize("optimize", MODES)
@pytest.mark.parametrize(
    ("setup", "needle", "count"),
    [
        (f"n = {MAX_RANGE + 1}", "range(n)", MAX_RANGE + 1),
        ("n = 20000", "range(n)", 20000),
        ("n = 5000\n  - low = -5001", "range(low, n)", 10001),
    ],
)
def test_a_longer_range_while_playing_is_an_error_naming_it(tmp_path: Path, optimize: bool, setup, needle, count):
    path, text = write(tmp_path, setup)
    game = rulesengine.make_game(path, optimize=optimize)
    at = position(path, text, needle)
    with pytest.raises(EngineError, match=rf"^{at}: a range of {count:,} numbers, more than 10,000, the language's"):
        play(game)


@pytest.mark.parametrize("optimize", MODES)
def test_a_parameter_over_a_range_an_option_makes_too_long_is_an_error(tmp_path: Path, optimize: bool) -> None:
    path, text = write(tmp_path, "n = 1")
    at = position(path, text, "range(big)")
    assert play(rulesengine.make_game(path, options={"big": MAX_RANGE}, optimize=optimize))["counted"] == 1
    with pytest.raises(EngineError, match=rf"^{at}: a range of 20,000 numbers"):
        play(rulesengine.make_game(path, options={"big": 20000}, optimize=optimize))


@pytest.mark.parametrize(
    ("expression", "count"),
    [("range(20000)", 20000), ("range(-5000, 5001)", 10001), ("range(big * 1000)", 20000), ("range(3, 2)", None)],
)
def test_the_checker_refuses_a_range_it_folds_past_the_limit(tmp_path: Path, expression: str, count) -> None:
    path, text = write(tmp_path, f"counted = {expression}.count(i, true)")
    _ruleset, diagnostics = validate_file(Path(path))
    found = [(d.code, d.span.line, d.span.column, d.message) for d in diagnostics if d.severity == "error"]
    if count is None:
        assert found == []
        return
    row = next(n for n, line in enumerate(text.splitlines(), 1) if expression in line)
    column = text.splitlines()[row - 1].index(expression) + 1
    assert [(code, line, col) for code, line, col, _ in found] == [("RE324", row, column)]
    assert f"{count:,} numbers" in found[0][3]
