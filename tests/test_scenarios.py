"""Scenario tests of rule files: the shipped suites, the traceability of the rules documents'
clauses, the diagnostics of impossible positions, the output formats, and a property: a
position written out from any reached state reproduces that state."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import attrs
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import ir
from rulesengine.api import validate_file
from rulesengine.cli import main
from rulesengine.scenario_file import load, readable_clauses
from rulesengine.scenario_run import run_file, start

ROOT = Path(__file__).resolve().parent.parent
SUITES = ROOT / "rulesets" / "tests"
SEEDS = {"pan": "pan.md", "padan": "padan.md", "padan-original": "padan.md", "padvinderspel": "padvinderspel.md"}


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command as users run it, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "rulesengine.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@attrs.frozen
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str) -> Ran:
    """The command in this process (quicker): its exit code and output; never a traceback."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


# ---- the shipped rulesets ------------------------------------------------------------------


def test_the_shipped_scenario_tests_pass_and_cover_every_numbered_clause():
    result = run("test", str(SUITES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ", 0 failed" in result.stdout
    passed = int(result.stdout.split(": ")[-1].split(" passed")[0])
    assert passed >= 100
    result = run("test", "--trace", str(SUITES))  # in this process: the games compiled above are reused
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {}
    title = None
    for line in result.stdout.splitlines():
        if line.startswith("Clauses of "):
            title = line.split()[2]
        elif line.startswith("| ") and not line.startswith("| clause") and not line.startswith("| ---"):
            clause, tests = (cell.strip() for cell in line.strip("|").split("|", 1))
            rows[(title, clause)] = tests
    for document in sorted(set(SEEDS.values())):
        listed = readable_clauses(ROOT / "seeds" / document)
        assert isinstance(listed, list), listed
        numbered = [c for c in listed if "." in c]
        assert len(numbered) > 30
        for clause in numbered:
            shown = rows[(document, clause)]
            assert shown and "not covered" not in shown, (document, clause)
        untestable = [c for c in numbered if rows[(document, c)].startswith("not testable")]
        assert len(untestable) <= 3, untestable  # a position can show nearly every rule


def test_the_command_runs_in_a_process_of_its_own(tmp_path):
    path = write(tmp_path, "tests:\n  - name: start\n    expect: {current: P2}\n")
    result = cli("test", str(path))
    assert result.returncode == 1 and "expected P2, got P1" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_clause_without_a_test_is_reported_and_fails_the_trace(tmp_path):
    suite = (SUITES / "pan.tests.yaml").read_text(encoding="utf-8")
    start_of_test = suite.index("  - name: a pick-up takes the three uppermost cards")
    end_of_test = suite.index("  - name: with fewer than three cards")
    (tmp_path / "pan.tests.yaml").write_text(
        (suite[:start_of_test] + suite[end_of_test:])
        .replace("../../seeds/", f"{ROOT}/seeds/")
        .replace("ruleset: ../pan.yaml", "ruleset: pan"),
        encoding="utf-8",
    )
    result = run("test", "--trace", str(tmp_path / "pan.tests.yaml"))
    assert result.returncode == 1
    assert "| 5.5 | **not covered** |" in result.stdout
    assert "not covered: pan.md 5.5" in result.stdout
    as_json = run("test", "--trace", "--format", "json", str(tmp_path / "pan.tests.yaml"))
    assert as_json.returncode == 1
    data = json.loads(as_json.stdout)
    assert data["missing"] == ["pan.md 5.5"] and data["files_with_problems"] == []
    [document] = data["documents"]
    clauses = {c["clause"]: c for c in document["clauses"]}
    assert document["title"] == "pan.md" and clauses["5.5"] == {
        "clause": "5.5",
        "tests": [],
        "not_testable": None,
        "covered": False,
    }
    assert all(c["covered"] for k, c in clauses.items() if k != "5.5")
    refused = run("test", "--trace", "--format", "junit", str(tmp_path / "pan.tests.yaml"))
    assert refused.returncode == 2 and "text or json" in refused.stderr


def test_the_trace_of_tests_naming_no_rules_document_says_so(tmp_path):
    path = write(tmp_path, "tests:\n  - {name: a, clause: '1.1', expect: {current: P1}}\n")
    result = run("test", "--trace", str(path))
    assert result.returncode == 0 and "name no rules document" in result.stdout and "| 1.1 | tiny" in result.stdout
    document = json.loads(run("test", "--trace", "--format", "json", str(path)).stdout)["documents"][0]
    assert document["document"] is None and [c["clause"] for c in document["clauses"]] == ["1.1"]


def test_a_changed_rule_fails_the_scenarios_of_its_clause(tmp_path):
    rules = (ROOT / "rulesets" / "pan.yaml").read_text(encoding="utf-8")
    changed = rules.replace(
        "move top(pile, min(3, size(pile) - 1)) to hand[me]", "move top(pile, min(2, size(pile) - 1)) to hand[me]"
    )
    assert changed != rules
    (tmp_path / "pan.yaml").write_text(changed, encoding="utf-8")
    suite = (SUITES / "pan.tests.yaml").read_text(encoding="utf-8").replace("ruleset: ../pan.yaml\n", "")
    (tmp_path / "pan.tests.yaml").write_text(suite.replace("rules: ../../seeds/pan.md\n", ""), encoding="utf-8")
    result = run("test", "--format", "json", str(tmp_path / "pan.yaml"))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    failed = {t["name"] for t in data["tests"] if t["outcome"] == "failed"}
    assert "a pick-up takes the three uppermost cards" in failed
    assert "a higher rank may be laid on a lower one, not a lower on a higher" not in failed
    failure = next(t for t in data["tests"] if t["name"] == "a pick-up takes the three uppermost cards")["failures"][0]
    assert failure["code"] in ("RE530", "RE531") and failure["line"] > 1 and failure["column"] > 1


# ---- the format ----------------------------------------------------------------------------

GAME = """\
name: Tiny
players: {min: 2, max: 3, default: 2}
decks:
  standard:
    suits:
      hearts: {symbol: "♥"}
      spades: {symbol: "♠"}
    ranks: ["1", "2", "3"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
  row: {per: suit, visibility: all, sorted_by: order}
variables:
  score: {type: int, per: player}
  best: {type: player}
round:
  setup:
    - deal 2 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
    until: size(pile) == 4
moves:
  lay:
    params: {card: "hand[me]"}
    legal: empty(pile) or card.order >= top(pile).order
    effects:
      - move card to pile
      - score[me] += card.order
      - log "{me} lays {card}"
match:
  until: round == 2
  winners: players.filter(p, score[p] == players.max(q, score[q]))
"""


def write(tmp_path: Path, tests: str) -> Path:
    (tmp_path / "tiny.yaml").write_text(GAME, encoding="utf-8")
    path = tmp_path / "tiny.tests.yaml"
    path.write_text(tests, encoding="utf-8")
    return path


def test_a_position_is_set_up_as_written_and_played_on(tmp_path):
    path = write(
        tmp_path,
        """\
tests:
  - name: lay on the pile
    position:
      phase: play
      current: P2
      zones:
        pile: [1♥]
        hand: {P1: [2♥], P2: [1♠]}
        row[spades]: [3♠, 2♠]
      variables: {score: {P1: 4}, best: P2}
    expect:
      only_legal: [lay 1♠]
      zones: {"row[spades]": [2♠, 3♠], stock: [3♥], "row[hearts]": []}
      variables: {score: [4, 0], best: P2}
    steps:
      - play: [lay 1♠]
        expect:
          current: P1
          zones: {pile: [1♥, 1♠], "hand[P2]": 0}
          variables: {score: [4, 1]}
          log: [P2 lays 1♠]
          not_log: [P1 lays ...]
""",
    )
    result = run_file(path)
    assert not result.problems, result.problems
    assert [t.failures for t in result.results] == [()]


@pytest.mark.parametrize(
    ("position", "code", "at"),
    [
        ("zones: {pile: [1♥, 1♥]}", "RE510", "1♥]"),
        ("zones: {pile: [9♥]}", "RE506", "9♥"),
        ("zones: {pyle: [1♥]}", "RE505", "pyle"),
        ("zones: {hand: {P3: [1♥]}}", "RE505", "P3"),
        ("zones: {hand: [1♥]}", "RE505", "hand"),
        ("variables: {scores: 1}", "RE507", "scores"),
        ("variables: {best: P4}", "RE509", "P4"),
        ("variables: {score: {P1: yes}}", "RE500", "yes"),
        ("phase: plya", "RE508", "plya"),
        ("current: P7", "RE509", "P7"),
        ("rest: heap", "RE505", "heap"),
        ("colour: red", "RE501", "colour"),
        ("out: [P2]", "RE509", "[P2]"),  # its rules put nobody out (a player to move who is out: test_everyone_stays)
    ],
)
def test_an_impossible_position_is_a_diagnostic_at_its_place(tmp_path, position: str, code: str, at: str):
    phase = "" if position.startswith("phase:") else "      phase: play\n"
    text = f"tests:\n  - name: impossible\n    position:\n{phase}      {position}\n    expect: {{current: P1}}\n"
    path = write(tmp_path, text)
    offset = text.rindex(at)
    place = (text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset))
    tests, problems = load(path)
    assert [(d.code, (d.span.line, d.span.column)) for d in problems] == [(code, place)], problems
    assert tests is not None and tests.scenarios == ()  # a broken test does not run
    assert validate_file(path)[1] == problems  # validate checks test files alike


def test_more_cards_than_the_decks_hold_count_copies(tmp_path):
    game = GAME.replace("    zone: stock\n", "    zone: stock\n    copies: 2\n", 1)
    path = write(
        tmp_path,
        "tests:\n  - name: copies\n    position:\n      phase: play\n"
        "      zones: {pile: [1♥, 1♥, 1♥]}\n    expect: {zones: {pile: [1♥, 1♥]}}\n",
    )
    (tmp_path / "tiny.yaml").write_text(game, encoding="utf-8")
    _, problems = load(path)
    assert [(d.code, d.span.column) for d in problems] == [("RE510", 30)]
    assert "only 2 copies" in problems[0].message


def test_file_level_problems(tmp_path):
    path = write(
        tmp_path,
        "players: 9\ntests:\n  - name: a\n    expect: {current: P1}\n  - name: b\n    expect: {current: P1}\n  - {}\n",
    )
    _, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE504", 1), ("RE503", 7)]  # the default once
    path.write_text(
        "tests:\n  - name: a\n    expect: {current: P1}\n  - name: a\n    expect: {current: P1}\n  - name: b\n",
        encoding="utf-8",
    )
    _, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE503", 4), ("RE503", 6)]
    assert "two tests are named 'a'" in problems[0].message and "checks nothing" in problems[1].message
    (tmp_path / "tiny.yaml").unlink()
    _, problems = load(path)
    assert [d.code for d in problems] == ["RE502"]
    path.write_text(
        "ruleset: tiny.yaml\nrules: nowhere.md\ntests:\n  - {name: a, expect: {current: P1}}\n", encoding="utf-8"
    )
    (tmp_path / "tiny.yaml").write_text(GAME, encoding="utf-8")
    _, problems = load(path)
    assert [(d.code, d.severity) for d in problems] == [("RE512", "warning")]


def test_a_name_is_taken_by_a_test_with_problems_too(tmp_path):
    # The first 'a' is broken (an unknown player): the second must not run under its name.
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    expect: {current: P9}\n  - name: a\n    expect: {current: P1}\n",
    )
    found, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE509", 3), ("RE503", 4)]
    assert "two tests are named 'a' (the first at line 2)" in problems[1].message
    assert found is None or not found.scenarios
    # A duplicate that is broken itself is reported for both reasons.
    path.write_text(
        "tests:\n  - name: a\n    expect: {current: P1}\n  - name: a\n    expect: {current: P9}\n",
        encoding="utf-8",
    )
    found, problems = load(path)
    assert sorted((d.code, d.span.line) for d in problems) == [("RE503", 4), ("RE509", 5)]
    assert found is None or [s.name for s in found.scenarios] == ["a"]


