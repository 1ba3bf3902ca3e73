"""Cold validation latency: `rulesengine validate` against `yamllint` on the same files.

    python -m benchmarks.validate                    # rulesets/ and examples/, 7 rounds
    python -m benchmarks.validate --rounds 15 FILE_OR_FOLDER ...
    python -m benchmarks.validate --instructions     # also machine instructions (valgrind)

Each command runs in a fresh process (cold: imports, parsing, checking), the two taking
turns so that a machine whose speed drifts affects both alike. The figures are the medians
of the processor time (user + system) the child process used, and of the wall time.
What an installed tool keeps on disk is there for both, as after `pip install`: each
command runs once before the measured rounds, with Python's bytecode cache allowed (a
PYTHONDONTWRITEBYTECODE in the environment is not passed on), so that the rounds measure
neither compiling the tools' own Python sources nor building the grammar's parse tables.
A command that does not check the files (a usage error, a file it cannot read, a crash)
stops the benchmark with its message and no figures: its time would measure nothing.
With --instructions, each command also runs once under callgrind and the machine
instructions it executed are printed: a figure that does not depend on how busy the
machine is (the time per instruction still differs between the two programs).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import arguments, callgrind

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGETS = ("rulesets", "examples")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


# Both tools exit 0 on files without problems and 1 on files with some: either way they checked
# them. Anything else did not: a usage error (2), a file yamllint cannot read (-1, seen as 255),
# a signal (negative). A crash of Python exits 1 too, told apart by its traceback.
CHECKED_EXIT_CODES = (0, 1)
TRACEBACK = "Traceback (most recent call last):"


class CommandFailed(Exception):
    """A compared command did not check the files, so its time says nothing about checking them."""


def checked_the_files(exit_code: int, stderr: str) -> bool:
    return exit_code in CHECKED_EXIT_CODES and TRACEBACK not in stderr


def run_once(command: list[str]) -> tuple[float, float]:
    """(processor seconds, wall seconds) of one run of `command` in a new process; CommandFailed
    if it did not check the files."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=ROOT, env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stderr = done.stderr.decode("utf-8", "replace")
    if not checked_the_files(done.returncode, stderr):
        last_line = next((line for line in reversed(stderr.splitlines()) if line.strip()), "no message")
        raise CommandFailed(f"exit code {done.returncode}: {last_line.strip()[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def count_instructions(command: list[str]) -> int:
    """Machine instructions of one cold run (the caches on disk already made by `measure`)."""
    return callgrind.instructions(command, cwd=ROOT, env=_environment(), check=False)[0]


def commands(targets: list[str]) -> dict[str, list[str] | None]:
    """The commands compared; None for a tool that is not installed."""
    yamllint = shutil.which("yamllint") or _beside_python("yamllint")
    return {
        "rulesengine validate": [sys.executable, "-m", "rulesengine.cli", "validate", *targets],
        "yamllint": [yamllint, *targets] if yamllint else None,
    }


def _beside_python(name: str) -> str | None:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


def measure(runs: dict[str, list[str] | None], rounds: int) -> dict[str, tuple[float, float]]:
    """Median (processor, wall) seconds per available command, over alternating rounds."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name, cmd in runs.items() if cmd}
    for name in samples:  # once unmeasured: the bytecode and grammar caches an installed tool has
        _run_named(name, runs[name])  # type: ignore[arg-type]
    for _ in range(rounds):
        for name in samples:
            samples[name].append(_run_named(name, runs[name]))  # type: ignore[arg-type]
    return {
        name: (statistics.median(c for c, _ in got), statistics.median(w for _, w in got))
        for name, got in samples.items()
    }


def _run_named(name: str, command: list[str]) -> tuple[float, float]:
    try:
        return run_once(command)
    except CommandFailed as failure:
        raise CommandFailed(f"{name} did not check the files, {failure}") from None


def missing_targets(targets: list[str]) -> list[str]:
    """The targets that name nothing; the commands run in the project folder, so read from there."""
    return [target for target in targets if not os.path.exists(ROOT / target)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=list(DEFAULT_TARGETS), help="files or folders")
    parser.add_argument("--rounds", type=arguments.rounds, default=7, help="cold runs of each command (default 7)")
    parser.add_argument("--instructions", action="store_true", help="also instructions, under valgrind's callgrind")
    args = parser.parse_args(argv)
    missing = missing_targets(args.targets)
    if missing:
        parser.error(f"argument targets: no such file or folder: {', '.join(missing)} (read from {ROOT})")
    runs = commands(args.targets)
    try:
        results = measure(runs, args.rounds)
    except CommandFailed as failure:
        print(f"{failure}\nno figures: the time of a run that did not check the files tells nothing", file=sys.stderr)
        raise SystemExit(1) from None
    counting = callgrind.counting(args.instructions, "times")
    counts = {name: count_instructions(cmd) for name, cmd in runs.items() if cmd and counting}
    print(f"cold runs on {' '.join(args.targets)} (medians of {args.rounds})")
    print(f"{'command':<24}{'process ms':>12}{'wall ms':>10}" + (f"{'instructions':>16}" if counts else ""))
    for name, cmd in runs.items():
        if cmd is None:
            print(f"{name:<24}{'not installed (pip install yamllint)':>34}")
            continue
        cpu, wall = results[name]
        count = f"{counts[name]:>16,}" if counts else ""
        print(f"{name:<24}{cpu * 1000:>12.0f}{wall * 1000:>10.0f}{count}")
    if len(results) == 2:
        ratio = results["rulesengine validate"][0] / results["yamllint"][0]
        print(f"validate / yamllint (process time): {ratio:.2f}")
        if counts:
            print(f"validate / yamllint (instructions): {counts['rulesengine validate'] / counts['yamllint']:.2f}")


if __name__ == "__main__":
    main()
