"""Scenario test files written carelessly or with hostile intent: every problem is a
diagnostic at its own place, a test with a problem does not run, and nothing ends in a
traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree

from rulesengine.scenario_file import load
from tests.conftest import refuse_listing
from tests.test_scenarios import GAME, run, write


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


def test_a_rules_document_whose_name_the_system_refuses_is_a_warning_and_other_files_are_checked(tmp_path):
    # a name longer than a file name may be: looking it up fails, which is not "not found"
    path = write(tmp_path, f"rules: {'r' * 256}\ntests:\n  - {{name: a, clause: '1', expect: {{current: P1}}}}\n")
    found, problems = load(path)
    assert [(d.code, d.severity, d.span.line, d.span.column) for d in problems] == [("RE512", "warning", 1, 8)]
    assert "File name too long" in problems[0].message and found is not None and found.rules is None
    other = tmp_path / "other" / "tiny.tests.yaml"
    other.parent.mkdir()
    write(other.parent, "tests:\n  - {name: b, expect: {current: P9}}\n")
    result = run("validate", str(path), str(other))
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert "tiny.tests.yaml:1:8: warning[RE512]" in result.stdout and "error[RE509]" in result.stdout
    for args in (("test",), ("test", "--trace")):
        result = run(*args, str(path))
        assert result.returncode == 0 and "warning[RE512]" in result.stdout + result.stderr, result.stdout


def test_a_test_file_whose_own_name_is_too_long_for_its_rule_file_is_still_read(tmp_path):
    # unsaved text (the language server) under a path whose default rule file cannot be looked up
    _, problems = load(tmp_path / f"{'t' * 300}.tests.yaml", "tests:\n  - {name: a, expect: {current: P1}}\n")
    assert [d.code for d in problems] == ["RE502"]


def test_a_rules_document_larger_than_a_rule_file_is_refused_unread(tmp_path):
    with open(tmp_path / "rules.md", "wb") as document:
        document.truncate(3 * 1024**3)  # sparse: takes no room on disk, but reading it would
    path = write(tmp_path, "rules: rules.md\ntests:\n  - {name: a, clause: '1.1', expect: {current: P1}}\n")
    _, problems = load(path)
    assert [(d.code, d.severity) for d in problems] == [("RE512", "warning")]
    assert "larger than 1000000 bytes" in problems[0].message
    for args in (("test",), ("test", "--trace"), ("validate",)):
        result = run(*args, str(path))
        assert "Traceback" not in result.stdout + result.stderr and "MemoryError" not in result.stderr


def test_a_clause_cited_twice_by_one_test_is_refused_at_the_second(tmp_path):
    (tmp_path / "rules.md").write_text("- **1.1** One.\n- **1.2** Two.\n", encoding="utf-8")
    tests = (
        "tests:\n"
        "  - {name: a, clause: ['1.1', '1.2', 1.1], expect: {current: P1}}\n"
        "  - {name: b, expect: {current: P1}}\n"
    )
    for text, line in ((f"rules: rules.md\n{tests}", 3), (tests, 2)):  # with a rules document or without one
        path = write(tmp_path, text)
        found, problems = load(path)
        assert [(d.code, d.span.line, d.span.column) for d in problems] == [("RE511", line, 38)]
        assert "cites clause '1.1' twice" in problems[0].message
        assert [s.name for s in found.scenarios] == ["b"]  # a test with a problem does not run


def test_a_clause_or_a_name_written_as_a_number_is_taken_as_written(tmp_path):
    (tmp_path / "rules.md").write_text("- **1.1** One.\n- **1.10** Ten.\n", encoding="utf-8")
    path = write(
        tmp_path,
        "rules: rules.md\nnot_testable: {'1.1': a reason}\ntests:\n"
        "  - {name: 0x10, clause: 1.10, expect: {current: P1}}\n",
    )
    found, problems = load(path)
    assert problems == []
    assert [(s.name, [c for c, _ in s.clauses]) for s in found.scenarios] == [("0x10", ["1.10"])]
    trace = run("test", "--trace", str(path))
    assert trace.returncode == 0, trace.stdout
    assert "| 1.10 | tiny.tests.yaml:4 0x10 |" in trace.stdout


def test_paths_that_name_no_test_file_are_refused_for_what_they_are(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    expected = {
        "": "an empty path names no file or folder",  # not the working folder
        str(tmp_path / "pipe"): "not a regular file or a folder",
        str(tmp_path / "loop"): "not a regular file or a folder",
        str(tmp_path / "nothing"): "no such file or folder",
    }
    for path, message in expected.items():
        result = run("test", path)
        assert result.returncode == 2 and message in result.stderr, (path, result.stderr)


def test_the_settings_one_test_file_plays_are_bounded(tmp_path):
    # Each setting is compiled: a file of thousands of option values would run for an hour.
    path = write(tmp_path, "")
    (tmp_path / "tiny.yaml").write_text(GAME.replace("decks:", "options:\n  word: {default: W}\ndecks:", 1))

    def tests(word) -> str:
        return "tests:\n" + "".join(
            f"  - {{name: t{k}, options: {{word: {word(k)}}}, expect: {{current: P1}}}}\n" for k in range(70)
        )

    path.write_text(tests(lambda k: f"W{k}"), encoding="utf-8")
    found, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE504", 2 + k) for k in range(64, 70)]
    assert "more than 64 settings" in problems[0].message
    assert len(found.scenarios) == 64
    path.write_text(tests(lambda k: f"W{k % 64}"), encoding="utf-8")  # a setting met before is no new one
    assert load(path)[1] == []


def test_every_mistake_of_a_position_is_reported(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    position:\n      phase: nosuch\n      current: P9\n"
        "      rest: nowhere\n      zones: {pile: [X1, 1♥, X2]}\n"
        "      variables: {score: {P1: true, P2: 1, P9: 1}, best: P7}\n    expect: {current: P1}\n",
    )
    found, problems = load(path)
    assert sorted((d.code, d.span.line, d.span.column) for d in problems) == [
        ("RE500", 8, 31),  # P1's score
        ("RE505", 6, 13),  # rest
        ("RE506", 7, 22),  # X1
        ("RE506", 7, 30),  # X2, after a card that is fine
        ("RE508", 4, 14),  # phase
        ("RE509", 5, 16),  # current
        ("RE509", 8, 44),  # P9's score
        ("RE509", 8, 58),  # best
    ]
    assert found is None or not found.scenarios  # a test with a problem does not run


def test_an_empty_rules_path_is_refused(tmp_path):
    path = write(tmp_path, "rules: ''\ntests:\n  - {name: a, expect: {current: P1}}\n")
    assert codes(path) == [("RE500", 1, 8)]
    assert "Clauses of  and" not in run("test", "--trace", str(path)).stdout


BOOM = """\
name: Boom
players: {min: 2, max: 2}
decks:
  standard: {suits: [hearts], ranks: ["7", "8"], zone: stock}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