def test_a_cited_clause_must_exist_in_the_rules_document(tmp_path):
    (tmp_path / "rules.md").write_text("- **1.1** One.\n- **1.2** Two.\n- **C1 Choice.** Why.\n", encoding="utf-8")
    path = write(
        tmp_path,
        "rules: rules.md\nnot_testable: {'1.3': gone}\ntests:\n"
        "  - {name: a, clause: ['1.1', 'C1', '2.1'], expect: {current: P1}}\n",
    )
    _, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE511", 2), ("RE511", 4)]
    assert "'2.1'" in problems[1].message


def test_failures_name_the_place_the_expected_and_the_actual(tmp_path):
    path = write(
        tmp_path,
        """\
tests:
  - name: wrong
    position:
      phase: play
      zones: {pile: [2♥], hand: {P1: [1♥, 3♥]}}
    expect:
      legal: [lay 1♥]
      current: P2
  - name: illegal
    position:
      phase: play
      zones: {pile: [2♥], hand: {P1: [1♥, 3♥]}}
    play: [lay 1♥]
    expect: {current: P2}
""",
    )
    result = run("test", str(path))
    assert result.returncode == 1
    out = result.stdout
    assert f"{path}:7:15: error[RE530]: test 'wrong': expected 'lay 1♥' legal, got legal actions: [lay 3♥]" in out
    assert f"{path}:8:16: error[RE530]: test 'wrong': expected P2, got P1" in out
    assert f"{path}:13:12: error[RE531]: test 'illegal': 'lay 1♥' is not a legal action of P1 here" in out
    assert "2 test(s) in 1 file(s): 0 passed, 2 failed" in out
    github = run("test", "--format", "github", str(path)).stdout.splitlines()
    assert github[0].startswith(f"::error file={path},line=7,col=15,") and "title=RE530" in github[0]
    suites = ElementTree.fromstring(run("test", "--format", "junit", str(path)).stdout)
    cases = suites.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["wrong", "illegal"]
    assert all(c.find("failure") is not None for c in cases)


