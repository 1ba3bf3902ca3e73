"""Replays: a recorded match plays back identically; a damaged replay is named precisely."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rulesengine
from rulesengine import replay
from tests.game_checks import play_random


def recorded(seed: int, players: int = 3) -> dict:
    game = rulesengine.make_game("pan", players=players, options={"word": "P"})
    return replay.record(play_random(game.new_initial_state(seed=seed), seed), "pan")


@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_a_recorded_match_verifies(seed, players):
    data = recorded(seed, players)
    state = replay.verify(data)
    assert state.is_terminal() and state.returns() == data["result"]["returns"]
    # a choice of cards is made in steps, one id each: a decision may take several actions
    assert len(data["actions"]) == len(data["action_names"]) >= data["result"]["decisions"]


def test_writing_is_atomic_and_reads_back(tmp_path):
    path = tmp_path / "match.json"
    data = recorded(1)
    replay.write(path, data)
    assert replay.read(path) == json.loads(json.dumps(data))
    assert [p.name for p in tmp_path.iterdir()] == ["match.json"]  # no temporary file left


def test_a_changed_action_is_reported_with_its_step(tmp_path):
    data = recorded(2)
    legal_then = replay.play_back({**data, "actions": data["actions"][:9]}, record_log=False).legal_actions()
    data["actions"][9] = next(a for a in range(20_000) if a not in legal_then)
    with pytest.raises(replay.ReplayError, match=r"action 10 \(\d+\) is not legal"):
        replay.verify(data, "m.json")


def test_a_renamed_action_or_another_result_is_caught():
    data = recorded(3)
    data["action_names"][0] = "something else"
    with pytest.raises(replay.ReplayError, match="action 1 is 'lays 9♥' here"):
        replay.verify(data)
    data = recorded(3)
    data["result"]["returns"] = [0.0, 0.0, 0.0]
    with pytest.raises(replay.ReplayError, match="ends with returns"):
        replay.verify(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "rulesengine-replay",\n "version": 1, "ruleset": }', r"bad\.json:2:27: not valid JSON"),
        ('{"format": "something"}', "not a rulesengine replay"),
        ('{"format": "rulesengine-replay", "version": 7}', "version 7 is not supported"),
        (
            '{"format": "rulesengine-replay", "version": 1, "ruleset": "pan", "players": 3, "options": {},'
            ' "seed": 1, "actions": [1, "x"]}',
            "list of whole numbers",
        ),
        ('{"format": "rulesengine-replay", "version": 1, "ruleset": "pan", "players": "3"}', '"players" must be'),
    ],
)
def test_a_corrupt_file_gets_a_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(replay.ReplayError, match=message):
        replay.read(path)


def test_a_match_stopped_by_max_steps_replays_stopped_there(tmp_path):
    from click.testing import CliRunner

    from rulesengine.cli import main

    path = tmp_path / "short.json"
    ran = CliRunner().invoke(main, ["run", "pan", "--seed", "2", "--max-steps", "30", "--record", str(path)])
    assert ran.exit_code == 0 and "stopped at the engine's decision limit" in ran.output
    data = json.loads(path.read_text())
    assert data["max_steps"] == 30 and data["result"]["decisions"] == 30 and data["result"]["terminal"]
    assert replay.verify(data, path).truncated
    for bad in (0, -1, "30", 1.5, True):
        path.write_text(json.dumps({**data, "max_steps": bad}))
        with pytest.raises(replay.ReplayError, match='"max_steps" must be a whole number'):
            replay.read(path)
    # the default is left out, so replays of whole matches read as before
    CliRunner().invoke(main, ["run", "pan", "--seed", "2", "--record", str(path)])
    assert "max_steps" not in json.loads(path.read_text())


def test_the_command_line_records_replays_and_verifies(tmp_path):
    path = tmp_path / "m.json"

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "rulesengine.cli", *args], capture_output=True, text=True)

    run = cli("run", "pan", "--seed", "5", "-o", "word=P", "--record", str(path))
    assert run.returncode == 0 and path.exists()
    shown = cli("replay", str(path))
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[1:] == run.stdout.splitlines()[1:-1]  # the same log and result
    assert cli("replay", "--verify", str(path)).returncode == 0
    path.write_text("not json")
    broken = cli("replay", "--verify", str(path))
    assert broken.returncode == 1 and "not valid JSON" in broken.stderr and "Traceback" not in broken.stderr


def test_a_replay_recorded_before_the_end_plays_back_as_not_over(tmp_path):
    """As the play page's "Download replay" writes mid-match: no line says the match is over."""
    from click.testing import CliRunner

    from rulesengine.cli import main

    game = rulesengine.make_game("pan", players=3, options={"word": "P"})
    state = game.new_initial_state(seed=4)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    path = tmp_path / "mid.json"
    replay.write(path, replay.record(state, "pan", path))
    shown = CliRunner().invoke(main, ["replay", str(path)])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert "match over" not in shown.output
    assert lines[-2] == f"match not over after 1 round(s) and {state.steps} decisions"
    assert lines[-1] == "result: the match is not over"
