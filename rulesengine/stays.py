"""Whether the rules of a game setting can run an effect of a kind: put a player out of the
round, show cards, choose the next player.

A seat leaves the round only through the effect `out p` (`ir.Out`); the engine puts every
seat back in at the start of each round. Rules with no `out` that can run therefore keep
every seat in the round all match long, and the code generator may take `active` to be
`players` (the pass `everyone stays`, codegen.py). Likewise, cards are shown only by
`reveal`, and the next player is chosen only by `turn to`: rules without them that can run
never set the state's `shown_any` or `turn_set`, and a step need not clear them (the pass
`records`, codegen_moves.py).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from typing import Any

from . import ir
from .lower import lower


def puts_out(value: Any) -> bool:
    """Whether an IR value (a ruleset after its options are folded, a phase, an effect list)
    holds an `out` effect that can run (see `can_run`)."""
    return can_run(value, ir.Out)


def can_run(value: Any, kind: type[ir.Stmt] | tuple[type[ir.Stmt], ...]) -> bool:
    """Whether an IR value holds an effect of `kind` that can run. An `if` whose condition is
    a constant of the game setting runs one branch only (the code generator compiles only
    that one), so an effect in the other branch cannot run. Anything else is assumed to run."""
    if isinstance(value, kind):
        return True
    if isinstance(value, ir.Expr):
        return False  # an expression holds no effect
    if isinstance(value, ir.If) and isinstance(value.condition, ir.Const):
        return can_run(value.then if value.condition.value else value.otherwise, kind)
    if isinstance(value, tuple):
        return any(can_run(item, kind) for item in value)
    fields = ir.field_getter(type(value))
    if fields is not None:
        return any(can_run(item, kind) for item in fields(value))
    return False


def setting_puts_out(ruleset: ir.Ruleset, options: Mapping[str, object]) -> bool:
    """Whether the rules of a game setting (a ruleset with these options) can put a player out:
    the fact the compiler works out, for whoever sets up a state by hand (position.py).

    Worked out once per setting (the scenario tests of a file set up many positions in a few
    settings): a ruleset is immutable and compared by identity; a value is told apart by its
    type as well (True is not 1)."""
    try:
        return _setting_puts_out(ruleset, tuple(sorted((k, type(v).__name__, v) for k, v in options.items())))
    except TypeError:  # a value that cannot be a key (no option has one): worked out each time
        return puts_out(lower(ruleset, options))


@functools.lru_cache(maxsize=64)
def _setting_puts_out(ruleset: ir.Ruleset, options: tuple[tuple[str, str, object], ...]) -> bool:
    return puts_out(lower(ruleset, {name: value for name, _, value in options}))


def out_refused(ruleset: ir.Ruleset, options: Mapping[str, object], out: Collection[int]) -> str | None:
    """Why a position may not put the seats `out` out of the round (None: it may): in a setting
    whose rules never put a player out, the compiled code takes every seat to be in it."""
    if not out or setting_puts_out(ruleset, options):
        return None
    shown = ", ".join(f"P{p + 1}" for p in sorted(out))
    return f"{shown} cannot be out of the round: the rules of '{ruleset.name}' never put a player out"
