"""Differential fuzzing of the compiler: generated games played optimised and in reference mode.

    python -m tests.fuzz_compiler --games 10000            # from the repository root
    python -m tests.fuzz_compiler --games 500 --first 20000 --nobody

Each generated rule file (tests/gamegen.py) must validate without errors; then a few
matches of it (several player counts and option settings, with a seed or with chance
nodes whose outcomes the fuzzer picks) are played with `make_game(...)` and
`make_game(..., optimize=False)` side by side and compared at every step
(tests/oracle.py). A file that shows a difference is kept in the output folder under its
seed, and the run exits with status 1. `--nobody` also generates player values that may be
nobody (`holder`, `argmax` over lists that may be empty).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import rulesengine
from rulesengine.api import validate_file
from tests.gamegen import dump, generate_document, option_settings
from tests.oracle import Disagreement, play_both


def matches_of(document: dict, ruleset, seed: int, count: int) -> list[tuple[int, dict, int | None]]:
    """(players, options, seed or None) for `count` matches of one generated game."""
    rng = random.Random(seed)
    counts = [ruleset.min_players, ruleset.max_players]
    options = option_settings(document, rng, count)
    out = []
    for k in range(count):
        players = counts[k] if k < len(counts) else rng.randint(ruleset.min_players, ruleset.max_players)
        out.append((players, options[k], None if k % 2 == 0 else seed * 31 + k))
    return out


# A generated file is valid by construction except that its worst case may pass the
# checker's static cost bounds (nested macros multiply); refusing it is right, and such a
# file is counted, not played.
COST_BOUNDS = {"RE248", "RE249"}


class Refused(Exception):
    """The generated file is refused by a static cost bound."""


def check_game(seed: int, folder: Path, matches: int = 2, steps: int = 80, nobody: bool = False) -> int:
    """Generate game `seed`, require it to validate, and play `matches` matches both ways.

    Returns the number of steps played; raises AssertionError (with the file and setting)
    on a validation error, a difference or an unexpected exception."""
    document = generate_document(seed, nobody)
    path = folder / f"generated-{seed}.yaml"
    path.write_text(dump(document), encoding="utf-8")
    ruleset, diagnostics = validate_file(path)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors and {d.code for d in errors} <= COST_BOUNDS:
        raise Refused(f"{path}: {errors[0].code} {errors[0].message}")
    assert ruleset is not None and not errors, f"{path}: {[f'{d.code} {d.message}' for d in errors]}"
    total = 0
    for players, options, match_seed in matches_of(document, ruleset, seed, matches):
        setting = f"{path} with {players} players, options {options}, seed {match_seed}"
        try:
            fast = rulesengine.make_game(ruleset, players=players, options=options)
            reference = rulesengine.make_game(ruleset, players=players, options=options, optimize=False)
            total += play_both(fast, reference, match_seed, seed, steps)
        except Disagreement as difference:
            raise AssertionError(f"{setting}: {difference}") from None
        except Exception as error:  # anything else is a crash of one of the two programs
            raise AssertionError(f"{setting}: {type(error).__name__}: {error}") from error
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_compiler", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="generated rule files to check (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="seed of the first generated file (default 0)")
    parser.add_argument("--matches", type=int, default=2, help="matches played per file (default 2)")
    parser.add_argument("--steps", type=int, default=80, help="decisions and chance steps per match (default 80)")
    parser.add_argument("--nobody", action="store_true", help="also generate player values that may be nobody")
    parser.add_argument("--out", type=Path, default=None, help="folder for the generated files (default: temporary)")
    parser.add_argument("--stop", action="store_true", help="stop at the first failure")
    args = parser.parse_args(argv)
    folder = args.out or Path(tempfile.mkdtemp(prefix="fuzz-compiler-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    failures: list[str] = []
    refused = 0
    steps = 0
    for seed in range(args.first, args.first + args.games):
        try:
            steps += check_game(seed, folder, args.matches, args.steps, args.nobody)
            (folder / f"generated-{seed}.yaml").unlink()
        except Refused:
            refused += 1
            (folder / f"generated-{seed}.yaml").unlink()
        except AssertionError as failure:
            failures.append(str(failure))
            print(f"FAIL seed {seed}: {str(failure)[:2000]}", flush=True)
            if args.stop:
                break
        done = seed - args.first + 1
        if done % 500 == 0:
            print(f"{done} games, {len(failures)} failing, {time.monotonic() - started:.0f} s", flush=True)
    elapsed = time.monotonic() - started
    done = seed - args.first + 1
    print(
        f"{done} generated games ({done * args.matches} matches, {steps} steps compared) in "
        f"{elapsed:.0f} s: {len(failures)} failing, {refused} refused by the static cost bound (not played); "
        f"files of failing games kept in {folder}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
