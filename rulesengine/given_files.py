"""The files a command reads from the paths on its command line, by one rule for `validate`
and `test`: a path the system cannot look up is a usage error, a folder that cannot be read
is reported, not passed over, and a file whose symbolic links lead out of its folder is
refused unread (a pull request cannot make a command print a file elsewhere). A file named
twice (`a.yaml`, `./a.yaml`, its absolute path) is read once, under the name given first."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import attrs

from .diagnostics import Diagnostic, Span, identity, printable


class CannotLookUp(Exception):
    """The system cannot tell what a path names: a usage error, as a missing path is."""


def look_up(raw: str) -> tuple[bool, bool]:
    """Whether `raw` names a folder, and whether anything is there (a link leading nowhere too)."""
    path = Path(raw)
    try:
        return path.is_dir(), path.exists() or path.is_symlink()
    except OSError as error:  # a name too long, a folder that may not be entered
        raise CannotLookUp(f"cannot look up {printable(raw)}: {error.strerror or error}") from None


def to_read(path: Path) -> bool:
    """Whether a walk takes a file it found in a folder: a regular file (or a link to one), one
    whose status cannot be read, or a symbolic link that leads nowhere or in a loop, so that
    reading it says why (RE009), as when it is named, rather than passing it over."""
    try:
        return path.is_file() or (path.is_symlink() and not path.exists())  # exists() is false for a loop too
    except OSError:  # its folder may be listed but not entered
        return True


@attrs.define
class Gathered:
    """The files to read, in the order taken, and a diagnostic for each file refused and each
    folder that could not be read."""

    files: list[Path] = attrs.Factory(list)
    refused: list[Diagnostic] = attrs.Factory(list)
    _seen: set[str] = attrs.Factory(set)
    _folders_refused: int = 0

    @property
    def files_refused(self) -> int:
        """How many refusals are of files, not folders: a summary counts them as files checked."""
        return len(self.refused) - self._folders_refused

    def _first_time(self, path: Path) -> bool:
        key = identity(path)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def take(self, path: Path, folder: Path) -> None:
        """Take `path`, given or found in `folder`, unless its links lead out of that folder or
        it was taken already under another name."""
        if not self._first_time(path):
            return
        try:
            inside = path.resolve().is_relative_to(folder.resolve())
        except (OSError, RuntimeError):  # a symbolic link that leads back to itself
            self.refused.append(
                Diagnostic("RE009", "cannot read file: a loop of symbolic links", Span.point(str(path), 1, 1))
            )
            return
        if not inside:  # a link, or a file in a linked folder
            self.refused.append(
                Diagnostic(
                    "RE023",
                    "this file is a symbolic link to a file outside its folder; it is not read",
                    Span.point(str(path), 1, 1),
                )
            )
        else:
            self.files.append(path)

    def take_shipped(self, path: Path) -> None:
        """Take a shipped ruleset, named by its name: it lies where the package put it."""
        if self._first_time(path):
            self.files.append(path)

    def take_folder(self, folder: Path, wanted: Callable[[Path], bool], hidden: bool = True) -> None:
        """Take the wanted files in `folder` and below, in sorted order (`hidden`: in hidden
        folders too), without following linked folders. A folder that cannot be read is an
        error at its name (RE009): its files would otherwise go unchecked without a word."""
        found: list[Path] = []
        unreadable: list[OSError] = []
        for root, folders, names in os.walk(folder, onerror=unreadable.append):
            if not hidden:
                folders[:] = [name for name in folders if not name.startswith(".")]
                names = [name for name in names if not name.startswith(".")]
            found.extend(file for name in names if wanted(file := Path(root, name)))
        for error in sorted(unreadable, key=lambda error: str(error.filename)):
            self._refuse_folder(Path(error.filename if error.filename is not None else folder), error)
        for file in sorted(found):
            self.take(file, folder)

    def _refuse_folder(self, path: Path, error: OSError) -> None:
        if self._first_time(path):
            reason = error.strerror or type(error).__name__
            message = f"cannot read folder: {reason}; the files in it are not checked"
            self.refused.append(Diagnostic("RE009", message, Span.point(str(path), 1, 1)))
            self._folders_refused += 1


def once_each(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics without repeats, in the order first met: a base or a block checked on
    its own and again through the file that extends or includes it, under its absolute path,
    reports each problem once, under the name met first. The same problem is the same
    resolved file, place, code and message (a hint may differ: suggestions are bounded per
    check)."""
    resolved: dict[str, str] = {}
    seen: set[tuple[object, ...]] = set()
    kept = []
    for diagnostic in diagnostics:
        span = diagnostic.span
        if span.file not in resolved:
            resolved[span.file] = real_path(span.file)
        place = (resolved[span.file], span.line, span.column, span.end_line, span.end_column)
        key = (*place, diagnostic.severity, diagnostic.code, diagnostic.message)
        if key not in seen:
            seen.add(key)
            kept.append(diagnostic)
    return kept


def real_path(file: str) -> str:
    """The file a name leads to, all its links followed, without an error: a loop of symbolic
    links is left as it is."""
    try:
        return os.path.realpath(file)
    except (OSError, ValueError):  # a name the system refuses: only the same name is the same file
        return file