round:
  setup: ["move top(stock) to hand[holder(top(stock))]"]
phases:
  play: {moves: [pass]}
moves:
  pass: {label: passes, effects: ["end game"]}
match:
  until: "true"
"""


def test_a_position_of_rules_whose_setup_fails_is_a_problem_of_that_test(tmp_path):
    # The rules are valid, but their setup indexes a zone by nobody: a test with a position
    # (which starts from a new match) is refused at its place, and other files still run.
    (tmp_path / "boom.yaml").write_text(BOOM, encoding="utf-8")
    boom = tmp_path / "boom.tests.yaml"
    boom.write_text("tests:\n  - name: a\n    position: {phase: play}\n    expect: {current: P1}\n", encoding="utf-8")
    _, problems = load(boom)
    assert [(d.code, d.span.line) for d in problems] == [("RE532", 3)]
    assert "cannot start" in problems[0].message and "boom.yaml:9:" in problems[0].message
    other = write(tmp_path, "tests:\n  - {name: b, expect: {current: P1}}\n")
    result = run("test", "--format", "json", str(other), str(boom))
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert [t["outcome"] for t in report["tests"]] == ["passed"]
    assert [p["code"] for p in report["problems"]] == ["RE532"]


TWO_LABELS = """\
name: Two labels
players: {min: 2, max: 2}
decks:
  standard: {suits: [hearts, spades], ranks: ["2", "3"], zone: stock}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  table: {visibility: all}
  bin: {visibility: all}
round:
  setup: [deal 2 of stock to hand from seat(0)]
phases:
  play: {moves: [good, bad], until: size(table) + size(bin) == 4}
moves:
  good: {params: {card: "hand[me]"}, label: "plays {card.rank}", effects: [move card to table]}
  bad: {params: {card: "hand[me]"}, label: "plays {card.rank}", effects: [move card to bin]}
match:
  until: "true"
