"""Generate Python functions for checked expressions and effects, once per game setting.

Each expression becomes one function `f(state, env)` whose body is a single Python
expression: bound names are Python locals, card attributes are table lookups, list
macros are generator expressions; an effect list becomes one function of statements.
Everything is built as Python `ast` nodes from the IR and the frozen `Layout`; the source
text of a function is produced once, when it is finished (pyast.emit_function), and every
name in it comes from the one `NameAllocator`. The optimisations are passes over IR or
Python syntax nodes, each named below with what it preserves:

- `fold` (Python nodes): an operator whose operands are constants of the game setting is
  replaced by its value. Preserves every value (the operators are the language's own).
- `hoist` (IR → a local computed before the loops): a part of a `legal` test that reads no
  parameter and cannot fail is computed once per enumeration. Preserves every value
  (expressions have no side effects and the state does not change while actions are listed).
- `unroll` (IR): `any`, `all`, `count`, `sum`, `max`, `min` over values known when the game
  is compiled are written out value by value, within a size budget (`max`/`min` as the
  built-in given the values, not over `active`); so is an effect's `for` over the seats
  (over `active`, when its body puts nobody out). Preserves the value and the order of
  evaluation (left to right, stopping as `any`/`all` do).
- `two extremes` (Python nodes): `min`/`max` of two ints is a conditional expression, each
  value computed once and asked in its order unless it cannot fail (`_extreme_of_two`).
  Preserves the value and every error.
- `tournament` (Python nodes): an unrolled `argmax`/`argmin` over 2 to MAX_TOURNAMENT values
  is nested comparisons of locals (over `active`, while every seat is in the round).
  Preserves the item chosen (the first best on ties) and the order of evaluation.
- `count test` (IR): `count(...)` compared with 0 or with its collection's constant length
  is `any`/`all` (or their negation) where that is the same for every possible count and no
  item's test can raise. Preserves the value.
- `inline checks` (Python nodes): the range test of a cheap player index of a per-player
  variable or of a zone's cheap indices (a local, or small code with no loop and no call but
  `len`), and the limit test of `x += v` (one limit when `v` is a constant), are written
  inline; the helper runs only to raise. Preserves every value and every error with its
  rule position.
- `known seats` (IR): within one effect list, a variable that a statement sets to a seat
  (`argmax`/`argmin` over every seat included) is a seat for the statements after it, until
  one that may set it again (in a loop, any assignment in its body counts from the start of
  the body); indexing by it needs no range test. Preserves every value and every error.
- `alias` (IR): inside a set whose cards share an attribute, a test reading only that
  attribute is asked of the first card. Preserves the answer (every card gives the same).
- `known phase` (IR): in a step of a move of one phase only, the rules' `phase` is that
  phase, a constant. Preserves every value (the phase changes only after a step).
- `everyone stays` (IR): in a game setting whose rules hold no `out` that can run (stays.py),
  `active` is `players`, `is_active` of a seat is true and `next` of a seat is the next seat
  in the direction of play; the turn passing and settle ask no seat whether it is in the
  round (codegen_moves.py, flow.py). Preserves every value (a seat leaves the round only
  by `out`, and every round starts with every seat in it).
- `listed values`, `shared card loops`, `shared lookups`, `implication` and `play`
  (codegen_moves.py).
- `untracked moves` (Python nodes): a card move onto the top of a zone not kept sorted is,
  for a state that keeps no knowledge, written out without the state's method
  (inline_moves.py). Preserves the zones and each card's place after the move.
- `inline binds` (Python nodes, every generated function): `(lambda v: body)(value)`, as
  `bind` is generated, keeps the value in a new local instead of calling a function
  (binds.py). Preserves the order of evaluation and every value.
- `common subexpressions` (Python nodes, every generated function): a part computed again
  later in the same expression, on every path there, is computed once into a local
  (subexpressions.py). Preserves every value and every error raised.
- `known truth` (Python nodes, every generated function): a test of a local (or of an item
  of one at a constant place) that the expression around it, or the test of the `if` whose
  block it opens, has already decided is left out (known.py). Preserves every value.

Nothing here runs while a game is played.
"""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import linecache
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from . import inline_moves, ir, pyast, runtime, stays
from .binds import inline_binds
from .diagnostics import EngineError, Span, printable
from .known import decide_known_tests
from .layout import Layout
from .limits import MAX_CARDS, MAX_INTEGER, MAX_PLAYERS, MAX_RANGE, MAX_TEXT_LENGTH
from .lower import is_seat
from .names import NameAllocator
from .pyast import call, compare, const, is_const, name, sub
from .subexpressions import share_common_subexpressions

# the state's lists that stay the same objects all through a match (changed only in place)
_STATE_LISTS = ("zones", "vars", "where", "active")

MAX_TOURNAMENT = 4  # argmax/argmin over at most this many values may be nested comparisons (2**(n-1) paths)
PLAIN_INDEX = 160  # an index of a zone or a player's variable within this many syntax nodes is range-tested inline
MAX_UNROLLED = 8  # a macro over at most this many known values may be written out value by value
UNROLL_BUDGET = 4_096  # ... and only while the written-out code stays within this many syntax nodes
UNROLL_WORK = 4_096  # bodies written out per game setting: past it, macros stay loops (bodies that fold
# to constants are small, yet nested ones would cost 9**depth to write out)


_COMPILED = itertools.count(1)  # makes each generated function's file name its own


@attrs.frozen
class GeneratedSource:
    """One generated function: its name, what it is (with the rule-file position) and its source."""

    name: str
    heading: str
    source: str


def position(span: Span) -> str:
    return f"{span.file}:{span.line}:{span.column}"


def _extreme(kind: str, values: ast.expr, items: ast.expr) -> ast.expr:
    """`max`/`min` of `values` (one per item of the list `items`), 0 for an empty list: the
    emptiness asked of the list, since `default=` makes the built-in parse its keywords."""
    return pyast.ifexp(items, call(kind, values), const(0))


def free_slots(e: ir.Expr | None, bound: frozenset[int] = frozenset()) -> set[int]:
    """Slots an expression reads that are not bound inside it by a list macro."""
    if e is None:
        return set()
    if isinstance(e, ir.Local):
        return set() if e.slot in bound else {e.slot}
    if isinstance(e, ir.Macro):
        return free_slots(e.collection, bound) | free_slots(e.body, bound | {e.slot})
    out: set[int] = set()
    for child in ir.children(e):
        out |= free_slots(child, bound)
    return out


