"""Mutation fuzzing of every shipped ruleset, block and example through `validate`.

Each mutant is a shipped or example file with a few random changes: lines deleted,
duplicated, swapped or cut, characters changed, and hostile snippets put in (huge
integers, unknown escapes, YAML tags, references out of the folder, control characters).
A mutant must give diagnostics, never a traceback, within the time bound; one that
validates is also compiled and played a little (a run-time `RulesEngineError` is a clean
failure; anything else is a traceback).

    python -m tests.fuzz_validate --mutants 10000          # reports the counts
    python -m tests.fuzz_validate --mutants 500 --seed 7   # another sample

The test suite runs a small sample of the same mutants (tests/test_hostile.py).
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import attrs

from rulesengine import RulesEngineError, make_game
from rulesengine.api import validate_file

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "rulesets").rglob("*.yaml")) + sorted((ROOT / "examples").glob("*.yaml"))
SLOW_SECONDS = 2.0  # a step (validate; compile and play one setting) taking more processor time is a hang
HARD_STOP_SECONDS = 30  # a mutant still running after this is stopped (and counted as a hang)
PLAY_MOVES = 60

NOISE = list("{}[],:#&*!|>'\"%@`-? \t\n\\aZ09.()<=+") + ["\x00", "é", "\ufeff", "\r", "\x1b", "\u202e"]
SNIPPETS = [
    "9" * 30,
    "9" * 5000,
    "-" + "9" * 25,
    "9223372036854775808",
    "0x" + "f" * 50,
    "1e999",
    '"\\q"',
    '"\\x41"',
    '"\\ud800"',
    "'\\101'",
    '"\\\\"',
    '"a\\tb\\u2665"',
    "!!python/object/apply:os.system [true]",
    "!include x",
    "&a",
    "*a",
    "<<: *a",
    "extends: /etc/passwd\n",
    "extends: /proc/self/environ\n",
    "include: [../../conftest.py]\n",
    "include: [blocks/tricks, blocks/tricks]\n",
    "extends: /dev/zero\n",
    "range(10000).all(i, range(10000).any(j, i == j))",
    "players.max",
    "text(" * 30,
    "[" * 80,
    " if true else ",
    " and not ",
    "\u0663",
    "\u00b2",
]


@attrs.frozen
class Outcome:
    kind: str  # "valid", "invalid", "traceback" or "hang"
    seconds: float
    detail: str = ""


def mutate(text: str, rng: random.Random) -> str:
    """A few random changes to a rule file's text."""
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        kind = rng.choice(
            ["delete", "duplicate", "swap", "change", "insert", "snippet", "snippet", "number", "truncate"]
        )
        i = rng.randrange(len(lines))
        line = lines[i]
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, line)
        elif kind == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "truncate":
            whole = "".join(lines)
            lines = whole[: rng.randint(0, len(whole))].splitlines(keepends=True)
        elif kind == "number":
            digits = [k for k, c in enumerate(line) if c.isdigit()]
            if digits:
                k = rng.choice(digits)
                lines[i] = line[:k] + rng.choice(["0", "-1", "9" * 19, "9" * 400, "65"]) + line[k + 1 :]
        else:
            k = rng.randint(0, len(line))
            piece = rng.choice(SNIPPETS) if kind == "snippet" else rng.choice(NOISE)
            rest = line[k + 1 :] if kind == "change" else line[k:]
            lines[i] = line[:k] + piece + rest
    return "".join(lines)


def mutant(index: int, seed: int = 0) -> tuple[Path, str]:
    """The `index`-th mutant of a sample: which file it comes from, and its text."""
    rng = random.Random(f"{seed}:{index}")
    source = FILES[index % len(FILES)]
    return source, mutate(source.read_text(encoding="utf-8"), rng)


def _stop(_signum, _frame):
    raise TimeoutError


def check(text: str, folder: Path, seed: int = 0) -> Outcome:
    """Validate `text` as a rule file in `folder`; play it a little if it is valid."""
    path = folder / "mutant.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    # Processor time, so other work on the machine does not count; each step is timed alone.
    start = time.process_time()
    slowest = 0.0
    previous = signal.signal(signal.SIGALRM, _stop) if hasattr(signal, "SIGALRM") else None
    if previous is not None:
        signal.alarm(HARD_STOP_SECONDS)
    try:
        ruleset, diagnostics = validate_file(path)
        for diagnostic in diagnostics:
            assert diagnostic.message and diagnostic.code.startswith("RE"), diagnostic
        kind = "invalid" if ruleset is None else "valid"
        slowest = time.process_time() - start
        if ruleset is not None:
            slowest = max(slowest, _play(ruleset, seed))
    except TimeoutError:
        return Outcome("hang", time.process_time() - start, "stopped after the hard limit")
    except Exception:  # noqa: BLE001 - any escape is what this looks for
        return Outcome("traceback", time.process_time() - start, traceback.format_exc())
    finally:
        if previous is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    return Outcome("hang" if slowest > SLOW_SECONDS else kind, slowest)


def _play(ruleset, seed: int) -> float:
    """Compile and play a little at the smallest and largest player count; the slowest one's
    processor time."""
    rng = random.Random(seed)
    slowest = 0.0
    for players in sorted({ruleset.min_players, ruleset.max_players}):
        start = time.process_time()
        try:
            game = make_game(ruleset, players=players, max_steps=PLAY_MOVES * 4)
            for match in range(2):
                state = game.new_initial_state(seed=seed + match)
                for _ in range(PLAY_MOVES):
                    if state.is_terminal():
                        break
                    actions = state.legal_actions()
                    if not actions:
                        break
                    state.apply_action(rng.choice(actions))
                state.returns()
        except RulesEngineError:
            pass  # a clean error naming the problem
        slowest = max(slowest, time.process_time() - start)
    return slowest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_validate", description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=1000, help="how many mutants (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="which sample of mutants (default 0)")
    parser.add_argument("--keep", type=Path, default=None, help="save each failing mutant into this folder")
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()
    slowest = (0.0, -1)
    failures: list[tuple[int, Path, Outcome]] = []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.mutants):
            source, text = mutant(index, args.seed)
            outcome = check(text, Path(folder), index)
            counts[outcome.kind] += 1
            slowest = max(slowest, (outcome.seconds, index))
            if outcome.kind in ("traceback", "hang"):
                failures.append((index, source, outcome))
                if args.keep is not None:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / f"mutant-{args.seed}-{index}.yaml").write_text(text, "utf-8", "surrogatepass")
            if (index + 1) % 500 == 0:
                print(f"{index + 1} mutants: {dict(counts)}", file=sys.stderr, flush=True)
    for index, source, outcome in failures[:10]:
        print(f"mutant {index} of {source.name}: {outcome.kind} ({outcome.seconds:.2f} s)\n{outcome.detail}")
    print(
        f"{args.mutants} mutants of {len(FILES)} files (seed {args.seed}): "
        f"{counts['valid']} valid (compiled and played), {counts['invalid']} invalid, "
        f"tracebacks {counts['traceback']}, hangs over {SLOW_SECONDS:g} s {counts['hang']}; "
        f"slowest {slowest[0]:.2f} s (mutant {slowest[1]})"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
