"""Find scenario test files, and print their results as text, JSON, GitHub annotations or
JUnit XML; and the traceability table of a rules document's clauses and the tests citing them."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree

import attrs

from .diagnostics import ERROR, Diagnostic, printable, render_github, render_text
from .fileformat import TEST_FILE_SUFFIXES, is_test_file
from .given_files import CannotLookUp, Gathered, look_up, real_path, to_read
from .scenario_file import TestFile, load, readable_clauses
from .scenario_run import FileResult, TestResult, run_scenario


@attrs.frozen(eq=False)
class UnreadFolder(FileResult):
    """A folder that cannot be read: no test file, though its refusal fails the run as a test
    file's error does (the test files in it are not run)."""


@attrs.frozen
class Collected:
    """What the paths given name: the test files to run, those refused unread and the folders
    that cannot be read (each with its one problem), and a usage error for each path that names
    nothing (the other paths are still run)."""

    files: list[Path]
    refused: list[FileResult]
    unusable: list[str]


def collect(paths: Sequence[str]) -> Collected:
    """Test files: given ones, every NAME.tests.yaml in folders, and those of given rule files
    (NAME.tests.yaml beside NAME.yaml, or in a `tests` folder beside it); and a diagnostic for
    each refused by the rule `validate` follows (a link out of its folder is not read)."""
    gathered = Gathered()
    unusable: list[str] = []
    for raw in paths:
        try:
            _take(raw, gathered)
        except NoTests as error:
            unusable.append(str(error))
    if not gathered.files and not gathered.refused and not unusable:
        unusable.append("no scenario test files found (looked for NAME.tests.yaml)")
    refused = [_refused(refusal) for refusal in gathered.refused]
    return Collected(gathered.files, refused, unusable)


class NoTests(Exception):
    """A path names nothing that holds scenario tests (a usage error)."""


def _take(raw: str, gathered: Gathered) -> None:
    """Take the test files `raw` names, or raise NoTests."""
    if not raw:  # Path("") would be the working folder: a script's empty variable tests nothing
        raise NoTests("an empty path names no file or folder")
    path = Path(raw)
    try:
        is_dir, _there = look_up(raw)
    except CannotLookUp as error:  # as a missing path
        raise NoTests(str(error)) from None
    if is_dir:
        # hidden folders (.git, .venv, a pre-commit cache) hold no tests of this repository
        gathered.take_folder(path, _is_test_file_name, hidden=False)
    elif path.is_file() and is_test_file(path):
        gathered.take(path, path.parent)
    elif path.is_file():
        stem = path.name.rsplit(".", 1)[0]
        beside = [
            (candidate, folder)
            for folder in (path.parent, path.parent / "tests")
            for suffix in TEST_FILE_SUFFIXES
            # os.path.isfile: a test file's longer name may be too long for the system
            if os.path.isfile(candidate := folder / f"{stem}{suffix}")
        ]
        if not beside:
            looked = f"looked for {printable(stem)}.tests.yaml beside it and in tests/"
            raise NoTests(f"no scenario tests for {printable(raw)} ({looked})")
        for candidate, folder in beside:
            gathered.take(candidate, folder)
    elif os.path.lexists(path):  # a pipe, a device, a link that leads nowhere or in a loop
        raise NoTests(f"not a regular file or a folder: {printable(raw)}")
    else:
        raise NoTests(f"no such file or folder: {printable(raw)}")


def _is_test_file_name(path: Path) -> bool:
    return is_test_file(path) and to_read(path)


def run_each_once(files: Sequence[Path]) -> list[FileResult]:
    """The results of the test files, each run once (see `loaded_once`)."""
    return [_run(path, tests, problems) for path, tests, problems in loaded_once(files)]


def loaded_once(files: Sequence[Path]) -> list[tuple[str, TestFile | None, list[Diagnostic]]]:
    """The test files read, without a file met again under another name (a symbolic link in
    its folder) that tests the same rule file against the same rules document: its tests and
    problems are the same, reported once, under the name met first. A link whose own name makes
    it test another rule file (NAME.yaml beside it, when it names none) is a run of its own."""
    seen: set[tuple[object, ...]] = set()
    kept = []
    for file in files:
        tests, problems = load(file)
        key = _same_run(file, tests, problems)
        if key not in seen:
            seen.add(key)
            kept.append((str(file), tests, problems))
    return kept