"""


def test_an_action_name_of_several_legal_actions_is_refused(tmp_path):
    (tmp_path / "two.yaml").write_text(TWO_LABELS, encoding="utf-8")
    path = tmp_path / "two.tests.yaml"
    position = "    position: {phase: play, zones: {hand: {P1: [2 of hearts, 3 of hearts], P2: [2 of spades]}}}\n"
    path.write_text(
        "tests:\n  - name: which\n" + position + "    play: [plays 2]\n    expect: {zones: {table: [2 of hearts]}}\n"
        "  - name: all\n" + position + "    expect: {only_legal: [plays 2, plays 3]}\n",
        encoding="utf-8",
    )
    result = run("test", str(path))
    assert result.returncode == 1
    assert f"{path}:4:12: error[RE533]: test 'which': 'plays 2' names 2 legal actions of P1 here" in result.stdout
    assert "move 'good' (2 of hearts); move 'bad' (2 of hearts)" in result.stdout
    assert "got [plays 2, plays 2, plays 3, plays 3]" in result.stdout
    assert "0 passed, 2 failed" in result.stdout


def test_a_position_without_a_phase_is_refused(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    position: {}\n    expect: {current: P1}\n"
        "  - name: b\n    position:\n      zones: {pile: [1♥]}\n    expect: {current: P1}\n",
    )
    tests, problems = load(path)
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [("RE508", 3, 15), ("RE508", 7, 7)]
    assert "needs a 'phase'" in problems[0].message and problems[0].hint == "phases: play"
    assert tests is not None and tests.scenarios == ()


def test_a_zone_given_twice_is_refused_at_the_second(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    position:\n      phase: play\n"
        '      zones: {hand: {P1: [1♥]}, "hand[P1]": []}\n'
        '    expect: {zones: {"hand[P2]": 0, hand: {P2: 1}}}\n',
    )
    tests, problems = load(path)
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [("RE510", 5, 33), ("RE510", 6, 44)]
    assert "zone 'hand[P1]' is given twice" in problems[0].message and "line 5, column 22" in (problems[0].hint or "")
    assert tests is not None and tests.scenarios == ()


def test_a_test_that_plays_and_checks_nothing_is_refused(tmp_path):
    path = write(
        tmp_path,
        "tests:\n"
        "  - {name: a, expect: {}}\n"
        "  - {name: b, steps: [{}]}\n"
        "  - {name: c, play: []}\n"
        "  - {name: d, expect: {legal: [], not_legal: []}}\n"
        "  - {name: e, expect: {current: P1}, steps: [{}, {play: [lay 1♥]}]}\n",
    )
    tests, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE503", n) for n in (2, 3, 4, 5, 6)]
    assert all("checks nothing" in d.message for d in problems)
    assert problems[-1].span.column == 46  # the empty step itself
    assert tests is not None and tests.scenarios == ()


def test_every_action_that_is_not_a_text_is_reported_and_nothing_more(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    play: [3, {a: b}, lay 1♥, true]\n    expect: {current: P1, legal: [1, x, [y]]}\n",
    )
    assert codes(path) == [("RE500", 3, 12), ("RE500", 3, 15), ("RE500", 3, 31), ("RE500", 4, 35), ("RE500", 4, 41)]


def test_a_test_with_a_problem_is_neither_run_nor_counted(tmp_path):
    (tmp_path / "rules.md").write_text("- **1.1** One.\n", encoding="utf-8")
    path = write(
        tmp_path,
        "rules: rules.md\ntests:\n"
        "  - {name: a, clause: '1.1', expect: {current: P1}}\n"
        "  - {name: a, clause: '1.1', expect: {current: P1}}\n"
        "  - {name: b, clause: '9.9', expect: {current: P1}}\n",
    )
    tests, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE503", 4), ("RE511", 5)]
    assert tests is not None and [s.name for s in tests.scenarios] == ["a"]
    result = run("test", str(path))
    assert result.returncode == 1 and "1 test(s) in 1 file(s): 1 passed, 0 failed; 2 problem(s)" in result.stdout


def test_each_refused_option_and_player_count_is_reported_at_its_own_place(tmp_path):
    path = write(
        tmp_path,
        "options: {speed: 11, bogus: 1}\ntests:\n  - {name: a, players: 9, expect: {current: P1}}\n"
        "  - {name: b, options: {speed: two, fast: 2.5}, expect: {current: P1}}\n",
    )
    options = "options:\n  speed: {default: 3, min: 1, max: 10}\n  fast: {default: false}\n"
    (tmp_path / "tiny.yaml").write_text(GAME.replace("decks:\n", options + "decks:\n", 1), encoding="utf-8")
    _, problems = load(path)
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [
        ("RE504", 1, 18),
        ("RE504", 1, 22),
        ("RE504", 3, 24),
        ("RE504", 4, 32),
        ("RE504", 4, 43),
    ]
    messages = [d.message for d in problems]
    assert "at most 10, not 11" in messages[0] and "unknown option 'bogus'" in messages[1]
    assert "for 2 to 3 players, not 9" in messages[2]
    assert messages[3] == "option 'speed' takes a whole number, not 'two'"
    assert messages[4] == "option 'fast' takes true or false, not 2.5"


def test_control_characters_in_test_names_are_escaped_in_every_format(tmp_path):
    path = write(
        tmp_path,
        'tests:\n  - {name: "a\\0b\\nPASS fake\\ufffe", expect: {current: P2}}\n'
        '  - {name: "ok\\x07", expect: {current: P1}}\n',
    )
    verbose = run("test", "-v", str(path)).stdout
    assert "\0" not in verbose and "\x07" not in verbose
    assert f"FAIL {path}:2: a\\x00b\\x0aPASS fake\\ufffe" in verbose
    assert not any(line.startswith("PASS fake") for line in verbose.splitlines())
    suites = ElementTree.fromstring(run("test", "--format", "junit", str(path)).stdout)  # well-formed XML 1.0
    cases = suites.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["a\\x00b\\x0aPASS fake\\ufffe", "ok\\x07"]
    failure = cases[0].find("failure")
    assert failure is not None and "\\x00" in (failure.get("message") or "")
    github = run("test", "--format", "github", str(path)).stdout
    assert "\0" not in github and "a\\x00b\\x0aPASS" in github
    trace = run("test", "--trace", str(path)).stdout
    assert "\0" not in trace and "\x07" not in trace


def test_players_and_counts_are_written_as_the_log_writes_them(tmp_path):
    lines = ["current: P01", "current: P\u0662", "round: -3", "turns: -1", "passes: -7", "out: [P2, P2]"]
    text = "tests:\n" + "".join(
        f"  - name: t{i}\n    position:\n      phase: play\n      {line}\n    expect: {{current: P1}}\n"
        for i, line in enumerate(lines)
    )
    path = write(tmp_path, text)
    _, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [
        ("RE509", 5),
        ("RE509", 10),
        ("RE500", 15),
        ("RE500", 20),
        ("RE500", 25),
        ("RE509", 30),
    ]
    assert "'round' must be at least 1, not -3" in problems[2].message
    assert "P2 is named twice" in problems[5].message and problems[5].span.column == 17


def test_a_position_at_the_last_round_number_stops_when_a_new_round_would_pass_it(tmp_path):
    """round: 9223372036854775807 in a position: the next round's number passed the
    language's integers without a word (it read 2**63)."""
    path = write(
        tmp_path,
        """\
tests:
  - name: the last round
    position:
      phase: play
      current: P1
      round: 9223372036854775807
      zones:
        pile: [1♥, 1♠, 2♠]
        hand: {P1: [3♥], P2: [2♥]}
    play: [lay 3♥]
""",
    )
    result = run("test", str(path))
    assert result.returncode == 1
    assert "a new round would be round 9223372036854775808, past the language's integers" in result.stdout


