"""Where a part of a ruleset is written: the span of a key in the composed rule file, so a
finding of the dynamic checks points at file:line:col of the rule it is about."""

from __future__ import annotations

import re

from ..compose import compose
from ..diagnostics import RulesEngineError, Span
from ..source import Map, Node


def key_span(file: str, *path: str) -> Span:
    """The span of the key at `path` (e.g. "triggers", "going_out"); the file's start if not found."""
    fallback = Span.point(file, 1, 1)
    try:
        node: Node = compose(file)
    except (RulesEngineError, OSError):
        return fallback
    span = fallback
    for key in path:
        if not isinstance(node, Map) or key not in node:
            return span
        span = node.key_spans[key]
        node = node.entries[key]
    return span


_PLACE = re.compile(r"(?s)(.+?):([0-9]+):([0-9]+): (.*)")


def error_place(message: str, file: str) -> tuple[Span, str]:
    """Where an error of the rules met while playing points (its message begins with the
    rule's file:line:col, as the generated code writes it), and the rest of the message;
    the start of `file` and the whole message when it names no place."""
    found = _PLACE.fullmatch(message)
    if found is None:
        return Span.point(file, 1, 1), message
    return Span.point(found[1], int(found[2]), int(found[3])), found[4]