def _same_run(file: Path, tests: TestFile | None, problems: Sequence[Diagnostic]) -> tuple[object, ...]:
    if tests is None:  # not read: the same file with the same problems at the same places
        return (real_path(str(file)), *((d.code, d.span.line, d.span.column, d.message) for d in problems))
    ruleset = real_path(tests.ruleset) if tests.ruleset is not None else None
    rules = real_path(str(tests.rules)) if tests.rules is not None else None
    return (real_path(str(file)), ruleset, rules)


def _run(path: str, tests: TestFile | None, problems: Sequence[Diagnostic]) -> FileResult:
    scenarios = tests.scenarios if tests is not None else ()
    return FileResult(path, tests, tuple(problems), tuple(run_scenario(s, path) for s in scenarios))


def _refused(refusal: Diagnostic) -> FileResult:
    """A test file that is not read, or a folder that cannot be: its refusal is its one problem."""
    # only a folder's refusal names a folder: a file refused is a link out of its folder or in a loop
    kind = UnreadFolder if refusal.code == "RE009" and os.path.isdir(refusal.span.file) else FileResult
    return kind(refusal.span.file, None, (refusal,), ())


def empty_report(output_format: str, trace: bool) -> str | None:
    """What a run that tests nothing prints in `output_format` (a refused command line): JSON
    and JUnit XML are still one document, which a CI step reads."""
    if output_format == "json":
        return trace_json([], []) if trace else as_json([])
    if output_format == "junit":  # with --trace too: a CI step reads the file it asked for
        return junit([])
    return None


def fails(diagnostic: Diagnostic, strict: bool) -> bool:
    """Whether a test file's diagnostic fails the run: an error, or (`--strict`) any."""
    return diagnostic.severity == ERROR or strict


def failed(results: Sequence[FileResult], strict: bool = False) -> bool:
    problems = any(fails(d, strict) for r in results for d in r.problems)
    return problems or any(not t.passed for r in results for t in r.results)


def all_diagnostics(results: Sequence[FileResult]) -> list[Diagnostic]:
    return [d for r in results for d in (*r.problems, *(f for t in r.results for f in t.failures))]


def text(
    results: Sequence[FileResult],
    verbose: bool = False,
    colour: bool = False,
    strict: bool = False,
    complete: bool = True,
) -> str:
    """The problems and failures, and a summary that says why the run fails when it does
    (`strict`: a warning of a test file fails it) and whether a path given was not run."""
    lines = []
    for result in results:
        if verbose:
            for test in result.results:
                place = f"{printable(result.path)}:{test.span.line}"
                lines.append(f"{'PASS' if test.passed else 'FAIL'} {place}: {printable(test.name)}")
    diagnostics = all_diagnostics(results)
    if diagnostics:
        lines.append(render_text(diagnostics, {}, colour=colour))
    lines.append(_summary(results, strict, complete))
    return "\n".join(lines)


def _summary(results: Sequence[FileResult], strict: bool, complete: bool) -> str:
    files = [r for r in results if not isinstance(r, UnreadFolder)]
    folders = len(results) - len(files)
    tests = [t for r in files for t in r.results]
    passed = sum(t.passed for t in tests)
    summary = f"{len(tests)} test(s) in {len(files)} file(s): {passed} passed, {len(tests) - passed} failed"
    failing = [d for r in files for d in r.problems if fails(d, strict)]
    if failing:
        summary += f"; {len(failing)} problem(s) in the test files"
        if any(d.severity != ERROR for d in failing):
            summary += " (--strict: warnings fail the run)"
    if folders:
        summary += f"; {folders} folder(s) that cannot be read"
    if not complete:
        summary += "; incomplete: a path given was not run"
    return summary


def as_json(results: Sequence[FileResult]) -> str:
    tests = [
        {
            "file": t.file,
            "line": t.span.line,
            "column": t.span.column,
            "name": t.name,
            "clauses": list(t.clauses),
            "outcome": "passed" if t.passed else "failed",
            "failures": [f.as_dict() for f in t.failures],
        }
        for r in results
        for t in r.results
    ]
    return json.dumps(
        {
            "tests": tests,
            "problems": [d.as_dict() for r in results for d in r.problems],
            "passed": sum(t["outcome"] == "passed" for t in tests),
            "failed": sum(t["outcome"] == "failed" for t in tests),
        },
        indent=2,
        ensure_ascii=False,
    )


