"""A `repeat` count the checker sees is any number constants decide, negative ones too:
a count of 0 or less runs no pass, in both compilers."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesengine.api import make_game, validate_file

GAME = """\
name: Repeat game
players: {min: 2, max: 2}
decks:
  standard:
    suits: [hearts, spades]
    ranks: ["1", "2", "3"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
round:
  setup:
    - shuffle stock
    - deal 2 of stock to hand from seat(0)
    - repeat: COUNT
      do: [end game]
phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me]"}
    effects: [move card to pile]
triggers:
  done:
    for: p in players
    when: empty(hand[p])
    effects: [end round]
match:
  until: round >= 1
"""


@pytest.mark.parametrize("count", ["-5", "0", "-(2 * 3)", "1 - 4"])
def test_a_count_of_zero_or_less_is_valid_and_runs_no_pass(tmp_path: Path, count: str):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("COUNT", f'"{count}"'), encoding="utf-8")
    ruleset, problems = validate_file(path)
    assert problems == [] and ruleset is not None
    for optimize in (True, False):
        state = make_game(ruleset, optimize=optimize).new_initial_state(seed=1)
        assert not state.is_terminal()  # `end game` never ran


def test_a_positive_count_runs_its_passes(tmp_path: Path):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("COUNT", "2"), encoding="utf-8")
    ruleset, problems = validate_file(path)
    assert problems == [] and ruleset is not None
    assert make_game(ruleset).new_initial_state(seed=1).is_terminal()


def test_a_yaml_negative_integer_is_a_count(tmp_path: Path):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("COUNT", "-5"), encoding="utf-8")
    assert validate_file(path)[1] == []
