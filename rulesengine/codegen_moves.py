"""Generate the code of a game's moves: legal actions, and the fast path of a step.

For every move, a function appending the ids of its legal actions to a list; for every
phase, one such function for all its moves (moves that test the same cards one at a time
share one loop); for every move no shuffle can interrupt, a `step` function running its
effects and the triggers; for every phase, a `settle` function passing the turn and
listing the next legal actions; and for a move of one phase only, its step and that phase's
settle in one function instead (pass `play`, while the phase's listing of legal actions is
small enough to copy). The expressions inside come from codegen.CodeGenerator.

Passes over Python syntax nodes here (each keeps the set of legal actions found, and the
order in which they are appended does not matter: the list is sorted):

- `listed values`: a move whose parameters all range over values fixed by the setting
  (seats, suits, `range(k)`) is listed one combination at a time, each value a constant in
  the legal test (which folds) and each id a constant, within the unrolling budgets.
- `shared card loops`: moves with one card parameter (or one set sharing an attribute)
  taking their candidates from the same collection are tested in one loop over it; the
  cards a set may take are grouped by the attribute as that loop keeps them.
- `one group`: a set's cards kept by a test `attribute == x` (x the same for every card)
  share one value, so they are the one group, never grouped.
- `shared lookups`: a constant table several tests (or groupings) of that loop index by the
  card is read once per card into a local (tables never change, so the value is the same).
- `implication`: a test that can hold only when an earlier one does (`a == b` only when
  `a >= b`, the same two operands compared) is asked only inside that one.
- `exclusive`: of two such tests inside one that cannot both hold and together cover it
  (`a == b` and `a > b` inside `a >= b`), the second is not asked (`_exclusive`).
- `every card`: a loop of one move whose test is `a or b(card)` with `a` computed before
  the loop adds every candidate at once when `a` holds (`_every_card`).
- `filter, else every card`: a loop of one move whose test is `a or b(card) or not
  C.any(c, b(c))`, C the move's own candidates, keeps the cards passing `b` and adds every
  candidate when none did: the candidates are walked once, not once for `any` and again
  for the filter (`_filter_else_every`).
- `single use`: a value hoisted before the loops but read once, outside any loop, is
  computed where it is read, so that `a or b` skips it when `a` holds (`_listing`).

Pass `entries` (over the flow, not the listing): a step that ends its phase by `until`, or
whose `goto` can name one phase only, enters the next phase itself through a function of
that phase (`entry_functions`): its `first`, its `until`, the player to move being in the
round, and its listing, as State._check would do them, when no `exit` or `enter` effects
run between the two phases; anything else is still left to State._check.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import itertools
from collections.abc import Callable, Iterator
from math import comb, prod
from typing import Any

import attrs

from . import flow, ir, pyast, runtime
from .codegen import (
    MAX_UNROLLED,
    UNROLL_BUDGET,
    UNROLL_WORK,
    CodeGenerator,
    fold_binop,
    free_slots,
    may_fail,
    position,
    statement_slots,
)
from .diagnostics import EngineError
from .pyast import call, compare, const, name, sub

# A move's `play` holds a copy of its phase's listing of legal actions: the copies a phase's
# moves get stay within this many syntax nodes (a big listing is written once, in `settle`)
JOIN_BUDGET = 2_048

# A trigger's test for one seat within this many syntax nodes is asked before the seat's
# `active` guard (as cheap as the guard: an index, a length, a comparison)
SMALL_TEST = 16

# A step's parameters: `step(state, key, values, recorded)` plays the complete action `key`
# with its parameter values, `recorded` being what the history keeps of it (its id)
STEP_PARAMS = ["st", "action", "values", "recorded"]

Wrap = Callable[[list[ast.stmt]], list[ast.stmt]]


def _group(cards, same: list) -> dict[object, list[int]]:
    """The cards grouped by an attribute (a table indexed by card), each group in the given order."""
    groups: dict[object, list[int]] = {}
    for card in cards:
        value = same[card]
        group = groups.get(value)
        if group is None:
            groups[value] = [card]
        else:
            group.append(card)
    return groups


def _real_cards(cards) -> list[int]:
    """The cards of a list, each once and without "no card" (-1): a parameter's candidates."""
    return [card for card in dict.fromkeys(cards) if card >= 0]


def _sorted_sets(cards, size: int) -> list[tuple[int, ...]]:
    """Every set of `size` cards, each sorted (sets of any cards, not of equal ones)."""
    return list(itertools.combinations(sorted(cards), size)) if len(cards) >= size else []


# A comparison implies these others between the same two values.
_IMPLIES = {
    "==": {"==", "<=", ">="},
    "<": {"<", "<=", "!="},
    ">": {">", ">=", "!="},
    "<=": {"<="},
    ">=": {">="},
    "!=": {"!="},
}


# The outcomes of comparing two values (less, equal, greater) for which a comparison holds.
_OUTCOMES = {"<": {"<"}, "<=": {"<", "="}, "==": {"="}, "!=": {"<", ">"}, ">": {">"}, ">=": {"=", ">"}}


def _same_operands(a: ast.expr, b: ast.expr) -> bool:
    return (
        isinstance(a, ast.Compare)
        and isinstance(b, ast.Compare)
        and pyast.same(a.left, b.left)
        and pyast.same(a.comparators[0], b.comparators[0])
    )


def _exclusive(outer: ast.expr, actions: list[ast.stmt]) -> list[ast.stmt]:
    """Pass `exclusive`: inside the test `outer`, of two tests in a row comparing the same two
    values as it, that cannot both hold and that together hold whenever it does (inside
    `a >= b`: `a == b` and `a > b`), the second is not asked: its actions run when the first fails."""
    around = pyast.compare_op(outer)
    if around not in _OUTCOMES:
        return actions
    out: list[ast.stmt] = []
    for action in actions:
        last = out[-1] if out else None
        if (
            isinstance(last, ast.If)
            and isinstance(action, ast.If)
            and not last.orelse
            and not action.orelse
            and (a := pyast.compare_op(last.test)) in _OUTCOMES
            and (b := pyast.compare_op(action.test)) in _OUTCOMES
            and _same_operands(outer, last.test)
            and _same_operands(outer, action.test)
            and not _OUTCOMES[a] & _OUTCOMES[b]
            and _OUTCOMES[around] <= _OUTCOMES[a] | _OUTCOMES[b]  # type: ignore[index]  # around is a key
        ):
            last.orelse = action.body
            continue
        out.append(action)
    return out


