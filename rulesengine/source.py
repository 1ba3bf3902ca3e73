"""Load a YAML rule file into nodes that remember where they came from.

YAML is read with the safe loader only. Duplicate keys, merge keys and alias bombs are
errors, never silently accepted. Every node keeps its span, and a scalar can map an
offset inside its text back to the file's line and column, so that an error in an
expression string points at the true place in the file.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from bisect import bisect_right
from collections.abc import Iterator

import attrs
import yaml

from .diagnostics import Diagnostic, RuleFileError, Span, editor_lines
from .limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_INTEGER, MAX_INTEGER_DIGITS, MAX_NODES

# An integer as the rule language writes one. YAML 1.1, which PyYAML reads, also takes
# `0100` (octal: 64), `1:40` (base 60: 100), `0x64`, `0b101` and `1_000` for integers: such a
# value is kept as the text it is, as a name is (`ranks: [010]`); where a number is expected
# the checker refuses it (RE205) and says why.
_DECIMAL_INTEGER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map", "merge")}
_STR_TAG = "tag:yaml.org,2002:str"


class SourceText:
    """A file's text with its line starts found once, so a position maps to a line in log time."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self._starts: list[int] | None = None

    def line_column(self, index: int) -> tuple[int, int]:
        """The 1-based line and column of a character index."""
        if self._starts is None:
            starts = [0]
            find = self.text.find
            at = find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = find("\n", at + 1)
            self._starts = starts
        line = bisect_right(self._starts, index) - 1
        return line + 1, index - self._starts[line] + 1


class _Positions:
    """Where each character of a scalar's value stands in the file.

    Built on first use by one pass over the value and its source text together (linear
    time): escapes, doubled quotes, folded line breaks and block indentation are stepped
    over, so a position inside a folded, literal or quoted multi-line scalar is exact.
    """

    def __init__(self, source: SourceText, start: int, end: int, style: str | None):
        self.source, self.start, self.end, self.style = source, start, end, style
        self._map: list[int] | None = None

    def index(self, value: str, offset: int) -> int:
        if self._map is None:
            self._map = self._align(value)
        return self._map[max(0, min(offset, len(self._map) - 1))]

    def _align(self, value: str) -> list[int]:
        src, style = self.source.text, self.style
        j, end = self.start, self.end
        if style in ("|", ">"):  # the value starts on the line after the header ('|-  # note')
            newline = src.find("\n", j, end)
            j = end if newline < 0 else newline + 1
        elif style in ("'", '"'):
            j, end = j + 1, max(j + 1, end - 1)
        out: list[int] = []
        i, n = 0, len(value)
        while i < n and j < end:
            c, s = value[i], src[j]
            if style == '"' and s == "\\":
                following = src[j + 1] if j + 1 < end else ""
                if following == "\n":  # an escaped line break joins the lines: no character
                    j += 2
                    continue
                out.append(j)
                i += 1
                j += 2 + {"x": 2, "u": 4, "U": 8}.get(following, 0)
            elif c == s:
                out.append(j)
                i += 1
                j += 2 if style == "'" and s == "'" else 1  # '' is one quote
            elif s == "\n" and c in " \n":  # a line break folded into a space, or kept
                out.append(j)
                i += 1
                j += 1
            else:  # indentation, trailing spaces, a second line break: not in the value
                j += 1
        tail = out[-1] + 1 if out else min(j, end)  # the end of the text, and any character not found
        out.extend([tail] * (n - i + 1))
        return out


