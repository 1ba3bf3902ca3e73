"""Pass `common subexpressions` over a generated function: a part of an expression that is
computed again later in the same expression, on every path that reaches the later place, is
computed once and kept in a local (`(_c := part)` where it is first computed, `_c` after).

What it preserves: expressions have no side effects and the state does not change while one
is evaluated, so a repeated part has the same value both times. Only a computation made on
every path to the later place is reused (the left operand of `and`/`or`, the test of a
conditional, every operand of an arithmetic operator or a call), so nothing is computed that
the function did not compute before, and no error is raised that it did not raise. Values
that can be read only once (iterators such as `map(...)` or a generator) are never shared.

The state is changed only by statements and by method calls (the state's helpers, `append`):
an expression holding a method call other than a few that only read is left alone, and the
arguments of a statement's changing call are regions of their own. Each statement's
expression is a region of its own (a statement may change the state), and so is the body of
each `lambda` (its parameters are its own names). The parts evaluated inside a
comprehension's loop are left alone, and no local is made in a comprehension's first
iterable, where Python forbids it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from .pyast import changed, with_body

# Calls of these return an iterator, which can be read only once: never shared.
_ONCE = frozenset({"map", "filter", "zip", "reversed", "iter", "enumerate"})
# Method calls that only read: any other method call may change something, and its
# expression is left alone (the statements calling the state's helpers are split, below).
_READING_METHODS = frozenset({"get", "values", "keys", "items", "join", "next_active", "holder"})
_LEAVES = (ast.Name, ast.Constant, ast.Lambda, ast.GeneratorExp, ast.Starred, ast.NamedExpr, ast.JoinedStr, ast.Slice)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def share_common_subexpressions(
    fn: ast.FunctionDef, fresh: Callable[[str], str], read_once: Callable[[str], bool]
) -> ast.FunctionDef:
    """`fn` with its repeated subexpressions computed once; `fresh` names a new local and
    `read_once(name)` tells whether the global `name` is a function returning an iterator.
    Statements are copied where changed, never changed in place (they may be shared)."""
    sharing = _Sharing(fresh, read_once)
    return with_body(fn, [sharing.statement(statement) for statement in fn.body])


class _Sharing:
    def __init__(self, fresh: Callable[[str], str], read_once: Callable[[str], bool]):
        self.fresh = fresh
        self.read_once = read_once
        # id(node) -> its shape's number (equal shapes, equal numbers), and the node (kept alive
        # so that its id stays its own)
        self.keys: dict[int, tuple[int, ast.AST]] = {}
        self.shapes: dict[tuple, int] = {}

    # ---- statements ----------------------------------------------------------------------

    def statement(self, node: ast.stmt) -> ast.stmt:
        changes: dict[str, object] = {}
        if isinstance(node, (ast.If, ast.For, ast.While)):
            for field in ("body", "orelse"):
                old = getattr(node, field)
                new = [self.statement(s) for s in old]
                if any(a is not b for a, b in zip(new, old)):
                    changes[field] = new
        field = _REGION_FIELDS.get(type(node), "")
        value = getattr(node, field) if field else None
        if isinstance(value, ast.Call) and not self._pure(value):
            # A call that changes the state (a helper of the state, an append): its arguments
            # are computed before it runs, each a region of its own.
            args = [self.region(a) for a in value.args]
            keywords = [self._keyword(k) for k in value.keywords]
            if any(a is not b for a, b in zip(args, value.args)) or any(
                a is not b for a, b in zip(keywords, value.keywords)
            ):
                call = copy.copy(value)
                call.args, call.keywords = args, keywords
                changes[field] = call  # type: ignore[index]
        elif isinstance(value, ast.expr):
            new_value = self.region(value)
            if new_value is not value:
                changes[field] = new_value  # type: ignore[index]
        return changed(node, changes)

    def _keyword(self, keyword: ast.keyword) -> ast.keyword:
        value = self.region(keyword.value)
        if value is keyword.value:
            return keyword
        out = copy.copy(keyword)
        out.value = value
        return out

    # ---- one expression ------------------------------------------------------------------

    def region(self, root: ast.expr) -> ast.expr:
        """`root` with its repeated parts shared (a copy), or `root` itself if none repeats."""
        if not self._pure(root) or not self._repeats(root):
            return root
        # A copy of its own, where no node stands at two places (generated trees share nodes),
        # so that each place can be changed on its own.
        tree: ast.expr = _unshared_copy(root)  # type: ignore[assignment]
        reuses: dict[int, ast.expr] = {}  # id(later node) -> the node first computing it
        self._walk(tree, {}, reuses, True)
        lambdas: list[ast.Lambda] = []
        self._lambdas(tree, lambdas, True)
        changed = False
        for lam in lambdas:
            body = self.region(lam.body)
            changed |= body is not lam.body
            lam.body = body
        if not reuses and not changed:
            return root
        replaced: dict[int, ast.expr] = {}
        locals_: dict[int, str] = {}  # id(first node) -> its local
        for later, first in reuses.items():
            local = locals_.get(id(first))
            if local is None:
                local = locals_[id(first)] = self.fresh("_c")
                replaced[id(first)] = ast.NamedExpr(ast.Name(local, ast.Store()), first)
            replaced[later] = ast.Name(local, ast.Load())
        return _replace(tree, replaced)  # type: ignore[return-value]

    def _repeats(self, root: ast.expr) -> bool:
        """Whether some part that could be shared is written twice in `root` (a quick test)."""
        seen: set[int] = set()
        for node in ast.walk(root):
            if isinstance(node, ast.expr) and self._shareable(node):
                key = self._key(node)
                if key in seen:
                    return True
                seen.add(key)
        return False

    def _walk(self, node: ast.expr, available: dict[int, ast.expr], reuses: dict[int, ast.expr], define: bool) -> dict:
        """Visit `node` in the order Python evaluates it; `available` maps a shape to the node
        that computed it on every path to here. Returns what is available after `node`."""
        key = self._key(node)
        first = available.get(key)
        if first is not None:
            reuses[id(node)] = first
            return available
        after = available
        if isinstance(node, ast.BoolOp):
            after = self._walk(node.values[0], available, reuses, define)
            reached = after
            for value in node.values[1:]:  # each only if the ones before did not decide
                reached = self._walk(value, reached, reuses, define)
        elif isinstance(node, ast.IfExp):
            after = self._walk(node.test, available, reuses, define)
            self._walk(node.body, after, reuses, define)
            self._walk(node.orelse, after, reuses, define)
        elif isinstance(node, ast.Compare):
            after = self._walk(node.left, available, reuses, define)
            after = self._walk(node.comparators[0], after, reuses, define)
            reached = after
            for value in node.comparators[1:]:  # a chain stops at the first false link
                reached = self._walk(value, reached, reuses, define)
        elif isinstance(node, _COMPREHENSIONS):
            # only the first iterable is computed here, and Python allows no local in it
            after = self._walk(node.generators[0].iter, available, reuses, False)
        elif isinstance(node, ast.NamedExpr):  # a local of a bind (pass `inline binds`), each its own
            after = self._walk(node.value, available, reuses, define)
        elif isinstance(node, (ast.Lambda, ast.JoinedStr)):
            pass
        else:
            for child in _children(node):
                after = self._walk(child, after, reuses, define)
        if define and self._shareable(node):
            after = {**after, key: node}
        return after

    def _lambdas(self, node: ast.AST, out: list[ast.Lambda], define: bool) -> None:
        """The lambdas of a region whose bodies are regions of their own (not those inside a
        comprehension's loop, nor in its first iterable, where no local may be made)."""
        if isinstance(node, ast.Lambda):
            if define:
                out.append(node)
            return
        if isinstance(node, _COMPREHENSIONS):
            self._lambdas(node.generators[0].iter, out, False)
            return
        for child in ast.iter_child_nodes(node):
            self._lambdas(child, out, define)

    # ---- what may be shared ----------------------------------------------------------------

    def _shareable(self, node: ast.expr) -> bool:
        if isinstance(node, _LEAVES) or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return False
        if isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name) and (function.id in _ONCE or self.read_once(function.id)):
                return False
        return True

    def _pure(self, node: ast.AST) -> bool:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                if inner.func.attr not in _READING_METHODS:
                    return False
            elif isinstance(inner, (ast.Await, ast.Yield, ast.YieldFrom)):
                return False
        return True

    def _key(self, node: ast.AST) -> int:
        """A number per shape: two nodes get the same number when they are written the same."""
        known = self.keys.get(id(node))
        if known is not None:
            return known[0]
        parts: list[object] = [type(node).__name__]
        for field, value in ast.iter_fields(node):
            if field == "ctx":
                parts.append(type(value).__name__)
            elif isinstance(value, ast.AST):
                parts.append(self._key(value))
            elif isinstance(value, list):
                parts.append(tuple(self._key(v) if isinstance(v, ast.AST) else v for v in value))
            else:
                parts.append((type(value).__name__, value))
        shape = tuple(parts)
        number = self.shapes.setdefault(shape, len(self.shapes))
        self.keys[id(node)] = (number, node)
        return number