class CodeGenerator:
    """Turns IR expressions of one game setting into compiled Python functions."""

    def __init__(self, layout: Layout, names: NameAllocator | None = None):
        self.layout = layout
        self.names = names or NameAllocator()
        self.namespace: dict[str, object] = {}  # the globals of every generated function
        self.values: dict[int, str] = {}  # id(value) -> name, to share constant tables
        self._kept: list[object] = []
        self._derived: dict[tuple, str] = {}  # the values named, kept alive so their ids stay theirs
        self.sources: list[GeneratedSource] = []
        self._hoisted: list[tuple[str, ast.expr]] | None = None  # while generating a legal test
        self._forbidden: set[int] = set()  # slots that vary inside the loops
        # local slots holding lists -> their length bounds: the binds around the code being
        # generated, a legal test's set parameters
        self._lengths: Lengths = _NO_LENGTHS
        self._shared: dict[int, str] = {}  # set parameter slot -> the attribute its cards share
        self._aliases: dict[int, ast.expr] = {}  # slot -> the node standing for it
        # While a legal test is asked per group: set parameter slot -> the group's shared value,
        # and (card slot, attribute) -> the node standing for that card's attribute.
        self._group_values: dict[int, ast.expr] = {}
        self._attribute_aliases: dict[tuple[int, str], ast.expr] = {}
        self._getters: dict[str, str] = {}  # constant table -> the constant holding its lookup function
        self._card_self: str | None = None  # the parameter holding the card of a card-context function
        self._unroll_work = 0  # bodies written out by the pass `unroll` so far
        self.real_cards: set[int] = set()  # slots holding a card of a zone (never "no card") where generated
        # while generating a step of a move of one phase only: that phase's index (the phase
        # changes only after the step, when the engine checks the flow)
        self.step_phase: int | None = None
        # pass `everyone stays`: the rules of this setting put nobody out (stays.py), so every
        # seat is in the round all match long and `active` is `players`
        self.everyone_stays = False
        # whether the rules may show cards (`reveal`) or choose the next player (`turn to`): a step
        # clears the state's notes of them only then (the pass `records`, codegen_moves.py)
        self.shows_cards = self.chooses_turn = True
        # pass `known seats`: the variables an earlier statement of the effect list being
        # generated set to a seat, and that nothing since can have set again
        self._seat_variables: frozenset[str] = frozenset()

    # ---- names and constants ---------------------------------------------------------

    def slot(self, slot: int) -> str:
        return self.names.slot(slot)

    def constant(self, value: object, hint: str = "k") -> str:
        """The global name of a constant (a table, a helper, a message): one name per object."""
        key = id(value)
        if key in self.values:
            return self.values[key]
        symbol = self.names.fresh("_" + hint)
        self.namespace[symbol] = value
        self.values[key] = symbol
        self._kept.append(value)
        return symbol

    def derived(self, key: tuple, make: Callable[[], object], hint: str) -> str:
        """The name of a constant made from the layout, one per `key` (so equal reads share a
        name, and the pass `hoist` sees them as equal)."""
        symbol = self._derived.get(key)
        if symbol is None:
            symbol = self._derived[key] = self.constant(make(), hint)
        return symbol

    def helper(self, function: Callable, hint: str) -> ast.Name:
        return name(self.constant(function, hint))

    # ---- functions -------------------------------------------------------------------

    def define(self, fn: ast.FunctionDef, heading: str, of_state: bool = False) -> Callable:
        """Emit a finished function once, compile it, and keep its source (for `rulesengine
        compile`, the runtime-interface test, and tracebacks, which show its lines). A function
        `of_state` is always given a state (never None, as a static value's is): the state's
        lists it reads again and again are read once into locals."""
        try:
            if of_state:
                fields = {field: self.names.fresh("_" + field) for field in _STATE_LISTS}
                fn = pyast.state_lists_as_locals(fn, fields)
            fn = share_common_subexpressions(inline_binds(fn, self.names.fresh), self.names.fresh, self._reads_once)
            fn = pyast.with_guards(decide_known_tests(fn))
            source = pyast.emit_function(fn, heading)
            code = compile(source, filename := f"<{printable(heading)} #{next(_COMPILED)}>", "exec")
        except (SyntaxError, RecursionError) as error:  # past what CPython compiles (nesting, mostly)
            reason = error.msg if isinstance(error, SyntaxError) else "nested too deeply"
            raise EngineError(
                f"{printable(heading)}: the code generated for it is more than Python can compile ({reason}); "
                "nest fewer blocks, procedure calls or parameters there"
            ) from None
        # Tracebacks read the lines from here, for as long as the function lives.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(code, self.namespace)  # generated from the IR, never rule text
        self.sources.append(GeneratedSource(fn.name, heading, source))
        function = self.namespace[fn.name]
        weakref.finalize(function, linecache.cache.pop, filename, None)
        return function  # type: ignore[return-value]

    def _reads_once(self, symbol: str) -> bool:
        """Whether the global `symbol` of generated code makes an iterator (read only once)."""
        value = self.namespace.get(symbol)
        return (isinstance(value, type) and hasattr(value, "__next__")) or inspect.isgeneratorfunction(value)

    def prologue(self, slots: set[int]) -> list[ast.stmt]:
        return [pyast.assign(self.slot(s), sub(name("env"), const(s))) for s in sorted(slots)]

    def function(self, e: ir.Expr, what: str = "expression") -> Callable[[Any, list], Any]:
        body = self.gen(e)
        statements = [*self.prologue(free_slots(e)), pyast.located(pyast.return_(body), position(e.span))]
        fn = pyast.function(self.names.fresh("_expr"), ["st", "env"], statements)
        return self.define(fn, f"{what} {position(e.span)}")

    def card_function(self, e: ir.Expr | tuple, what: str) -> Callable[[int], Any]:
        """A function of one card, `f(card)`, for a card attribute's expression or the card label."""
        self._card_self = self.names.fresh("card")
        try:
            body = self.gen(e) if isinstance(e, ir.Expr) else self.template_body(e)
        finally:
            card, self._card_self = self._card_self, None
        fn = pyast.function(self.names.fresh("_card_" + what), [card], [pyast.return_(body)])
        return self.define(fn, what)

    # ---- effects ---------------------------------------------------------------------

    def effects(self, statements: tuple[ir.Stmt, ...], heading: str) -> Callable[[Any, list], None]:
        """One generated function running an effect list (no shuffle inside: see compile.py)."""
        body = self.statements(statements)
        slots = {slot for statement in statements for slot in statement_slots(statement)}
        fn = pyast.function(self.names.fresh("_effects"), ["st", "env"], [*self.prologue(slots), *body])
        return self.define(fn, heading, of_state=True)

    def statements(self, statements: tuple[ir.Stmt, ...]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        outer = self._seat_variables  # what is known holds inside the list only
        try:
            for statement in statements:
                if self._seat_variables and isinstance(statement, ir.For):
                    # a pass of the body may follow another's assignment
                    self._seat_variables -= ir.assigned_variables(statement.body)
                known = self._seats_after(statement)
                generated = self.statement(statement)
                if generated and not hasattr(generated[0], "rule_position"):
                    pyast.located(generated[0], position(statement.span))
                out.extend(generated)
                self._seat_variables = known
        finally:
            self._seat_variables = outer
        return out

    def _seats_after(self, s: ir.Stmt) -> frozenset[str]:
        """Pass `known seats`: the variables holding a seat once `s` has run (its value is
        judged before it runs, as it is computed before the variable is set)."""
        known = self._seat_variables
        if known:  # nothing known (the common case): no walk of the statement
            known -= ir.assigned_variables((s,))
        if isinstance(s, ir.Assign) and not s.indices and s.op == "=" and self.seat(s.value):
            known |= {s.variable}
        return known

    def seat(self, e: ir.Expr) -> bool:
        """Whether a player expression always gives a seat, never nobody: as `lower.is_seat`
        says, a variable the pass `known seats` knows, or the best of every seat (`argmax`
        and `argmin` over `players`, or over `active` while everyone stays)."""
        if is_seat(e, self.layout.seat_slots):
            return True
        if e.type != ir.PLAYER:
            return False
        if isinstance(e, ir.VarRef):
            return not e.indices and e.variable in self._seat_variables
        return isinstance(e, ir.Macro) and e.kind in ("argmax", "argmin") and self.all_seats(e.collection)

    def move(self, s: ir.Move) -> list[ast.stmt]:
        """A card move: the state's method, or for an untracked state onto the top of a zone not
        kept sorted, the move written out (inline_moves.py; a tracked state still calls the
        method, which tells the players of the move)."""
        sorted_tables = name(self.constant(self.layout.sorted_tables, "sorted"))
        plain = isinstance(s.destination, ir.ZoneRef) and not self.layout.families[s.destination.zone].sorted_by
        cards = s.cards
        fresh = self.names.fresh
        first: list[ast.stmt] = []
        if plain and not s.at_bottom and cards.type == ir.CARD:
            card = pyast.kept(self.gen(cards), "_card", fresh, first)
            destination = pyast.kept(self.gen(s.destination), "_to", fresh, first)
            method = pyast.method(name("st"), "put_on_top", card, destination)
            return inline_moves.tracked_or_inline(first, method, inline_moves.one_card(card, destination, fresh))
        if plain and not s.at_bottom and cards.type == ir.ZONE:
            # the whole zone: `move_top` of all its cards
            source = pyast.kept(self.gen(cards), "_source", fresh, first)
            destination = pyast.kept(self.gen(s.destination), "_to", fresh, first)

            def whole() -> ast.expr:
                count = call("len", sub(pyast.st("zones"), source))
                return pyast.method(name("st"), "move_top", source, count, destination, sorted_tables)

            inline = inline_moves.whole_zone(source, destination, whole() if self._may_be(cards, s) else None, fresh)
            return inline_moves.tracked_or_inline(first, whole(), inline)
        if (
            plain
            and not s.at_bottom
            and isinstance(cards, ir.Call)
            and cards.function == "top"
            and len(cards.args) == 2
            and cards.args[0].type == ir.ZONE
        ):
            zone = pyast.kept(self.gen(cards.args[0]), "_source", fresh, first)
            count = pyast.kept(self.gen(cards.args[1]), "_count", fresh, first)
            destination = pyast.kept(self.gen(s.destination), "_to", fresh, first)

            def top() -> ast.expr:
                return pyast.method(name("st"), "move_top", zone, count, destination, sorted_tables)

            same = top() if self._may_be(cards.args[0], s) else None
            inline = inline_moves.top_cards(zone, count, destination, same, fresh)
            return inline_moves.tracked_or_inline(first, top(), inline)
        if cards.type == ir.CARD:
            moved: ast.expr = pyast.tuple_([self.gen(cards)])
        else:
            collection = self.collection(cards)
            # a list of their own (the zone changes as cards leave): a comprehension makes one
            moved = collection if isinstance(collection, ast.ListComp) else call("list", collection)
        if plain and not s.at_bottom and cards.type != ir.CARD:
            listed = pyast.kept(moved, "_moved", fresh, first)
            destination = pyast.kept(self.gen(s.destination), "_to", fresh, first)
            method = pyast.method(name("st"), "move_cards", listed, destination, const(False), sorted_tables)
            return inline_moves.tracked_or_inline(first, method, inline_moves.several(listed, destination, fresh))
        destination = self.gen(s.destination)
        return [
            pyast.expr(pyast.method(name("st"), "move_cards", moved, destination, const(s.at_bottom), sorted_tables))
        ]

    @staticmethod
    def _may_be(source: ir.Expr, s: ir.Move) -> bool:
        """Whether zone `source` may be the destination of `s` (not when of another family)."""
        destination = s.destination
        return not (isinstance(source, ir.ZoneRef) and isinstance(destination, ir.ZoneRef)) or (
            source.zone == destination.zone
        )

    def statement(self, s: ir.Stmt) -> list[ast.stmt]:
        layout = self.layout
        where = const(position(s.span))
        if isinstance(s, ir.Move):
            return self.move(s)
        if isinstance(s, ir.Deal):
            family = layout.families[s.family]
            count = self.gen(s.count) if s.count is not None else const(None)
            sorted_tables = name(self.constant(layout.sorted_tables, "sorted"))
            start = self.player(s.start, where, "'deal'")
            return [
                pyast.expr(
                    pyast.method(
                        name("st"), "deal", self.gen(s.source), const(family.base), start, count, sorted_tables
                    )
                )
            ]
        if isinstance(s, ir.Reveal):
            # The cards before the player, as the reference mode reads them, when both can fail
            # (which error comes first).
            seat_first: list[ast.stmt] = []
            cards_first = not self.seat(s.player) and may_fail(s.cards, layout, self._lengths)
            if s.cards.type != ir.ZONE:
                card = s.cards.type == ir.CARD
                shown = pyast.list_([self.gen(s.cards)]) if card else call("list", self.collection(s.cards))
                if cards_first:
                    shown = pyast.kept(shown, "_shown", self.names.fresh, seat_first)  # type: ignore[assignment]
                player = self.player(s.player, where, "'reveal'")
                return [*seat_first, pyast.expr(pyast.method(name("st"), "reveal", player, shown))]
            # A zone's cards are all real ones: an untracked state adds them to what the player is
            # shown, without the method's copy and test of each card.
            cards = self.collection(s.cards)
            if cards_first:
                cards = pyast.kept(cards, "_cards", self.names.fresh, seat_first)
            seat = pyast.kept(self.player(s.player, where, "'reveal'"), "_seat", self.names.fresh, seat_first)
            inline = [
                pyast.expr(pyast.method(pyast.sub(pyast.st("shown"), seat), "extend", cards)),
                pyast.assign(pyast.store_attr(name("st"), "shown_any"), const(True)),
            ]
            method = pyast.method(name("st"), "reveal", copy.deepcopy(seat), call("list", copy.deepcopy(cards)))
            return inline_moves.tracked_or_inline(seat_first, method, inline)
        if isinstance(s, ir.Assign):
            offset = layout.variable_offsets[s.variable]
            if not s.indices:
                target: ast.expr = pyast.store_sub(pyast.st("vars"), const(offset))
            else:
                index = self.variable_index(offset, s.variable, s.indices[0], s.span)
                target = pyast.store_sub(pyast.st("vars"), index)
            value = self.gen(s.value)
            if s.op == "=":
                if s.indices and not self.seat(s.indices[0]) and may_fail(s.value, layout, self._lengths):
                    # the index (nobody is refused) before the value, as the reference mode reads them
                    local = self.names.fresh("_index")
                    return [
                        pyast.assign(local, target.slice),  # type: ignore[attr-defined]
                        pyast.assign(pyast.store_sub(pyast.st("vars"), name(local)), value),
                    ]
                return [pyast.assign(target, value)]
            # `x += v` keeps x within the limits of the language: the stored result is checked.
            first: list[ast.stmt] = []
            if not isinstance(target.slice, (ast.Constant, ast.Name, ast.BinOp)):  # type: ignore[attr-defined]
                # a checked index: computed once for the read and the write
                local = self.names.fresh("_index")
                first.append(pyast.assign(local, target.slice))  # type: ignore[attr-defined]
                target = pyast.store_sub(pyast.st("vars"), name(local))
            read = sub(pyast.st("vars"), target.slice)  # type: ignore[attr-defined]
            result = pyast.binop(read, s.op[:-1], value)
            if s.value.type == ir.STR:
                checked: ast.expr = call(self.helper(runtime.check_text, "check_text"), result, where)
            else:
                # the range test inline, the helper (and its error) only past the limit
                r = self.names.fresh("_r")
                step = value.value if is_const(value) and type(value.value) is int else None  # type: ignore[attr-defined]
                if step is not None and s.op in ("+=", "-="):
                    # A stored value is within the limits: adding a constant can cross only the
                    # one on its side (`+= 1` needs one test).
                    upward = (step >= 0) == (s.op == "+=")
                    op, limit_value = ("<=", MAX_INTEGER) if upward else (">=", -MAX_INTEGER)
                    within: ast.expr = compare(pyast.walrus(r, result), op, const(limit_value))
                else:
                    within = pyast.and_(
                        compare(pyast.walrus(r, result), "<=", const(MAX_INTEGER)),
                        compare(name(r), ">=", const(-MAX_INTEGER)),
                    )
                limit = call(self.helper(runtime.check_int, "check_int"), name(r), where)
                checked = pyast.ifexp(within, name(r), limit)
            return [*first, pyast.assign(target, checked)]
        if isinstance(s, ir.TurnTo):
            return self.turn_to(s.player, where)
        if isinstance(s, ir.Out):
            return [pyast.expr(pyast.method(name("st"), "leave_round", self.gen(s.player), where))]
        if isinstance(s, ir.Reverse):
            return [pyast.assign(pyast.store_attr(name("st"), "direction"), pyast.neg(pyast.st("direction")))]
        if isinstance(s, ir.End):
            flag = {"round": "round_over", "game": "game_over", "phase": "phase_over"}[s.what]
            return [pyast.assign(pyast.store_attr(name("st"), flag), const(True))]
        if isinstance(s, ir.Goto):
            return [pyast.assign(pyast.store_attr(name("st"), "goto"), const(layout.phase_names.index(s.phase)))]
        if isinstance(s, ir.Log):
            parts = [const(part) if isinstance(part, str) else self.text(part, self.gen(part)) for part in s.parts]
            text = _join(parts)
            return [
                pyast.if_(
                    compare(pyast.st("log"), "is not", const(None)),
                    [pyast.expr(pyast.method(pyast.st("log"), "append", text))],
                )
            ]
        if isinstance(s, ir.If):
            condition = self.gen(s.condition)
            if is_const(condition):  # decided by the options: only one branch is compiled
                return self.statements(s.then if condition.value else s.otherwise)  # type: ignore[attr-defined]
            return [pyast.if_(condition, self.statements(s.then), self.statements(s.otherwise))]
        if isinstance(s, ir.Let):
            return [pyast.assign(self.slot(s.slot), self.gen(s.value))]
        if isinstance(s, ir.For):
            unrolled = self._for_by_seat(s)
            if unrolled is not None:
                return unrolled
            # A copy of the collection: the body may move the cards it goes over.
            return [pyast.for_(self.slot(s.slot), call("list", self.collection(s.collection)), self.statements(s.body))]
        raise EngineError(f"{position(s.span)}: no code for {type(s).__name__}")

    def _for_by_seat(self, s: ir.For) -> list[ast.stmt] | None:
        """Pass `unroll` for a `for` over `players` or `active`: the body once per seat, in seat
        order, each with its seat as a constant (over `active`, run while that seat is in the
        round: the same seats as a copy of the list when the body puts nobody out), within the
        unrolling budgets."""
        each = s.collection
        if not (isinstance(each, ir.Builtin) and each.name in ("players", "active")):
            return None
        seats = self.layout.num_players
        if seats > MAX_UNROLLED or self._unroll_work + seats > UNROLL_WORK:
            return None
        in_round = each.name == "active" and not self.everyone_stays
        if in_round and stays.puts_out(s.body):
            return None
        statements: list[ast.stmt] = []
        try:
            for seat in range(seats):
                self._aliases[s.slot] = const(seat)
                body = self.statements(s.body)
                if in_round:
                    body = [pyast.if_(sub(pyast.st("active"), const(seat)), body)] if body else []
                statements += body
        finally:
            self._aliases.pop(s.slot, None)
        if sum(pyast.size(statement) for statement in statements) > UNROLL_BUDGET:
            return None
        self._unroll_work += seats
        return statements

    def turn_to(self, player: ir.Expr, where: ast.expr) -> list[ast.stmt]:
        """`turn to`: the state's method written out for a seat (no call); anything else goes to
        the method, which raises the error naming the rule position."""
        first: list[ast.stmt] = []
        node = pyast.kept(self.gen(player), "_seat", self.names.fresh, first)
        chosen: list[ast.stmt] = [
            pyast.assign(pyast.store_attr(name("st"), "current"), node),
            pyast.assign(pyast.store_attr(name("st"), "turn_set"), const(True)),
        ]
        if self.seat(player) or _literal_within(node, self.layout.num_players):
            return [*first, *chosen]
        seat = pyast.within(node, self.layout.num_players)
        method = pyast.expr(pyast.method(name("st"), "turn_to", node, where))
        return [*first, pyast.if_(seat, chosen, [method])]

    def player(self, e: ir.Expr, where: ast.expr, what: str) -> ast.expr:
        """A player that must be a seat: nobody there is an error naming the rule position and
        `what` needs the player."""
        node = self.gen(e)
        if self.seat(e) or (is_const(node) and 0 <= node.value < self.layout.num_players):  # type: ignore
            return node
        seat = self.helper(runtime.rule_seat, "rule_seat")
        return call(seat, const(what), node, const(self.layout.num_players), where)

    def variable_index(self, offset: int, variable: str, index: ir.Expr, span: Span) -> ast.expr:
        node = self.gen(index)
        if self.seat(index):
            return fold_binop(const(offset), "+", node)
        # A player that may be "nobody" (-1): reading its value is an error, not another's value.
        check = self.derived(
            ("var_index", variable, position(span)),
            lambda: _variable_index(offset, self.layout.num_players, variable, span),
            "var_index",
        )
        players = self.layout.num_players
        if _literal_within(node, players):
            return fold_binop(const(offset), "+", node)
        if _cheap(index) or _plain(node):
            # Expressions are pure: a cheap index is tested inline (computed again, or kept in a
            # local by the pass `common subexpressions`), the helper raises the error past the range.
            within = pyast.within(node, players)
            return pyast.ifexp(within, fold_binop(const(offset), "+", node), call(name(check), node))
        return call(name(check), node)

    # ---- expressions -----------------------------------------------------------------

    def collection(self, e: ir.Expr, node: ast.expr | None = None) -> ast.expr:
        """An iterable: a zone gives its cards (`node`, when given, is `e` already generated)."""
        source = self.gen(e) if node is None else node
        return sub(pyast.st("zones"), source) if e.type == ir.ZONE else source

    def gen(self, e: ir.Expr) -> ast.expr:
        if self._hoisted is not None and self._hoistable(e):
            hoisted, self._hoisted = self._hoisted, None
            try:
                node = self.gen(e)
            finally:
                self._hoisted = hoisted
            return node if is_const(node) else self.hoist(node, hoisted)
        method = getattr(self, "gen_" + type(e).__name__)
        return method(e)

    def hoist(self, node: ast.expr, hoisted: list[tuple[str, ast.expr]]) -> ast.expr:
        """Pass `hoist`: a local for `node`, computed once before the loops (structurally equal
        nodes share one local)."""
        for existing, value in hoisted:
            if pyast.same(value, node):
                return name(existing)
        symbol = self.names.fresh("_h")
        hoisted.append((symbol, node))
        return name(symbol)

    def _hoistable(self, e: ir.Expr) -> bool:
        """Worth computing once per enumeration, and safe to compute eagerly (it cannot fail)."""
        if not isinstance(e, (ir.Macro, ir.Call, ir.CardAttr, ir.Binary, ir.Conditional, ir.Unary, ir.SuitAttr)):
            return False
        slots = free_slots(e)
        return not (slots & self._forbidden) and slots <= {0} and not may_fail(e, self.layout, self._lengths)

    def gen_Const(self, e: ir.Const) -> ast.expr:
        value = e.value
        if isinstance(value, tuple) and value and value[0] == "card":
            _, deck, suit, rank = value
            return const(self.layout.card_id(deck, suit, rank))
        return const(value)

    def gen_OptionRef(self, e: ir.OptionRef) -> ast.expr:
        return const(self.layout.options[e.name])

    def gen_Local(self, e: ir.Local) -> ast.expr:
        alias = self._aliases.get(e.slot)
        return alias if alias is not None else name(self.slot(e.slot))

    def gen_CardSelf(self, e: ir.CardSelf) -> ast.expr:
        if self._card_self is None:
            raise EngineError(f"{position(e.span)}: a card's own attribute outside a card attribute")
        return name(self._card_self)

    def gen_VarRef(self, e: ir.VarRef) -> ast.expr:
        offset = self.layout.variable_offsets[e.variable]
        if not e.indices:
            return sub(pyast.st("vars"), const(offset))
        return sub(pyast.st("vars"), self.variable_index(offset, e.variable, e.indices[0], e.span))

    def gen_ZoneRef(self, e: ir.ZoneRef) -> ast.expr:
        family = self.layout.families[e.zone]
        if not e.indices:
            return const(family.base)
        text = f"{position(e.span)}: an index is outside zone '{family.name}'"
        message = self.derived(("message", text), lambda: text, "message")
        check = name(
            self.derived(
                ("zone_index", family.name),
                lambda: _zone_index(family.base, family.strides, family.sizes),
                "zone_index",
            )
        )
        indices = [self.gen(i) for i in e.indices]
        if all(self.seat(i) or _cheap(i) or _plain(node) for i, node in zip(e.indices, indices)):
            # Expressions are pure, so a cheap index may be computed twice instead of calling a helper
            # (and the pass `common subexpressions` mostly keeps it in a local the first time).
            offset: ast.expr = const(family.base)
            for node, stride in zip(indices, family.strides):
                offset = fold_binop(offset, "+", node if stride == 1 else fold_binop(node, "*", const(stride)))
            tests = [
                pyast.within(node, size)
                for node, size, index in zip(indices, family.sizes, e.indices)
                if not (self.seat(index) or self._real_suit(index) or _literal_within(node, size))
            ]
            if not tests:
                return offset
            return pyast.ifexp(pyast.and_(*tests), offset, call(check, name(message), *indices))
        return call(check, name(message), *indices)

    def _real_suit(self, index: ir.Expr) -> bool:
        """Whether `index` is the suit of a card known to be real (from a zone or an action),
        so a zone per suit needs no range check for it."""
        return (
            isinstance(index, ir.CardAttr)
            and index.attribute == "suit"
            and isinstance(index.card, ir.Local)
            and index.card.slot in self.real_cards
        )

    def gen_Builtin(self, e: ir.Builtin) -> ast.expr:
        layout = self.layout
        builtin = e.name
        if builtin == "current":
            return pyast.st("current")
        if builtin == "players" or (builtin == "active" and self.everyone_stays):
            return name(self.derived(("players",), lambda: list(range(layout.num_players)), "players"))
        if builtin == "active":
            return pyast.st("active_players")
        if builtin == "num_players":
            return const(layout.num_players)
        if builtin == "suits":
            return name(self.derived(("suits",), lambda: list(range(len(layout.suit_names))), "suits"))
        if builtin == "phase":
            if self.step_phase is not None:
                return const(layout.phase_names[self.step_phase])
            names = name(self.derived(("phase_names",), lambda: list(layout.phase_names), "phase_names"))
            return pyast.ifexp(compare(pyast.st("phase"), ">=", const(0)), sub(names, pyast.st("phase")), const(""))
        field = {"direction": "direction", "round": "round_number", "turn": "turns", "passes": "passes"}[builtin]
        return pyast.st(field)

    def gen_CardAttr(self, e: ir.CardAttr) -> ast.expr:
        if isinstance(e.card, ir.Local) and (e.card.slot, e.attribute) in self._attribute_aliases:
            return self._attribute_aliases[(e.card.slot, e.attribute)]
        table = self.layout.attributes.get(e.attribute)
        if table is None:  # an attribute defined after the one being computed: not yet known
            return const(_NEUTRAL.get(e.type, 0))
        card = self.gen(e.card)
        if is_const(card) and type(card.value) is int:  # type: ignore[attr-defined]
            value = table[card.value]  # type: ignore[attr-defined]
            if type(value) in (int, str, bool):
                return const(value)
        return sub(name(self.constant(table, "attr_" + e.attribute)), card)

    def gen_SuitAttr(self, e: ir.SuitAttr) -> ast.expr:
        values = [s.get(e.attribute) for s in self.layout.suit_attributes]
        neutral = next((type(v)() for v in values if v is not None), None)
        # the last: no suit (-1)
        table = self.derived(("suit_attribute", e.attribute), lambda: values + [neutral], "suit_" + e.attribute)
        return sub(name(table), self.gen(e.suit))

    def gen_Unary(self, e: ir.Unary) -> ast.expr:
        operand = self.gen(e.operand)
        if is_const(operand):
            value = operand.value  # type: ignore[attr-defined]
            if e.op == "-":
                return const(runtime.check_int(-value, position(e.span)))
            return const(not value)
        if e.op == "-":
            return self.bounded(pyast.neg(operand), e)
        return pyast.not_(operand)

    def gen_Binary(self, e: ir.Binary) -> ast.expr:
        phase = self._phase_test(e)
        if phase is not None:
            return phase
        counted = self._count_test(e)
        if counted is not None:
            return counted
        left, right = self.gen(e.left), self.gen(e.right)
        folded = fold(e.op, left, right, position(e.span))
        if folded is not None:
            return folded
        if e.op == "in":
            return compare(left, "in", self.collection(e.right, right))
        if e.op == "and":
            return pyast.and_(left, right)
        if e.op == "or":
            return pyast.or_(left, right)
        if e.op == "//":
            return call(self.helper(runtime.div, "div"), left, right)
        if e.op == "%":
            return call(self.helper(runtime.mod, "mod"), left, right)
        if e.op in ("+", "-", "*"):
            return self.bounded(pyast.binop(left, e.op, right), e)
        return compare(left, e.op, right)

    def bounded(self, node: ast.expr, e: ir.Expr) -> ast.expr:
        """An arithmetic or concatenation result, checked against the language's limits unless
        its bound, known from its operands, is within them (the common case costs nothing)."""
        if e.type == ir.STR:
            return call(self.helper(runtime.check_text, "check_text"), node, const(position(e.span)))
        bound = value_bound(e, self.layout, self._lengths)
        if bound is not None and bound <= MAX_INTEGER:
            return node
        return call(self.helper(runtime.check_int, "check_int"), node, const(position(e.span)))

    def _count_test(self, e: ir.Binary) -> ast.expr | None:
        """Pass `count test`: `count(...)` compared with a constant, when the comparison holds
        exactly for counts of 1 or more (`> 0`, `>= 1`, `!= 0`), for 0 (`== 0`, `< 1`), for the
        collection's constant length N (`== N`, `>= N`) or for fewer (`< N`, `!= N`), is
        `any`, `not any`, `all` or `not all` of the count's test: the same value, stopping at
        the first item that decides. Only when no item's test can raise an error (which the
        count, asking every item, would raise)."""
        if e.op not in _MIRRORED:
            return None
        op, counted, bound = e.op, e.left, e.right
        if not (isinstance(counted, ir.Macro) and counted.kind == "count"):
            op, counted, bound = _MIRRORED[e.op], e.right, e.left
        if not (isinstance(counted, ir.Macro) and counted.kind == "count") or counted.body is None:
            return None
        if not isinstance(bound, (ir.Const, ir.OptionRef)):
            return None
        k = self.gen(bound).value  # type: ignore[attr-defined]
        if type(k) is not int:
            return None
        n = self._static_length(counted.collection)
        if n == 0:
            return None
        forms = [("any", False, 0, 0, 1, n), ("any", True, 1, n, 0, 0)]  # (kind, negated, false on, true on)
        if n is not None:
            forms += [("all", False, 0, n - 1, n, n), ("all", True, n, n, 0, n - 1)]
        for kind, negated, low_false, high_false, low_true, high_true in forms:
            if _holds(_NEGATED[op], k, low_false, high_false) and _holds(op, k, low_true, high_true):
                return self._count_as(counted, kind, negated)
        return None

    def _count_as(self, counted: ir.Macro, kind: str, negated: bool) -> ast.expr | None:
        """`counted` asked as `any`/`all` (see `_count_test`), or None if an item's test might raise."""
        hoisted = self._hoisted
        mark, work = (len(hoisted) if hoisted is not None else 0), self._unroll_work
        node = self.gen(attrs.evolve(counted, kind=kind, type=ir.BOOL))
        if not self._cannot_raise(node):
            if hoisted is not None:
                del hoisted[mark:]
            self._unroll_work = work
            return None
        return pyast.not_(node) if negated else node

    def _cannot_raise(self, node: ast.expr) -> bool:
        """Whether generated code can raise no error: it calls only total functions (a helper
        raising the language's errors, or a method of the state, is not one)."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                function = inner.func
                if isinstance(function, ast.Lambda):
                    continue
                if not isinstance(function, ast.Name):
                    return False
                if function.id not in _TOTAL_BUILTINS and self.namespace.get(function.id) not in _TOTAL_HELPERS:
                    return False
        return True

    def _static_length(self, e: ir.Expr) -> int | None:
        """The number of items of a collection fixed for the game setting (None: not known)."""
        if self.all_seats(e):
            return self.layout.num_players
        if isinstance(e, ir.Builtin) and e.name == "suits":
            return len(self.layout.suit_names)
        if (
            isinstance(e, ir.Call)
            and e.function == "range"
            and all(isinstance(a, (ir.Const, ir.OptionRef)) for a in e.args)
        ):
            values = _range_values([self.gen(a) for a in e.args])
            if values is not None:
                return len(values)
        return None

    def _phase_test(self, e: ir.Binary) -> ast.expr | None:
        """`phase == "play"` as a comparison of phase numbers, without the phase's name."""
        if e.op not in ("==", "!=") or not isinstance(e.left, ir.Builtin) or e.left.name != "phase":
            return None
        if not isinstance(e.right, ir.Const) or not isinstance(e.right.value, str):
            return None
        if e.right.value not in self.layout.phase_names:
            return None
        index = self.layout.phase_names.index(e.right.value)
        if self.step_phase is not None:  # known in this step
            return const((index == self.step_phase) == (e.op == "=="))
        return compare(pyast.st("phase"), e.op, const(index))

    def gen_Conditional(self, e: ir.Conditional) -> ast.expr:
        condition = self.gen(e.condition)  # generated once: nested conditionals stay linear
        if is_const(condition):
            return self.gen(e.then if condition.value else e.otherwise)  # type: ignore[attr-defined]
        return pyast.ifexp(condition, self.gen(e.then), self.gen(e.otherwise))

    def gen_ListExpr(self, e: ir.ListExpr) -> ast.expr:
        return pyast.list_(self.gen(i) for i in e.items)

    def gen_Macro(self, e: ir.Macro) -> ast.expr:
        assert e.body is not None  # the checker gives every macro a body
        var = self.slot(e.slot)
        if e.kind == "bind":
            value = self.gen(e.collection)
            self._forbidden.add(e.slot)
            around = self._lengths
            self._lengths = bind_lengths(e, self.layout, around)  # for the limit tests in the body
            try:
                return call(pyast.lambda_([var], self.gen(e.body)), value)
            finally:
                self._forbidden.discard(e.slot)
                self._lengths = around
        collection = self.gen(e.collection)
        unrolled, once = self.unroll(e, collection)
        if unrolled is not None:
            return unrolled
        items = self.collection(e.collection, collection)
        source = e.collection
        shared = self._shared.get(source.slot) if isinstance(source, ir.Local) else None
        if (
            e.kind in ("any", "all")
            and shared is not None
            and isinstance(source, ir.Local)
            and _only_through(e.body, e.slot, shared)
        ):
            # Pass `alias`: the cards of a set parameter share this attribute, and the body reads
            # nothing else of the card: the answer for the first card is the answer for all.
            self._aliases[e.slot] = sub(items, const(0))
            group_value = self._group_values.get(source.slot)
            if group_value is not None:
                self._attribute_aliases[(e.slot, shared)] = group_value
            try:
                return self.gen(e.body)
            finally:
                del self._aliases[e.slot]
                self._attribute_aliases.pop((e.slot, shared), None)
        body = once if once is not None else self._macro_body(e)  # each body generated once
        if e.kind in ("max", "min", "sum") and self._table_lookup(body, var):
            # An attribute of each card: the table's lookup mapped over the cards, without a generator.
            mapped = call("map", self.getter(body), items)
            if e.kind == "sum":
                return self.bounded(call("sum", mapped), e)
            return _extreme(e.kind, mapped, items)
        membership = self._membership(e, body, var, items)
        if membership is not None:
            return membership
        if e.kind == "any":
            return call("any", pyast.genexp(body, var, items))
        if e.kind == "all":
            return call("all", pyast.genexp(body, var, items))
        if e.kind == "count":  # a list's length is cheaper than a sum over a generator
            return call("len", pyast.listcomp(const(1), var, items, body))
        if e.kind == "filter":
            return pyast.listcomp(name(var), var, items, body)
        if e.kind == "sum":
            total = call("sum", pyast.genexp(body, var, items))
            return self.bounded(total, e) if e.type == ir.INT else total
        if e.kind in ("max", "min"):
            return _extreme(e.kind, pyast.genexp(body, var, items), items)
        empty = _EMPTY.get(e.type)
        return call(
            self.helper(runtime.arg_best, "arg_best"),
            items,
            pyast.lambda_([var], body),
            const(empty),
            const(e.kind == "argmax"),
        )

    def _macro_body(self, e: ir.Macro) -> ast.expr:
        assert e.body is not None
        self._forbidden.add(e.slot)
        real = e.collection.type == ir.ZONE and e.slot not in self.real_cards
        if real:
            self.real_cards.add(e.slot)
        try:
            return self.gen(e.body)
        finally:
            self._forbidden.discard(e.slot)
            if real:
                self.real_cards.discard(e.slot)

    def _membership(self, e: ir.Macro, body: ast.expr, var: str, items: ast.expr) -> ast.expr | None:
        """Pass `membership`: `any(T[x] == v for x in items)` as `v in map(T.__getitem__, items)`
        (and `all` of `!=` as `not in`), a loop in C without a generator, when `v` reads no `x`
        and cannot fail (it is then asked once, even over no items)."""
        test = e.body
        if not (isinstance(test, ir.Binary) and (e.kind, test.op) in (("any", "=="), ("all", "!="))):
            return None
        if pyast.compare_op(body) != test.op:
            return None
        assert isinstance(body, ast.Compare)  # a single comparison, as compare_op said
        pairs = ((body.left, body.comparators[0], test.right), (body.comparators[0], body.left, test.left))
        for lookup, value, value_ir in pairs:
            if not self._table_lookup(lookup, var) or var in pyast.names_in(value):
                continue
            if e.slot in free_slots(value_ir) or may_fail(value_ir, self.layout, self._lengths):
                continue
            return compare(value, "in" if e.kind == "any" else "not in", call("map", self.getter(lookup), items))
        return None

    def getter(self, lookup: ast.expr) -> ast.Name:
        """The lookup function of the constant table of `lookup` (`T[x]`, `_table_lookup`): a
        map over it runs in C."""
        table = lookup.value.id  # type: ignore[attr-defined]
        getter = self._getters.get(table)
        if getter is None:
            getter = self._getters[table] = self.constant(self.namespace[table].__getitem__, "get")  # type: ignore
        return name(getter)

    def _table_lookup(self, node: ast.expr, var: str) -> bool:
        """Whether `node` is `<constant table>[var]`."""
        return (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Name)
            and node.slice.id == var
            and isinstance(self.namespace.get(node.value.id), list)
        )

    def unroll(self, e: ir.Macro, collection: ast.expr) -> tuple[ast.expr | None, ast.expr | None]:
        """Pass `unroll`: `any`, `all`, `count`, `sum`, `max` or `min` over a few values known
        when the game is compiled (the seats, the suits, a range of constants) written out value
        by value, when the written-out code stays within UNROLL_BUDGET nodes and the game's
        UNROLL_WORK is not spent. Gives (the written-out node, None), or (None, the body as a
        loop has it, if it was generated to decide: the caller uses it rather than generating
        it again)."""
        if e.kind not in ("any", "all", "count", "sum", "max", "min", "argmax", "argmin") or e.body is None:
            return None, None
        values = self._static_values(e.collection, collection)
        # the seats still in the round: every seat, each tested for being in (seat order, as the list)
        in_round = values is None and isinstance(e.collection, ir.Builtin) and e.collection.name == "active"
        if in_round:
            values = list(range(self.layout.num_players))
        if values is None or len(values) > MAX_UNROLLED or self._unroll_work + len(values) > UNROLL_WORK:
            return None, None
        if e.kind in ("max", "min") and (in_round or not values):  # over no values: the loop's 0
            return None, None
        hoisted = self._hoisted
        mark = len(hoisted) if hoisted is not None else 0
        once = self._macro_body(e)  # the body once, as a loop would have it: its size decides
        if len(values) * pyast.size(once) > UNROLL_BUDGET or self._unroll_work + len(values) > UNROLL_WORK:
            return None, once
        self._unroll_work += len(values)
        if hoisted is not None:
            del hoisted[mark:]
        parts = []
        plain: list[ast.expr] = []  # each value's part as when every seat is in the round
        self._forbidden.add(e.slot)
        try:
            for value in values:
                self._aliases[e.slot] = const(value)
                part = self.gen(e.body)
                plain.append(part)
                if in_round:
                    part = _in_round(e.kind, value, copy.deepcopy(part), name(self.constant(runtime.OUT, "OUT")))
                parts.append(part)
        finally:
            self._aliases.pop(e.slot, None)
            self._forbidden.discard(e.slot)
        if e.kind in ("argmax", "argmin"):
            # each value once, in order, as arg_best's loop asks them; without a function per call
            empty = _EMPTY.get(e.type)
            items = name(self.derived(("unrolled", tuple(values)), lambda: tuple(values), "items"))
            best: ast.expr = call(
                self.helper(runtime.arg_best_of, "arg_best_of"),
                items,
                pyast.tuple_(parts),
                const(empty),
                const(e.kind == "argmax"),
            )
            if 2 <= len(values) <= MAX_TOURNAMENT:
                # Pass `tournament`: with every item there, the first best found by comparisons.
                tree = _tournament(plain, values, e.kind == "argmax", self.names.fresh)
                if not in_round:
                    best = tree
                elif pyast.size(tree) + pyast.size(best) <= UNROLL_BUDGET:
                    everyone = compare(call("len", pyast.st("active_players")), "==", const(len(values)))
                    best = pyast.ifexp(everyone, tree, best)
            return best, None
        if e.kind in ("max", "min"):  # the values themselves: no generator
            if len(parts) == 1:
                return parts[0], None
            if len(parts) == 2:
                return _extreme_of_two(e.kind, parts[0], parts[1], self.names.fresh), None
            return call(e.kind, *parts), None
        if e.kind == "any":
            return _fold_bool("or", parts), None
        if e.kind == "all":
            return _fold_bool("and", parts), None
        if e.kind == "count":
            parts = [
                const(1 if p.value else 0)
                if isinstance(p, ast.Constant) and is_const(p)
                else pyast.ifexp(p, const(1), const(0))
                for p in parts
            ]
        total: ast.expr = const(0)
        for part in parts:
            total = fold_binop(total, "+", part)
        if e.kind != "sum":
            return total, None
        if is_const(total):  # folded: too large, it raises now, as running it would
            return const(runtime.check_int(total.value, position(e.span))), None  # type: ignore[attr-defined]
        return self.bounded(total, e), None

    def all_seats(self, e: ir.Expr) -> bool:
        """Whether `e` is every seat in seat order: `players`, or `active` while everyone stays."""
        return isinstance(e, ir.Builtin) and (e.name == "players" or (e.name == "active" and self.everyone_stays))

    def _static_values(self, e: ir.Expr, node: ast.expr) -> list[int] | None:
        """The values of a collection fixed for the game setting: seats, suits, range(k)."""
        if self.all_seats(e):
            return list(range(self.layout.num_players))
        if isinstance(e, ir.Builtin) and e.name == "suits":
            return list(range(len(self.layout.suit_names)))
        if isinstance(e, ir.Call) and e.function == "range" and isinstance(node, ast.Call):
            # list(range(...)), a range known to be within the limit; a helper's call is not listed
            inner = node.args[0] if node.args and isinstance(node.args[0], ast.Call) else None
            if inner is not None and isinstance(inner.func, ast.Name) and inner.func.id == "range":
                return _range_values(inner.args)
        return None

    def gen_Call(self, e: ir.Call) -> ast.expr:
        layout = self.layout
        function = e.function
        args = [self.gen(a) for a in e.args]
        n = const(layout.num_players)
        if function == "size" and self.everyone_stays and self.all_seats(e.args[0]):
            return n  # every seat is in the round
        if function in ("size", "empty"):
            measured = sub(pyast.st("zones"), args[0]) if e.args[0].type == ir.ZONE else args[0]
            return call("len", measured) if function == "size" else pyast.not_(measured)
        if function in ("top", "bottom"):
            cards = self.collection(e.args[0], args[0])  # a zone's cards, or a list of cards
            if len(args) == 1:
                no_card = name(self.derived(("no_card",), lambda: (runtime.NO_CARD,), "no_card"))
                return sub(pyast.or_(cards, no_card), const(-1 if function == "top" else 0))
            if function == "top":
                return call(self.helper(runtime.top, "top"), cards, args[1])
            return pyast.slice_(cards, None, call("max", const(0), args[1]))
        if function == "concat":  # xs + ys of lists or zones: a new list
            first, second = (call("list", self.collection(a, node)) for a, node in zip(e.args, args))
            return pyast.binop(first, "+", second)
        if function == "holder":
            return pyast.method(name("st"), "holder", args[0])
        if function == "seat":
            if is_const(args[0]):
                return const(args[0].value % layout.num_players)  # type: ignore[attr-defined]
            return pyast.binop(args[0], "%", n)
        if function in ("left", "right", "opponent", "next", "others", "is_active", "can_move"):
            return self._player_function(function, e.args[0], args[0])
        if function in ("min", "max"):
            return _extreme_of_two(function, args[0], args[1], self.names.fresh)
        if function in ("abs", "len"):
            return call(function, args[0])
        if function == "range":
            if range_within(e, layout, self._lengths):  # at most MAX_RANGE numbers, whatever the bounds
                return call("list", call("range", *args))
            where = const(position(e.span))  # the helper raises the error past the limit
            if len(args) == 1:
                return call(self.helper(runtime.range1, "range1"), args[0], where)
            return call(self.helper(runtime.range2, "range2"), args[0], args[1], where)
        if function == "prefix":
            return pyast.slice_(args[0], None, call("max", const(0), args[1]))
        if function == "letter":
            return call(self.helper(runtime.letter, "letter"), args[0], args[1])
        if function == "text":
            return self.text(e.args[0], args[0])
        if function in ("team", "partner", "teammates") and layout.teams is not None:
            return call(self.helper(getattr(layout.teams, function), function), args[0])  # total: nobody allowed
        raise EngineError(f"{position(e.span)}: no code for function '{function}'")

    def _player_function(self, function: str, e: ir.Expr, arg: ast.expr) -> ast.expr:
        """Functions of a player. Of nobody (-1): left, right, opponent and next give nobody,
        is_active and can_move are false, others gives every seat."""
        n = self.layout.num_players
        seat = self.seat(e) or (is_const(arg) and 0 <= arg.value < n)  # type: ignore[attr-defined]
        if function in ("left", "opponent", "right"):
            shift = -1 if function == "right" else 1
            if is_const(arg) and seat:
                return const((arg.value + shift) % n)  # type: ignore[attr-defined]
            moved = pyast.binop(fold_binop(arg, "+", const(shift)), "%", const(n))
            if seat:
                return moved
            return call(self.helper(runtime.left if shift == 1 else runtime.right, function), arg, const(n))
        if function == "next":
            if self.everyone_stays and (seat or _cheap(e)):  # State.next_active with every seat in the round
                following = pyast.binop(fold_binop(arg, "+", pyast.st("direction")), "%", const(n))
                if seat:
                    return following
                # of nobody, nobody (a cheap player is asked twice: expressions are pure)
                return pyast.ifexp(compare(copy.deepcopy(arg), ">=", const(0)), following, const(runtime.NOBODY))
            if seat:
                return pyast.method(name("st"), "next_active", arg)
            return call(self.helper(runtime.next_of, "next_of"), name("st"), arg)
        if function == "others":
            k = self.names.fresh("_k")
            return (
                pyast.listcomp(
                    pyast.binop(pyast.binop(arg, "+", name(k)), "%", const(n)), k, call("range", const(1), const(n))
                )
                if seat
                else call(self.helper(runtime.others, "others"), arg, const(n))
            )
        if function == "is_active":
            if self.everyone_stays:  # in the round: every seat, and nobody is not
                return const(True) if seat else pyast.within(arg, n)
            active = sub(pyast.st("active"), arg)
            return active if seat else pyast.and_(compare(arg, ">=", const(0)), active)
        can = pyast.method(name("st"), "can_move", arg)
        return can if seat else pyast.and_(compare(arg, ">=", const(0)), can)

    def text(self, e: ir.Expr, node: ast.expr) -> ast.expr:
        """A value as readable text (the `text()` function, labels and logs)."""
        layout = self.layout
        if e.type == ir.CARD:
            names = name(
                self.derived(
                    ("card_names", layout.card_names, "nothing"),
                    lambda: list(layout.card_names) + ["nothing"],
                    "card_names",
                )
            )
            return sub(names, node)
        if e.type == ir.PLAYER:
            return call(self.helper(runtime.player_text, "player_text"), node)
        if e.type == ir.SUIT:
            return sub(name(self.derived(("suit_names",), lambda: list(layout.suit_names) + [""], "suit_names")), node)
        if e.type == ir.RANK:
            return sub(name(self.derived(("rank_names",), lambda: list(layout.ranks) + [""], "rank_names")), node)
        if e.type == ir.BOOL:
            return pyast.ifexp(node, const("yes"), const("no"))
        if e.type in (ir.ZONE, ir.list_of(ir.CARD)):
            # the table that ends in "nothing": a list such as [top(pile)] may hold no card (-1)
            names = name(
                self.derived(
                    ("card_names", layout.card_names, "nothing"),
                    lambda: list(layout.card_names) + ["nothing"],
                    "card_names",
                )
            )
            items = sub(pyast.st("zones"), node) if e.type == ir.ZONE else node
            c = self.names.fresh("_c")
            joined = pyast.method(const(" "), "join", pyast.genexp(sub(names, name(c)), c, items))
            return pyast.or_(joined, const("-"))
        if e.type == ir.list_of(ir.PLAYER):
            return call(self.helper(runtime.players_text, "players_text"), node)
        if e.type in (ir.list_of(ir.SUIT), ir.list_of(ir.RANK)):
            names_list = layout.suit_names if e.type == ir.list_of(ir.SUIT) else layout.ranks
            x = self.names.fresh("_x")
            table = name(self.derived(("names", names_list), lambda: list(names_list), "names"))
            return pyast.method(const(", "), "join", pyast.genexp(sub(table, name(x)), x, node))
        if e.type == ir.list_of(ir.BOOL):
            x = self.names.fresh("_x")
            shown = pyast.ifexp(name(x), const("yes"), const("no"))
            return pyast.method(const(", "), "join", pyast.genexp(shown, x, node))
        if e.type.startswith("list:"):
            x = self.names.fresh("_x")
            return pyast.method(const(", "), "join", pyast.genexp(call("str", name(x)), x, node))
        return call("str", node)

    def template_body(self, parts: tuple[str | ir.Expr, ...]) -> ast.expr:
        return _join([const(part) if isinstance(part, str) else self.text(part, self.gen(part)) for part in parts])

    def template(self, parts: tuple[str | ir.Expr, ...], heading: str) -> Callable[[Any, list], str]:
        slots: set[int] = set()
        for part in parts:
            if not isinstance(part, str):
                slots |= free_slots(part)
        body = self.template_body(parts)
        fn = pyast.function(self.names.fresh("_label"), ["st", "env"], [*self.prologue(slots), pyast.return_(body)])
        return self.define(fn, heading)


