"""Card moves of generated code, written out for a state that keeps no knowledge.

A state made with `track=False` (random playouts, `simulate`, the benchmark) notes nothing
when a card moves, so a move onto the top of a zone not kept sorted is only this: the card
leaves its zone, goes on top of the destination, and `where` says so. Generated code does
that inline for such a state, without the call of the state's method; a state that keeps
knowledge still calls the method (`put_on_top`, `move_top`, `move_cards`), which tells the
players of every move. Each form below does exactly what its method does to the zones and
`where`: the same order of cards, a card already on top of its own zone stays, a card moved
within its zone goes to the top, a card below 0 ("no card") is skipped, an empty source or a
count of 0 moves nothing, a count larger than the zone moves the whole zone. The rarer
cases (a move within one zone of several cards) are left to the method.

Every value the statement computes (its cards, its destination, a count) is computed once,
in the method call's order, into a local before the test of `st._track`, so both branches
read the same values and no expression is written twice.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from . import pyast
from .pyast import assign, compare, const, name

Fresh = Callable[[str], str]
_WHY = "an untracked state notes no knowledge: the effect is written out, no method call"


def tracked_or_inline(first: list[ast.stmt], method: ast.expr, inline: list[ast.stmt]) -> list[ast.stmt]:
    """`first`, then the method call for a tracked state, else `inline`."""
    pyast.located(inline[0], _WHY)
    return [*first, pyast.if_(pyast.st("_track"), [pyast.expr(method)], inline)]


def _zones(index: ast.expr) -> ast.Subscript:
    return pyast.sub(pyast.st("zones"), index)


def _set_where(card: ast.expr, destination: ast.expr) -> ast.stmt:
    return assign(pyast.store_sub(pyast.st("where"), card), destination)


def _calls(obj: ast.expr, method: str, *args: ast.expr) -> ast.stmt:
    return pyast.expr(pyast.method(obj, method, *args))


def one_card(card: ast.expr, destination: ast.expr, fresh: Fresh) -> list[ast.stmt]:
    """`put_on_top(card, destination)` of an untracked state: `card` and `destination` are
    names or constants."""
    start = fresh("_from")
    cards = fresh("_cards")
    elsewhere = [
        _calls(_zones(name(start)), "remove", card),
        _calls(_zones(destination), "append", card),
        _set_where(card, destination),
    ]
    # within its own zone: to the top, unless it is there already
    within = pyast.if_(
        compare(pyast.sub(pyast.walrus(cards, _zones(name(start))), const(-1)), "!=", card),
        [_calls(name(cards), "remove", card), _calls(name(cards), "append", card)],
    )
    move = pyast.if_(
        compare(pyast.walrus(start, pyast.sub(pyast.st("where"), card)), "!=", destination), elsewhere, [within]
    )
    if isinstance(card, ast.Constant) and type(card.value) is int and card.value >= 0:
        return [move]
    return [pyast.if_(compare(card, ">=", const(0)), [move])]


def whole_zone(source: ast.expr, destination: ast.expr, same_zone: ast.expr | None, fresh: Fresh) -> list[ast.stmt]:
    """`move_top(source, len(zones[source]), destination)` of an untracked state (`source` and
    `destination` names or constants); a zone moved onto itself is left to `same_zone` (None:
    the two are of different families, never the same zone)."""
    moved = fresh("_moved")
    card = fresh("_card")
    body = [
        _calls(_zones(destination), "extend", name(moved)),
        pyast.for_(card, name(moved), [_set_where(name(card), destination)]),
        _calls(name(moved), "clear"),
    ]
    return _unless_same(source, destination, [pyast.if_(pyast.walrus(moved, _zones(source)), body)], same_zone)


def top_cards(
    source: ast.expr, count: ast.expr, destination: ast.expr, same_zone: ast.expr | None, fresh: Fresh
) -> list[ast.stmt]:
    """`move_top(source, count, destination)` of an untracked state (all three names or
    constants); a move within one zone is left to `same_zone` (None: never the same zone)."""
    card = fresh("_card")
    cards = fresh("_cards")
    fixed = count.value if isinstance(count, ast.Constant) and type(count.value) is int else None
    if fixed == 1:  # a draw: no slices
        body: list[ast.stmt] = [
            _calls(_zones(destination), "append", pyast.walrus(card, pyast.method(name(cards), "pop"))),
            _set_where(name(card), destination),
        ]
        return _unless_same(source, destination, [pyast.if_(pyast.walrus(cards, _zones(source)), body)], same_zone)
    if fixed is not None and fixed <= 0:
        return [ast.Pass()]  # nothing moves, as with the method
    moved = fresh("_moved")
    below = const(-fixed) if fixed is not None else pyast.neg(count)
    taken = pyast.walrus(moved, pyast.slice_(pyast.walrus(cards, _zones(source)), below, None))
    body = [
        ast.Delete([ast.Subscript(name(cards), ast.Slice(below, None, None), ast.Del())]),
        _calls(_zones(destination), "extend", name(moved)),
        pyast.for_(card, name(moved), [_set_where(name(card), destination)]),
    ]
    # a count computed at run time may be 0 or below: nothing moves
    test = taken if fixed is not None else pyast.and_(compare(count, ">", const(0)), taken)
    return _unless_same(source, destination, [pyast.if_(test, body)], same_zone)


def several(cards: ast.expr, destination: ast.expr, fresh: Fresh) -> list[ast.stmt]:
    """`move_cards(cards, destination, False)` of an untracked state onto a zone not kept
    sorted: each card in turn as `one_card` (`cards` a name of a list of their own)."""
    card = fresh("_card")
    return [pyast.for_(card, cards, one_card(name(card), destination, fresh))]


def _unless_same(
    source: ast.expr, destination: ast.expr, inline: list[ast.stmt], same_zone: ast.expr | None
) -> list[ast.stmt]:
    if same_zone is None:
        return inline
    if isinstance(source, ast.Constant) and isinstance(destination, ast.Constant):
        return inline if source.value != destination.value else [pyast.expr(same_zone)]
    return [pyast.if_(compare(source, "!=", destination), inline, [pyast.expr(same_zone)])]
