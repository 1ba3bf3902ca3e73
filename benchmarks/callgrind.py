"""Machine instructions of a command, counted by valgrind's callgrind.

A count does not depend on how busy the machine is, so it compares two programs where
processor time on a shared machine varies by a quarter from run to run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path


def counting(asked: bool, instead: str) -> bool:
    """Whether to count instructions: when asked and valgrind is installed (else a note says
    what is shown `instead`)."""
    if asked and shutil.which("valgrind") is None:
        print(f"instructions: valgrind is not installed; showing {instead} only")
        return False
    return asked


def instructions(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True
) -> tuple[int, str]:
    """(instructions, standard output) of one run of `command` under callgrind; with `check`,
    a command that fails is an error (a linter that finds problems exits with 1)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        capture_output=True,
        text=True,
        check=check,
        cwd=cwd,
        # string hashing moves the count by about 1 %
        env={**(os.environ if env is None else env), "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no instruction count: {done.stderr[-500:]}")
    return int(found.group(1)), done.stdout
