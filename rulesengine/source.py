"""Load a YAML rule file into nodes that remember where they came from.

YAML is read with the safe loader only. Duplicate keys, merge keys and alias bombs are
errors, never silently accepted. Every node keeps its span, and a scalar can map an
offset inside its text back to the file's line and column, so that an error in an
expression string points at the true place in the file.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import yaml

from .diagnostics import Diagnostic, RuleFileError, Span

MAX_NODES = 50_000  # after alias expansion; a rule file is far smaller
MAX_FILE_BYTES = 1_000_000
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map", "merge")}


@attrs.frozen(eq=False)
class Scalar:
    value: object
    span: Span
    style: str | None = None
    # For multi-line text: the (line, column) where each line of the value starts.
    line_starts: tuple[tuple[int, int], ...] = ()

    def locate(self, offset: int, width: int = 1) -> Span:
        """The span of `width` characters at `offset` inside this scalar's text."""
        text = self.value if isinstance(self.value, str) else str(self.value)
        offset = max(0, min(offset, len(text)))
        before = text[:offset]
        line_index = before.count("\n")
        column_in_line = offset - (before.rfind("\n") + 1)
        if self.line_starts and line_index < len(self.line_starts):
            line, column = self.line_starts[line_index]
            return Span(self.span.file, line, column + column_in_line, line, column + column_in_line + max(width, 1))
        quote = 1 if self.style in ("'", '"') else 0
        column = self.span.column + quote + column_in_line
        line = self.span.line + line_index
        return Span(self.span.file, line, column, line, column + max(width, 1))


@attrs.frozen(eq=False)
class Seq:
    items: tuple[Node, ...]
    span: Span


@attrs.frozen(eq=False)
class Map:
    entries: dict[str, Node]
    key_spans: dict[str, Span]
    span: Span

    def get(self, key: str) -> Node | None:
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def items(self) -> Iterator[tuple[str, Node]]:
        return iter(self.entries.items())


Node = Scalar | Seq | Map


def plain(node: Node) -> object:
    """The node as plain Python values (dicts, lists, scalars)."""
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, Seq):
        return [plain(item) for item in node.items]
    return {key: plain(value) for key, value in node.entries.items()}


def _span(file: str, node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


class _Builder:
    def __init__(self, file: str, text: str):
        self.file = file
        self.lines = text.splitlines()
        self.diagnostics: list[Diagnostic] = []
        self.count = 0
        self.constructor = yaml.SafeLoader("")

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, hint=hint))

    def build(self, node: yaml.Node) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooLarge(_span(self.file, node))
        if node.tag not in _PLAIN_TAGS:
            self.error("RE015", f"YAML tag '{node.tag}' is not allowed in a rule file", _span(self.file, node),
                       hint="rule files hold plain data: texts, numbers, lists and mappings")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return Seq(tuple(self.build(item) for item in node.value), _span(self.file, node))
        return self.mapping(node)

    def scalar(self, node: yaml.ScalarNode) -> Scalar:
        try:
            value = self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError:
            value = node.value
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            value = node.value  # timestamps, binary: keep the text
        span = _span(self.file, node)
        starts: tuple[tuple[int, int], ...] = ()
        if isinstance(value, str) and "\n" in value:
            starts = self._line_starts(node, value)
        return Scalar(value, span, node.style, starts)

    def _line_starts(self, node: yaml.ScalarNode, value: str) -> tuple[tuple[int, int], ...]:
        """Find where each line of a multi-line scalar stands in the file."""
        starts = []
        line_number = node.start_mark.line + (1 if node.style in ("|", ">") else 0)
        for text_line in value.split("\n"):
            stripped = text_line.strip()
            found = None
            for candidate in range(line_number, min(len(self.lines), node.end_mark.line + 1)):
                source_line = self.lines[candidate]
                position = source_line.find(stripped) if stripped else -1
                if position >= 0:
                    leading = len(text_line) - len(text_line.lstrip())
                    found = (candidate + 1, position + 1 - leading)
                    line_number = candidate + 1
                    break
            if found is None:
                found = (min(line_number, len(self.lines)) + 1 if not stripped else node.start_mark.line + 1, 1)
            starts.append(found)
        return tuple(starts)

    def mapping(self, node: yaml.MappingNode) -> Map:
        entries: dict[str, Node] = {}
        key_spans: dict[str, Span] = {}
        for key_node, value_node in node.value:
            key_span = _span(self.file, key_node)
            if not isinstance(key_node, yaml.ScalarNode):
                self.error("RE003", "a mapping key must be a plain name", key_span)
                continue
            key = str(key_node.value)
            if key == "<<" and key_node.tag == "tag:yaml.org,2002:merge":
                self.error(
                    "RE004",
                    "YAML merge keys ('<<') are not supported",
                    key_span,
                    hint="use 'extends' or 'include' to reuse parts of a rule file",
                )
                continue
            if key in entries:
                first = key_spans[key]
                self.error(
                    "RE002",
                    f"duplicate key '{key}' (first defined at line {first.line})",
                    key_span,
                    hint="each key may appear once in a mapping",
                )
                continue
            key_spans[key] = key_span
            entries[key] = self.build(value_node)
        return Map(entries, key_spans, _span(self.file, node))


class _TooLarge(Exception):
    def __init__(self, span: Span):
        self.span = span


def load_yaml(text: str, file: str) -> Node:
    """Parse YAML text into spanned nodes; raises RuleFileError listing every problem."""
    if len(text.encode("utf-8", "replace")) > MAX_FILE_BYTES:
        raise RuleFileError(
            [Diagnostic("RE005", f"file is larger than {MAX_FILE_BYTES} bytes", Span.point(file, 1, 1))]
        )
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{exc.context}: {problem}"
        raise RuleFileError(
            [Diagnostic("RE001", f"YAML syntax error: {problem}", Span.point(file, line, column))]
        ) from None
    except yaml.YAMLError as exc:
        raise RuleFileError([Diagnostic("RE001", f"YAML syntax error: {exc}", Span.point(file, 1, 1))]) from None
    if root is None:
        raise RuleFileError([Diagnostic("RE006", "the rule file is empty", Span.point(file, 1, 1))])
    builder = _Builder(file, text)
    try:
        tree = builder.build(root)
    except _TooLarge as exc:
        raise RuleFileError(
            [Diagnostic("RE007", f"the document expands to more than {MAX_NODES} nodes (YAML aliases?)", exc.span)]
        ) from None
    if builder.diagnostics:
        raise RuleFileError(builder.diagnostics)
    return tree


def load_file(path: str) -> tuple[Node, str]:
    """Read and parse a rule file; returns the node tree and the source text."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        raise RuleFileError([Diagnostic("RE008", "the file is not UTF-8 text", Span.point(path, 1, 1))]) from None
    except OSError as exc:
        raise RuleFileError(
            [Diagnostic("RE009", f"cannot read file: {exc.strerror}", Span.point(path, 1, 1))]
        ) from None
    return load_yaml(text, path), text
