"""Replays written and read by a careless or hostile user: destinations that are inputs or not
files, long seeds, results that differ in their decisions, odd player counts and versions."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine import replay
from rulesengine.cli import main
from rulesengine.resources import rulesets_dir
from tests.game_checks import play_random
from tests.test_pipeline import MINIMAL


def recorded(seed: int, players: int = 2) -> dict:
    game = rulesengine.make_game("pan", players=players)
    return replay.record(play_random(game.new_initial_state(seed=seed), seed), "pan")


def written(tmp_path: Path, data: dict, name: str = "m.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def verify_cli(path: Path):
    return CliRunner().invoke(main, ["replay", "--verify", str(path)])


def both_cli(path: Path) -> list:
    """`replay --verify FILE` and `replay FILE`: a replay that cannot be read fails both alike."""
    return [verify_cli(path), CliRunner().invoke(main, ["replay", str(path)])]


def refused_by_both(path: Path, message: str) -> None:
    """Both commands exit 1 naming the file and saying `message`, in JSON's words (no Python repr)."""
    for result in both_cli(path):
        assert result.exit_code == 1, result.output
        error = next(line for line in result.output.splitlines() if line.startswith("error: "))
        assert error.startswith(f"error: {path}: {message}"), error
        assert not any(word in error for word in ("None", "True", "False", "'")), error


# ---- destinations -------------------------------------------------------------------------------


def test_a_destination_that_is_an_input_rule_file_is_refused(tmp_path):
    rules = tmp_path / "g.yaml"
    rules.write_text("rulesengine: 1\n")
    with pytest.raises(replay.ReplayError, match="is the rule file .* being read"):
        replay.check_destination(rules, inputs=[str(rules)])
    with pytest.raises(replay.ReplayError, match="being read"):  # another spelling of the same file
        replay.check_destination(tmp_path / "." / "g.yaml", inputs=[rules])
    os.link(rules, tmp_path / "hard.yaml")
    with pytest.raises(replay.ReplayError, match="being read"):
        replay.check_destination(tmp_path / "hard.yaml", inputs=[rules])
    assert rules.read_text() == "rulesengine: 1\n"
    replay.check_destination(tmp_path / "other.json", inputs=[rules])  # any other file is fine


def test_a_shipped_name_among_the_inputs_guards_the_shipped_file_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(replay.ReplayError, match="being read"):
        replay.check_destination(rulesets_dir() / "pan.yaml", inputs=["pan"])
    replay.check_destination("pan", inputs=["pan"])  # a new file named pan here is not the shipped ruleset


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_a_destination_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    if kind == "fifo":
        target = tmp_path / "pf"
        os.mkfifo(target)
    elif kind == "folder":
        target = tmp_path / "d"
        target.mkdir()
    else:
        target = Path(os.devnull)
    with pytest.raises(replay.ReplayError, match="not a regular file|is a folder"):
        replay.check_destination(target)


def test_run_record_leaves_a_fifo_alone(tmp_path):
    fifo = tmp_path / "pf"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["run", "pan", "--record", str(fifo)])
    assert result.exit_code == 2 and "not a regular file" in result.output
    assert fifo.is_fifo()


def test_run_record_into_a_folder_no_file_can_be_made_in_is_refused_before_playing(tmp_path, monkeypatch):
    """Permissions do not tell for root (the tests may run as root): a file is tried in the folder."""
    refused = tmp_path / "mounted read-only"
    refused.mkdir()
    made = tempfile.NamedTemporaryFile

    def refusing(*args, **kwargs):
        if Path(kwargs.get("dir", "")) == refused:
            raise OSError(30, "Read-only file system")
        return made(*args, **kwargs)

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refusing)
    result = CliRunner().invoke(main, ["run", "pan", "--seed", "1", "--record", str(refused / "r.json")])
    assert result.exit_code == 2, result.output
    assert (
        result.output.strip()
        == f"Error: --record: cannot write {refused / 'r.json'}: the folder {refused} is not writable"
    )
    assert list(refused.iterdir()) == []  # no match was played, no probe left behind


