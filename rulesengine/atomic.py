"""Writing a file atomically: a reader, or a crash half-way, never leaves half a file.

The text goes to a temporary file in the same folder, which then replaces the target in one
step (a rename). The file gets the mode the target already has, or that of any new file
(0666 less the umask), never the private mode of a temporary file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write `text` (UTF-8, lines ending in \\n) to `path` atomically; OSError if it cannot."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, _file_mode(target))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _file_mode(path: Path) -> int:
    if path.exists():
        return path.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
