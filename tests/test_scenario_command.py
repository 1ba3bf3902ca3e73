"""`rulesengine test` on the paths it is given, as `validate` treats them: each test file run
once, a path that names nothing a usage error that leaves the others run and the report in
the format asked for, a summary that says why the run fails, and a folder called a folder."""

from __future__ import annotations

import json
import os
from xml.etree import ElementTree

from tests.conftest import refuse_listing
from tests.test_scenarios import GAME, run, write

PASSING = "tests:\n  - {name: passes, clause: '1', expect: {current: P1}}\n"
FAILING = "tests:\n  - {name: fails, clause: '1', expect: {current: P2}}\n  - {name: passes, expect: {current: P1}}\n"


def test_the_trace_of_a_rules_document_in_a_loop_of_symbolic_links_is_printed_with_its_warning(tmp_path):
    os.symlink("l2.md", tmp_path / "l1.md")
    os.symlink("l1.md", tmp_path / "l2.md")
    path = write(tmp_path, "rules: l1.md\n" + PASSING)
    result = run("test", "--trace", str(path))  # `run` fails on any exception but SystemExit
    assert result.returncode == 0, result.stdout + result.stderr
    assert "| 1 | tiny.tests.yaml:3 passes |" in result.stdout
    assert "warning[RE512]: the rules document 'l1.md' cannot be read (a loop of symbolic links)" in result.stderr
    result = run("test", "--trace", "--format", "json", str(path))
    assert result.returncode == 0 and json.loads(result.stdout)["documents"][0]["title"] == "l1.md"
    assert run("test", "--strict", "--trace", str(path)).returncode == 1


def test_the_strict_summary_says_the_warnings_fail_the_run_as_the_exit_code_and_junit_do(tmp_path):
    path = write(tmp_path, "rules: missing.md\n" + PASSING)
    lenient = run("test", str(path))
    assert lenient.returncode == 0 and lenient.stdout.splitlines()[-1] == "1 test(s) in 1 file(s): 1 passed, 0 failed"
    strict = run("test", "--strict", str(path))
    assert strict.returncode == 1
    assert strict.stdout.splitlines()[-1] == (
        "1 test(s) in 1 file(s): 1 passed, 0 failed; 1 problem(s) in the test files (--strict: warnings fail the run)"
    )
    junit = ElementTree.fromstring(run("test", "--strict", "--format", "junit", str(path)).stdout)
    assert junit.find("testsuite").get("errors") == "1"  # type: ignore[union-attr]


def test_a_test_file_reached_again_through_a_link_in_its_folder_is_run_once(tmp_path):
    write(tmp_path, "ruleset: tiny.yaml\n" + FAILING)
    os.symlink("tiny.tests.yaml", tmp_path / "again.tests.yaml")
    result = run("test", str(tmp_path))
    assert result.returncode == 1 and result.stdout.count("error[RE530]") == 1, result.stdout
    assert result.stdout.splitlines()[-1] == "2 test(s) in 1 file(s): 1 passed, 1 failed"
    as_json = json.loads(run("test", "--format", "json", str(tmp_path), str(tmp_path / "tiny.tests.yaml")).stdout)
    assert (as_json["passed"], as_json["failed"]) == (1, 1)
    junit = ElementTree.fromstring(run("test", "--format", "junit", str(tmp_path)).stdout)
    assert len(junit.findall("testsuite")) == 1
    trace = run("test", "--trace", str(tmp_path))
    assert trace.stdout.count(":3 fails") == 1, trace.stdout


def test_a_path_that_names_nothing_leaves_the_others_run_and_reported_in_the_format_asked_for(tmp_path):
    path = write(tmp_path, FAILING)
    nothing = str(tmp_path / "nothere")
    result = run("test", "--format", "junit", str(path), nothing)
    assert result.returncode == 2 and f"no such file or folder: {nothing}" in result.stderr
    suites = ElementTree.fromstring(result.stdout).findall("testsuite")
    assert [(s.get("tests"), s.get("failures")) for s in suites] == [("2", "1")]
    result = run("test", "--format", "json", nothing, str(path))
    assert result.returncode == 2 and json.loads(result.stdout)["failed"] == 1
    result = run("test", "--format", "github", str(path), "")
    assert result.returncode == 2 and result.stdout.startswith("::error file=") and "empty path" in result.stderr
    result = run("test", str(path), nothing)
    assert result.returncode == 2
    assert (
        result.stdout.splitlines()[-1]
        == "2 test(s) in 1 file(s): 1 passed, 1 failed; incomplete: a path given was not run"
    )
    result = run("test", "--trace", "--format", "json", str(path), nothing)
    assert result.returncode == 2 and json.loads(result.stdout)["missing"] == []


