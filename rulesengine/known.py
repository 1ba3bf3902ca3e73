"""Pass `known truth` over a generated function: a test whose answer the expression around it
has already decided is not asked again.

Inside one expression, the right operand of `a and b` runs only when `a` held, the right
operand of `a or b` only when `a` did not, and the branches of `x if t else y` only when
`t` did or did not. Where such a test was a local (or `not` a local, or a local set by
`(v := ...)`, or an item of such a local at a constant place: `zones[2]`), a later test of
that same value there is decided: `xs or no_card` is `xs`, `max(...) if xs else 0` is
`max(...)`, and so on (as the passes `common subexpressions` and `inline binds` leave
them: `not v or ...`, `... if not (_c := z) else ... (_c or k)`). So is a test in the first
statement of an `if` block, by the `if`'s own test: nothing runs between the two (inside
`if not empty(z)`, the `top(z)` that follows needs no fallback for an empty zone).

What it preserves: every value and every error. Only locals set once in the function are
followed (a test and a later read see the same value), only within one expression or from
an `if`'s test into the first statement of its blocks (no statement runs in between, so a
list kept in a local cannot change there), and not into a lambda or a comprehension, which
may name the local again. A test is dropped only when it is a bare local or an item of one
at a constant place read again (reading it has no effect, and it did not fail the first
time); a part of `and`/`or` is dropped only when its value is not the result.
"""

from __future__ import annotations

import ast

from .pyast import rebuilt, rewrite_statements

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FIELDS = {ast.Expr: "value", ast.Return: "value", ast.Assign: "value", ast.If: "test", ast.For: "iter"}

Facts = dict[str, bool]  # local -> whether it is known true (True) or false (False) here


def decide_known_tests(fn: ast.FunctionDef) -> ast.FunctionDef:
    """`fn` with its decided tests left out (statements copied where changed, never changed in
    place: they may be shared with other functions)."""
    once = _set_once(fn)
    if not once:
        return fn
    return rewrite_statements(
        fn,
        _FIELDS,
        lambda value, facts: _expression(value, dict(facts or {}), once),
        lambda node, test, facts: _opening(node, test, facts or {}, once),
    )


def _opening(node: ast.stmt, test: ast.expr | None, facts: Facts, once: frozenset[str]) -> tuple[Facts, Facts]:
    """What holds at the first statement of each block of `node`: for an `if`, what held at it
    and its test's truth (true in the body, false in the `orelse`); nothing for a loop."""
    if not isinstance(node, ast.If) or test is None:
        return {}, {}
    then, otherwise = dict(facts), dict(facts)
    _learn(test, True, then, once)
    _learn(test, False, otherwise, once)
    return then, otherwise


def _set_once(fn: ast.FunctionDef) -> frozenset[str]:
    """The locals stored exactly once in `fn` (the parameters count as a store)."""
    stores: dict[str, int] = {a.arg: 1 for a in fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            stores[node.arg] = stores.get(node.arg, 0) + (0 if node in fn.args.args else 1)
    return frozenset(local for local, count in stores.items() if count == 1)


def _key(node: ast.expr) -> str | None:
    """How a fact about `node` is kept: a bare local by its name, an item of a local at a
    constant place as `local[place]`; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant):
        return f"{node.value.id}[{node.slice.value!r}]"
    return None


def _known(node: ast.expr, facts: Facts) -> bool | None:
    """The truth of a bare local (or an item of one at a constant place) known here (None: not
    known, or not such a value)."""
    key = _key(node)
    return facts.get(key) if key is not None else None


def _learn(node: ast.expr, truth: bool, facts: Facts, once: frozenset[str]) -> None:
    """Record what `node` having been `truth` tells about locals."""
    key = _key(node)
    if key is not None:
        local = node.value if isinstance(node, ast.Subscript) else node
        if isinstance(local, ast.Name) and local.id in once:
            facts[key] = truth
    elif isinstance(node, ast.NamedExpr):
        _learn(node.target, truth, facts, once)
        _learn(node.value, truth, facts, once)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _learn(node.operand, not truth, facts, once)
    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) == truth:
        for value in node.values:  # all held (`and` true) or none did (`or` false)
            _learn(value, truth, facts, once)


def _expression(node: ast.expr, facts: Facts, once: frozenset[str]) -> ast.expr:
    if isinstance(node, _SCOPES):
        return node
    if isinstance(node, ast.BoolOp):
        return _bool_op(node, facts, once)
    if isinstance(node, ast.IfExp):
        test = _expression(node.test, facts, once)
        known = _known(test, facts)
        if known is not None:
            return _expression(node.body if known else node.orelse, facts, once)
        then, otherwise = dict(facts), dict(facts)
        _learn(test, True, then, once)
        _learn(test, False, otherwise, once)
        body, orelse = _expression(node.body, then, once), _expression(node.orelse, otherwise, once)
        if test is node.test and body is node.body and orelse is node.orelse:
            return node
        return ast.IfExp(test, body, orelse)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        known = _known(node.operand, facts)
        if known is not None:
            return ast.Constant(not known)
    return rebuilt(node, lambda child: _child(child, facts, once))


def _child(node: ast.AST, facts: Facts, once: frozenset[str]) -> ast.AST:
    if isinstance(node, ast.expr):
        return _expression(node, facts, once)
    return rebuilt(node, lambda child: _child(child, facts, once))


def _bool_op(node: ast.BoolOp, facts: Facts, once: frozenset[str]) -> ast.expr:
    """`a and b and ...` (or `or`): a part known to let the next run is left out; the parts
    after one known to decide are never run, so they are left out, that part kept as the value."""
    conjunction = isinstance(node.op, ast.And)
    here = dict(facts)
    kept: list[ast.expr] = []
    last = len(node.values) - 1
    for index, value in enumerate(node.values):
        new = _expression(value, here, once)
        known = _known(new, here)
        if known is not None:
            if known != conjunction:  # decides: its value is the result
                kept.append(new)
                break
            if index < last:  # lets the next run, and is not the result
                continue
        kept.append(new)
        _learn(new, conjunction, here, once)
    if len(kept) == 1:
        return kept[0]
    if len(kept) == len(node.values) and all(a is b for a, b in zip(kept, node.values)):
        return node
    return ast.BoolOp(node.op, kept)
