"""Reading the YAML of a scenario test file: values of the expected shape, or a diagnostic
with their place (RE500, RE501), and an exception that skips the broken part."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .diagnostics import Diagnostic, Span, did_you_mean, shortened
from .source import Map, Node, Scalar, Seq


class Skip(Exception):
    """A part of the file is broken; its diagnostic is recorded and the rest goes on."""


def is_text(node: Node | None) -> bool:
    """Whether `node` reads as a text (a number is taken as written; true/false and null are not)."""
    return isinstance(node, Scalar) and node.value is not None and not isinstance(node.value, bool)


def declared_text(node: Node, key: str) -> str | None:
    """The text under `key` of a mapping, or None when there is none that reads as a text
    (read without a diagnostic: the reader of the whole mapping reports what is wrong)."""
    found = node.get(key) if isinstance(node, Map) else None
    return found.written if isinstance(found, Scalar) and is_text(found) else None


def is_int(node: Node) -> bool:
    return isinstance(node, Scalar) and isinstance(node.value, int) and not isinstance(node.value, bool)


class Shapes:
    """Diagnostics of one file, and readers of values that record one when the shape is wrong."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Diagnostic] = []
        # what the readers of the file's parts make once and share, by a key of their own
        self.kept: dict[Hashable, Any] = {}

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, hint=hint))

    def fail(self, code: str, message: str, span: Span, hint: str | None = None) -> Skip:
        self.error(code, message, span, hint)
        return Skip()

    # -- shapes --

    def mapping(self, node: Node | None, what: str, keys: dict[str, str] | None) -> Map:
        if not isinstance(node, Map):
            raise self.fail("RE500", f"{what} must be a mapping", self.span(node))
        if keys is not None:
            for key, span in node.key_spans.items():
                if key not in keys:
                    hint = did_you_mean(key, keys) or f"known keys: {', '.join(keys)}"
                    self.error("RE501", f"unknown key '{key}' in {what}", span, hint)
        return node

    def items(self, node: Node, what: str, one: bool = True) -> tuple[Node, ...]:
        """The items of a list; with `one`, a single item (a text, a number) may be written
        without brackets. A list of mappings (tests, steps) takes `one=False`: a text there
        is no item, and the list is what is missing."""
        if isinstance(node, Seq):
            return node.items
        if one and isinstance(node, Scalar) and node.value is not None:
            return (node,)
        raise self.fail("RE500", f"{what} must be a list", self.span(node))

    def text(self, node: Node, what: str) -> str:
        if not isinstance(node, Scalar) or not is_text(node):
            raise self.fail("RE500", f"{what} must be a text", self.span(node))
        return node.written  # a clause `1.10` or a name `0x10` as written

    def words(self, node: Node, what: str) -> str:
        """A text as written, never a number or true/false taken for one: an action's name, a
        file's name."""
        if not (isinstance(node, Scalar) and isinstance(node.value, str)):
            quoted = isinstance(node, Scalar) and node.value is not None  # a number or true/false
            raise self.fail("RE500", f"{what} must be a text", self.span(node), "quote it" if quoted else None)
        return node.value

    def integer(self, node: Node, what: str) -> int:
        if not is_int(node):
            raise self.fail("RE500", f"{what} must be a whole number", self.span(node))
        assert isinstance(node, Scalar) and isinstance(node.value, int)
        return node.value

    def span(self, node: Node | None) -> Span:
        return node.span if node is not None else Span.point(self.path, 1, 1)


def as_written(node: Node) -> str:
    """A YAML value as a message shows it, in YAML's words: null, true, false, a number as the
    file writes it (`0x10`), a text in quotes, a list, a mapping; never a Python repr."""
    if isinstance(node, Seq):
        return "a list"
    if isinstance(node, Map):
        return "a mapping"
    if isinstance(node, Scalar) and isinstance(node.value, str):
        return f"'{shortened(node.value, 40)}'"
    assert isinstance(node, Scalar)
    return "null" if node.value is None else shortened(node.written, 40)  # true, false, 0x10 as written


def is_empty(node: Node) -> bool:
    return (isinstance(node, Seq) and not node.items) or (isinstance(node, Scalar) and node.value is None)


def flag(reader: Shapes, node: Node, what: str) -> bool:
    if not (isinstance(node, Scalar) and isinstance(node.value, bool)):
        raise reader.fail("RE500", f"{what} must be true or false", node.span)
    return node.value