# ---- pass `fold` ---------------------------------------------------------------------

_NEUTRAL = {ir.INT: 0, ir.STR: "", ir.BOOL: False}

_FOLDABLE = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": runtime.div,
    "%": runtime.mod,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def fold(op: str, left: ast.expr, right: ast.expr, where: str) -> ast.expr | None:
    """Pass `fold`: an operator over constants of the game setting (options, unrolled values)
    replaced by its value; `and`/`or` with one constant side reduced. Preserves every value,
    and raises, as running it would, when a folded result passes the language's limits."""
    left_known, right_known = is_const(left), is_const(right)
    a = left.value if left_known else None  # type: ignore[attr-defined]
    b = right.value if right_known else None  # type: ignore[attr-defined]
    if op == "and":
        if left_known:
            return right if a else const(False)
        if right_known and b:
            return left
        return None
    if op == "or":
        if left_known:
            return const(True) if a else right
        if right_known and not b:
            return left
        return None
    if left_known and right_known and op in _FOLDABLE and type(a) is type(b):
        if op == "*" and isinstance(a, str):
            return None
        value = _FOLDABLE[op](a, b)
        if type(value) is int:
            value = runtime.check_int(value, where)
        elif type(value) is str:
            value = runtime.check_text(value, where)
        return const(value)
    return None


