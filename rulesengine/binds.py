"""Pass `inline binds` over a generated function: a `lambda` called at once with one value,
as the language's `bind` is generated (`(lambda v: body)(value)`), becomes
`(body if ((v2 := value) or True) else None)`: the value is kept in a local of the enclosing
function (a new name, so that no two binds share one) and no function is called. When the
first thing the body evaluates is a read of the value (`v < x ...`), the value is kept
there instead (`(v2 := value) < x ...`).

What it preserves: the value is computed first and the body after, as before; the body
reads the new local wherever it read the parameter. Python forbids such a local in a
comprehension's first iterable and would put one made inside a comprehension's loop into
the enclosing function, so lambdas there are left as they are.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from .pyast import rebuilt, rewrite_statements

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FIELDS = {ast.Expr: "value", ast.Return: "value", ast.Assign: "value", ast.AugAssign: "value", ast.If: "test"}


def inline_binds(fn: ast.FunctionDef, fresh: Callable[[str], str]) -> ast.FunctionDef:
    """`fn` with its immediately called one-parameter lambdas inlined (statements copied where
    changed, never changed in place: they may be shared with other functions)."""
    return rewrite_statements(fn, _FIELDS, lambda value, _given: _expression(value, fresh))


def _expression(node: ast.expr, fresh: Callable[[str], str]) -> ast.expr:
    """`node` with its binds inlined (a copy where changed)."""
    if isinstance(node, _COMPREHENSIONS):
        return node  # see the module's docstring
    parameter = _bound(node)
    if parameter is not None:
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda)  # what _bound accepts
        local = fresh(parameter)
        value = _expression(node.args[0], fresh)
        body = _expression(_renamed(node.func.body, parameter, local), fresh)
        keep = ast.NamedExpr(ast.Name(local, ast.Store()), value)
        first = _kept_at_first_read(body, local, keep)
        if first is not None:
            return first
        kept = ast.BoolOp(ast.Or(), [keep, ast.Constant(True)])
        return ast.IfExp(kept, body, ast.Constant(None))
    return rebuilt(node, lambda child: _child(child, fresh))


# Where an expression evaluates first: the one part of each of these that runs before any other.
_FIRST = {ast.IfExp: "test", ast.Compare: "left", ast.BinOp: "left", ast.UnaryOp: "operand", ast.Subscript: "value"}


def _kept_at_first_read(body: ast.expr, local: str, keep: ast.NamedExpr) -> ast.expr | None:
    """`body` with `keep` (`(local := value)`) in place of its read of `local` when that read is
    the first thing the body evaluates (so the value is still computed first, and once): no
    `... if (local := value) or True else None` around it. None when it is not."""
    if isinstance(body, ast.Name):
        return keep if body.id == local else None
    if isinstance(body, ast.BoolOp):
        first = _kept_at_first_read(body.values[0], local, keep)
        return None if first is None else ast.BoolOp(body.op, [first, *body.values[1:]])
    field = _FIRST.get(type(body))
    if field is None:
        return None
    first = _kept_at_first_read(getattr(body, field), local, keep)
    if first is None:
        return None
    out = copy.copy(body)
    setattr(out, field, first)
    return out


def _child(node: ast.AST, fresh: Callable[[str], str]) -> ast.AST:
    """A node inside an expression (an expression, or a keyword argument holding one)."""
    if isinstance(node, ast.expr):
        return _expression(node, fresh)
    return rebuilt(node, lambda child: _child(child, fresh))


def _bound(node: ast.expr) -> str | None:
    """The parameter of `(lambda v: body)(value)`, if `node` is that and no scope inside the
    body names `v` again."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda)):
        return None
    arguments = node.func.args
    if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
        return None
    if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg or arguments.defaults:
        return None
    if len(arguments.args) != 1:
        return None
    parameter = arguments.args[0].arg
    for inner in ast.walk(node.func.body):
        if isinstance(inner, ast.Lambda) and parameter in {a.arg for a in inner.args.args}:
            return None
        if isinstance(inner, ast.comprehension) and parameter in {
            n.id for n in ast.walk(inner.target) if isinstance(n, ast.Name)
        }:
            return None
        if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name) and inner.target.id == parameter:
            return None
    return parameter


def _renamed(node: ast.expr, old: str, new: str) -> ast.expr:
    """A copy of `node` reading `new` where it read `old`."""
    out = copy.deepcopy(node)
    for inner in ast.walk(out):
        if isinstance(inner, ast.Name) and inner.id == old:
            inner.id = new
    return out