def test_a_test_file_linked_from_outside_its_folder_is_refused_unread_as_validate_refuses_it(tmp_path):
    (tmp_path / "secret.yaml").write_text("ruleset: SECRET_VALUE\nSECRET_KEY: 1\n", encoding="utf-8")
    rules = tmp_path / "rules"
    (rules / "tests").mkdir(parents=True)
    (rules / "game.yaml").write_text(GAME, encoding="utf-8")
    for link in (rules / "evil.tests.yaml", rules / "tests" / "game.tests.yaml"):
        link.symlink_to(tmp_path / "secret.yaml")
    for given in (rules, rules / "evil.tests.yaml", rules / "game.yaml"):
        for output_format in ("text", "json", "github", "junit"):
            result = run("test", "--format", output_format, str(given))
            assert result.returncode == 1 and "RE023" in result.stdout, (given, output_format, result.stdout)
            assert "SECRET" not in result.stdout + result.stderr
        trace = run("test", "--trace", str(given))
        assert trace.returncode == 1 and "RE023" in trace.stderr and "SECRET" not in trace.stdout + trace.stderr
    validated = run("validate", str(rules / "evil.tests.yaml"))
    assert validated.returncode == 1 and "error[RE023]: this file is a symbolic link" in validated.stdout
    tested = run("test", str(rules / "evil.tests.yaml"))
    assert tested.stdout.splitlines()[0] == validated.stdout.splitlines()[0]


