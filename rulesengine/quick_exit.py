"""Ending the command-line process without freeing every object first.

At a normal exit the interpreter tears down every module and frees each object of the
heap one by one. For a short command that is a large share of its time (checking the
shipped rule files: about a quarter), spent on memory the operating system reclaims
at once anyway. So the command line ends its process directly, after doing what a normal
exit does that someone could notice: exit handlers run (a local Ray cluster is shut down,
logs are flushed) and the output streams are flushed. Files are never left open for this
step to lose: the commands write them atomically and close them before they return.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def quick_exit(code: int | str | None) -> NoReturn:
    """Exit with `code` as `SystemExit(code)` would, minus the teardown of the heap."""
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None or threading.active_count() > 1:
        raise SystemExit(code)  # another thread may still be working: the normal exit waits for it
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # as the interpreter does with a text: print it, exit with 1
        print(code, file=sys.stderr)
        status = 1
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # no console (pythonw)
            continue
        if stream.closed:  # closing flushed it: nothing is left to lose (the language server closes stdout at exit)
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing more can be shown
            status = status or 1
    os._exit(status)
