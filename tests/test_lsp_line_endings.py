"""The language server places diagnostics on the lines an editor shows, whichever line
breaks the text uses: LSP counts '\\n', '\\r\\n' and '\\r' alike, as `validate` does."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from pygls.workspace.position_codec import PositionCodec  # noqa: E402

from rulesengine.api import validate_file  # noqa: E402
from rulesengine.lsp import analysis, server  # noqa: E402

BROKEN = Path(__file__).resolve().parent / "corpus" / "broken"
BREAKS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


def _published(text: str, path: Path) -> list[tuple[str, int, int]]:
    found = analysis.analyse(text, str(path)).diagnostics
    ranges = [(d.code, server.to_lsp(d, str(path), text, PositionCodec()).range) for d in found]
    return [(code, r.start.line, r.start.character) for code, r in ranges]


@pytest.mark.parametrize("name", ["expr_syntax_error", "unknown_section", "builtin_name_redefined"])
@pytest.mark.parametrize("breaks", BREAKS.values(), ids=BREAKS.keys())
def test_positions_are_those_of_validate_whatever_the_line_breaks(name: str, breaks: str):
    path = BROKEN / f"{name}.yaml"
    expected = [(d.code, d.span.line - 1, d.span.column - 1) for d in validate_file(path)[1]]
    text = path.read_text(encoding="utf-8").replace("\n", breaks)
    assert _published(text, path) == expected


def test_mixed_line_breaks_count_one_line_each():
    path = BROKEN / "expr_syntax_error.yaml"
    lines = path.read_text(encoding="utf-8").split("\n")
    text = "".join(line + ("\r", "\r\n", "\n")[number % 3] for number, line in enumerate(lines))
    expected = [(d.code, d.span.line - 1, d.span.column - 1) for d in validate_file(path)[1]]
    assert _published(text, path) == expected


def test_the_lines_a_request_points_into_are_split_alike():
    assert server.lines_of("a\rb\r\nc\nd") == ["a", "b", "c", "d"]