@attrs.frozen(eq=False)
class Scalar:
    value: object
    span: Span
    style: str | None = None
    positions: _Positions | None = None  # None for scalars made by the checker

    @property
    def written(self) -> str:
        """The scalar's text as the file spells it: a number as written (`1.10`, `0x10`), not
        as the number it reads as (`1.1`, `16`)."""
        if isinstance(self.value, str):
            return self.value
        if self.positions is not None:
            return self.positions.source.text[self.positions.start : self.positions.end]
        return _scalar_text(self.value)

    def locate(self, offset: int, width: int = 1) -> Span:
        """The span of `width` characters at `offset` inside this scalar's text."""
        text = self.value if isinstance(self.value, str) else _scalar_text(self.value)
        offset = max(0, min(offset, len(text)))
        if self.positions is not None and isinstance(self.value, str):
            line, column = self.positions.source.line_column(self.positions.index(text, offset))
            return Span(self.span.file, line, column, line, column + max(width, 1))
        if self.positions is not None:  # a number or boolean: its text is its source
            start = min(self.positions.start + offset, max(self.positions.end, self.positions.start))
            line, column = self.positions.source.line_column(start)
            return Span(self.span.file, line, column, line, column + max(width, 1))
        line_index = text.count("\n", 0, offset)
        column_in_line = offset - (text.rfind("\n", 0, offset) + 1)
        quote = 1 if self.style in ("'", '"') else 0
        column = (self.span.column + quote if line_index == 0 else 1) + column_in_line
        line = self.span.line + line_index
        return Span(self.span.file, line, column, line, column + max(width, 1))


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@attrs.frozen(eq=False)
class Seq:
    items: tuple[Node, ...]
    span: Span
    flow: bool = False  # written as [a, b]: its items cannot hold ',' or brackets unquoted


@attrs.frozen(eq=False)
class Map:
    entries: dict[str, Node]
    key_spans: dict[str, Span]
    span: Span
    # the keys as read, for a position inside one (a definition's head); none in maps made later
    key_nodes: dict[str, Scalar] = attrs.field(factory=dict)

    def get(self, key: str) -> Node | None:
        return self.entries.get(key)

    def key_node(self, key: str) -> Scalar:
        """The key as a scalar that maps offsets inside it to the file (escapes and quotes counted)."""
        found = self.key_nodes.get(key)
        return found if found is not None else Scalar(key, self.key_spans[key])

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


# YAML also breaks lines at these; editors, Git and the language server's clients do not
_OTHER_BREAKS = ("\u2028", "\u2029", "\x85")


def _mark_position(mark: yaml.Mark, source: SourceText | None) -> tuple[int, int]:
    """A YAML mark's 1-based line and column as an editor counts them: with `source` (a text
    holding one of YAML's other line breaks), from the mark's character index."""
    if source is not None:
        return source.line_column(mark.index)
    return mark.line + 1, mark.column + 1


def _has_other_breaks(text: str) -> bool:
    """Whether YAML's line numbers in `text` would differ from an editor's."""
    return any(c in text for c in _OTHER_BREAKS)


def _other_breaks(file: str, text: str) -> SourceText | None:
    """The text to count positions in when YAML's line numbers would differ from an editor's."""
    return SourceText(file, text) if _has_other_breaks(text) else None


def _span(file: str, node: yaml.Node, source: SourceText | None = None) -> Span:
    start = _mark_position(node.start_mark, source)
    end = _mark_position(node.end_mark, source)
    return Span(file, *start, *end)


