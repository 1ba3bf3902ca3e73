"""The files a command reads from the paths on its command line, by one rule for `validate`
and `test`: a path the system cannot look up is a usage error, and a file whose symbolic
links lead out of its folder is refused unread (a pull request cannot make a command print
a file elsewhere)."""

from __future__ import annotations

from pathlib import Path

import attrs

from .diagnostics import Diagnostic, Span, printable


class CannotLookUp(Exception):
    """The system cannot tell what a path names: a usage error, as a missing path is."""


def look_up(raw: str) -> tuple[bool, bool]:
    """Whether `raw` names a folder, and whether anything is there (a link leading nowhere too)."""
    path = Path(raw)
    try:
        return path.is_dir(), path.exists() or path.is_symlink()
    except OSError as error:  # a name too long, a folder that may not be entered
        raise CannotLookUp(f"cannot look up {printable(raw)}: {error.strerror or error}") from None


@attrs.define
class Gathered:
    """The files to read, in the order taken, and a diagnostic for each file refused."""

    files: list[Path] = attrs.Factory(list)
    refused: list[Diagnostic] = attrs.Factory(list)

    def take(self, path: Path, folder: Path) -> None:
        """Take `path`, given or found in `folder`, unless its links lead out of that folder."""
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