def test_a_path_whose_name_is_too_long_is_a_usage_error_as_validate_makes_it(tmp_path):
    too_long = str(tmp_path / ("a" * 300 + ".tests.yaml"))
    for command in ("validate", "test"):
        result = run(command, too_long)
        assert result.returncode == 2 and "cannot look up" in result.stderr and "too long" in result.stderr, command
    # a rule file's name that the system takes, to which ".tests" adds too much
    rule_file = tmp_path / ("b" * 250 + ".yaml")
    rule_file.write_text(GAME, encoding="utf-8")
    lonely = run("test", str(rule_file))
    assert lonely.returncode == 2 and "no scenario tests for" in lonely.stderr


def test_junit_shows_the_warnings_of_a_test_file_and_counts_them_as_the_exit_code_does(tmp_path):
    path = write(tmp_path, "rules: nowhere.md\ntests:\n  - name: a\n    expect: {current: P1}\n")
    for strict in ((), ("--strict",)):
        result = run("test", "--format", "junit", *strict, str(path))
        suite = ElementTree.fromstring(result.stdout).find("testsuite")
        assert suite is not None and "RE512" in result.stdout
        failing = int(suite.get("errors") or 0) + int(suite.get("failures") or 0)
        assert result.returncode == (1 if strict else 0) and bool(failing) == bool(strict), (strict, result.stdout)
    error = suite.find("./testcase[@name='the test file']/error")
    assert error is not None and "warning[RE512]" in (error.text or "")


def test_the_json_trace_lists_every_test_file_whose_problems_fail_it(tmp_path):
    twice = write(tmp_path, "tests:\n  - {name: a, expect: {current: P1}}\n  - {name: a, expect: {current: P1}}\n")
    result = run("test", "--trace", "--format", "json", str(twice))
    assert result.returncode == 1 and "RE503" in result.stderr
    assert json.loads(result.stdout)["files_with_problems"] == [str(twice)]
    warned = write(tmp_path, "rules: nowhere.md\ntests:\n  - {name: a, expect: {current: P1}}\n")
    for strict, listed in (((), []), (("--strict",), [str(warned)])):
        result = run("test", "--trace", "--format", "json", *strict, str(warned))
        assert json.loads(result.stdout)["files_with_problems"] == listed
        assert result.returncode == (1 if listed else 0)


def test_the_trace_reports_every_uncovered_numbered_clause_and_no_recorded_choice(tmp_path):
    (tmp_path / "rules.md").write_text(
        "- **1** Each player gets two cards.\n- **2** A card must be higher.\n- **2.1** Or equal.\n"
        "- **C1 Two cards.** Chosen so.\n",
        encoding="utf-8",
    )
    path = write(tmp_path, "rules: rules.md\ntests:\n  - {name: a, clause: '2.1', expect: {current: P1}}\n")
    result = run("test", "--trace", str(path))
    assert result.returncode == 1
    assert "| 1 | **not covered** |" in result.stdout and "| C1 | - |" in result.stdout
    assert "not covered: rules.md 1, rules.md 2\n" in result.stdout
    as_json = json.loads(run("test", "--trace", "--format", "json", str(path)).stdout)
    assert as_json["missing"] == ["rules.md 1", "rules.md 2"]


def test_a_path_that_names_no_tests_is_printed_with_its_control_characters_escaped(tmp_path):
    (tmp_path / "game\x1b[2J.yaml").write_text(GAME, encoding="utf-8")  # a rule file without tests
    os.mkfifo(tmp_path / "pipe\x1b[2J")
    expected = {
        "game\x1b[2J.yaml": f"no scenario tests for {tmp_path}/game\\x1b[2J.yaml (looked for game\\x1b[2J.tests.yaml",
        "pipe\x1b[2J": f"not a regular file or a folder: {tmp_path}/pipe\\x1b[2J",
        "none\x1b[2J": f"no such file or folder: {tmp_path}/none\\x1b[2J",
    }
    for name, message in expected.items():
        result = run("test", str(tmp_path / name))
        assert result.returncode == 2 and message in result.stderr and "\x1b" not in result.stderr, result.stderr