def fold_binop(left: ast.expr, op: str, right: ast.expr) -> ast.expr:
    """`left op right` for the compiler's own index arithmetic, folded: `0 + x` is `x`."""
    if is_const(left) and is_const(right):
        return const(_FOLDABLE[op](left.value, right.value))  # type: ignore[attr-defined]
    if op == "+" and is_const(left) and left.value == 0:  # type: ignore[attr-defined]
        return right
    if op in ("+", "-") and is_const(right) and right.value == 0:  # type: ignore[attr-defined]
        return left
    return pyast.binop(left, op, right)


# ---- pass `count test` -----------------------------------------------------------------

_MIRRORED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}  # k op c is c op' k
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_TOTAL_BUILTINS = frozenset({"len", "any", "all", "map", "sum", "max", "min", "abs", "list", "range"})
_TOTAL_HELPERS = (runtime.div, runtime.mod, runtime.top, runtime.letter)


def _holds(op: str, k: int, low: int, high: int | None) -> bool:
    """Whether `c op k` holds for every integer c from `low` to `high` (None: no end)."""
    if high is not None and high < low:
        return True  # no such c
    if op == "<":
        return high is not None and high < k
    if op == "<=":
        return high is not None and high <= k
    if op == ">":
        return low > k
    if op == ">=":
        return low >= k
    if op == "==":
        return low == high == k
    return k < low or (high is not None and k > high)  # !=