# ---- reading back what was written ----------------------------------------------------------------


def test_a_seed_of_many_digits_is_read_back(tmp_path):
    seed = -(2**63 - 1)  # the most digits a seed has
    game = rulesengine.make_game("pan", players=2)
    data = replay.record(play_random(game.new_initial_state(seed=seed), 1), "pan", tmp_path / "m.json")
    replay.write(tmp_path / "m.json", data)
    assert replay.read(tmp_path / "m.json")["seed"] == seed
    assert verify_cli(tmp_path / "m.json").exit_code == 0


@pytest.mark.parametrize("seed", [2**63, -(2**70)])
def test_a_seed_past_the_languages_integers_is_refused_as_the_commands_refuse_it(tmp_path, seed):
    game = rulesengine.make_game("pan", players=2)
    data = replay.record(play_random(game.new_initial_state(seed=5), 1), "pan", tmp_path / "m.json")
    replay.write(tmp_path / "m.json", {**data, "seed": seed})
    with pytest.raises(replay.ReplayError, match='"seed" must be a whole number from -9223372036854775807 to'):
        replay.read(tmp_path / "m.json")
    assert verify_cli(tmp_path / "m.json").exit_code == 1


def test_a_number_longer_than_python_writes_is_a_clean_error(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"format": "rulesengine-replay", "version": 3, "seed": ' + "9" * 5000 + "}")
    with pytest.raises(replay.ReplayError, match="a number of 5000 digits"):
        replay.read(path)


def test_another_count_of_decisions_does_not_end_as_recorded(tmp_path):
    data = recorded(4)
    data["result"]["decisions"] += 1
    with pytest.raises(replay.ReplayError, match="does not end as recorded"):
        replay.verify(data)
    result = verify_cli(written(tmp_path, data))
    assert result.exit_code == 1 and "does not end as recorded" in result.output


@pytest.mark.parametrize("players", [0, 99])
def test_a_player_count_out_of_range_is_named_as_such(tmp_path, players):
    path = written(tmp_path, {**recorded(5), "players": players})
    for result in (verify_cli(path), CliRunner().invoke(main, ["replay", str(path)])):
        assert result.exit_code == 1
        assert f"Pan is for 2 to 4 players, not {players}" in result.output and '"result"' not in result.output


def test_returns_for_another_number_of_players_are_still_refused(tmp_path):
    data = recorded(5)
    data["result"]["returns"].append(1.0)
    result = verify_cli(written(tmp_path, data))
    assert result.exit_code == 1 and '"result" must hold "returns" with one number a player (2)' in result.output


@pytest.mark.parametrize(
    ("version", "shown"), [(True, "true"), (3.0, "3.0"), (1.0, "1.0"), ("3", 'the text "3"'), (None, "null")]
)
def test_only_a_whole_number_is_a_version(tmp_path, version, shown):
    path = written(tmp_path, {**recorded(6), "version": version})
    with pytest.raises(replay.ReplayError, match=f'"version" must be a whole number from 1 to 3, not {shown}$'):
        replay.read(path)
    with pytest.raises(replay.ReplayError, match="replay version 4 is not supported"):
        replay.read(written(tmp_path, {**recorded(6), "version": 4}))


def test_a_missing_ruleset_of_a_version_1_replay_names_the_working_folder_too(tmp_path):
    data = {**recorded(7), "ruleset": "gone.yaml"}
    data.pop("ruleset_sha256")
    with pytest.raises(replay.ReplayError, match="in the replay.s folder or below it, nor one in the working folder"):
        replay.ruleset_path({**data, "version": 1}, tmp_path / "m.json")
    with pytest.raises(replay.ReplayError, match="below it$"):  # later versions look beside the replay only
        replay.ruleset_path({**data, "version": 2}, tmp_path / "m.json")


def test_a_replay_carries_the_rules_as_they_were_loaded(tmp_path):
    """An author who edits the rule file during a match (or leaves it half saved) still gets
    a replay of the rules that were played: it says the ruleset changed, nothing else."""
    rules = tmp_path / "g.yaml"
    rules.write_text(MINIMAL)
    game = rulesengine.make_game(rules)
    state = play_random(game.new_initial_state(seed=3), 3)
    before = rulesengine.api.ruleset_digest(rules)
    rules.write_text(MINIMAL + "\n# edited\n")
    data = replay.record(state, str(rules), tmp_path / "m.json")
    assert data["ruleset_sha256"] == before
    rules.write_text(MINIMAL[: len(MINIMAL) // 2])  # not a valid rule file now
    assert replay.record(state, str(rules), tmp_path / "m.json")["ruleset_sha256"] == before
    rules.write_text(MINIMAL + "\n# edited\n")
    with pytest.raises(replay.ReplayError, match="changed since the replay was recorded"):
        replay.verify(data, tmp_path / "m.json")


def test_a_file_named_like_a_shipped_ruleset_is_named_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pan").write_text(MINIMAL)
    state = play_random(rulesengine.make_game("pan").new_initial_state(seed=1), 1)
    assert state.game.ruleset.file.endswith("pan") and state.num_players == 2  # the local file, not Pan
    data = replay.record(state, "pan", tmp_path / "r.json")
    assert data["ruleset"] == "./pan"
    assert replay.verify(data, tmp_path / "r.json").returns() == state.returns()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("out/", "names a folder, not a file"),
        ("", "cannot write '': an empty name names no file"),
        ("x" * 300 + ".json", "File name too long"),
        ("g.yaml/x.json", "g.yaml is not a folder"),
    ],
)
def test_a_destination_that_cannot_be_a_file_is_named_precisely(tmp_path, monkeypatch, name, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.yaml").write_text(MINIMAL)
    with pytest.raises(replay.ReplayError, match=expected):
        replay.check_destination(name)
    result = CliRunner().invoke(main, ["simulate", "g.yaml", "-n", "1", "--matches", name])
    assert result.exit_code == 2 and expected in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml"]


def test_a_replay_too_large_with_its_names_is_written_without_them(tmp_path, monkeypatch):
    data = recorded(5)
    ids_only = len(json.dumps({k: v for k, v in data.items() if k != "action_names"}, indent=1)) + 1
    assert len(json.dumps(data, indent=1)) > 2 * ids_only
    monkeypatch.setattr(replay, "MAX_REPLAY_BYTES", ids_only)  # as a long match with long labels would
    path = tmp_path / "m.json"
    replay.write(path, data)
    assert "action_names" not in replay.read(path) and verify_cli(path).exit_code == 0
    monkeypatch.setattr(replay, "MAX_REPLAY_BYTES", ids_only - 1)
    with pytest.raises(replay.ReplayError, match=f"take more than the {ids_only - 1:,} bytes a replay may hold"):
        replay.write(tmp_path / "n.json", data)
    assert not (tmp_path / "n.json").exists()


# ---- every key named, every value in JSON's words ---------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("format", '"format": "rulesengine-replay"'),
        ("version", '"version" must be a whole number from 1 to 3'),
        ("ruleset", '"ruleset" must be a text'),
        ("ruleset_sha256", '"ruleset_sha256" must be a text'),
        ("players", '"players" must be a whole number'),
        ("options", '"options" must be an object'),
        ("seed", '"seed" must be a whole number'),
        ("actions", '"actions" must be a list of whole numbers'),
        ("result", '"result" must be an object with "terminal", "returns" and "decisions"'),
    ],
)
def test_a_missing_key_is_named(tmp_path, key, expected):
    data = recorded(8)
    del data[key]
    for result in both_cli(written(tmp_path, data)):
        assert result.exit_code == 1, result.output
        assert f'the key "{key}" is missing' in result.output and expected in result.output, result.output


