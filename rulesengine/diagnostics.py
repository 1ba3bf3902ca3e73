"""Diagnostics: every problem found in a rule file, with its place and a stable code.

A `Span` points into a source file; a `Diagnostic` is one finding; `RuleFileError`
carries all findings of a load so that callers can report them together.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence

import attrs

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
        super().__init__(render_text(self.diagnostics, sources={}))


class IllegalActionError(RulesEngineError):
    """An action that is not legal in the current state was applied."""


class OptionError(RulesEngineError):
    """An unknown option, or a value an option does not accept."""


class EngineError(RulesEngineError):
    """A rule file made the engine do something impossible while a game ran."""


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, if any is close enough."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None


# --- rendering -------------------------------------------------------------------------


def _source_line(span: Span, sources: dict[str, str]) -> str | None:
    text = sources.get(span.file)
    if text is None:
        try:
            with open(span.file, encoding="utf-8", errors="replace") as handle:  # RE008 files too
                text = handle.read()
        except OSError:
            return None
        sources[span.file] = text
    lines = text.splitlines()
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1]
    return None


def render_one(diagnostic: Diagnostic, sources: dict[str, str], colour: bool = False) -> str:
    span = diagnostic.span
    place = f"{span.file}:{span.line}:{span.column}:"
    kind = f"{diagnostic.severity}[{diagnostic.code}]"
    if colour:
        tint = "\x1b[1;31m" if diagnostic.severity == ERROR else "\x1b[1;33m"
        place, kind = f"\x1b[1m{place}\x1b[0m", f"{tint}{kind}\x1b[0m"
    head = f"{place} {kind}: "
    out = [head + diagnostic.message]
    line = _source_line(span, sources)
    if line is not None:
        width = span.end_column - span.column if span.end_line == span.line else len(line) - span.column + 1
        width = max(1, min(width, max(1, len(line) - span.column + 1)))
        out.append(f"  {line}")
        out.append("  " + " " * (span.column - 1) + "^" * width)
    if diagnostic.hint:
        out.append(f"  hint: {diagnostic.hint}")
    return "\n".join(out)


def render_text(diagnostics: Sequence[Diagnostic], sources: dict[str, str], colour: bool = False) -> str:
    return "\n".join(render_one(d, sources, colour) for d in diagnostics)


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.as_dict() for d in diagnostics], indent=2)


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands, one annotation per diagnostic."""

    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    lines = []
    for d in diagnostics:
        s = d.span
        kind = "error" if d.severity == ERROR else "warning"
        message = d.message + (f" ({d.hint})" if d.hint else "")
        lines.append(
            f"::{kind} file={s.file},line={s.line},col={s.column},endLine={s.end_line},"
            f"endColumn={s.end_column},title={d.code}::{escape(message)}"
        )
    return "\n".join(lines)