class _Builder:
    def __init__(self, file: str, text: str):
        self.file = file
        self.source = SourceText(file, text)
        self.breaks = self.source if _has_other_breaks(text) else None  # where positions are counted then
        self.diagnostics: list[Diagnostic] = []
        self.count = 0
        self.constructor = yaml.SafeLoader("")
        self.open: set[int] = set()  # ids of the nodes being built: an alias to one is a cycle

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, hint=hint))

    def build(self, node: yaml.Node) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooLarge(self.span(node))
        if id(node) in self.open:
            self.error(
                "RE017",
                "a YAML alias refers to the list or mapping that contains it",
                self.span(node),
                hint="an alias ('*name') may only repeat a value defined before it, not its own parent",
            )
            return Scalar(None, self.span(node))
        if len(self.open) >= MAX_DEPTH:  # aliases can nest deeper than the text does
            raise _TooDeep(self.span(node))
        if isinstance(node, yaml.CollectionNode):
            self.open.add(id(node))
            try:
                return self._build_node(node)
            finally:
                self.open.discard(id(node))
        return self._build_node(node)

    def span(self, node: yaml.Node) -> Span:
        if self.breaks is not None:
            return _span(self.file, node, self.breaks)
        start, end = node.start_mark, node.end_mark  # as _span gives it, without a YAML line break of its own
        return Span(self.file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)

    def _build_node(self, node: yaml.Node) -> Node:
        if node.tag not in _PLAIN_TAGS:
            self.error(
                "RE015",
                f"YAML tag '{node.tag}' is not allowed in a rule file",
                self.span(node),
                hint="rule files hold plain data: texts, numbers, lists and mappings",
            )
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return Seq(tuple([self.build(item) for item in node.value]), self.span(node), bool(node.flow_style))
        return self.mapping(node)

    def scalar(self, node: yaml.ScalarNode) -> Scalar:
        span = self.span(node)
        style = node.style or None  # libyaml says '' for a plain scalar
        if node.tag == _STR_TAG:  # most scalars: the text is the value, as the constructor gives it
            return Scalar(
                node.value, span, style, _Positions(self.source, node.start_mark.index, node.end_mark.index, style)
            )
        if node.tag == "tag:yaml.org,2002:int" and not _DECIMAL_INTEGER.fullmatch(node.value):
            positions = _Positions(self.source, node.start_mark.index, node.end_mark.index, None)
            return Scalar(node.value, span, None, positions)
        if node.tag == "tag:yaml.org,2002:int" and not self._small_integer(node, span):
            return Scalar(None, span, node.style or None)
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError):
            value = node.value
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            value = node.value  # timestamps, binary: keep the text
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
            self._integer_error(span)
            return Scalar(None, span, node.style or None)
        positions = _Positions(self.source, node.start_mark.index, node.end_mark.index, style)
        return Scalar(value, span, style, positions)

    def _small_integer(self, node: yaml.ScalarNode, span: Span) -> bool:
        """An integer's text is short enough to convert (Python refuses 4,300 digits; we far fewer)."""
        if len(node.value) <= MAX_INTEGER_DIGITS:
            return True
        self._integer_error(span)
        return False

    def _integer_error(self, span: Span) -> None:
        self.error(
            "RE018",
            f"integer is larger than {MAX_INTEGER} (the largest a rule file may hold)",
            span,
            hint="rule files count cards, points and turns: quote the value if it is meant as a text",
        )

    def mapping(self, node: yaml.MappingNode) -> Map:
        entries: dict[str, Node] = {}
        key_spans: dict[str, Span] = {}
        key_nodes: dict[str, Scalar] = {}
        for key_node, value_node in node.value:
            key_span = self.span(key_node)
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
            key_nodes[key] = self._key(key, key_node, key_span)
            entries[key] = self.build(value_node)
        return Map(entries, key_spans, self.span(node), key_nodes)

    def _key(self, key: str, node: yaml.ScalarNode, span: Span) -> Scalar:
        style = node.style or None
        return Scalar(key, span, style, _Positions(self.source, node.start_mark.index, node.end_mark.index, style))


class _TooLarge(Exception):
    def __init__(self, span: Span):
        self.span = span


class _TooDeep(_TooLarge):
    pass


# libyaml when PyYAML has it: the same documents and character positions, far faster on a
# long scalar. A file it refuses is read again by the pure-Python loader, whose messages
# the diagnostics and their hints are written for.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _check_depth(text: str, file: str, loader: type = yaml.SafeLoader) -> None:
    """Refuse text nested deeper than MAX_DEPTH before a recursive composer sees it.

    The event parser is iterative, so this scan cannot exhaust Python's stack.
    """
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise _TooDeep(Span.point(file, *_mark_position(event.start_mark, _other_breaks(file, text))))
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _line(text: str, number: int) -> str:
    lines = editor_lines(text)
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def _too_deep(span: Span) -> RuleFileError:
    return RuleFileError(
        [
            Diagnostic(
                "RE016",
                f"lists and mappings are nested deeper than {MAX_DEPTH} levels",
                span,
                hint="a rule file needs only a few levels; look for an unclosed '[' or '{'",
            )
        ]
    )


