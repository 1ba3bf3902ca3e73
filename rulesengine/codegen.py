"""Generate Python source for checked expressions and compile it once.

Each expression becomes one Python function `f(state, env)` whose body is a single
Python expression: bound names are Python locals, card attributes are table lookups,
list macros are generator expressions; an effect list becomes one function of Python
statements. The code of moves (legal actions, steps) is built on this in codegen_moves.py.
Nothing here runs while a game is played: the generated code is compiled when a game
setting is compiled.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import attrs

from . import ir, runtime
from .diagnostics import EngineError
from .runtime import NO_CARD

MAX_UNROLLED = 8  # a macro over at most this many known values is written out value by value
CARD_CONTEXT_SLOT = 1_000_000  # locals of card-attribute expressions are looked up by name


def free_slots(e: ir.Expr | None, bound: frozenset[int] = frozenset()) -> set[int]:
    """Slots an expression reads that are not bound inside it by a list macro."""
    if e is None:
        return set()
    if isinstance(e, ir.Local):
        return set() if e.slot in bound or e.slot >= CARD_CONTEXT_SLOT else {e.slot}
    if isinstance(e, ir.Macro):
        return free_slots(e.collection, bound) | free_slots(e.body, bound | {e.slot})
    out: set[int] = set()
    for child in ir.children(e):
        out |= free_slots(child, bound)
    return out


class CodeGenerator:
    """Turns IR expressions of one game setting into compiled Python functions."""

    def __init__(self, layout: Any):
        # `layout` is the Compiler: zone families, attribute tables, options, players.
        self.layout = layout
        self.names: dict[str, object] = {
            "_div": runtime.div, "_mod": runtime.mod, "_top": runtime.top, "_range1": runtime.range1,
            "_range2": runtime.range2, "_letter": runtime.letter, "_arg_best": runtime.arg_best,
            "_unique": runtime.unique, "_NOC": (NO_CARD,),
            "EngineError": EngineError,
        }
        self.values: dict[int, str] = {}  # id(value) -> name, to share constant tables
        self._hoisted: list[str] | None = None  # while generating an enumerator's condition
        self._forbidden: set[int] = set()  # slots that vary inside the loops
        self._shared: dict[int, str] = {}  # set parameter slot -> the attribute its cards share
        self._aliases: dict[int, str] = {}  # slot -> source standing for it
        # While a legal test is asked per group: set parameter slot -> the group's shared value,
        # and (card slot, attribute) -> the source standing for that card's attribute.
        self._group_values: dict[int, str] = {}
        self._attribute_aliases: dict[tuple[int, str], str] = {}
        self._getters: dict[str, str] = {}  # constant table -> the constant holding its lookup function
        self.real_cards: set[int] = set()  # slots holding a card of a zone (never "no card") where generated

    # ---- constants -------------------------------------------------------------------

    def constant(self, value: object, hint: str = "k") -> str:
        key = id(value)
        if key in self.values:
            return self.values[key]
        name = f"_{hint}{len(self.names)}"
        self.names[name] = value
        self.values[key] = name
        return name

    # ---- functions -------------------------------------------------------------------

    def function(self, e: ir.Expr) -> Callable[[Any, list], Any]:
        body = self.gen(e)
        prologue = "".join(f"    v{slot} = env[{slot}]\n" for slot in sorted(free_slots(e)))
        source = f"def _f(st, env):\n{prologue}    return {body}\n"
        return self._compile(source, f"<{e.span.file}:{e.span.line}:{e.span.column}>")["_f"]

    def literal(self, e: ir.Expr) -> tuple[bool, Any]:
        """Whether `e` is a constant of this game setting (options fold), and its value."""
        return _literal(self.gen(e))

    def _compile(self, source: str, where: str) -> dict[str, Any]:
        namespace = dict(self.names)
        exec(compile(source, where, "exec"), namespace)  # our own generated code, never rule text
        return namespace

    def _hoist(self, source: str, hoisted: list[str]) -> str:
        """A name for `source` computed once before the loops (the same source shares a name)."""
        line = f" = {source}"
        for existing in hoisted:
            name, value = existing.split(" = ", 1)
            if value == source:
                return name
        name = f"_h{len(hoisted)}"
        hoisted.append(name + line)
        return name

    # ---- effects ---------------------------------------------------------------------

    def effects(self, statements: tuple[ir.Stmt, ...], where: str) -> Callable[[Any, list], None]:
        """One generated function running an effect list (no shuffle inside: see compile.py)."""
        body = self.statements(statements, "    ")
        slots = sorted({slot for statement in statements for slot in _statement_slots(statement)})
        prologue = [f"    v{slot} = env[{slot}]" for slot in slots]
        source = "\n".join(["def _e(st, env):", *prologue, *(body or ["    pass"])]) + "\n"
        return self._compile(source, where)["_e"]

    def statements(self, statements: tuple[ir.Stmt, ...], indent: str) -> list[str]:
        lines: list[str] = []
        for statement in statements:
            lines.extend(self.statement(statement, indent))
        return lines

    def statement(self, s: ir.Stmt, indent: str) -> list[str]:
        layout = self.layout
        if isinstance(s, ir.Move):
            destination = self.gen(s.destination)
            sorted_tables = self.constant(layout.sorted_tables(), "sorted")
            at_bottom = repr(s.at_bottom)
            plain = isinstance(s.destination, ir.ZoneRef) and not layout.families[s.destination.zone].sorted_by
            if plain and not s.at_bottom and s.cards.type == ir.CARD:
                return [f"{indent}st.put_on_top({self.gen(s.cards)}, {destination})"]
            cards = s.cards
            if plain and not s.at_bottom and cards.type == ir.ZONE:
                return [f"{indent}st.move_all({self.gen(cards)}, {destination}, {sorted_tables})"]
            if plain and not s.at_bottom and isinstance(cards, ir.Call) and cards.function == "top" \
                    and len(cards.args) == 2:
                zone, count = (self.gen(a) for a in cards.args)
                return [f"{indent}st.move_top({zone}, {count}, {destination}, {sorted_tables})"]
            if s.cards.type == ir.CARD:
                cards = f"({self.gen(s.cards)},)"
            else:
                cards = f"list({self.collection(s.cards)})"  # a copy: the zone changes as cards leave
            return [f"{indent}st.move_cards({cards}, {destination}, {at_bottom}, {sorted_tables})"]
        if isinstance(s, ir.Deal):
            family = layout.families[s.family]
            count = self.gen(s.count) if s.count is not None else "None"
            sorted_tables = self.constant(layout.sorted_tables(), "sorted")
            return [f"{indent}st.deal({self.gen(s.source)}, {family.base}, {self.gen(s.start)}, {count}, "
                    f"{sorted_tables})"]
        if isinstance(s, ir.Reveal):
            cards = f"[{self.gen(s.cards)}]" if s.cards.type == ir.CARD else f"list({self.collection(s.cards)})"
            return [f"{indent}st.reveal({self.gen(s.player)}, {cards})"]
        if isinstance(s, ir.Assign):
            offset = layout.variable_offsets[s.variable]
            if not s.indices:
                target = f"st.vars[{offset}]"
            elif _always_in_range(s.indices[0]):
                target = f"st.vars[{offset} + {self.gen(s.indices[0])}]"
            else:
                check = self.constant(_variable_index(offset, layout.n, s.variable, s.span), "vi")
                target = f"st.vars[{check}({self.gen(s.indices[0])})]"
            return [f"{indent}{target} {s.op} {self.gen(s.value)}"]
        where = self.constant(f"{s.span.file}:{s.span.line}:{s.span.column}", "at")
        if isinstance(s, ir.TurnTo):
            return [f"{indent}st.turn_to({self.gen(s.player)}, {where})"]
        if isinstance(s, ir.Out):
            return [f"{indent}st.leave_round({self.gen(s.player)}, {where})"]
        if isinstance(s, ir.Reverse):
            return [f"{indent}st.direction = -st.direction"]
        if isinstance(s, ir.End):
            flag = {"round": "round_over", "game": "game_over", "phase": "phase_over"}[s.what]
            return [f"{indent}st.{flag} = True"]
        if isinstance(s, ir.Goto):
            return [f"{indent}st.goto = {layout.phase_index[s.phase]}"]
        if isinstance(s, ir.Log):
            text = " + ".join(repr(part) if isinstance(part, str) else self.text(part, self.gen(part))
                              for part in s.parts) or "''"
            return [f"{indent}if st.log is not None:", f"{indent}    st.log.append({text})"]
        if isinstance(s, ir.If):
            known, value = self.literal(s.condition)
            if known:  # decided by the options: only one branch is compiled
                return self.statements(s.then if value else s.otherwise, indent)
            lines = [f"{indent}if {self.gen(s.condition)}:"]
            lines += self.statements(s.then, indent + "    ") or [f"{indent}    pass"]
            if s.otherwise:
                lines += [f"{indent}else:", *self.statements(s.otherwise, indent + "    ")]
            return lines
        if isinstance(s, ir.For):
            # A copy of the collection: the body may move the cards it goes over.
            lines = [f"{indent}for v{s.slot} in list({self.collection(s.collection)}):"]
            return lines + (self.statements(s.body, indent + "    ") or [f"{indent}    pass"])
        raise EngineError(f"{s.span.file}:{s.span.line}:{s.span.column}: no code for {type(s).__name__}")

    # ---- expressions -----------------------------------------------------------------

    def collection(self, e: ir.Expr) -> str:
        """Source for an iterable: a zone gives its cards."""
        source = self.gen(e)
        return f"st.zones[{source}]" if e.type == ir.ZONE else source

    def gen(self, e: ir.Expr) -> str:
        if self._hoisted is not None and self._hoistable(e):
            hoisted, self._hoisted = self._hoisted, None
            try:
                source = self.gen(e)
            finally:
                self._hoisted = hoisted
            return source if _literal(source)[0] else self._hoist(source, hoisted)
        method = getattr(self, "gen_" + type(e).__name__)
        return method(e)

    def _hoistable(self, e: ir.Expr) -> bool:
        """Worth computing once per enumeration, and safe to compute eagerly (it cannot fail)."""
        if not isinstance(e, (ir.Macro, ir.Call, ir.CardAttr, ir.Binary, ir.Conditional, ir.Unary)):
            return False
        slots = free_slots(e)
        return not (slots & self._forbidden) and slots <= {0} and not _may_fail(e)

    def gen_Const(self, e: ir.Const) -> str:
        value = e.value
        if isinstance(value, tuple) and value and value[0] == "card":
            value = self.layout.card_constant(value)
        return repr(value)

    def gen_OptionRef(self, e: ir.OptionRef) -> str:
        return repr(self.layout.options[e.name])

    def gen_Local(self, e: ir.Local) -> str:
        if e.slot >= CARD_CONTEXT_SLOT:
            return f"env.lookup({e.name!r})"
        return self._aliases.get(e.slot, f"v{e.slot}")

    def gen_VarRef(self, e: ir.VarRef) -> str:
        offset = self.layout.variable_offsets[e.variable]
        if not e.indices:
            return f"st.vars[{offset}]"
        index = e.indices[0]
        if _always_in_range(index):
            return f"st.vars[{offset} + {self.gen(index)}]"
        # A player that may be "nobody" (-1): reading its value is an error, not another's value.
        check = self.constant(_variable_index(offset, self.layout.n, e.variable, e.span), "vi")
        return f"st.vars[{check}({self.gen(index)})]"

    def gen_ZoneRef(self, e: ir.ZoneRef) -> str:
        family = self.layout.families[e.zone]
        if not e.indices:
            return str(family.base)
        message = self.constant(f"{e.span.file}:{e.span.line}:{e.span.column}: an index is outside zone "
                                f"'{family.name}'", "msg")
        check = self.constant(_zone_index(family.base, family.strides, family.sizes), "zi")
        if all(_always_in_range(i) or _cheap(i) for i in e.indices):
            # Expressions are pure, so a cheap index may be computed twice instead of calling a helper.
            indices = [self.gen(i) for i in e.indices]
            offset = " + ".join([str(family.base), *(f"{i}{_times(stride)}" for i, stride in
                                                     zip(indices, family.strides))])
            tests = [f"0 <= {i} < {size}" for i, size, index in zip(indices, family.sizes, e.indices)
                     if not (_always_in_range(index) or self._real_suit(index) or _literal_within(i, size))]
            if not tests:
                return f"({offset})"
            return f"({offset} if {' and '.join(tests)} else {check}({message}, {', '.join(indices)}))"
        args = ", ".join(self.gen(i) for i in e.indices)
        return f"{check}({message}, {args})"

    def _real_suit(self, index: ir.Expr) -> bool:
        """Whether `index` is the suit of a card known to be real (from a zone or an action),
        so a zone per suit needs no range check for it."""
        return (isinstance(index, ir.CardAttr) and index.attribute == "suit" and isinstance(index.card, ir.Local)
                and index.card.slot in self.real_cards)

    def gen_Builtin(self, e: ir.Builtin) -> str:
        layout = self.layout
        name = e.name
        if name == "current":
            return "st.current"
        if name == "players":
            return self.constant(list(range(layout.n)), "players")
        if name == "active":
            return "st.active_players"
        if name == "num_players":
            return str(layout.n)
        if name == "suits":
            return self.constant(list(range(len(layout.suit_names))), "suits")
        if name == "phase":
            names = self.constant([p.name for p in layout.r.phases], "phases")
            return f"({names}[st.phase] if st.phase >= 0 else '')"
        field = {"direction": "direction", "round": "round_number", "turn": "turns", "passes": "passes"}[name]
        return f"st.{field}"

    def gen_CardAttr(self, e: ir.CardAttr) -> str:
        if isinstance(e.card, ir.Local) and (e.card.slot, e.attribute) in self._attribute_aliases:
            return self._attribute_aliases[(e.card.slot, e.attribute)]
        table = self.constant(self.layout.attributes[e.attribute], e.attribute)
        return f"{table}[{self.gen(e.card)}]"

    def gen_Unary(self, e: ir.Unary) -> str:
        operand = self.gen(e.operand)
        known, value = _literal(operand)
        if known:
            return repr(-value if e.op == "-" else not value)
        return f"(-{operand})" if e.op == "-" else f"(not {operand})"

    def gen_Binary(self, e: ir.Binary) -> str:
        phase = self._phase_test(e)
        if phase is not None:
            return phase
        left, right = self.gen(e.left), self.gen(e.right)
        folded = _fold(e.op, left, right)
        if folded is not None:
            return folded
        if e.op == "in":
            return f"({left} in {self.collection(e.right)})"
        if e.op == "//":
            return f"_div({left}, {right})"
        if e.op == "%":
            return f"_mod({left}, {right})"
        return f"({left} {e.op} {right})"

    def _phase_test(self, e: ir.Binary) -> str | None:
        """`phase == "play"` as a comparison of phase numbers, without the phase's name."""
        if e.op not in ("==", "!=") or not isinstance(e.left, ir.Builtin) or e.left.name != "phase":
            return None
        if not isinstance(e.right, ir.Const) or not isinstance(e.right.value, str):
            return None
        names = [p.name for p in self.layout.r.phases]
        if e.right.value not in names:
            return None
        return f"(st.phase {e.op} {names.index(e.right.value)})"

    def gen_Conditional(self, e: ir.Conditional) -> str:
        known, value = _literal(self.gen(e.condition))
        if known:
            return self.gen(e.then if value else e.otherwise)
        return f"({self.gen(e.then)} if {self.gen(e.condition)} else {self.gen(e.otherwise)})"

    def gen_ListExpr(self, e: ir.ListExpr) -> str:
        return "[" + ", ".join(self.gen(i) for i in e.items) + "]"

    def gen_Macro(self, e: ir.Macro) -> str:
        var = f"v{e.slot}"
        if e.kind == "bind":
            value = self.gen(e.collection)
            self._forbidden.add(e.slot)
            try:
                return f"(lambda {var}: {self.gen(e.body)})({value})"
            finally:
                self._forbidden.discard(e.slot)
        unrolled = self._unrolled(e)
        if unrolled is not None:
            return unrolled
        items = self.collection(e.collection)
        shared = self._shared.get(e.collection.slot) if isinstance(e.collection, ir.Local) else None
        if e.kind in ("any", "all") and shared is not None and _only_through(e.body, e.slot, shared):
            # The cards of a set parameter share this attribute, and the body reads nothing
            # else of the card: the answer for the first card is the answer for all.
            self._aliases[e.slot] = f"{items}[0]"
            group_value = self._group_values.get(e.collection.slot)
            if group_value is not None:
                self._attribute_aliases[(e.slot, shared)] = group_value
            try:
                return self.gen(e.body)
            finally:
                del self._aliases[e.slot]
                self._attribute_aliases.pop((e.slot, shared), None)
        self._forbidden.add(e.slot)
        real = e.collection.type == ir.ZONE and e.slot not in self.real_cards
        if real:
            self.real_cards.add(e.slot)
        try:
            body = self.gen(e.body)
        finally:
            self._forbidden.discard(e.slot)
            if real:
                self.real_cards.discard(e.slot)
        lookup = re.fullmatch(rf"(_\w+)\[{var}\]", body)
        if e.kind in ("max", "min", "sum") and lookup and lookup[1] in self.names:
            # An attribute of each card: the table's lookup mapped over the cards, without a generator.
            getter = self._getters.get(lookup[1])
            if getter is None:
                getter = self._getters[lookup[1]] = self.constant(self.names[lookup[1]].__getitem__, "getter")
            return f"{e.kind}(map({getter}, {items}))" if e.kind == "sum" else \
                f"{e.kind}(map({getter}, {items}), default=0)"
        if e.kind in _MACRO_SOURCE:
            return _MACRO_SOURCE[e.kind].format(body=body, var=var, items=items)
        empty = {ir.CARD: NO_CARD, ir.PLAYER: -1, ir.SUIT: -1, ir.RANK: -1, ir.INT: 0, ir.STR: ""}.get(e.type)
        return f"_arg_best({items}, lambda {var}: {body}, {empty!r}, {e.kind == 'argmax'})"

    def _unrolled(self, e: ir.Macro) -> str | None:
        """`any`, `all`, `count` or `sum` over a few values known when the game is compiled
        (the seats, the suits, a range of constants) written out value by value: no generator."""
        if e.kind not in ("any", "all", "count", "sum"):
            return None
        values = self._static_values(e.collection)
        if values is None or len(values) > MAX_UNROLLED:
            return None
        parts = []
        self._forbidden.add(e.slot)
        try:
            for value in values:
                self._aliases[e.slot] = repr(value)
                parts.append(self.gen(e.body))
        finally:
            self._aliases.pop(e.slot, None)
            self._forbidden.discard(e.slot)
        if e.kind == "any":
            return f"({' or '.join(parts)})" if parts else "False"
        if e.kind == "all":
            return f"({' and '.join(parts)})" if parts else "True"
        if e.kind == "count":
            return f"({' + '.join(f'(1 if {part} else 0)' for part in parts)})" if parts else "0"
        return f"({' + '.join(parts)})" if parts else "0"

    def _static_values(self, e: ir.Expr) -> list[int] | None:
        """The values of a collection fixed for the game setting: seats, suits, range(k)."""
        if isinstance(e, ir.Builtin) and e.name == "players":
            return list(range(self.layout.n))
        if isinstance(e, ir.Builtin) and e.name == "suits":
            return list(range(len(self.layout.suit_names)))
        if isinstance(e, ir.Call) and e.function == "range":
            bounds = [_literal(self.gen(a)) for a in e.args]
            if all(known and type(value) is int for known, value in bounds):
                return runtime.range1(bounds[0][1]) if len(bounds) == 1 else runtime.range2(bounds[0][1], bounds[1][1])
        return None

    def gen_Call(self, e: ir.Call) -> str:
        layout = self.layout
        name = e.function
        args = [self.gen(a) for a in e.args]
        n = layout.n
        if name.startswith("suit_attribute:"):
            attribute = name.split(":", 1)[1]
            values = [s.attributes.get(attribute) for s in layout.r.suits]
            neutral = next((type(v)() for v in values if v is not None), None)
            table = self.constant(values + [neutral], "suit_" + attribute)  # the last: no suit (-1)
            return f"{table}[{args[0]}]"
        if name in ("size", "empty"):
            measured = f"st.zones[{args[0]}]" if e.args[0].type == ir.ZONE else args[0]
            return f"len({measured})" if name == "size" else f"(not {measured})"
        if name == "top":
            if len(args) == 1:
                return f"(st.zones[{args[0]}] or _NOC)[-1]"
            return f"_top(st.zones[{args[0]}], {args[1]})"
        if name == "bottom":
            if len(args) == 1:
                return f"(st.zones[{args[0]}] or _NOC)[0]"
            return f"st.zones[{args[0]}][:max(0, {args[1]})]"
        if name == "holder":
            return f"st.holder({args[0]})"
        if name in ("seat", "opponent", "left"):
            shift = "" if name == "seat" else " + 1"
            return f"(({args[0]}){shift}) % {n}"
        if name == "right":
            return f"(({args[0]}) - 1) % {n}"
        if name == "next":
            return f"st.next_active({args[0]})"
        if name == "others":
            return f"[(({args[0]}) + _k) % {n} for _k in range(1, {n})]"
        if name == "is_active":
            return f"st.active[{args[0]}]"
        if name == "can_move":
            return f"st.can_move({args[0]})"
        if name in ("min", "max"):
            return f"{name}({args[0]}, {args[1]})"
        if name in ("abs", "len"):
            return f"{name}({args[0]})"
        if name == "range":
            return f"_range1({args[0]})" if len(args) == 1 else f"_range2({args[0]}, {args[1]})"
        if name == "prefix":
            return f"{args[0]}[:max(0, {args[1]})]"
        if name == "letter":
            return f"_letter({args[0]}, {args[1]})"
        if name == "text":
            return self.text(e.args[0], args[0])
        raise EngineError(f"{e.span.file}:{e.span.line}:{e.span.column}: no code for function '{name}'")

    def text(self, e: ir.Expr, source: str) -> str:
        """Source giving a value as readable text (the `text()` function, labels and logs)."""
        layout = self.layout
        if e.type == ir.CARD:
            names = self.constant(list(layout.card_names) + ["nothing"], "cards")
            return f"{names}[{source}]"
        if e.type == ir.PLAYER:
            return f"('P%d' % (({source}) + 1))"
        if e.type == ir.SUIT:
            return f"{self.constant(list(layout.suit_names) + [''], 'suitnames')}[{source}]"
        if e.type == ir.RANK:
            return f"{self.constant(list(layout.r.ranks) + [''], 'ranknames')}[{source}]"
        if e.type == ir.BOOL:
            return f"('yes' if {source} else 'no')"
        if e.type in (ir.ZONE, ir.list_of(ir.CARD)):
            names = self.constant(list(layout.card_names), "cards_")
            items = f"st.zones[{source}]" if e.type == ir.ZONE else source
            return f"(' '.join({names}[_c] for _c in {items}) or '-')"
        if e.type == ir.list_of(ir.PLAYER):
            return f"(', '.join('P%d' % (_p + 1) for _p in {source}) or 'nobody')"
        if e.type in (ir.list_of(ir.SUIT), ir.list_of(ir.RANK)):
            names = layout.suit_names if e.type == ir.list_of(ir.SUIT) else layout.r.ranks
            return f"', '.join({self.constant(list(names), 'names')}[_x] for _x in {source})"
        if e.type.startswith("list:"):
            return f"', '.join(str(_x) for _x in {source})"
        return f"str({source})"

    def template(self, parts: tuple[str | ir.Expr, ...]) -> Callable[[Any, list], str]:
        pieces = []
        slots: set[int] = set()
        for part in parts:
            if isinstance(part, str):
                pieces.append(repr(part))
            else:
                pieces.append(self.text(part, self.gen(part)))
                slots |= free_slots(part)
        prologue = "".join(f"    v{slot} = env[{slot}]\n" for slot in sorted(slots))
        body = " + ".join(pieces) if pieces else "''"
        return self._compile(f"def _f(st, env):\n{prologue}    return {body}\n", "<label>")["_f"]


