"""simulate, compare and check used carelessly or with hostile arguments: outputs that are
inputs or not files, a disk that fills up, absurd worker counts, NaN, too many agents."""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine.analysis import analyse, make_plan
from rulesengine.analysis.backends import MAX_WORKERS, resolve_workers, run
from rulesengine.analysis.commands import MatchWriter
from rulesengine.cli import main
from tests.conftest import child_environment
from tests.test_pipeline import MINIMAL

GAME = MINIMAL  # the README's first game


def cli(*arguments: str):
    return CliRunner().invoke(main, [str(a) for a in arguments])


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "g.yaml"
    path.write_text(GAME)
    return path


# ---- outputs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--matches", "--report"])
def test_simulate_refuses_to_write_over_its_rule_file(rules, option):
    result = cli("simulate", rules, "-n", "2", option, rules.parent / "." / rules.name)
    assert result.exit_code == 2 and "is the rule file" in result.output and "Traceback" not in result.output
    assert rules.read_text() == GAME


def test_compare_refuses_a_report_over_either_rule_file(rules, tmp_path):
    other = tmp_path / "h.yaml"
    other.write_text(GAME)
    result = cli("compare", rules, other, "-n", "2", "--report", other)
    assert result.exit_code == 2 and "is the rule file" in result.output
    assert other.read_text() == GAME


@pytest.mark.parametrize("option", ["--matches", "--report"])
def test_an_output_over_the_base_of_a_variant_is_refused(rules, tmp_path, option):
    variant = tmp_path / "variant.yaml"
    variant.write_text("rulesengine: 1\nextends: g.yaml\nname: Variant\n")
    result = cli("simulate", variant, "-n", "2", option, rules)
    assert result.exit_code == 2 and f"is the rule file {rules}" in result.output
    compared = cli("compare", rules.parent / "." / rules.name, variant, "-n", "2", "--report", rules)
    assert compared.exit_code == 2 and "is the rule file" in compared.output
    assert rules.read_text() == GAME


@pytest.mark.parametrize("option", ["--matches", "--report"])
def test_an_output_that_is_a_pipe_or_a_device_is_refused(rules, tmp_path, option):
    fifo = tmp_path / "pf"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so that a writer would not wait for one
    try:
        for target in (fifo, Path(os.devnull)):
            result = cli("simulate", rules, "-n", "2", option, target)
            assert result.exit_code == 2 and "not a regular file" in result.output
    finally:
        os.close(reader)
    assert fifo.is_fifo()


def test_matches_and_report_cannot_be_the_same_file(rules, tmp_path):
    result = cli("simulate", rules, "-n", "2", "--matches", tmp_path / "o", "--report", tmp_path / "o")
    assert result.exit_code == 2 and "same file" in result.output