def test_a_folder_of_tests_that_cannot_be_read_is_an_error_at_its_name(tmp_path, monkeypatch):
    write(tmp_path, "tests:\n  - {name: a, expect: {current: P1}}\n")
    (tmp_path / "locked").mkdir()
    write(tmp_path / "locked", "tests:\n  - {name: b, expect: {current: P9}}\n")
    assert run("test", str(tmp_path)).returncode == 1  # readable, its failing test is run
    refuse_listing(monkeypatch, "locked")
    result = run("test", str(tmp_path))
    assert result.returncode == 1 and "P9" not in result.stdout
    assert f"{tmp_path / 'locked'}:1:1: error[RE009]: cannot read folder: Permission denied" in result.stdout
    assert "1 test(s) in 1 file(s): 1 passed, 0 failed; 1 folder(s) that cannot be read" in result.stdout


# ---- every value of the wrong type is named at its place, in YAML's words -----------------------


def refused(path: Path, expected: list[tuple[str, int, int, str]]) -> None:
    """`load` reports exactly these problems (code, line, column, message), and `rulesengine
    test` prints each at its place and exits 1."""
    _, problems = load(path)
    assert [(d.code, d.span.line, d.span.column, d.message) for d in problems] == expected
    result = run("test", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    for code, line, column, message in expected:
        assert f"{path}:{line}:{column}: error[{code}]: {message}" in result.stdout, result.stdout


def test_a_card_that_is_not_a_text_is_named_so_at_its_place(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    position: {phase: play, zones: {pile: [null, [1], {a: b}, 1♥]}}\n"
        "    expect: {zones: {pile: [~]}}\n",
    )
    refused(
        path,
        [
            ("RE500", 3, 44, "a card must be a text (a card's name), not null"),
            ("RE500", 3, 50, "a card must be a text (a card's name), not a list"),
            ("RE500", 3, 55, "a card must be a text (a card's name), not a mapping"),
            ("RE500", 4, 29, "a card must be a text (a card's name), not null"),
        ],
    )


def test_a_ruleset_or_rules_document_named_by_a_number_must_be_a_text(tmp_path):
    for written in ("5", "[a]", "true"):
        path = write(tmp_path, f"ruleset: {written}\ntests:\n  - {{name: a, expect: {{current: P1}}}}\n")
        refused(path, [("RE500", 1, 10, "'ruleset' must be a text")])
        path = write(tmp_path, f"rules: {written}\ntests:\n  - {{name: a, expect: {{current: P1}}}}\n")
        refused(path, [("RE500", 1, 8, "'rules' must be a text")])  # an error, not "'5' is not found"
    assert [d.hint for d in load(write(tmp_path, "rules: 5\ntests: []\n"))[1]][0] == "quote it"


def test_tests_or_steps_written_as_one_text_must_be_a_list(tmp_path):
    for written in ("hello", "{a: 1}", "5"):
        refused(write(tmp_path, f"tests: {written}\n"), [("RE500", 1, 8, "'tests' must be a list")])
        path = write(tmp_path, f"tests:\n  - {{name: a, steps: {written}}}\n")
        refused(path, [("RE500", 2, 22, "'steps' must be a list")])


def test_an_option_of_the_wrong_type_is_named_in_yaml_words(tmp_path):
    path = write(
        tmp_path,
        "options: {word: true, fast: 5, speed: true}\ntests:\n"
        "  - {name: a, options: {word: null, fast: [1], speed: {a: 1}}, expect: {current: P1}}\n",
    )
    options = "options:\n  word: {default: W}\n  fast: {default: false}\n  speed: {default: 3}\n"
    (tmp_path / "tiny.yaml").write_text(GAME.replace("decks:\n", options + "decks:\n", 1), encoding="utf-8")
    refused(
        path,
        [
            ("RE504", 1, 17, "option 'word' takes a text, not true"),  # not Python's True
            ("RE504", 1, 29, "option 'fast' takes true or false, not 5"),
            ("RE504", 1, 39, "option 'speed' takes a whole number, not true"),
            ("RE500", 3, 31, "option 'word' takes a text, not null"),
            ("RE500", 3, 43, "option 'fast' takes true or false, not a list"),
            ("RE500", 3, 55, "option 'speed' takes a whole number, not a mapping"),
        ],
    )
