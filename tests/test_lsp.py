"""The language server end to end: `rulesengine lsp` in a process of its own, driven over stdio
by a real LSP client (pytest-lsp). Needs the `lsp` extra; skipped only where pygls or
pytest-lsp is not installed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

from rulesengine.api import validate_file  # noqa: E402
from rulesengine.lsp import reference  # noqa: E402
from tests.conftest import child_environment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(
    scope="module",
    config=pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "rulesengine.cli", "lsp"],
        server_env=child_environment(),
    ),
)
async def client(lsp_client: pytest_lsp.LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=ROOT.as_uri()
        )
    )
    yield
    await lsp_client.shutdown_session()


def open_document(client, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="yaml",
                version=version,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


def change(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics_of(client, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for `uri`; a server that publishes none fails the test
    (after a generous wait for a loaded machine) rather than hanging the suite."""

    async def published() -> list[types.Diagnostic]:
        while True:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if uri in client.diagnostics:
                return list(client.diagnostics.pop(uri))

    return await asyncio.wait_for(published(), timeout=120)


def place(text: str, needle: str, offset: int = 0) -> types.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


@module_loop
async def test_diagnostics_as_you_type_match_validate(client, tmp_path_factory):
    folder = tmp_path_factory.mktemp("typing")
    path = folder / "game.yaml"
    good = (RULESETS / "pan.yaml").read_text(encoding="utf-8")
    broken = good.replace("size(pile) > 1", "size(piel) > 1").replace("visibility: all}", "visibility: al}", 1)
    path.write_text(broken, encoding="utf-8")
    uri = open_document(client, path)
    shown = await diagnostics_of(client, uri)
    expected = validate_file(path)[1]
    assert len(expected) >= 2
    assert [(d.code, d.range.start.line + 1, d.range.start.character + 1) for d in shown] == [
        (d.code, d.span.line, d.span.column) for d in expected
    ]
    assert "did you mean 'pile'?" in " ".join(d.message for d in shown)
    change(client, uri, good, 2)  # fixed in the editor, not on disk
    assert await diagnostics_of(client, uri) == []
    typo = good.replace("[single, triple, four, pick_up]", "[single, tripel, four, pick_up]")
    change(client, uri, typo, 3)
    shown = await diagnostics_of(client, uri)
    assert shown[0].code == "RE221" and shown[0].severity == types.DiagnosticSeverity.Error
    assert {d.code for d in shown[1:]} <= {"RE227"}  # the warning that 'triple' is now in no phase
    line = typo.split("\n")[shown[0].range.start.line]
    assert line[shown[0].range.start.character : shown[0].range.end.character] == "tripel"
    change(client, uri, "rulesengine: 1\nname: [unclosed\n", 4)  # marked: a rule file, its syntax error shown
    assert [d.code for d in await diagnostics_of(client, uri)] == ["RE001"]


@module_loop
async def test_scenario_test_files_get_their_diagnostics(client, tmp_path_factory):
    folder = tmp_path_factory.mktemp("scenarios")
    path = folder / "pan.tests.yaml"
    text = (
        "ruleset: pan\ntests:\n  - name: x\n    position:\n      phase: play\n"
        "      zones: {pile: [9♥, 9♥]}\n    expect: {current: P1}\n"
    )
    path.write_text(text, encoding="utf-8")
    uri = open_document(client, path)
    shown = await diagnostics_of(client, uri)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in shown] == [("RE510", 5, 25)]


@module_loop
async def test_other_tools_yaml_files_get_no_diagnostics(client, tmp_path_factory):
    # validate skips them in a folder and the schema does not call them rule files
    folder = tmp_path_factory.mktemp("other")
    others = {
        ".yamllint.yml": "extends: default\nrules:\n  line-length: disable\n",
        ".eslintrc.yml": "extends:\n  - eslint:recommended\n",
    }
    for name, text in others.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        assert await diagnostics_of(client, open_document(client, path)) == [], name
    marked = folder / "house.yaml"
    marked.write_text("rulesengine: 1\nextends: default\nname: House\n", encoding="utf-8")
    shown = await diagnostics_of(client, open_document(client, marked))
    assert [(d.code, d.range.start.line, d.range.start.character) for d in shown] == [("RE012", 1, 9)]
    tests = folder / "house.tests.yaml"
    tests.write_text("extends: default\n", encoding="utf-8")  # named as scenario tests: read as them
    shown = await diagnostics_of(client, open_document(client, tests))
    assert shown and [d.code for d in shown] == [d.code for d in validate_file(tests)[1]]


