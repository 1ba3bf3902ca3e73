"""Read a scenario test file (NAME.tests.yaml): its tests, each with a game, a position and
checks, resolved against the compiled game so that every mistake is a diagnostic with its
place before anything runs.

The format is described in docs/tooling.md ("Scenario tests"). A test file names the rule
file it tests (`ruleset:`, by default NAME.yaml beside it), optionally the rules document
whose clauses the tests cite (`rules:`) and the clauses no position can show
(`not_testable:`), and a list of `tests`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from . import api, ir
from .diagnostics import WARNING, Diagnostic, RuleFileError, RulesEngineError, Span, did_you_mean
from .engine import Game, State
from .position import Position
from .resources import resolve_ruleset
from .source import Map, Node, Scalar, Seq, load_file, load_yaml

SUFFIXES = (".tests.yaml", ".tests.yml")

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
POSITION_KEYS = {
    "zones": "cards of zones, bottom to top: `pile: [9♥, 10♠]`, `hand: {P1: [...]}`, `hand[P2]: [...]`",
    "rest": "the zone that holds every card not placed (default: each deck's starting zone)",
    "variables": "variable values: `letters: {P1: 2}`, `trump: spades`",
    "phase": "the phase being played",
    "current": "the player to move, e.g. P2",
    "direction": "1 (clockwise, the default) or -1",
    "round": "the round number (default 1)",
    "out": "the players who are out of the round",
    "turns": "decisions made in the round so far",
    "passes": "passes in a row so far",
}
EXPECT_KEYS = {
    "legal": "actions that must be legal",
    "not_legal": "actions that must not be legal",
    "only_legal": "the legal actions, all of them",
    "current": "the player to move",
    "phase": "the phase being played",
    "round": "the round number",
    "direction": "the direction of play",
    "out": "the players out of the round",
    "zones": "cards of zones (a list, bottom to top), their number, or {contains: [...], excludes: [...]}",
    "variables": "variable values",
    "log": "lines that the log must show since the test began",
    "not_log": "lines that the log must not show",
    "round_over": "whether the round being played when the step began has ended",
    "match_over": "whether the match is over",
    "returns": "the match's returns, one per player",
    "sees": "what a player's observation shows of zones: `{P2: {hand[P1]: 8}}` (a count for a hidden zone);"
    " `shown` stands for the cards revealed to the player by the last step",
}


@attrs.frozen
class Check:
    """One expectation: `test(state, context)` returns None when it holds, else (expected, actual)."""

    span: Span
    what: str
    test: Callable[[State, dict], tuple[str, str] | None]


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


def clauses_of(document: Path) -> list[str]:
    """The clause numbers of a rules document, in order: the first word of the bold text that starts a
    list item (`- **1.2** ...`, `- **C3 Three cards.** ...`)."""
    found = []
    for line in document.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text.startswith("- **"):
            words = text[4:].split("**", 1)[0].split()
            if words and words[0][0].isalnum():
                found.append(words[0])
    return found


def is_test_file(path: str | Path) -> bool:
    return str(path).endswith(SUFFIXES)


def default_ruleset(path: str | Path) -> Path:
    """NAME.yaml beside NAME.tests.yaml."""
    text = str(path)
    for suffix in SUFFIXES:
        if text.endswith(suffix):
            return Path(text[: -len(suffix)] + ".yaml")
    return Path(text)


def load(path: str | Path, text: str | None = None) -> tuple[TestFile | None, list[Diagnostic]]:
    """The tests of a file (or of `text`, its unsaved contents), resolved, and every problem
    found; None if it cannot be read."""
    path = str(path)
    try:
        root = load_file(path)[0] if text is None else load_yaml(text, path)
    except RuleFileError as error:
        return None, error.diagnostics
    reader = _Reader(path)
    result = reader.file(root)
    unique = list(dict.fromkeys(reader.problems))  # a default shared by every test is reported once
    return result, sorted(unique, key=lambda d: (d.span.file, d.span.line, d.span.column))


# ---- reading ------------------------------------------------------------------------------


class _Skip(Exception):
    """A part of the file is broken; its diagnostic is recorded and the rest goes on."""


def _is_int(node: Node) -> bool:
    return isinstance(node, Scalar) and isinstance(node.value, int) and not isinstance(node.value, bool)


class _Reader:
    def __init__(self, path: str):
        self.path = path
        self.problems: list[Diagnostic] = []

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, hint=hint))

    def fail(self, code: str, message: str, span: Span, hint: str | None = None) -> _Skip:
        self.error(code, message, span, hint)
        return _Skip()

    # -- shapes --

    def mapping(self, node: Node | None, what: str, keys: dict[str, str] | None) -> Map:
        if not isinstance(node, Map):
            raise self.fail("RE500", f"{what} must be a mapping", self.span(node))
        if keys is not None:
            for key, span in node.key_spans.items():
                if key not in keys:
                    hint = did_you_mean(key, keys) or f"known keys: {', '.join(keys)}"
                    self.error("RE501", f"unknown key '{key}' in {what}", span, hint)
        return node

    def items(self, node: Node, what: str) -> tuple[Node, ...]:
        if isinstance(node, Seq):
            return node.items
        if isinstance(node, Scalar) and node.value is not None:
            return (node,)  # one item may be written without brackets
        raise self.fail("RE500", f"{what} must be a list", self.span(node))

    def text(self, node: Node, what: str) -> str:
        if not isinstance(node, Scalar) or node.value is None or isinstance(node.value, bool):
            raise self.fail("RE500", f"{what} must be a text", self.span(node))
        return str(node.value)

    def integer(self, node: Node, what: str) -> int:
        if not _is_int(node):
            raise self.fail("RE500", f"{what} must be a whole number", self.span(node))
        assert isinstance(node, Scalar)
        return int(node.value)  # type: ignore[arg-type]

    def span(self, node: Node | None) -> Span:
        return node.span if node is not None else Span.point(self.path, 1, 1)

    # -- the file --

    def file(self, root: Node) -> TestFile | None:
        try:
            top = self.mapping(root, "a scenario test file", FILE_KEYS)
        except _Skip:
            return None
        here = Path(self.path).resolve().parent
        ruleset_node = top.get("ruleset")
        if ruleset_node is None:
            reference = default_ruleset(self.path)
            found = reference if reference.is_file() else None
            where = Span.point(self.path, 1, 1)
            name = reference.name
        else:
            try:
                name = self.text(ruleset_node, "'ruleset'")
            except _Skip:
                return None
            found = resolve_ruleset(name, relative_to=here)
            where = ruleset_node.span
        if found is None:
            self.error("RE502", f"the rule file '{name}' to test is not found", where,
                       "name it with 'ruleset:' (a path relative to this file, or a shipped name)")
            return None
        try:
            ruleset = api.load_ruleset(str(found))
        except RuleFileError as error:
            self.error("RE502", f"the rule file '{name}' is not valid ({len(error.diagnostics)} problem(s))", where,
                       f"see: rulesengine validate {found}")
            return None
        rules = None
        if "rules" in top:
            try:
                rules = here / self.text(top.entries["rules"], "'rules'")
            except _Skip:
                pass
        not_testable: dict[str, str] = {}
        if "not_testable" in top:
            try:
                entries = self.mapping(top.entries["not_testable"], "'not_testable'", None)
                for clause, reason in entries.items():
                    not_testable[clause] = self.text(reason, f"the reason clause {clause} is not testable")
            except _Skip:
                pass
        defaults: dict[str, Node] = {k: v for k, v in top.items() if k in ("players", "options", "seed")}
        scenarios = []
        tests = top.get("tests")
        if tests is None:
            self.error("RE503", "the file has no 'tests'", top.span, "add 'tests:' with a list of tests")
        else:
            try:
                items = self.items(tests, "'tests'")
            except _Skip:
                items = ()
            names: dict[str, Span] = {}
            for item in items:
                try:
                    scenario = self.scenario(item, ruleset, defaults)
                except _Skip:
                    continue
                if scenario.name in names:
                    self.error("RE503", f"two tests are named '{scenario.name}' (the first at line "
                               f"{names[scenario.name].line})", scenario.span, "give every test its own name")
                names.setdefault(scenario.name, scenario.span)
                scenarios.append(scenario)
        self.citations(rules, top, not_testable, scenarios)
        return TestFile(self.path, str(found), rules, not_testable, tuple(scenarios))

    def citations(self, rules: Path | None, top: Map, not_testable: dict[str, str], scenarios: list) -> None:
        """Every cited clause, and every clause called not testable, is a clause of the rules document."""
        if rules is None:
            return
        if not rules.is_file():
            self.problems.append(Diagnostic("RE512", f"the rules document '{rules.name}' is not found, so the "
                                            "clauses cited are not checked", top.entries["rules"].span,
                                            severity=WARNING))
            return
        known = clauses_of(rules)
        cited = [(c, span) for scenario in scenarios for c, span in scenario.clauses]
        listed = top.entries["not_testable"] if "not_testable" in top else None
        if isinstance(listed, Map):
            cited += [(c, listed.key_spans[c]) for c in not_testable]
        for clause, span in cited:
            if clause not in known:
                self.error("RE511", f"the rules document has no clause '{clause}'", span,
                           did_you_mean(clause, known) or f"see {rules.name}")

    def scenario(self, node: Node, ruleset: ir.Ruleset, defaults: dict[str, Node]) -> Scenario:
        problems_before = len(self.problems)
        test = self.mapping(node, "a test", TEST_KEYS)
        if "name" not in test:
            raise self.fail("RE503", "a test needs a 'name'", test.span)
        name = self.text(test.entries["name"], "a test's 'name'")
        clauses = []
        if "clause" in test:
            for item in self.items(test.entries["clause"], "'clause'"):
                clauses.append((self.text(item, "a clause"), item.span))
        game = self.game(test, ruleset, defaults)
        seed_node = test.get("seed") or defaults.get("seed")
        seed = self.integer(seed_node, "'seed'") if seed_node is not None else 0
        position = None
        if "position" in test:
            try:
                position = _PositionReader(self, game).read(test.entries["position"], seed)
            except _Skip:
                pass  # the other parts are still read, for their diagnostics
        steps = []
        first = {k: v for k, v in test.items() if k in STEP_KEYS}
        if first:
            try:
                steps.append(self.step(first, game))
            except _Skip:
                pass
        if "steps" in test:
            for item in self.items(test.entries["steps"], "'steps'"):
                try:
                    entries = self.mapping(item, "a step", STEP_KEYS)
                    steps.append(self.step(dict(entries.items()), game))
                except _Skip:
                    continue
        if not steps:
            self.error("RE503", f"test '{name}' checks nothing", test.span, "add 'expect:' (or 'steps:')")
        if len(self.problems) > problems_before:
            raise _Skip()  # a test with a problem does not run: its result would mislead
        return Scenario(name, test.span, tuple(clauses), game, seed, position, tuple(steps))

    def game(self, test: Map, ruleset: ir.Ruleset, defaults: dict[str, Node]) -> Game:
        players_node = test.get("players") or defaults.get("players")
        players = self.integer(players_node, "'players'") if players_node is not None else None
        options: dict[str, object] = {}
        for source in (defaults.get("options"), test.get("options")):
            if source is not None:
                for key, value in self.mapping(source, "'options'", None).items():
                    if not isinstance(value, Scalar) or value.value is None:
                        raise self.fail("RE500", f"option '{key}' needs a value", value.span)
                    options[key] = value.value
        try:
            return api.make_game(ruleset, players=players, options=options)
        except RulesEngineError as error:
            where = test.get("options") or players_node or test.span
            raise self.fail("RE504", str(error), where.span) from None

    def step(self, entries: dict[str, Node], game: Game) -> Step:
        play = []
        if "play" in entries:
            for item in self.items(entries["play"], "'play'"):
                play.append((self.text(item, "an action"), item.span))
        checks: list[Check] = []
        if "expect" in entries:
            checks = _ExpectReader(self, game).read(entries["expect"])
        return Step(tuple(play), tuple(checks))


class _Names:
    """The game's names as logs print them: players, cards, zones, phases, variables."""

    def __init__(self, reader: _Reader, game: Game):
        self.reader = reader
        self.game = game
        program = game.program
        self.program = program
        self.cards: dict[str, list[int]] = {}
        for card, name in enumerate(program.card_names):
            self.cards.setdefault(name, []).append(card)
        self.zone_slots = {name: slot for slot, name in enumerate(program.zone_names)}
        self.phases = [phase.name for phase in program.phases]
        self.variables = {name: (per_player, type_) for name, per_player, type_ in program.variable_layout}

    def player(self, node: Node, nobody: bool = False) -> int:
        if nobody and isinstance(node, Scalar) and node.value in (None, "nobody"):
            return -1
        text = self.reader.text(node, "a player")
        count = self.program.num_players
        if text.startswith("P") and text[1:].isdigit() and 1 <= int(text[1:]) <= count:
            return int(text[1:]) - 1
        raise self.reader.fail("RE509", f"'{text}' is not a player of this {count}-player game", node.span,
                               f"players are P1 to P{count}")

    def players(self, node: Node) -> frozenset[int]:
        return frozenset(self.player(item) for item in self.reader.items(node, "a list of players"))

    def card(self, node: Node) -> list[int]:
        name = str(node.value) if isinstance(node, Scalar) and node.value is not None else ""
        if name not in self.cards:
            hint = did_you_mean(name, self.cards) or "cards are named as the log prints them, e.g. " + ", ".join(
                list(self.cards)[:3])
            raise self.reader.fail("RE506", f"no card is named '{name}'", node.span, hint)
        return self.cards[name]

    def card_names(self, node: Node) -> list[str]:
        """A list of card names, each checked (copies of a card share a name)."""
        names = []
        for item in self.reader.items(node, "a list of cards"):
            self.card(item)
            names.append(str(item.value))  # type: ignore[union-attr]
        return names

    def phase(self, node: Node) -> int:
        name = self.reader.text(node, "a phase")
        if name not in self.phases:
            raise self.reader.fail("RE508", f"no phase is named '{name}'", node.span,
                                   did_you_mean(name, self.phases) or f"phases: {', '.join(self.phases)}")
        return self.phases.index(name)

    def zones(self, node: Node) -> Iterator[tuple[str, int, Node]]:
        """(written name, zone slot, value) for each zone of a `zones:` mapping."""
        entries = self.reader.mapping(node, "'zones'", None)
        for key, value in entries.items():
            key_span = entries.key_spans[key]
            if key in self.zone_slots:
                yield key, self.zone_slots[key], value
                continue
            family = self.program.families.get(key)
            if family is not None and len(family.dimensions) == 1 and isinstance(value, Map):
                for index, inner in value.items():
                    flat = f"{key}[{index}]"
                    if flat not in self.zone_slots:
                        self.reader.error("RE505", f"no zone is named '{flat}'", value.key_spans[index],
                                          did_you_mean(flat, self.zone_slots))
                        continue
                    yield flat, self.zone_slots[flat], inner
                continue
            hint = did_you_mean(key, self.zone_slots) or f"zones: {', '.join(list(self.zone_slots)[:8])}"
            if family is not None:
                hint = f"'{key}' is a family of zones: name one, e.g. '{self.program.zone_names[family.base]}'"
            self.reader.error("RE505", f"no zone is named '{key}'", key_span, hint)

    def variable(self, key: str, span: Span) -> tuple[bool, str]:
        if key not in self.variables:
            raise self.reader.fail("RE507", f"no variable is named '{key}'", span,
                                   did_you_mean(key, self.variables) or f"variables: {', '.join(self.variables)}")
        return self.variables[key]

    def value(self, node: Node, type_: str, what: str) -> Any:
        """A variable's value in the engine's form, from its form in a test file."""
        reader = self.reader
        if type_ == ir.INT:
            return reader.integer(node, what)
        if type_ == ir.BOOL:
            if not (isinstance(node, Scalar) and isinstance(node.value, bool)):
                raise reader.fail("RE507", f"{what} must be true or false", node.span)
            return node.value
        if type_ == ir.STR:
            return reader.text(node, what)
        if type_ == ir.PLAYER:
            return self.player(node, nobody=True)
        if isinstance(node, Scalar) and node.value in (None, "nothing", "nobody"):
            return -1
        if type_ == ir.SUIT:
            name = reader.text(node, what)
            if name not in self.program.suit_names:
                raise reader.fail("RE507", f"no suit is named '{name}'", node.span,
                                  did_you_mean(name, self.program.suit_names))
            return self.program.suit_names.index(name)
        if type_ == ir.CARD:
            return self.card(node)[0]
        raise reader.fail("RE507", f"{what} has the type {type_}, which a test cannot set", node.span)

    def variable_values(self, node: Node) -> Iterator[tuple[str, int, Any, Node]]:
        """(name, offset in the variable table, value, node) for each value of a `variables:` mapping."""
        entries = self.reader.mapping(node, "'variables'", None)
        program = self.program
        for key, value in entries.items():
            try:
                per_player, type_ = self.variable(key, entries.key_spans[key])
                offset = program.variable_offsets[key]
                if not per_player:
                    yield key, offset, self.value(value, type_, f"the value of '{key}'"), value
                elif isinstance(value, Map):
                    for seat, inner in value.items():
                        player = self.player(Scalar(seat, value.key_spans[seat]))
                        yield f"{key}[P{player + 1}]", offset + player, self.value(inner, type_, key), inner
                elif isinstance(value, Seq) and len(value.items) == program.num_players:
                    for player, inner in enumerate(value.items):
                        yield f"{key}[P{player + 1}]", offset + player, self.value(inner, type_, key), inner
                else:
                    self.reader.error("RE507", f"'{key}' has one value per player: write {{P1: ..., P2: ...}}"
                                      f" or a list of {program.num_players}", value.span)
            except _Skip:
                continue


