"""Run the tests of a scenario test file and collect what failed, with its place."""

from __future__ import annotations

from pathlib import Path

import attrs

from .diagnostics import Diagnostic, RulesEngineError, Span
from .engine import State
from .position import set_position
from .scenario_checks import legal_names, matching_actions
from .scenario_file import Scenario, TestFile, load


@attrs.frozen
class TestResult:
    file: str
    name: str
    span: Span
    clauses: tuple[str, ...]
    failures: tuple[Diagnostic, ...]

    @property
    def passed(self) -> bool:
        return not self.failures


@attrs.frozen
class FileResult:
    path: str
    tests: TestFile | None
    problems: tuple[Diagnostic, ...]  # the file's own diagnostics (the tests did not all run)
    results: tuple[TestResult, ...]


def run_file(path: str | Path) -> FileResult:
    tests, problems = load(path)
    if tests is None:
        return FileResult(str(path), None, tuple(problems), ())
    results = tuple(run_scenario(scenario, str(path)) for scenario in tests.scenarios)
    return FileResult(str(path), tests, tuple(problems), results)


def start(scenario: Scenario) -> State:
    """The state a scenario starts from: its position, or where its seed's match starts."""
    state = scenario.game.new_initial_state(seed=scenario.seed, record_log=True)
    if scenario.position is not None:
        set_position(state, scenario.position)
    return state


def run_scenario(scenario: Scenario, file: str) -> TestResult:
    failures: list[Diagnostic] = []
    clauses = tuple(clause for clause, _ in scenario.clauses)

    def result() -> TestResult:
        return TestResult(file, scenario.name, scenario.span, clauses, tuple(failures))

    try:
        state = start(scenario)
    except (RulesEngineError, ValueError) as error:
        failures.append(
            Diagnostic("RE532", f"test '{scenario.name}': the position cannot be set up: {error}", scenario.span)
        )
        return result()
    for step in scenario.steps:
        context = {"round": state.round_number}
        for name, span in step.play:
            if state.is_terminal():
                failures.append(
                    Diagnostic("RE531", f"test '{scenario.name}': cannot play '{name}': the match is over", span)
                )
                return result()
            found = matching_actions(state, name)
            if len(found) != 1:
                failures.append(_unplayable(scenario, state, name, span, found))
                return result()
            action = found[0][1]
            try:
                for part in action:
                    state.apply_action(part)
            except RulesEngineError as error:
                failures.append(
                    Diagnostic("RE532", f"test '{scenario.name}': playing '{name}' stopped the match: {error}", span)
                )
                return result()
        for check in step.checks:
            try:
                outcome = check.test(state, context)
            except RulesEngineError as error:
                outcome = (check.what, f"an error: {error}")
            if outcome is not None:
                expected, actual = outcome
                failures.append(
                    Diagnostic(
                        "RE530",
                        f"test '{scenario.name}': expected {expected}, got {actual}",
                        check.span,
                        hint=f"checking {check.what}",
                    )
                )
    return result()


def _unplayable(scenario: Scenario, state: State, name: str, span: Span, found: list) -> Diagnostic:
    """An action of `play` that names no legal action (RE531), or several (RE533)."""
    mover = f"P{state.current_player() + 1}"
    if found:
        # playing any one of them would make the test pass or fail by the order of the moves
        matches = "; ".join(described for described, _ids in found)
        return Diagnostic(
            "RE533",
            f"test '{scenario.name}': '{name}' names {len(found)} legal actions of {mover} here",
            span,
            hint=f"the actions of that name: {matches}; give the moves labels that tell them apart",
        )
    legal = ", ".join(sorted(legal_names(state))) or "none"
    return Diagnostic(
        "RE531",
        f"test '{scenario.name}': '{name}' is not a legal action of {mover} here",
        span,
        hint=f"legal actions: {legal}",
    )