@module_loop
async def test_completion_of_keys_names_and_functions(client):
    path = RULESETS / "pan.yaml"
    text = path.read_text(encoding="utf-8")
    uri = open_document(client, path)
    await diagnostics_of(client, uri)
    top = text.index("\nzones:") + 1
    edited = text[:top] + "\n" + text[top:]  # an empty line at the top level
    change(client, uri, edited, 2)
    await diagnostics_of(client, uri)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=place(edited, "\n\nzones:", 1)
        )
    )
    labels = {item.label for item in result.items}
    assert {"zones", "moves", "triggers", "extends"} <= labels and "pile" not in labels
    # keys of one variable
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=place(edited, "    description: one player", 4),
        )
    )
    labels = {item.label for item in result.items}
    assert labels == {"type", "per", "default", "description"}
    # names and functions inside an expression
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=place(edited, "size(pile) > 1", 5)
        )
    )
    items = {item.label: item for item in result.items}
    assert {"pile", "hand", "letters", "top_rank", "word", "single", "play", "size", "holder", "players"} <= set(items)
    assert items["size"].detail == "size(zone) -> int; size(list) -> int"
    assert items["top"].detail == (
        "top(zone) -> card; top(zone, int) -> list of card; top(list of card) -> card; "
        "top(list of card, int) -> list of card"
    )
    assert items["pile"].kind == types.CompletionItemKind.Field and "seen by all" in items["pile"].detail
    # list macros after a dot
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=place(edited, "all(c, c.rank == top_rank)", 0)
        )
    )
    assert {"all", "any", "filter", "bind"} <= {item.label for item in result.items}


@module_loop
async def test_hover_shows_types_declarations_and_documentation(client):
    path = RULESETS / "pan.yaml"
    text = path.read_text(encoding="utf-8")
    uri = open_document(client, path)
    await diagnostics_of(client, uri)

    async def hover_at(needle: str, offset: int = 0) -> str:
        result = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=place(text, needle, offset))
        )
        assert result is not None, needle
        return result.contents.value

    shown = await hover_at("card.rank >= top_rank", 15)
    assert "definition top_rank: top(pile).rank" in shown and "pan.yaml:" in shown
    assert "variable: int per player" in await hover_at("letters[p] >= len(word)")
    assert "len(str) -> int" in await hover_at("len(word)")
    shown = await hover_at("holder(nine_of_hearts)")
    assert "holder(card) -> player" in shown and reference.FUNCTION_DOCS["holder"] in shown
    assert "option, default PAN\n" in await hover_at("len(word)", 4)
    assert "players: list of player" in await hover_at("players.any(p, letters")


@module_loop
async def test_go_to_definition_across_extends_and_include(client):
    path = RULESETS / "padan-original.yaml"
    text = path.read_text(encoding="utf-8")
    uri = open_document(client, path)
    await diagnostics_of(client, uri)

    async def definition_of(needle: str, offset: int = 0) -> types.Location:
        result = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=place(text, needle, offset)
            )
        )
        assert isinstance(result, types.Location), needle
        return result

    here = await definition_of("packets_on_table == 2")
    assert here.uri == uri and here.range.start == place(text, "packets_on_table: players")
    block = await definition_of("move packets[side, packet] to hand[me]", 34)  # `hand`, from the trick block
    tricks = RULESETS / "blocks" / "tricks.yaml"
    assert block.uri == tricks.resolve().as_uri()
    assert block.range.start == place(tricks.read_text(encoding="utf-8"), "hand: {per: player")
    base = await definition_of("packets_left(p))")  # a definition of the revised file it extends
    padan = RULESETS / "padan.yaml"
    assert base.uri == padan.resolve().as_uri()
    assert base.range.start == place(padan.read_text(encoding="utf-8"), "packets_left(p): range")


@module_loop
async def test_document_symbols_outline_the_file(client):
    path = RULESETS / "pan.yaml"
    uri = open_document(client, path)
    await diagnostics_of(client, uri)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    sections = {s.name: s for s in symbols}
    assert {"options", "decks", "zones", "variables", "define", "round", "phases", "moves", "triggers"} <= set(sections)
    moves = sections["moves"]
    assert [c.name for c in moves.children] == ["open", "open_with_nines", "single", "triple", "four", "pick_up"]
    assert all(c.kind == types.SymbolKind.Method for c in moves.children)
    assert [c.name for c in sections["define"].children] == ["nine_of_hearts", "top_rank", "lays_spade"]
    single = next(c for c in moves.children if c.name == "single")
    text = path.read_text(encoding="utf-8")
    assert single.selection_range.start == place(text, "  single:", 2)


def test_every_function_macro_and_builtin_is_documented():
    assert set(reference.FUNCTIONS) <= set(reference.FUNCTION_DOCS)
    assert set(reference.MACROS) <= set(reference.MACRO_DOCS)
    assert set(reference.BUILTINS) <= set(reference.BUILTIN_DOCS)
    assert reference.FUNCTIONS and reference.MACROS and reference.BUILTINS and reference.SECTION_KEYS
