"""Read a scenario test file (NAME.tests.yaml): its tests, each with a game, a position and
checks, resolved against the compiled game so that every mistake is a diagnostic with its
place before anything runs.

The format is described in docs/tooling.md ("Scenario tests"). A test file names the rule
file it tests (`ruleset:`, by default NAME.yaml beside it), optionally the rules document
whose clauses the tests cite (`rules:`) and the clauses no position can show
(`not_testable:`), and a list of `tests`.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from pathlib import Path

import attrs

from . import api, ir
from .compose import find_reference
from .diagnostics import WARNING, Diagnostic, RuleFileError, RulesEngineError, Span, did_you_mean, shortened
from .engine import Game
from .fileformat import TEST_FILE_SUFFIXES
from .limits import MAX_TEST_SETTINGS
from .position import Position
from .resources import tidy
from .scenario_checks import Check, ExpectReader
from .scenario_names import PositionReader
from .scenario_shapes import Shapes, Skip, as_written, declared_text
from .source import Map, Node, Scalar, Seq, load_file, load_yaml, read_bytes

FILE_KEYS = {
    "ruleset": "the rule file under test: a path relative to this file, or a shipped name",
    "rules": "the rules document (Markdown) whose numbered clauses the tests cite",
    "not_testable": "clauses no position can show, each with the reason",
    "players": "the number of players of every test that does not say",
    "options": "option values of every test (a test's own options are added)",
    "seed": "the seed of every test that does not say",
    "tests": "the list of tests",
}
TEST_KEYS = {
    "name": "what the test shows",
    "clause": "the clause (or list of clauses) of the rules document the test shows",
    "players": "the number of players",
    "options": "option values",
    "seed": "the seed of shuffles (default 0)",
    "position": "the position to start from (default: where the seed's match starts)",
    "play": "actions played in order, named as the log names them",
    "expect": "what must hold after `play`",
    "steps": "further steps, each with `play` and/or `expect`",
    "description": "a longer explanation",
}
STEP_KEYS = {"play": TEST_KEYS["play"], "expect": TEST_KEYS["expect"]}


@attrs.frozen
class Step:
    play: tuple[tuple[str, Span], ...]
    checks: tuple[Check, ...]


@attrs.frozen(eq=False)
class Scenario:
    name: str
    span: Span
    clauses: tuple[tuple[str, Span], ...]
    game: Game
    seed: int
    position: Position | None
    steps: tuple[Step, ...]


@attrs.frozen(eq=False)
class TestFile:
    path: str
    ruleset: str | None
    rules: Path | None
    not_testable: dict[str, str]
    scenarios: tuple[Scenario, ...]


# a clause's number (`5`, `5.2`, `5.2.1`) or a recorded choice's (`C3`)
_CLAUSE_NUMBER = re.compile(r"\d+(?:\.\d+)*|C\d+")


def clauses_in(text: str) -> list[str]:
    """The clause numbers of a rules document's text, in order: the first word of the bold text
    that starts a list item, when it is a number (`- **1.2** ...`, `- **C3 Three cards.** ...`;
    not `- **Note** ...`)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("- **"):
            words = line[4:].split("**", 1)[0].split()
            if words and _CLAUSE_NUMBER.fullmatch(words[0]):
                found.append(words[0])
    return found


def readable_clauses(document: Path) -> list[str] | str:
    """The clause numbers of a rules document, or why they cannot be read: a folder, a pipe or
    a file larger than a rule file may be is refused before it is read; text that is not UTF-8."""
    try:
        return clauses_in(read_bytes(str(document)).decode("utf-8"))
    except RuleFileError as error:
        return error.diagnostics[0].message
    except UnicodeDecodeError:
        return "cannot be read as UTF-8 text"


def _is_file(path: Path) -> bool | str:
    """Whether `path` is a regular file, or why the system cannot tell (a name longer than the
    file system allows, a folder that cannot be searched): a reason, never an OSError."""
    try:
        return path.is_file()
    except OSError as error:
        return error.strerror or type(error).__name__