_COLON_HINT = (
    "a text that contains ': ' must be quoted (e.g. label: \"score: {n}\") or written as a block "
    "scalar ('|' on its own line)"
)
_FLOW_HINT = (
    "inside [...] or {...}, ',' separates items and '[', ']', '{', '}' end them: quote an item that "
    "contains them (e.g. \"move hand[me] to pile\") or write the list as a block list, one '- item' per line"
)
# Advice for PyYAML's most common complaints about rule files: (words in the message, hint).
_YAML_HINTS = (
    (("flow sequence", "flow mapping"), _FLOW_HINT),
    (("mapping values are not allowed",), _COLON_HINT),
    (
        ("expected <block end>", "could not find expected ':'"),
        "a value that starts with a quote must end with it: quote the whole text, or check the indentation "
        "of this line",
    ),
    (("'\\t'",), "indent with spaces; YAML does not allow tabs for indentation"),
    (("end of stream",), "a quote or bracket opened here is never closed"),
    (("undefined alias",), "an alias ('*name') must follow the anchor ('&name') it repeats"),
)


def _colon_in_text(line: str) -> bool:
    """Whether a line holds a text with ': ' that YAML took for a key: 'log "a: b"' or 'k: a: b'."""
    content = line.strip().removeprefix("- ")
    key, colon, value = content.partition(": ")
    if not colon:
        return False
    key_is_text = " " in key.strip() or '"' in key or "'" in key
    value = value.split(" #")[0].strip()
    return key_is_text or (": " in value and value[:1] not in ('"', "'", "|", ">", "{", "["))


def _yaml_hint(message: str, line: str = "") -> str | None:
    if _colon_in_text(line):  # whatever PyYAML says then, the cause is the unquoted ': '
        return _COLON_HINT
    for words, hint in _YAML_HINTS:
        if any(word in message for word in words):
            return hint
    return None


def load_yaml(text: str, file: str) -> Node:
    """Parse YAML text into spanned nodes; raises RuleFileError listing every problem.

    The same text of the same file is parsed once: telling a rule file from other YAML,
    checking it, composing it into its variants and resolving its scenario tests all read
    the one tree (nodes are immutable; the cache holds the last 16 texts).
    """
    tree, problems = _load_yaml_once(text, file)
    if tree is None:
        raise RuleFileError(list(problems))
    return tree


@functools.lru_cache(maxsize=16)  # a file, its bases and blocks; few, as an editor's texts can be large
def _load_yaml_once(text: str, file: str) -> tuple[Node | None, tuple[Diagnostic, ...]]:
    try:
        return _load_yaml(text, file), ()
    except RuleFileError as error:
        return None, tuple(error.diagnostics)


