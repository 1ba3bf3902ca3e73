"""Hostile inputs that are not rule files: replays, command-line arguments, symbolic links,
file names, and the cost bounds of loading. Each test is named for what it attacks and
says the outcome it expects (a diagnostic code or an exit status). Rule files that attack
the loader are in tests/corpus/hostile/ (run by tests/test_diagnostics.py).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import api, compose, source
from rulesengine.cli import _colour, main
from rulesengine.diagnostics import (
    Diagnostic,
    Span,
    did_you_mean,
    render_github,
    render_json,
    render_text,
    suggestions_bounded,
)
from tests import fuzz_validate
from tests.game_checks import file_order_number

ROOT = Path(__file__).resolve().parent.parent
SECRET = "s3cr3t-token-never-printed"
GAME = (ROOT / "tests" / "corpus" / "broken" / "extends_missing_file.yaml").read_text().split("\n", 3)[3]


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def secret_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "credentials.yaml"
    secret.write_text(f"aws_secret_access_key: {SECRET}\n[default]\ntoken = {SECRET}\n")
    return secret


# ---- confinement: extends/include ----------------------------------------------------------


def test_extends_through_a_symlink_out_of_the_folder_is_RE019_and_never_read(tmp_path):
    secret = secret_file(tmp_path / "outside")
    game = tmp_path / "repo"
    game.mkdir()
    (game / "base.yaml").symlink_to(secret)  # looks local, resolves outside
    (game / "game.yaml").write_text("extends: base.yaml\n" + GAME)
    result = run("validate", str(game / "game.yaml"))
    assert result.exit_code == 1 and "RE019" in result.output
    assert SECRET not in result.output and "'base.yaml'" in result.output


def test_include_through_a_symlinked_folder_out_of_the_tree_is_RE019(tmp_path):
    secret_file(tmp_path / "outside")
    game = tmp_path / "repo"
    game.mkdir()
    (game / "parts").symlink_to(tmp_path / "outside", target_is_directory=True)
    (game / "game.yaml").write_text("include: [parts/credentials.yaml]\n" + GAME)
    _, problems = api.validate_file(game / "game.yaml")
    assert [p.code for p in problems] == ["RE019"]
    assert SECRET not in render_text(problems, {})


def test_a_symlink_inside_the_tree_is_followed(tmp_path):
    (tmp_path / "real.yaml").write_text(GAME)
    (tmp_path / "alias.yaml").symlink_to(tmp_path / "real.yaml")
    (tmp_path / "game.yaml").write_text("extends: alias.yaml\nname: Variant\n")
    ruleset, problems = api.validate_file(tmp_path / "game.yaml")
    assert ruleset is not None and ruleset.name == "Variant", problems


def test_extends_proc_self_environ_prints_no_environment_variable(tmp_path):
    (tmp_path / "game.yaml").write_text("extends: /proc/self/environ\n" + GAME)
    result = subprocess.run(
        [sys.executable, "-m", "rulesengine.cli", "validate", str(tmp_path / "game.yaml")],
        capture_output=True,
        text=True,
        env={**os.environ, "CI_SECRET": SECRET},
        timeout=120,
    )
    assert result.returncode == 1 and "RE019" in result.stdout
    assert SECRET not in result.stdout + result.stderr and "CI_SECRET" not in result.stdout + result.stderr


def test_validate_refuses_a_symlink_argument_pointing_out_of_its_folder_RE023(tmp_path):
    secret = secret_file(tmp_path / "outside")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "evil.yaml").symlink_to(secret)  # what a pull request can add
    for target in (repo / "evil.yaml", repo):  # given by name (pre-commit) or found in a folder
        result = run("validate", str(target))
        assert result.exit_code == 1 and "RE023" in result.output and SECRET not in result.output


def test_validate_on_a_folder_does_not_follow_a_linked_folder_out_of_it(tmp_path):
    secret_file(tmp_path / "outside")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "game.yaml").write_text(GAME)
    (repo / "parts").symlink_to(tmp_path / "outside", target_is_directory=True)
    result = run("validate", str(repo))
    assert result.exit_code == 0 and "1 file(s) checked" in result.output and SECRET not in result.output


def test_each_file_is_read_once_per_composition(tmp_path, monkeypatch):
    """A diamond (a includes b and c, both include d) reads d once, not twice."""
    (tmp_path / "d.yaml").write_text("block: true\nvariables:\n  v: {type: int}\n")
    for name in ("b", "c"):
        (tmp_path / f"{name}.yaml").write_text("block: true\ninclude: [d.yaml]\n")
    (tmp_path / "a.yaml").write_text("include: [b.yaml, c.yaml]\n" + GAME)
    reads: list[str] = []
    real = compose.read_bytes
    monkeypatch.setattr(compose, "read_bytes", lambda path, *a: reads.append(Path(path).name) or real(path, *a))
    compose.compose(str(tmp_path / "a.yaml"))
    assert sorted(reads) == ["a.yaml", "b.yaml", "c.yaml", "d.yaml"]


def test_a_chain_of_files_each_including_the_next_many_times_is_refused_at_once(tmp_path):
    """Exponential loading before: each file named the next five times."""
    for k in range(12):
        (tmp_path / f"f{k}.yaml").write_text("block: true\ninclude: [" + ", ".join([f"f{k + 1}.yaml"] * 5) + "]\n")
    (tmp_path / "f12.yaml").write_text("block: true\n")
    start = time.perf_counter()
    _, problems = api.validate_file(tmp_path / "f0.yaml")
    assert time.perf_counter() - start < 5
    assert {p.code for p in problems} == {"RE020"}


@pytest.mark.parametrize("order", ["short first", "long first"])
def test_a_chain_too_long_is_RE014_whichever_way_it_is_first_read(tmp_path, order):
    # x1 .. x15 then d make a chain of 17 with the game; s reaches d in 3. d is read once,
    # and the long chain through it counts whether it was read by s before or not.
    for k in range(1, 15):
        (tmp_path / f"x{k}.yaml").write_text(f"block: true\ninclude: [x{k + 1}.yaml]\n")
    (tmp_path / "x15.yaml").write_text("block: true\ninclude: [d.yaml]\n")
    (tmp_path / "s.yaml").write_text("block: true\ninclude: [d.yaml]\n")
    (tmp_path / "d.yaml").write_text("block: true\n")
    names = ["s.yaml", "x1.yaml"] if order == "short first" else ["x1.yaml", "s.yaml"]
    (tmp_path / "game.yaml").write_text(f"include: [{', '.join(names)}]\n" + GAME)
    _, problems = api.validate_file(tmp_path / "game.yaml")
    assert [(p.code, Path(p.span.file).name) for p in problems] == [("RE014", "x15.yaml")]


def test_too_many_files_in_one_composition_is_RE021(tmp_path):
    for k in range(20):  # 20 files each including one more: 40 files, two levels deep
        (tmp_path / f"w{k}.yaml").write_text(f"block: true\ninclude: [x{k}.yaml]\n")
        (tmp_path / f"x{k}.yaml").write_text("block: true\n")
    (tmp_path / "game.yaml").write_text("include: [" + ", ".join(f"w{k}.yaml" for k in range(20)) + "]\n" + GAME)
    _, problems = api.validate_file(tmp_path / "game.yaml")
    assert "RE021" in {p.code for p in problems}


# ---- reading files ---------------------------------------------------------------------------


def test_a_pipe_given_to_validate_is_RE009_without_blocking(tmp_path):
    fifo = tmp_path / "game.yaml"
    os.mkfifo(fifo)
    _, problems = api.validate_file(fifo)
    assert [p.code for p in problems] == ["RE009"]


def test_a_device_given_to_validate_is_RE009():
    _, problems = api.validate_file("/dev/zero")
    assert [p.code for p in problems] == ["RE009"]


def test_the_size_is_checked_before_reading_RE005(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_text("name: x\n" + "#" * 2_000_000 + "\n")
    opened: list[str] = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(str(a[0])) or real_open(*a, **k))
    _, problems = api.validate_file(big)
    assert [p.code for p in problems] == ["RE005"] and str(big) not in opened


def test_a_long_escaped_multiline_scalar_maps_positions_in_linear_time(tmp_path):
    """160 KB of escapes over many lines took 26 s to map before."""
    body = "\n      ".join(["\\t\\u0041" * 16] * 1600)
    path = tmp_path / "game.yaml"
    path.write_text(
        GAME.replace('    params: {card: "hand[me]"}', f'    params: {{card: "hand[me]"}}\n    label: "{body} {{card"')
    )
    assert path.stat().st_size > 160_000
    start = time.perf_counter()
    tree = source.load_yaml(path.read_text(), str(path))
    label = tree.get("moves").get("lay").get("label")
    span = label.locate(len(label.value) - 4)
    assert time.perf_counter() - start < 10
    lines = path.read_text().splitlines()
    assert lines[span.line - 1][span.column - 1 :].startswith("card")


def test_did_you_mean_is_bounded_for_many_long_similar_names():
    rng = random.Random(1)
    names = ["a" * 40 + "".join(rng.choice("ab") for _ in range(20)) for _ in range(5000)]
    start = time.perf_counter()
    with suggestions_bounded():
        for _ in range(2000):
            did_you_mean("a" * 40 + "".join(rng.choice("ab") for _ in range(20)), names)
    assert time.perf_counter() - start < 10
    assert did_you_mean("x" * 100, ["x" * 100 + "y"]) is None  # too long to compare
    assert did_you_mean("lagel", ["legal", "label"]) == "did you mean 'label'?"


# ---- output encoding ---------------------------------------------------------------------------


def test_github_annotations_escape_the_file_name_so_it_cannot_inject_commands():
    name = "rules/a\n::warning file=x::injected,title=t:y%.yaml"
    out = render_github([Diagnostic("RE001", "bad\r\n::error::also injected 100%", Span.point(name, 2, 3))])
    assert out.count("\n") == 0 and out.startswith("::error file=rules/a%0A%3A%3Awarning file=x%3A%3Ainjected%2C")
    assert "title=RE001::bad%0D%0A::error::also injected 100%25" in out


def test_a_file_name_that_is_not_utf8_gives_valid_json_and_printable_text(tmp_path):
    path = Path(os.fsdecode(bytes(tmp_path) + b"/\xff\xfe.yaml"))  # a lone surrogate in Python
    path.write_text("name: x\nname: y\n")
    _, problems = api.validate_file(path)
    data = json.loads(render_json(problems))
    assert data[0]["code"] == "RE002" and "\\udcff" in data[0]["file"]
    render_text(problems, {}).encode("utf-8")  # no UnicodeEncodeError
    result = run("validate", "--format", "json", str(path))
    assert result.exit_code == 1 and json.loads(result.output)[0]["code"] == "RE002"


def test_names_with_terminal_escapes_print_escaped():
    corpus = ROOT / "tests" / "corpus" / "hostile"
    for name in ("name_terminal_escape", "name_bidi_override", "name_lone_surrogate", "extends_terminal_escape"):
        _, problems = api.validate_file(corpus / f"{name}.yaml")
        text = render_text(problems, {})
        assert "\x1b" not in text and "\u202e" not in text
        text.encode("utf-8")


def test_no_color_turns_colour_off(monkeypatch):
    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _colour(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _colour(Terminal())


# ---- replays --------------------------------------------------------------------------------


def recorded(tmp_path: Path, ruleset: str = "pan") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "match.json"
    result = run("run", ruleset, "--seed", "3", "-o", "word=P", "--players", "2", "--record", str(path))
    assert result.exit_code == 0, result.output
    return path


def both_modes(path: Path) -> list[object]:
    return [run("replay", str(path)), run("replay", "--verify", str(path))]


def edited(path: Path, **changes) -> Path:
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("attack", "changes", "message"),
    [
        ("absolute_ruleset_path", {"ruleset": "/etc/passwd"}, "outside the replay's folder"),
        ("proc_environ_ruleset", {"ruleset": "/proc/self/environ"}, "outside the replay's folder"),
        ("parent_folder_ruleset", {"ruleset": "../credentials.yaml"}, "outside the replay's folder"),
        ("unknown_ruleset", {"ruleset": "no-such-game"}, "neither a shipped ruleset"),
        ("no_result", {"result": None}, '"result" must be'),
        ("malformed_result", {"result": {"terminal": True, "returns": [1], "decisions": 3}}, '"result" must hold'),
        (
            "result_not_reached",
            {"result": {"terminal": True, "returns": [1.0, -1.0], "decisions": 1}},
            "ends with returns|is over|not over",
        ),
        ("ruleset_changed", {"ruleset_sha256": "0" * 64}, "has changed since"),
        ("options_not_of_the_ruleset", {"options": {"no_such": 1}}, "unknown option"),
        ("too_many_players", {"players": 99}, 'is for|"result" must hold'),
    ],
)
def test_a_bad_replay_exits_1_the_same_way_with_and_without_verify(tmp_path, attack, changes, message):
    secret_file(tmp_path)
    path = edited(recorded(tmp_path / "replays"), **changes)
    plain, verify = both_modes(path)
    assert plain.exit_code == verify.exit_code == 1, (attack, plain.output, verify.output)
    assert SECRET not in plain.output + verify.output
    assert re.search(message, verify.output), verify.output
    assert re.search(message, plain.output), plain.output


@pytest.mark.parametrize(
    ("attack", "text"),
    [
        ("number_of_5000_digits", '{"format": "rulesengine-replay", "version": 2, "seed": ' + "9" * 5000 + "}"),
        ("nested_100000_arrays", "[" * 100_000 + "]" * 100_000),
        ("nan_seed", '{"format": "rulesengine-replay", "version": 2, "seed": NaN}'),
        ("not_utf8", b"\xff\xfe{}"),
        ("version_is_a_huge_list", '{"format": "rulesengine-replay", "version": [' + "1," * 10000 + "1]}"),
    ],
)
def test_a_hostile_replay_file_is_a_clean_error_exit_1(tmp_path, attack, text):
    path = tmp_path / "match.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    for result in both_modes(path):
        assert result.exit_code == 1 and "Traceback" not in result.output, (attack, result.output)
        assert len(result.output) < 500


def test_a_replay_that_is_a_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "match.json"
    os.mkfifo(fifo)
    for result in both_modes(fifo):
        assert result.exit_code == 1


def test_a_replay_names_its_ruleset_relative_to_itself_and_plays_from_another_folder(tmp_path):
    rules = tmp_path / "games"
    rules.mkdir()
    (rules / "mine.yaml").write_text(GAME)
    path = rules / "replays" / "m.json"
    path.parent.mkdir()
    # the ruleset is not below the replay's folder: refused before the match is played
    refused = run("run", str(rules / "mine.yaml"), "--record", str(path))
    assert refused.exit_code == 2 and "match over" not in refused.output and not path.exists()
    path = rules / "m.json"
    assert run("run", str(rules / "mine.yaml"), "--record", str(path)).exit_code == 0
    data = json.loads(path.read_text())
    assert data["ruleset"] == "mine.yaml" and len(data["ruleset_sha256"]) == 64
    moved = tmp_path / "elsewhere"
    rules.rename(moved)  # the folder moves: the replay still finds its ruleset
    assert run("replay", "--verify", str(moved / "m.json")).exit_code == 0
    assert json.loads(recorded(tmp_path).read_text())["ruleset"] == "pan"  # a shipped one by name


def _complete_actions(data: dict) -> tuple[list[int], list[str]]:
    """A replay's actions as versions 1 and 2 wrote them: one id (the engine's key) per decision."""
    game = rulesengine.make_game(data["ruleset"], players=data["players"], options=data["options"])
    state = game.new_initial_state(data["seed"])
    keys, names = [], []
    for action in data["actions"]:
        before = state.clone()
        state.apply_action(action)
        if not state._pending:
            keys.append(file_order_number(game, state.last_action))
            names.append(before.action_to_string(action))
    return keys, names


def test_an_older_replay_is_still_read(tmp_path):
    data = json.loads(recorded(tmp_path).read_text())
    data.pop("ruleset_sha256")
    actions, names = _complete_actions(data)
    assert len(actions) < len(data["actions"])  # pan lays sets of cards: chosen in steps now
    (tmp_path / "old.json").write_text(json.dumps({**data, "version": 1, "actions": actions, "action_names": names}))
    assert run("replay", "--verify", str(tmp_path / "old.json")).exit_code == 0


def test_record_into_a_missing_folder_fails_before_playing_exit_2(tmp_path):
    result = run("run", "pan", "--record", str(tmp_path / "no" / "such" / "m.json"))
    assert result.exit_code == 2 and "does not exist" in result.output and "match over" not in result.output


def test_record_writes_with_the_usual_file_mode(tmp_path):
    old = os.umask(0o022)
    try:
        path = recorded(tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["match.json"]


# ---- command-line arguments -------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["\u00b2", "\u0663", "\uff11", "9" * 5000, "-1", "0", "1e3", " ", "\x00"])
def test_play_accepts_only_ascii_digits(answer):
    result = CliRunner().invoke(main, ["play", "pan", "--players", "2", "--seed", "3"], input=f"{answer}\nq\n")
    assert result.exit_code == 0 and "type a number from 1 to" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_q_leaves_play_with_exit_0():
    result = CliRunner().invoke(main, ["play", "pan", "--seed", "1"], input="q\n")
    assert result.exit_code == 0 and "you left the match" in result.output


def test_play_deals_from_a_fresh_seed_unless_given_one():
    # A fixed default would deal every match alike, and the deal of seed 0 is a command away.
    seeds = set()
    for _ in range(3):
        result = CliRunner().invoke(main, ["play", "pan"], input="q\n")
        assert result.exit_code == 0
        seeds.add(re.search(r"seed (\d+)", result.output).group(1))
    assert len(seeds) == 3
    given = CliRunner().invoke(main, ["play", "pan", "--seed", "12"], input="q\n")
    assert "seed 12," in given.output


def test_validate_takes_a_shipped_name_and_an_unknown_name_is_exit_2():
    assert run("validate", "pan").exit_code == 0
    unknown = run("validate", "no-such-game")
    assert unknown.exit_code == 2 and "no such file" in unknown.output


def test_an_unknown_ruleset_suggests_with_a_separator():
    result = run("describe", "pna")
    assert result.exit_code == 2 and "did you mean 'pan'?; shipped: " in result.output


@pytest.mark.parametrize("name", ["\x1b[31mred", "a" * 5000, "pan\x00", "/proc/self/environ/x"])
def test_a_hostile_ruleset_argument_is_a_one_line_usage_error(name):
    result = run("describe", name)
    assert result.exit_code in (1, 2) and "Traceback" not in result.output and "\x1b" not in result.output


# ---- the cache --------------------------------------------------------------------------------


def test_a_variant_is_fresh_after_its_base_changes(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text(GAME.replace("name: Corpus game", "name: Corpus game\noptions:\n  n: {type: int, default: 3}"))
    variant = tmp_path / "variant.yaml"
    variant.write_text("extends: base.yaml\nname: Variant\n")
    assert [o.default for o in rulesengine.load_ruleset(variant).options] == [3]
    base.write_text(base.read_text().replace("default: 3", "default: 4"))  # the same size and, maybe, time
    assert [o.default for o in rulesengine.load_ruleset(variant).options] == [4]
    assert rulesengine.load_ruleset(variant) is rulesengine.load_ruleset(variant)  # unchanged: kept


# ---- mutation fuzz (a sample; `python -m tests.fuzz_validate --mutants 10000` runs many) -------


@settings(max_examples=25, deadline=None, derandomize=True)  # repeatable in CI; the command searches wider
@given(index=st.integers(0, 10**6), seed=st.integers(0, 100))
def test_mutants_of_shipped_and_example_files_never_crash_nor_hang(tmp_path_factory, index, seed):
    _, text = fuzz_validate.mutant(index, seed)
    outcome = fuzz_validate.check(text, tmp_path_factory.mktemp("mutant"), seed)
    assert outcome.kind in ("valid", "invalid"), outcome.detail or f"{outcome.seconds:.1f} s"


# ---- names that hold line breaks ------------------------------------------------------------

INJECTING = """\
rulesengine: 1
name: "Innocent\\nimport os; os.system('echo INJECTED') #"
players: {min: 2, max: 2}
options:
  o: {default: "v\\nprint('also injected') #"}