@pytest.mark.parametrize("key", ["terminal", "returns", "decisions"])
def test_a_missing_key_of_the_result_is_named(tmp_path, key):
    data = recorded(8)
    del data["result"][key]
    refused_by_both(written(tmp_path, data), f'the key "{key}" of "result" is missing')


def test_a_lost_max_steps_is_named_when_the_match_does_not_end_as_recorded(tmp_path):
    game = rulesengine.make_game("pan", players=2, max_steps=30)
    data = replay.record(play_random(game.new_initial_state(seed=2), 2), "pan")
    assert data["max_steps"] == 30 and data["result"]["terminal"]
    assert verify_cli(written(tmp_path, data)).exit_code == 0
    del data["max_steps"]
    refused_by_both(
        written(tmp_path, data),
        'the replay says the match is over after its actions, but it is not over: the key "max_steps" is missing',
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("players", "2", '"players" must be a whole number, not the text "2"'),
        ("players", None, '"players" must be a whole number, not null'),
        ("seed", True, '"seed" must be a whole number, not true'),
        ("ruleset", ["pan"], '"ruleset" must be a text, not a list'),
        ("options", None, '"options" must be an object, not null'),
        ("actions", {}, '"actions" must be a list of whole numbers, not an object'),
        ("max_steps", None, '"max_steps" must be a whole number from 1 to 9223372036854775807, not null'),
        ("max_steps", 2.5, '"max_steps" must be a whole number from 1 to 9223372036854775807, not 2.5'),
        ("result", False, '"result" must be an object with "terminal", "returns" and "decisions", not false'),
        ("format", None, 'not a rulesengine replay (expected "format": "rulesengine-replay", not null)'),
    ],
)
def test_a_value_of_the_wrong_type_is_named_in_json_words(tmp_path, key, value, message):
    refused_by_both(written(tmp_path, {**recorded(8), key: value}), message)


