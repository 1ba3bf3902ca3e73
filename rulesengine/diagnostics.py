"""Diagnostics: every problem found in a rule file, with its place and a stable code.

A `Span` points into a source file; a `Diagnostic` is one finding; `RuleFileError`
carries all findings of a load so that callers can report them together.
"""

from __future__ import annotations

import contextlib
import contextvars
import heapq
import operator
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from .limits import MAX_FILE_BYTES, MAX_INTEGER, MAX_SUGGESTION_CANDIDATES, MAX_SUGGESTION_NAME, MAX_SUGGESTION_WORK

ERROR = "error"
WARNING = "warning"


@attrs.frozen
class Span:
    """A region of a source file; lines and columns are 1-based, end is exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, file: str, line: int, column: int, width: int = 1) -> Span:
        return cls(file, line, column, line, column + max(width, 1))


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: str = ERROR
    hint: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


class RulesEngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class RuleFileError(RulesEngineError):
    """A rule file (or one it extends or includes) is not valid."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = list(diagnostics)
        # one line each, without quoting the files: raising reads nothing
        super().__init__("\n".join(_headline(d) for d in self.diagnostics))


class IllegalActionError(RulesEngineError):
    """An action that is not legal in the current state was applied."""


class OptionError(RulesEngineError):
    """An unknown option, or a value an option does not accept."""


class EngineError(RulesEngineError):
    """A rule file made the engine do something impossible while a game ran."""


def integer(value: Any) -> int | None:
    """`value` as the int it is (NumPy's integers too), or None for a bool, a float, a text or
    anything else: a float or a bool equal to a number must not pass for it."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def is_whole_number_text(text: str) -> bool:
    """Whether `text` is a whole number as the project reads one: ASCII digits, an optional sign
    first, nothing else (Python's `int` also reads other scripts' digits, `1_000` and spaces)."""
    return _WHOLE_NUMBER.fullmatch(text) is not None


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def whole_number(value: Any, what: str, least: int | None = None) -> int:
    """`value` as an int (see `integer`) of at least `least` if given; else OptionError naming `what`."""
    number = integer(value)
    if number is None:
        raise OptionError(f"{what} takes a whole number, not {value!r}")
    if least is not None and number < least:
        raise OptionError(f"{what} must be at least {least}, not {number}")
    return number


def seed_number(value: Any) -> int:
    """A match's seed: a whole number (see `integer`) of the language's size, as replays and
    the commands take it; else OptionError."""
    number = whole_number(value, "seed")
    if not -MAX_INTEGER <= number <= MAX_INTEGER:
        raise OptionError(f"seed must be a whole number from {-MAX_INTEGER} to {MAX_INTEGER}, not {number}")
    return number


def seed_of(value: Any, what: str) -> int | None:
    """A seed for `random.Random`: None or a whole number (see `integer`); OptionError for a
    float, a bool or a text, which `random` would take as other seeds or refuse obscurely."""
    if value is None:
        return None
    number = integer(value)
    if number is None:
        raise OptionError(f"{what} is a whole number or None, not {value!r}")
    return number


# The character pairs that suggestions may still compare in the current check (None: no
# check is running, so only the bound per call applies).
_suggestion_work: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("suggestion_work", default=None)


@contextlib.contextmanager
def suggestions_bounded(work: int = MAX_SUGGESTION_WORK) -> Iterator[None]:
    """Bound the total cost of the "did you mean" suggestions made inside (one file's check)."""
    token = _suggestion_work.set([work])
    try:
        yield
    finally:
        _suggestion_work.reset(token)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, if any is close enough.

    The cost is bounded: a long name gets no suggestion, only the candidates closest in
    length are compared, and inside `suggestions_bounded` all suggestions together do a
    bounded amount of work (counted in characters compared); past it, no more hints.
    """
    budget = _suggestion_work.get()
    if len(name) > MAX_SUGGESTION_NAME or (budget is not None and budget[0] <= 0):
        return None
    pool = heapq.nsmallest(
        MAX_SUGGESTION_CANDIDATES,
        {c for c in candidates if len(c) <= MAX_SUGGESTION_NAME},
        key=lambda c: (abs(len(c) - len(name)), c),
    )
    import difflib  # here: most runs suggest nothing, and checking a file needs no more of it

    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(name)
    cutoff = 0.6
    best: tuple[float, str] | None = None  # ties go to the larger name, as difflib.get_close_matches
    spent = 0
    for candidate in pool:
        matcher.set_seq1(candidate)
        floor = best[0] if best else cutoff
        spent += len(candidate) + len(name)
        if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
            continue
        spent += len(candidate) * len(name)
        if budget is not None and spent > budget[0]:
            break
        score = matcher.ratio()
        if score >= cutoff and (best is None or (score, candidate) > best):
            best = (score, candidate)
    if budget is not None:
        budget[0] -= spent
    return f"did you mean '{best[1]}'?" if best is not None else None


# --- rendering -------------------------------------------------------------------------


def shortened(text: str, most: int) -> str:
    """`text` as a message shows it: at most `most` characters, cut with "..."."""
    return text if len(text) <= most else text[: most - 3] + "..."


def shown_value(value: object) -> str:
    """A value a caller gave, as an error message shows it: its repr, cut short."""
    return shortened(repr(value), 40)


def printable(text: str) -> str:
    """`text` safe to print anywhere: lone surrogates and control characters (but tab) written
    as escapes, so that a rule file's names can neither break the output's encoding nor
    send commands to a terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else _escape_char(c) for c in text)