# what argmax and argmin give over no items, by type
_EMPTY = {ir.CARD: runtime.NO_CARD, ir.PLAYER: -1, ir.SUIT: -1, ir.RANK: -1, ir.INT: 0, ir.STR: ""}


def _extreme_of_two(kind: str, first: ast.expr, second: ast.expr, fresh: Callable[[str], str]) -> ast.expr:
    """Pass `two extremes`: `min` or `max` of two ints as a conditional expression (the
    built-in takes its general path, an iterator over its arguments). Both `_plain`: each is
    computed again for the result, as the pass `common subexpressions` may then share. One
    more than that: it is computed once (a bind, which the pass `inline binds` makes a
    local), the values asked in their order (the first after the second only when it is a
    local or a constant, which cannot fail). Of two equal ints either is the same value."""
    keeps_first = "<=" if kind == "min" else ">="
    if _plain(first) and _plain(second):
        return pyast.ifexp(compare(first, keeps_first, second), copy.deepcopy(first), copy.deepcopy(second))
    local = fresh("_m")
    if _plain(second):  # the first computed once, then the second
        kept = pyast.ifexp(compare(name(local), keeps_first, second), name(local), copy.deepcopy(second))
        return call(pyast.lambda_([local], kept), first)
    if isinstance(first, (ast.Name, ast.Constant)):  # the second computed once, the first cannot fail
        wins = "<" if kind == "min" else ">"  # the second only when strictly better: ties keep the first
        kept = pyast.ifexp(compare(name(local), wins, first), name(local), copy.deepcopy(first))
        return call(pyast.lambda_([local], kept), second)
    return call(kind, first, second)