def test_passing_tests_and_exit_codes(tmp_path):
    path = write(tmp_path, "tests:\n  - name: start\n    expect: {current: P1, round: 1, phase: play}\n")
    ok = run("test", "--format", "junit", str(tmp_path))
    assert ok.returncode == 0
    suite = ElementTree.fromstring(ok.stdout).find("testsuite")
    assert suite.get("tests") == "1" and suite.get("failures") == "0"
    assert run("test", str(tmp_path / "tiny.yaml")).returncode == 0  # a rule file finds its tests beside it
    assert run("test", str(tmp_path / "missing.tests.yaml")).returncode == 2
    (tmp_path / "lonely.yaml").write_text(GAME, encoding="utf-8")
    lonely = run("test", str(tmp_path / "lonely.yaml"))
    assert lonely.returncode == 2 and "no scenario tests for" in lonely.stderr
    path.write_text("tests: [", encoding="utf-8")
    broken = run("test", "--format", "json", str(path))
    assert broken.returncode == 1 and json.loads(broken.stdout)["problems"][0]["code"] == "RE001"
    assert "Traceback" not in broken.stderr


def test_the_round_and_the_match_end_with_returns(tmp_path):
    path = write(
        tmp_path,
        """\
tests:
  - name: last lay of the round
    position:
      phase: play
      current: P2
      zones: {pile: [1♥, 1♠, 2♥], hand: {P1: [3♠], P2: [3♥]}}
      variables: {score: [5, 1]}
    play: [lay 3♥]
    expect:
      round_over: true
      match_over: true
      returns: [1, -1]
""",
    )
    result = run_file(path)
    assert [t.failures for t in result.results] == [()], result.results


