"""Turn passing, described once as syntax and used twice.

After a step the turn passes to the next player still in the round (unless an effect chose
one with `turn to`), and the round ends when it reaches its turn limit or every active
player passed in a row. The generated `settle` function of every phase has this inline
(with the number of players and the limit as constants), and the engine's general path
runs `State.pass_turn`, compiled from the very same statements when the engine is
imported: one description, no second hand-written copy to drift.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from . import pyast
from .pyast import compare, const, name, sub

# how a round ended
NORMAL, LIMIT, STUCK = range(3)


def turn_passing(
    players: ast.expr,
    limit: ast.expr | None,
    on_end: list[ast.stmt],
    seat: str,
    passes: bool = True,
    chosen: bool = True,
    everyone_stays: bool = False,
) -> list[ast.stmt]:
    """Statements passing the turn of state `st` (the player to move is then in local `seat`
    and in `st.current`), then ending the round when due and running `on_end`. `players`
    is the number of seats, `limit` the round's turn limit (None: no limit); `passes` False
    leaves out the test of every player having passed (known false: no pass came before),
    and `chosen` False the test of an effect having chosen the player (`st.turn_set`, known
    false: no `turn to` ran); `everyone_stays` True leaves out the tests of a seat being in
    the round (the rules put nobody out: every seat is in, `players` of them)."""
    st = name("st")
    step = pyast.binop(pyast.binop(pyast.st("current"), "+", pyast.st("direction")), "%", players)
    # mostly the next seat or the one after is still in the round; else the engine's search
    skip_out = pyast.if_(
        pyast.not_(sub(pyast.st("active"), name(seat))),
        [
            pyast.assign(seat, pyast.binop(pyast.binop(name(seat), "+", pyast.st("direction")), "%", players)),
            pyast.if_(
                pyast.not_(sub(pyast.st("active"), name(seat))),
                [pyast.assign(seat, pyast.method(st, "next_active", pyast.st("current")))],
            ),
        ],
    )
    passing = [
        pyast.assign(seat, step),
        *([] if everyone_stays else [skip_out]),
        pyast.assign(pyast.store_attr(st, "current"), name(seat)),
    ]
    kept: list[ast.stmt] = [pyast.assign(seat, pyast.st("current"))]  # an effect chose the player with `turn to`
    out: list[ast.stmt] = [pyast.if_(pyast.not_(pyast.st("turn_set")), passing, kept)] if chosen else passing
    everyone = players if everyone_stays else pyast.call("len", pyast.st("active_players"))
    stuck = pyast.and_(pyast.st("passes"), compare(pyast.st("passes"), ">=", everyone))
    end_stuck = [pyast.expr(pyast.method(st, "_end_round", const(STUCK))), *on_end]
    if limit is None:
        if passes:
            out.append(pyast.if_(stuck, end_stuck))
        return out
    over: ast.expr = compare(pyast.st("turns"), ">=", limit)
    if not pyast.is_const(limit):
        over = pyast.and_(compare(limit, "is not", const(None)), over)
    out.append(
        pyast.if_(
            over,
            [pyast.expr(pyast.method(st, "_end_round", const(LIMIT))), *on_end],
            [pyast.if_(stuck, end_stuck)] if passes else [],
        )
    )
    return out


def pass_turn_function() -> Callable[[Any], bool]:
    """`pass_turn(state)` for the engine: the statements above, for any game; False when the round ends."""
    body = turn_passing(
        pyast.call("len", pyast.st("active")),
        pyast.attr(pyast.st("program"), "round_limit"),
        [pyast.return_(const(False))],
        "seat",
    )
    fn = pyast.function("pass_turn", ["st"], [*body, pyast.return_(const(True))])
    namespace: dict[str, Any] = {}
    exec(compile(pyast.emit_function(fn, "turn passing (rulesengine/flow.py)"), "<turn passing>", "exec"), namespace)
    return namespace["pass_turn"]