def github(results: Sequence[FileResult]) -> str:
    return render_github([_escaped(d) for d in all_diagnostics(results)])


def _escaped(diagnostic: Diagnostic) -> Diagnostic:
    """A diagnostic whose texts (a test's name, written by anyone) hold no control characters,
    which would break a line-based format, or characters XML 1.0 does not allow."""
    hint = printable(diagnostic.hint) if diagnostic.hint is not None else None
    return attrs.evolve(diagnostic, message=printable(diagnostic.message), hint=hint)


def junit(results: Sequence[FileResult], strict: bool = False) -> str:
    """JUnit XML: a test suite per file; a file's own problems that fail the run (errors; with
    `strict` warnings too) are one errored test case, the others its suite's output."""
    suites = ElementTree.Element("testsuites")
    for result in results:
        problems = [d for d in result.problems if fails(d, strict)]
        others = [d for d in result.problems if not fails(d, strict)]
        path = printable(result.path)  # every text escaped: the XML stays well-formed
        part = "the folder" if isinstance(result, UnreadFolder) else "the test file"
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=path,
            tests=str(len(result.results) + (1 if problems else 0)),
            failures=str(sum(not t.passed for t in result.results)),
            errors=str(1 if problems else 0),
        )
        if problems:
            case = ElementTree.SubElement(suite, "testcase", classname=path, name=part, file=path, line="1")
            said = "the folder cannot be read" if part == "the folder" else f"{len(problems)} problem(s) in {part}"
            error = ElementTree.SubElement(case, "error", message=said)
            error.text = render_text(problems, {})
        for test in result.results:
            case = ElementTree.SubElement(
                suite, "testcase", classname=path, name=printable(test.name), file=path, line=str(test.span.line)
            )
            if test.failures:
                failure = ElementTree.SubElement(case, "failure", message=printable(test.failures[0].message))
                failure.text = render_text(list(test.failures), {})
        if others:  # shown as every other format shows them, counted as the exit code counts them
            ElementTree.SubElement(suite, "system-out").text = render_text(others, {})
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suites, encoding="unicode")


_RECORDED_CHOICE = re.compile(r"C[0-9]+")


@attrs.frozen
class Clause:
    """One clause of a rules document and what shows it: the tests citing it, or why none can."""

    clause: str
    tests: tuple[str, ...]  # "FILE:LINE NAME" of each test citing it
    not_testable: str | None  # the reason given, when declared not testable

    @property
    def uncovered(self) -> bool:
        """A numbered rule (`1`, `2.3`) neither shown nor declared not testable; the recorded
        choices (C1, C2, ...) need no test of their own."""
        return not self.tests and self.not_testable is None and not _RECORDED_CHOICE.fullmatch(self.clause)


@attrs.frozen
class Coverage:
    """The clauses of one rules document (or, for test files naming none, the clauses they
    cite) and the tests citing each."""

    title: str  # the document's file name, else the test file's path
    document: str | None  # the rules document's path, None when the tests name none
    clauses: tuple[Clause, ...]

    @property
    def missing(self) -> list[str]:
        return [f"{self.title} {c.clause}" for c in self.clauses if c.uncovered]


@attrs.frozen
class Trace:
    """What `test --trace` prints: the table (or its JSON), the problems of the test files (on
    standard error, as validate shows them), and whether the trace fails."""

    shown: str
    problems: list[Diagnostic]
    failed: bool


def trace(collected: Collected, output_format: str, strict: bool) -> Trace:
    """The trace of the test files collected: it fails when a numbered clause is neither covered
    nor declared not testable, or when a test file's problems fail it (`strict`: a warning too)."""
    read = loaded_once(collected.files)
    found, broken = coverages([*collected.refused, *((path, tests) for path, tests, _problems in read)])
    missing = [clause for coverage in found for clause in coverage.missing]
    loaded = [(r.path, None, list(r.problems)) for r in collected.refused] + read
    failing = failing_files(loaded, strict)
    if output_format == "json":
        shown = trace_json(found, failing)
    else:
        shown = trace_markdown(found, broken) + (f"\nnot covered: {', '.join(missing)}" if missing else "")
    problems = [d for _path, _tests, problems in loaded for d in problems]
    return Trace(shown, problems, bool(missing or failing))


