"""`validate` refuses a pipe or a device from its status, on every path, without blocking.

Each check runs in a child process with a timeout: a reader that opens a pipe waits for a
writer forever, and the test must fail rather than hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulesengine.fileformat import Kind

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")

GAME = Path(__file__).resolve().parent.parent / "rulesengine" / "templates" / "new-game.yaml"


def _validate(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rulesengine", "validate", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "p.yaml")
    os.mkfifo(tmp_path / "p.txt")
    (tmp_path / "ok.yaml").write_text(GAME.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [("p.yaml",), ("p.txt",), ("ok.yaml", "p.yaml"), ("--skip-non-rule-files", "p.yaml"), ("p.yaml", "ok.yaml")],
)
def test_a_named_pipe_is_re009_without_blocking(folder: Path, args: tuple[str, ...]):
    result = _validate(folder, *args)
    assert result.returncode == 1, result.stderr
    assert "p." in result.stdout and "error[RE009]: cannot read file: not a regular file" in result.stdout
    assert "Traceback" not in result.stderr


def test_recognise_does_not_open_a_pipe_behind_a_link(folder: Path):
    (folder / "link.yaml").symlink_to(folder / "p.yaml")
    script = "import sys; from rulesengine.fileformat import recognise; print(recognise(sys.argv[1]).name)"
    result = subprocess.run(
        [sys.executable, "-c", script, str(folder / "link.yaml")], capture_output=True, text=True, timeout=30
    )
    assert result.stdout.strip() == Kind.UNKNOWN.name, result.stderr
