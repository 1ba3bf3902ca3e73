"""Parse expression and effect strings of a rule file into syntax trees (lark, LALR).

Each string comes from a YAML scalar; positions reported by lark are offsets into the
string and are mapped back through the scalar to the file's line and column.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

import attrs
import lark
from lark import Lark, Token, Tree

from . import syntax
from .diagnostics import Diagnostic, Span
from .limits import MAX_EXPRESSION_LENGTH, MAX_INTEGER, MAX_NESTING, MAX_STATEMENT_DEPTH
from .resources import grammar_cache_file, grammar_text
from .source import Map, Node, Scalar, Seq

_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t"}


def _visible(text: str) -> str:
    """A text with its control characters written as escapes, to quote it in a message."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}" for c in text)


_TOKEN_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "COMPARE": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '//' or '%'",
    "ASSIGN_OP": "'=', '+=' or '-='",
    "TOP_BOTTOM": "'top' or 'bottom'",
    "END_WHAT": "'round', 'phase' or 'game'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "DOT": "'.'",
    "COLON": "':'",
    "MINUS": "'-'",
    "$END": "the end of the text",
}


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    parser = _lark()
    _position_by_ends(parser)
    return parser


def _lark() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        start=["start_expr", "start_statement", "start_loop", "start_signature"],
        propagate_positions=True,
        maybe_placeholders=False,
        cache=grammar_cache_file(),
    )


def _position_by_ends(parser: Lark) -> None:
    """Give each tree the two positions the conversion reads, and only those.

    With `propagate_positions`, lark sets twelve attributes of a tree's `meta` at every
    reduction (lines, columns and offsets, of the tree and of its container: the text with
    the tokens left out of the tree); reading the conversion's two, `start_pos` and
    `end_pos`, was a quarter of parsing. Each rule's builder is wrapped instead by one that
    sets those two and their container's as lark does (from the first and the last child
    with a position), in lark's order of wrapping (its own builder still shapes the tree).
    A parser not laid out as this lark version lays it out is left as it is.
    """
    from lark.parse_tree_builder import PropagatePositions

    callbacks: dict[Any, Any] = getattr(parser, "_callbacks", None) or {}
    lalr = getattr(getattr(getattr(parser, "parser", None), "parser", None), "parser", None)
    if not isinstance(callbacks, dict) or not callbacks or getattr(lalr, "callbacks", None) is not callbacks:
        return  # not the callbacks the parser calls

    def plain(callback: Any) -> bool:  # lark's position wrapper around a builder, with no filter
        builder, no_filter = getattr(callback, "node_builder", None), getattr(callback, "node_filter", callback) is None
        return type(callback) is PropagatePositions and callable(builder) and no_filter

    if not all(map(plain, callbacks.values())):
        return
    probe: Tree = Tree("probe", [])  # the fields `_by_ends` reads and writes, as this lark version has them
    if getattr(probe, "_meta", False) is not None or getattr(probe.meta, "empty", None) is not True:
        return
    for rule, callback in callbacks.items():
        callbacks[rule] = _by_ends(callback.node_builder)


def _by_ends(node_builder: Callable[[list], object]) -> Callable[[list], object]:
    def build(children: list) -> object:
        made = node_builder(children)
        if isinstance(made, Tree):
            start = _edge(children, "container_start_pos", "start_pos")
            if start is None:  # no token at all: no position, as lark leaves it
                return made
            end = _edge(reversed(children), "container_end_pos", "end_pos")
            meta: Any = made.meta
            if meta.empty:  # a tree of its own; a tree passed up from one child keeps its own
                meta.start_pos, meta.end_pos, meta.empty = start, end, False
            meta.container_start_pos, meta.container_end_pos = start, end
        return made

    return build


def _edge(children: Iterable[object], of_tree: str, of_token: str) -> Any:
    """The position `of_tree` of the container of the first tree with a position, or
    `of_token` of the first token, whichever comes first among `children`; None if neither."""
    for child in children:
        if isinstance(child, Tree):
            inner = child._meta  # lark's Meta; None or empty for a tree without a position
            if inner is not None and not inner.empty:
                return getattr(inner, of_tree)
        elif isinstance(child, Token):
            return getattr(child, of_token)
    return None


