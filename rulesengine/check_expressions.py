"""Typing and expanding expressions and effects: every name resolved, every definition
spelt out (within the expansion limits), every value given its type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NoReturn

import attrs

from . import ir, syntax
from .check_base import BUILTINS, CheckerBase, Failed, Scope
from .check_fold import TooLarge, fold, size_and_depth
from .diagnostics import Span, did_you_mean
from .limits import (
    MAX_DEFINITION_DEPTH,
    MAX_EXPANDED_DEPTH,
    MAX_EXPANDED_SIZE,
    MAX_EXPANSIONS,
    MAX_RANGE,
    MAX_SPELT_OUT_BLOCK_DEPTH,
    MAX_SPELT_OUT_NODES,
)
from .parse import ParseFailed, parse_expression, parse_statements
from .source import Node, Scalar

# name: (argument types, result type); "any" matches anything, "cards" a card list or zone
FUNCTIONS: dict[str, tuple[tuple[tuple[str, ...], ...], str | Callable[[list[str]], str]]] = {
    "size": (((ir.ZONE,), ("list",)), ir.INT),
    "empty": (((ir.ZONE,), ("list",)), ir.BOOL),
    "top": (
        ((ir.ZONE,), (ir.ZONE, ir.INT), (ir.list_of(ir.CARD),), (ir.list_of(ir.CARD), ir.INT)),
        lambda a: ir.CARD if len(a) == 1 else ir.list_of(ir.CARD),
    ),
    "bottom": (
        ((ir.ZONE,), (ir.ZONE, ir.INT), (ir.list_of(ir.CARD),), (ir.list_of(ir.CARD), ir.INT)),
        lambda a: ir.CARD if len(a) == 1 else ir.list_of(ir.CARD),
    ),
    "holder": (((ir.CARD,),), ir.PLAYER),
    "seat": (((ir.INT,),), ir.PLAYER),
    "left": (((ir.PLAYER,),), ir.PLAYER),
    "right": (((ir.PLAYER,),), ir.PLAYER),
    "next": (((ir.PLAYER,),), ir.PLAYER),
    "opponent": (((ir.PLAYER,),), ir.PLAYER),
    "others": (((ir.PLAYER,),), ir.list_of(ir.PLAYER)),
    "is_active": (((ir.PLAYER,),), ir.BOOL),
    "can_move": (((ir.PLAYER,),), ir.BOOL),
    "min": (((ir.INT, ir.INT),), ir.INT),
    "max": (((ir.INT, ir.INT),), ir.INT),
    "abs": (((ir.INT,),), ir.INT),
    "range": (((ir.INT,), (ir.INT, ir.INT)), ir.list_of(ir.INT)),
    "len": (((ir.STR,),), ir.INT),
    "prefix": (((ir.STR, ir.INT),), ir.STR),
    "letter": (((ir.STR, ir.INT),), ir.STR),
    "text": (((ir.INT,), (ir.PLAYER,), (ir.CARD,), (ir.SUIT,), (ir.RANK,), (ir.BOOL,), (ir.STR,)), ir.STR),
    "card": (((ir.RANK, ir.SUIT),), ir.CARD),
    "team": (((ir.PLAYER,),), ir.INT),
    "partner": (((ir.PLAYER,),), ir.PLAYER),
    "teammates": (((ir.PLAYER,),), ir.list_of(ir.PLAYER)),
}
MACROS = {
    "any": ir.BOOL,
    "all": ir.BOOL,
    "count": ir.INT,
    "sum": ir.INT,
    "max": ir.INT,
    "min": ir.INT,
    "argmax": "element",
    "argmin": "element",
    "filter": "list",
}


class _Mismatch(Exception):
    pass


class ExpressionChecker(CheckerBase):
    """Types expressions and effects against the file's names."""

    if TYPE_CHECKING:  # the chance and procedure mixins (check_chance.py, check_procedures.py)

        def random_statement(self, s: syntax.Move | syntax.Assign, scope: Scope) -> list[ir.Stmt]: ...
        def repeat(self, s: syntax.Repeat, scope: Scope) -> ir.Stmt: ...
        def call_procedure(self, s: syntax.CallProcedure, scope: Scope) -> list[ir.Stmt]: ...

    def effects(self, node: Node | None, scope: Scope) -> tuple[ir.Stmt, ...]:
        if node is None:
            return ()
        statements, problems = parse_statements(node)
        self.problems.extend(problems)
        checked = tuple(self.checked_statements(statements, scope))
        depth = block_depth(checked)
        if depth > MAX_SPELT_OUT_BLOCK_DEPTH:  # each level within the limit, procedure calls add theirs
            self.error(
                "RE252",
                f"blocks (if, for, repeat) nest {depth} deep here once procedure calls are spelt out, "
                f"more than {MAX_SPELT_OUT_BLOCK_DEPTH}",
                node.span,
                hint="call procedures from fewer nested blocks, or nest fewer blocks inside them",
            )
        return checked

    def checked_statements(self, statements: Iterable[syntax.Stmt], scope: Scope) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for statement in statements:
            try:
                checked = self.statement(statement, scope)
            except Failed:
                continue
            # a random choice or a procedure call stands for several statements
            out.extend(checked) if isinstance(checked, list) else out.append(checked)
        self.statements_seen.extend(out)
        return out

    def statement(self, s: syntax.Stmt, scope: Scope) -> ir.Stmt | list[ir.Stmt]:
        if isinstance(s, syntax.Move) and isinstance(s.cards, syntax.RandomPick):
            return self.random_statement(s, scope)
        if isinstance(s, syntax.Assign) and isinstance(s.value, syntax.RandomPick):
            return self.random_statement(s, scope)
        if isinstance(s, syntax.Repeat):
            return self.repeat(s, scope)
        if isinstance(s, syntax.CallProcedure):
            return self.call_procedure(s, scope)
        if isinstance(s, syntax.Move):
            cards = self.expr(s.cards, scope)
            if cards.type not in (ir.CARD, ir.ZONE, ir.list_of(ir.CARD)):
                self.fail(
                    "RE302", f"'move' takes a card, cards or a zone, not {ir.type_name(cards.type)}", s.cards.span
                )
            destination = self.expect(self.expr(s.destination, scope), ir.ZONE, s.destination.span)
            return ir.Move(s.span, cards, destination, s.at_bottom)
        if isinstance(s, syntax.Deal):
            zone = self.zones.get(s.family)
            if zone is None:
                self.fail("RE303", f"unknown zone '{s.family}'", s.family_span, did_you_mean(s.family, self.zones))
            if zone.dimensions != ("player",):
                self.fail("RE304", f"'deal' deals to a zone with one per player; '{s.family}' is not", s.family_span)
            self.used.add(s.family)
            count = self.expect(self.expr(s.count, scope), ir.INT, s.count.span) if s.count is not None else None
            source = self.expect(self.expr(s.source, scope), ir.ZONE, s.source.span)
            start = self.expect(self.expr(s.start, scope), ir.PLAYER, s.start.span)
            return ir.Deal(s.span, count, source, s.family, start)
        if isinstance(s, syntax.Shuffle):
            return ir.Shuffle(s.span, self.expect(self.expr(s.zone, scope), ir.ZONE, s.zone.span))
        if isinstance(s, syntax.Reveal):
            cards = self.expr(s.cards, scope)
            if cards.type not in (ir.CARD, ir.ZONE, ir.list_of(ir.CARD)):
                self.fail("RE302", "'reveal' shows a card, cards or a zone", s.cards.span)
            return ir.Reveal(s.span, cards, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, syntax.Assign):
            return self.assignment(s, scope)
        if isinstance(s, syntax.TurnTo):
            return ir.TurnTo(s.span, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, syntax.Reverse):
            return ir.Reverse(s.span)
        if isinstance(s, syntax.Out):
            return ir.Out(s.span, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, syntax.End):
            return ir.End(s.span, s.what)
        if isinstance(s, syntax.Goto):
            if s.phase not in self.phase_names:
                self.fail("RE223", f"unknown phase '{s.phase}'", s.span, did_you_mean(s.phase, self.phase_names))
            self.goto_targets.append(s.phase)
            return ir.Goto(s.span, s.phase)
        if isinstance(s, syntax.Log):
            return ir.Log(s.span, tuple(p if isinstance(p, str) else self.expr(p, scope) for p in s.parts))
        if isinstance(s, syntax.If):
            condition = self.expect(self.expr(s.condition, scope), ir.BOOL, s.condition.span)
            return ir.If(
                s.span,
                condition,
                tuple(self.checked_statements(s.then, scope)),
                tuple(self.checked_statements(s.otherwise, scope)),
            )
        if isinstance(s, syntax.For):
            collection = self.expr(s.collection, scope)
            element = ir.element_of(collection.type)
            if element is None:
                self.fail(
                    "RE231", f"'for' goes over a list or zone, not {ir.type_name(collection.type)}", s.collection.span
                )
            self.check_local_name(s.variable, s.variable_span, "the variable of a 'for'")
            slot = self.new_slot()
            inner = scope.bind(
                s.variable, ir.Local(element, s.variable_span, s.variable, slot), "the variable of a 'for' loop"
            )
            return ir.For(s.span, slot, collection, tuple(self.checked_statements(s.body, inner)))
        raise AssertionError(type(s))

    def assignment(self, s: syntax.Assign, scope: Scope) -> ir.Stmt:
        if s.name in scope.names:  # a local hides any variable of that name here
            hidden = f"; it hides the variable '{s.name}'" if s.name in self.variables else ""
            self.fail(
                "RE323",
                f"'{s.name}' is {scope.kinds.get(s.name, 'a local value')} here and cannot be assigned{hidden}",
                s.name_span,
                hint="only variables declared under 'variables' are assigned; rename the local, "
                "or assign to another variable",
            )
        variable = self.variables.get(s.name)
        if variable is None:
            hint = did_you_mean(s.name, self.variables)
            if s.name in self.options:
                hint = f"'{s.name}' is an option; options cannot change during a game"
            self.fail("RE305", f"unknown variable '{s.name}'", s.name_span, hint)
        self.used.add(s.name)
        indices = tuple(self.expr(i, scope) for i in s.indices)
        if variable.per_player:
            if len(indices) != 1:
                self.fail("RE306", f"'{s.name}' has one value per player: write {s.name}[player]", s.name_span)
            self.expect(indices[0], ir.PLAYER, s.indices[0].span)
        elif indices:
            self.fail("RE306", f"'{s.name}' is a single value and takes no index", s.name_span)
        value = self.coerce(self.expr(s.value, scope), variable.type, s.value.span)
        if s.op != "=" and variable.type != ir.INT:
            self.fail("RE307", f"'{s.op}' needs a number variable; '{s.name}' is {variable.type}", s.name_span)
        assign = ir.Assign(s.span, s.name, indices, s.op, value)
        return self.team_assignment(assign) if variable.per_team else assign

    def optional_expr(self, node: Node | None, scope: Scope, type_: str) -> ir.Expr | None:
        if node is None:
            return None
        try:
            return self.coerce(self.expr_node(node, scope), type_, node.span)
        except Failed:
            return None

    def expr_node(self, node: Node, scope: Scope) -> ir.Expr:
        try:
            tree = parse_expression(node)
        except ParseFailed as failure:
            self.problems.append(failure.diagnostic)
            raise Failed() from None
        return self.expr(tree, scope)

    def template(self, node: Node, scope: Scope) -> tuple[str | ir.Expr, ...]:
        if not isinstance(node, Scalar) or not isinstance(node.value, str):
            self.error("RE205", "a label must be a text", node.span)
            return ()
        from .parse import _ToAst

        try:
            parts = _ToAst(node).template(node.value, 0)
        except ParseFailed as failure:
            self.problems.append(failure.diagnostic)
            return ()
        out: list[str | ir.Expr] = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                try:
                    out.append(self.expr(part, scope))
                except Failed:
                    pass
        return tuple(out)

    def expect(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr:
        return self.coerce(expr, type_, span)

    def coerce(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr:
        """`expr` as `type_`: literals name ranks and suits; zones serve as card lists."""
        if expr.type == type_:
            return expr
        if type_ == ir.list_of(ir.CARD) and expr.type == ir.ZONE:
            return expr
        if type_ in (ir.RANK, ir.SUIT) and isinstance(expr, ir.Const) and expr.type in (ir.INT, ir.STR):
            places = self.rank_index if type_ == ir.RANK else self.suit_index
            text = str(expr.value)
            if text in places:
                return ir.Const(type_, expr.span, places[text])
            shown = ", ".join(list(places)[:20]) + (", ..." if len(places) > 20 else "")
            self.fail(
                "RE308", f"there is no {type_} '{text}'", expr.span, did_you_mean(text, places) or f"{type_}s: {shown}"
            )
        if type_.startswith("list:") and isinstance(expr, ir.ListExpr) and not expr.items:
            return ir.ListExpr(type_, expr.span, ())
        self.fail("RE301", f"expected {ir.type_name(type_)}, found {ir.type_name(expr.type)}", span)

    def expr(self, e: syntax.Expr, scope: Scope) -> ir.Expr:
        span = e.span
        self.nodes_spelt_out += 1
        if self.nodes_spelt_out > MAX_SPELT_OUT_NODES:
            self.spelt_out_too_large(span)
        if isinstance(e, syntax.IntLit):
            return self.folds_within_bound(ir.Const(ir.INT, span, e.value))
        if isinstance(e, syntax.StrLit):
            return ir.Const(ir.STR, span, e.value)
        if isinstance(e, syntax.BoolLit):
            return ir.Const(ir.BOOL, span, e.value)
        if isinstance(e, syntax.Name):
            return self.name(e, scope)
        if isinstance(e, syntax.ListLit):
            items = [self.expr(i, scope) for i in e.items]
            if not items:
                return ir.ListExpr(ir.list_of(ir.INT), span, ())
            first = items[0].type
            if first not in ir.SCALARS:
                self.fail("RE301", "a list holds numbers, texts, cards, players, suits or ranks", span)
            items = [self.coerce(i, first, i.span) for i in items]
            return ir.ListExpr(ir.list_of(first), span, tuple(items))
        if isinstance(e, syntax.Attribute):
            return self.attribute(e, scope)
        if isinstance(e, syntax.Index):
            return self.index(e, scope)
        if isinstance(e, syntax.Call):
            return self.call(e, scope)
        if isinstance(e, syntax.Method):
            return self.macro(e, scope)
        if isinstance(e, syntax.Unary):
            operand = self.expr(e.operand, scope)
            if e.op == "-":
                return ir.Unary(ir.INT, span, "-", self.expect(operand, ir.INT, e.operand.span))
            return ir.Unary(ir.BOOL, span, "not", self.expect(operand, ir.BOOL, e.operand.span))
        if isinstance(e, syntax.Binary):
            return self.binary(e, scope)
        if isinstance(e, syntax.RandomPick):
            self.fail(
                "RE255",
                "'random' is a chance event, not a value: it stands only after '=' or after 'move'",
                e.span,
                hint="write 'x = random xs' or 'move random xs to z', then use x",
            )
        if isinstance(e, syntax.Conditional):
            condition = self.expect(self.expr(e.condition, scope), ir.BOOL, e.condition.span)
            then = self.expr(e.then, scope)
            otherwise = self.expr(e.otherwise, scope)
            if then.type != otherwise.type:
                try:
                    otherwise = self.coerce(otherwise, then.type, e.otherwise.span)
                except Failed:
                    then = self.coerce(then, otherwise.type, e.then.span)
            return ir.Conditional(then.type, span, condition, then, otherwise)
        raise AssertionError(type(e))

    def name(self, e: syntax.Name, scope: Scope) -> ir.Expr:
        ident = e.id
        if ident in scope.names:
            bound = scope.names[ident]
            return attrs_evolve_span(bound, e.span)
        if ident == "me":
            if scope.context in ("default", "card"):
                self.fail("RE309", "'me' means nothing here", e.span)
            return ir.Local(ir.PLAYER, e.span, "me", 0)
        if ident in self.definitions:
            return self.expand(ident, (), e.span, scope)
        if ident in BUILTINS:
            if scope.context in ("default", "card"):
                self.fail("RE309", f"'{ident}' is not known before the game starts", e.span)
            return ir.Builtin(BUILTINS[ident], e.span, ident)
        if scope.context in ("default", "card") and (ident in self.variables or ident in self.zones):
            self.used.add(ident)
            self.fail(
                "RE309",
                f"'{ident}' has no value before the game starts",
                e.span,
                "defaults and card attributes may use numbers, texts and options",
            )
        if ident in self.variables:
            self.used.add(ident)
            variable = self.variables[ident]
            if variable.per_player:
                self.fail("RE306", f"'{ident}' has one value per player: write {ident}[player]", e.span)
            return ir.VarRef(variable.type, e.span, ident, ())
        if ident in self.zones:
            self.used.add(ident)
            if self.zones[ident].dimensions:
                dims = ", ".join(str(d) for d in self.zones[ident].dimensions)
                self.fail("RE306", f"zone '{ident}' needs an index ({dims})", e.span, f"write {ident}[...]")
            return ir.ZoneRef(ir.ZONE, e.span, ident, ())
        if ident in self.options:
            self.used.add(ident)
            return ir.OptionRef(self.options[ident].type, e.span, ident)
        if ident in self.unusable_options:
            raise Failed()  # the option's fault is reported where it is declared
        candidates = [*scope.names, *self.definitions, *BUILTINS, *self.variables, *self.zones, *self.options, "me"]
        hint = did_you_mean(ident, candidates)
        if hint is None and self.expanding:
            hint = f"a definition sees only its parameters and the file's names: pass '{ident}' as an argument"
        self.fail("RE310", f"unknown name '{ident}'", e.span, hint)

    def expand(self, name: str, args: tuple[ir.Expr, ...], span: Span, scope: Scope) -> ir.Expr:
        params, node = self.definitions[name]
        self.used.add(name)
        if len(params) != len(args):
            self.fail("RE311", f"'{name}' takes {len(params)} argument(s), given {len(args)}", span)
        if name in self.expanding:
            self.fail("RE312", f"definition '{name}' refers to itself", span, "definitions cannot be recursive")
        self.check_expansion_limits(name, span)
        # Lexical scope: a definition sees its parameters and the file's names, not the
        # local names of the place it is used at (those must be passed as arguments).
        inner = Scope({}, scope.context)
        for param, arg in zip(params, args):
            inner.names[param] = arg
        self.expanding.append(name)
        try:
            expanded = self.expr(self.definition_body(name, node), inner)
        finally:
            self.expanding.pop()
        self.check_expansion_size(name, expanded, span)
        return expanded

    def definition_body(self, name: str, node: Node) -> syntax.Expr:
        """A definition's syntax tree, parsed once however often it is used."""
        if name not in self.parsed_definitions:
            try:
                self.parsed_definitions[name] = parse_expression(node)
            except ParseFailed as failure:
                self.problems.append(failure.diagnostic)
                raise Failed() from None
        return self.parsed_definitions[name]

    def check_expansion_limits(self, name: str, span: Span) -> None:
        """Count one more use of a definition; refuse too many in all, or too deep inside each other."""
        self.expansions += 1
        if self.expansions > MAX_EXPANSIONS:
            if self.expansions == MAX_EXPANSIONS + 1:  # once: every later use fails the same way
                self.error(
                    "RE319",
                    f"definitions are spelt out more than {MAX_EXPANSIONS} times in this file",
                    span,
                    hint="a definition that uses another several times multiplies at each level",
                )
            raise Failed()
        if len(self.expanding) >= MAX_DEFINITION_DEPTH:
            chain = " -> ".join([*self.expanding, name])
            self.fail(
                "RE318",
                f"definitions are used inside each other more than {MAX_DEFINITION_DEPTH} deep",
                span,
                hint=f"flatten the chain {chain}",
            )

    def spelt_out_too_large(self, span: Span) -> NoReturn:
        """The whole file's expressions, with definitions, procedure calls and YAML aliases
        written out, are past the bound: every one costs checking and compiling time."""
        if self.nodes_spelt_out == MAX_SPELT_OUT_NODES + 1:  # once: every later node fails the same way
            self.error(
                "RE322",
                f"the rules spelt out pass {MAX_SPELT_OUT_NODES:,} expression nodes "
                "(definitions, procedure calls and YAML aliases written out at each use)",
                span,
                hint="a whole card game needs a few hundred; a definition or procedure used in many places multiplies",
            )
        raise Failed()

    def check_expansion_size(self, name: str, expanded: ir.Expr, span: Span) -> None:
        """A definition used many times inside others can grow exponentially: refuse that."""
        size, depth = size_and_depth(expanded, {})
        if size > MAX_EXPANDED_SIZE or depth > MAX_EXPANDED_DEPTH:
            self.fail(
                "RE319",
                f"'{name}' spelt out is too large ({size} nodes, {depth} levels deep; "
                f"at most {MAX_EXPANDED_SIZE} and {MAX_EXPANDED_DEPTH})",
                span,
                hint="a definition that uses another several times doubles in size at each level",
            )

    def attribute(self, e: syntax.Attribute, scope: Scope) -> ir.Expr:
        obj = self.expr(e.obj, scope)
        if obj.type == ir.CARD:
            builtin = {"suit": ir.SUIT, "rank": ir.RANK, "order": ir.INT, "id": ir.INT}
            if e.name in builtin:
                return ir.CardAttr(builtin[e.name], e.span, obj, e.name)
            if e.name in self.card_attrs:
                return ir.CardAttr(self.card_attrs[e.name].type, e.span, obj, e.name)
            self.fail(
                "RE313",
                f"cards have no attribute '{e.name}'",
                e.name_span,
                did_you_mean(e.name, [*builtin, *self.card_attrs]),
            )
        if obj.type == ir.SUIT:
            suit_attrs = {k for s in self.suits.values() for k in s.attributes}
            if e.name in suit_attrs:
                return ir.SuitAttr(self.card_attrs[e.name].type, e.span, obj, e.name)
            self.fail("RE313", f"suits have no attribute '{e.name}'", e.name_span, did_you_mean(e.name, suit_attrs))
        self.fail("RE313", f"{ir.type_name(obj.type)} has no attributes", e.name_span)

    def index(self, e: syntax.Index, scope: Scope) -> ir.Expr:
        if not isinstance(e.obj, syntax.Name) or e.obj.id in scope.names:
            self.fail("RE314", "only zones and per-player variables can be indexed", e.span)
        ident = e.obj.id
        indices = [self.expr(i, scope) for i in e.indices]
        if ident in self.variables and self.variables[ident].per_player:
            self.used.add(ident)
            if len(indices) != 1:
                self.fail("RE311", f"'{ident}' takes one index (a player)", e.span)
            return ir.VarRef(
                self.variables[ident].type, e.span, ident, (self.expect(indices[0], ir.PLAYER, e.indices[0].span),)
            )
        if ident in self.zones:
            self.used.add(ident)
            dims = self.zones[ident].dimensions
            if len(indices) != len(dims):
                self.fail("RE311", f"zone '{ident}' takes {len(dims)} index(es), given {len(indices)}", e.span)
            checked = []
            for position, (dim, index, node) in enumerate(zip(dims, indices, e.indices)):
                index = self.team_index(ident, position, index, node.span)
                expected = ir.PLAYER if dim == "player" else ir.SUIT if dim == "suit" else ir.INT
                checked.append(self.expect(index, expected, node.span))
            return ir.ZoneRef(ir.ZONE, e.span, ident, tuple(checked))
        known = [*self.zones, *(v for v in self.variables if self.variables[v].per_player)]
        self.fail("RE310", f"'{ident}' is not a zone or per-player variable", e.obj.span, did_you_mean(ident, known))

    def call(self, e: syntax.Call, scope: Scope) -> ir.Expr:
        if e.name in self.definitions:
            args = tuple(self.expr(a, scope) for a in e.args)
            return self.expand(e.name, args, e.span, scope)
        if e.name not in FUNCTIONS:
            self.fail(
                "RE315",
                f"unknown function '{e.name}'",
                e.name_span,
                did_you_mean(e.name, [*FUNCTIONS, *self.definitions]),
            )
        signatures, result = FUNCTIONS[e.name]
        if scope.context in ("default", "card") and e.name in (
            "can_move",
            "next",
            "is_active",
            "holder",
            "size",
            "empty",
            "top",
            "bottom",
        ):
            self.fail("RE309", f"'{e.name}' is not known before the game starts", e.span)
        values = [self.expr(a, scope) for a in e.args]
        for signature in signatures:
            if len(signature) != len(values):
                continue
            try:
                converted = [self.fit(a, t) for a, t in zip(values, signature)]
            except _Mismatch:
                continue
            type_ = result(list(signature)) if callable(result) else result
            if e.name == "card":
                return self.card_literal(converted, e)
            if e.name == "range":
                return self.range_within_limit(ir.Call(type_, e.span, e.name, tuple(converted)))
            return ir.Call(type_, e.span, e.name, tuple(converted))
        shown = " or ".join(
            "(" + ", ".join(ir.type_name(t) if t != "list" else "list" for t in s) + ")" for s in signatures
        )
        given = "(" + ", ".join(ir.type_name(a.type) for a in values) + ")"
        code = "RE311" if all(len(s) != len(values) for s in signatures) else "RE301"
        self.fail(code, f"'{e.name}' takes {shown}, given {given}", e.span)

    def fit(self, arg: ir.Expr, type_: str) -> ir.Expr:
        if type_ == "list":
            if ir.element_of(arg.type) is None:
                raise _Mismatch()
            return arg
        if arg.type == type_ or (type_ == ir.ZONE and False):
            return arg
        if type_ in (ir.RANK, ir.SUIT) and isinstance(arg, ir.Const) and arg.type in (ir.INT, ir.STR):
            return self.coerce(arg, type_, arg.span)
        raise _Mismatch()

    def card_literal(self, args: list[ir.Expr], e: syntax.Call) -> ir.Expr:
        literals = [a.value for a in args if isinstance(a, ir.Const) and isinstance(a.value, int)]
        if len(literals) != 2:
            self.fail("RE316", "card(rank, suit) takes a literal rank and suit", e.span)
        rank, suit = self.ranks[literals[0]], list(self.suits)[literals[1]]
        for deck_index, deck in enumerate(self.decks):
            if rank in deck.ranks and suit in deck.suits:
                return ir.Const(ir.CARD, e.span, ("card", deck_index, suit, rank))
        self.fail("RE316", f"no deck holds the card {rank} of {suit}", e.span)

    def macro(self, e: syntax.Method, scope: Scope) -> ir.Expr:
        collection = self.expr(e.obj, scope)
        if e.name == "bind":
            return self.bind(e, collection, scope)
        element = ir.element_of(collection.type)
        if element is None:
            self.fail(
                "RE317", f"'.{e.name}(...)' needs a list or zone, not {ir.type_name(collection.type)}", e.obj.span
            )
        if e.name not in MACROS:
            hint = did_you_mean(e.name, [*MACROS, "bind"])
            self.fail("RE315", f"unknown list function '{e.name}'", e.name_span, hint)
        if len(e.args) != 2 or not isinstance(e.args[0], syntax.Name):
            self.fail("RE311", f"'.{e.name}' takes a variable name and an expression: .{e.name}(x, ...)", e.span)
        variable = e.args[0].id
        self.check_local_name(variable, e.args[0].span, f"the variable of '.{e.name}'")
        slot = self.new_slot()
        inner = scope.bind(variable, ir.Local(element, e.args[0].span, variable, slot), f"the variable of '.{e.name}'")
        body = self.expr(e.args[1], inner)
        kind = e.name
        if kind in ("any", "all", "count", "filter"):
            body = self.expect(body, ir.BOOL, e.args[1].span)
        elif kind in ("sum", "max", "min"):
            body = self.expect(body, ir.INT, e.args[1].span)
        elif body.type not in (ir.INT, ir.RANK):
            self.fail("RE301", f"'.{kind}' compares numbers or ranks, not {ir.type_name(body.type)}", e.args[1].span)
        result = MACROS[kind]
        if result == "element":
            result = element
        elif result == "list":
            result = ir.list_of(element)
        return ir.Macro(result, e.span, kind, collection, slot, body)

    def bind(self, e: syntax.Method, value: ir.Expr, scope: Scope) -> ir.Expr:
        """`value.bind(x, body)`: `body` with `x` standing for `value`, computed once."""
        if len(e.args) != 2 or not isinstance(e.args[0], syntax.Name):
            self.fail("RE311", "'.bind' takes a variable name and an expression: .bind(x, ...)", e.span)
        variable = e.args[0].id
        self.check_local_name(variable, e.args[0].span, "the variable of '.bind'")
        slot = self.new_slot()
        local = ir.Local(value.type, e.args[0].span, variable, slot)
        body = self.expr(e.args[1], scope.bind(variable, local, "the variable of '.bind'"))
        return ir.Macro(body.type, e.span, "bind", value, slot, body)

    def union(self, e: syntax.Binary, left: ir.Expr, right: ir.Expr) -> ir.Expr:
        """`xs + ys`: the elements of both lists or zones, those of `xs` first (e.g. the
        candidates `hand[me] + table`)."""
        type_ = _union_type(left, right)
        if type_ is None:
            self.fail(
                "RE301",
                f"'+' joins two lists of one type, not {ir.type_name(left.type)} and {ir.type_name(right.type)}",
                e.span,
            )
        return ir.Call(type_, e.span, "concat", (left, right))

    def folds_within_bound(self, expr: ir.Expr) -> ir.Expr:
        """`expr`, unless constants alone, or with the options at their defaults (as the
        compiler folds them for the default setting), make it an integer beyond
        limits.MAX_INTEGER."""
        defaults = {name: option.default for name, option in self.options.items()}
        settings = [({}, self.fold_memo[0]), (defaults, self.fold_memo[1])]
        for options, memo in settings if defaults else settings[:1]:
            try:
                fold(expr, options, None, memo)
            except TooLarge as large:
                self.too_large(large, "with the options at their defaults, " if options else "")
                raise Failed() from None
        return expr

    def range_within_limit(self, expr: ir.Call) -> ir.Expr:
        """`range(...)`, unless constants alone, or with the options at their defaults, make it
        more than limits.MAX_RANGE numbers (RE324); other values are checked while playing."""
        defaults = {name: option.default for name, option in self.options.items()}
        settings = [({}, self.fold_memo[0]), (defaults, self.fold_memo[1])]
        for options, memo in settings if defaults else settings[:1]:
            try:
                bounds = [fold(a, options, None, memo) for a in expr.args]
            except TooLarge:
                return expr  # reported where it is computed
            if any(type(b) is not int for b in bounds):  # not known before the game (or UNKNOWN)
                continue
            low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
            if high - low > MAX_RANGE:  # type: ignore[operator]
                when = "with the options at their defaults, " if options else ""
                self.error(
                    "RE324",
                    f"{when}this range has {high - low:,} numbers, more than the language's limit of {MAX_RANGE:,}",  # type: ignore[operator]
                    expr.span,
                    hint=f"a range holds at most {MAX_RANGE:,} numbers (limits.MAX_RANGE)",
                )
                break  # the expression is still typed: the names it binds are known
        return expr

    def binary(self, e: syntax.Binary, scope: Scope) -> ir.Expr:
        left = self.expr(e.left, scope)
        right = self.expr(e.right, scope)
        op = e.op
        if op in ("and", "or"):
            return ir.Binary(
                ir.BOOL, e.span, op, self.expect(left, ir.BOOL, e.left.span), self.expect(right, ir.BOOL, e.right.span)
            )
        if op in ("+", "-", "*", "//", "%"):
            if op == "+" and left.type == ir.STR and right.type == ir.STR:
                return ir.Binary(ir.STR, e.span, op, left, right)
            if op == "+" and (ir.element_of(left.type) or ir.element_of(right.type)):
                return self.union(e, left, right)
            arithmetic = ir.Binary(
                ir.INT, e.span, op, self.expect(left, ir.INT, e.left.span), self.expect(right, ir.INT, e.right.span)
            )
            return self.folds_within_bound(arithmetic)
        if op == "in":
            element = ir.element_of(right.type)
            if element is None:
                self.fail(
                    "RE301", f"'in' needs a list or zone on the right, not {ir.type_name(right.type)}", e.right.span
                )
            if isinstance(right, ir.ListExpr) and left.type in (ir.RANK, ir.SUIT) and element != left.type:
                # [9, 10] beside a rank names ranks, as a literal compared with a rank does.
                items = tuple(self.coerce(item, left.type, item.span) for item in right.items)
                right = ir.ListExpr(ir.list_of(left.type), right.span, items)
                element = left.type
            return ir.Binary(ir.BOOL, e.span, "in", self.coerce(left, element, e.left.span), right)
        # comparisons
        if left.type != right.type:
            if isinstance(right, ir.Const):
                right = self.coerce(right, left.type, e.right.span)
            else:
                left = self.coerce(left, right.type, e.left.span)
        if op in ("<", "<=", ">", ">=") and left.type not in (ir.INT, ir.RANK, ir.STR):
            self.fail("RE301", f"'{op}' compares numbers or ranks, not {ir.type_name(left.type)}", e.span)
        if left.type not in ir.SCALARS:
            self.fail("RE301", f"'{op}' compares single values, not {ir.type_name(left.type)}", e.span)
        return ir.Binary(ir.BOOL, e.span, op, left, right)


def _union_type(left: ir.Expr, right: ir.Expr) -> str | None:
    """The list type of `left + right` when both are lists (or zones) of one element type."""
    a, b = ir.element_of(left.type), ir.element_of(right.type)
    if a is None or b is None:
        return None
    if a == b:
        return ir.list_of(a)
    if isinstance(right, ir.ListExpr) and not right.items:
        return ir.list_of(a)
    if isinstance(left, ir.ListExpr) and not left.items:
        return ir.list_of(b)
    return None


def attrs_evolve_span(expr: ir.Expr, span: Span) -> ir.Expr:
    """A local as written at this use (for positions in messages); other bound values as they are."""
    if isinstance(expr, ir.Local):
        return attrs.evolve(expr, span=span)
    return expr


def block_depth(statements: Iterable[ir.Stmt]) -> int:
    """How deep blocks nest in `statements` (each `if`, `for` and `repeat` one level)."""
    deepest = 0
    for s in statements:
        if isinstance(s, ir.If):
            deepest = max(deepest, 1 + block_depth(s.then), 1 + block_depth(s.otherwise))
        elif isinstance(s, (ir.For, ir.Repeat)):
            deepest = max(deepest, 1 + block_depth(s.body))
    return deepest
