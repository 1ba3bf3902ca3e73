"""Command-line value types shared by the commands."""

from __future__ import annotations

import math
from typing import Any

import click

from .diagnostics import is_whole_number_text, printable
from .limits import DEFAULT_MAX_STEPS, MAX_BROWSER_SEED, MAX_INTEGER


class FiniteFloatRange(click.FloatRange):
    """A float in a range, and never NaN: NaN passes every comparison of a range check, and
    a share or a delay of NaN would silently turn off what it sets."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class WholeNumber(click.IntRange):
    """A whole number written in ASCII digits (an optional sign first), within a range.

    Python's `int` also reads other scripts' digits, `1_000`, and spaces around the number;
    the command line takes only what the language's rule files and the option values
    (`-o name=...`) take, so that one number is read alike everywhere.
    """

    name = "integer"

    def _describe_range(self) -> str:
        # click describes a range without bounds as "x<=None" in the help
        return super()._describe_range() if self.min is not None or self.max is not None else ""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not (is_whole_number_text(value) and len(value) <= 40):
            self.fail(f"'{printable(value)}' is not a whole number (digits 0-9, an optional sign).", param, ctx)
        return super().convert(value, param, ctx)


# A seed is an integer of the language's size: larger ones gain nothing, and a number of
# thousands of digits could not even be printed (Python limits int-to-text conversion).
SEED = WholeNumber(-MAX_INTEGER, MAX_INTEGER)
BROWSER_SEED = WholeNumber(-MAX_BROWSER_SEED, MAX_BROWSER_SEED)  # `serve`: the page shows and sends it


# The decisions a match may last before the engine stops it (a draw): for a game whose
# matches run long, a lower limit ends a run or a simulation sooner.
MAX_STEPS_OPTION = click.option(
    "--max-steps",
    type=WholeNumber(1, MAX_INTEGER),
    default=DEFAULT_MAX_STEPS,
    show_default=True,
    help="Decisions a match may last; one that reaches them stops there, a draw.",
)