def test_json_and_junit_are_one_document_when_nothing_is_tested(tmp_path):
    (tmp_path / "empty").mkdir()
    refusals = [["--bogus", str(tmp_path)], [], [str(tmp_path / "empty")], [str(tmp_path / "nothere")]]
    for args in refusals:
        result = run("test", "--format", "json", *args)
        assert result.returncode == 2 and json.loads(result.stdout) == {
            "tests": [],
            "problems": [],
            "passed": 0,
            "failed": 0,
        }, args
        result = run("test", "--format", "junit", *args)
        assert result.returncode == 2 and list(ElementTree.fromstring(result.stdout)) == [], args
        result = run("test", "--trace", "--format", "json", *args)
        assert result.returncode == 2 and json.loads(result.stdout)["documents"] == [], args
        text = run("test", *args)
        assert text.returncode == 2 and text.stdout == "" and text.stderr.startswith("Usage:"), args
    result = run("test", "--trace", "--format", "junit", str(tmp_path))
    assert result.returncode == 2 and list(ElementTree.fromstring(result.stdout)) == []


def test_a_folder_that_cannot_be_read_is_called_a_folder_and_not_counted_as_a_file(tmp_path, monkeypatch):
    write(tmp_path, PASSING)
    (tmp_path / "locked").mkdir()
    refuse_listing(monkeypatch, "locked")
    result = run("test", str(tmp_path))
    assert result.returncode == 1
    assert (
        result.stdout.splitlines()[-1] == "1 test(s) in 1 file(s): 1 passed, 0 failed; 1 folder(s) that cannot be read"
    )
    trace = run("test", "--trace", str(tmp_path))
    assert trace.returncode == 1
    assert f"{tmp_path / 'locked'}: the folder cannot be read, so its test files are not traced" in trace.stdout
    assert "the test file" not in trace.stdout
    junit = ElementTree.fromstring(run("test", "--format", "junit", str(tmp_path)).stdout)
    [case] = [c for c in junit.iter("testcase") if c.get("classname") == str(tmp_path / "locked")]
    assert case.get("name") == "the folder"
    assert case.find("error").get("message") == "the folder cannot be read"  # type: ignore[union-attr]


def test_a_link_that_tests_another_rule_file_by_its_own_name_is_a_run_of_its_own(tmp_path):
    write(tmp_path, FAILING)  # no `ruleset:`: NAME.yaml beside NAME.tests.yaml
    (tmp_path / "again.yaml").write_text(GAME, encoding="utf-8")  # a rule file of its own
    os.symlink("tiny.tests.yaml", tmp_path / "again.tests.yaml")
    result = run("test", str(tmp_path))
    assert result.returncode == 1 and result.stdout.count("error[RE530]") == 2, result.stdout
    assert result.stdout.splitlines()[-1] == "4 test(s) in 2 file(s): 2 passed, 2 failed"


def test_a_link_in_a_walked_folder_that_leads_nowhere_or_in_a_loop_is_reported(tmp_path):
    write(tmp_path, "tests:\n  - {name: a, expect: {round: 1}}\n")
    (tmp_path / "gone.tests.yaml").symlink_to("nowhere.tests.yaml")
    (tmp_path / "l1.tests.yaml").symlink_to("l2.tests.yaml")
    (tmp_path / "l2.tests.yaml").symlink_to("l1.tests.yaml")
    result = run("test", str(tmp_path))
    assert result.returncode == 1
    for name in ("gone", "l1", "l2"):
        assert f"{name}.tests.yaml:1:1: error[RE009]: cannot read file" in result.stdout
    assert "1 test(s) in 4 file(s): 1 passed, 0 failed" in result.stdout
