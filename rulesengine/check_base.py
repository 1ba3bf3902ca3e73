"""What every part of the checker shares: the names the language reserves, the scope of an
expression, the checker's state and how problems are reported.

The checker is split by job into mixins over this base: check_sections.py reads the
sections and declares names, check_expressions.py types and expands expressions and
effects, check_lints.py runs whole-file checks; check.py joins them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NoReturn

import yaml

from . import ir, syntax
from .check_fold import Folded, TooLarge
from .diagnostics import WARNING, Diagnostic, Span, did_you_mean, shortened
from .limits import MAX_INTEGER
from .resources import grammar_text
from .source import Map, Node, Scalar, Seq

BUILTINS: dict[str, str] = {
    "current": ir.PLAYER,
    "players": ir.list_of(ir.PLAYER),
    "active": ir.list_of(ir.PLAYER),
    "direction": ir.INT,
    "round": ir.INT,
    "turn": ir.INT,
    "num_players": ir.INT,
    "passes": ir.INT,
    "phase": ir.STR,
    "suits": ir.list_of(ir.SUIT),
}
RESERVED = set(BUILTINS) | {"me", "true", "false", "and", "or", "not", "in", "if", "else"}


def _grammar_words() -> frozenset[str]:
    """Every word the grammar spells out in quotes ("move", "to", "out", "top", ...)."""
    words = set()
    for line in grammar_text().splitlines():
        line = line.split("//", 1)[0]
        for piece in line.split('"')[1::2]:  # the quoted parts of the line
            if piece.isidentifier():
                words.add(piece)
    return frozenset(words)


# The words of the effect grammar that are not built-in names already: a variable, zone,
# move, phase, definition or parameter named so would make a statement ambiguous.
STATEMENT_KEYWORDS = _grammar_words() - RESERVED


# What the grammar reads as a NAME (grammar/rules.lark): a name the file declares must be one, or
# no expression could name it, and a control character in it would reach the generated code.
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shown_name(name: str) -> str:
    """A name as a message shows it: quoted, control and other non-ASCII characters escaped, cut short."""
    return ascii(name if len(name) <= 40 else name[:40] + "...")


class Failed(Exception):
    """An expression could not be checked; its diagnostic is already recorded."""


class Scope:
    """Names bound around an expression: locals (with slots) and definition arguments."""

    def __init__(
        self, names: dict[str, ir.Expr] | None = None, context: str = "rule", kinds: dict[str, str] | None = None
    ):
        self.names = dict(names or {})
        self.context = context
        self.kinds = dict(kinds or {})  # what each local is, said when it is assigned ("a parameter of ...")

    def bind(self, name: str, value: ir.Expr, kind: str = "a local value") -> Scope:
        child = Scope(self.names, self.context, self.kinds)
        child.names[name] = value
        child.kinds[name] = kind
        return child


class CheckerBase:
    """The checker's state and reporting; the mixins add the jobs."""

    def __init__(self, document: Map, file: str):
        self.doc = document
        self.file = file
        self.problems: list[Diagnostic] = []
        self.slots = 1  # slot 0 is `me`
        self.options: dict[str, ir.Option] = {}
        self.unusable_options: set[str] = set()  # declared with a reported fault: their uses say nothing more
        self.suits: dict[str, ir.Suit] = {}
        self.suit_spans: dict[str, Span] = {}  # each suit ("hearts") and its attribute values ("hearts.colour")
        self.ranks: list[str] = []
        self.rank_index: dict[str, int] = {}  # each rank's place in self.ranks
        self.suit_index: dict[str, int] = {}  # each suit's place in self.suits
        self.decks: list[ir.Deck] = []
        self.decks_misread = False  # some suits or ranks are refused: the decks' true sizes are unknown
        self.card_attrs: dict[str, ir.CardAttribute] = {}
        self.zones: dict[str, ir.Zone] = {}
        self.variables: dict[str, ir.Variable] = {}
        self.definitions: dict[str, tuple[tuple[str, ...], Node]] = {}
        self.expanding: list[str] = []
        self.phase_names: dict[str, None] = {}  # in file order
        self.goto_targets: list[str] = []  # phases some effect says 'goto' to
        self.in_setup = False  # checking the top-level setup, where flow effects take no effect (RE275)
        self.flow_reported: dict[int, ir.Stmt] = {}  # such effects reported at a procedure call, by id
        self.move_names: dict[str, None] = {}  # in file order
        self.used: set[str] = set()
        self.statements_seen: list[ir.Stmt] = []  # every checked effect, nested ones too, for whole-file checks
        self.expansions = 0
        self.nodes_spelt_out = 0  # expression nodes checked, at each use of a definition, procedure or alias
        # the values of integer nodes folded so far, without and with the options' defaults
        self.fold_memo: tuple[Folded, Folded] = ({}, {})
        self._moved_into: set[str] | None = None  # zones some effect moves cards into, once every effect is read
        self.parsed_definitions: dict[str, syntax.Expr] = {}
        self.teams: ir.Teams | None = None  # the `teams` section (check_teams.py)
        self.team_dims: dict[str, frozenset[int]] = {}  # zone -> positions of its `per: team` dimensions

    # ---- reporting and reading scalars -----------------------------------------------

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, hint=hint))

    def warn(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, severity=WARNING, hint=hint))

    def fail(self, code: str, message: str, span: Span, hint: str | None = None) -> NoReturn:
        self.error(code, message, span, hint)
        raise Failed()

    def keys(self, node: Node, allowed: Iterable[str], what: str) -> Map | None:
        if not isinstance(node, Map):
            self.error("RE204", f"{what} must be a mapping", node.span)
            return None
        allowed = set(allowed)
        for key, span in node.key_spans.items():
            if key not in allowed:
                hint = did_you_mean(key, allowed) or f"allowed keys: {', '.join(sorted(allowed))}"
                self.error("RE201", f"unknown key '{key}' in {what}", span, hint=hint)
        return node

    def at(self, spec: Map, key: str) -> Span:
        """Where `key` of `spec` is written (the mapping itself if it is not)."""
        node = spec.get(key)
        return node.span if node is not None else spec.span

    def at_conflict(self, spec: Map, key: str, *others: str) -> Span:
        """Where to report `key` of `spec` disagreeing with `others` of it: at `key`, unless a
        variant wrote one of the others over its base's `key` (then there, where the file
        checked can change it)."""
        span = self.at(spec, key)
        if span.file != self.file:
            for other in others:
                node = spec.get(other)
                if node is not None and node.span.file == self.file:
                    return node.span
        return span

    def too_large(self, large: TooLarge, when: str = "") -> None:
        self.error(
            "RE247",
            f"{when}this number ({_digits(large.value)}) passes the language's bound of ±{MAX_INTEGER}",
            large.expr.span,
            hint="integers are 64-bit, as in CEL",
        )

    def value_or(self, node: Node | None, kinds: tuple[type, ...], what: str, default: Any) -> Any:
        """The value of an optional scalar key; `default` only when the key is missing (or its
        value is wrong, which is reported): a given 0, false or "" is kept and checked."""
        value = self.scalar(node, kinds, what)
        return default if value is None else value

    def scalar(self, node: Node | None, kinds: tuple[type, ...], what: str) -> Any:
        if node is None:
            return None
        if (
            isinstance(node, Scalar)
            and isinstance(node.value, kinds)
            and not (isinstance(node.value, bool) and bool not in kinds)
        ):
            if type(node.value) is int and abs(node.value) > MAX_INTEGER:
                self.too_large(TooLarge(ir.Const(ir.INT, node.span, 0), node.value))
                return None
            return node.value
        names = {int: "a whole number", str: "a text", bool: "true or false"}
        expected = " or ".join(names.get(k, k.__name__) for k in kinds)
        self.error("RE205", f"{what} must be {expected}", node.span, hint=number_hint(node, kinds))
        return None

    def name_list(self, node: Node | None, what: str) -> list[tuple[str, Span]]:
        if node is None:
            return []
        if not isinstance(node, Seq):
            one = node.value if isinstance(node, Scalar) and type(node.value) in (str, int) else None
            hint = None if one is None else f"e.g. [{shortened(str(one), 40)}]"
            self.error("RE205", f"{what} must be a list", node.span, hint=hint)
            return []
        out = []
        for item in node.items:
            if isinstance(item, Scalar) and isinstance(item.value, (str, int)) and not isinstance(item.value, bool):
                out.append((str(item.value), item.span))
            else:
                self.error("RE205", f"each entry of {what} must be a name", item.span)
        return out

    def listed_once(
        self, entries: Iterable[tuple[Any, Span]], what: str, hint: str | None = None
    ) -> list[tuple[Any, Span]]:
        """The entries of a list whose entries must differ (a deck's suits or ranks, a phase's
        moves, an option's choices), each once. A repeated entry is RE274 at the repeat, naming
        where the first stands, as a repeated key is RE002; it is left out of what follows."""
        first: dict[tuple[type, Any], Span] = {}
        kept = []
        for value, span in entries:
            at = first.setdefault((type(value), value), span)
            if at is not span:
                shown = shown_name(value) if isinstance(value, str) else repr(value)
                self.error(
                    "RE274",
                    f"{what} list {shown} twice (first at line {at.line}, column {at.column})",
                    span,
                    hint=hint,
                )
                continue
            kept.append((value, span))
        return kept

    def mapping(self, key: str) -> Map | None:
        node = self.doc.get(key)
        if node is None:
            return None
        if not isinstance(node, Map):
            self.error("RE204", f"'{key}' must be a mapping", node.span)
            return None
        return node

    def check_name_syntax(self, name: str, span: Span, what: str) -> bool:
        """Whether `name`, declared by the file as `what`, is a name of the language (RE271)."""
        if NAME_PATTERN.fullmatch(name):
            return True
        self.error(
            "RE271",
            f"{shown_name(name)} cannot be {what}: a name is ASCII letters, digits and '_', not starting with a digit",
            span,
            hint="expressions and effects can only name what is spelt so, e.g. 'my_name2'",
        )
        return False

    def check_local_name(self, name: str, span: Span, what: str) -> None:
        """A loop, list-function or bind variable named like a built-in (`for: me in players`)
        would hide the built-in inside its body, as a parameter would (RE241)."""
        if name in RESERVED:
            self.fail("RE241", f"'{name}' is a built-in name and cannot name {what}", span, hint=f"e.g. '{name}_'")

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    # ---- provided by the expression mixin, used by the others ---------------------------

    def expr(self, e: syntax.Expr, scope: Scope) -> ir.Expr:
        raise NotImplementedError

    def expr_node(self, node: Node, scope: Scope) -> ir.Expr:
        raise NotImplementedError

    def optional_expr(self, node: Node | None, scope: Scope, type_: str) -> ir.Expr | None:
        raise NotImplementedError

    def effects(self, node: Node | None, scope: Scope) -> tuple[ir.Stmt, ...]:
        raise NotImplementedError

    def template(self, node: Node, scope: Scope) -> tuple[str | ir.Expr, ...]:
        raise NotImplementedError

    def coerce(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr:
        raise NotImplementedError

    # ---- provided by the teams mixin (check_teams.py) --------------------------------------

    def team_dimension(self, zone: str, position: int, span: Span) -> int:
        raise NotImplementedError

    def check_team_variable(self, name: str, span: Span) -> None:
        raise NotImplementedError

    def team_index(self, zone: str, position: int, index: ir.Expr, span: Span) -> ir.Expr:
        raise NotImplementedError

    def team_assignment(self, assign: ir.Assign) -> ir.Stmt:
        raise NotImplementedError

    def read_results(self, spec: Map, winners: ir.Expr | None, losers: ir.Expr | None) -> ir.Results | None:
        raise NotImplementedError


_YAML_RESOLVER = yaml.resolver.Resolver()


def number_hint(node: Node, kinds: tuple[type, ...]) -> str | None:
    """Why a plain `0100`, `1:40`, `0x64` or `1_000` is no whole number here: YAML 1.1 would
    read it as another number than the rule language does, so it is kept as its text."""
    if int not in kinds or not isinstance(node, Scalar) or not isinstance(node.value, str) or node.style:
        return None
    if _YAML_RESOLVER.resolve(yaml.ScalarNode, node.value, (True, False)) != "tag:yaml.org,2002:int":
        return None
    return (
        f"'{node.value}' is read as a text: YAML 1.1 takes it for a number in another base or form "
        "(0100 is 64 to it), the rule language writes numbers in decimal digits only (e.g. 100)"
    )


def _digits(value: int) -> str:
    """A number as shown in a message: whole if short, else its sign and digit count."""
    if abs(value) < 10**30:
        return str(value)
    digits = len(str(abs(value))) if abs(value) < 10**4000 else "thousands of"
    return f"{'-' if value < 0 else ''}a number of {digits} digits"
