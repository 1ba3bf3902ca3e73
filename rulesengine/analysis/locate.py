"""Where a part of a ruleset is written: the span of a key in the composed rule file, so a
finding of the dynamic checks points at file:line:col of the rule it is about."""

from __future__ import annotations

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