decks:
  d: {suits: [h], ranks: ["1", "2"], zone: stock}
zones:
  stock: {}
phases:
  play: {moves: [go]}
moves:
  go: {effects: [end game]}
match: {until: "true"}
"""


def test_a_name_with_a_line_break_cannot_end_a_comment_of_the_generated_code(tmp_path):
    game = tmp_path / "inject.yaml"
    game.write_text(INJECTING)
    result = run("compile", str(game))
    assert result.exit_code == 0, result.output
    listing = tmp_path / "listing.py"
    listing.write_text(result.output)
    ran = subprocess.run([sys.executable, str(listing)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "INJECTED" not in ran.stdout + ran.stderr and "injected" not in ran.stdout
    assert result.output.splitlines()[0].startswith("# Innocent?import os")


def test_a_name_with_a_line_break_prints_on_one_line(tmp_path):
    game = tmp_path / "inject.yaml"
    game.write_text(INJECTING)
    result = run("run", str(game), "--seed", "1")
    assert result.exit_code == 0, result.output
    first, second = result.output.splitlines()[:2]
    assert first.startswith("Innocent\\x0aimport os") and "o=v\\x0aprint" in first
    assert second == "P1: go"


def test_an_error_of_the_rules_found_when_a_setting_is_compiled_exits_1(tmp_path):
    game = tmp_path / "fold.yaml"
    game.write_text(GAME_TEMPLATE_FOLD.replace("BONUS", "1"))
    largest = ["-o", "bonus=9223372036854775807"]  # valid as an option; its product is not
    for command in (["compile", str(game), *largest], ["run", str(game), "--seed", "1", *largest]):
        result = run(*command)
        assert result.exit_code == 1, result.output
        assert f"{game}:17:13:" in result.output and "a number beyond ±9223372036854775807" in result.output


def test_validate_folds_with_the_options_at_their_defaults(tmp_path):
    game = tmp_path / "fold.yaml"
    game.write_text(GAME_TEMPLATE_FOLD.replace("BONUS", "9223372036854775807"))
    result = run("validate", str(game))
    assert result.exit_code == 1 and "17:13: error[RE247]: with the options at their defaults" in result.output


GAME_TEMPLATE_FOLD = """\
rulesengine: 1
name: Fold
players: {min: 2, max: 2}
options:
  bonus: {default: BONUS}