class _PositionReader:
    def __init__(self, reader: _Reader, game: Game):
        self.reader = reader
        self.names = _Names(reader, game)
        self.game = game

    def read(self, node: Node, seed: int) -> Position:
        reader, names = self.reader, self.names
        program = self.game.program
        position = reader.mapping(node, "'position'", POSITION_KEYS)
        start = self.game.new_initial_state(seed=seed)
        zones: list[list[int] | None] = [None] * len(program.zone_names)
        used: dict[int, Span] = {}
        broken = False
        if "zones" in position:
            for flat, slot, value in names.zones(position.entries["zones"]):
                cards: list[int] = []
                try:
                    for item in reader.items(value, f"the cards of '{flat}'"):
                        copies = names.card(item)
                        free = [c for c in copies if c not in used]
                        if not free:
                            first = used[copies[-1]]
                            held = "one" if len(copies) == 1 else f"{len(copies)} copies"
                            message = f"card '{item.value}' is placed again, but the decks hold only {held}"
                            before = f"placed before at line {first.line}, column {first.column}"
                            reader.error("RE510", message, item.span, before)
                            broken = True
                            continue
                        used[free[0]] = item.span
                        cards.append(free[0])
                except _Skip:
                    broken = True
                    continue
                table = program.families[flat.split("[")[0]].sorted_by
                if table is not None:  # a sorted zone is kept in its order whatever the order written
                    cards.sort(key=program.attributes[table].__getitem__)
                zones[slot] = cards
        rest = self.rest(position)
        unplaced: dict[int, list[int]] = {}
        for card in range(program.num_cards):
            if card not in used:
                unplaced.setdefault(rest if rest is not None else self.deck_zone(card), []).append(card)
        for slot, cards in unplaced.items():  # beneath any cards the position puts there
            zones[slot] = cards + (zones[slot] or [])
        variables = list(start.vars)
        if "variables" in position:
            for _name, offset, value, _node in names.variable_values(position.entries["variables"]):
                variables[offset] = value
        phase = start.phase
        current = 0  # P1, unless the position says
        out: frozenset[int] = frozenset()
        fields: dict[str, Any] = {}
        try:
            if "phase" in position:
                phase = names.phase(position.entries["phase"])
            if "current" in position:
                current = names.player(position.entries["current"])
            if "out" in position:
                out = names.players(position.entries["out"])
            for key in ("round", "turns", "passes"):
                if key in position:
                    fields[key] = reader.integer(position.entries[key], f"'{key}'")
            if "direction" in position:
                direction = reader.integer(position.entries["direction"], "'direction'")
                if direction not in (1, -1):
                    raise reader.fail("RE500", "'direction' must be 1 or -1", position.entries["direction"].span)
                fields["direction"] = direction
        except _Skip:
            broken = True
        if current in out:
            reader.error("RE509", f"P{current + 1} is to move but is out of the round",
                         (position.get("current") or position).span)
            broken = True
        if phase < 0:
            raise reader.fail("RE508", "the position needs a 'phase'", position.span)
        if broken:
            raise _Skip()
        return Position(
            zones=tuple(tuple(z or ()) for z in zones),
            variables=tuple(variables),
            phase=phase,
            current=current,
            direction=fields.get("direction", 1),
            round_number=fields.get("round", max(1, start.round_number)),
            out=out,
            turns=fields.get("turns", 0),
            passes=fields.get("passes", 0),
        )

    def rest(self, position: Map) -> int | None:
        node = position.get("rest")
        if node is None:
            return None
        name = self.reader.text(node, "'rest'")
        if name not in self.names.zone_slots:
            raise self.reader.fail("RE505", f"no zone is named '{name}'", node.span,
                                   did_you_mean(name, self.names.zone_slots))
        return self.names.zone_slots[name]

    def deck_zone(self, card: int) -> int:
        program = self.game.program
        deck = program.ruleset.decks[program.card_deck[card]]
        return program.families[deck.zone].base


