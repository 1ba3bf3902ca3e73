"""Effect lists whose chance events stand inside blocks, as segments with jumps.

A shuffle or a random choice is a chance node: the engine stops there and goes on when the
outcome is known. An effect list with one inside an if-, for- or repeat-block (or with a
repeat-block at all) is therefore cut into `Segment`s, each running chance-free effects as
one function and then, at most, one chance event or one jump; the engine's agenda walks
them (engine.py). A for-block keeps its copied collection and position, a repeat-block
its remaining passes, in locals beyond the checker's (the environment is copied with the
agenda when a state is cloned).

Both execution paths use this: the compiler passes generated functions for the plain
effects and expressions, the reference mode its closures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from . import ir
from .compile import Effect, Fn, Segment
from .limits import MAX_RANGE, MAX_REPEAT


def needs_flow(statements: tuple[ir.Stmt, ...]) -> bool:
    """Whether a list must be cut into segments with jumps (chance inside a block, a random
    choice or a repeat anywhere) or keep a procedure's parameter in the environment (bound
    before a shuffle: the segments after it read it there); a list with only top-level
    shuffles needs neither."""
    bound = False
    for s in statements:
        if isinstance(s, (ir.Random, ir.Repeat)):
            return True
        if isinstance(s, (ir.If, ir.For)) and ir.has_chance((s,)):
            return True
        if isinstance(s, ir.Let):
            bound = True
        elif isinstance(s, ir.Shuffle) and bound:
            return True
    return False


class _Op:
    """A segment being built (its jump targets are known only later)."""

    def __init__(self, run: Effect) -> None:
        self.run = run
        self.shuffle: Fn | None = None
        self.choose: Fn | None = None
        self.slot = 0
        self.kind = ""
        self.test: Fn | None = None
        self.otherwise = 0
        self.next = -1


class Flattener:
    """Cuts effect lists into segments; `extra` is how many locals the loops need beyond `base`."""

    def __init__(
        self,
        plain: Callable[[list[ir.Stmt]], Effect],
        expr: Callable[[ir.Expr], Fn],
        items: Callable[[ir.Expr], Fn],
        base: int,
    ) -> None:
        self.plain = plain  # a chance-free effect list as one function
        self.expr = expr
        self.items = items  # a fresh list of a collection's elements (cards of a zone)
        self.base = base
        self.extra = 0

    def segments(self, statements: tuple[ir.Stmt, ...]) -> tuple[Segment, ...]:
        self.ops: list[_Op] = []
        pending = self.emit(statements, 0)
        self.op(pending)
        end = len(self.ops)
        return tuple(
            Segment(o.run, o.shuffle, o.choose, o.slot, o.kind, o.test, end if o.otherwise < 0 else o.otherwise, o.next)
            for o in self.ops
        )

    def op(self, pending: list[ir.Stmt], then: Effect | None = None) -> _Op:
        run = self.plain(pending) if pending else None
        if then is not None and run is not None:
            first, second = run, then

            def both(st: Any, env: list) -> None:
                first(st, env)
                second(st, env)

            run = both
        made = _Op(run or then or _nothing)
        self.ops.append(made)
        return made

    def local(self, depth: int) -> int:
        self.extra = max(self.extra, 2 * depth + 2)
        return self.base + 2 * depth

    def emit(self, statements: tuple[ir.Stmt, ...], depth: int) -> list[ir.Stmt]:
        """Emit segments for `statements`; returns the plain statements left at the end."""
        pending: list[ir.Stmt] = []
        for s in statements:
            if isinstance(s, ir.Shuffle):
                self.op(pending).shuffle = self.expr(s.zone)
            elif isinstance(s, ir.Random):
                made = self.op(pending)
                made.choose, made.slot = self.items(s.candidates), s.slot
                made.kind = ir.element_of(s.candidates.type) or ""
            elif isinstance(s, ir.If) and ir.has_chance((s,)):
                head = self.op(pending)
                head.test = self.expr(s.condition)
                self.op(self.emit(s.then, depth)).next = -2  # to the end of the block, set below
                jump = self.ops[-1]
                head.otherwise = len(self.ops)
                self.op(self.emit(s.otherwise, depth))
                jump.next = len(self.ops)
            elif isinstance(s, ir.For) and ir.has_chance((s,)):
                self.loop(s, pending, depth)
            elif isinstance(s, ir.Repeat):
                self.repeat(s, pending, depth)
            elif isinstance(s, ir.Let):
                self.bind(s, pending)
            else:
                pending.append(s)
                continue
            pending = []
        return pending

    def bind(self, s: ir.Let, pending: list[ir.Stmt]) -> None:
        """A procedure's parameter, kept in the environment: later segments read it there."""
        value, slot = self.expr(s.value), s.slot

        def let(st: Any, env: list) -> None:
            env[slot] = value(st, env)

        self.op(pending, let)

    def loop(self, s: ir.For, pending: list[ir.Stmt], depth: int) -> None:
        items, slot = self.items(s.collection), s.slot
        held = self.local(depth)
        at = held + 1

        def start(st: Any, env: list) -> None:
            env[held] = items(st, env)  # a copy: the body may move the cards it goes over
            env[at] = 0

        def step(st: Any, env: list) -> bool:
            position = env[at]
            if position >= len(env[held]):
                return False
            env[slot] = env[held][position]
            env[at] = position + 1
            return True

        self.op(pending, start)
        head = len(self.ops)
        self.op([]).test = step
        self.op(self.emit(s.body, depth + 1)).next = head
        self.ops[head].otherwise = len(self.ops)

    def repeat(self, s: ir.Repeat, pending: list[ir.Stmt], depth: int) -> None:
        count, until = self.expr(s.count), self.expr(s.until) if s.until is not None else None
        left = self.local(depth)

        def start(st: Any, env: list) -> None:
            env[left] = max(0, min(count(st, env), MAX_REPEAT))

        def another(st: Any, env: list) -> bool:
            if env[left] <= 0:
                return False
            env[left] -= 1
            return True

        self.op(pending, start)
        head = len(self.ops)
        self.op([]).test = another
        last = self.op(self.emit(s.body, depth + 1))
        last.next = head
        if until is not None:
            check = until

            def go_on(st: Any, env: list) -> bool:
                return not check(st, env)

            last.test = go_on  # once `until` holds, on past the repeat
        end = len(self.ops)
        self.ops[head].otherwise = end
        last.otherwise = end