decks:
  d: {suits: [h], ranks: ["1", "2"], zone: stock}
zones:
  stock: {}
variables:
  x: {type: int}
phases:
  play: {moves: [go]}
moves:
  go:
    effects:
      - x = bonus * 2
      - end game
match: {until: "true"}
"""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
@pytest.mark.parametrize("command", [["schema"], ["describe", "pan"], ["run", "pan", "--seed", "1"]])
def test_output_to_a_full_disk_is_a_one_line_error(command):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "rulesengine", *command], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert done.returncode == 1
    assert done.stderr.strip() == "error: writing the output: No space left on device"


def test_empty_paths_are_usage_errors_not_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.yaml").write_text("rulesengine: 1\nname: [\n")
    result = run("validate", "")
    assert result.exit_code == 2 and "cannot be empty; to check the working folder, give '.'" in result.output
    result = run("new", "")
    assert result.exit_code == 2 and "the name of the file to write" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.yaml"]


def test_a_folder_given_as_a_replay_is_a_replay_that_cannot_be_read(tmp_path):
    folder = tmp_path / "match.json"
    folder.mkdir()
    for arguments in (["replay", str(folder)], ["replay", "--verify", str(folder)]):
        result = run(*arguments)
        assert result.exit_code == 1 and "cannot read the replay" in result.output


def test_option_values_are_trimmed_as_their_names_are():
    spaced = run("run", "pan", "--seed", "1", "-o", " word = PA ")
    plain = run("run", "pan", "--seed", "1", "-o", "word=PA")
    assert spaced.exit_code == 0 and spaced.output == plain.output


def test_serve_refuses_nan_and_opponents_for_no_seat():
    pytest.importorskip("starlette")
    result = run("serve", "padan", "--bot-delay", "nan")
    assert result.exit_code == 2 and "'nan' is not a finite number" in result.output
    result = run("serve", "padan", "--seats", "1,2", "--opponents", "greedy")
    assert result.exit_code == 2 and "people play every seat" in result.output


# ---- the files a scenario test file names -------------------------------------------------


def test_a_test_file_naming_a_file_elsewhere_shows_nothing_of_it(tmp_path):
    secret = secret_file(tmp_path / "outside")
    folder = tmp_path / "repo"
    folder.mkdir()
    tests = folder / "game.tests.yaml"
    tests.write_text(f"ruleset: {secret}\ntests:\n  - name: starts\n    expect: {{current: P1}}\n")
    for command in (["validate", str(tests)], ["test", str(tests)]):
        result = run(*command)
        assert result.exit_code == 1 and "RE502" in result.output and "is not valid" in result.output
        assert SECRET not in result.output


def test_a_test_file_never_finds_its_ruleset_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples" / "goofspiel.yaml", tmp_path / "goofspiel.yaml")
    (tmp_path / "elsewhere").mkdir()
    tests = tmp_path / "elsewhere" / "game.tests.yaml"
    tests.write_text("ruleset: goofspiel.yaml\ntests:\n  - name: starts\n    expect: {current: P1}\n")
    result = run("validate", str(tests))
    assert result.exit_code == 1 and "RE502" in result.output
    tests.write_text(tests.read_text().replace("goofspiel.yaml", "../goofspiel.yaml"))
    assert run("validate", str(tests)).exit_code == 0


def test_run_will_not_record_over_its_rule_file_or_one_it_extends(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples" / "goofspiel.yaml", "base.yaml")
    assert run("new", "variant.yaml", "--extends", "base.yaml").exit_code == 0
    before = Path("base.yaml").read_text()
    for ruleset in ("base.yaml", "variant.yaml"):
        result = run("run", ruleset, "--seed", "1", "--record", "base.yaml")
        assert result.exit_code == 2 and "that is being read" in result.output
    assert Path("base.yaml").read_text() == before


def test_a_loop_of_symbolic_links_is_a_file_that_cannot_be_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("loop.yaml", "loop.tests.yaml"):
        os.symlink(name, name)
    result = run("validate", "loop.yaml", "loop.tests.yaml")
    assert result.exit_code == 1 and result.output.count("RE009") == 2 and "a loop of symbolic links" in result.output
    for output in (["run", "pan", "--record"], ["simulate", "pan", "-n", "1", "--report"]):
        result = run(*output, "loop.yaml")
        assert result.exit_code == 2 and "it is a loop of symbolic links" in result.output
    assert os.path.islink("loop.yaml") and os.readlink("loop.yaml") == "loop.yaml"


def test_trace_shows_the_problems_of_a_test_file_and_fails(tmp_path):
    (tmp_path / "doc.md").write_text("- **1.1** a\n")
    tests = tmp_path / "t.tests.yaml"
    tests.write_text(
        "ruleset: pan\nrules: doc.md\nnot_testable: {'1.1': a reason}\n"
        "tests:\n  - name: t\n    position: {phase: nope}\n    expect: {current: P2}\n"
    )
    result = run("test", "--trace", str(tests))
    assert result.exit_code == 1 and "RE508" in result.output and "| 1.1 | not testable: a reason |" in result.output


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_positions_count_lines_as_editors_do_past_yamls_other_line_breaks(tmp_path, brk):
    # YAML also breaks lines at U+2028, U+2029 and NEL; editors, Git and CI annotations do not
    game = tmp_path / "game.yaml"
    game.write_text(f'rulesengine: 1\nname: "a{brk}b"\nzones: {{pile: {{visibility: al}}}}\n', encoding="utf-8")
    result = run("validate", str(game))
    assert f"{game}:3:28: error[RE216]" in result.output
    assert "  zones: {pile: {visibility: al}}" in result.output  # the line quoted is that line
    broken = tmp_path / "broken.yaml"
    broken.write_text(f"# a{brk}b\nname: [\nplayers: 2\n", encoding="utf-8")
    assert f"{broken}:2:5: error[RE001]" in run("validate", str(broken)).output  # the ":" of name: [


def test_a_statement_repeated_by_yaml_aliases_is_turned_into_syntax_once(tmp_path, monkeypatch):
    # An alias repeats its scalar at every use: thousands of uses of one long effect must not
    # each be parsed and positioned again (it took minutes), and the checking stops at RE322.
    from rulesengine import parse

    long_effect = "score[me] += size([" + ",".join(["1"] * 600) + "])"
    levels = ["    - &A0 '" + long_effect + "'"]
    for level in range(1, 6):  # each level uses the one below six times: 6**5 uses in all
        uses = ", ".join([f"*A{level - 1}"] * 6)
        levels.append(f"    - &A{level} {{if: 'round > 0', then: [{uses}]}}")
    text = (ROOT / "tests" / "corpus" / "hostile" / "spelt_out_procedure_aliases.yaml").read_text(encoding="utf-8")
    head = text[: text.index("round:\n")]
    game = head + "round:\n  setup:\n" + "\n".join(levels) + "\nphases:\n  play: {moves: [lay]}\n"
    game += "define:\n  bonus: 1\n"  # used only by a move, read after the bound is passed
    game += "moves:\n  lay: {params: {card: 'hand[me]'}, effects: [move card to pile, 'score[me] += bonus']}\n"
    path = tmp_path / "aliases.yaml"
    path.write_text(game, encoding="utf-8")
    converted = []
    statement = parse._ToAst.statement
    monkeypatch.setattr(parse._ToAst, "statement", lambda self, tree: converted.append(1) or statement(self, tree))
    _, found = api.validate_file(path)
    assert "RE322" in {d.code for d in found}
    assert "RE240" not in {d.code for d in found}  # names used past the bound went unread, not unused
    assert len(converted) < 100  # each distinct text and place once, not 6**5 times

    # a text that does not parse is found wrong once, its error kept for every other use
    path.write_text(game.replace("size([1,", "size([1,,"), encoding="utf-8")
    parsed = []
    parse_tree = parse._parse_tree
    monkeypatch.setattr(parse, "_parse_tree", lambda *args: parsed.append(1) or parse_tree(*args))
    _, found = api.validate_file(path)
    assert "RE101" in {d.code for d in found} and len(parsed) < 100
