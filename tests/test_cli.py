"""The `rulesengine` command: exit codes, output, errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rulesengine.cli", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=300
    )


def test_validate_accepts_the_shipped_rulesets():
    result = cli("validate", "rulesets")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 error(s)" in result.stdout


def test_validate_reports_errors_with_exit_1(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((ROOT / "rulesets" / "pan.yaml").read_text().replace("size(pile) > 1", "size(piel) > 1"))
    result = cli("validate", str(broken))
    assert result.returncode == 1
    assert f"{broken}:" in result.stdout and "unknown name 'piel'" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_validate_json_and_github_formats(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nname: y\n")
    data = json.loads(cli("validate", "--format", "json", str(broken)).stdout)
    assert data[0]["code"] == "RE002" and data[0]["line"] == 2 and data[0]["severity"] == "error"
    assert set(data[0]) == {"file", "line", "column", "end_line", "end_column", "severity", "code", "message", "hint"}
    github = cli("validate", "--format", "github", str(broken)).stdout
    assert github.startswith(f"::error file={broken},line=2,col=1")


def test_usage_errors_exit_2():
    assert cli("validate", "no/such/file.yaml").returncode == 2
    result = cli("run", "pan", "-o", "wrod=X")
    assert result.returncode == 2 and "unknown option 'wrod'" in result.stderr
    assert "Traceback" not in result.stderr
    assert cli("run", "pan", "-o", "novalue").returncode == 2
    twice = cli("run", "pan", "-o", "word=P", "-o", "word = Q")  # which one was meant cannot be guessed
    assert twice.returncode == 2 and "-o word is given twice, as P and as Q" in twice.stderr
    assert cli("run", "pan", "-o", "word=P", "-o", "word=P", "--seed", "1").returncode == 0  # one value, twice
    unknown = cli("run", "nosuchgame")
    assert unknown.returncode == 2 and "shipped:" in unknown.stderr and len(unknown.stderr.strip().splitlines()) <= 2


def test_a_path_that_cannot_be_looked_up_is_a_usage_error_as_a_missing_one(tmp_path):
    for name in ("a" * 300 + ".yaml", "a/" * 3000 + "x.yaml"):  # past the system's limits on names
        for style in ("text", "json"):
            result = cli("validate", "--format", style, name, cwd=tmp_path)
            assert result.returncode == 2 and result.stdout == ("[]\n" if style == "json" else "")
            assert f"cannot look up {name[:20]}" in result.stderr and "Traceback" not in result.stderr


def test_run_plays_a_whole_match_from_any_folder(tmp_path):
    result = cli("run", "pan", "--players", "3", "--seed", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == "deal 1, dealt by P1"
    assert any("takes the letter" in line for line in lines)
    assert lines[-1].startswith("result: ") and "lost" in lines[-1]


def test_simulate_prints_per_seat_statistics_as_json():
    result = cli("simulate", "pan", "-n", "3", "--players", "2", "-o", "word=P", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["games"] == 3 and len(data["seats"]) == 2
    assert sum(s["wins"] + s["losses"] + s["draws"] for s in data["seats"]) == 6
    assert data["mean_decisions"] > 0 and data["decisions_per_second"] > 0


def test_python_dash_m_runs_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "rulesengine", "validate", "rulesets/pan.yaml"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 file(s) checked: 0 error(s)" in result.stdout


def test_validate_checks_scenario_test_files_in_a_folder_whatever_their_keys(tmp_path):
    # a test file is checked as one (its positions resolved, not run), with no note about
    # the rule-file format, whether or not its keys look like rule-file sections
    (tmp_path / "game.yaml").write_text((ROOT / "rulesets" / "pan.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    test = "tests:\n  - name: a card no deck holds\n    position:\n      phase: play\n      zones: {pile: [1♥]}\n"
    test += "    expect: {current: P1}\n"
    (tmp_path / "game.tests.yaml").write_text(test, encoding="utf-8")
    (tmp_path / "more.tests.yaml").write_text("ruleset: game.yaml\nplayers: 3\n" + test, encoding="utf-8")
    result = cli("validate", str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "3 file(s) checked: 2 error(s)" in result.stdout
    assert result.stdout.count("RE506") == 2  # the card that does not exist, in each test file
    assert "format version" not in result.stderr


def test_run_and_play_take_numbers_in_ascii_digits_only():
    from click.testing import CliRunner

    from rulesengine.cli import main

    for arguments in (["run", "pan", "-s", "\u0661"], ["run", "pan", "-p", "\u0663"], ["play", "pan", "--seat", "1_0"]):
        result = CliRunner().invoke(main, arguments)
        assert result.exit_code == 2 and "not a whole number" in result.output, arguments


def test_run_keeps_no_log_in_memory(monkeypatch):
    """The log is printed as the match goes and let go, so a long match cannot fill memory."""
    from click.testing import CliRunner

    from rulesengine.cli import main
    from rulesengine.engine import State

    kept = []
    apply = State.apply_action

    def noting(self, action):
        kept.append(len(self.log) if self.log is not None else 0)
        apply(self, action)

    monkeypatch.setattr(State, "apply_action", noting)
    result = CliRunner().invoke(main, ["run", "padan", "-s", "3"])
    assert result.exit_code == 0 and result.output.count("\n") > 100
    assert len(kept) > 100 and max(kept) == 0


def test_no_command_help_shows_a_missing_bound():
    from click.testing import CliRunner

    from rulesengine.cli import main

    # click describes a number range without bounds as "x<=None"
    for name in main.commands:
        shown = CliRunner().invoke(main, [name, "--help"]).output
        assert "None" not in shown, (name, shown)


def test_what_was_typed_is_quoted_in_an_error_with_its_control_characters_escaped():
    """A usage error often quotes what was typed; ESC or BEL in it would reach the terminal."""
    from click.testing import CliRunner

    from rulesengine.cli import main

    cases = [
        (["run", "pan", "--agents", "x\x1b[2J"], "unknown agent 'x\\x1b[2J'"),
        (["play", "pan", "--opponents", "x\x07"], "unknown agent 'x\\x07'"),
        (["run", "pan", "-o", "wo\x07rd=1"], "unknown option 'wo\\x07rd'"),
        (["run", "pan", "-o", "triples=\x07"], "option 'triples' cannot be '\\x07'"),
        (["run", "pan", "-p", "\x07"], "'\\x07' is not a whole number"),
        (["ru\x07n", "pan"], "No such command 'ru\\x07n'"),
        (["simulate", "pan", "-n", "2", "--role", "\x1b"], "--role \\x1b:"),
    ]
    for arguments, quoted in cases:
        result = CliRunner().invoke(main, arguments, input="")
        assert result.exit_code == 2, (arguments, result.output)
        assert quoted in result.output, (arguments, result.output)
        assert "\x07" not in result.output and "\x1b" not in result.output, arguments


def test_a_player_count_the_ruleset_does_not_allow_is_refused_at_the_option():
    from click.testing import CliRunner

    from rulesengine.cli import main

    for command in (["run", "pan"], ["compile", "pan", "--no-optimize"], ["simulate", "pan", "-n", "2"]):
        result = CliRunner().invoke(main, [*command, "--players", "7"])
        assert result.exit_code == 2, (command, result.output)
        assert result.output.strip().endswith("Error: --players: Pan is for 2 to 4 players, not 7"), result.output