# the field of a statement holding the expression it computes first
_REGION_FIELDS: dict[type, str] = {
    ast.Expr: "value",
    ast.Return: "value",
    ast.Assign: "value",
    ast.AugAssign: "value",
    ast.If: "test",
    ast.For: "iter",
    ast.While: "test",
}


def _children(node: ast.AST) -> list[ast.expr]:
    """The expressions directly inside `node`, in the order Python computes them."""
    if isinstance(node, ast.Dict):  # key, value, key, value, ...
        return [part for key, value in zip(node.keys, node.values) for part in (key, value) if part is not None]
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.keyword):
            out.append(child.value)
        elif isinstance(child, ast.expr):
            out.append(child)
    return out


def _unshared_copy(node: ast.AST) -> ast.AST:
    out = copy.copy(node)
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            setattr(out, field, _unshared_copy(value))
        elif isinstance(value, list):
            setattr(out, field, [_unshared_copy(v) if isinstance(v, ast.AST) else v for v in value])
    return out


def _replace(node: ast.AST, replaced: dict[int, ast.expr]) -> ast.AST:
    """`node` (a private copy) with the nodes named in `replaced` swapped, in place."""
    swapped = replaced.get(id(node))
    if swapped is not None:
        if isinstance(swapped, ast.NamedExpr):
            swapped.value = _replace_inside(swapped.value, replaced)  # type: ignore[assignment]
        return swapped
    return _replace_inside(node, replaced)


def _replace_inside(node: ast.AST, replaced: dict[int, ast.expr]) -> ast.AST:
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            setattr(node, field, _replace(value, replaced))
        elif isinstance(value, list):
            setattr(node, field, [_replace(v, replaced) if isinstance(v, ast.AST) else v for v in value])
    return node
