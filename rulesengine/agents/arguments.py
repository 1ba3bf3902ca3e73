"""What an agent is given, checked: its settings, as the command line's agent specs are (a
NaN budget or a misspelt rollout would otherwise run an agent that is not the one asked
for), and a view that has something to choose."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

from ..diagnostics import EngineError, OptionError, integer, seed_of, whole_number

if TYPE_CHECKING:
    from .view import PlayerView

ROLLOUTS = ("round", "match")
# Past these a budget is a typo, not a plan: a billion iterations is days of search per move.
MOST_UNITS = 1_000_000_000
MOST_SECONDS = 86_400


def generator(seed: Any) -> random.Random:
    """The random generator of an agent seeded with `seed` (None or a whole number)."""
    return random.Random(seed_of(seed, "an agent's seed"))


def count(value: Any, what: str) -> int:
    """A budget counted in whole units (iterations, playouts, samples): 1 to MOST_UNITS."""
    number = whole_number(value, what, least=1)
    if number > MOST_UNITS:
        raise OptionError(f"{what} takes at most {MOST_UNITS:,} (a larger budget would search for days), not {number}")
    return number


def finite(value: Any, what: str, positive: bool = False) -> float:
    """A finite number of at least 0 (above 0 if `positive`): NaN passes every comparison."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) and integer(value) is None:
        raise OptionError(f"{what} takes a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0 or positive and number == 0:
        raise OptionError(f"{what} takes a finite number {'above' if positive else 'of at least'} 0, not {value!r}")
    return number


def seconds(value: Any) -> float:
    """A time budget per move: above 0, at most a day."""
    number = finite(value, "seconds", positive=True)
    if number > MOST_SECONDS:
        raise OptionError(f"seconds takes at most {MOST_SECONDS:,} (a day a move), not {value!r}")
    return number


def rollout(value: Any, what: str = "rollout") -> str:
    if value not in ROLLOUTS:
        raise OptionError(f"{what} is 'round' or 'match', not {value!r}")
    return value


def choices(view: PlayerView) -> tuple[int, ...]:
    """The actions a view offers its player; EngineError when there are none (a view made for
    a player who is not to move), rather than a failure deep inside the agent."""
    if not view.legal_actions:
        raise EngineError(f"P{view.player + 1} has no action to choose here: it is not that player's decision")
    return view.legal_actions
