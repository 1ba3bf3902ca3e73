"""Values a scenario test file checks against, and the files it names: a value no match can
show is a problem of the file (as it is in a position), not a test that can only fail, and a
file that cannot be read says why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulesengine.scenario_file import clauses_in, load
from tests.test_scenarios import run, write


def problems(path) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.span.line, d.span.column, d.message) for d in load(path)[1]]


@pytest.mark.parametrize(
    "expect,message",
    [
        ("{round: 0}", "'round' must be at least 1, not 0"),
        ("{direction: 7}", "'direction' must be 1 or -1, not 7"),
        ("{zones: {pile: -1}}", "a number of cards must be at least 0, not -1"),
        ("{zones: {pile: {size: -2}}}", "a number of cards must be at least 0, not -2"),
        ("{zones: {pile: {size: {contains: ['1♥']}}}}", "'size' must be a whole number of cards"),
        ("{returns: [.nan, 0]}", "a return must be a finite number"),
        ("{returns: [0, -.inf]}", "a return must be a finite number"),
        ("{returns: [1e400, 0]}", "a return must be a finite number"),
    ],
)
def test_an_expected_value_no_match_can_show_is_a_problem_at_its_place(tmp_path, expect, message):
    path = write(tmp_path, f"tests:\n  - name: a\n    expect: {expect}\n")
    found = problems(path)
    assert [(code, line, text) for code, line, _column, text in found] == [("RE500", 3, message)]
    result = run("validate", str(path))
    assert result.returncode == 1 and message in result.stdout


def test_the_same_values_are_refused_in_a_position_and_in_expect(tmp_path):
    position = "position: {phase: play, round: 0, direction: 2}"
    path = write(tmp_path, f"tests:\n  - name: a\n    {position}\n    expect: {{round: 0, direction: 2}}\n")
    messages = [text for _code, _line, _column, text in problems(path)]
    assert messages.count("'round' must be at least 1, not 0") == 2
    assert messages.count("'direction' must be 1 or -1, not 2") == 2


def test_checks_that_can_hold_are_still_accepted(tmp_path):
    expect = "{round: 1, direction: -1, zones: {pile: 0, stock: {size: 2}}, returns: [0, 0.5]}"
    path = write(tmp_path, f"tests:\n  - name: a\n    expect: {expect}\n")
    assert problems(path) == []


def test_an_empty_list_of_tests_is_a_problem(tmp_path):
    path = write(tmp_path, "tests: []\n")
    assert problems(path) == [("RE503", 1, 8, "'tests' lists no test")]


def test_an_empty_test_file_is_called_a_file(tmp_path):
    path = write(tmp_path, "")
    assert problems(path) == [("RE006", 1, 1, "the file is empty")]


def test_a_missing_rule_file_is_named_where_it_was_looked_for(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the test file named as a user names it: the message shows it so
    (tmp_path / "tests").mkdir()
    path = Path("tests") / "tiny.tests.yaml"
    path.write_text("tests:\n  - {name: a, expect: {round: 1}}\n", encoding="utf-8")
    [(code, _line, _column, message)] = problems(path)
    assert code == "RE502"
    assert message == "the rule file 'tiny.yaml' to test is not found (looked for tests/tiny.yaml, beside this file)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
def test_a_rule_file_or_rules_document_that_is_not_a_regular_file_is_called_so(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "folder").mkdir()
    path = write(tmp_path, "ruleset: pipe.yaml\ntests:\n  - {name: a, expect: {round: 1}}\n")
    assert [message for _c, _l, _col, message in problems(path)] == [
        "the rule file 'pipe.yaml' to test is not a regular file"
    ]
    path = write(tmp_path, "rules: folder\ntests:\n  - {name: a, expect: {round: 1}}\n")
    assert [message for _c, _l, _col, message in problems(path)] == [
        "the rules document 'folder' is not a regular file, so the clauses cited are not checked"
    ]
    path = write(tmp_path, "rules: .\ntests:\n  - {name: a, expect: {round: 1}}\n")
    assert [message for _c, _l, _col, message in problems(path)] == [
        "the rules document '.' is not a regular file, so the clauses cited are not checked"
    ]


def test_the_clauses_of_a_rules_document_are_its_numbered_list_items():
    document = (
        "- **1** Players.\n- **1.2** Seats.\n  - **3.10.1** Nested.\n- **C3 Three cards.** A choice.\n"
        "- **Note** read this first.\n- **x** a bold letter.\n- **1a** not a number.\n- plain item\n"
    )
    assert clauses_in(document) == ["1", "1.2", "3.10.1", "C3"]


@pytest.mark.parametrize(
    "expect,bad",
    [
        ("{zones: {pile: -1, stock: -2}}", ["-1", "-2"]),
        ("{zones: {pile: -1, stock: {size: x}}}", ["-1", "x"]),
        ("{zones: {pile: [nocard, '1♥', nocard2]}}", ["nocard", "nocard2"]),
        ("{zones: {pile: {contains: [nocard], excludes: [nocard2], size: x}}}", ["nocard", "nocard2", "x"]),
        ("{returns: [.inf, .nan]}", [".inf", ".nan"]),
        ("{log: [[a], 'P1 lays 1♥', {b: 1}]}", ["[a]", "{b: 1}"]),
        ("{not_log: [[a], {b: 1}]}", ["[a]", "{b: 1}"]),
        ("{sees: {P1: 3, P2: {pile: -1, stock: -2}}}", ["3", "-1", "-2"]),
    ],
)
def test_every_bad_value_of_an_expected_key_is_reported_not_only_the_first(tmp_path, expect, bad):
    line = "    expect: " + expect
    path = write(tmp_path, f"tests:\n  - name: a\n{line}\n")
    columns, start = [], 0
    for text in bad:  # each at its own place, in order
        start = line.index(text, start + 1)
        columns.append(start + 1)
    assert [(row, column) for _code, row, column, _text in problems(path)] == [(3, c) for c in columns]
    ran = run("test", str(path))
    assert ran.returncode == 1 and "0 test(s)" in ran.stdout  # a test with a problem does not run


@pytest.mark.parametrize(
    ("expect", "messages"),
    [
        # a wrong number of returns, and each bad return
        (
            "{returns: [.inf, .nan, 1]}",
            [
                "'returns' needs one value per player (2)",
                "a return must be a finite number",
                "a return must be a finite number",
            ],
        ),
        # a card name that YAML reads as another value, shown as written
        (
            "{zones: {pile: true, stock: [0x10, 1.50]}}",
            ["no card is named 'true'", "no card is named '0x10'", "no card is named '1.50'"],
        ),
    ],
    ids=["returns", "card-names-as-written"],
)
def test_each_bad_value_of_expect_is_reported_in_its_own_words(tmp_path, expect, messages):
    path = write(tmp_path, f"tests:\n  - name: a\n    expect: {expect}\n")
    assert [text for _code, _line, _column, text in problems(path)] == messages


def test_an_empty_ruleset_path_is_a_value_of_the_wrong_shape_as_an_empty_rules_path_is(tmp_path):
    for empty in ("''", "' '"):
        path = write(tmp_path, f"ruleset: {empty}\ntests:\n  - {{name: a, expect: {{round: 1}}}}\n")
        found = load(path)[1]
        assert [(d.code, d.span.line, d.span.column, d.message, d.hint) for d in found] == [
            ("RE500", 1, 10, "'ruleset' must name a file, not an empty text", None)
        ]


def test_a_rule_file_or_rules_document_in_a_loop_of_symbolic_links_is_called_so(tmp_path):
    os.symlink("loop-b.md", tmp_path / "loop-a.md")
    os.symlink("loop-a.md", tmp_path / "loop-b.md")
    os.symlink("loop-a.md", tmp_path / "loop.yaml")
    path = write(tmp_path, "rules: loop-a.md\ntests:\n  - {name: a, expect: {round: 1}}\n")
    assert problems(path) == [
        (
            "RE512",
            1,
            8,
            "the rules document 'loop-a.md' cannot be read (a loop of symbolic links),"
            " so the clauses cited are not checked",
        )
    ]
    path = write(tmp_path, "ruleset: loop.yaml\ntests:\n  - {name: a, expect: {round: 1}}\n")
    assert [text for _code, _line, _column, text in problems(path)] == [
        "the rule file 'loop.yaml' to test cannot be read (a loop of symbolic links)"
    ]


def test_clauses_declared_not_testable_without_a_rules_document_are_a_warning(tmp_path):
    path = write(tmp_path, "not_testable: {'5.2': chance}\ntests:\n  - {name: a, expect: {round: 1}}\n")
    [(code, line, column, message)] = problems(path)
    assert (code, line, column) == ("RE512", 1, 1) and "names no rules document" in message
    assert run("test", str(path)).returncode == 0  # a warning: the tests still run and pass
