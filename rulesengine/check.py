"""Check a composed rule file and build the typed ruleset (`ir.Ruleset`).

Every section is read, every name resolved and every expression typed before anything
runs. Problems are collected, not raised one by one, so that an author sees all of a
file's errors at once. The work is split by job:

- check_sections.py reads the sections and declares their names;
- check_expressions.py types and expands expressions and effects;
- check_lints.py runs the whole-file checks, check_cost.py the static cost bounds;
- check_fold.py folds constants and option values for those checks.
"""

from __future__ import annotations

import attrs

from . import ir
from .check_base import BUILTINS, RESERVED, Failed, Scope
from .check_chance import ChanceChecker
from .check_expressions import FUNCTIONS, MACROS, ExpressionChecker
from .check_lints import FileLints
from .check_procedures import ProcedureChecker
from .check_results import ResultsReader
from .check_sections import SectionReader
from .check_teams import TeamReader
from .diagnostics import WARNING, Diagnostic, RuleFileError, did_you_mean
from .limits import MAX_SPELT_OUT_NODES
from .parse import ParseFailed, parse_expression, parse_loop, parse_signature, parse_statements
from .shape import OPTION_TYPES, SECTION_KEYS, TOP_KEYS, VARIABLE_TYPES, VISIBILITIES
from .source import Map, Scalar

__all__ = [
    "BUILTINS",
    "FUNCTIONS",
    "MACROS",
    "OPTION_TYPES",
    "RESERVED",
    "SECTION_KEYS",
    "TOP_KEYS",
    "VARIABLE_TYPES",
    "VISIBILITIES",
    "Checker",
    "Failed",
    "Scope",
    "check",
    "check_block",
    "check_with_warnings",
    "is_block",
]


class Checker(SectionReader, ExpressionChecker, ChanceChecker, ProcedureChecker, FileLints, TeamReader, ResultsReader):
    """Checks one composed document: `run()` returns the ruleset or raises RuleFileError."""

    def run(self) -> ir.Ruleset:
        doc = self.doc
        for key, span in doc.key_spans.items():
            if key not in TOP_KEYS:
                self.error(
                    "RE201",
                    f"unknown section '{key}'",
                    span,
                    hint=did_you_mean(key, TOP_KEYS) or f"sections: {', '.join(TOP_KEYS)}",
                )
        if is_block(doc):
            self.error(
                "RE235",
                "this file is a block to include in a game, not a game itself",
                doc.key_spans["block"],
                hint="write a game that says 'include: [...]' naming this file",
            )
            raise RuleFileError(self.problems)
        name = self.value_or(doc.get("name"), (str,), "'name'", "unnamed")
        if "name" not in doc:
            self.error("RE206", "the rule file has no 'name'", doc.span)
        elif not name.strip():
            self.error("RE205", "'name' must be a text that is not empty", self.at(doc, "name"))
        description = self.scalar(doc.get("description"), (str,), "'description'") or ""
        min_p, max_p, default_p = self.read_players()
        self.read_teams(min_p, max_p)
        self.read_options()
        self.read_decks()
        self.check_card_count()
        self.read_zones()
        self.check_zone_count(max_p)
        self.read_deck_zones()
        self.read_definitions()
        self.read_variables()
        card_attributes, label = self.read_cards()
        self.check_sorted_by()
        self.phase_names = dict.fromkeys((self.mapping("phases") or Map({}, {}, doc.span)).entries)
        self.move_names = dict.fromkeys((self.mapping("moves") or Map({}, {}, doc.span)).entries)
        self.read_procedures()
        self.check_procedure_bodies()
        before = len(self.goto_targets)
        self.in_setup = True
        try:
            setup = self.effects(doc.get("setup"), Scope())
        finally:
            self.in_setup = False
        del self.goto_targets[before:]  # a goto in the setup leads to no phase (RE275)
        self.check_setup_flow(setup)
        round_rules = self.read_round()
        phases = self.read_phases()
        moves = self.read_moves()
        triggers = self.read_triggers()
        until, winners, losers = self.read_match()
        # past the spelt-out bound (RE322) later expressions went unread: what they use is unknown
        read_everything = self.nodes_spelt_out <= MAX_SPELT_OUT_NODES
        if read_everything:
            self.report_unused_procedures()
        self.check_reachable(phases)  # after moves and triggers: their 'goto's count too
        self.check_deals((setup, round_rules.setup), min_p, max_p)
        self.check_empty_deals()
        self.check_never_legal(moves)
        self.check_hidden_announced(moves)
        self.check_circular_legality(moves)
        self.check_value_choices(moves, max_p)
        if read_everything:
            self.report_unused(moves)
        ruleset = ir.Ruleset(
            name=name,
            description=description,
            file=self.file,
            min_players=min_p,
            max_players=max_p,
            default_players=default_p,
            options=tuple(self.options.values()),
            suits=tuple(self.suits.values()),
            ranks=tuple(self.ranks),
            decks=tuple(self.decks),
            card_attributes=card_attributes,
            card_label=label,
            zones=tuple(self.zones.values()),
            variables=tuple(self.variables.values()),
            setup=setup,
            round_setup=round_rules.setup,
            round_end=round_rules.end,
            round_limit=round_rules.limit,
            round_limit_effects=round_rules.limit_effects,
            round_limit_share=round_rules.limit_share,
            round_stuck_effects=round_rules.stuck,
            phases=phases,
            moves=moves,
            triggers=triggers,
            match_until=until,
            winners=winners,
            losers=losers,
            evaluation=getattr(self, "evaluation", None),
            results=getattr(self, "results", None),
            teams=self.teams,
            slots=self.slots,
        )
        if not any(p.severity != WARNING for p in self.problems):
            round_cost = self.check_costs(ruleset)  # bounds on a decision's work, for a file otherwise sound
            ruleset = attrs.evolve(ruleset, round_cost=round_cost)
            self.check_certainly_nobody(ruleset)
        self.problems = _unique(self.problems)
        if any(p.severity != WARNING for p in self.problems):
            raise RuleFileError(self.problems)
        return ruleset