def test_the_matches_file_is_not_touched_before_a_match_is_done(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("kept\n")
    MatchWriter(str(path)).close()  # as when the backend cannot start
    assert path.read_text() == "kept\n"


def _stopped_before_a_match(*arguments):
    raise KeyboardInterrupt  # Ctrl-C before the first match is done
    yield  # a generator, as the backends are


def test_ctrl_c_before_a_match_is_done_leaves_the_matches_file_as_it_was(rules, tmp_path, monkeypatch):
    from rulesengine.analysis import backends

    monkeypatch.setattr(backends, "_batches", _stopped_before_a_match)
    path = tmp_path / "m.jsonl"
    path.write_text("kept\n")
    result = cli("simulate", rules, "-n", "5", "--json", "--matches", path)
    assert result.exit_code == 130, result.output
    assert json.loads(result.stdout)["games"] == 0
    assert path.read_text() == "kept\n"
    assert f"no match was done: {path} was left as it was" in result.stderr


def test_compare_stopped_during_the_first_setting_prints_json_and_writes_the_report(rules, tmp_path, monkeypatch):
    from rulesengine.analysis import backends

    played = backends._batches

    def one_match_then_ctrl_c(*arguments):
        yield next(played(*arguments))
        raise KeyboardInterrupt

    monkeypatch.setattr(backends, "_batches", one_match_then_ctrl_c)
    other = tmp_path / "h.yaml"
    other.write_text(GAME)
    report = tmp_path / "r.html"
    report.write_text("<p>the last report</p>\n")
    result = cli("compare", rules, other, "-n", "5", "--json", "--report", report)
    assert result.exit_code == 130, result.output
    data = json.loads(result.stdout)
    assert data["partial"] and data["a"]["games"] == 1 and data["a"]["partial"]
    assert data["b"] is None and data["rows"] == []
    assert "interrupted before the second setting was simulated" in result.stderr
    page = report.read_text()
    assert "B was not simulated" in page and '"partial": true' in page  # as simulate, a partial report


def test_a_run_done_without_a_match_leaves_an_empty_matches_file(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("old\n")
    MatchWriter(str(path)).finish(interrupted=False)  # the file is the record of the run: none
    assert path.read_text() == ""
    MatchWriter(str(path)).finish(interrupted=True)
    assert path.read_text() == ""


def simulate_on_a_small_disk(*arguments: str, room: int) -> subprocess.CompletedProcess:
    """`rulesengine simulate` in a process whose files cannot grow past `room` bytes."""

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))  # a disk that is full then
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so the write fails instead of killing the process

    return subprocess.run(
        [sys.executable, "-m", "rulesengine", "simulate", *arguments],
        capture_output=True,
        text=True,
        env={**child_environment(), "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=small_files,
        timeout=120,
    )


def test_a_full_disk_while_writing_matches_is_a_one_line_error(rules, tmp_path):
    matches = tmp_path / "m.jsonl"
    result = simulate_on_a_small_disk(str(rules), "-n", "20", "--matches", str(matches), room=600)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"cannot write {matches}: File too large" in result.stderr


def test_a_report_that_cannot_be_written_whole_leaves_the_old_one(rules, tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<p>the last report</p>\n")
    result = simulate_on_a_small_disk(str(rules), "-n", "4", "--report", str(report), room=2000)
    assert result.returncode == 2 and f"cannot write {report}: File too large" in result.stderr
    assert "win rate" in result.stdout  # the statistics are printed all the same
    assert report.read_text() == "<p>the last report</p>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml", "report.html"]  # no temporary file left


# ---- workers ------------------------------------------------------------------------------------


def test_an_absurd_worker_count_is_refused():
    with pytest.raises(ValueError, match=f"at most {MAX_WORKERS}"):
        resolve_workers(str(MAX_WORKERS + 1))
    assert resolve_workers(str(MAX_WORKERS)) == MAX_WORKERS
    result = cli("simulate", "pan", "-n", "3", "-j", "100000")
    assert result.exit_code == 2 and f"at most {MAX_WORKERS}" in result.output


def test_no_more_workers_than_matches():
    data = analyse(rulesengine.make_game("pan", players=2), 3, workers=50, probe=False)
    assert data["workers"] == 3 and data["games"] == 3


def test_the_workers_end_when_the_caller_of_a_batch_fails():
    plan = make_plan(rulesengine.make_game("pan", players=2), 40)

    def refuse(record: dict) -> None:
        raise OSError("no space left")

    try:
        run(plan, None, workers=2, on_record=refuse)
    except OSError:
        left = multiprocessing.active_children()  # while the error (and its frames) still lives
    else:
        raise AssertionError("the error of on_record was lost")
    assert left == []


# ---- numbers, agents and options ------------------------------------------------------------------


@pytest.mark.parametrize("share", ["nan", "NaN", "-nan"])
def test_check_refuses_a_limit_share_that_is_not_a_number(share):
    result = cli("check", "pan", "-n", "2", "--limit-share", share)
    assert result.exit_code == 2 and "not a finite number" in result.output


@pytest.mark.parametrize("command", [["simulate", "pan"], ["compare", "pan", "-O", "word=P"]])
def test_more_agents_than_seats_are_refused(command):
    result = cli(*command, "-p", "2", "-n", "2", "--agents", "random,greedy,random")
    assert result.exit_code == 2 and "3 agents given for 2 seat(s)" in result.output


@pytest.mark.parametrize("agents", ["random,,greedy", "random,", " ", ","])
def test_an_empty_agent_spec_is_refused_as_run_refuses_it(agents):
    for command in (["simulate", "pan", "-n", "2"], ["run", "pan"]):
        result = cli(*command, "-p", "3", "--agents", agents)
        assert result.exit_code == 2 and "comma-separated specs" in result.output


def test_compare_names_the_option_typed():
    result = cli("compare", "pan", "-n", "2", "-O", "rounds")
    assert result.exit_code == 2 and "-O takes NAME=VALUE, not 'rounds'" in result.output
    twice = cli("compare", "pan", "-n", "2", "-O", "word=P", "-O", "word=Q")  # the last one was kept unsaid
    assert twice.exit_code == 2 and "-O word is given twice, as P and as Q" in twice.output


def test_standing_takes_one_minus_before_the_variable():
    assert cli("simulate", "pan", "-n", "1", "--standing", "-letters", "--json").exit_code == 0
    twice = cli("simulate", "pan", "-n", "1", "--standing", "--letters")  # was read as -letters
    assert twice.exit_code == 2 and "--standing --letters: not a per-player number variable" in twice.output


@pytest.mark.parametrize("command", [["simulate", "pan"], ["compare", "pan", "-O", "word=P"]])
def test_an_address_without_the_ray_backend_is_refused(command):
    result = cli(*command, "-n", "2", "--address", "10.0.0.1:6379")
    assert result.exit_code == 2 and "give it with --backend ray" in result.output


@pytest.mark.parametrize("address", ["", "   "])
def test_an_empty_address_is_refused_rather_than_starting_a_cluster_here(address):
    result = cli("simulate", "pan", "-n", "2", "--backend", "ray", "--address", address)
    assert result.exit_code == 2, result.output
    assert "--address is the address of a Ray cluster" in result.output and "leave it out" in result.output


def test_a_role_that_is_no_player_variable_lists_those_there_are():
    result = cli("simulate", "padan", "-n", "2", "--role", "score")
    assert result.exit_code == 2
    assert "not a variable of type player" in result.output and "choose from: first_drafter" in result.output


@pytest.mark.parametrize("output_format", ["json", "github", "text"])
def test_check_reports_an_invalid_rule_file_in_the_chosen_format(tmp_path, output_format):
    broken = tmp_path / "bad.yaml"
    broken.write_text(MINIMAL + "bogus: 1\n")
    result = cli("check", str(broken), "pan", "-n", "2", "--format", output_format)
    assert result.exit_code == 1
    if output_format == "json":
        found = json.loads(result.output)
        assert [d["code"] for d in found if d["file"] == str(broken)] == ["RE201"]
    elif output_format == "github":
        assert f"::error file={broken},line=" in result.output and "title=RE201" in result.output
    else:
        assert "RE201" in result.output and "setting(s)" in result.output  # pan was still checked


def test_check_plays_each_setting_once_however_often_it_is_named():
    result = cli("check", "padan", "-n", "2", "-p", "2", "-p", "2")
    assert result.exit_code == 0 and "1 setting(s), 2 matches each" in result.output


def test_a_name_that_is_not_utf8_is_shown_escaped_in_the_report(tmp_path):
    pytest.importorskip("matplotlib", reason="the report needs the extra 'report'")
    rules = tmp_path / "g\udcff.yaml"  # as Python names a file whose name is not UTF-8
    rules.write_text(GAME)
    report = tmp_path / "r.html"
    result = cli("simulate", rules, "-n", "2", "--report", report)
    assert result.exit_code == 0, result.output
    assert "g\\udcff.yaml" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (("-n", "\u0663"), "not a whole number"),  # an Arabic-Indic digit, which int() reads
        (("-n", "2", "-p", "\u0662"), "not a whole number"),
        (("-n", "2", "-s", "1_0"), "not a whole number"),
        (("-n", "2", "-s", " 1"), "not a whole number"),
        (("-n", "2", "-s", "9" * 4300), "not a whole number"),  # past 40 digits
        (("-n", "2", "-s", "9" * 30), "not in the range"),
        (("-n", "2", "-j", "\u0662"), "-j takes a number of workers"),
        (("-n", "2", "-j", "1_0"), "-j takes a number of workers"),
        (("-n", "2", "-j", "9" * 5000), "-j takes at most 1024 workers"),
        (("-n", "2", "--agents", "mc:1_0"), "takes a whole number"),
    ],
)
def test_numbers_are_read_as_rule_files_read_them(rules, arguments, expected):
    result = cli("simulate", rules, *arguments)
    assert result.exit_code == 2 and expected in result.output and "Traceback" not in result.output