def test_an_item_of_the_wrong_type_is_named_by_its_place(tmp_path):
    data = recorded(8)
    data["actions"][2] = None
    refused_by_both(written(tmp_path, data), '"actions" must be a list of whole numbers, but item 3 is null')
    data = recorded(8)
    data["result"]["returns"][1] = "1"
    message = '"returns" of "result" must be a list of numbers (one a player), but item 2 is the text "1"'
    refused_by_both(written(tmp_path, data), message)
    data = recorded(8)
    data["result"]["terminal"] = None
    refused_by_both(written(tmp_path, data), '"terminal" of "result" must be true or false, not null')


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"triples": None}, 'option "triples" in "options" takes a text, not null'),
        ({"triples": 5}, 'option "triples" in "options" takes a text, not 5'),
        ({"reversed_spades": "yes"}, 'option "reversed_spades" in "options" takes true or false, not the text "yes"'),
        ({"reversed_spades": None}, 'option "reversed_spades" in "options" takes true or false, not null'),
    ],
)
def test_an_option_of_the_wrong_type_is_named_in_json_words(tmp_path, options, message):
    data = recorded(8)
    refused_by_both(written(tmp_path, {**data, "options": {**data["options"], **options}}), message)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (5, '"action_names" must be a list of texts, not 5'),
        (None, '"action_names" must be a list of texts, not null'),
        ({}, '"action_names" must be a list of texts, not an object'),
        ("cut", '"action_names" must name each action once: it holds'),
        ("longer", '"action_names" must name each action once: it holds'),
        ("null item", '"action_names" must be a list of texts, but item 1 is null'),
        ("number item", '"action_names" must be a list of texts, but item 1 is 7'),
    ],
)
def test_action_names_of_the_wrong_shape_or_length_fail_verify(tmp_path, names, message):
    data = recorded(8)
    if names == "cut":
        names = data["action_names"][:-1]
    elif names == "longer":
        names = [*data["action_names"], "lays 9♥"]
    elif names == "null item":
        names = [None, *data["action_names"][1:]]
    elif names == "number item":
        names = [7, *data["action_names"][1:]]
    refused_by_both(written(tmp_path, {**data, "action_names": names}), message)
    data.pop("action_names")  # left out (a replay too large with them): nothing to check
    assert all(result.exit_code == 0 for result in both_cli(written(tmp_path, data)))