def _load_yaml(text: str, file: str) -> Node:
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise _too_large(file, MAX_FILE_BYTES)
    # libyaml composes a document without Python's recursion and refuses one nested more than
    # a thousand levels deep, so its tree is built before the depth is counted: the builder
    # refuses a deeper one too, and the count (a scan of every event, a sixth of reading a
    # file) is made only when the builder refuses the tree, to report what it would have.
    # The pure-Python composer recurses: the depth is counted before it runs.
    counted = _FAST_LOADER is yaml.SafeLoader
    try:
        try:
            if counted:
                _check_depth(text, file, _FAST_LOADER)
            root = yaml.compose(text, Loader=_FAST_LOADER)
        except yaml.YAMLError:
            if not counted:  # what libyaml reads before its error may be nested too deep
                try:
                    _check_depth(text, file, _FAST_LOADER)
                except yaml.YAMLError:
                    pass
            _check_depth(text, file)
            root = yaml.compose(text, Loader=yaml.SafeLoader)
            counted = True
    except _TooDeep as exc:
        raise _too_deep(exc.span) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        if exc.context_mark is not None and ("end of stream" in problem or "<stream end>" in problem):
            mark = exc.context_mark  # where the unclosed quote or bracket opened, not the file's end
        line, column = _mark_position(mark, _other_breaks(file, text)) if mark else (1, 1)
        if exc.context:
            problem = f"{exc.context}: {problem}"
        raise RuleFileError(
            [
                Diagnostic(
                    "RE001",
                    f"YAML syntax error: {problem}",
                    Span.point(file, line, column),
                    hint=_yaml_hint(problem, _line(text, line)),
                )
            ]
        ) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, such as NUL
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise RuleFileError(
            [
                Diagnostic(
                    "RE001",
                    f"YAML syntax error: the character {exc.character!r} is not allowed in YAML",
                    Span.point(file, line, column),
                    hint="remove it; a rule file is plain text",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise RuleFileError([Diagnostic("RE001", f"YAML syntax error: {exc}", Span.point(file, 1, 1))]) from None
    if root is None:
        raise RuleFileError([Diagnostic("RE006", "the file is empty", Span.point(file, 1, 1))])
    builder = _Builder(file, text)
    try:
        tree = builder.build(root)
    except _TooLarge as exc:
        _count_depth(text, file, counted)
        if isinstance(exc, _TooDeep):
            raise _too_deep(exc.span) from None
        raise RuleFileError(
            [Diagnostic("RE007", f"the document expands to more than {MAX_NODES} nodes (YAML aliases?)", exc.span)]
        ) from None
    if builder.diagnostics:
        _count_depth(text, file, counted)
        raise RuleFileError(builder.diagnostics)
    return tree


def _count_depth(text: str, file: str, counted: bool) -> None:
    """RE016 if `text` is nested too deep, unless that was counted already: a tree the builder
    refuses (a node of it deeper than the limit, or any other problem) may hold a part it did
    not reach that is, and that is the problem reported. A tree it accepts is not: each of
    its collections is built below all those that hold it in the text."""
    if counted:
        return
    try:
        _check_depth(text, file, _FAST_LOADER)
    except _TooDeep as exc:
        raise _too_deep(exc.span) from None


def read_bytes(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes, refused before reading when larger than `limit`.

    The size is checked from the file's status first, and at most `limit + 1` bytes are read
    (a file whose status says 0 bytes, as under /proc, can still be long). A folder, a pipe
    or a device is refused without being opened, so reading never blocks. Raises
    RuleFileError (RE005, RE009).
    """
    data = read_head(path, limit, refuse_large=True)
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def read_head(path: str, limit: int = MAX_FILE_BYTES, refuse_large: bool = False) -> bytes:
    """At most `limit + 1` bytes from the start of a regular file. A folder, a pipe or a device
    is refused from its status before it is opened (RE009), so nothing blocks; with
    `refuse_large`, so is a file whose status says it is larger than `limit` (RE005)."""
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            raise _not_regular(path)
        if refuse_large and status.st_size > limit:
            raise _too_large(path, limit)
        # Opened without blocking, and checked again once open: a file swapped for a pipe
        # between the two looks is refused too.
        handle = os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb")
        with handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise _not_regular(path)
            return handle.read(limit + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RuleFileError([Diagnostic("RE009", f"cannot read file: {reason}", Span.point(path, 1, 1))]) from None


def _not_regular(path: str) -> RuleFileError:
    return RuleFileError([Diagnostic("RE009", "cannot read file: not a regular file", Span.point(path, 1, 1))])


def _too_large(path: str, limit: int) -> RuleFileError:
    return RuleFileError([Diagnostic("RE005", f"file is larger than {limit} bytes", Span.point(path, 1, 1))])


def decode(data: bytes, path: str) -> str:
    """UTF-8 text with line ends as text mode reads them; RE008 at the first byte that is not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError([_not_utf8(path, data, exc.start)]) from None
    return normalise_line_breaks(text)


def normalise_line_breaks(text: str) -> str:
    """The text with every line break as '\n': '\r\n' and '\r' end lines too (as in text mode,
    and as editors and LSP count them), so positions count lines by '\n' alone."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_file(path: str) -> tuple[Node, str]:
    """Read and parse a rule file; returns the node tree and the source text."""
    text = decode(read_bytes(path), path)
    return load_yaml(text, path), text


def _not_utf8(path: str, data: bytes, position: int) -> Diagnostic:
    """RE008 at the first byte that is not UTF-8, so an editor can jump to it."""
    before = data[:position]
    line = before.count(b"\n") + 1
    column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
    return Diagnostic(
        "RE008",
        f"the file is not UTF-8 text (byte 0x{data[position]:02x} here is not valid UTF-8)",
        Span.point(path, line, column),
        hint="save the file as UTF-8; Latin-1 and Windows-1252 editors write accented letters as single bytes",
    )
