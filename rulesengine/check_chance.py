"""Checking the chance events and the bounded loop of effect lists: `x = random xs`,
`move random xs to z` and `repeat: N ... until: COND`.

A random choice is checked as two statements: the chance event (`ir.Random`, which puts
the drawn element into a fresh local) and the assignment or move that uses that local,
so the rest of the pipeline sees an ordinary assignment or move.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import attrs

from . import ir, syntax
from .check_base import CheckerBase, Scope
from .check_fold import TooLarge, fold
from .diagnostics import Span
from .limits import MAX_REPEAT

_DRAWN = " drawn"  # the local holding a drawn element: a space, so no rule-file name can be it


class ChanceChecker(CheckerBase):
    if TYPE_CHECKING:  # from the expression mixin (check_expressions.py)

        def statement(self, s: syntax.Stmt, scope: Scope) -> ir.Stmt | list[ir.Stmt]: ...
        def expect(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr: ...
        def checked_statements(self, statements: Iterable[syntax.Stmt], scope: Scope) -> list[ir.Stmt]: ...

    def random_statement(self, s: syntax.Move | syntax.Assign, scope: Scope) -> list[ir.Stmt]:
        picked = s.cards if isinstance(s, syntax.Move) else s.value
        assert isinstance(picked, syntax.RandomPick)  # the caller asks for a random choice only
        candidates = self.expr(picked.candidates, scope)
        element = ir.element_of(candidates.type)
        if element is None:
            self.fail(
                "RE255",
                f"'random' draws an element of a list or zone, not of {ir.type_name(candidates.type)}",
                picked.candidates.span,
                hint="e.g. 'dealer = random players', 'first = random range(1, 7)', 'move random stock to pile'",
            )
        slot = self.new_slot()
        inner = scope.bind(_DRAWN, ir.Local(element, picked.span, "random", slot))
        drawn = syntax.Name(picked.span, _DRAWN)
        if isinstance(s, syntax.Move):
            if element != ir.CARD:
                self.fail("RE302", f"'move random' draws a card, not {element}", picked.candidates.span)
            rest = self.statement(attrs.evolve(s, cards=drawn), inner)
        else:
            rest = self.statement(attrs.evolve(s, value=drawn), inner)
        assert isinstance(rest, ir.Stmt)  # a plain move or assignment
        return [ir.Random(s.span, slot, candidates), rest]

    def repeat(self, s: syntax.Repeat, scope: Scope) -> ir.Stmt:
        count = self.expect(self.expr(s.count, scope), ir.INT, s.count.span)
        most = self.repeat_bound(count)
        until = self.expect(self.expr(s.until, scope), ir.BOOL, s.until.span) if s.until is not None else None
        body = tuple(self.checked_statements(s.body, scope))
        return ir.Repeat(s.span, count, body, until, most)

    def repeat_bound(self, count: ir.Expr) -> int:
        """The most passes a repeat can make, seen before play: a number (`-5` too: it runs
        no pass), or an int option with `max` or `choices`; at most limits.MAX_REPEAT."""
        most = _constant(count)
        if isinstance(count, ir.OptionRef):
            option = self.options[count.name]
            if option.choices:
                most = max(int(c) for c in option.choices if isinstance(c, int))
            elif option.maximum is not None:
                most = option.maximum
        if most is None:
            self.fail(
                "RE253",
                "a repeat needs a count the checker can see: a number, or an option with 'max' or 'choices'",
                count.span,
                hint="e.g. 'repeat: 3', or give the option a 'max'",
            )
        if most > MAX_REPEAT:
            self.fail(
                "RE254",
                f"a repeat may run at most {MAX_REPEAT} times; this one up to {most}",
                count.span,
                hint="repeat fewer times, or lower the option's 'max'",
            )
        return max(most, 0)


def _constant(count: ir.Expr) -> int | None:
    """The count when constants alone decide it (`3`, `-5`, `2 * 3`), else None."""
    try:
        value = fold(count, {}, None)
    except TooLarge:  # reported where the expression was checked
        return None
    return value if type(value) is int else None