def _escape_char(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _source_line(span: Span, sources: dict[str, str], lines: dict[str, list[str]]) -> str | None:
    """The line a span starts on; each file is split into lines once (`lines` keeps them)."""
    split = lines.get(span.file)
    if split is None:
        text = sources.get(span.file)
        if text is None:
            text = _read_for_quoting(span.file)
            if text is None:
                return None
            sources[span.file] = text
        split = lines[span.file] = editor_lines(text)
    if 1 <= span.line <= len(split):
        return split[span.line - 1]
    return None


_SHOWN_WIDTH = 120  # characters of a long source line shown around the problem


def _window(line: str, column: int) -> tuple[str, int]:
    """A long line cut to a window around `column`; returns it and the column inside it."""
    if len(line) <= _SHOWN_WIDTH:
        return line, column
    start = max(0, min(column - 1 - _SHOWN_WIDTH // 3, len(line) - _SHOWN_WIDTH))
    shown = line[start : start + _SHOWN_WIDTH]
    prefix = "..." if start else ""
    suffix = "..." if start + _SHOWN_WIDTH < len(line) else ""
    return prefix + shown + suffix, column - start + len(prefix)


def editor_lines(text: str) -> list[str]:
    """The lines of a text as editors count them: broken at \n, \r\n and \r only (not at the
    other breaks `str.splitlines` and YAML know, such as U+2028)."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines[-1] == "" else lines  # a final break ends the last line


def _read_for_quoting(path: str) -> str | None:
    """A file's text to quote a line of: only a regular file, at most MAX_FILE_BYTES of it, and
    not through a symbolic link that leaves its folder (validate refuses those, RE023)."""
    try:
        link = Path(path)
        if link.is_symlink() and not link.resolve().is_relative_to(link.parent.resolve()):
            return None
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a loop of symbolic links
        return None
    return data.decode("utf-8", "replace")  # RE008 files too


def _headline(d: Diagnostic) -> str:
    span = d.span
    return printable(f"{span.file}:{span.line}:{span.column}: {d.severity}[{d.code}]: {d.message}")


def render_one(
    diagnostic: Diagnostic, sources: dict[str, str], colour: bool = False, lines: dict[str, list[str]] | None = None
) -> str:
    span = diagnostic.span
    place = f"{printable(span.file)}:{span.line}:{span.column}:"
    kind = f"{diagnostic.severity}[{diagnostic.code}]"
    if colour:
        tint = "\x1b[1;31m" if diagnostic.severity == ERROR else "\x1b[1;33m"
        place, kind = f"\x1b[1m{place}\x1b[0m", f"{tint}{kind}\x1b[0m"
    head = f"{place} {kind}: "
    out = [head + printable(diagnostic.message)]
    line = _source_line(span, sources, {} if lines is None else lines)
    if line is not None:
        width = span.end_column - span.column if span.end_line == span.line else len(line) - span.column + 1
        line, column = _window(line, span.column)
        width = max(1, min(width, max(1, len(line) - column + 1)))
        # escapes (\x1b) widen the line: the caret goes under the escaped text
        before, under = printable(line[: column - 1]), printable(line[column - 1 : column - 1 + width])
        out.append(f"  {printable(line)}")
        out.append("  " + " " * len(before) + "^" * max(1, len(under)))
    if diagnostic.hint:
        out.append(f"  hint: {printable(diagnostic.hint)}")
    return "\n".join(out)


def render_text(diagnostics: Sequence[Diagnostic], sources: dict[str, str], colour: bool = False) -> str:
    lines: dict[str, list[str]] = {}
    return "\n".join(render_one(d, sources, colour, lines) for d in diagnostics)


def without_surrogates(text: str) -> str:
    """Lone surrogates written out as text (\\udc80), so the text encodes as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json_safe(value: object) -> object:
    return without_surrogates(value) if isinstance(value, str) else value


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    import json  # here: only this format needs it

    return json.dumps([{k: _json_safe(v) for k, v in d.as_dict().items()} for d in diagnostics], indent=2)


def _github_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def identity(path: str | os.PathLike[str]) -> str:
    """What a name stands for: its absolute path with the folders resolved, its own last
    part kept (a symbolic link is a name of its own, refused or read as such, and named as
    the link, not as what it leads to)."""
    absolute = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def _workspace_path(file: str) -> str:
    """A file inside the workspace (GitHub's `GITHUB_WORKSPACE`, else the working folder) as a
    path relative to it, without a leading `./`: GitHub places an annotation on a line of a
    pull request only for such a path, and a base file is named by its absolute path."""
    # the folders resolved: a workspace reached through a symbolic link (macOS's /var) holds
    # the base files named by their resolved paths
    root = os.path.realpath(os.environ.get("GITHUB_WORKSPACE") or os.curdir)
    absolute = identity(file)
    if absolute == root or not absolute.startswith(root.rstrip(os.sep) + os.sep):
        return file  # elsewhere (a shipped ruleset): as it is
    return Path(os.path.relpath(absolute, root)).as_posix()


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands, one annotation per diagnostic.

    Property values (file, title) and the message are escaped as the workflow-command
    format requires, so no text of a rule file or its name can start a command of its own.
    """
    lines = []
    for d in diagnostics:
        s = d.span
        kind = "error" if d.severity == ERROR else "warning"
        message = without_surrogates(d.message + (f" ({d.hint})" if d.hint else ""))
        file = _github_property(without_surrogates(_workspace_path(s.file)))
        lines.append(
            f"::{kind} file={file},line={s.line},col={s.column},endLine={s.end_line},"
            f"endColumn={s.end_column},title={_github_property(d.code)}::{_github_data(message)}"
        )
    return "\n".join(lines)
