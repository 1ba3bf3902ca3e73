"""Syntax trees of expressions and statements, as parsed; every node keeps its span."""

from __future__ import annotations

import attrs

from .diagnostics import Span


@attrs.frozen
class Expr:
    span: Span


@attrs.frozen
class IntLit(Expr):
    value: int


@attrs.frozen
class StrLit(Expr):
    value: str


@attrs.frozen
class BoolLit(Expr):
    value: bool


@attrs.frozen
class Name(Expr):
    id: str


@attrs.frozen
class ListLit(Expr):
    items: tuple[Expr, ...]


@attrs.frozen
class Attribute(Expr):
    obj: Expr
    name: str
    name_span: Span


@attrs.frozen
class Method(Expr):
    """`collection.any(x, predicate)` and friends: a macro that binds a variable."""

    obj: Expr
    name: str
    name_span: Span
    args: tuple[Expr, ...]


@attrs.frozen
class Index(Expr):
    obj: Expr
    indices: tuple[Expr, ...]


@attrs.frozen
class Call(Expr):
    name: str
    name_span: Span
    args: tuple[Expr, ...]


@attrs.frozen
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


@attrs.frozen
class Binary(Expr):
    op: str  # + - * // % and or == != < <= > >= in
    left: Expr
    right: Expr


@attrs.frozen
class Conditional(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr


@attrs.frozen
class RandomPick(Expr):
    """`random xs`: one element of a list or zone drawn by chance; only the value of an
    assignment or the cards of a `move` (a chance event, not an expression)."""

    candidates: Expr


# ---- statements ------------------------------------------------------------------------


@attrs.frozen
class Stmt:
    span: Span


@attrs.frozen
class Move(Stmt):
    cards: Expr
    destination: Expr
    at_bottom: bool


@attrs.frozen
class Deal(Stmt):
    count: Expr | None  # None: deal all
    source: Expr
    family: str
    family_span: Span
    start: Expr


@attrs.frozen
class Shuffle(Stmt):
    zone: Expr


@attrs.frozen
class Reveal(Stmt):
    cards: Expr
    player: Expr


@attrs.frozen
class Assign(Stmt):
    name: str
    name_span: Span
    indices: tuple[Expr, ...]
    op: str  # = += -=
    value: Expr


@attrs.frozen
class TurnTo(Stmt):
    player: Expr


@attrs.frozen
class Reverse(Stmt):
    pass


@attrs.frozen
class Out(Stmt):
    player: Expr


@attrs.frozen
class End(Stmt):
    what: str  # round, game, phase


@attrs.frozen
class Goto(Stmt):
    phase: str


@attrs.frozen
class Log(Stmt):
    """A message for readable game logs; `{expr}` parts are filled in."""

    parts: tuple[str | Expr, ...]


@attrs.frozen
class If(Stmt):
    condition: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...]


@attrs.frozen
class For(Stmt):
    variable: str
    variable_span: Span
    collection: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class Repeat(Stmt):
    """`repeat: N` with `do` and an optional `until`: the body at most N times."""

    count: Expr
    body: tuple[Stmt, ...]
    until: Expr | None


@attrs.frozen
class CallProcedure(Stmt):
    name: str
    name_span: Span
    args: tuple[Expr, ...]
