"""Static evaluation for the checker's whole-file checks: walking typed expressions and
folding what constants and option values decide.

Nothing here runs a game; a value that needs a game state folds to UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from . import ir, syntax
from .limits import MAX_INTEGER

UNKNOWN = object()


def walk(expr: ir.Expr) -> Iterable[ir.Expr]:
    """`expr` and every expression inside it."""
    waiting = [expr]
    while waiting:
        current = waiting.pop()
        yield current
        waiting.extend(ir.children(current))


def size_and_depth(expr: ir.Expr, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """Nodes and depth of `expr` as a tree (shared parts counted at each use), without recursion."""
    stack: list[tuple[ir.Expr, bool]] = [(expr, False)]
    while stack:
        current, children_done = stack.pop()
        if id(current) in memo:
            continue
        kids = ir.children(current)
        if children_done:
            sizes = [memo[id(k)] for k in kids]
            memo[id(current)] = (1 + sum(s for s, _ in sizes), 1 + max((d for _, d in sizes), default=0))
        else:
            stack.append((current, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
    return memo[id(expr)]


def option_values(option: ir.Option) -> tuple[object, ...] | None:
    """Every value an option can take, when there are few enough to try them all."""
    if option.choices is not None:
        return option.choices
    if option.type == ir.BOOL:
        return (False, True)
    if option.type == ir.INT and option.minimum is not None and option.maximum is not None:
        if option.maximum - option.minimum <= 64:
            return tuple(range(option.minimum, option.maximum + 1))
    return None


class TooLarge(Exception):
    """A folded integer passes limits.MAX_INTEGER; `expr` is where it is computed."""

    def __init__(self, expr: ir.Expr, value: int):
        super().__init__(expr.span)
        self.expr = expr
        self.value = value


def bounded(value: object, expr: ir.Expr) -> object:
    """`value`, unless it is an integer beyond the language's bound (then TooLarge)."""
    if type(value) is int and not -MAX_INTEGER <= value <= MAX_INTEGER:
        raise TooLarge(expr, value)
    return value


Folded = dict[int, tuple[ir.Expr, object]]  # id of a node -> (the node, its value)


def fold(expr: ir.Expr, options: dict[str, object], players: int | None, memo: Folded | None = None) -> object:
    """The value of `expr` if constants and these option values decide it, else UNKNOWN.

    An integer passing limits.MAX_INTEGER on the way raises TooLarge, so no fold ever
    works with a number much larger than the bound. `memo` keeps the values of the nodes
    folded with the same options and players, so that folding each node of a tree as it is
    built (as the checker does) costs one pass over it, not one per level.
    """
    try:
        return _fold_inner(expr, options, players, memo)
    except (ArithmeticError, TypeError, ValueError):
        return UNKNOWN


def _fold_inner(expr: ir.Expr, options: dict[str, object], players: int | None, memo: Folded | None) -> object:
    if memo is None:
        return _fold_node(expr, options, players, None)
    known = memo.get(id(expr))
    if known is not None and known[0] is expr:
        return known[1]
    value = _fold_node(expr, options, players, memo)
    memo[id(expr)] = (expr, value)  # the node is kept with it, so its id is not reused
    return value


def _fold_node(expr: ir.Expr, options: dict[str, object], players: int | None, memo: Folded | None) -> object:
    fold = lambda e: _fold_inner(e, options, players, memo)
    if isinstance(expr, ir.Const):
        return bounded(expr.value, expr)
    if isinstance(expr, ir.OptionRef):
        return options.get(expr.name, UNKNOWN)
    if isinstance(expr, ir.Builtin) and expr.name == "num_players" and players is not None:
        return players
    if isinstance(expr, ir.Unary):
        value: Any = fold(expr.operand)
        if value is UNKNOWN:
            return UNKNOWN
        return (not value) if expr.op == "not" else bounded(-value, expr)
    if isinstance(expr, ir.Conditional):
        condition = fold(expr.condition)
        if condition is UNKNOWN:
            return UNKNOWN
        return fold(expr.then if condition else expr.otherwise)
    if isinstance(expr, ir.Binary):
        return bounded(_fold_binary(expr.op, fold(expr.left), lambda: fold(expr.right)), expr)
    if isinstance(expr, ir.Call) and expr.function in ("min", "max", "abs"):
        args = [fold(a) for a in expr.args]
        if any(a is UNKNOWN for a in args):
            return UNKNOWN
        functions: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs}
        return bounded(functions[expr.function](*args), expr)
    return UNKNOWN