class _ExpectReader:
    def __init__(self, reader: _Reader, game: Game):
        self.reader = reader
        self.names = _Names(reader, game)
        self.game = game

    def read(self, node: Node) -> list[Check]:
        expect = self.reader.mapping(node, "'expect'", EXPECT_KEYS)
        checks: list[Check] = []
        for key, value in expect.items():
            try:
                checks.extend(getattr(self, key)(value, expect.key_spans[key]))
            except _Skip:
                continue
        return checks

    # -- actions --

    def _action_list(self, node: Node) -> list[tuple[str, Span]]:
        return [(self.reader.text(item, "an action"), item.span) for item in self.reader.items(node, "actions")]

    def legal(self, node: Node, _span: Span) -> Iterator[Check]:
        for name, span in self._action_list(node):
            yield Check(span, f"'{name}' is legal", _legal_check(name, True))

    def not_legal(self, node: Node, _span: Span) -> Iterator[Check]:
        for name, span in self._action_list(node):
            yield Check(span, f"'{name}' is not legal", _legal_check(name, False))

    def only_legal(self, node: Node, span: Span) -> Iterator[Check]:
        wanted = sorted(name for name, _ in self._action_list(node)) if not _is_empty(node) else []

        def test(state: State, _context: dict) -> tuple[str, str] | None:
            actual = sorted(state.action_to_string(a) for a in state.legal_actions())
            return None if actual == wanted else (_show(wanted), _show(actual))

        yield Check(node.span, "the legal actions", test)

    # -- turn --

    def current(self, node: Node, _span: Span) -> Iterator[Check]:
        player = self.names.player(node)
        yield _field(node.span, "the player to move", f"P{player + 1}",
                     lambda s: f"P{s.current_player() + 1}" if s.current_player() >= 0 else "nobody")

    def phase(self, node: Node, _span: Span) -> Iterator[Check]:
        index = self.names.phase(node)
        name = self.names.phases[index]
        yield _field(node.span, "the phase", name, lambda s: self.names.phases[s.phase] if s.phase >= 0 else "none")

    def round(self, node: Node, _span: Span) -> Iterator[Check]:
        number = self.reader.integer(node, "'round'")
        yield _field(node.span, "the round", str(number), lambda s: str(s.round_number))

    def direction(self, node: Node, _span: Span) -> Iterator[Check]:
        value = self.reader.integer(node, "'direction'")
        yield _field(node.span, "the direction of play", str(value), lambda s: str(s.direction))

    def out(self, node: Node, _span: Span) -> Iterator[Check]:
        players = sorted(self.names.players(node)) if not _is_empty(node) else []
        wanted = _show([f"P{p + 1}" for p in players])
        yield _field(node.span, "the players out", wanted,
                     lambda s: _show([f"P{p + 1}" for p, a in enumerate(s.active) if not a]))

    # -- cards and values --

    def zones(self, node: Node, _span: Span) -> Iterator[Check]:
        for flat, slot, value in self.names.zones(node):
            yield from self._zone(flat, value, lambda s, slot=slot: _cards(s, slot))

    def _zone(self, flat: str, value: Node, cards_of: Callable[[State], Any]) -> Iterator[Check]:
        reader, names = self.reader, self.names
        if _is_int(value):
            count = reader.integer(value, "a number of cards")
            yield _field(value.span, f"the number of cards in {flat}", str(count),
                         lambda s: str(len(cards_of(s)) if isinstance(cards_of(s), list) else cards_of(s)))
            return
        if isinstance(value, Map):
            entries = reader.mapping(value, f"the check of '{flat}'", {"contains": "", "excludes": "", "size": ""})
            for key, inner in entries.items():
                if key == "size":
                    yield from self._zone(flat, inner, cards_of)
                    continue
                wanted = names.card_names(inner)
                present = key == "contains"

                def test(state: State, _c: dict, wanted=wanted, present=present) -> tuple[str, str] | None:
                    cards = cards_of(state)
                    if not isinstance(cards, list):
                        return (f"{flat} {'holds' if present else 'does not hold'} {_show(wanted)}",
                                f"{cards} hidden cards")
                    wrong = [n for n in wanted if (n in cards) != present]
                    if not wrong:
                        return None
                    return (f"{flat} {'holds' if present else 'does not hold'} {_show(wanted)}", _show(cards))

                yield Check(inner.span, f"{flat} {key} cards", test)
            return
        wanted = names.card_names(value) if not _is_empty(value) else []
        yield _field(value.span, f"the cards of {flat} (bottom to top)", _show(wanted),
                     lambda s: _show(cards_of(s)) if isinstance(cards_of(s), list) else f"{cards_of(s)} hidden cards")

    def variables(self, node: Node, _span: Span) -> Iterator[Check]:
        program = self.game.program
        for name, offset, value, value_node in self.names.variable_values(node):
            type_ = next(t for n, _, t in program.variable_layout if n == name.split("[")[0])
            shown = _show_value(self.game, value, type_)
            yield _field(value_node.span, f"the value of {name}", shown,
                         lambda s, offset=offset, type_=type_: _show_value(self.game, s.vars[offset], type_))

    def log(self, node: Node, _span: Span) -> Iterator[Check]:
        for item in self.reader.items(node, "log lines"):
            line = self.reader.text(item, "a log line").strip()
            yield Check(item.span, "a log line", _log_check(line, True))

    def not_log(self, node: Node, _span: Span) -> Iterator[Check]:
        for item in self.reader.items(node, "log lines"):
            line = self.reader.text(item, "a log line").strip()
            yield Check(item.span, "no such log line", _log_check(line, False))

    def round_over(self, node: Node, _span: Span) -> Iterator[Check]:
        wanted = _yes(_flag(self.reader, node, "'round_over'"))

        def test(state: State, context: dict) -> tuple[str, str] | None:
            actual = _yes(state.round_number > context["round"] or state.is_terminal())
            return None if actual == wanted else (wanted, actual)

        yield Check(node.span, "the round is over", test)

    def match_over(self, node: Node, _span: Span) -> Iterator[Check]:
        wanted = _flag(self.reader, node, "'match_over'")
        yield _field(node.span, "the match is over", _yes(wanted), lambda s: _yes(s.is_terminal()))

    def returns(self, node: Node, _span: Span) -> Iterator[Check]:
        items = self.reader.items(node, "'returns'")
        values = []
        for item in items:
            if not (isinstance(item, Scalar) and isinstance(item.value, (int, float))
                    and not isinstance(item.value, bool)):
                raise self.reader.fail("RE500", "a return must be a number", item.span)
            values.append(float(item.value))
        if len(values) != self.game.num_players:
            raise self.reader.fail("RE500", f"'returns' needs one value per player ({self.game.num_players})",
                                   node.span)
        wanted = _show(values) + " (the match over)"

        def actual(state: State) -> str:
            return _show(state.returns()) + (" (the match over)" if state.is_terminal() else " (the match goes on)")

        yield _field(node.span, "the returns", wanted, actual)

    def sees(self, node: Node, _span: Span) -> Iterator[Check]:
        entries = self.reader.mapping(node, "'sees'", None)
        for seat, inner in entries.items():
            try:
                player = self.names.player(Scalar(seat, entries.key_spans[seat]))
            except _Skip:
                continue
            zones = self.reader.mapping(inner, f"what P{player + 1} sees", None)
            if "shown" in zones and "shown" not in self.names.zone_slots:
                yield from self._zone(f"the cards shown to P{player + 1}", zones.entries["shown"],
                                      lambda s, p=player: s.observation(p)["shown"])
                zones = Map({k: v for k, v in zones.items() if k != "shown"},
                            {k: v for k, v in zones.key_spans.items() if k != "shown"}, zones.span)
            for flat, _slot, value in self.names.zones(zones):
                yield from self._zone(f"{flat} as P{player + 1} sees it", value,
                                      lambda s, p=player, f=flat: s.observation(p)["zones"][f])