def _tournament(parts: list[ast.expr], items: list[int], want_max: bool, fresh: Callable[[str], str]) -> ast.expr:
    """Pass `tournament`: the item of the first best of `parts` (one value per item, at least
    two), as arg_best_of finds it, by nested conditional expressions: item i replaces the best
    so far only when strictly better. The parts are evaluated once each, in order, as the
    loop evaluates them: all but the last bound first (as `bind` is, made locals by the pass
    `inline binds`), the last inside each comparison that reads it (once on every path)."""
    kept = [fresh("_v") for _ in parts]
    better = "<" if want_max else ">"
    last = len(parts) - 1

    def after(i: int, best: int) -> ast.expr:  # parts before i compared, `best` the best so far
        if i > last:
            return const(items[best])
        value = copy.deepcopy(parts[i]) if i == last else name(kept[i])
        return pyast.ifexp(compare(name(kept[best]), better, value), after(i + 1, i), after(i + 1, best))

    tree = after(1, 0)
    for i in reversed(range(last)):
        tree = call(pyast.lambda_([kept[i]], tree), parts[i])
    return tree


def _in_round(kind: str, seat: int, part: ast.expr, out: ast.expr) -> ast.expr:
    """One seat's part of an unrolled macro over `active`: it counts only while the seat is in
    (`out`: what argmax and argmin are given for a seat that is not)."""
    is_in = sub(pyast.st("active"), const(seat))
    if kind in ("argmax", "argmin"):
        return pyast.ifexp(is_in, part, out)
    if is_const(part) and bool(part.value) == (kind == "all"):  # type: ignore[attr-defined]
        return part  # the same whether the seat is in or not
    if kind in ("any", "count"):
        return pyast.and_(is_in, part)
    if kind == "all":
        return pyast.or_(pyast.not_(is_in), part)
    return pyast.ifexp(is_in, part, const(0))  # sum


