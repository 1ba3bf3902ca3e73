"""The reference mode's evaluator: each IR expression and statement becomes a closure.

Part of the reference mode (see reference.py). Every node is turned into a small Python
closure that evaluates its children and combines them exactly as docs/language.md says;
nothing is folded, hoisted, unrolled or shared, and no source text is generated. The
closures take `(state, env)`: `env` holds the bound names by slot (slot 0 is `me`); in a
card attribute or card label, `env` is a mapping that also holds the card's own names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ir, knowledge, runtime
from .diagnostics import EngineError, Span
from .limits import MAX_INTEGER, MAX_TEXT_LENGTH
from .reference_layout import NEUTRAL

Fn = Callable[[Any, Any], Any]
Run = Callable[[Any, Any], None]

NOBODY = -1
NO_CARD = runtime.NO_CARD


def where(span: Span) -> str:
    return f"{span.file}:{span.line}:{span.column}"


def _empty_of(type_: str) -> object:
    """The result of argmax/argmin over nothing: no card, nobody, no suit or rank, 0 or ""."""
    return {ir.INT: 0, ir.STR: ""}.get(type_, -1)


class Evaluator:
    """Closures for the expressions and statements of one game setting."""

    def __init__(self, setting: Any):
        # `setting` is the reference compiler: layout values and options, read-only here.
        self.s = setting

    # ---- values shown as text ----------------------------------------------------------

    def show(self, type_: str, value: Any) -> str:
        """A value as logs, labels and `text()` show it."""
        s = self.s
        if type_ == ir.CARD:
            return s.card_names[value] if 0 <= value < len(s.card_names) else "nothing"
        if type_ == ir.PLAYER:
            return f"P{value + 1}" if 0 <= value < s.num_players else "nobody"
        if type_ == ir.SUIT:
            return s.suit_names[value] if 0 <= value < len(s.suit_names) else ""
        if type_ == ir.RANK:
            return s.ruleset.ranks[value] if 0 <= value < len(s.ruleset.ranks) else ""
        if type_ == ir.BOOL:
            return "yes" if value else "no"
        return str(value)

    def show_any(self, type_: str, value: Any, st: Any) -> str:
        """A template part as text: a zone or list of cards by names, lists joined."""
        if type_ == ir.ZONE:
            value, type_ = st.zones[value], ir.list_of(ir.CARD)
        element = ir.element_of(type_)
        if element is None:
            return self.show(type_, value)
        shown = [self.show(element, item) for item in value]
        if element == ir.CARD:
            return " ".join(shown) or "-"
        if element == ir.PLAYER:
            return ", ".join(shown) or "nobody"
        return ", ".join(shown)

    def template(self, parts: tuple[str | ir.Expr, ...]) -> Fn:
        pieces: list[Callable[[Any, Any], str]] = []
        for part in parts:
            pieces.append(self.piece(part))

        def run(st, env):
            return "".join(piece(st, env) for piece in pieces)

        return run

    def piece(self, part: str | ir.Expr) -> Callable[[Any, Any], str]:
        if isinstance(part, str):
            return lambda st, env: part
        fn, type_ = self.expr(part), part.type
        return lambda st, env: self.show_any(type_, fn(st, env), st)

    # ---- expressions -----------------------------------------------------------------

    def expr(self, e: ir.Expr) -> Fn:
        return getattr(self, "e_" + type(e).__name__)(e)

    def items(self, e: ir.Expr) -> Fn:
        """A closure giving the elements of a list or zone as a new list."""
        fn = self.expr(e)
        if e.type == ir.ZONE:
            return lambda st, env: list(st.zones[fn(st, env)])
        return lambda st, env: list(fn(st, env))

    def cards(self, e: ir.Expr) -> Fn:
        """A closure giving a card, a list of cards or a zone's cards as a new list."""
        if e.type == ir.CARD:
            fn = self.expr(e)
            return lambda st, env: [fn(st, env)]
        return self.items(e)

    def e_Const(self, e: ir.Const) -> Fn:
        value = e.value
        if isinstance(value, tuple):  # card(rank, suit): the first card of that deck with them
            value = self.s.card_constant(value)
        return lambda st, env: value

    def e_OptionRef(self, e: ir.OptionRef) -> Fn:
        options, name = self.s.options, e.name
        return lambda st, env: options[name]

    def e_Local(self, e: ir.Local) -> Fn:
        slot = e.slot
        return lambda st, env: env[slot]

    def e_VarRef(self, e: ir.VarRef) -> Fn:
        offset = self.s.variable_offsets[e.variable]
        if not e.indices:
            return lambda st, env: st.vars[offset]
        seat = self.player_index_at(e.indices[0], e.span, f"variable '{e.variable}'")
        return lambda st, env: st.vars[offset + seat(st, env)]

    def player_index_at(self, index: ir.Expr, span: Span, what: str) -> Fn:
        fn, n, at = self.expr(index), self.s.num_players, where(span)

        def seat(st, env):
            player = fn(st, env)
            if not 0 <= player < n:
                raise runtime.needs_player(what, player, at)
            return player

        return seat

    def e_ZoneRef(self, e: ir.ZoneRef) -> Fn:
        slots = self.s.zone_slot_of[e.zone]  # index tuple -> zone slot
        if not e.indices:
            slot = slots[()]
            return lambda st, env: slot
        indices = [self.expr(i) for i in e.indices]
        at, name = where(e.span), e.zone
        sizes = [1 + max(index[d] for index in slots) for d in range(len(indices))]

        def zone(st, env):
            index = tuple(fn(st, env) for fn in indices)
            slot = slots.get(index)
            if slot is None:
                value, size = next((v, n) for v, n in zip(index, sizes) if not 0 <= v < n)
                raise EngineError(f"{at}: an index is outside zone '{name}': {value} is not in 0..{size - 1}")
            return slot

        return zone

    def e_Builtin(self, e: ir.Builtin) -> Fn:
        s = self.s
        name = e.name
        if name == "current":
            return lambda st, env: st.current
        if name == "players":
            return lambda st, env: list(range(s.num_players))
        if name == "active":
            return lambda st, env: [p for p in range(s.num_players) if st.active[p]]
        if name == "num_players":
            return lambda st, env: s.num_players
        if name == "suits":
            return lambda st, env: list(range(len(s.suit_names)))
        if name == "phase":
            names = [p.name for p in s.ruleset.phases]
            return lambda st, env: names[st.phase] if st.phase >= 0 else ""
        if name == "direction":
            return lambda st, env: st.direction
        if name == "round":
            return lambda st, env: st.round_number
        if name == "turn":
            return lambda st, env: st.turns
        if name == "passes":
            return lambda st, env: st.passes
        raise EngineError(f"{where(e.span)}: unknown built-in value '{name}'")

    def e_CardAttr(self, e: ir.CardAttr) -> Fn:
        if isinstance(e.card, ir.CardSelf):  # inside a card attribute or label: the card's own values by name
            name = e.attribute
            return lambda st, env: env[name]
        card, table = self.expr(e.card), self.s.attributes[e.attribute]
        no_card = table[-1]
        count = len(table) - 1
        return lambda st, env: (lambda c: table[c] if 0 <= c < count else no_card)(card(st, env))

    def e_SuitAttr(self, e: ir.SuitAttr) -> Fn:
        attribute, suit, s = self.s.card_attribute[e.attribute], self.expr(e.suit), self.s
        return lambda st, env: s.suit_attribute(attribute, suit(st, env))

    def e_Unary(self, e: ir.Unary) -> Fn:
        operand = self.expr(e.operand)
        if e.op == "-":
            return lambda st, env: -operand(st, env)
        return lambda st, env: not operand(st, env)

    def e_Binary(self, e: ir.Binary) -> Fn:
        left, right, op, at = self.expr(e.left), self.expr(e.right), e.op, where(e.span)
        if op == "and":
            return lambda st, env: left(st, env) and right(st, env)
        if op == "or":
            return lambda st, env: left(st, env) or right(st, env)
        if op == "in":
            items = self.items(e.right)
            return lambda st, env: left(st, env) in items(st, env)
        if op in ("+", "-", "*"):
            combine = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}[op]
            return lambda st, env: checked(combine(left(st, env), right(st, env)), at)
        compare = {
            "//": runtime.div,
            "%": runtime.mod,
            "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b,
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
        }[op]
        return lambda st, env: compare(left(st, env), right(st, env))

    def e_Conditional(self, e: ir.Conditional) -> Fn:
        condition, then, otherwise = self.expr(e.condition), self.expr(e.then), self.expr(e.otherwise)
        return lambda st, env: then(st, env) if condition(st, env) else otherwise(st, env)

    def e_ListExpr(self, e: ir.ListExpr) -> Fn:
        items = [self.expr(i) for i in e.items]
        return lambda st, env: [fn(st, env) for fn in items]

    def e_Macro(self, e: ir.Macro) -> Fn:
        slot, kind = e.slot, e.kind
        body = self.expr(e.body) if e.body is not None else None
        if kind == "bind":
            value = self.expr(e.collection)

            def bind(st, env):
                env[slot] = value(st, env)
                return body(st, env)

            return bind
        items = self.items(e.collection)

        def each(st, env):
            """(element, body value) for every element, in order, evaluated one at a time."""
            for item in items(st, env):
                env[slot] = item
                yield item, body(st, env)

        if kind == "any":
            return lambda st, env: any(value for _, value in each(st, env))
        if kind == "all":
            return lambda st, env: all(value for _, value in each(st, env))
        if kind == "count":
            return lambda st, env: sum(1 for _, value in each(st, env) if value)
        if kind == "filter":
            return lambda st, env: [item for item, value in each(st, env) if value]
        if kind == "sum":
            at = where(e.span)
            return lambda st, env: checked(sum(value for _, value in each(st, env)), at)
        if kind == "max":
            return lambda st, env: max((value for _, value in each(st, env)), default=0)
        if kind == "min":
            return lambda st, env: min((value for _, value in each(st, env)), default=0)
        empty, want_max = _empty_of(e.type), kind == "argmax"

        def best(st, env):
            found, best_value = empty, None
            for item, value in each(st, env):
                if best_value is None or (value > best_value if want_max else value < best_value):
                    found, best_value = item, value
            return found

        return best

    def e_Call(self, e: ir.Call) -> Fn:
        name = e.function
        args = [self.expr(a) for a in e.args]
        s = self.s
        n = s.num_players
        if name in ("size", "empty"):
            items = self.items(e.args[0])
            if name == "size":
                return lambda st, env: len(items(st, env))
            return lambda st, env: len(items(st, env)) == 0
        if name in ("top", "bottom"):
            cards = self.items(e.args[0])  # a zone's cards or a list of cards, bottom first
            if len(args) == 1:
                end = -1 if name == "top" else 0
                return lambda st, env: (lambda found: found[end] if found else NO_CARD)(cards(st, env))
            count = args[1]
            if name == "top":
                return lambda st, env: runtime.top(cards(st, env), count(st, env))
            return lambda st, env: cards(st, env)[: max(0, count(st, env))]
        if name == "concat":
            first, second = self.items(e.args[0]), self.items(e.args[1])
            return lambda st, env: first(st, env) + second(st, env)
        if name == "holder":
            card = args[0]
            return lambda st, env: (lambda c: s.zone_owner[st.where[c]] if c >= 0 else NOBODY)(card(st, env))
        if name == "seat":
            return lambda st, env: args[0](st, env) % n
        if name in ("left", "opponent", "right"):
            shift = -1 if name == "right" else 1
            return lambda st, env: (lambda p: (p + shift) % n if 0 <= p < n else NOBODY)(args[0](st, env))
        if name == "next":
            return lambda st, env: (lambda p: next_active(st, p) if 0 <= p < n else NOBODY)(args[0](st, env))
        if name == "others":
            return lambda st, env: (lambda p: [(p + k) % n for k in range(1, n)] if 0 <= p < n else list(range(n)))(
                args[0](st, env)
            )
        if name in ("team", "partner", "teammates"):
            member = getattr(s.teams, name)  # total: nobody has no team, no partner, no teammates
            return lambda st, env: member(args[0](st, env))
        if name == "is_active":
            return lambda st, env: (lambda p: 0 <= p < n and st.active[p])(args[0](st, env))
        if name == "can_move":
            return lambda st, env: (lambda p: 0 <= p < n and s.can_move(st, p))(args[0](st, env))
        if name == "min":
            return lambda st, env: min(args[0](st, env), args[1](st, env))
        if name == "max":
            return lambda st, env: max(args[0](st, env), args[1](st, env))
        if name == "abs":
            return lambda st, env: abs(args[0](st, env))
        if name == "len":
            return lambda st, env: len(args[0](st, env))
        if name == "range":
            at = where(e.span)
            if len(args) == 1:
                return lambda st, env: runtime.range1(args[0](st, env), at)
            return lambda st, env: runtime.range2(args[0](st, env), args[1](st, env), at)
        if name == "prefix":
            return lambda st, env: args[0](st, env)[: max(0, args[1](st, env))]
        if name == "letter":
            return lambda st, env: runtime.letter(args[0](st, env), args[1](st, env))
        if name == "text":
            type_ = e.args[0].type
            return lambda st, env: self.show(type_, args[0](st, env))
        raise EngineError(f"{where(e.span)}: unknown function '{name}'")

    # ---- statements ------------------------------------------------------------------

    def block(self, statements: tuple[ir.Stmt, ...] | list[ir.Stmt]) -> Run:
        runs = [self.statement(s) for s in statements]

        def run(st, env):
            for one in runs:
                one(st, env)

        return run

    def statement(self, s: ir.Stmt) -> Run:
        return getattr(self, "s_" + type(s).__name__)(s)

    def s_Move(self, s: ir.Move) -> Run:
        cards, destination, at_bottom = self.cards(s.cards), self.expr(s.destination), s.at_bottom
        setting = self.s

        def run(st, env):
            setting.put_all(st, cards(st, env), destination(st, env), at_bottom)

        return run

    def s_Deal(self, s: ir.Deal) -> Run:
        source, start = self.expr(s.source), self.expr(s.start)
        count = self.expr(s.count) if s.count is not None else None
        setting, n, at = self.s, self.s.num_players, where(s.span)
        family = setting.zone_slot_of[s.family]

        def run(st, env):
            zone = source(st, env)
            first = start(st, env)
            if not 0 <= first < n:
                raise runtime.needs_player("'deal'", first, at)
            available = len(st.zones[zone])
            total = available if count is None else min(available, max(0, count(st, env)) * n)
            for k in range(total):
                setting.put(st, st.zones[zone][-1], family[((first + k) % n,)], False)

        return run

    def s_Shuffle(self, s: ir.Shuffle) -> Run:
        raise EngineError(f"{where(s.span)}: a shuffle stands only at the top level of an effect list")

    def s_Reveal(self, s: ir.Reveal) -> Run:
        cards, player = self.cards(s.cards), self.player_index_at(s.player, s.span, "'reveal'")

        def run(st, env):
            shown = [c for c in cards(st, env) if c >= 0]
            to = player(st, env)
            st.shown[to].extend(shown)
            st.shown_any = True
            if st._track:
                knowledge.revealed(st, to, shown)

        return run

    def s_Assign(self, s: ir.Assign) -> Run:
        offset, value, op, at = self.s.variable_offsets[s.variable], self.expr(s.value), s.op, where(s.span)
        seat = self.player_index_at(s.indices[0], s.span, f"variable '{s.variable}'") if s.indices else None

        def run(st, env):
            position = offset + (seat(st, env) if seat is not None else 0)
            new = value(st, env)
            if op == "+=":
                new = checked(st.vars[position] + new, at)
            elif op == "-=":
                new = checked(st.vars[position] - new, at)
            st.vars[position] = new

        return run

    def s_TurnTo(self, s: ir.TurnTo) -> Run:
        player, n, at = self.expr(s.player), self.s.num_players, where(s.span)

        def run(st, env):
            p = player(st, env)
            if not 0 <= p < n:
                raise EngineError(f"{at}: 'turn to' needs a player, not nobody")
            st.current = p
            st.turn_set = True

        return run

    def s_Reverse(self, s: ir.Reverse) -> Run:
        def run(st, env):
            st.direction = -st.direction

        return run

    def s_Out(self, s: ir.Out) -> Run:
        player, n, at = self.expr(s.player), self.s.num_players, where(s.span)

        def run(st, env):
            p = player(st, env)
            if not 0 <= p < n:
                raise EngineError(f"{at}: 'out' needs a player, not nobody")
            if st.active[p]:
                st.active[p] = False
                st.active_players[:] = [q for q in range(n) if st.active[q]]

        return run

    def s_End(self, s: ir.End) -> Run:
        what = s.what

        def run(st, env):
            if what == "round":
                st.round_over = True
            elif what == "game":
                st.game_over = True
            else:
                st.phase_over = True

        return run

    def s_Goto(self, s: ir.Goto) -> Run:
        index = [p.name for p in self.s.ruleset.phases].index(s.phase)

        def run(st, env):
            st.goto = index

        return run

    def s_Log(self, s: ir.Log) -> Run:
        text = self.template(s.parts)

        def run(st, env):
            if st.log is not None:
                st.log.append(text(st, env))

        return run

    def s_If(self, s: ir.If) -> Run:
        condition, then, otherwise = self.expr(s.condition), self.block(s.then), self.block(s.otherwise)

        def run(st, env):
            if condition(st, env):
                then(st, env)
            else:
                otherwise(st, env)

        return run

    def s_Let(self, s: ir.Let) -> Run:
        value, slot = self.expr(s.value), s.slot

        def run(st, env):
            env[slot] = value(st, env)

        return run

    def s_For(self, s: ir.For) -> Run:
        items, body, slot = self.items(s.collection), self.block(s.body), s.slot

        def run(st, env):
            for item in items(st, env):  # a copy: the body may move the cards it goes over
                env[slot] = item
                body(st, env)

        return run


def checked(value: Any, at: str) -> Any:
    """An integer or text result within the language's limits, else an error naming the place."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT_LENGTH:
            raise EngineError(f"{at}: a text longer than {MAX_TEXT_LENGTH} characters, the language's limit")
    elif abs(value) > MAX_INTEGER:
        raise EngineError(f"{at}: a number beyond ±{MAX_INTEGER}, the language's limit")
    return value


def next_active(st: Any, player: int) -> int:
    """The next seat after `player` in the direction of play still in the round, else `player`."""
    n = len(st.active)
    candidate = player
    for _ in range(n):
        candidate = (candidate + st.direction) % n
        if st.active[candidate]:
            return candidate
    return player


__all__ = ["Evaluator", "NEUTRAL", "checked", "next_active", "where"]