def _missing(path: Path) -> str:
    """Why a file named to be read cannot be: it is not there, it is a folder, a device or a
    pipe, or a symbolic link that leads back to itself (which is there, but names no file)."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "cannot be read (a loop of symbolic links)"
        return "is not found"
    except ValueError:  # a name holding a NUL
        return "is not found"
    return "is not a regular file"


def ruleset_named(name: str, here: Path) -> Path | None:
    """The rule file a test file in `here` names: relative to it (`../game.yaml`) or a shipped
    name, never in the working folder; in its tidy form (no `..`), as a folder walk names it."""
    found = find_reference(name, here)
    return None if found is None else tidy(found)


def default_ruleset(path: str | Path) -> Path:
    """NAME.yaml beside NAME.tests.yaml."""
    text = str(path)
    for suffix in TEST_FILE_SUFFIXES:
        if text.endswith(suffix):
            return Path(text[: -len(suffix)] + ".yaml")
    return Path(text)


def load(
    path: str | os.PathLike, text: str | None = None, optimize: bool = True
) -> tuple[TestFile | None, list[Diagnostic]]:
    """The tests of a file (or of `text`, its unsaved contents), resolved, and every problem
    found; None if it cannot be read. `optimize=False` resolves them against reference-mode
    games, which are built many times faster: enough for the diagnostics, not for running."""
    path = str(path)
    try:
        root = load_file(path)[0] if text is None else load_yaml(text, path)
    except RuleFileError as error:
        return None, error.diagnostics
    reader = _Reader(path, optimize)
    result = reader.file(root)
    unique = list(dict.fromkeys(reader.problems))  # a default shared by every test is reported once
    return result, sorted(unique, key=lambda d: (d.span.file, d.span.line, d.span.column))


# ---- reading ------------------------------------------------------------------------------


class _Reader(Shapes):
    def __init__(self, path: str, optimize: bool = True):
        super().__init__(path)
        self.optimize = optimize  # the games the tests are resolved against: optimised unless only checked
        self.settings: set[tuple] = set()  # (players, options) of the games made so far

    # -- the file --

    def file(self, root: Node) -> TestFile | None:
        try:
            top = self.mapping(root, "a scenario test file", FILE_KEYS)
        except Skip:
            return None
        here = Path(self.path).parent
        ruleset_node = top.get("ruleset")
        if ruleset_node is None:
            reference = default_ruleset(self.path)
            found = reference if _is_file(reference) is True else None
            where = Span.point(self.path, 1, 1)
            name = reference.name
            # the file looked for, as the test file was named (`tests/climb.yaml`)
            missing = f"{_missing(reference)} (looked for {shortened(str(reference), 80)}, beside this file)"
        else:
            try:
                name = self.words(ruleset_node, "'ruleset'")  # a file's name: `5` is no text
            except Skip:
                return None
            if not name.strip():  # not the folder of this file, nor a file named by spaces
                self.error("RE500", "'ruleset' must name a file, not an empty text", ruleset_node.span)
                return None
            found = ruleset_named(name, here)
            where = ruleset_node.span
            missing = _missing(here / name)
        if found is None:
            self.error(
                "RE502",
                f"the rule file '{shortened(name, 80)}' to test {missing}",
                where,
                "name it with 'ruleset:' (a path relative to this file, or a shipped name)",
            )
            return None
        try:
            ruleset = api.load_ruleset(str(found))
        except RuleFileError as error:
            self.error(
                "RE502",
                f"the rule file '{name}' is not valid ({len(error.diagnostics)} problem(s))",
                where,
                f"see: rulesengine validate {found}",
            )
            return None
        rules = self.rules_path(top.get("rules"), here)
        not_testable: dict[str, str] = {}
        if "not_testable" in top:
            try:
                entries = self.mapping(top.entries["not_testable"], "'not_testable'", None)
                for clause, reason in entries.items():
                    not_testable[clause] = self.text(reason, f"the reason why clause {clause} is not testable")
            except Skip:
                pass
        defaults: dict[str, Node] = {k: v for k, v in top.items() if k in ("players", "options", "seed")}
        scenarios = []
        tests = top.get("tests")
        if tests is None:
            self.error("RE503", "the file has no 'tests'", top.span, "add 'tests:' with a list of tests")
        else:
            try:
                items = self.items(tests, "'tests'", one=False)  # `tests: hello` is no test
            except Skip:
                items = ()
            if not items and isinstance(tests, Seq):
                self.error("RE503", "'tests' lists no test", tests.span, "add a test: its 'name' and what it checks")
            names: dict[str, Span] = {}
            for item in items:
                # A test's name is taken before the rest is read: a test with problems of its
                # own still takes it, so that a second test of that name is refused too.
                test_name = declared_text(item, "name")
                first = names.setdefault(test_name, item.span) if test_name is not None else item.span
                if first is not item.span:
                    self.error(
                        "RE503",
                        f"two tests are named '{test_name}' (the first at line {first.line})",
                        item.span,
                        "give every test its own name",
                    )
                try:
                    scenario = self.scenario(item, ruleset, defaults)
                except Skip:
                    continue
                if first is item.span:  # a test with a problem does not run
                    scenarios.append(scenario)
        miscited = self.citations(rules, top, not_testable, scenarios)
        scenarios = [s for s in scenarios if s not in miscited]  # a test with a problem does not run
        return TestFile(self.path, str(found), rules, not_testable, tuple(scenarios))

    def rules_path(self, node: Node | None, here: Path) -> Path | None:
        """The rules document named by `rules:`, relative to this file."""
        if node is None:
            return None
        try:
            name = self.words(node, "'rules'")  # a file's name: `5` is no text
        except Skip:
            return None
        if not name.strip():
            self.error("RE500", "'rules' must name a file, not an empty text", node.span)
            return None
        document = here / name
        looked_up = _is_file(document)
        if isinstance(looked_up, str):  # the system cannot even look for it (a name too long ...)
            self.problems.append(
                Diagnostic(
                    "RE512",
                    f"the rules document '{shortened(document.name, 60)}' cannot be looked up ({looked_up}),"
                    " so the clauses cited are not checked",
                    node.span,
                    severity=WARNING,
                )
            )
            return None
        return document

    def citations(
        self, rules: Path | None, top: Map, not_testable: dict[str, str], scenarios: list[Scenario]
    ) -> list[Scenario]:
        """Every cited clause, and every clause called not testable, is a clause of the rules
        document; the tests citing a clause it does not have."""
        if rules is None:
            if "not_testable" in top and "rules" not in top:  # (a `rules:` refused is reported already)
                self.problems.append(
                    Diagnostic(
                        "RE512",
                        "'not_testable' lists clauses, but the file names no rules document ('rules:'),"
                        " so they are not checked",
                        top.key_spans["not_testable"],
                        severity=WARNING,
                    )
                )
            return []
        if not rules.is_file():
            written = top.entries["rules"]
            name = written.value if isinstance(written, Scalar) and isinstance(written.value, str) else rules.name
            self.problems.append(
                Diagnostic(
                    "RE512",
                    f"the rules document '{shortened(name, 60)}' {_missing(rules)},"
                    " so the clauses cited are not checked",
                    top.entries["rules"].span,
                    severity=WARNING,
                )
            )
            return []
        known = readable_clauses(rules)
        if isinstance(known, str):
            self.problems.append(
                Diagnostic(
                    "RE512",
                    f"the rules document '{rules.name}': {known}, so the clauses cited are not checked",
                    top.entries["rules"].span,
                    severity=WARNING,
                )
            )
            return []
        listed = top.entries["not_testable"] if "not_testable" in top else None
        if isinstance(listed, Map):
            self.unknown_clauses([(c, listed.key_spans[c]) for c in not_testable], known, rules)
        return [s for s in scenarios if self.unknown_clauses(s.clauses, known, rules)]

    def unknown_clauses(self, cited: Iterable[tuple[str, Span]], known: list[str], rules: Path) -> bool:
        """RE511 for each clause cited that the rules document does not have; whether there was one."""
        found = False
        for clause, span in cited:
            if clause not in known:
                self.error(
                    "RE511",
                    f"the rules document has no clause '{clause}'",
                    span,
                    did_you_mean(clause, known) or f"see {rules.name}",
                )
                found = True
        return found

    def scenario(self, node: Node, ruleset: ir.Ruleset, defaults: dict[str, Node]) -> Scenario:
        problems_before = len(self.problems)
        test = self.mapping(node, "a test", TEST_KEYS)
        if "name" not in test:
            raise self.fail("RE503", "a test needs a 'name'", test.span)
        name = self.text(test.entries["name"], "a test's 'name'")
        clauses: list[tuple[str, Span]] = []
        if "clause" in test:
            for item in self.items(test.entries["clause"], "'clause'"):
                clause = self.text(item, "a clause")
                if any(clause == cited for cited, _ in clauses):  # another was meant, most likely
                    self.error("RE511", f"the test cites clause '{clause}' twice", item.span, "cite each clause once")
                    continue
                clauses.append((clause, item.span))
        game = self.game(test, ruleset, defaults)
        seed_node = test.get("seed") or defaults.get("seed")
        seed = self.integer(seed_node, "'seed'") if seed_node is not None else 0
        position = None
        if "position" in test:
            try:
                position = PositionReader(self, game).read(test.entries["position"], seed)
            except Skip:
                pass  # the other parts are still read, for their diagnostics
        steps = self.steps(test, game, name)
        if len(self.problems) > problems_before:
            raise Skip()  # a test with a problem does not run: its result would mislead
        return Scenario(name, test.span, tuple(clauses), game, seed, position, tuple(steps))

    def game(self, test: Map, ruleset: ir.Ruleset, defaults: dict[str, Node]) -> Game:
        """The game of a test: its players and options (or the file's), each refused at its own place."""
        broken = False
        players_node = test.get("players") or defaults.get("players")
        players = None
        if players_node is not None:
            try:
                players = self.players(players_node, ruleset)
            except Skip:
                broken = True
        options: dict[str, object] = {}
        for source in (defaults.get("options"), test.get("options")):
            if source is None:
                continue
            try:
                entries = self.mapping(source, "'options'", None)
            except Skip:
                broken = True
                continue
            for key, value in entries.items():
                try:
                    options[key] = self.option(ruleset, key, value, entries.key_spans[key])
                except Skip:
                    broken = True
        if broken:
            raise Skip()
        count = ruleset.default_players if players is None else players
        setting = (count, tuple(sorted((k, repr(v)) for k, v in options.items())))
        if setting not in self.settings and len(self.settings) >= MAX_TEST_SETTINGS:
            message = (
                f"the tests of this file play more than {MAX_TEST_SETTINGS} settings (players and options),"
                " each compiled on its own"
            )
            raise self.fail("RE504", message, test.span, "split the tests among several files")
        self.settings.add(setting)
        try:
            return api.make_game(ruleset, players=players, options=options, optimize=self.optimize)
        except RulesEngineError as error:  # the options together: each was accepted alone
            raise self.fail("RE504", str(error), test.span) from None

    def players(self, node: Node, ruleset: ir.Ruleset) -> int:
        try:
            return api.player_count(ruleset, self.integer(node, "'players'"))
        except RulesEngineError as error:
            raise self.fail("RE504", str(error), node.span) from None

    def option(self, ruleset: ir.Ruleset, key: str, value: Node, key_span: Span) -> object:
        """An option's value, checked alone; an unknown option is refused at its name."""
        option = next((o for o in ruleset.options if o.name == key), None)
        if option is None:
            names = [o.name for o in ruleset.options]
            hint = did_you_mean(key, names) or f"options: {', '.join(names) or 'none'}"
            raise self.fail("RE504", f"unknown option '{key}' for {ruleset.name}", key_span, hint)
        # the value's type in the file's own words (`true`, not Python's True); a text for a
        # whole number or true/false is read as the command line reads one ('3', 'yes')
        expected = {ir.INT: "a whole number", ir.BOOL: "true or false", ir.STR: "a text"}[option.type]
        if not isinstance(value, Scalar) or value.value is None:
            raise self.fail("RE500", f"option '{key}' takes {expected}, not {as_written(value)}", value.span)
        if not isinstance(value.value, str) and type(value.value) is not ir.OPTION_VALUE_TYPES[option.type]:
            quote = "quote it" if option.type == ir.STR else None
            raise self.fail("RE504", f"option '{key}' takes {expected}, not {as_written(value)}", value.span, quote)
        try:
            api.resolve_options(ruleset, {key: value.value})
        except RulesEngineError as error:
            raise self.fail("RE504", str(error), value.span) from None
        return value.value

    def steps(self, test: Map, game: Game, name: str) -> list[Step]:
        """The test's steps: its own `play`/`expect`, then those of `steps`. A test whose steps
        play and check nothing is RE503, as is one empty step among others."""
        written: list[tuple[dict[str, Node] | None, Span]] = []  # None: a step of the wrong shape
        first = {k: v for k, v in test.items() if k in STEP_KEYS}
        if first:
            written.append((first, test.span))
        if "steps" in test:
            try:
                for item in self.items(test.entries["steps"], "'steps'", one=False):
                    written.append((self.step_entries(item), item.span))
            except Skip:
                written.append((None, test.span))
        steps, broken, empty = [], False, []
        for entries, span in written:
            step = self.step(entries, game) if entries is not None else None
            if step is None:  # reported already; "checks nothing" would be false
                broken = True
            elif step.play or step.checks:
                steps.append(step)
            else:
                empty.append(span)
        if not steps and not broken:
            self.error("RE503", f"test '{name}' checks nothing", test.span, "add checks under 'expect:' (or 'steps:')")
        elif empty:
            for span in empty:
                self.error("RE503", f"a step of test '{name}' plays and checks nothing", span, "add 'play' or 'expect'")
        return steps

    def step_entries(self, node: Node) -> dict[str, Node] | None:
        try:
            return dict(self.mapping(node, "a step", STEP_KEYS).items())
        except Skip:
            return None

    def step(self, entries: dict[str, Node], game: Game) -> Step | None:
        """A step, or None when a part of it is broken (every broken part is reported)."""
        broken = False
        play = []
        if "play" in entries:
            try:
                items = self.items(entries["play"], "'play'")
            except Skip:
                items, broken = (), True
            for item in items:
                try:
                    play.append((self.words(item, "an action"), item.span))
                except Skip:
                    broken = True
        checks: list[Check] = []
        if "expect" in entries:
            before = len(self.problems)
            try:
                checks = ExpectReader(self, game).read(entries["expect"])
            except Skip:
                pass
            broken = broken or len(self.problems) > before
        return None if broken else Step(tuple(play), tuple(checks))
