"""Writing a file atomically: a reader, or a crash half-way, never leaves half a file.

The text goes to a temporary file in the same folder, which then replaces the target in one
step (a rename). The file gets the mode the target already has, or that of any new file
(0666 less the umask), never the private mode of a temporary file.

Only a regular file is ever replaced: the rename would put a regular file in the place of
whatever is there, so a folder, a pipe (FIFO), a device or a socket is refused
(`NotWritable`, whose text says what the entry is), and writing to `/dev/null` never
replaces `/dev/null`. A symbolic link is written through, as a shell's `>` writes: the
regular file it leads to is replaced (its temporary file made in that file's folder) and
the link is kept. A link that leads to no file, to a loop of links, or to anything but a
regular file is refused, since writing through it would make a file wherever it points.
With `replace=False` nothing that exists is replaced at all, not even a file made while the
text was being written (FileExistsError). Every writer of the project writes through here.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from .diagnostics import printable

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK, errno.EXDEV}


class NotWritable(OSError):
    """A place no file may be written at. `strerror` says why, to follow `cannot write PATH: `."""


def write_text(path: str | os.PathLike, text: str, *, replace: bool = True) -> None:
    """Write `text` (UTF-8, lines ending in \\n) to `path` atomically (see the module's text);
    OSError if it cannot: NotWritable for a place that is not a regular file's, FileExistsError
    when something is at `path` and not `replace`."""
    real = target(path, replace=replace)
    if not real.parent.is_dir():
        raise NotWritable(errno.ENOENT, f"the folder {printable(str(real.parent))} does not exist", os.fspath(path))
    # the name shortened, so that the temporary file's name is not too long where the target's is not
    handle, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name[:64]}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, _file_mode(real))
        if replace:
            os.replace(temporary, real)
        else:
            _create(temporary, real)
    finally:
        Path(temporary).unlink(missing_ok=True)


def target(path: str | os.PathLike, *, replace: bool = True) -> Path:
    """The file that writing `path` makes or replaces: `path` itself, or the file its symbolic
    links lead to. Raises as `write_text` would for what is found now; nothing is written."""
    given = os.fspath(path)
    if not given:
        raise NotWritable(errno.ENOENT, "an empty name names no file", given)
    if given.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):  # Path() would drop it
        raise NotWritable(errno.EISDIR, "a name ending in / names a folder, not a file", given)
    place = Path(path)
    _check_folders(place, given)
    try:
        status = os.lstat(place)
    except FileNotFoundError:
        return place  # a new file
    real = place
    if stat.S_ISLNK(status.st_mode):
        leads_to = printable(os.readlink(place))
        try:
            real = place.resolve(strict=True)
        except FileNotFoundError:
            raise NotWritable(
                errno.ENOENT, f"it is a symbolic link to {leads_to}, which does not exist", given
            ) from None
        except (RuntimeError, OSError) as error:  # Python < 3.13 says RuntimeError for a loop
            if isinstance(error, OSError) and error.errno != errno.ELOOP:
                raise
            raise NotWritable(errno.ELOOP, "it is a loop of symbolic links", given) from None
        status = os.stat(real)
        if not stat.S_ISREG(status.st_mode):
            kind = _kind(status.st_mode)
            raise NotWritable(errno.EEXIST, f"it is a symbolic link to {leads_to}, {kind}, not a regular file", given)
    elif not stat.S_ISREG(status.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(status.st_mode) else errno.EEXIST
        raise NotWritable(code, f"it is {_kind(status.st_mode)}, not a regular file", given)
    if not replace:
        raise FileExistsError(errno.EEXIST, "it exists already", given)
    return real


def _check_folders(place: Path, given: str) -> None:
    """NotWritable when the nearest of `place`'s folders that exists is not a folder (a file
    where a folder is named); folders that do not exist yet are the writer's to make."""
    for folder in place.parents:
        try:
            status = os.stat(folder)
        except (FileNotFoundError, NotADirectoryError):  # missing, or below a file: look further up
            if os.path.lexists(folder):
                raise NotWritable(
                    errno.ENOTDIR, f"{printable(str(folder))} is a symbolic link that leads to no folder", given
                ) from None
            continue
        if not stat.S_ISDIR(status.st_mode):
            raise NotWritable(errno.ENOTDIR, f"{printable(str(folder))} is not a folder", given)
        return


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _create(temporary: str, real: Path) -> None:
    """Put the temporary file at `real` unless something is there: a hard link fails rather than
    replace, even an entry made after `target` looked."""
    try:
        os.link(temporary, real, follow_symlinks=False)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "it exists already", str(real)) from None
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(real):  # a file system without hard links: the next best check
            raise FileExistsError(errno.EEXIST, "it exists already", str(real)) from None
        os.replace(temporary, real)


def _file_mode(path: Path) -> int:
    if path.exists():
        return path.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