def _fold_bool(op: str, parts: list[ast.expr]) -> ast.expr:
    """`a or b or ...` (or `and`) with constant parts folded away."""
    absorbing = op == "or"  # True absorbs an `or`, False an `and`
    kept = []
    for part in parts:
        if is_const(part):
            if bool(part.value) == absorbing:  # type: ignore[attr-defined]
                return const(absorbing)
            continue
        kept.append(part)
    if not kept:
        return const(not absorbing)
    return pyast.or_(*kept) if op == "or" else pyast.and_(*kept)


# Texts of more parts than this are joined by one call: a chain of `+` nests one level a
# part, and Python cannot compile a few thousand levels (a template may have that many).
_PLUS_PARTS = 8


def _join(parts: list[ast.expr]) -> ast.expr:
    """The concatenation of the texts `parts`."""
    if not parts:
        return const("")
    if len(parts) > _PLUS_PARTS:
        return pyast.method(const(""), "join", pyast.tuple_(parts))
    joined = parts[0]
    for part in parts[1:]:
        joined = pyast.binop(joined, "+", part)
    return joined


def _literal_within(node: ast.expr, size: int) -> bool:
    """Whether `node` is an int constant in 0..size-1 (an index known to be in range)."""
    return is_const(node) and type(node.value) is int and 0 <= node.value < size  # type: ignore[attr-defined]


