"""The language server over stdio, built on pygls: diagnostics as you type, completion, hover,
go to definition and the outline of rule files and scenario test files.

LSP counts lines from 0 and columns in the code units of the position encoding agreed at
initialize (UTF-8, UTF-16 or UTF-32, as the client offers them); diagnostics count both from 1
and columns in characters. The conversions are here, against the text of the file concerned.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, unquote_to_bytes, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from .. import __version__
from ..diagnostics import ERROR, Diagnostic, RuleFileError, Span
from ..source import decode, normalise_line_breaks, read_bytes
from . import analysis
from .transport import BoundedInput, RulesProtocol, strict_converter, unreadable_body

SYMBOL_KINDS = {
    "section": types.SymbolKind.Namespace,
    "option": types.SymbolKind.Property,
    "deck": types.SymbolKind.Class,
    "zone": types.SymbolKind.Array,
    "variable": types.SymbolKind.Variable,
    "definition": types.SymbolKind.Function,
    "move": types.SymbolKind.Method,
    "phase": types.SymbolKind.Event,
    "trigger": types.SymbolKind.Event,
}
COMPLETION_KINDS = {
    "key": types.CompletionItemKind.Property,
    "option": types.CompletionItemKind.Constant,
    "deck": types.CompletionItemKind.Class,
    "zone": types.CompletionItemKind.Field,
    "variable": types.CompletionItemKind.Variable,
    "definition": types.CompletionItemKind.Function,
    "move": types.CompletionItemKind.Method,
    "phase": types.CompletionItemKind.Event,
    "trigger": types.CompletionItemKind.Event,
    "builtin": types.CompletionItemKind.Keyword,
    "function": types.CompletionItemKind.Function,
    "macro": types.CompletionItemKind.Method,
}


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulesengine", __version__, protocol_cls=RulesProtocol, converter_factory=strict_converter)
        # uri -> the names of the last version of the document that composed, kept while
        # the author's text is half written
        self.names: dict[str, dict[str, analysis.Declaration]] = {}
        self.shut_down = False
        self.exit_status: int | None = None  # set by the exit notification

    def report_server_error(self, error: Exception, source: Any) -> None:
        # What pygls's reading loop reports (as a JsonRpcException) is a body that json.loads
        # cannot read (RulesProtocol reads or refuses every message, and handles it without
        # raising): the client's mistake, answered as JSON-RPC says, not shown to the person
        # as an error of the server.
        problem = unreadable_body(error) if source is JsonRpcException else None
        if problem is not None:
            self.protocol.parse_error(problem)  # type: ignore[attr-defined]
        else:
            super().report_server_error(error, source)


server = RulesServer()


def path_of(uri: str) -> str:
    """The path a file URI names, as the operating system spells it (percent-escaped bytes
    that are not UTF-8 stay the bytes they are, as `validate` gets them from the shell); any
    other URI as it is."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    try:
        return os.fsdecode(unquote_to_bytes(parsed.path))
    except UnicodeEncodeError:  # a lone surrogate not escaped: it names no file (see on_disk)
        return uri


def in_file(uri: str) -> bool:
    """Whether the document is a file (its URI a `file:` one), not a buffer in no file such as
    an editor's `untitled:` one: only a file has a folder whose files it may name."""
    return urlparse(uri).scheme == "file"


def on_disk(path: str) -> bool:
    """Whether `path` can name a file, so that what the document names beside it (bases, a
    scenario file's ruleset) may be looked up: not with a NUL, or a lone surrogate that no
    file system name decodes to."""
    if "\0" in path:
        return False
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return False
    return True


def lines_of(text: str) -> list[str]:
    """The lines of a text as an LSP client counts them: '\n', '\r\n' and '\r' each end one."""
    return normalise_line_breaks(text).split("\n")


def _lines_of(path: str, own_path: str, own_text: str) -> list[str]:
    if same_file(path, own_path):
        return lines_of(own_text)
    try:  # as validate reads it: a regular file within the size limit, never blocking
        return decode(read_bytes(path), path).split("\n")
    except RuleFileError:
        return []


def units(codec: PositionCodec, line_text: str, column: int) -> int:
    """The offset, in the client's code units, of 0-based character `column` in a line."""
    # counted per character, never encoded: a lone surrogate (JSON can carry one) has no encoding
    return codec.client_num_units(line_text[:column])


def characters(codec: PositionCodec, line_text: str, offset: int) -> int:
    """The character index of `offset`, in the client's code units, in a line (an offset
    within a character stands for the character after it)."""
    if line_text.isascii():  # one unit a character in every encoding
        return min(max(offset, 0), len(line_text))
    count = 0
    for index, char in enumerate(line_text):
        if count >= offset:
            return index
        count += codec.client_num_units(char)
    return len(line_text)


def to_range(span: Span, lines: list[str], codec: PositionCodec) -> types.Range:
    def position(line: int, column: int) -> types.Position:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return types.Position(line=max(line - 1, 0), character=units(codec, text, max(column - 1, 0)))

    return types.Range(start=position(span.line, span.column), end=position(span.end_line, span.end_column))


def same_file(first: str, second: str) -> bool:
    # compared as written first: a path that can name no file cannot be resolved
    return first == second or Path(first).resolve() == Path(second).resolve()