def _describe_expected(expected: set[str]) -> str:
    names = sorted({_TOKEN_NAMES.get(e, f"'{e.lower()}'") for e in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


class ParseFailed(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


class _ToAst:
    """Turns lark trees into `ast` nodes with file spans."""

    def __init__(self, scalar: Scalar, base: int = 0):
        self.scalar = scalar
        self.base = base  # offset of the parsed text inside the scalar's text

    def span_of(self, item: Tree | Token) -> Span:
        if isinstance(item, Token):
            start, end = item.start_pos, item.end_pos
            assert start is not None and end is not None  # the lexer gives every token its position
        else:
            meta = item.meta  # a property: read once
            start, end = meta.start_pos, meta.end_pos
        return self.scalar.locate(self.base + start, end - start)

    def expr(self, tree: Tree | Token, depth: int = 0) -> syntax.Expr:
        if depth > MAX_NESTING:
            raise ParseFailed(
                Diagnostic("RE105", f"expression nested deeper than {MAX_NESTING} levels", self.span_of(tree))
            )
        span = self.span_of(tree)
        assert isinstance(tree, Tree)  # the grammar names every expression: tokens are only its leaves
        kind = tree.data
        kids = tree.children
        sub = functools.partial(self.expr, depth=depth + 1)
        if kind == "int_literal":
            return syntax.IntLit(span, self.integer(kids[0]))
        if kind == "string_literal":
            return syntax.StrLit(span, self.string(kids[0])[0])
        if kind == "true":
            return syntax.BoolLit(span, True)
        if kind == "false":
            return syntax.BoolLit(span, False)
        if kind == "name":
            return syntax.Name(span, str(kids[0]))
        if kind == "list_literal":
            return syntax.ListLit(span, tuple(sub(k) for k in kids))
        if kind == "attribute":
            return syntax.Attribute(span, sub(kids[0]), str(kids[1]), self.span_of(kids[1]))
        if kind == "method":
            return syntax.Method(
                span, sub(kids[0]), str(kids[1]), self.span_of(kids[1]), tuple(sub(k) for k in kids[2:])
            )
        if kind == "index":
            return syntax.Index(span, sub(kids[0]), tuple(sub(k) for k in kids[1:]))
        if kind == "call":
            return syntax.Call(span, str(kids[0]), self.span_of(kids[0]), tuple(sub(k) for k in kids[1:]))
        if kind == "negate":
            return syntax.Unary(span, "-", sub(kids[0]))
        if kind == "not_":
            return syntax.Unary(span, "not", sub(kids[0]))
        if kind == "binary":
            return syntax.Binary(span, str(kids[1]), sub(kids[0]), sub(kids[2]))
        if kind == "compare":
            return syntax.Binary(span, str(kids[1]), sub(kids[0]), sub(kids[2]))
        if kind == "member":
            return syntax.Binary(span, "in", sub(kids[0]), sub(kids[1]))
        if kind == "not_member":
            return syntax.Unary(span, "not", syntax.Binary(span, "in", sub(kids[0]), sub(kids[1])))
        if kind == "and_":
            return syntax.Binary(span, "and", sub(kids[0]), sub(kids[1]))
        if kind == "or_":
            return syntax.Binary(span, "or", sub(kids[0]), sub(kids[1]))
        if kind == "conditional":
            return syntax.Conditional(span, sub(kids[1]), sub(kids[0]), sub(kids[2]))
        raise AssertionError(f"unhandled expression node {kind}")

    def statement(self, tree: Tree) -> syntax.Stmt:
        span = self.span_of(tree)
        kind = tree.data
        kids = tree.children
        if kind == "move":
            at_bottom = len(kids) > 2 and str(kids[2].children[0]) == "bottom"
            return syntax.Move(span, self.expr(kids[0]), self.expr(kids[1]), at_bottom)
        if kind == "move_random":
            at_bottom = len(kids) > 2 and str(kids[2].children[0]) == "bottom"
            picked = syntax.RandomPick(self.span_of(kids[0]), self.expr(kids[0]))
            return syntax.Move(span, picked, self.expr(kids[1]), at_bottom)
        if kind == "assign_random":
            target = kids[0]
            name = target.children[0]
            indices = tuple(self.expr(k) for k in target.children[1:])
            picked = syntax.RandomPick(self.span_of(kids[2]), self.expr(kids[2]))
            return syntax.Assign(span, str(name), self.span_of(name), indices, str(kids[1]), picked)
        if kind == "call_procedure":
            args = tuple(self.expr(k) for k in kids[1:])
            return syntax.CallProcedure(span, str(kids[0]), self.span_of(kids[0]), args)
        if kind == "deal":
            amount = kids[0]
            count = self.expr(amount.children[0]) if amount.data == "deal_each" else None
            return syntax.Deal(span, count, self.expr(kids[1]), str(kids[2]), self.span_of(kids[2]), self.expr(kids[3]))
        if kind == "shuffle":
            return syntax.Shuffle(span, self.expr(kids[0]))
        if kind == "reveal":
            return syntax.Reveal(span, self.expr(kids[0]), self.expr(kids[1]))
        if kind == "assign":
            target = kids[0]
            name = target.children[0]
            indices = tuple(self.expr(k) for k in target.children[1:])
            return syntax.Assign(span, str(name), self.span_of(name), indices, str(kids[1]), self.expr(kids[2]))
        if kind == "turn_to":
            return syntax.TurnTo(span, self.expr(kids[0]))
        if kind == "reverse":
            return syntax.Reverse(span)
        if kind == "out":
            return syntax.Out(span, self.expr(kids[0]))
        if kind == "end":
            return syntax.End(span, str(kids[0]))
        if kind == "goto":
            return syntax.Goto(span, str(kids[0]))
        if kind == "log":
            token = kids[0]
            text, offsets = self.string(token)
            start = token.start_pos if isinstance(token, Token) and token.start_pos else 0
            return syntax.Log(span, self.template(text, [start + o for o in offsets]))
        raise AssertionError(f"unhandled statement node {kind}")

    def integer(self, token: Tree | Token) -> int:
        """An integer literal, refused (RE107) past MAX_INTEGER before Python converts a long one."""
        assert isinstance(token, Token)
        digits = str(token).lstrip("0") or "0"
        if len(digits) > len(str(MAX_INTEGER)) or int(digits) > MAX_INTEGER:
            raise ParseFailed(
                Diagnostic(
                    "RE107",
                    f"integer is larger than {MAX_INTEGER} (the largest a rule file may hold)",
                    self.span_of(token),
                )
            )
        return int(digits)

    def string(self, token: Tree | Token) -> tuple[str, list[int]]:
        """A text literal's value and, for each of its characters, its offset in the token.

        The escapes are the language's own (see docs/language.md): anything else, and a raw
        carriage return, NUL or other control character, is a diagnostic (RE108, RE109).
        """
        assert isinstance(token, Token)
        start = token.start_pos or 0
        raw = str(token)
        chars: list[str] = []
        offsets: list[int] = []
        position, end = 1, len(raw) - 1  # inside the quotes
        while position < end:
            char = raw[position]
            if char == "\\":
                value, length = self._escape(start, raw, position)
                chars.append(value)
            elif char < " " and char != "\t" or char == "\x7f" or "\ud800" <= char <= "\udfff":
                raise ParseFailed(
                    Diagnostic(
                        "RE109",
                        f"a text literal holds the character {_visible(char)}, which may not appear in it",
                        self.scalar.locate(self.base + start + position),
                        hint="write a line break as \\n and a tab as \\t; other control characters and lone "
                        "surrogates are not allowed",
                    )
                )
            else:
                value, length = char, 1
                chars.append(char)
            offsets.append(position)
            position += length
        offsets.append(end)
        return "".join(chars), offsets

    def _escape(self, start: int, raw: str, position: int) -> tuple[str, int]:
        following = raw[position + 1] if position + 1 < len(raw) - 1 else ""
        simple = _SIMPLE_ESCAPES.get(following)
        if simple is not None:
            return simple, 2
        width = {"u": 4, "U": 8}.get(following, 0)
        digits = raw[position + 2 : position + 2 + width]
        if width and len(digits) == width and all(d in "0123456789abcdefABCDEF" for d in digits):
            code = int(digits, 16)
            if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF and code >= 0x20:
                return chr(code), 2 + width
        shown = raw[position : position + 2 + width] if width else raw[position : position + 2]
        raise ParseFailed(
            Diagnostic(
                "RE108",
                f"unknown escape '{_visible(shown)}' in a text literal",
                self.scalar.locate(self.base + start + position, len(shown)),
                hint="a text literal knows \\\\, \\\", \\', \\n, \\t, \\uXXXX and \\UXXXXXXXX (a character by its "
                "hexadecimal code, not a surrogate or a control character)",
            )
        )

    def template(self, text: str, offsets: int | list[int]) -> tuple[str | syntax.Expr, ...]:
        """Split 'text {expr} text' into literal parts and parsed expressions.

        `offsets` is where the text starts in the scalar, or each character's place there (a
        decoded literal), so that an expression after an escape is still reported at its
        true column.
        """
        if isinstance(offsets, int):
            offsets = list(range(offsets, offsets + len(text) + 1))
        parts: list[str | syntax.Expr] = []
        position = 0
        for match in re.finditer(r"\{([^{}]*)\}", text):
            if match.start() > position:
                parts.append(text[position : match.start()])
            inner_offset = self.base + offsets[match.start(1)]
            parts.append(_parse_with(self.scalar, match.group(1), "start_expr", inner_offset))
            position = match.end()
        if position < len(text):
            parts.append(text[position:])
        return tuple(parts)


def _parse_with(scalar: Scalar, text: str, start: str, base: int = 0) -> syntax.Expr:
    expr = _converted(scalar, text, start, base)
    assert isinstance(expr, syntax.Expr)  # every start but a statement's reads an expression
    return expr


# Syntax made, by where its text is written and how: a YAML alias repeats its scalar at every
# use (the same text at the same place), and one file can use one thousands of times, so each
# is turned into syntax once, or found wrong once (its diagnostic, at the same place, is kept).
# Syntax trees are immutable; the cache is emptied when full.
_CONVERTED: dict[tuple[Span, str | None, str, str, int], syntax.Expr | syntax.Stmt | Diagnostic] = {}
_MAX_CONVERTED = 4096


def _converted(scalar: Scalar, text: str, start: str, base: int = 0) -> syntax.Expr | syntax.Stmt:
    """The syntax of `text` (`scalar`'s, or the part of it from `base`) read from `start`."""
    key = (scalar.span, scalar.style, text, start, base)
    found = _CONVERTED.get(key)
    if found is None:
        try:
            first = _parse_tree(scalar, text, start, base).children[0]
            convert = _ToAst(scalar, base)
            found = convert.statement(first) if start == "start_statement" else convert.expr(first)
        except ParseFailed as failure:
            found = failure.diagnostic
        if len(_CONVERTED) >= _MAX_CONVERTED:
            _CONVERTED.clear()
        _CONVERTED[key] = found
    if isinstance(found, Diagnostic):
        raise ParseFailed(found)
    return found


def _parse_tree(scalar: Scalar, text: str, start: str, base: int = 0) -> Tree:
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ParseFailed(
            Diagnostic("RE106", f"text longer than {MAX_EXPRESSION_LENGTH} characters", scalar.locate(base))
        )
    try:
        return _parsed(text, start)
    except lark.UnexpectedToken as exc:
        token = exc.token
        if token.type == "$END":
            span = scalar.locate(base + len(text.rstrip()), 1)
            message = f"the text ends too early; expected {_describe_expected(exc.expected)}"
        else:
            assert token.start_pos is not None  # a token the lexer made has its position
            span = scalar.locate(base + token.start_pos, len(token))
            message = f"unexpected '{token}'; expected {_describe_expected(exc.expected)}"
        raise ParseFailed(Diagnostic("RE101", message, span)) from None
    except lark.UnexpectedCharacters as exc:
        position = exc.pos_in_stream
        assert position is not None  # the lexer says where it stopped
        span = scalar.locate(base + position, 1)
        allowed = _describe_expected(exc.allowed) if exc.allowed else "something else"
        message = f"unexpected character '{text[position]}'; expected {allowed}"
        raise ParseFailed(Diagnostic("RE102", message, span)) from None
    except lark.UnexpectedEOF as exc:
        span = scalar.locate(base + len(text), 1)
        raise ParseFailed(
            Diagnostic("RE101", f"the text ends too early; expected {_describe_expected(set(exc.expected))}", span)
        ) from None


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, start: str) -> Tree:
    # A variant repeats its base's texts and many files share a block's: each distinct text
    # is parsed once. Trees are only read (positions in them are offsets into `text`);
    # a text that fails is not kept, its error is raised again with the caller's position.
    return _parser().parse(text, start=start)


def _text_of(scalar: Scalar, what: str) -> str:
    value = scalar.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    found = "null (nothing)" if value is None else "a decimal number" if isinstance(value, float) else "a value"
    raise ParseFailed(Diagnostic("RE103", f"expected {what}, found {found}", scalar.span))


def parse_expression(node: Node) -> syntax.Expr:
    """Parse a scalar holding an expression (a YAML number or boolean is one too)."""
    if not isinstance(node, Scalar):
        raise ParseFailed(Diagnostic("RE103", "expected an expression (a text), found a mapping or list", node.span))
    return _parse_with(node, _text_of(node, "an expression"), "start_expr")


def parse_loop(node: Node) -> tuple[str, Span, syntax.Expr]:
    """Parse 'name in collection'."""
    if not isinstance(node, Scalar):
        raise ParseFailed(Diagnostic("RE103", "expected 'name in collection'", node.span))
    tree = _parse_tree(node, _text_of(node, "'name in collection'"), "start_loop")
    convert = _ToAst(node)
    name = tree.children[0]
    return str(name), convert.span_of(name), convert.expr(tree.children[1])


def parse_signature(node: Scalar) -> tuple[str, tuple[str, ...]]:
    """Parse a definition's head: 'name(param, param)' or a bare name."""
    name, params = parse_head(node)
    return name, tuple(param for param, _ in params)


def parse_head(node: Scalar) -> tuple[str, tuple[tuple[str, Span], ...]]:
    """A definition's name and its parameters, each with where it is written."""
    text = _text_of(node, "a definition name")
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text.strip()):
        return text.strip(), ()
    tree = _parse_tree(node, text, "start_signature")
    tokens = [t for t in tree.children if isinstance(t, Token)]
    where = _ToAst(node).span_of
    return str(tokens[0]), tuple((str(t), where(t)) for t in tokens[1:])


def parse_statements(node: Node, depth: int = 0) -> tuple[list[syntax.Stmt], list[Diagnostic]]:
    """Parse an effect list: a string, or a list of strings and if/for mappings.

    Returns what could be parsed and the diagnostics of what could not.
    """
    statements: list[syntax.Stmt] = []
    problems: list[Diagnostic] = []
    if depth > MAX_STATEMENT_DEPTH:
        return statements, [Diagnostic("RE105", f"effects nested deeper than {MAX_STATEMENT_DEPTH} levels", node.span)]
    items = node.items if isinstance(node, Seq) else (node,)
    for item in items:
        try:
            if isinstance(item, Scalar):
                parsed = _converted(item, _text_of(item, "an effect"), "start_statement")
                assert isinstance(parsed, syntax.Stmt)
                statements.append(parsed)
            elif isinstance(item, Map):
                statement, inner = _parse_block(item, depth)
                problems.extend(inner)
                if statement is not None:
                    statements.append(statement)
            else:
                problems.append(Diagnostic("RE103", "expected an effect or an if/for mapping, found a list", item.span))
        except ParseFailed as failure:
            problems.append(_flow_list_hint(failure.diagnostic, node, item))
    return statements, problems


_FLOW_HINT = (
    "this list is written as [a, b], where ',' and brackets split items: quote each effect "
    "(\"move top(pile, 2) to hand[me]\") or write one '- effect' per line"
)


def _flow_list_hint(diagnostic: Diagnostic, node: Node, item: Node) -> Diagnostic:
    """Explain a parse error of an unquoted item of a [a, b] list: YAML may have split it."""
    if diagnostic.hint or not (isinstance(node, Seq) and node.flow and isinstance(item, Scalar) and item.style is None):
        return diagnostic
    return attrs.evolve(diagnostic, hint=_FLOW_HINT)


def _looks_like_text(item: Map) -> bool:
    """A one-key mapping whose key has spaces or quotes was meant as one text holding ': '."""
    keys = list(item.entries)
    return len(keys) == 1 and any(mark in keys[0] for mark in (" ", '"', "'"))


def _parse_block(item: Map, depth: int) -> tuple[syntax.Stmt | None, list[Diagnostic]]:
    keys = set(item.entries)
    problems: list[Diagnostic] = []
    if "if" in keys:
        for extra in keys - {"if", "then", "else"}:
            problems.append(
                Diagnostic(
                    "RE201",
                    f"unknown key '{extra}' in an if-block",
                    item.key_spans[extra],
                    hint="an if-block has 'if', 'then' and optionally 'else'",
                )
            )
        condition = parse_expression(item.entries["if"])
        then: list[syntax.Stmt] = []
        otherwise: list[syntax.Stmt] = []
        if "then" not in item:
            problems.append(Diagnostic("RE202", "an if-block needs 'then'", item.key_spans["if"]))
        else:
            then, inner = parse_statements(item.entries["then"], depth + 1)
            problems.extend(inner)
        if "else" in item:
            otherwise, inner = parse_statements(item.entries["else"], depth + 1)
            problems.extend(inner)
        return syntax.If(item.span, condition, tuple(then), tuple(otherwise)), problems
    if "for" in keys:
        for extra in keys - {"for", "do"}:
            problems.append(
                Diagnostic(
                    "RE201",
                    f"unknown key '{extra}' in a for-block",
                    item.key_spans[extra],
                    hint="a for-block has 'for' and 'do'",
                )
            )
        name, name_span, collection = parse_loop(item.entries["for"])
        if "do" not in item:
            return None, problems + [Diagnostic("RE202", "a for-block needs 'do'", item.key_spans["for"])]
        body, inner = parse_statements(item.entries["do"], depth + 1)
        return syntax.For(item.span, name, name_span, collection, tuple(body)), problems + inner
    if "repeat" in keys:
        return _parse_repeat(item, depth)
    first = next(iter(item.key_spans.values()), item.span)
    hint = "write an effect as a text, e.g. 'move card to pile'"
    if _looks_like_text(item):
        hint = (
            "YAML read this text as 'key: value' because it contains ': '; quote the whole effect, "
            "e.g. - 'log \"score: {n}\"'"
        )
    expected = "expected an effect, or a mapping with 'if', 'for' or 'repeat'"
    return None, [Diagnostic("RE203", expected, first, hint=hint)]


def _parse_repeat(item: Map, depth: int) -> tuple[syntax.Stmt | None, list[Diagnostic]]:
    """`repeat: N`, `do: [...]`, optionally `until: COND` (checked after each pass)."""
    problems = [
        Diagnostic(
            "RE201",
            f"unknown key '{extra}' in a repeat-block",
            item.key_spans[extra],
            hint="a repeat-block has 'repeat', 'do' and optionally 'until'",
        )
        for extra in set(item.entries) - {"repeat", "do", "until"}
    ]
    count = parse_expression(item.entries["repeat"])
    until = parse_expression(item.entries["until"]) if "until" in item else None
    if "do" not in item:
        return None, problems + [Diagnostic("RE202", "a repeat-block needs 'do'", item.key_spans["repeat"])]
    body, inner = parse_statements(item.entries["do"], depth + 1)
    return syntax.Repeat(item.span, count, tuple(body), until), problems + inner