def _disjuncts(test: ast.expr) -> list[ast.expr]:
    """The parts of `a or b or ...`, nested `or`s flattened, in order."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [part for value in test.values for part in _disjuncts(value)]
    return [test]


def _none_of_parts(legal: ir.Expr) -> Iterator[tuple[ir.Expr, ir.Macro]]:
    """Of a test `x or not C.any(c, b) or y`, for each such part: (`x or y`, the macro)."""
    parts = _ir_disjuncts(legal)
    for index, part in enumerate(parts):
        macro = part.operand if isinstance(part, ir.Unary) and part.op == "not" else None
        if isinstance(macro, ir.Macro) and macro.kind == "any" and macro.body is not None and len(parts) > 1:
            rest = parts[:index] + parts[index + 1 :]
            joined = rest[0]
            for other in rest[1:]:
                joined = ir.Binary(type=ir.BOOL, span=other.span, op="or", left=joined, right=other)
            yield joined, macro


def _ir_disjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Binary) and e.op == "or":
        return [*_ir_disjuncts(e.left), *_ir_disjuncts(e.right)]
    return [e]


def _every_id(added: ast.expr, card: str, candidates: ast.expr) -> ast.expr | None:
    """The ids of every candidate when `added` is the id of card `card`: `card` itself or a
    constant plus it; None for any other form."""
    if isinstance(added, ast.Name) and added.id == card:
        return candidates
    if (
        isinstance(added, ast.BinOp)
        and isinstance(added.op, ast.Add)
        and pyast.is_const(added.left)
        and isinstance(added.right, ast.Name)
        and added.right.id == card
    ):
        return pyast.listcomp(added, card, candidates)
    return None


def _extend_found(ids: ast.expr) -> ast.stmt:
    return pyast.expr(pyast.method(name("found"), "extend", ids))


def _fixed_and_varying(test: ast.expr, card: str) -> tuple[list[ast.expr], list[ast.expr]]:
    """The parts of `test` (`a or b or ...`) that are locals computed before a loop over
    `card` (names other than the card), and the others."""
    parts = _disjuncts(test)
    fixed: list[ast.expr] = [p for p in parts if isinstance(p, ast.Name) and p.id != card]
    return fixed, [p for p in parts if not (isinstance(p, ast.Name) and p.id != card)]


def _implies(test: ast.expr, other: ast.expr) -> bool:
    """Whether `test` holding means `other` holds (decided for comparisons of the same operands)."""
    if pyast.same(test, other):
        return True
    a, b = pyast.compare_op(test), pyast.compare_op(other)
    if a not in _IMPLIES or b is None:
        return False
    assert isinstance(test, ast.Compare) and isinstance(other, ast.Compare)  # compare_op gave both an operator
    return (
        b in _IMPLIES[a] and pyast.same(test.left, other.left) and pyast.same(test.comparators[0], other.comparators[0])
    )


def _after(first: list[ast.stmt]) -> Wrap:
    return lambda body: [*first, *body]


def _loop(var: str, iterable: ast.expr, opened: list[ast.stmt]) -> Wrap:
    return lambda body: [pyast.for_(var, iterable, [*opened, *body])]


# the flags of the flow that effects set, by what `end` ends; `goto` sets st.goto
_FLOW_FLAGS = {"round": "round_over", "game": "game_over", "phase": "phase_over", "goto": "goto"}


def _listing(hoisted: list[tuple[str, ast.expr]], body: list[ast.stmt]) -> list[ast.stmt]:
    """A listing of legal actions: the values hoisted before its loops, then `body`. Pass
    `single use`: a value read once, outside any loop, is computed where it is read instead,
    so that a test `a or b` that holds by `a` never computes `b` (a hoisted value cannot fail,
    and nothing a listing does changes what it reads)."""
    uses: dict[str, int] = {}
    looped: set[str] = set()
    _count_reads(body, uses, looped, False)
    once = {symbol: value for symbol, value in hoisted if uses.get(symbol) == 1 and symbol not in looped}
    if once:
        body = [_inlined(statement, once) for statement in body]
    return [*(pyast.assign(symbol, value) for symbol, value in hoisted if symbol not in once), *body]


_LOOPS = (ast.For, ast.While, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _count_reads(node: Any, uses: dict[str, int], looped: set[str], in_loop: bool) -> None:
    """Count the reads of each local name in `node`, and note those read inside a loop."""
    if isinstance(node, list):
        for item in node:
            _count_reads(item, uses, looped, in_loop)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        uses[node.id] = uses.get(node.id, 0) + 1
        if in_loop:
            looped.add(node.id)
        return
    if isinstance(node, ast.AST):
        for field, value in ast.iter_fields(node):
            # a `for` evaluates what it iterates over once
            inner = in_loop or (isinstance(node, _LOOPS) and not (isinstance(node, ast.For) and field == "iter"))
            _count_reads(value, uses, looped, inner)


def _inlined(statement: ast.stmt, values: dict[str, ast.expr]) -> ast.stmt:
    def rewrite(node: Any) -> Any:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in values:
            return copy.deepcopy(values[node.id])
        return pyast.rebuilt(node, rewrite)

    return rewrite(statement)


def _flags_set(statements: list[ir.Stmt] | tuple[ir.Stmt, ...]) -> set[str]:
    """The flags of the flow (`st.round_over`, ...) that running `statements` may set, and
    `turn_set` when they may choose the next player (`turn to`)."""
    flags: set[str] = set()
    for statement in ir.nested(statements):
        if isinstance(statement, ir.End):
            flags.add(_FLOW_FLAGS[statement.what])
        elif isinstance(statement, ir.Goto):
            flags.add("goto")
        elif isinstance(statement, ir.TurnTo):
            flags.add("turn_set")
    return flags


def _goto_targets(statements: list[ir.Stmt] | tuple[ir.Stmt, ...]) -> set[str]:
    """The phases the `goto` effects among `statements` (at any depth) name."""
    return {statement.phase for statement in ir.nested(statements) if isinstance(statement, ir.Goto)}


def _kept_listing(hoisted: list[tuple[str, ast.expr]], body: list[ast.stmt]) -> list[ast.stmt]:
    """The legal actions of the player to move listed into `found`, sorted and kept on the state."""
    return [
        pyast.assign("found", pyast.list_([])),
        *_listing(hoisted, body),
        pyast.expr(pyast.method(name("found"), "sort")),
        pyast.assign(pyast.store_attr(name("st"), "_legal"), name("found")),
    ]


def _enter_or_check(entry: str) -> ast.stmt:
    """`if not <entry>(st): st._check()`: the phase entered at once, else by State._check."""
    return pyast.if_(pyast.not_(call(entry, name("st"))), [pyast.expr(pyast.method(name("st"), "_check"))])


def _returns_replaced(statements: list[ast.stmt], replacement: list[ast.stmt]) -> list[ast.stmt]:
    """`statements` with every `return` in them (in their `if` and `for` blocks too) replaced
    by the statements `replacement` (copies of what changes; the rest is shared)."""
    out: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, ast.Return):
            out += replacement
        elif isinstance(statement, (ast.If, ast.For, ast.While)):
            blocks = {block: _returns_replaced(getattr(statement, block), replacement) for block in ("body", "orelse")}
            out.append(pyast.changed(statement, blocks))
        else:
            out.append(statement)
    return out


def _start_empty(var: str) -> ast.stmt:
    statement = pyast.assign(var, const(None))
    statement.starts_empty = True  # type: ignore[attr-defined]  # told apart from a `let` of none
    return statement


def _starts_empty(statement: ast.stmt) -> bool:
    return getattr(statement, "starts_empty", False)


def _may_read_unset(statements: list[ast.stmt], var: str) -> bool:
    """Whether `statements` may read local `var` where no loop of theirs has set it (reads
    inside the body of a `for` over `var` are set by it; any other read counts, even one in a
    comprehension binding its own `var`, and so does a read after such a loop, which may not
    have run)."""
    for statement in statements:
        if _starts_empty(statement):
            continue
        if isinstance(statement, ast.For) and isinstance(statement.target, ast.Name) and statement.target.id == var:
            if _reads(statement.iter, var) or _may_read_unset(statement.orelse, var):
                return True
            continue
        if isinstance(statement, (ast.If, ast.For, ast.While)):
            head = statement.iter if isinstance(statement, ast.For) else statement.test
            if _reads(head, var) or _may_read_unset(statement.body, var) or _may_read_unset(statement.orelse, var):
                return True
            continue
        if _reads(statement, var):
            return True
    return False


def _reads(node: ast.AST, var: str) -> bool:
    return any(isinstance(inner, ast.Name) and inner.id == var for inner in ast.walk(node))


@attrs.frozen
class Hooks:
    """What generated code calls, in a program compiled with hooks, where the engine's
    general path runs an effect list the caller may extend: `trigger_fired(state, index)`
    before each firing's effects of trigger `index` inside a step, `phase_entered(state,
    index)` when an entry function enters phase `index` (its `enter` list then runs no
    effects). A program without hooks has no such calls."""

    trigger_fired: Callable[[Any, int], None]
    phase_entered: Callable[[Any, int], None]


class _Replace(ast.NodeTransformer):
    def __init__(self, replacements: dict[str, str], card: str):
        self.replacements, self.card = replacements, card

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if (
            isinstance(node.value, ast.Name)
            and node.value.id in self.replacements
            and isinstance(node.slice, ast.Name)
            and node.slice.id == self.card
        ):
            return name(self.replacements[node.value.id])
        self.generic_visit(node)
        return node


class MoveCodeGenerator(CodeGenerator):
    """The code generator of a game setting, with the generation of its moves."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._step_triggers: tuple[ir.Trigger, ...] | None = None  # the triggers every step runs
        self._step_bodies: dict[str, list[ast.stmt]] = {}  # each step's statements (`step_statements`), by move
        self._binomials: dict[int, list[int]] = {}
        # pass `entries`: the phases of the game (set by the compiler) and, by index, the names
        # of the entry functions the generated code calls (written by `entry_functions`)
        self.phases: tuple[ir.Phase, ...] = ()
        self.entries: dict[int, str] = {}
        self.hooks: Hooks | None = None  # set by the compiler for a program with hooks

    def _hook(self, kind: str, index: int) -> list[ast.stmt]:
        """A call of the hook `kind` (a field of `Hooks`) with the state and `index`, or
        nothing in a program without hooks."""
        if self.hooks is None:
            return []
        return [pyast.expr(call(self.helper(getattr(self.hooks, kind), kind), name("st"), const(index)))]

    @property
    def me(self) -> str:
        return self.slot(0)

    # ---- passes over a shared loop's tests -----------------------------------------------

    def card_tests(self, tests: list[tuple[ast.expr, ast.stmt]], card: str) -> list[ast.stmt]:
        """The body of a loop testing card `card` for several moves, as (test, action) pairs,
        after the passes `shared lookups` and `implication` (see the module's docstring)."""
        counts: dict[str, int] = {}
        for test, action in tests:
            for node in (*ast.walk(test), *ast.walk(action)):
                if (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name)
                    and isinstance(node.slice, ast.Name)
                    and node.slice.id == card
                    and isinstance(self.namespace.get(node.value.id), list)
                ):
                    counts[node.value.id] = counts.get(node.value.id, 0) + 1
        first: list[ast.stmt] = []
        replacements: dict[str, str] = {}
        for table, count in counts.items():
            if count > 1:
                local = self.names.fresh(f"{card}_{table.lstrip('_')}")
                replacements[table] = local
                first.append(pyast.assign(local, sub(name(table), name(card))))
        if replacements:
            rewrite = _Replace(replacements, card)
            tests = [(rewrite.visit(copy.deepcopy(t)), rewrite.visit(copy.deepcopy(a))) for t, a in tests]
        outer: list[tuple[ast.expr, list[ast.stmt]]] = []  # (test, actions when it holds)
        for test, action in tests:
            inside = next((entry for entry in outer if _implies(test, entry[0])), None)
            if inside is None:
                outer.append((test, [action]))
            elif pyast.same(test, inside[0]):
                inside[1].append(action)
            else:
                inside[1].append(pyast.if_(test, [action]))
        lines = first
        for test, actions in outer:
            actions = _exclusive(test, actions)
            if pyast.is_const(test) and test.value:  # type: ignore[attr-defined]
                lines += actions
            else:
                lines.append(pyast.if_(test, actions))
        return lines

    # ---- enumeration ------------------------------------------------------------------

    def enumerator(self, move: ir.MoveDef, params: tuple[Any, ...], offset: int) -> Callable[..., None]:
        """One function adding the ids of a move's legal actions to a list: `enum(state, player, found)`."""
        hoisted: list[tuple[str, ast.expr]] = []
        body = self._enumeration(move, params, offset, hoisted)
        return self._enumerator_function(hoisted, body, f"legal actions of move {move.name} {position(move.span)}")

    def phase_functions(
        self, phase: ir.Phase, moves: list[tuple[ir.MoveDef, Any]], turn_limit: int | None, own: frozenset[str]
    ) -> tuple[Callable[..., None], Callable[[Any], None] | None, dict[str, tuple[Callable[..., None], bool]]]:
        """The functions of a phase, listing its legal actions the same way:
        `enumerate(state, player, found)` adds the ids of every legal action to a list;
        `settle(state)` follows a step (see `settle`), None when no move's step needs it; and
        the steps of the moves named in `own` (moves of this phase only) whose
        `step_statements` were made, by name, as (function, whether it settles): each is its
        `play` (the step and the settle in one function) while the copies of the phase's
        listing this writes stay within JOIN_BUDGET syntax nodes, else its plain step. The
        other moves' steps are in `moves` (the compiled moves so far)."""
        hoisted, body = self._phase_enumeration(moves)
        enumerate_ = self._enumerator_function(hoisted, body, f"legal actions of phase {phase.name}")
        mine = [move for move, _compiled in moves if move.name in own and move.name in self._step_bodies]
        listing = sum(pyast.size(statement) for statement in body) + sum(pyast.size(v) for _, v in hoisted)
        join = len(mine) == 1 or listing * len(mine) <= JOIN_BUDGET
        steps = {
            move.name: (self.play(phase, move, hoisted, body, turn_limit), True)
            if join
            else (self._step_function(move), False)
            for move in mine
        }
        # a step that does not end with this phase's settle is followed by it
        needed = (bool(mine) and not join) or any(compiled.step is not None for _move, compiled in moves)
        settle = None
        if needed:
            passes = any(move.is_pass for move, _compiled in moves)
            flags = self._step_flags([move for move, _compiled in moves])
            targets = self._step_targets([move for move, _compiled in moves])
            settle = self.settle(phase, hoisted, body, turn_limit, passes, flags, targets)
        return enumerate_, settle, steps

    def _step_effects(self, moves: list[ir.MoveDef]) -> list[ir.Stmt]:
        """What a step of one of `moves` may run: the move's effects and the triggers'."""
        triggers = self._step_triggers or ()
        return [*(s for move in moves for s in move.effects), *(s for t in triggers for s in t.effects)]

    def _step_flags(self, moves: list[ir.MoveDef]) -> set[str]:
        """The flags a step of one of `moves` may set."""
        return _flags_set(self._step_effects(moves))

    def _step_targets(self, moves: list[ir.MoveDef]) -> set[str]:
        """The phases a `goto` of a step of one of `moves` may name."""
        return _goto_targets(self._step_effects(moves))

    def play(
        self, phase: ir.Phase, move: ir.MoveDef, hoisted: list, body: list[ast.stmt], turn_limit: int | None
    ) -> Callable[[Any, int, tuple, int], None]:
        """Pass `play`: the step of `move` and the settle of `phase` (the only phase the move
        belongs to, so the one the engine settles in after it) as one function, `play(state,
        key, values, recorded)`: one call fewer per step, and the settle's tests are decided for this
        move alone (the flags its own effects and the triggers can set; no pass test after a
        move that is not a pass). A `return` of the step, which it takes only when a flag that
        ends the step is set, becomes what the settle does first when a flag is set. It returns
        True when it stops at the decision its settle listed (see `_settle_lines`), else None."""
        flags = self._step_flags([move])
        targets = self._step_targets([move])
        on_flag = self._on_flag(flags, phase, targets, turn_limit is not None or move.is_pass)
        step_lines = self._step_bodies[move.name]
        if on_flag is not None:
            step_lines = _returns_replaced(step_lines, on_flag.body)
        settle_lines = self._settle_lines(phase, hoisted, body, turn_limit, move.is_pass, flags, targets)
        fn = pyast.function(
            self.names.fresh(f"_step_{move.name}"), STEP_PARAMS, [*self._records(move), *step_lines, *settle_lines]
        )
        heading = f"step of move {move.name} {position(move.span)}, then the settle of phase {phase.name}"
        return self.define(fn, heading, of_state=True)

    def _phase_enumeration(self, moves: list[tuple[ir.MoveDef, Any]]) -> tuple[list, list[ast.stmt]]:
        """(hoisted values, body) listing a phase's legal actions of player `me` into `found`.

        The moves share what they compute before their loops (the top card, say), and a
        pass move is listed only when nothing else is legal.
        """
        hoisted: list[tuple[str, ast.expr]] = []
        body: list[ast.stmt] = []
        passes: list[ast.stmt] = []
        by_candidates: list[tuple[ast.expr, list[tuple[ir.MoveDef, Any]]]] = []  # moves over the same cards
        for move, compiled in moves:
            if compiled.is_pass:
                passes += self._enumeration(move, compiled.params, compiled.offset, hoisted)
            elif self._card_by_card(compiled):
                candidates = self._candidates(move.params[0])
                group = next((g for c, g in by_candidates if pyast.same(c, candidates)), None)
                if group is None:
                    by_candidates.append((candidates, [(move, compiled)]))
                else:
                    group.append((move, compiled))
            else:
                body += self._enumeration(move, compiled.params, compiled.offset, hoisted)
        for candidates, group in by_candidates:
            body += self._shared_loop(candidates, group, hoisted)
        listed = [m for m, c in moves if not c.is_pass and not self._card_by_card(c)]
        listed += [m for _candidates, group in by_candidates for m, _compiled in group]
        if listed != [m for m, c in moves if not c.is_pass] or any(len(g) > 1 for _c, g in by_candidates):
            self._in_phase_order(body, [c for _m, c in moves if not c.is_pass])
        if passes:
            body.append(pyast.if_(pyast.not_(name("found")), passes))
        return hoisted, body

    def _in_phase_order(self, listing: list[ast.stmt], moves: list[Any]) -> None:
        """A listing that tests its moves in another order than the phase lists them (card by
        card, or a move over cards after the moves without) meets the errors of their `legal`
        tests in that order: on an error, the moves' own enumerators run one by one in the
        phase's order, so that the error raised is the one the reference mode meets first.
        (A `try` costs nothing until something is raised.)"""
        bound = self.names.fresh("_error")
        enumerators = pyast.tuple_(self.helper(compiled.enumerate, "enumerate_move") for compiled in moves)
        helper = self.helper(runtime.first_listing_error, "first_listing_error")
        first = call(helper, name("st"), name(self.me), enumerators, name(bound))
        pyast.guarded(listing, self.helper(EngineError, "EngineError"), bound, [pyast.expr(first)])

    def _candidates(self, param: ir.Param) -> ast.expr:
        source = self.collection(param.candidates)
        if param.candidates.type == ir.ZONE:
            return source  # a zone holds real cards, each once
        static = self._static_values(param.candidates, source)
        if static is not None:  # seats, suits, range(k): listed once, when the game is compiled
            return const(tuple(dict.fromkeys(static)))
        if param.type == ir.CARD or param.size is not None:
            return call(self.helper(_real_cards, "real_cards"), source)  # a list may name a card twice, or none
        return call(self.helper(runtime.unique, "unique"), source)

    @staticmethod
    def _card_by_card(compiled: Any) -> bool:
        """Whether a move's actions can be found by testing the candidate cards one at a time:
        one card parameter, or one set of cards sharing an attribute."""
        if len(compiled.params) != 1:
            return False
        param = compiled.params[0]
        return param.kind == "card" or (param.kind == "set" and param.same is not None)

    def _shared_loop(self, candidates: ast.expr, group: list[tuple[ir.MoveDef, Any]], hoisted: list) -> list[ast.stmt]:
        """Pass `shared card loops`: one loop over `candidates` for several moves: each card is
        tested for every move in turn; sets are built after the loop from the cards kept for them."""
        card = self.names.fresh("_x")
        start: list[ast.stmt] = []
        tests: list[tuple[ast.expr, ast.stmt]] = []  # (test of the card, what to do when it holds)
        after: list[ast.stmt] = []
        if len(group) == 1 and group[0][1].params[0].kind == "card":
            filtered = self._filter_else_every(*group[0], card, candidates, hoisted)
            if filtered is not None:
                return filtered
        for move, compiled in group:
            param, kind = move.params[0], compiled.params[0]
            if kind.kind == "card":
                self._aliases[param.slot] = name(card)
                try:
                    with self._real_card_parameters(move):
                        test = self._legal_condition(move, hoisted)
                finally:
                    del self._aliases[param.slot]
                tests.append((test, self._append(fold_binop(const(compiled.offset), "+", name(card)))))
                continue
            per_card = self._card_test(move, compiled.params, hoisted, name(card)) if move.legal is not None else None
            keep, wrap, iterable = self._kept_sets(kind, card, self._pins(per_card, kind.same, card))
            start.append(keep[0])
            tests.append((per_card if per_card is not None else const(True), keep[1]))
            var = self.slot(param.slot)
            condition = (
                const(True) if per_card is not None or move.legal is None else self._legal_condition(move, hoisted)
            )
            key = fold_binop(const(compiled.offset), "+", self._set_rank(var, kind.size, 1))
            inner: list[ast.stmt] = [self._append(key)]
            if not (pyast.is_const(condition) and condition.value):  # type: ignore[attr-defined]
                inner = [pyast.if_(condition, inner)]
            after += wrap([pyast.for_(var, iterable, inner)])
        if len(tests) == 1 and not start:
            every = self._every_card(tests[0], card, candidates)
            if every is not None:
                return every
        return [*start, pyast.for_(card, candidates, self.card_tests(tests, card)), *after]

    def _every_card(self, only: tuple[ast.expr, ast.stmt], card: str, candidates: ast.expr) -> list[ast.stmt] | None:
        """Pass `every card`: one move's test `a or b(card) or ...` where some parts are locals
        computed before the loop (pass `hoist`): when one of them holds, every candidate is
        legal and is added at once, without the loop. Preserves the ids found (the locals
        cannot fail and do not change inside the loop)."""
        test, action = only
        fixed, varying = _fixed_and_varying(test, card)
        call_ = action.value if isinstance(action, ast.Expr) else None
        if not fixed or not varying or not (isinstance(call_, ast.Call) and len(call_.args) == 1):
            return None
        every = _every_id(call_.args[0], card, candidates)
        if every is None:
            return None
        loop = pyast.for_(card, candidates, self.card_tests([(pyast.or_(*varying), action)], card))
        return [pyast.if_(pyast.or_(*fixed), [_extend_found(every)], [loop])]

    def _filter_else_every(
        self, move: ir.MoveDef, compiled: Any, card: str, candidates: ast.expr, hoisted: list
    ) -> list[ast.stmt] | None:
        """Pass `filter, else every card`: a card move whose test is `a or b(card) or not
        C.any(c, b(c))`, C its own candidates (a zone: each card once) and `a` computed before
        the loop: when `a` holds, every candidate is legal; else the loop keeps the cards
        passing `b`, and when it kept none, `not any` holds and every candidate is legal.
        The same ids as the test asked card by card (`b` cannot have effects; it is asked of
        every candidate either way)."""
        param = move.params[0]
        if move.legal is None or param.candidates.type != ir.ZONE:
            return None
        split = next(
            (s for s in _none_of_parts(move.legal) if pyast.same(self.collection(s[1].collection), candidates)), None
        )
        if split is None:
            return None
        rest, none_of = split
        mark = len(hoisted)
        self._aliases[param.slot] = self._aliases[none_of.slot] = name(card)
        macro_card = {none_of.slot} - self.real_cards  # it ranges over a zone: a real card too
        self.real_cards |= macro_card
        try:
            with self._real_card_parameters(move):
                test = self._legal_condition(attrs.evolve(move, legal=rest), hoisted)
                wanted = self._legal_condition(attrs.evolve(move, legal=none_of.body), hoisted)
        finally:
            del self._aliases[param.slot], self._aliases[none_of.slot]
            self.real_cards -= macro_card
        fixed, varying = _fixed_and_varying(test, card)
        key = fold_binop(const(compiled.offset), "+", name(card))
        every = _every_id(key, card, candidates)
        if len(varying) != 1 or not pyast.same(varying[0], wanted) or every is None:
            del hoisted[mark:]  # the general loop generates its own
            return None
        before = self.names.fresh("_before")
        found_size = call("len", name("found"))
        filtered = [
            pyast.assign(before, found_size),
            pyast.for_(card, candidates, self.card_tests([(wanted, self._append(key))], card)),
            pyast.if_(compare(found_size, "==", name(before)), [_extend_found(every)]),
        ]
        return [pyast.if_(pyast.or_(*fixed), [_extend_found(every)], filtered)] if fixed else filtered

    @staticmethod
    def _append(key: ast.expr) -> ast.stmt:
        return pyast.expr(pyast.method(name("found"), "append", key))

    def settle(
        self,
        phase: ir.Phase,
        hoisted: list,
        body: list[ast.stmt],
        turn_limit: int | None,
        passes: bool,
        flags: set[str],
        targets: set[str],
    ):
        """One function for what follows a step in `phase`: `settle(state)` passes the turn and
        lists the next player's legal actions (with the phase's enumeration `hoisted` and
        `body`). The turn passing is flow.turn_passing, which the engine's `State.pass_turn` is
        compiled from too, and the end checks are the engine's `State._check`: what is rare
        (the round or phase ending, a player with nothing legal)
        goes through `_check`, which decides from the same state. Tests known false when the
        game is compiled are left out: the turn limit without one, and every player having
        passed when no move of the phase is a pass (`passes` False: the engine settles only
        after the step of a move of this phase, which set `st.passes` to 0), a flag of the
        flow no effect of those steps can set (`flags`: the ones that can be; the engine stops
        at a decision only with every flag clear), and a player chosen by `turn to` when no
        such effect can run (`turn_set` not in `flags`: the engine clears it before a step)."""
        lines = self._settle_lines(phase, hoisted, body, turn_limit, passes, flags, targets)
        fn = pyast.function(self.names.fresh(f"_settle_{phase.name}"), ["st"], lines)
        return self.define(fn, f"after a step in phase {phase.name}", of_state=True)

    def _on_flag(self, flags: set[str], phase: ir.Phase, targets: set[str], turn_ends: bool) -> ast.If | None:
        """`if <a flag of the flow is set>: advance the turn (unless the match is over), then
        State._check, and return`, testing only the flags in `flags` (None: none of them), after
        a step in `phase` whose effects name the phases `targets` in a `goto`; `turn_ends`: passing
        the turn may end the round (a turn limit, or a pass move: everyone may have passed)."""
        st_ = name("st")
        raised = [
            compare(pyast.st(flag), "is not", const(None)) if flag == "goto" else pyast.st(flag)
            for flag in ("game_over", "round_over", "goto", "phase_over")
            if flag in flags
        ]
        if not raised:
            return None
        advance: ast.stmt = pyast.expr(pyast.method(st_, "_advance"))
        if "game_over" in flags:
            advance = pyast.if_(pyast.not_(pyast.st("game_over")), [advance])
        then: list[ast.stmt] = [advance]
        target = next(iter(targets)) if "goto" in flags and len(targets) == 1 else None
        entry = self._entry(phase, target)
        if entry is not None:
            # the one phase a `goto` of these steps names: entered at once, as State._check would
            # (the end of the match or of the round, which it looks at first, leaves it to _check)
            ended = {flag for flag in ("game_over", "round_over") if flag in flags}
            if turn_ends:
                ended.add("round_over")
            going = pyast.and_(
                compare(pyast.st("goto"), "==", const(self.phase_names.index(target))),  # type: ignore[arg-type]
                *(pyast.not_(pyast.st(flag)) for flag in sorted(ended)),
            )
            gone = [pyast.assign(pyast.store_attr(st_, "goto"), const(None)), _enter_or_check(entry), pyast.return_()]
            then.append(pyast.if_(going, gone))
        return pyast.if_(pyast.or_(*raised), [*then, pyast.expr(pyast.method(st_, "_check")), pyast.return_()])

    @property
    def phase_names(self) -> list[str]:
        return [p.name for p in self.phases]

    def _entry(self, source: ir.Phase, target: str | None) -> str | None:
        """Pass `entries`: the name of the function entering phase `target` straight from
        `source` (see `entry_functions`), when nothing runs between them: `source` has no
        `exit` effects and the target no `enter` effects, and no phase of the game is
        simultaneous. None: the step leaves the change of phase to State._check."""
        if target is None or source.exit or any(p.simultaneous for p in self.phases):
            return None
        index = self.phase_names.index(target)
        if self.phases[index].enter:
            return None
        if index not in self.entries:
            self.entries[index] = self.names.fresh(f"_enter_{target}")
        return self.entries[index]

    def entry_functions(self, moves_of: Callable[[ir.Phase], list[tuple[ir.MoveDef, Any]]]) -> None:
        """The entry functions the generated steps call (pass `entries`), `enter(state)`: what
        State._check does on entering the phase (its `first`, its `until`, the player to move
        in the round) and, at a decision, its listing of legal actions, as its settle writes
        it; True when it stopped at a decision, else False with the phase entered, for _check
        to go on from there."""
        me = name(self.me)
        st_ = name("st")
        give_up: list[ast.stmt] = [pyast.return_(const(False))]
        for index, symbol in sorted(self.entries.items()):
            phase = self.phases[index]
            hoisted, body = self._phase_enumeration(moves_of(phase))
            lines: list[ast.stmt] = [
                *self._hook("phase_entered", index),
                pyast.assign(pyast.store_attr(st_, "phase"), const(index)),
                pyast.assign(pyast.store_attr(st_, "phase_over"), const(False)),
            ]
            if phase.first is None or 0 in free_slots(phase.first):
                lines.append(pyast.assign(self.me, pyast.st("current")))
            if phase.first is not None:
                lines.append(pyast.assign(self.me, self.gen(phase.first)))
                if not self.seat(phase.first):  # nobody to move is an error naming `first` (no call for a seat)
                    at = const(position(phase.first.span))
                    players = self.layout.num_players
                    refuse = call(self.helper(runtime.rule_seat, "rule_seat"), const("'first'"), me, const(players), at)
                    lines.append(pyast.if_(pyast.not_(pyast.within(me, players)), [pyast.expr(refuse)]))
                lines.append(pyast.assign(pyast.store_attr(st_, "current"), me))
            if phase.until is not None:
                lines.append(pyast.if_(self.gen(phase.until), give_up))
            if not self.everyone_stays:
                lines.append(pyast.if_(pyast.not_(sub(pyast.st("active"), me)), give_up))
            lines += [
                *_kept_listing(hoisted, body),
                pyast.return_(pyast.not_(pyast.not_(name("found")))),
            ]
            fn = pyast.function(symbol, ["st"], lines)
            self.define(fn, f"entry of phase {phase.name}", of_state=True)

    def _settle_lines(
        self,
        phase: ir.Phase,
        hoisted: list,
        body: list[ast.stmt],
        turn_limit: int | None,
        passes: bool,
        flags: set[str],
        targets: set[str],
    ) -> list[ast.stmt]:
        """The statements of `settle` (see there)."""
        me = self.me
        st_ = name("st")
        check_return = [pyast.expr(pyast.method(st_, "_check")), pyast.return_()]
        on_flag = self._on_flag(flags, phase, targets, turn_limit is not None or passes)
        lines: list[ast.stmt] = [] if on_flag is None else [on_flag]
        lines += flow.turn_passing(
            const(self.layout.num_players),
            None if turn_limit is None else const(turn_limit),
            check_return,
            me,
            passes,
            "turn_set" in flags,
            self.everyone_stays,
        )
        if phase.until is not None:
            entry = self._entry(phase, phase.next)
            ended = check_return if entry is None else [_enter_or_check(entry), pyast.return_()]
            lines.append(pyast.located(pyast.if_(self.gen(phase.until), ended), position(phase.until.span)))
        if not self.everyone_stays:  # else the player to move is in the round
            lines.append(pyast.if_(pyast.not_(sub(pyast.st("active"), name(me))), check_return))
        lines += [
            *_kept_listing(hoisted, body),
            # a decision listed here: True tells `State.apply_action` that nothing else is due
            pyast.if_(name("found"), [pyast.return_(const(True))]),
            pyast.expr(pyast.method(st_, "_check")),
        ]
        return lines

    def _enumerator_function(self, hoisted: list, body: list[ast.stmt], heading: str):
        fn = pyast.function(self.names.fresh("_enumerate"), ["st", self.me, "found"], _listing(hoisted, body))
        return self.define(fn, heading, of_state=True)

    def _enumeration(
        self, move: ir.MoveDef, compiled_params: tuple[Any, ...], offset: int, hoisted: list
    ) -> list[ast.stmt]:
        """Loops over a move's parameters adding the id of each legal action to `found`.

        Sets of cards sharing an attribute are built group by group. When the legal test
        reads the set only through that attribute, each card is tested alone before any
        set is built, so a hand is grouped only by the cards that can take part.
        """
        params = move.params
        strides = []
        width = 1
        for compiled in reversed(compiled_params):
            strides.append(width)
            width *= compiled.domain_size
        strides.reverse()
        written = self._written_out(move, compiled_params, offset, strides, hoisted)
        if written is not None:
            return written
        with self._real_card_parameters(move):
            condition = self._legal_condition(move, hoisted)
        test_card = self.names.fresh("_c")
        card_test = self._card_test(move, compiled_params, hoisted, name(test_card))
        if card_test is not None:
            condition = const(True)
        wraps: list[Wrap] = []
        key: ast.expr = const(offset)
        for depth, (param, compiled) in enumerate(zip(params, compiled_params)):
            var = self.slot(param.slot)
            candidates = self._candidates(param)
            stride = strides[depth]
            if compiled.kind == "card":
                key = pyast.binop(key, "+", name(var) if stride == 1 else pyast.binop(name(var), "*", const(stride)))
                iterable = candidates
            elif compiled.kind == "subset":  # a set of variable size, keyed by a bit per card
                mask = call(self.helper(runtime.card_mask, "card_mask"), name(var))
                key = pyast.binop(key, "+", mask if stride == 1 else pyast.binop(mask, "*", const(stride)))
                same = const(None) if compiled.same is None else name(self.constant(compiled.same, "same"))
                iterable = call(
                    self.helper(runtime.card_subsets, "card_subsets"),
                    candidates,
                    const(compiled.at_least),
                    const(compiled.size),
                    same,
                )
            elif compiled.kind == "set":
                key = pyast.binop(key, "+", self._set_rank(var, compiled.size, stride))
                if compiled.same is None:
                    iterable = call(self.helper(_sorted_sets, "sorted_sets"), candidates, const(compiled.size))
                else:
                    if depth == len(params) - 1 and card_test is not None:
                        pinned = self._pins(card_test, compiled.same, test_card)
                        keep, wrap, iterable = self._kept_sets(compiled, test_card, pinned)
                        filtered = [keep[0], pyast.for_(test_card, candidates, [pyast.if_(card_test, [keep[1]])])]
                        wraps.append(_after(filtered))
                    else:
                        wrap, iterable = self._set_groups(candidates, compiled)
                    wraps.append(wrap)
            else:
                positions = name(self.constant({v: i for i, v in enumerate(compiled.domain)}, "positions"))
                at = self.names.fresh(f"_p{depth}")
                opened = [
                    pyast.assign(at, pyast.method(positions, "get", name(var), const(-1))),
                    pyast.if_(compare(name(at), "<", const(0)), [ast.Continue()]),
                ]
                wraps.append(_loop(var, candidates, opened))
                key = pyast.binop(key, "+", name(at) if stride == 1 else pyast.binop(name(at), "*", const(stride)))
                continue
            wraps.append(_loop(var, iterable, []))
        inner: list[ast.stmt] = [self._append(key)]
        if not (pyast.is_const(condition) and condition.value):  # type: ignore[attr-defined]
            inner = [pyast.if_(condition, inner)]
        for wrap in reversed(wraps):
            inner = wrap(inner)
        if move.legal is not None and inner:
            pyast.located(inner[0], position(move.legal.span))
        return inner

    def _written_out(
        self, move: ir.MoveDef, compiled_params: tuple[Any, ...], offset: int, strides: list[int], hoisted: list
    ) -> list[ast.stmt] | None:
        """Pass `listed values`: a move whose parameters all range over values fixed when the game
        is compiled (seats, suits, `range(k)`), each over at most MAX_UNROLLED of them, is listed
        value by value in the loops' order, each value a constant in the legal test (which then
        folds) and each id a constant: no loop, no look-up of a value's place. Within the
        unrolling budgets; else None (the loops)."""
        if not move.params:
            return None
        choices: list[list[tuple[object, int]]] = []
        for param, compiled in zip(move.params, compiled_params):
            if compiled.kind in ("card", "subset", "set"):
                return None
            candidates = self._candidates(param)
            if not (isinstance(candidates, ast.Constant) and isinstance(candidates.value, tuple)):
                return None
            if len(candidates.value) > MAX_UNROLLED:
                return None
            places = {value: place for place, value in enumerate(compiled.domain)}
            choices.append([(value, places[value]) for value in candidates.value if value in places])
        count = prod(len(values) for values in choices)
        if self._unroll_work + count > UNROLL_WORK:
            return None
        before = len(hoisted)
        statements: list[ast.stmt] = []
        written = 0  # syntax nodes so far: past the budget, the rest is not even generated
        try:
            for chosen in itertools.product(*choices):
                key = offset
                for param, stride, (value, place) in zip(move.params, strides, chosen):
                    self._aliases[param.slot] = const(value)
                    key += place * stride
                condition = self._legal_condition(move, hoisted)
                if not pyast.is_const(condition):
                    statements.append(pyast.if_(condition, [self._append(const(key))]))
                elif condition.value:  # type: ignore[attr-defined]
                    statements.append(self._append(const(key)))
                else:
                    continue
                written += pyast.size(statements[-1])
                if written > UNROLL_BUDGET:
                    del hoisted[before:]  # what only the written-out tests read
                    return None
        finally:
            for param in move.params:
                self._aliases.pop(param.slot, None)
        self._unroll_work += count
        if move.legal is not None and statements:
            pyast.located(statements[0], position(move.legal.span))
        return statements

    @contextlib.contextmanager
    def _real_card_parameters(self, move: ir.MoveDef, decoded: bool = False):
        """While generating code for `move`: its card parameters taken from a zone (or, in a
        step, decoded from an action id) are real cards."""
        slots = {
            p.slot
            for p in move.params
            if p.type == ir.CARD and p.size is None and (decoded or p.candidates.type == ir.ZONE)
        } - self.real_cards
        self.real_cards |= slots
        try:
            yield
        finally:
            self.real_cards -= slots

    def _set_groups(self, cards: ast.expr, compiled: Any) -> tuple[Wrap, ast.expr]:
        """What opens the groups of `cards` equal in the set parameter's attribute that are
        large enough, and the sets of one group (sorted)."""
        size, same = compiled.size, name(self.constant(compiled.same, "same"))
        grouped = pyast.method(call(self.helper(_group, "group"), cards, same), "values")
        wrap, sets = self._sets_of_groups(grouped, size)
        return lambda body: [pyast.if_(compare(call("len", cards), ">=", const(size)), wrap(body))], sets

    def _kept_sets(self, compiled: Any, card: str, pinned: bool) -> tuple[tuple[ast.stmt, ast.stmt], Wrap, ast.expr]:
        """For a set parameter whose cards are kept one at a time while a loop over `card` runs:
        (what starts the keeping, what keeps `card`), what opens the groups large enough after
        the loop, and the sets of one group (sorted).

        The cards kept are grouped by the attribute as they are kept (no second pass over them),
        unless every card kept shares one value (`pinned`, see `_pins`): then they are one group."""
        size = compiled.size
        if pinned:
            kept = self.names.fresh("_kept")
            keep = (pyast.assign(kept, pyast.list_([])), pyast.expr(pyast.method(name(kept), "append", name(card))))
            sets: ast.expr = call(
                self.helper(itertools.combinations, "combinations"), call("sorted", name(kept)), const(size)
            )
            return keep, lambda body: [pyast.if_(compare(call("len", name(kept)), ">=", const(size)), body)], sets
        groups = self.names.fresh("_groups")
        value = sub(name(self.constant(compiled.same, "same")), name(card))
        added = pyast.method(pyast.method(name(groups), "setdefault", value, pyast.list_([])), "append", name(card))
        keep = (pyast.assign(groups, ast.Dict(keys=[], values=[])), pyast.expr(added))
        wrap, sets = self._sets_of_groups(pyast.method(name(groups), "values"), size)
        return keep, wrap, sets

    def _sets_of_groups(self, groups: ast.expr, size: int) -> tuple[Wrap, ast.expr]:
        """What opens each of `groups` holding at least `size` cards, and its sets (sorted)."""
        group = self.names.fresh("_g")

        def wrap(body: list[ast.stmt]) -> list[ast.stmt]:
            return [pyast.for_(group, groups, [pyast.if_(compare(call("len", name(group)), ">=", const(size)), body)])]

        sets = call(self.helper(itertools.combinations, "combinations"), call("sorted", name(group)), const(size))
        return wrap, sets

    def _pins(self, test: ast.expr | None, same: list, card: str) -> bool:
        """Whether a card passing `test` (a set's test asked of one card `card`) has one value of
        the attribute table `same` whatever the card: the test is, or is a conjunct of,
        `same[card] == x` with `x` not read from the card (so it is the same for every card)."""
        if test is None:
            return False
        value = sub(name(self.constant(same, "same")), name(card))
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for part in parts:
            if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)):
                continue
            for one, other in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
                if pyast.same(one, value) and card not in pyast.names_in(other):
                    return True
        return False

    def _card_test(
        self, move: ir.MoveDef, compiled_params: tuple[Any, ...], hoisted: list, card: ast.expr
    ) -> ast.expr | None:
        """When the last parameter is a set of cards sharing an attribute and `legal` reads the
        set only through that attribute: the test as asked of one card; else None. Not when the
        test may raise: asked of each card, it would raise before any set is known to exist,
        where the reference mode, which asks it of whole sets, asks it of none."""
        if not move.params or move.legal is None:
            return None
        if may_fail(move.legal, self.layout, {p.slot: p.size for p in move.params if p.size is not None}):
            return None
        last, compiled = move.params[-1], compiled_params[-1]
        if compiled.kind != "set" or compiled.same is None:
            return None
        table = name(self.constant(compiled.same, "same"))
        self._group_values = {last.slot: sub(table, card)}
        mark = len(hoisted)
        try:
            test = self._legal_condition(move, hoisted)
        finally:
            self._group_values = {}
        if self.slot(last.slot) in pyast.names_in(test):
            del hoisted[mark:]  # nothing of this attempt is used
            return None
        return test

    def _legal_condition(self, move: ir.MoveDef, hoisted: list) -> ast.expr:
        if move.legal is None:
            return const(True)
        if not move.params:
            return self.gen(move.legal)
        # Parts of `legal` that depend on no parameter are computed once, before the loops.
        self._shared = {
            p.slot: p.same for p in move.params if p.size is not None and p.same is not None and p.at_least is None
        }
        self._hoisted, self._forbidden = hoisted, {p.slot for p in move.params}
        # a set parameter holds at most its size of cards (for the limit tests of a sum over it)
        self._lengths = {p.slot: p.size for p in move.params if p.size is not None}
        try:
            return self.gen(move.legal)
        finally:
            self._hoisted, self._forbidden, self._shared, self._lengths = None, set(), {}, {}

    def _set_rank(self, var: str, size: int, stride: int) -> ast.expr:
        """The index of a sorted card set among all sets of its size (colex order)."""
        tables = [name(self.constant(self.binomials(i), f"binomial{i}")) for i in range(1, size + 1)]
        rank: ast.expr = sub(tables[0], sub(name(var), const(0)))
        for i, table in enumerate(tables[1:], start=1):
            rank = pyast.binop(rank, "+", sub(table, sub(name(var), const(i))))
        return rank if stride == 1 else pyast.binop(rank, "*", const(stride))

    def binomials(self, k: int) -> list[int]:
        """comb(card, k) for every card: how many sets of k come before a set whose largest is `card`."""
        if k not in self._binomials:
            self._binomials[k] = [comb(card, k) for card in range(len(self.layout.card_names))]
        return self._binomials[k]

    # ---- steps ------------------------------------------------------------------------

    def step(self, move: ir.MoveDef, triggers: tuple[ir.Trigger, ...]) -> Callable[[Any, int, tuple, int], None]:
        """One generated function for a move no shuffle can interrupt: `step(state, key, values,
        recorded)` notes the action (`_records`), runs the move's effects, then the triggers in
        order, each one's firings chosen before its effects run (`trigger_firings`, which the
        engine's general path uses too)."""
        self.step_statements(move, triggers)
        return self._step_function(move)

    def _step_function(self, move: ir.MoveDef) -> Callable[[Any, int, tuple, int], None]:
        body = [*self._records(move), *self._step_bodies[move.name], pyast.return_()]
        fn = pyast.function(self.names.fresh(f"_step_{move.name}"), STEP_PARAMS, body)
        return self.define(fn, f"step of move {move.name} {position(move.span)}", of_state=True)

    def _records(self, move: ir.MoveDef) -> list[ast.stmt]:
        """What a step notes of its action before the effects run: the value kept in the
        history (`recorded`), the counts of steps, turns and passes, the mover, the cleared
        flags. `State._act` notes the same for a move without a step; the differential tests
        compare the two (the reference mode has no steps)."""
        state = name("st")
        passes = (
            ast.AugAssign(pyast.store_attr(state, "passes"), ast.Add(), const(1))
            if move.is_pass
            else pyast.assign(pyast.store_attr(state, "passes"), const(0))
        )
        # rules that can show no card and choose no player never set `shown_any` or `turn_set`
        shown = [pyast.if_(pyast.st("shown_any"), [pyast.expr(pyast.method(state, "clear_shown"))])]
        chosen = [pyast.assign(pyast.store_attr(state, "turn_set"), const(False))]
        return [
            pyast.expr(pyast.method(pyast.st("_tail"), "append", name("recorded"))),
            ast.AugAssign(pyast.store_attr(state, "steps"), ast.Add(), const(1)),
            ast.AugAssign(pyast.store_attr(state, "turns"), ast.Add(), const(1)),
            *(shown if self.shows_cards else []),
            pyast.assign(pyast.store_attr(state, "_legal"), const(None)),
            pyast.assign(self.me, pyast.st("current")),
            pyast.assign(pyast.store_attr(state, "mover"), name(self.me)),
            *(chosen if self.chooses_turn else []),
            pyast.assign(pyast.store_attr(state, "last_action"), name("action")),
            pyast.if_(
                compare(pyast.st("log"), "is not", const(None)),
                [pyast.expr(pyast.method(state, "log_action", name("action")))],
            ),
            passes,
        ]

    def step_statements(
        self, move: ir.MoveDef, triggers: tuple[ir.Trigger, ...], phase: int | None = None
    ) -> list[ast.stmt]:
        """The statements of `step` (without its last `return`), kept for the move's `play`.
        `phase`: the index of the one phase the move belongs to, if so; the rules' `phase` is
        then a constant in them (pass `known phase`)."""
        self.step_phase = phase
        try:
            return self._step_statements(move, triggers)
        finally:
            self.step_phase = None

    def _step_statements(self, move: ir.MoveDef, triggers: tuple[ir.Trigger, ...]) -> list[ast.stmt]:
        self._step_triggers = triggers
        body: list[ast.stmt] = []
        if move.params:
            body.append(
                pyast.assign(
                    ast.Tuple([pyast.store(self.slot(p.slot)) for p in move.params], ast.Store()), name("values")
                )
            )
        # Slots the code reads before it sets them (loop variables) start empty, as in an environment.
        assigned = {0, *(p.slot for p in move.params)}
        read = {
            slot
            for statement in (*move.effects, *(s for t in triggers for s in t.effects))
            for slot in statement_slots(statement)
        }
        body += [_start_empty(self.slot(slot)) for slot in sorted(read - assigned)]
        with self._real_card_parameters(move, decoded=True):
            body += self.statements(move.effects)
        # The step starts with every flag clear (the engine stops at a decision only so): a flag
        # is looked at only after effects that may set it.
        over = pyast.or_(pyast.st("game_over"), pyast.st("round_over"))
        ending = {"game_over", "round_over"}
        if triggers and ending & _flags_set(move.effects):
            body.append(pyast.if_(over, [pyast.return_()]))
        for index, trigger in enumerate(triggers):
            last = index == len(triggers) - 1
            effects = [*self._hook("trigger_fired", index), *self.statements(trigger.effects)]
            sets = _flags_set(trigger.effects)
            if trigger.each is None:
                # The flags change only when effects run, so they are looked at after effects.
                then = [] if last or not ending & sets else [pyast.if_(over, [pyast.return_()])]
                when = self.gen(trigger.when)
                if pyast.is_const(when) and not when.value:  # type: ignore[attr-defined]
                    continue  # never fires in this step (e.g. a test of another phase)
                body.append(
                    pyast.located(
                        pyast.if_(when, [*effects, *then]),
                        f"trigger {trigger.name} {position(trigger.when.span)}",
                    )
                )
                continue
            fired = self.names.fresh(f"_fired_{trigger.name}")
            var = self.slot(trigger.slot)  # type: ignore[arg-type]
            choice = self.trigger_firings(trigger, fired)
            pyast.located(choice[0], f"trigger {trigger.name} {position(trigger.when.span)}")
            body += choice
            # A round ending in one firing still lets the others of the same trigger run, a match ending does not.
            stop = [pyast.if_(pyast.st("game_over"), [pyast.return_()])] if "game_over" in sets else []
            loop = pyast.for_(var, name(fired), [*effects, *stop])
            after = [] if last or "round_over" not in sets else [pyast.if_(pyast.st("round_over"), [pyast.return_()])]
            body.append(pyast.if_(compare(name(fired), "is not", const(None)), [loop, *after]))
        # a slot the code never reads before a loop sets it needs no start value
        body = [
            statement
            for statement in body
            if not (_starts_empty(statement) and not _may_read_unset(body, statement.targets[0].id))  # type: ignore
        ]
        self._step_bodies[move.name] = body
        return body

    def trigger_firings(self, trigger: ir.Trigger, fired: str) -> list[ast.stmt]:
        """Statements setting `fired` to the items of a trigger's `for` whose `when` holds (None
        when none does), every one chosen before any runs: the one description of firing, used
        inline by steps and as `CompiledTrigger.firings` by the engine's general path."""
        var = self.slot(trigger.slot)  # type: ignore[arg-type]
        items = self.collection(trigger.each)  # type: ignore[arg-type]
        if trigger.each.type == ir.CARD:  # type: ignore[union-attr]
            items = pyast.tuple_([items])
        add = pyast.if_(
            compare(name(fired), "is", const(None)),
            [pyast.assign(fired, pyast.list_([name(var)]))],
            [pyast.expr(pyast.method(name(fired), "append", name(var)))],
        )
        unrolled = self._firings_by_seat(trigger, fired)
        if unrolled is not None:
            return [pyast.assign(fired, const(None)), *unrolled]
        return [pyast.assign(fired, const(None)), pyast.for_(var, items, [pyast.if_(self.gen(trigger.when), [add])])]

    def _firings_by_seat(self, trigger: ir.Trigger, fired: str) -> list[ast.stmt] | None:
        """Pass `unroll` for a trigger `for` over `players` or `active`: one test per seat in
        seat order (a seat out of the round is not asked), within the unrolling budget.

        A seat's `active` guard comes after a `when` that cannot fail and is small: a trigger's
        test mostly fails and a seat is mostly in the round, so the test decides alone."""
        each = trigger.each
        if not (isinstance(each, ir.Builtin) and each.name in ("players", "active")) or trigger.slot is None:
            return None
        seats = self.layout.num_players
        if seats > MAX_UNROLLED:
            return None
        test_first = not may_fail(trigger.when, self.layout)
        statements: list[ast.stmt] = []
        try:
            for seat in range(seats):
                self._aliases[trigger.slot] = const(seat)
                test = self.gen(trigger.when)
                if each.name == "active" and not self.everyone_stays:
                    guard = sub(pyast.st("active"), const(seat))
                    if test_first and pyast.size(test) <= SMALL_TEST:
                        test = pyast.and_(test, guard)
                    else:
                        test = pyast.and_(guard, test)
                add = pyast.if_(
                    compare(name(fired), "is", const(None)),
                    [pyast.assign(fired, pyast.list_([const(seat)]))],
                    [pyast.expr(pyast.method(name(fired), "append", const(seat)))],
                )
                statements.append(pyast.if_(test, [add]))
        finally:
            self._aliases.pop(trigger.slot, None)
        if sum(pyast.size(statement) for statement in statements) > UNROLL_BUDGET:
            return None
        return statements

    def firings_function(self, trigger: ir.Trigger) -> Callable[[Any, list], list]:
        """`firings(state, env)`: the items of a trigger's `for` that fire now (see trigger_firings)."""
        fired = self.names.fresh(f"_fired_{trigger.name}")
        slots = (free_slots(trigger.each) | free_slots(trigger.when)) - {trigger.slot}
        body = [
            *self.prologue(slots),
            *self.trigger_firings(trigger, fired),
            pyast.return_(pyast.or_(name(fired), pyast.list_([]))),
        ]
        fn = pyast.function(self.names.fresh(f"_firings_{trigger.name}"), ["st", "env"], body)
        return self.define(fn, f"firings of trigger {trigger.name} {position(trigger.when.span)}")