def most_outcomes(ruleset: ir.Ruleset, options: Mapping[str, object], players: int, cards: int) -> int:
    """The most outcomes one chance node can have: a card of a shuffle, or one element of
    a random choice (bounded by its type, a list literal's items or a range's bounds)."""
    most = cards
    counts = _Counts(options, players, cards, len(ruleset.suits), len(ruleset.ranks))
    for s in _statements(ruleset):
        if isinstance(s, ir.Random):
            most = max(most, counts.length(s.candidates, {}))
    return most


@attrs.frozen
class _Counts:
    """What bounds a list in one setting: its options, and how many seats, cards, suits
    and ranks there are (a list of distinct values of a type holds at most that many)."""

    options: Mapping[str, object]
    players: int
    cards: int
    suits: int
    ranks: int

    def length(self, e: ir.Expr, binds: dict[int, int]) -> int:
        """The most items the list `e` can hold; `binds`: the bound of each bind's list by slot.
        Lists joined with `+` can hold a value twice, and so can what keeps or takes their items."""
        if isinstance(e, ir.ListExpr):
            return len(e.items)
        if isinstance(e, ir.Call) and e.function == "concat":
            return sum(self.length(part, binds) for part in e.args)
        if isinstance(e, ir.Call) and e.function in ("top", "bottom") and e.args[0].type != ir.ZONE:
            return self.length(e.args[0], binds)  # (of a zone: the zone's cards, below)
        if isinstance(e, ir.Macro) and e.kind == "filter":
            return self.length(e.collection, binds)
        if isinstance(e, ir.Macro) and e.kind == "bind" and e.body is not None:
            if ir.element_of(e.collection.type) is not None:
                binds = {**binds, e.slot: self.length(e.collection, binds)}
            return self.length(e.body, binds)
        if isinstance(e, ir.Local) and e.slot in binds:
            return binds[e.slot]
        if isinstance(e, ir.Conditional):
            return max(self.length(side, binds) for side in (e.then, e.otherwise))
        if isinstance(e, ir.Call) and e.function == "range":
            bounds = [b for b in (_constant(a, self.options) for a in e.args) if isinstance(b, int)]
            if len(bounds) == len(e.args):
                low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
                return max(0, min(high - low, MAX_RANGE))
        element = ir.element_of(e.type)
        kinds = {ir.CARD: self.cards, ir.PLAYER: self.players, ir.SUIT: self.suits, ir.RANK: self.ranks}
        return kinds.get(element or "", MAX_RANGE)


def _constant(e: ir.Expr, options: Mapping[str, object]) -> object:
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.OptionRef):
        return options.get(e.name)
    return None


def _statements(value: Any) -> Iterator[ir.Stmt]:
    """Every statement inside an IR value (the ruleset, a move, a statement), nested ones too."""
    if isinstance(value, ir.Stmt):
        yield value
    if isinstance(value, tuple):
        for item in value:
            yield from _statements(item)
    elif attrs.has(type(value)) and not isinstance(value, ir.Expr):
        for field in attrs.fields(type(value)):
            yield from _statements(getattr(value, field.name))


def _nothing(st: Any, env: list) -> None:
    return None