def test_the_largest_seed_plays_and_prints(rules):
    result = cli("simulate", rules, "-n", "2", "-s", str(2**63 - 2))
    assert result.exit_code == 0, result.output
    assert f"seeds {2**63 - 2}..{2**63 - 1}" in result.output


@pytest.mark.parametrize(
    ("command", "games", "seed", "last"),
    [
        ("simulate", "3", 2**63 - 2, 2**63),
        ("compare", "3", 2**63 - 2, 2**63),
        ("check", "5", 2**63 - 4, 2**63),
        ("check", "1", 2**63 - 2, 2**63),  # its options are probed with three matches
    ],
)
def test_seeds_past_the_largest_are_refused_before_playing(rules, tmp_path, command, games, seed, last):
    matches = tmp_path / "m.jsonl"
    extra = {"simulate": ["--matches", matches], "compare": [rules]}.get(command, [])
    result = cli(command, rules, *extra, "-n", games, "-s", seed)
    assert result.exit_code == 2, result.output
    assert f"Error: --seed {seed} with -n {games}" in result.output and f"would run to {last}" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not matches.exists()


@pytest.mark.parametrize("command", ["simulate", "compare", "check"])
def test_more_matches_than_seeds_are_refused_for_what_they_are(rules, command):
    games = str(2**64)  # no --seed can start them: the error names -n, not a seed out of range
    extra = [rules] if command == "compare" else []
    result = cli(command, rules, *extra, "-n", games)
    assert result.exit_code == 2, result.output
    assert f"-n is at most {2**64 - 1:,} matches, as many as there are seeds" in result.output
    assert f"not {games}" in result.output and "--seed" not in result.output


def test_a_name_cannot_pass_for_a_line_of_the_statistics(tmp_path):
    rules = tmp_path / "g.yaml"
    rules.write_text(GAME.replace("name: ", 'name: "Evil\\e[31m\\nwarning: forged" #', 1))
    other = tmp_path / "h.yaml"
    other.write_text(GAME)
    for arguments in (("simulate", rules, "-n", "2"), ("compare", rules, other, "-n", "2")):
        result = cli(*arguments)
        assert result.exit_code == 0, result.output
        assert "Evil\\x1b[31m\\x0awarning: forged" in result.output
        assert not any(line.startswith("warning: forged") for line in result.output.splitlines())