def coverages(
    results: Sequence[FileResult | tuple[str, TestFile | None]],
) -> tuple[list[Coverage], list[FileResult]]:
    """The coverage of each rules document cited by the test files, and the test files that have
    problems (no coverage of theirs is known). Test files of one rules document (a ruleset and
    its variants) make one coverage; without a document only cited clauses appear."""
    groups: dict[str, list[FileResult]] = {}
    broken: list[FileResult] = []
    for item in results:
        result = item if isinstance(item, FileResult) else _unrun(*item)
        if result.tests is None:
            broken.append(result)
            continue
        rules = result.tests.rules
        # resolved without following a loop of symbolic links for ever (Path.resolve raises on one)
        groups.setdefault(real_path(str(rules)) if rules is not None else result.path, []).append(result)
    return [_coverage(group) for group in groups.values()], broken


def failing_files(loaded: Sequence[tuple[str, TestFile | None, Sequence[Diagnostic]]], strict: bool) -> list[str]:
    """The test files whose problems fail the trace: those not read, and those with an error
    (`strict`: with any problem)."""
    return [path for path, tests, found in loaded if tests is None or any(fails(d, strict) for d in found)]


def trace_markdown(found: Sequence[Coverage], broken: Sequence[FileResult]) -> str:
    """One Markdown table clause -> tests per rules document."""
    out = [f"{printable(result.path)}: {_why_no_table(result)}; no table\n" for result in broken]
    for coverage in found:
        lines = [f"Clauses of {coverage.title} and the scenario tests citing them", "", "| clause | tests |"]
        lines.append("| --- | --- |")
        if coverage.document is None:
            lines[0] += " (the tests name no rules document: only the clauses cited are listed)"
        for clause in coverage.clauses:
            if clause.tests:
                shown = "; ".join(clause.tests)
            elif clause.not_testable is not None:
                shown = f"not testable: {clause.not_testable}"
            else:
                shown = "**not covered**" if clause.uncovered else "-"
            lines.append(f"| {clause.clause} | {shown.replace('|', '/')} |")
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def _why_no_table(result: FileResult) -> str:
    if isinstance(result, UnreadFolder):
        return "the folder cannot be read, so its test files are not traced"
    return "the test file has problems"


def trace_json(found: Sequence[Coverage], with_problems: Sequence[str]) -> str:
    """The coverage as one JSON object: `documents` (each with its clauses), `missing`, and the
    test files whose problems fail the trace (`failing_files`)."""
    documents = [
        {
            "title": c.title,
            "document": c.document,
            "clauses": [
                {"clause": k.clause, "tests": list(k.tests), "not_testable": k.not_testable, "covered": not k.uncovered}
                for k in c.clauses
            ],
        }
        for c in found
    ]
    missing = [m for c in found for m in c.missing]
    return json.dumps(
        {"documents": documents, "missing": missing, "files_with_problems": list(with_problems)},
        indent=2,
        ensure_ascii=False,
    )


def _unrun(path: str, tests: TestFile | None) -> FileResult:
    """A test file's tests as results without running them: the table needs only their citations."""
    scenarios = tests.scenarios if tests is not None else ()
    results = tuple(TestResult(path, s.name, s.span, tuple(c for c, _ in s.clauses), ()) for s in scenarios)
    return FileResult(path, tests, (), results)


def _coverage(group: list[FileResult]) -> Coverage:
    citing: dict[str, list[str]] = {}
    not_testable: dict[str, str] = {}
    for result in group:
        assert result.tests is not None
        not_testable.update(result.tests.not_testable)
        for test in result.results:
            for clause in test.clauses:
                place = f"{printable(Path(result.path).name)}:{test.span.line}"
                citing.setdefault(clause, []).append(f"{place} {printable(test.name)}")
    rules = group[0].tests.rules if group[0].tests is not None else None
    listed = readable_clauses(rules) if rules is not None and rules.is_file() else None
    known = listed if isinstance(listed, list) and listed else sorted(citing)
    clauses = tuple(Clause(k, tuple(citing.get(k, ())), not_testable.get(k)) for k in known)
    title = rules.name if rules is not None else group[0].path
    return Coverage(title, str(rules) if rules is not None else None, clauses)
