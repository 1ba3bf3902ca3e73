"""The command line ends its process without tearing down the heap, and loses nothing by it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def _exit_with(code: str, tmp_path: Path, before: str = "") -> subprocess.CompletedProcess:
    script = textwrap.dedent(
        f"""
        import atexit, sys
        from rulesengine.quick_exit import quick_exit
        atexit.register(lambda: open({str(tmp_path / "handler-ran")!r}, "w").close())
        sys.stdout.write("x" * 100_000)  # more than a buffer holds, no newline at the end
        sys.stderr.write("to stderr")
        {before}
        quick_exit({code})
        raise AssertionError("quick_exit returned")
        """
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_output_is_flushed_exit_handlers_run_and_the_status_is_kept(tmp_path) -> None:
    for code, status in (("0", 0), ("3", 3), ("None", 0)):
        (tmp_path / "handler-ran").unlink(missing_ok=True)
        done = _exit_with(code, tmp_path)
        assert done.returncode == status, done.stderr
        assert done.stdout == "x" * 100_000 and done.stderr == "to stderr"
        assert (tmp_path / "handler-ran").exists()


def test_a_text_is_printed_and_exits_with_1_as_the_interpreter_does(tmp_path) -> None:
    done = _exit_with("'stopped: no games'", tmp_path)
    assert done.returncode == 1
    assert done.stderr == "to stderrstopped: no games\n"


def test_with_another_thread_alive_the_exit_waits_for_it(tmp_path) -> None:
    marker = tmp_path / "thread-finished"
    start = (
        "import threading, time; "
        f"threading.Thread(target=lambda: (time.sleep(0.3), open({str(marker)!r}, 'w').close())).start()"
    )
    done = _exit_with("4", tmp_path, before=start)
    assert done.returncode == 4
    assert marker.exists() and (tmp_path / "handler-ran").exists()


def test_output_into_a_closed_pipe_exits_quietly_with_1() -> None:
    # `rulesengine describe pan | true`: the reader is gone before the output is written
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        writer = subprocess.run(
            [sys.executable, "-m", "rulesengine", "describe", "pan"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert writer.returncode == 1
    assert writer.stderr == ""


def test_a_stream_closed_after_its_output_was_flushed_keeps_the_status(tmp_path) -> None:
    # as the language server leaves stdout at `exit`: everything written, then closed
    for code, status in (("0", 0), ("3", 3)):
        done = _exit_with(code, tmp_path, before="sys.stdout.flush(); sys.stdout.buffer.close()")
        assert done.returncode == status, done.stderr
        assert done.stdout == "x" * 100_000 and done.stderr == "to stderr"
    done = _exit_with("0", tmp_path, before="sys.stdout.close()")  # closing flushes
    assert done.returncode == 0 and done.stdout == "x" * 100_000
