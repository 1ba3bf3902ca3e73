"""Passes over the checked IR before code is generated.

Each pass maps a ruleset to a ruleset of the same meaning; the code generator sees only
their output. (The checker already writes special cases as typed nodes — `ir.CardSelf`,
`ir.SuitAttr` — never as slot numbers or name prefixes.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from . import ir


def fold_options(options: Mapping[str, object]) -> Callable[[ir.Expr], ir.Expr | None]:
    """Options are constants of a game setting: each `OptionRef` becomes a `Const` of its value.
    Preserves: every value (an option cannot change while a game is played)."""

    def fold(e: ir.Expr) -> ir.Expr | None:
        if isinstance(e, ir.OptionRef):
            return ir.Const(e.type, e.span, options[e.name])
        return None

    return fold


def map_expr(e: ir.Expr, rewrite: Callable[[ir.Expr], ir.Expr | None]) -> ir.Expr:
    """`e` with `rewrite` applied bottom-up wherever it gives a replacement (None: keep)."""
    changes: dict[str, Any] = {}
    for name, value in zip(ir.field_names(type(e)) or (), ir.field_values(e)):
        if isinstance(value, ir.Expr):
            new = map_expr(value, rewrite)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and any(isinstance(v, ir.Expr) for v in value):
            new_items = tuple(map_expr(v, rewrite) if isinstance(v, ir.Expr) else v for v in value)
            if any(a is not b for a, b in zip(new_items, value)):
                changes[name] = new_items
    if changes:
        e = attrs.evolve(e, **changes)
    replaced = rewrite(e)
    return e if replaced is None else replaced


def map_ruleset(value: Any, rewrite: Callable[[ir.Expr], ir.Expr | None]) -> Any:
    """Every expression inside an IR value (statements, moves, phases, the ruleset) rewritten."""
    if isinstance(value, ir.Expr):
        return map_expr(value, rewrite)
    if isinstance(value, tuple):
        items = tuple(map_ruleset(v, rewrite) for v in value)
        return items if any(a is not b for a, b in zip(items, value)) else value
    names = ir.field_names(type(value))
    if names is not None:
        changes = {}
        for name, old in zip(names, ir.field_values(value)):
            new = map_ruleset(old, rewrite)
            if new is not old:
                changes[name] = new
        return attrs.evolve(value, **changes) if changes else value
    return value


def lower(ruleset: ir.Ruleset, options: Mapping[str, object]) -> ir.Ruleset:
    """The passes over the IR, in order: options folded."""
    return map_ruleset(ruleset, fold_options(options))


# ---- which locals always hold a seat ---------------------------------------------------------


def _bindings(value: Any, out: list[tuple[int, ir.Expr, str]]) -> None:
    """Every (slot, collection or value, how) a local is bound by, anywhere in an IR value."""
    if isinstance(value, ir.Macro):
        out.append((value.slot, value.collection, "value" if value.kind == "bind" else "element"))
    elif isinstance(value, ir.For):
        out.append((value.slot, value.collection, "element"))
    elif isinstance(value, ir.Let):  # a procedure's parameter: its argument
        out.append((value.slot, value.value, "value"))
    elif isinstance(value, ir.Trigger) and value.each is not None and value.slot is not None:
        out.append((value.slot, value.each, "element"))
    elif isinstance(value, ir.Param) and value.type == ir.PLAYER and value.size is None:
        out.append((value.slot, ir.Builtin(ir.list_of(ir.PLAYER), value.candidates.span, "players"), "element"))
    if isinstance(value, tuple):
        for item in value:
            _bindings(item, out)
    else:
        fields = ir.field_getter(type(value))
        if fields is not None:
            for item in fields(value):
                _bindings(item, out)


def is_seat(e: ir.Expr, seats: frozenset[int]) -> bool:
    """Whether a player expression always gives a seat (never nobody), given the slots that do."""
    if e.type != ir.PLAYER:
        return False
    if isinstance(e, ir.Local):
        return e.slot in seats
    if isinstance(e, ir.Builtin):
        return e.name == "current"
    if isinstance(e, ir.Call):
        # left, right, opponent and next of a seat are seats; of nobody, nobody
        return e.function == "seat" or (
            e.function in ("left", "right", "opponent", "next") and is_seat(e.args[0], seats)
        )
    return False


def _all_seats(e: ir.Expr, seats: frozenset[int]) -> bool:
    """Whether every element of a list of players is a seat."""
    if isinstance(e, ir.Builtin):
        return e.name in ("players", "active")
    if isinstance(e, ir.Call):
        return e.function == "others"  # of nobody: every seat
    if isinstance(e, ir.Macro) and e.kind == "filter":
        return _all_seats(e.collection, seats)
    if isinstance(e, ir.ListExpr):
        return all(is_seat(item, seats) for item in e.items)
    return False


def seat_slots(ruleset: ir.Ruleset) -> frozenset[int]:
    """The local slots that always hold a seat: `me` (slot 0), player parameters, and variables
    bound over seats (`players`, `active`, `others(p)`, ...). An index by any other player
    value is checked while playing, so nobody there is an error, never another seat's value."""
    bindings: list[tuple[int, ir.Expr, str]] = []
    _bindings(ruleset, bindings)
    seats = frozenset({0})
    while True:
        found = {
            slot
            for slot, source, how in bindings
            if (how == "element" and _all_seats(source, seats)) or (how == "value" and is_seat(source, seats))
        }
        grown = seats | found
        if grown == seats:
            return seats
        seats = grown