def _fold_binary(op: str, left: object, right_of: Callable[[], object]) -> object:
    if op == "and" and left is False:
        return False
    if op == "or" and left is True:
        return True
    right = right_of()
    if op == "and":
        return False if right is False else (True if left is True and right is True else UNKNOWN)
    if op == "or":
        return True if right is True else (False if left is False and right is False else UNKNOWN)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    operations: dict[str, Callable[[Any, Any], object]] = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "//": lambda a, b: a // b,
        "%": lambda a, b: a % b,
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return operations[op](left, right) if op in operations else UNKNOWN


def names_in(expr: syntax.Expr) -> set[str]:
    """Every name and function name written in a syntax tree."""
    names: set[str] = set()
    waiting: list[syntax.Expr] = [expr]
    while waiting:
        node = waiting.pop()
        if isinstance(node, syntax.Name):
            names.add(node.id)
        elif isinstance(node, syntax.Call):
            names.add(node.name)
        for field in attrs.fields(type(node)):
            value = getattr(node, field.name)
            if isinstance(value, syntax.Expr):
                waiting.append(value)
            elif isinstance(value, tuple):
                waiting.extend(v for v in value if isinstance(v, syntax.Expr))
    return names


def interval(expr: ir.Expr, options: dict[str, ir.Option], players: tuple[int, int]) -> tuple[int, int] | None:
    """Bounds (low, high) of an integer expression over every value its options and the
    player count can take, or None if they are unknown; sound for + - * min max abs.
    Bounds beyond the integer bound are unknown, so no product grows large."""
    found = _interval(expr, options, players)
    if found is None or max(abs(found[0]), abs(found[1])) > MAX_INTEGER:
        return None
    return found


def _interval(expr: ir.Expr, options: dict[str, ir.Option], players: tuple[int, int]) -> tuple[int, int] | None:
    if isinstance(expr, ir.Const) and type(expr.value) is int:
        return expr.value, expr.value
    if isinstance(expr, ir.OptionRef) and expr.name in options:
        option = options[expr.name]
        numbers = [c for c in option.choices or () if isinstance(c, int) and not isinstance(c, bool)]
        if option.choices is not None and len(numbers) == len(option.choices):
            return min(numbers), max(numbers)
        if option.type == ir.INT and option.minimum is not None and option.maximum is not None:
            return option.minimum, option.maximum
        return None
    if isinstance(expr, ir.Builtin) and expr.name == "num_players":
        return players
    parts = [interval(e, options, players) for e in ir.children(expr)]  # each within the bound
    if any(p is None for p in parts):
        return None
    bounds = [p for p in parts if p is not None]
    if isinstance(expr, ir.Unary) and expr.op == "-":
        return -bounds[0][1], -bounds[0][0]
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*"):
        (a, b), (c, d) = bounds
        if expr.op == "+":
            return a + c, b + d
        if expr.op == "-":
            return a - d, b - c
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    if isinstance(expr, ir.Call) and expr.function in ("min", "max"):
        pick = min if expr.function == "min" else max
        return pick(p[0] for p in bounds), pick(p[1] for p in bounds)
    if isinstance(expr, ir.Call) and expr.function == "abs":
        ((a, b),) = bounds
        return (0 if a <= 0 <= b else min(abs(a), abs(b))), max(abs(a), abs(b))
    return None
