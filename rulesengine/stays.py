"""Whether the rules of a game setting can put a player out of the round.

A seat leaves the round only through the effect `out p` (`ir.Out`); the engine puts every
seat back in at the start of each round. Rules with no `out` that can run therefore keep
every seat in the round all match long, and the code generator may take `active` to be
`players` (the pass `everyone stays`, codegen.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import attrs

from . import ir
from .lower import lower


def puts_out(value: Any) -> bool:
    """Whether an IR value (a ruleset after its options are folded, a phase, an effect list)
    holds an `out` effect that can run. An `if` whose condition is a constant of the game
    setting runs one branch only (the code generator compiles only that one), so `out` in
    the other branch cannot run. Anything else is assumed to run."""
    if isinstance(value, ir.Out):
        return True
    if isinstance(value, ir.Expr):
        return False  # an expression holds no effect
    if isinstance(value, ir.If) and isinstance(value.condition, ir.Const):
        return puts_out(value.then if value.condition.value else value.otherwise)
    if isinstance(value, tuple):
        return any(puts_out(item) for item in value)
    if attrs.has(type(value)):
        return any(puts_out(getattr(value, field.name)) for field in attrs.fields(type(value)))
    return False


def setting_puts_out(ruleset: ir.Ruleset, options: Mapping[str, object]) -> bool:
    """Whether the rules of a game setting (a ruleset with these options) can put a player out:
    the fact the compiler works out, for whoever sets up a state by hand (position.py)."""
    return puts_out(lower(ruleset, options))


def out_refused(ruleset: ir.Ruleset, options: Mapping[str, object], out: Collection[int]) -> str | None:
    """Why a position may not put the seats `out` out of the round (None: it may): in a setting
    whose rules never put a player out, the compiled code takes every seat to be in it."""
    if not out or setting_puts_out(ruleset, options):
        return None
    shown = ", ".join(f"P{p + 1}" for p in sorted(out))
    return f"{shown} cannot be out of the round: the rules of '{ruleset.name}' never put a player out"