# ---- a written position reproduces the state it was written from ------------------------------


def position_of(state: rulesengine.State) -> dict:
    """The position of a state, written as a scenario test writes it."""
    game = state.game
    program = game.program
    variables = {}
    for name, per_player, type_ in program.variable_layout:
        offset = program.variable_offsets[name]
        values = state.vars[offset : offset + (program.num_players if per_player else 1)]
        shown = [value_text(game, v, type_) for v in values]
        variables[name] = shown if per_player else shown[0]
    return {
        "phase": program.phases[state.phase].name,
        "current": f"P{state.current + 1}",
        "direction": state.direction,
        "round": state.round_number,
        "turns": state.turns,
        "passes": state.passes,
        "out": [f"P{p + 1}" for p, active in enumerate(state.active) if not active],
        "zones": state.card_locations(),
        "variables": variables,
    }


def value_text(game, value, type_):
    if type_ == ir.PLAYER:
        return f"P{value + 1}" if value >= 0 else None
    if type_ in (ir.CARD, ir.SUIT):
        return game.show_value(value, type_)
    return value


@settings(
    max_examples=24,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    ruleset=st.sampled_from(["pan", "pan-reversed-spades", "padan", "padan-original", "padvinderspel"]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
)
def test_a_written_position_reproduces_the_state(tmp_path_factory, ruleset: str, seed: int, steps: int):
    game = rulesengine.make_game(ruleset)
    state = game.new_initial_state(seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(chooser.choice(state.legal_actions()))
    if state.is_terminal():
        return
    folder = tmp_path_factory.mktemp("position")
    test = {"name": "reached", "seed": seed + 1, "position": position_of(state), "expect": {"current": "P1"}}
    suite = {"ruleset": str(rulesengine.find_ruleset(ruleset)), "players": game.num_players, "tests": [test]}
    (folder / "x.tests.yaml").write_text(yaml.safe_dump(suite, allow_unicode=True), encoding="utf-8")
    tests, problems = load(folder / "x.tests.yaml")
    assert not problems, problems
    copy = start(tests.scenarios[0])
    assert copy.card_locations() == state.card_locations()
    assert copy.variables() == state.variables()
    names = sorted(state.action_to_string(a) for a in state.legal_actions())
    assert sorted(copy.action_to_string(a) for a in copy.legal_actions()) == names
    action = chooser.choice(state.legal_actions())
    state.apply_action(action)
    copy.apply_action(action)
    assert copy.card_locations() == state.card_locations()
    assert copy.variables() == state.variables()
    assert copy.current_player() == state.current_player()


# ---- no test file ends in a traceback ----------------------------------------------------------

SUITE = """\
players: 2
tests:
  - name: lay on the pile
    clause: "1.1"
    position:
      phase: play
      current: P2
      zones:
        pile: [1♥]
        hand: {P1: [2♥], P2: [1♠]}
        row[spades]: [3♠, 2♠]
      variables: {score: {P1: 4}, best: P2}
    expect:
      only_legal: [lay 1♠]
      zones: {"row[spades]": [2♠, 3♠], stock: {size: 1, contains: [3♥]}}
      sees: {P1: {"hand[P2]": 1, shown: []}}
    steps:
      - play: [lay 1♠, lay 2♥]
        expect:
          variables: {score: [6, 1], best: P2}
          log: [P2 lays 1♠, P1 lays ...]
          round_over: true
"""
NOISE = list("[]{}:,-'\" \n#&*!|>P0123456789♥♠") + ["P9", "null", "true", "- ", "  ", "play", "zones"]


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(SUITE)), st.integers(0, 3), st.sampled_from(NOISE)), min_size=1, max_size=4
    )
)
def test_a_mutated_test_file_gives_diagnostics_or_results_never_a_traceback(tmp_path_factory, edits):
    text = SUITE
    for at, cut, noise in edits:
        text = text[:at] + noise + text[at + cut :]
    folder = tmp_path_factory.mktemp("mutant")
    (folder / "tiny.yaml").write_text(GAME, encoding="utf-8")
    (folder / "tiny.tests.yaml").write_text(text, encoding="utf-8")
    result = run_file(folder / "tiny.tests.yaml")  # raises nothing
    for diagnostic in (*result.problems, *(f for t in result.results for f in t.failures)):
        assert diagnostic.span.line >= 1 and diagnostic.span.column >= 1


