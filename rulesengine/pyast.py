"""Small constructors for Python syntax trees, and the one place they become source text.

The code generator builds Python `ast` nodes, never text; `emit_function` turns one
finished function into source once, at the end, with the rule-file position of each
statement as a trailing comment (so a traceback through generated code shows it).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable
from typing import Any

_BINARY = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "//": ast.FloorDiv, "%": ast.Mod}
_COMPARE = {
    "==": ast.Eq,
    "!=": ast.NotEq,
    "<": ast.Lt,
    "<=": ast.LtE,
    ">": ast.Gt,
    ">=": ast.GtE,
    "in": ast.In,
    "not in": ast.NotIn,
    "is": ast.Is,
    "is not": ast.IsNot,
}
COMPARE_OPS = {cls: op for op, cls in _COMPARE.items()}


def name(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Load())


def store(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Store())


def const(value: Any) -> ast.Constant:
    return ast.Constant(value)


def is_const(node: ast.expr) -> bool:
    """Whether `node` is a plain literal of the language (an option's value, a folded constant)."""
    return isinstance(node, ast.Constant) and type(node.value) in (int, str, bool)


def attr(obj: ast.expr, field: str) -> ast.Attribute:
    return ast.Attribute(obj, field, ast.Load())


def st(field: str) -> ast.Attribute:
    """`st.<field>`: a member of the state (see runtime.StateInterface)."""
    return attr(name("st"), field)


def call(function: ast.expr | str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
    target = name(function) if isinstance(function, str) else function
    return ast.Call(target, list(args), [ast.keyword(k, v) for k, v in keywords.items()])


def method(obj: ast.expr, field: str, *args: ast.expr) -> ast.Call:
    return ast.Call(attr(obj, field), list(args), [])


def sub(value: ast.expr, index: ast.expr) -> ast.Subscript:
    return ast.Subscript(value, index, ast.Load())


def slice_(value: ast.expr, lower: ast.expr | None, upper: ast.expr | None) -> ast.Subscript:
    return ast.Subscript(value, ast.Slice(lower, upper, None), ast.Load())


def binop(left: ast.expr, op: str, right: ast.expr) -> ast.BinOp:
    return ast.BinOp(left, _BINARY[op](), right)


def compare(left: ast.expr, op: str, right: ast.expr) -> ast.Compare:
    return ast.Compare(left, [_COMPARE[op]()], [right])


def within(node: ast.expr, size: int) -> ast.Compare:
    """`0 <= node < size`: an index in range (a seat, a place in a zone family)."""
    return ast.Compare(const(0), [ast.LtE(), ast.Lt()], [node, const(size)])


def compare_op(node: ast.expr) -> str | None:
    """The operator of a single comparison (`a <= b`), else None."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return COMPARE_OPS.get(type(node.ops[0]))
    return None


def and_(*values: ast.expr) -> ast.expr:
    return values[0] if len(values) == 1 else ast.BoolOp(ast.And(), list(values))


def or_(*values: ast.expr) -> ast.expr:
    return values[0] if len(values) == 1 else ast.BoolOp(ast.Or(), list(values))


def not_(value: ast.expr) -> ast.UnaryOp:
    return ast.UnaryOp(ast.Not(), value)


def neg(value: ast.expr) -> ast.UnaryOp:
    return ast.UnaryOp(ast.USub(), value)


def ifexp(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.IfExp:
    return ast.IfExp(test, body, orelse)


def walrus(target: str, value: ast.expr) -> ast.NamedExpr:
    """`(target := value)`: the value, kept in a local as it is computed."""
    return ast.NamedExpr(store(target), value)


def kept(value: ast.expr, hint: str, fresh: Callable[[str], str], first: list[ast.stmt]) -> ast.expr:
    """`value` as a name or a constant: a computed value goes into a new local named from
    `hint` by `fresh` (its assignment appended to `first`), so it is computed once, in order."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return value
    local = fresh(hint)
    first.append(assign(local, value))
    return name(local)


def tuple_(items: Iterable[ast.expr]) -> ast.Tuple:
    return ast.Tuple(list(items), ast.Load())


def list_(items: Iterable[ast.expr]) -> ast.List:
    return ast.List(list(items), ast.Load())


def _comprehension(target: str, iterable: ast.expr, condition: ast.expr | None) -> list[ast.comprehension]:
    return [ast.comprehension(store(target), iterable, [] if condition is None else [condition], 0)]


def genexp(element: ast.expr, target: str, iterable: ast.expr, condition: ast.expr | None = None) -> ast.GeneratorExp:
    return ast.GeneratorExp(element, _comprehension(target, iterable, condition))


def listcomp(element: ast.expr, target: str, iterable: ast.expr, condition: ast.expr | None = None) -> ast.ListComp:
    return ast.ListComp(element, _comprehension(target, iterable, condition))


def arguments(*names: str) -> ast.arguments:
    return ast.arguments([], [ast.arg(n) for n in names], None, [], [], None, [])


def lambda_(params: Iterable[str], body: ast.expr) -> ast.Lambda:
    return ast.Lambda(arguments(*params), body)


# ---- statements ------------------------------------------------------------------------


def assign(target: ast.expr | str, value: ast.expr) -> ast.Assign:
    if isinstance(target, str):
        target = store(target)
    return ast.Assign([target], value, lineno=0)


def store_sub(value: ast.expr, index: ast.expr) -> ast.Subscript:
    return ast.Subscript(value, index, ast.Store())


def store_attr(obj: ast.expr, field: str) -> ast.Attribute:
    return ast.Attribute(obj, field, ast.Store())


def expr(value: ast.expr) -> ast.Expr:
    return ast.Expr(value)


def if_(test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt] | None = None) -> ast.If:
    return ast.If(test, body or [ast.Pass()], orelse or [])


def for_(target: str | ast.expr, iterable: ast.expr, body: list[ast.stmt]) -> ast.For:
    target_node = store(target) if isinstance(target, str) else target
    return ast.For(target_node, iterable, body or [ast.Pass()], [], lineno=0)


def return_(value: ast.expr | None = None) -> ast.Return:
    return ast.Return(value)


def function(fname: str, params: Iterable[str], body: list[ast.stmt]) -> ast.FunctionDef:
    return ast.FunctionDef(fname, arguments(*params), body or [ast.Pass()], [], None, lineno=0)


def located(node: ast.stmt, position: str | None) -> ast.stmt:
    """Mark a statement with the rule-file position it was generated from (a comment in the source)."""
    if position:
        node.rule_position = position  # type: ignore[attr-defined]
    return node


def guarded(statements: list[ast.stmt], error: ast.expr, bound: str, handler: list[ast.stmt]) -> None:
    """Mark `statements` to run inside `try: ... except <error> as <bound>: <handler>`. The
    passes see the statements as they are (a `try` would hide its body from them); `with_guards`
    writes the `try` around each run of statements marked alike once the passes are done."""
    guard = (error, bound, handler)
    for statement in statements:
        statement.guard = guard  # type: ignore[attr-defined]


def with_guards(fn: ast.FunctionDef) -> ast.FunctionDef:
    """`fn` with each run of consecutive statements marked by one `guarded` call, at any depth,
    inside its `try` (a copy where that changes anything)."""

    def block(statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in map(nested, statements):
            guard = getattr(statement, "guard", None)
            last = out[-1] if out else None
            if guard is not None and isinstance(last, ast.Try) and getattr(last, "guard", None) is guard:
                last.body.append(statement)
            elif guard is not None:
                error, bound, handler = guard
                wrapped = ast.Try(
                    body=[statement],
                    handlers=[ast.ExceptHandler(type=error, name=bound, body=handler)],
                    orelse=[],
                    finalbody=[],
                )
                wrapped.guard = guard  # type: ignore[attr-defined]
                out.append(wrapped)
            else:
                out.append(statement)
        return out

    def nested(node: ast.stmt) -> ast.stmt:
        if not isinstance(node, (ast.If, ast.For, ast.While)):
            return node
        blocks = {part: block(getattr(node, part)) for part in ("body", "orelse")}
        return (
            node if all(_same_list(new, getattr(node, part)) for part, new in blocks.items()) else changed(node, blocks)
        )

    body = block(fn.body)
    return fn if _same_list(body, fn.body) else changed(fn, {"body": body})


def _same_list(new: list[ast.stmt], old: list[ast.stmt]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def state_lists_as_locals(fn: ast.FunctionDef, fields: dict[str, str]) -> ast.FunctionDef:
    """Pass `locals`: each field of `st` named in `fields` (a list the state never replaces,
    such as its zones) that the function reads more than once is read once, into the local
    `fields[field]`, at the start: a local is cheaper to read than an attribute."""
    reads: dict[str, int] = {}
    for node in ast.walk(fn):
        if _state_read(node, fields):
            reads[node.attr] = reads.get(node.attr, 0) + 1  # type: ignore[attr-defined]
    kept = {field: local for field, local in fields.items() if reads.get(field, 0) > 1}
    if not kept:
        return fn

    body = [_with_locals(statement, kept) for statement in fn.body]
    first = [assign(local, st(field)) for field, local in kept.items()]
    return function(fn.name, [a.arg for a in fn.args.args], [*first, *body])


def _with_locals(node: Any, kept: dict[str, str]) -> Any:
    """`node` with the state reads of `kept` as locals: the nodes on the way to a read are
    copied, the rest shared (statements may be shared with other functions: none is changed)."""
    if _state_read(node, kept):
        return name(kept[node.attr])
    return rebuilt(node, lambda child: _with_locals(child, kept))


def rewrite_statements(
    fn: ast.FunctionDef,
    fields: dict[type, str],
    expression: Callable[[ast.expr, Any], ast.expr],
    opening: Callable[[ast.stmt, ast.expr | None, Any], tuple[Any, Any]] | None = None,
) -> ast.FunctionDef:
    """`fn` with `expression(value, given)` applied to one expression of each statement (the
    field `fields` names for its type), into the blocks of `if`, `for` and `while`: `fn`
    itself when nothing changes, else copies of what changed (statements may be shared with
    other functions). `given` is None, except at the first statement of a block:
    `opening(node, value, given)` tells what is given there, for the body and for the
    `orelse` of `node` (`value` its rewritten expression, `given` its own), since nothing
    runs between that expression and the block's first statement."""

    def block(statements: list[ast.stmt], first: Any) -> list[ast.stmt]:
        return [statement(s, first if index == 0 else None) for index, s in enumerate(statements)]

    def statement(node: ast.stmt, given: Any) -> ast.stmt:
        changes: dict[str, Any] = {}
        field = fields.get(type(node))
        value = getattr(node, field) if field is not None else None
        if isinstance(value, ast.expr):
            new_value = expression(value, given)
            if new_value is not value:
                changes[field] = new_value  # type: ignore[index]
            value = new_value
        if isinstance(node, (ast.If, ast.For, ast.While)):
            firsts = opening(node, value, given) if opening is not None else (None, None)
            for part, first in zip(("body", "orelse"), firsts):
                old = getattr(node, part)
                new = block(old, first)
                if any(a is not b for a, b in zip(new, old)):
                    changes[part] = new
        return changed(node, changes)

    return with_body(fn, block(fn.body, None))


def with_body(fn: ast.FunctionDef, body: list[ast.stmt]) -> ast.FunctionDef:
    """`fn` itself when every statement of `body` is the one it had, else a copy with `body`."""
    return fn if all(new is old for new, old in zip(body, fn.body)) else changed(fn, {"body": body})


def rebuilt(node: Any, rewrite: Callable[[Any], Any]) -> Any:
    """`node` with `rewrite` applied to each node directly inside it (alone or in a list):
    `node` itself when nothing changes, else a copy (see `changed`)."""
    changes: dict[str, Any] = {}
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            new = rewrite(value)
            if new is not value:
                changes[field] = new
        elif isinstance(value, list):
            items = [rewrite(item) if isinstance(item, ast.AST) else item for item in value]
            if any(new is not old for new, old in zip(items, value)):
                changes[field] = items
    return changed(node, changes)


def changed(node: Any, changes: dict[str, Any]) -> Any:
    """`node` itself when `changes` is empty, else a shallow copy of it with those fields set:
    passes never change a node in place, since generated statements may be shared."""
    if not changes:
        return node
    out = copy.copy(node)  # keeps the rule-file position a statement carries
    for field, value in changes.items():
        setattr(out, field, value)
    return out


def _state_read(node: ast.AST, fields: dict[str, str]) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and node.attr in fields
        and isinstance(node.value, ast.Name)
        and node.value.id == "st"
    )


# ---- emitting --------------------------------------------------------------------------


def comment_text(text: str) -> str:
    """`text` made safe for one comment line of generated code: names, files and positions are
    text from outside, and nothing in them may end the comment."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def emit_function(node: ast.FunctionDef, heading: str = "") -> str:
    """The source of one generated function: each statement on its own line(s), each with the
    rule-file position it comes from as a trailing comment. Produced once, never edited."""
    lines = [f"# {comment_text(heading)}"] if heading else []
    _emit([node], "", lines)
    return "\n".join(lines) + "\n"


def _emit(statements: list[ast.stmt], indent: str, out: list[str]) -> None:
    if not statements:
        out.append(f"{indent}pass")
        return
    for statement in statements:
        position = getattr(statement, "rule_position", None)
        tail = f"  # {comment_text(position)}" if position else ""
        inner = indent + "    "
        if isinstance(statement, ast.FunctionDef):
            out.append(f"{indent}def {statement.name}({ast.unparse(statement.args)}):{tail}")
            _emit(statement.body, inner, out)
        elif isinstance(statement, ast.If):
            out.append(f"{indent}if {ast.unparse(statement.test)}:{tail}")
            _emit(statement.body, inner, out)
            if statement.orelse:
                out.append(f"{indent}else:")
                _emit(statement.orelse, inner, out)
        elif isinstance(statement, ast.For):
            out.append(f"{indent}for {ast.unparse(statement.target)} in {ast.unparse(statement.iter)}:{tail}")
            _emit(statement.body, inner, out)
        elif isinstance(statement, ast.Try):
            out.append(f"{indent}try:")
            _emit(statement.body, inner, out)
            for handler in statement.handlers:
                caught = f" {ast.unparse(handler.type)}" if handler.type is not None else ""
                bound = f" as {handler.name}" if handler.name else ""
                out.append(f"{indent}except{caught}{bound}:")
                _emit(handler.body, inner, out)
        else:
            out.append(f"{indent}{ast.unparse(statement)}{tail}")


def size(node: ast.AST) -> int:
    """The number of nodes of a syntax tree (the measure of the unrolling budget)."""
    return sum(1 for _ in ast.walk(node))


def same(a: ast.AST, b: ast.AST) -> bool:
    """Structural equality of two syntax trees (not of their text)."""
    return ast.dump(a) == ast.dump(b)


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
