"""Named procedures: effect lists with typed parameters, declared once under `procedures`
and called from effects as `name(arguments)`.

A call is spelt out where it stands (as definitions are): each argument is computed
once, when the call runs, and bound to the parameter's own local (`ir.Let`) before the
body. Procedures may call each other but not themselves, directly or through others
(RE250 names the cycle); spelt-out calls are bounded in depth and in size (RE252).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import attrs

from . import ir, syntax
from .check_base import RESERVED, CheckerBase, Failed, Scope
from .diagnostics import Span, did_you_mean
from .limits import MAX_PROCEDURE_DEPTH, MAX_PROCEDURE_STATEMENTS
from .parse import parse_statements
from .source import Map, Scalar

PARAMETER_TYPES = (ir.INT, ir.BOOL, ir.STR, ir.PLAYER, ir.SUIT, ir.RANK, ir.CARD)


@attrs.frozen
class Procedure:
    name: str
    span: Span
    params: tuple[tuple[str, str, Span], ...]  # name, type, where written
    body: tuple[syntax.Stmt, ...]


class ProcedureChecker(CheckerBase):
    # read_procedures sets these per file; until then a file has no procedures
    procedures: dict[str, Procedure] = {}
    unusable: set[str] = set()
    calling: list[str] = []
    spelt_out = 0

    if TYPE_CHECKING:  # from the section and expression mixins

        def entries(self, section: Map, kind: str, new_names: bool = False) -> Iterator[tuple[str, Span, Map]]: ...
        def check_not_keyword(self, name: str, span: Span, what: str) -> bool: ...
        def check_parameter_name(self, param: str, span: Span) -> bool: ...
        def checked_statements(self, statements: Iterable[syntax.Stmt], scope: Scope) -> list[ir.Stmt]: ...

    def read_procedures(self) -> None:
        self.procedures, self.calling, self.spelt_out = {}, [], 0
        self.unusable: set[str] = set()  # procedures with a reported fault: calls fail silently
        unusable: set[str] = set()
        section = self.mapping("procedures")
        if section is None:
            return
        for name, span, spec in self.entries(section, "procedure"):
            if not self.check_not_keyword(name, span, "a procedure's name"):
                continue
            params: list[tuple[str, str, Span]] = []
            broken: set[str] = set()
            declared = spec.get("params")
            if declared is not None and not isinstance(declared, Map):
                self.error("RE204", f"the parameters of procedure '{name}' must be a mapping", declared.span)
            elif declared is not None:
                for param, node in declared.items():
                    where = declared.key_spans[param]
                    type_ = node.value if isinstance(node, Scalar) else None
                    if type_ not in PARAMETER_TYPES:
                        self.error(
                            "RE256",
                            f"parameter '{param}' of procedure '{name}' needs a type: {', '.join(PARAMETER_TYPES)}",
                            node.span,
                            hint=did_you_mean(str(type_), PARAMETER_TYPES),
                        )
                        broken.add(name)  # reported here; its body and calls say nothing more
                    if self.check_parameter_name(param, where):
                        params.append((param, str(type_), where))
                    elif param in RESERVED:  # reported; its body would read the built-in otherwise
                        broken.add(name)
            body: list[syntax.Stmt] = []
            effects = spec.get("effects")
            if effects is not None:
                body, problems = parse_statements(effects)
                self.problems.extend(problems)
            self.procedures[name] = Procedure(name, span, tuple(params), tuple(body))
            unusable |= broken
        self.report_procedure_cycles()
        self.unusable |= unusable

    def check_procedure_bodies(self) -> None:
        """Every procedure's body once on its own, so that its errors show even if unused. The
        phases its `goto`s name are reached only through its calls, counted where they stand
        (a call in the top-level setup leads nowhere)."""
        before = len(self.goto_targets)
        for procedure in self.procedures.values():
            if procedure.name in self.unusable:
                continue
            scope = Scope()
            for param, type_, where in procedure.params:
                local = ir.Local(type_, where, param, self.new_slot())
                scope = scope.bind(param, local, f"a parameter of procedure '{procedure.name}'")
            self.calling.append(procedure.name)
            try:
                self.checked_statements(procedure.body, scope)
            finally:
                self.calling.pop()
        del self.goto_targets[before:]

    def check_setup_flow(self, setup: tuple[ir.Stmt, ...]) -> None:
        """An effect of the top-level setup that steers the flow of a round takes no effect there:
        the setup runs before the first round, which starts afresh (RE275). `end game`, `turn to`
        and `reveal` do take effect; effects of a procedure the setup calls are reported at
        the call."""
        for statement in ir.nested(setup):
            if id(statement) not in self.flow_reported and flow_in_setup(statement) is not None:
                self.setup_flow_error(statement, statement.span, None)

    def setup_flow_error(self, statement: ir.Stmt, where: Span, procedure: str | None) -> None:
        why = flow_in_setup(statement)
        assert why is not None
        effect, reason, hint = why
        at = statement.span
        line = f"line {at.line}" if at.file == where.file else f"{at.file}:{at.line}"
        said = f"{procedure} says '{effect}' ({line}), which" if procedure else f"'{effect}'"
        self.error("RE275", f"{said} cannot take effect in the top-level setup: {reason}", where, hint=hint)

    def report_unused_procedures(self) -> None:
        for procedure in self.procedures.values():
            if procedure.name not in self.used and procedure.name not in self.unusable:
                self.warn("RE240", f"procedure '{procedure.name}' is defined but never used", procedure.span)

    def report_procedure_cycles(self) -> None:
        """A procedure that calls itself, directly or through others, is refused (RE250)."""
        state: dict[str, int] = {}  # 1: being visited, 2: done
        stack: list[str] = []

        def visit(name: str) -> None:
            state[name] = 1
            stack.append(name)
            for call in _calls(self.procedures[name].body):
                if call.name not in self.procedures:
                    continue
                if state.get(call.name) == 1:
                    cycle = stack[stack.index(call.name) :]
                    self.unusable.update(cycle)
                    self.error(
                        "RE250",
                        f"procedure '{call.name}' calls itself: {' -> '.join([*cycle, call.name])}",
                        call.name_span,
                        hint="procedures cannot be recursive; use a repeat-block or a for-block for a bounded loop",
                    )
                elif call.name not in state:
                    visit(call.name)
            stack.pop()
            state[name] = 2

        for name in self.procedures:
            if name not in state:
                visit(name)

    def call_procedure(self, s: syntax.CallProcedure, scope: Scope) -> list[ir.Stmt]:
        procedure = self.procedures.get(s.name)
        if procedure is None:
            self.fail(
                "RE251",
                f"unknown procedure '{s.name}'",
                s.name_span,
                did_you_mean(s.name, self.procedures) or "declare it under 'procedures'",
            )
        self.used.add(s.name)
        if s.name in self.unusable:
            raise Failed()  # reported once, at the cycle
        if len(s.args) != len(procedure.params):
            self.fail(
                "RE311", f"procedure '{s.name}' takes {len(procedure.params)} argument(s), given {len(s.args)}", s.span
            )
        args = [self.coerce(self.expr(a, scope), type_, a.span) for a, (_, type_, _w) in zip(s.args, procedure.params)]
        if len(self.calling) >= MAX_PROCEDURE_DEPTH:
            chain = " -> ".join([*self.calling, s.name])
            self.fail(
                "RE252",
                f"procedures are called inside each other more than {MAX_PROCEDURE_DEPTH} deep",
                s.span,
                hint=f"flatten the chain {chain}",
            )
        self.spelt_out += _size(procedure.body)
        if self.spelt_out > MAX_PROCEDURE_STATEMENTS:
            if self.spelt_out - _size(procedure.body) > MAX_PROCEDURE_STATEMENTS:
                raise Failed()  # reported once: every later call fails the same way
            self.fail(
                "RE252",
                f"procedure calls spelt out pass {MAX_PROCEDURE_STATEMENTS} statements in this file",
                s.span,
                hint="a procedure that calls another several times multiplies at each level",
            )
        # Lexical scope, as a definition's: the body sees its parameters and the file's names.
        inner = Scope({}, scope.context)
        slots = []
        for (param, type_, _where), arg in zip(procedure.params, args):
            slot = self.new_slot()
            slots.append((slot, arg))
            inner = inner.bind(param, ir.Local(type_, arg.span, param, slot), f"a parameter of procedure '{s.name}'")
        self.calling.append(s.name)
        try:
            body: list[ir.Stmt] = self.checked_statements(procedure.body, inner)
        finally:
            self.calling.pop()
        if self.in_setup and not self.calling:  # a call the top-level setup makes: reported at the call
            for statement in ir.nested(body):
                if flow_in_setup(statement) is not None:
                    self.setup_flow_error(statement, s.span, f"procedure '{s.name}'")
                    self.flow_reported[id(statement)] = statement  # kept, so that no other takes its id
        # each argument computed once, in order, before the body runs
        return [*(ir.Let(s.span, slot, arg) for slot, arg in slots), *body]


def _calls(statements: tuple[syntax.Stmt, ...]) -> Iterator[syntax.CallProcedure]:
    for s in statements:
        if isinstance(s, syntax.CallProcedure):
            yield s
        for inner in (getattr(s, "then", ()), getattr(s, "otherwise", ()), getattr(s, "body", ())):
            yield from _calls(inner)


def _size(statements: tuple[syntax.Stmt, ...]) -> int:
    return sum(
        1 + _size(getattr(s, "then", ())) + _size(getattr(s, "otherwise", ())) + _size(getattr(s, "body", ()))
        for s in statements
    )


def flow_in_setup(statement: ir.Stmt) -> tuple[str, str, str] | None:
    """(the effect as written, why it takes no effect in the top-level setup, what to do), for
    an effect that steers the flow of a round; None for any other effect."""
    if isinstance(statement, ir.Goto):
        return (
            f"goto {statement.phase}",
            "the first round starts in the first phase",
            f"to start in another phase, say 'goto {statement.phase}' in round.setup"
            " (inside 'if: round == 1' for the first round only)",
        )
    if isinstance(statement, ir.End) and statement.what == "phase":
        return "end phase", "no phase has started yet", "remove it; to start in another phase, use goto in round.setup"
    if isinstance(statement, ir.End) and statement.what == "round":
        return (
            "end round",
            "no round has started yet, and the first round is played",
            "to end a round at once, say 'end round' in round.setup; to end the match, 'end game'",
        )
    if isinstance(statement, ir.Out):
        return (
            "out",
            "every round starts with every player active",
            "put it in round.setup (inside 'if: round == 1' for the first round only)",
        )
    if isinstance(statement, ir.Reverse):
        return (
            "reverse",
            "every round starts in the direction of play 1",
            "put it in round.setup (inside 'if: round == 1' for the first round only)",
        )
    return None