def _unique(problems: list[Diagnostic]) -> list[Diagnostic]:
    """Drop repeats: a definition with an error reports it once, not at every use."""
    return list(dict.fromkeys(problems))


# ---- blocks: partial files meant for `include` ------------------------------------------

_BLOCK_EXPRESSIONS = {"legal", "first", "until", "when", "winners", "losers", "returns"}
_BLOCK_EFFECTS = {"effects", "setup", "enter", "exit", "end", "stuck"}


def is_block(document: Map) -> bool:
    """Whether a file says `block: true`: a partial file, complete only inside a game."""
    node = document.get("block")
    return isinstance(node, Scalar) and node.value is True


def check_block(document: Map) -> list[Diagnostic]:
    """The problems a block can show alone: unknown sections and syntax errors.

    Names and types are checked in each game that includes the block, since a block
    may refer to zones, variables and decks that only the game defines.
    """
    problems = [
        Diagnostic("RE201", f"unknown section '{key}'", span, hint=did_you_mean(key, TOP_KEYS))
        for key, span in document.key_spans.items()
        if key not in TOP_KEYS
    ]
    definitions = document.get("define")
    heads = definitions if isinstance(definitions, Map) else Map({}, {}, document.span)
    for key, node in heads.items():
        try:
            parse_signature(heads.key_node(key))
            parse_expression(node)
        except ParseFailed as failure:
            problems.append(failure.diagnostic)
    _block_syntax(document, problems)
    return problems


def _block_syntax(node: Map, problems: list[Diagnostic]) -> None:
    for key, value in node.items():
        try:
            if key in _BLOCK_EFFECTS and not isinstance(value, Map):
                problems.extend(parse_statements(value)[1])
            elif key in _BLOCK_EXPRESSIONS and isinstance(value, Scalar) and isinstance(value.value, str):
                parse_expression(value)
            elif key == "for" and isinstance(value, Scalar):
                parse_loop(value)
            elif isinstance(value, Map) and key != "define":
                _block_syntax(value, problems)
        except ParseFailed as failure:
            problems.append(failure.diagnostic)


def check(document: Map, file: str) -> ir.Ruleset:
    """Check a composed document; raises RuleFileError with every problem found."""
    return Checker(document, file).run()


def check_with_warnings(document: Map, file: str) -> tuple[ir.Ruleset | None, list[Diagnostic]]:
    """The ruleset (None if it has errors) and every diagnostic, warnings included."""
    checker = Checker(document, file)
    try:
        ruleset = checker.run()
    except RuleFileError:
        ruleset = None
    return ruleset, checker.problems