def _literal_within(source: str, size: int) -> bool:
    """Whether generated source is an int literal in 0..size-1 (an index known to be in range)."""
    known, value = _literal(source)
    return known and type(value) is int and 0 <= value < size


def _times(stride: int) -> str:
    return "" if stride == 1 else f" * {stride}"


def _always_in_range(index: ir.Expr) -> bool:
    """Player values made by the engine are always seats 0..n-1."""
    if index.type != ir.PLAYER:
        return False
    if isinstance(index, ir.Local):
        return True
    if isinstance(index, ir.Builtin):
        return index.name == "current"
    return isinstance(index, ir.Call) and index.function in ("seat", "left", "right", "opponent", "next")


# List macros as Python source; argmax and argmin call a helper.
_MACRO_SOURCE = {
    "any": "any({body} for {var} in {items})",
    "all": "all({body} for {var} in {items})",
    "count": "sum(1 for {var} in {items} if {body})",
    "filter": "[{var} for {var} in {items} if {body}]",
    "sum": "sum({body} for {var} in {items})",
    "max": "max(({body} for {var} in {items}), default=0)",
    "min": "min(({body} for {var} in {items}), default=0)",
}


def _statement_slots(s: ir.Stmt) -> set[int]:
    """Every local slot an effect reads (loop variables included: loading them is harmless)."""
    slots: set[int] = set()
    for field in attrs.fields(type(s)):
        value = getattr(s, field.name)
        values = value if isinstance(value, tuple) else (value,)
        for item in values:
            if isinstance(item, ir.Expr):
                slots |= _all_slots(item)
            elif isinstance(item, ir.Stmt):
                slots |= _statement_slots(item)
    return slots