def _is_empty(node: Node) -> bool:
    return (isinstance(node, Seq) and not node.items) or (isinstance(node, Scalar) and node.value is None)


def _flag(reader: _Reader, node: Node, what: str) -> bool:
    if not (isinstance(node, Scalar) and isinstance(node.value, bool)):
        raise reader.fail("RE500", f"{what} must be true or false", node.span)
    return node.value


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _show(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_show(v) for v in values) + "]"
    if isinstance(values, float) and values.is_integer():
        return str(int(values))
    return str(values)


def _show_value(game: Game, value: Any, type_: str) -> str:
    if type_ == ir.PLAYER:
        return f"P{value + 1}" if isinstance(value, int) and value >= 0 else "nobody"
    if type_ == ir.BOOL:
        return "true" if value else "false"
    shown = game.show_value(value, type_)
    return "nothing" if shown is None else str(shown)


def _cards(state: State, slot: int) -> list[str]:
    names = state.program.card_names
    return [names[card] for card in state.zones[slot]]


def _field(span: Span, what: str, wanted: str, actual_of: Callable[[State], str]) -> Check:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        actual = actual_of(state)
        return None if actual == wanted else (wanted, actual)

    return Check(span, what, test)


def legal_names(state: State) -> dict[str, int]:
    """The legal actions of the player to move, by the names the log gives them."""
    return {state.action_to_string(action): action for action in state.legal_actions()}


