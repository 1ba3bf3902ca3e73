"""Argument types the benchmark commands share.

The measuring loops stop once enough processor time has passed, and every round plays at
least one match or run: a duration that is not a finite positive number, or a count of
rounds no one could wait for, would never end. Such values are usage errors instead.
"""

from __future__ import annotations

import argparse

MOST_SECONDS = 24 * 60 * 60  # a day of processor time for one measurement
MOST_ROUNDS = 10_000  # a round is at least one match or cold run per side: hours at most


def seconds(text: str) -> float:
    """A duration in seconds of processor time: finite, above 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0 < value <= MOST_SECONDS:  # also false for NaN, and for infinity or an overflow such as 1e400
        raise argparse.ArgumentTypeError(f"expected seconds above 0 and at most {MOST_SECONDS:,} (a day), not {text!r}")
    return value


def rounds(text: str) -> int:
    """A number of rounds: a whole number from 1 to MOST_ROUNDS."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of rounds, not {text!r}") from None
    if not 1 <= value <= MOST_ROUNDS:
        raise argparse.ArgumentTypeError(f"expected from 1 to {MOST_ROUNDS:,} rounds, not {text!r}")
    return value


def whole(least: int, most: int, what: str):
    """The type of a count of `what` from `least` to `most` (iterations, matches, workers)."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number of {what}, not {text!r}") from None
        if not least <= value <= most:
            raise argparse.ArgumentTypeError(f"expected from {least:,} to {most:,} {what}, not {text!r}")
        return value

    return count


def option(text: str) -> tuple[str, str]:
    """One `-o NAME=VALUE`."""
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name, value