def to_lsp(diagnostic: Diagnostic, path: str, text: str, codec: PositionCodec) -> types.Diagnostic:
    span = diagnostic.span
    message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    if not same_file(span.file, path):  # found in a file this one extends or includes
        message = f"{span.file}:{span.line}:{span.column}: {message}"
        span = Span.point(path, 1, 1)
    severity = types.DiagnosticSeverity.Error if diagnostic.severity == ERROR else types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=to_range(span, lines_of(text), codec),
        message=message,
        severity=severity,
        code=diagnostic.code,
        source="rulesengine",
    )


def open_document(ls: RulesServer, uri: str) -> TextDocument | None:
    """The document the client has open at `uri`, or None. Only open documents are served:
    pygls would read any other from disk (a pipe blocks the server, a folder raises, a
    stranger's file would be shown)."""
    return ls.workspace.text_documents.get(unquote(uri))  # keyed as pygls keys them


def analyse_open(document: TextDocument, uri: str) -> analysis.Analysis:
    """What there is to know about the open document at `uri`, as far as its URI lets the
    files beside it be read."""
    path = path_of(uri)
    return analysis.analyse(document.source, path, on_disk(path), in_file(uri))


def refresh(ls: RulesServer, uri: str) -> None:
    document = open_document(ls, uri)
    if document is None:
        return
    result = analyse_open(document, uri)
    path = result.path
    if result.declarations is not None:
        ls.names[uri] = result.declarations
    codec = ls.workspace.position_codec
    shown = [to_lsp(d, path, document.source, codec) for d in result.diagnostics]
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=shown, version=document.version)
    )


@server.feature(types.SHUTDOWN)
def shutdown(ls: RulesServer, params: None) -> None:
    ls.shut_down = True


@server.feature(types.EXIT)
def exit_(ls: RulesServer, params: None) -> None:
    # LSP: 0 after a shutdown request, 1 without one (pygls works it out, then drops it)
    ls.exit_status = 0 if ls.shut_down else 1


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: types.DidOpenTextDocumentParams) -> None:
    refresh(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulesServer, params: types.DidChangeTextDocumentParams) -> None:
    refresh(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulesServer, params: types.DidSaveTextDocumentParams) -> None:
    refresh(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.names.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _at(
    ls: RulesServer,
    params: types.CompletionParams | types.HoverParams | types.DefinitionParams,
) -> tuple[list[str], int, int] | None:
    """The lines of the document, and the line and character a request points at; None when
    the document is not open or has no such line."""
    document = open_document(ls, params.text_document.uri)
    if document is None:
        return None
    lines = lines_of(document.source)
    line = params.position.line
    if line >= len(lines):  # past the end: nothing is written there
        return None
    return lines, line, characters(ls.workspace.position_codec, lines[line], params.position.character)


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "(", " "]))
def completion(ls: RulesServer, params: types.CompletionParams) -> types.CompletionList:
    place = _at(ls, params)
    if place is None:
        return types.CompletionList(is_incomplete=False, items=[])
    lines, line, column = place
    uri = params.text_document.uri
    found = analysis.completions(lines, line, column, ls.names.get(uri), analysis.is_test_file(path_of(uri)))
    items = [
        types.CompletionItem(
            label=c.label,
            kind=COMPLETION_KINDS.get(c.kind, types.CompletionItemKind.Text),
            detail=c.detail,
            documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=c.documentation)
            if c.documentation
            else None,
        )
        for c in found
    ]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: RulesServer, params: types.HoverParams) -> types.Hover | None:
    place = _at(ls, params)
    if place is None:
        return None
    lines, line, column = place
    text = lines[line]
    shown = analysis.hover(text, column, ls.names.get(params.text_document.uri))
    if shown is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=shown))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulesServer, params: types.DefinitionParams) -> types.Location | None:
    place = _at(ls, params)
    if place is None:
        return None
    lines, line, column = place
    text = lines[line]
    span = analysis.definition(text, column, ls.names.get(params.text_document.uri))
    if span is None:
        return None
    own = path_of(params.text_document.uri)
    target_lines = _lines_of(span.file, own, "\n".join(lines))
    uri = params.text_document.uri if same_file(span.file, own) else Path(span.file).resolve().as_uri()
    return types.Location(uri=uri, range=to_range(span, target_lines, ls.workspace.position_codec))


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: RulesServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    document = open_document(ls, params.text_document.uri)
    if document is None:
        return []
    lines = lines_of(document.source)
    result = analyse_open(document, params.text_document.uri)
    codec = ls.workspace.position_codec

    def convert(symbol: analysis.Symbol) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=symbol.name,
            kind=SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Key),
            range=to_range(symbol.span, lines, codec),
            selection_range=to_range(symbol.selection, lines, codec),
            detail=None if symbol.kind == "section" else symbol.kind,
            children=[convert(child) for child in symbol.children],
        )

    return [convert(symbol) for symbol in result.symbols]


def serve() -> None:
    """Speak LSP over stdin and stdout until the client says exit."""
    # pygls only calls readline() and read(n) of its input
    server.start_io(BoundedInput(sys.stdin.buffer))  # type: ignore[arg-type]
    if server.exit_status:
        raise SystemExit(server.exit_status)