def find_action(state: State, name: str) -> int | None:
    """The legal action named `name` (as `action_to_string` prints it, optionally `P2: ...`)."""
    legal = legal_names(state)
    if name in legal:
        return legal[name]
    mover, sep, rest = name.partition(": ")
    if sep and mover == f"P{state.current_player() + 1}":
        return legal.get(rest)
    return None


def _legal_check(name: str, wanted: bool) -> Callable[[State, dict], tuple[str, str] | None]:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        found = find_action(state, name) is not None
        if found == wanted:
            return None
        names = sorted(legal_names(state))
        return (f"'{name}' {'legal' if wanted else 'not legal'}", f"legal actions: {_show(names)}")

    return test


def _log_matches(wanted: str, line: str) -> bool:
    """A log line matches the text written, or begins with it when the text ends with '...'."""
    if wanted.endswith("..."):
        return line.startswith(wanted[:-3])
    return line == wanted


def _log_check(line: str, wanted: bool) -> Callable[[State, dict], tuple[str, str] | None]:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        lines = [text.strip() for text in state.log or []]
        found = [text for text in lines if _log_matches(line, text)]
        if bool(found) == wanted:
            return None
        if wanted:
            near = difflib.get_close_matches(line, lines, n=1, cutoff=0.6)
            return (f"the log line '{line}'", f"the line '{near[0]}'" if near else f"{len(lines)} other line(s)")
        return (f"no log line '{line}'", f"'{found[0]}'")

    return test
