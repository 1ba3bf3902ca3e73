"""The passes `common subexpressions` (rulesengine/subexpressions.py) and `inline binds`
(rulesengine/binds.py) against the functions they rewrite: random expressions built from
repeated parts are run before and after the passes on random values, and must give the same
value or raise the same error, never calling a counted function more often than before
(nothing computed that was not computed)."""

from __future__ import annotations

import ast
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesengine import pyast
from rulesengine.binds import inline_binds
from rulesengine.subexpressions import share_common_subexpressions

_names = itertools.count()


def _fresh(hint: str) -> str:
    return f"{hint}_{next(_names)}"


def _atoms() -> st.SearchStrategy[str]:
    return st.sampled_from(["a", "b", "lst[0]", "len(lst)", "f(a)", "f(b)", "(b // a)", "tab[a % 3]"])


def _grow(parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Expressions over `parts` in every form the pass treats apart."""
    two = st.tuples(parts, parts)
    return st.one_of(
        two.map(lambda p: f"({p[0]} + {p[1]})"),
        two.map(lambda p: f"({p[0]} and {p[1]})"),
        two.map(lambda p: f"({p[0]} or {p[1]})"),
        st.tuples(parts, parts, parts).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        st.tuples(parts, parts, parts).map(lambda p: f"({p[0]} < {p[1]} <= {p[2]})"),
        parts.map(lambda p: f"(max(map(f, lst)) if lst else {p})"),
        parts.map(lambda p: f"sum([y + {p} for y in lst])"),
        parts.map(lambda p: f"[y for y in (lst if {p} else [])]"),
        two.map(lambda p: f"(lambda q: q + {p[0]} + q * {p[1]})({p[1]})"),
        two.map(lambda p: f"(lambda q: (lambda q: q - {p[0]})(q + 1) * q)({p[1]})"),
        two.map(lambda p: f"[(lambda q: q + y)({p[0]}) for y in lst] + [{p[1]}]"),
        two.map(lambda p: f"sum([y for y in (lambda q: [q, {p[0]}])({p[1]})])"),
        parts.map(lambda p: f"max((f(y) for y in lst), default={p})"),
        parts.map(lambda p: f"len(list(map(f, lst))) + sum(map(f, lst)) + {p}"),
    )


@st.composite
def _expressions(draw) -> str:
    """An expression made of a few small parts, each used several times."""
    pool = draw(st.lists(st.one_of(_atoms(), _grow(_atoms())), min_size=1, max_size=3))
    parts = st.sampled_from(pool)
    return draw(_grow(_grow(parts)))


class _Counted:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x: object) -> object:
        self.calls += 1
        if isinstance(x, bool) or not isinstance(x, int):
            return x
        return x * 2 + 1


def _run(fn: ast.FunctionDef, a: int, b: int, lst: list[int]) -> tuple[object, int]:
    source = ast.unparse(ast.fix_missing_locations(ast.Module([fn], [])))
    counted = _Counted()
    namespace: dict[str, object] = {"f": counted, "tab": [3, 1, 4]}
    exec(compile(source, "<test>", "exec"), namespace)
    try:
        result: object = namespace[fn.name](a, b, lst)  # type: ignore[operator]
    except Exception as error:  # the same error is expected of both
        result = type(error)
    return result, counted.calls


def _function(expression: str) -> ast.FunctionDef:
    body = ast.parse(expression, mode="eval").body
    return pyast.function("probe", ["a", "b", "lst"], [pyast.return_(body)])


def _cse(fn: ast.FunctionDef) -> ast.FunctionDef:
    return share_common_subexpressions(fn, _fresh, lambda name: False)


def _binds(fn: ast.FunctionDef) -> ast.FunctionDef:
    return inline_binds(fn, _fresh)


def _both(fn: ast.FunctionDef) -> ast.FunctionDef:  # as the code generator runs them
    return _cse(_binds(fn))


@pytest.mark.parametrize("rewrite", [_cse, _binds, _both])
@settings(max_examples=120, deadline=None)
@given(
    expression=_expressions(),
    a=st.integers(-2, 2),
    b=st.integers(-2, 2),
    lst=st.lists(st.integers(-3, 3), max_size=3),
)
def test_rewriting_keeps_every_value_and_error_and_computes_nothing_more(
    rewrite, expression: str, a: int, b: int, lst: list[int]
) -> None:
    before = _function(expression)
    after = rewrite(before)
    value_before, calls_before = _run(before, a, b, lst)
    value_after, calls_after = _run(after, a, b, lst)
    assert value_after == value_before, ast.unparse(after)
    assert calls_after <= calls_before, ast.unparse(after)


def test_a_part_computed_twice_is_computed_once() -> None:
    fn = _function("f(a) + f(a) * (f(a) if b else 0)")
    out = share_common_subexpressions(fn, _fresh, lambda name: False)
    assert _run(out, 1, 1, [])[1] == 1
    assert _run(fn, 1, 1, [])[1] == 3
    assert sum(isinstance(node, ast.NamedExpr) for node in ast.walk(out)) == 1


def test_a_part_computed_only_on_some_paths_is_not_computed_earlier() -> None:
    # f(a) in the branch is not on every path to the f(a) after the conditional
    fn = _function("(f(a) if b else 0) + f(a)")
    out = share_common_subexpressions(fn, _fresh, lambda name: False)
    assert not any(isinstance(node, ast.NamedExpr) for node in ast.walk(out))
    assert out is fn


def test_iterators_methods_and_comprehension_iterables_are_left_alone() -> None:
    # an iterator read twice, a method that changes a list, a part in a comprehension's iterable
    for expression in (
        "sum(map(f, lst)) + sum(map(f, lst))",
        "lst.append(f(a)) or f(a) + f(a)",
        "[y for y in (lst + [f(a)]) if y == f(a)] + [f(a)]",
    ):
        fn = _function(expression)
        out = share_common_subexpressions(fn, _fresh, lambda name: False)
        compile(ast.unparse(ast.fix_missing_locations(ast.Module([out], []))), "<test>", "exec")
        assert _run(out, 1, 1, [1, 2])[0] == _run(_function(expression), 1, 1, [1, 2])[0]
    fn = _function("g(lst) + g(lst)")
    assert share_common_subexpressions(fn, _fresh, lambda name: name == "g") is fn


def test_statements_shared_with_other_functions_are_not_changed() -> None:
    statement = pyast.return_(ast.parse("f(a) + f(a)", mode="eval").body)
    text = ast.dump(statement)
    one = pyast.function("one", ["a", "b", "lst"], [statement])
    out = share_common_subexpressions(one, _fresh, lambda name: False)
    assert out is not one and ast.dump(statement) == text


def test_a_bind_keeps_its_value_in_a_local_of_its_own() -> None:
    fn = _function("(lambda q: q + q)(f(a)) + (lambda q: q * 2)(f(b))")
    out = _binds(fn)
    assert not any(isinstance(node, ast.Lambda) for node in ast.walk(out))
    targets = [node.target.id for node in ast.walk(out) if isinstance(node, ast.NamedExpr)]
    assert len(targets) == len(set(targets)) == 2
    assert _run(out, 1, 2, []) == _run(fn, 1, 2, [])


def test_binds_inside_comprehensions_stay_functions() -> None:
    for expression in ("[(lambda q: q + y)(f(a)) for y in lst]", "[y for y in (lambda q: [q])(f(a))]"):
        out = _binds(_function(expression))
        assert any(isinstance(node, ast.Lambda) for node in ast.walk(out))


@pytest.mark.parametrize(
    ("expression", "at_first_read"),
    [
        ("(lambda q: 1 if q < f(b) else 0)(f(a))", True),  # the test's left side is read first
        ("(lambda q: q[0] + q[1] and q)(lst)", True),
        ("(lambda q: -q * 2 == a or q)(f(a))", True),
        ("(lambda q: f(b) + q)(f(a))", False),  # f(b) runs first: the value must come before it
        ("(lambda q: [q, q])(f(a))", False),
    ],
)
def test_a_bind_read_first_keeps_its_value_where_it_is_read(expression: str, at_first_read: bool) -> None:
    """Where the body's first evaluation is a read of the bound value, the value is kept there
    (`(v := value) < ...`); elsewhere before the body (`... if (v := value) or True else None`)."""
    fn = _function(expression)
    out = _binds(fn)
    wrapped = any(isinstance(node, ast.IfExp) and isinstance(node.test, ast.BoolOp) for node in ast.walk(out))
    assert wrapped is not at_first_read
    assert not any(isinstance(node, ast.Lambda) for node in ast.walk(out))
    for a, b, lst in [(1, 2, [5, 6]), (3, -1, [0, 0]), (0, 0, [])]:
        assert _run(out, a, b, lst) == _run(fn, a, b, lst)  # the same value or error, f called as often
