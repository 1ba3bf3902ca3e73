"""Scenario test files written carelessly or with hostile intent: every problem is a
diagnostic at its own place, a test with a problem does not run, and nothing ends in a
traceback."""

from __future__ import annotations

from pathlib import Path

from rulesengine.scenario_file import load
from tests.test_scenarios import run, write


def codes(path: Path) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in load(path)[1]]


def test_a_rules_document_that_is_not_utf8_is_a_warning_at_its_name(tmp_path):
    (tmp_path / "rules.md").write_bytes(b"\xff\xfe- **1.1** One.\n")
    path = write(tmp_path, "rules: rules.md\ntests:\n  - {name: a, clause: '1.1', expect: {current: P1}}\n")
    _, problems = load(path)
    assert [(d.code, d.severity, d.span.line, d.span.column) for d in problems] == [("RE512", "warning", 1, 8)]
    assert "cannot be read" in problems[0].message
    for args in (("test",), ("test", "--trace"), ("validate",)):
        result = run(*args, str(path))
        assert "Traceback" not in result.stdout + result.stderr


def test_an_empty_rules_path_is_refused(tmp_path):
    path = write(tmp_path, "rules: ''\ntests:\n  - {name: a, expect: {current: P1}}\n")
    assert codes(path) == [("RE500", 1, 8)]
    assert "Clauses of  and" not in run("test", "--trace", str(path)).stdout