def _all_slots(e: ir.Expr) -> set[int]:
    if isinstance(e, ir.Local):
        return set() if e.slot >= CARD_CONTEXT_SLOT else {e.slot}
    out: set[int] = set()
    for child in ir.children(e):
        out |= _all_slots(child)
    return out


def _literal(source: str) -> tuple[bool, Any]:
    """Whether generated source is a plain literal (an option's value, a constant), and its value."""
    if source in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[source]
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None
    return isinstance(value, (int, str, bool)), value


_FOLDABLE = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": runtime.div, "%": runtime.mod, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _fold(op: str, left: str, right: str) -> str | None:
    """Constant folding: options are constants of a compiled game, so `"equal" == "equal"` is True."""
    left_known, a = _literal(left)
    right_known, b = _literal(right)
    if op == "and":
        if left_known:
            return right if a else "False"
        if right_known and b:
            return left
        return None
    if op == "or":
        if left_known:
            return "True" if a else right
        if right_known and not b:
            return left
        return None
    if left_known and right_known and op in _FOLDABLE and type(a) is type(b):
        if op == "*" and isinstance(a, str):
            return None
        return repr(_FOLDABLE[op](a, b))
    return None


def _only_through(e: ir.Expr, slot: int, attribute: str) -> bool:
    """Whether `e` reads the card in `slot` only as `card.<attribute>`."""
    if isinstance(e, ir.CardAttr) and isinstance(e.card, ir.Local) and e.card.slot == slot:
        return e.attribute == attribute
    if isinstance(e, ir.Local):
        return e.slot != slot
    return all(_only_through(child, slot, attribute) for child in ir.children(e))


def _may_fail(e: ir.Expr) -> bool:
    """Whether evaluating `e` could raise: only an index outside a zone or a player's values can."""
    if isinstance(e, (ir.ZoneRef, ir.VarRef)) and e.indices and not (
        len(e.indices) == 1 and _always_in_range(e.indices[0])
    ):
        return True
    return any(_may_fail(child) for child in ir.children(e))


def _cheap(index: ir.Expr) -> bool:
    """A local, a variable or a card attribute of a local: no call, no loop."""
    if isinstance(index, ir.CardAttr):
        return _cheap(index.card)
    return isinstance(index, (ir.Local, ir.Const, ir.OptionRef)) or (isinstance(index, ir.VarRef) and not index.indices)


def _variable_index(offset: int, players: int, name: str, span: Any) -> Callable[[int], int]:
    def variable_index(player: int) -> int:
        if not 0 <= player < players:
            raise EngineError(f"{span.file}:{span.line}:{span.column}: '{name}' has no value for player {player}")
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
