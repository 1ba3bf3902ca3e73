"""The language server counts columns in the position encoding agreed with the client: a
client that offers UTF-8 first (Neovim, Helix) gets UTF-8 offsets, one that offers only UTF-32
gets characters, and one that offers nothing gets UTF-16. Every feature is checked on lines
where the three differ (é is 2 UTF-8 bytes, ♠ 3, 🂡 4 bytes and 2 UTF-16 units), with
`rulesengine lsp` in a process of its own and a real LSP client over stdio."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

from tests.conftest import child_environment  # noqa: E402
from tests.test_lsp import diagnostics_of, open_document  # noqa: E402

module_loop = pytest.mark.asyncio(loop_scope="module")
CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}

GAME = """\
rulesengine: 1
name: "Écarté ♠"
players: {min: 2, max: 4}
options: {title: {default: "é♠🂡"}, rounds: {default: 2}}
decks:
  d: {suits: [hearts], ranks: ["1"], zone: pile}
zones:
  pile: {visibility: all}
  hand: {per: player, visibility: owner}
moves:
  lay:
    label: "é♠🂡 lays"
    effects:
      - move top(pile) to hand[me]
    legal: "title != 'é♠🂡' and round < rounds or size(pyle) > 0"
phases:
  play: {moves: [lay]}
match: {until: round == rounds}
"""


@pytest_lsp.fixture(
    scope="module",
    params=list(CODECS),
    config=pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "rulesengine.cli", "lsp"],
        server_env=child_environment(),
    ),
)
async def client(lsp_client: pytest_lsp.LanguageClient, request):
    capabilities = pytest_lsp.client_capabilities("neovim")
    capabilities.general = types.GeneralClientCapabilities(position_encodings=[request.param])
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities))
    lsp_client.encoding = request.param
    lsp_client.announced = result.capabilities.position_encoding
    yield
    await lsp_client.shutdown_session()


def position(client, text: str, needle: str, offset: int = 0) -> types.Position:
    """Where `needle` (and `offset` characters into it) is in `text`, in the client's units."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    line_text = text.split("\n")[line]
    column = index - (text.rfind("\n", 0, index) + 1)
    codec, width = CODECS[client.encoding]
    return types.Position(line=line, character=len(line_text[:column].encode(codec)) // width)


def shown(client, text: str, where: types.Range) -> str:
    """The text an editor highlights for a range of one line, counting in its units."""
    assert where.start.line == where.end.line
    codec, width = CODECS[client.encoding]
    data = text.split("\n")[where.start.line].encode(codec)
    return data[where.start.character * width : where.end.character * width].decode(codec)


@module_loop
async def test_the_offered_encoding_is_announced_and_diagnostics_are_placed_in_it(client, tmp_path_factory):
    assert client.announced == client.encoding
    path = tmp_path_factory.mktemp("encodings") / "game.yaml"
    path.write_text(GAME, encoding="utf-8")
    uri = open_document(client, path)
    found = await diagnostics_of(client, uri)
    assert [(d.code, shown(client, GAME, d.range)) for d in found] == [("RE310", "pyle")]
    assert found[0].range.start == position(client, GAME, "pyle")


@module_loop
async def test_hover_and_definition_point_where_the_client_counts(client, tmp_path_factory):
    path = tmp_path_factory.mktemp("encodings") / "game.yaml"
    uri = open_document(client, path, GAME.replace("size(pyle)", "size(pile)"))
    assert await diagnostics_of(client, uri) == []
    document = types.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=document, position=position(client, GAME, "size(pyle)"))
    )
    assert hover is not None and "size(zone) -> int" in hover.contents.value
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=document, position=position(client, GAME, "rounds or size", 5))
    )
    assert hover is not None and "option `rounds`" in hover.contents.value
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=document, position=position(client, GAME, "rounds or size", 2))
    )
    assert isinstance(found, types.Location) and found.uri == uri
    assert found.range.start == position(client, GAME, "rounds: {default")
    assert shown(client, GAME, found.range) == "rounds"


@module_loop
async def test_completion_reads_the_place_in_the_clients_units(client, tmp_path_factory):
    path = tmp_path_factory.mktemp("encodings") / "game.yaml"
    text = GAME.replace("or size(pyle) > 0", "or top(pile). ")  # half written: a macro is next
    uri = open_document(client, path, text)
    await diagnostics_of(client, uri)
    document = types.TextDocumentIdentifier(uri=uri)
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=document, position=position(client, text, "top(pile). ", 10))
    )
    labels = {item.label for item in result.items}
    assert {"all", "any", "filter", "bind"} <= labels and "size" not in labels
    result = await client.text_document_completion_async(  # one character on, after the space
        types.CompletionParams(text_document=document, position=position(client, text, "top(pile). ", 11))
    )
    assert "size" in {item.label for item in result.items}


@module_loop
async def test_document_symbols_are_placed_in_the_clients_units(client, tmp_path_factory):
    path = tmp_path_factory.mktemp("encodings") / "game.yaml"
    uri = open_document(client, path, GAME)
    await diagnostics_of(client, uri)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    options = next(s for s in symbols if s.name == "options")
    rounds = next(c for c in options.children if c.name == "rounds")
    assert rounds.selection_range.start == position(client, GAME, "rounds: {default")
    assert shown(client, GAME, rounds.selection_range) == "rounds"
    assert shown(client, GAME, rounds.range) == "rounds: {default: 2}"