def test_the_unmutated_test_file_passes(tmp_path):
    path = write(tmp_path, SUITE)
    result = run_file(path)
    assert not result.problems and [t.failures for t in result.results] == [()]


def test_options_refused_by_the_ruleset_point_at_the_options(tmp_path):
    path = write(tmp_path, "options: {speed: 3}\ntests:\n  - name: a\n    expect: {current: P1}\n")
    _, problems = load(path)
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [("RE504", 1, 11)]  # its name
    assert "unknown option 'speed'" in problems[0].message


def test_the_pre_commit_hook_and_the_ci_example_run_the_scenario_tests():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "rulesengine-test")
    assert hook["entry"].split() == ["rulesengine", "test"] and hook["language"] == "python"
    assert hook["pass_filenames"] is False and hook["args"] == ["."]  # every test file, whatever changed
    assert run("test", "--help").returncode == 0
    tooling = (ROOT / "docs" / "tooling.md").read_text(encoding="utf-8")
    assert "run: rulesengine test --format github rules/" in tooling
    assert "- id: rulesengine-test" in tooling


def test_unknown_checks_are_reported_whatever_their_name(tmp_path):
    path = write(
        tmp_path,
        "tests:\n  - name: a\n    expect:\n      colour: red\n      read: 1\n      v[ariables: 2\n      current: P1\n",
    )
    tests, problems = load(path)
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [
        ("RE501", 4, 7),
        ("RE501", 5, 7),
        ("RE501", 6, 7),
    ]
    assert tests is not None and tests.scenarios == ()