# ---- what the IR tells about values ----------------------------------------------------


_COUNTERS = 2**62  # turn and round counters count decisions: a match never reaches this


Lengths = Mapping[int, "int | None"]  # local slots holding lists -> their length bounds (None: unknown)
_NO_LENGTHS: Lengths = {}


def value_bound(e: ir.Expr, layout: Layout, lengths: Lengths = _NO_LENGTHS) -> int | None:
    """A bound on the magnitude of an int expression known when the game is compiled (None:
    no bound is known). Arithmetic whose bound is within MAX_INTEGER needs no check.
    `lengths` bounds the lists that locals around `e` hold."""

    def bound(part: ir.Expr) -> int | None:
        return value_bound(part, layout, lengths)

    if isinstance(e, ir.Const):
        return abs(e.value) if type(e.value) is int else None
    if isinstance(e, ir.CardAttr):
        table = layout.attributes.get(e.attribute)
        return max((abs(v) for v in table if type(v) is int), default=0) if table is not None else None
    if isinstance(e, ir.Builtin):
        return {"num_players": MAX_PLAYERS, "direction": 1}.get(e.name, _COUNTERS)
    if isinstance(e, ir.Call):
        if e.function in ("size", "len"):
            return length_bound(e.args[0], layout, lengths)
        if e.function in ("abs", "min", "max"):
            bounds = [bound(a) for a in e.args]
            return None if None in bounds else max(bounds)  # type: ignore[type-var]
        return None
    if isinstance(e, ir.Unary) and e.op == "-":
        return bound(e.operand)
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*", "//", "%"):
        a, b = bound(e.left), bound(e.right)
        if e.op == "//":
            return a
        if e.op == "%":
            return b
        if a is None or b is None:
            return None
        return a + b if e.op in ("+", "-") else a * b
    if isinstance(e, ir.Conditional):
        a, b = bound(e.then), bound(e.otherwise)
        return None if a is None or b is None else max(a, b)
    if isinstance(e, ir.Macro) and e.body is not None:
        if e.kind == "count":
            return length_bound(e.collection, layout, lengths)
        if e.kind == "bind":
            return value_bound(e.body, layout, bind_lengths(e, layout, lengths))
        if e.kind in ("max", "min"):
            return bound(e.body)
        if e.kind == "sum":
            body, length = bound(e.body), length_bound(e.collection, layout, lengths)
            return None if body is None or length is None else body * length
    return None


def bind_lengths(e: ir.Macro, layout: Layout, lengths: Lengths) -> Lengths:
    """`lengths` within the body of the bind `e`: its local's, when it holds a list."""
    return {**lengths, e.slot: length_bound(e.collection, layout, lengths)}


def length_bound(e: ir.Expr, layout: Layout, lengths: Lengths = _NO_LENGTHS) -> int | None:
    """A bound on the items of a list, the cards of a zone or the characters of a text known
    when the game is compiled (None: no bound is known). Lists joined with `+` add up: a list
    is not held within any limit while a match runs, only texts are."""

    def length(part: ir.Expr) -> int | None:
        return length_bound(part, layout, lengths)

    if e.type == ir.STR:
        return MAX_TEXT_LENGTH
    if isinstance(e, ir.ZoneRef):
        return MAX_CARDS
    if isinstance(e, ir.Local):
        return lengths.get(e.slot)  # a bind's list or a set parameter; another local's is not known here
    if isinstance(e, ir.Builtin):
        return {"players": MAX_PLAYERS, "active": MAX_PLAYERS, "suits": len(layout.suit_names)}.get(e.name)
    if isinstance(e, ir.Call):
        if e.function == "range":
            return MAX_RANGE
        if e.function in ("others", "teammates"):
            return MAX_PLAYERS
        if e.function in ("top", "bottom"):
            return length(e.args[0])
        if e.function == "concat":  # lists joined with `+`
            parts = [length(a) for a in e.args]
            return None if None in parts else sum(parts)  # type: ignore[arg-type]
        return None
    if isinstance(e, ir.ListExpr):
        return len(e.items)
    if isinstance(e, ir.Conditional):
        a, b = length(e.then), length(e.otherwise)
        return None if a is None or b is None else max(a, b)
    if isinstance(e, ir.Macro) and e.kind == "filter":
        return length(e.collection)
    if isinstance(e, ir.Macro) and e.kind == "bind" and e.body is not None:
        return length_bound(e.body, layout, bind_lengths(e, layout, lengths))
    return None


def statement_slots(s: ir.Stmt) -> set[int]:
    """Every local slot an effect reads (loop variables included: loading them is harmless)."""
    slots: set[int] = set()
    for field in attrs.fields(type(s)):
        value = getattr(s, field.name)
        values = value if isinstance(value, tuple) else (value,)
        for item in values:
            if isinstance(item, ir.Expr):
                slots |= _all_slots(item)
            elif isinstance(item, ir.Stmt):
                slots |= statement_slots(item)
    return slots


def _all_slots(e: ir.Expr) -> set[int]:
    if isinstance(e, ir.Local):
        return {e.slot}
    out: set[int] = set()
    for child in ir.children(e):
        out |= _all_slots(child)
    return out


def _only_through(e: ir.Expr, slot: int, attribute: str) -> bool:
    """Whether `e` reads the card in `slot` only as `card.<attribute>`."""
    if isinstance(e, ir.CardAttr) and isinstance(e.card, ir.Local) and e.card.slot == slot:
        return e.attribute == attribute
    if isinstance(e, ir.Local):
        return e.slot != slot
    return all(_only_through(child, slot, attribute) for child in ir.children(e))


def may_fail(e: ir.Expr, layout: Layout, lengths: Lengths = _NO_LENGTHS) -> bool:
    """Whether evaluating `e` could raise: an index outside a zone or a player's values, or
    arithmetic that may pass the language's limits (`lengths` as for `value_bound`)."""
    if (
        isinstance(e, (ir.ZoneRef, ir.VarRef))
        and e.indices
        and not (len(e.indices) == 1 and is_seat(e.indices[0], layout.seat_slots))
    ):
        return True
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*") or isinstance(e, ir.Unary) and e.op == "-":
        if e.type == ir.STR:
            return True
        bound = value_bound(e, layout, lengths)
        if bound is None or bound > MAX_INTEGER:
            return True
    if isinstance(e, ir.Call) and e.function == "range" and not range_within(e, layout, lengths):
        return True
    if isinstance(e, ir.Macro) and e.kind == "bind" and e.body is not None:
        return may_fail(e.collection, layout, lengths) or may_fail(e.body, layout, bind_lengths(e, layout, lengths))
    return any(may_fail(child, layout, lengths) for child in ir.children(e))


def range_within(e: ir.Call, layout: Layout, lengths: Lengths = _NO_LENGTHS) -> bool:
    """Whether `range(...)` gives at most limits.MAX_RANGE numbers whatever its bounds' values
    (`range(a)` at most |a| numbers, `range(a, b)` at most |a| + |b|): it cannot raise."""
    bounds = [value_bound(a, layout, lengths) for a in e.args]
    return None not in bounds and sum(bounds) <= MAX_RANGE  # type: ignore[arg-type]


def _range_values(bounds: list[ast.expr]) -> list[int] | None:
    """The numbers of `range` of constant bounds within the limit (None: not constants, or past it)."""
    if not all(is_const(b) and type(b.value) is int for b in bounds):  # type: ignore[attr-defined]
        return None
    low, high = (0, bounds[0].value) if len(bounds) == 1 else (bounds[0].value, bounds[1].value)  # type: ignore
    return list(range(low, high)) if high - low <= MAX_RANGE else None


def _plain(node: ast.expr) -> bool:
    """Generated code cheap enough to compute twice rather than pass to a helper: small, with no
    loop and no call but to `len` (and an index that may fail raises the same error either way:
    the first time it is computed, in the range test, as it would have before the call)."""
    return pyast.size(node) <= PLAIN_INDEX and not any(
        isinstance(n, (ast.Lambda, ast.comprehension))
        or (isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id == "len"))
        for n in ast.walk(node)
    )


def _cheap(index: ir.Expr) -> bool:
    """A local, a variable or a card attribute of a local: no call, no loop."""
    if isinstance(index, ir.CardAttr):
        return _cheap(index.card)
    return isinstance(index, (ir.Local, ir.Const, ir.OptionRef)) or (isinstance(index, ir.VarRef) and not index.indices)


def _variable_index(offset: int, players: int, variable: str, span: Span) -> Callable[[int], int]:
    def variable_index(player: int) -> int:
        if not 0 <= player < players:
            raise runtime.needs_player(f"variable '{variable}'", player, position(span))
        return offset + player

    return variable_index


def _zone_index(base: int, strides: tuple[int, ...], sizes: tuple[int, ...]) -> Callable[..., int]:
    def zone_index(message: str, *indices: int) -> int:
        total = base
        for index, stride, size in zip(indices, strides, sizes):
            if not 0 <= index < size:
                raise EngineError(f"{message}: {index} is not in 0..{size - 1}")
            total += index * stride
        return total

    return zone_index
