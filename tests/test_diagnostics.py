"""Diagnostics that teach: a corpus of broken rule files, each stating what it must report.

Every file in tests/corpus/broken/ (and in tests/corpus/hostile/, files that attack the
loader) starts with one or more lines

    # expect: RE236 18:12              (code, line, column in this file)
    # expect: RE013 3:10 other.yaml    (a diagnostic located in another file)

and is otherwise a small valid game, so the file proves exactly the diagnostics it lists:
the test asserts that the reported diagnostics, warnings included, are exactly those.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest

from rulesengine.api import validate_file
from rulesengine.diagnostics import Diagnostic, Span, render_github, render_json, render_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "corpus" / "broken"
HOSTILE = CORPUS.parent / "hostile"  # files that attack the checker or the loader, run the same way
FILES = sorted(CORPUS.glob("*.yaml")) + sorted(HOSTILE.glob("*.yaml"))
EXPECT = re.compile(r"#\s*expect:\s*(RE\d{3})\s+(\d+):(\d+)(?:\s+(\S+))?\s*$")
CARET = re.compile(r"^\s*\^+$", re.M)


def expectations(path: Path) -> set[tuple[str, str, int, int]]:
    """The (file name, code, line, column) triples a corpus file announces at its top."""
    found = set()
    for line in path.read_bytes().decode("latin-1").splitlines():
        if not line.startswith("#"):
            break
        match = EXPECT.match(line)
        if match:
            code, row, column, other = match.groups()
            found.add((other or path.name, code, int(row), int(column)))
    return found


def reported(diagnostics: list[Diagnostic]) -> set[tuple[str, str, int, int]]:
    return {(Path(d.span.file).name, d.code, d.span.line, d.span.column) for d in diagnostics}


def source_lines(file: str) -> list[str]:
    return Path(file).read_bytes().decode("utf-8", "replace").splitlines()


def test_the_corpus_is_large_and_every_file_announces_its_diagnostics():
    assert len(FILES) >= 40
    for path in FILES:
        assert expectations(path), f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_a_broken_file_reports_exactly_what_it_announces(path: Path):
    ruleset, diagnostics = validate_file(path)
    assert reported(diagnostics) == expectations(path), render_text(diagnostics, {})
    if any(d.severity == "error" for d in diagnostics):
        assert ruleset is None


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_every_diagnostic_has_a_message_a_place_and_a_caret(path: Path):
    _, diagnostics = validate_file(path)
    rendered = render_text(diagnostics, {})
    for d in diagnostics:
        assert d.message.strip()
        assert re.fullmatch(r"RE\d{3}", d.code)
        lines = source_lines(d.span.file)
        span = d.span
        assert 1 <= span.line <= max(1, len(lines)), f"{d} is outside the file"
        text = lines[span.line - 1] if lines else ""
        assert 1 <= span.column <= len(text) + 1, f"{d} is outside its line"
        assert (span.end_line, span.end_column) > (span.line, span.column)
        assert f"{span.file}:{span.line}:{span.column}:" in rendered
    assert CARET.search(rendered), rendered


def test_machine_readable_formats_carry_every_diagnostic():
    _, diagnostics = validate_file(CORPUS / "deck_too_small.yaml")
    (entry,) = json.loads(render_json(diagnostics))
    assert (entry["code"], entry["line"], entry["column"], entry["severity"]) == ("RE236", 18, 12, "error")
    assert render_github(diagnostics).startswith("::error file=")


@pytest.mark.parametrize("workspace", ["GITHUB_WORKSPACE", "working folder"])
def test_github_annotations_name_files_relative_to_the_workspace(tmp_path, monkeypatch, workspace):
    # a base is named by its absolute path; GitHub places annotations only for relative ones
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "base.yaml").write_text((CORPUS / "deck_too_small.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (rules / "variant.yaml").write_text("extends: base.yaml\nname: v\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if workspace == "GITHUB_WORKSPACE":
        monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
        monkeypatch.chdir(elsewhere)
    else:
        monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
        monkeypatch.chdir(tmp_path)
    _, diagnostics = validate_file(rules / "variant.yaml")
    assert Path(diagnostics[0].span.file).is_absolute()
    files = {line.split("file=")[1].split(",")[0] for line in render_github(diagnostics).splitlines()}
    assert files == {"rules/base.yaml"}
    outside = Diagnostic("RE001", "x", Span.point("/somewhere/else.yaml", 1, 1))
    assert "file=/somewhere/else.yaml," in render_github([outside])


def test_github_annotations_name_files_relative_to_a_workspace_reached_through_a_link(tmp_path, monkeypatch):
    # the workspace named by a symbolic link (macOS's /var is one): the base is named by its resolved path
    real = tmp_path / "real"
    (real / "rules").mkdir(parents=True)
    (real / "rules" / "base.yaml").write_text(
        (CORPUS / "deck_too_small.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (real / "rules" / "variant.yaml").write_text("extends: base.yaml\nname: v\n", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(link))
    monkeypatch.chdir(link)
    _, diagnostics = validate_file("rules/variant.yaml")
    files = {line.split("file=")[1].split(",")[0] for line in render_github(diagnostics).splitlines()}
    assert files == {"rules/base.yaml"}
    # a link is named as the link (its problem, RE023, is that it leads elsewhere)
    (real / "private").mkdir()
    (real / "private" / "notes.yaml").write_text("name: x\n", encoding="utf-8")
    (real / "rules" / "link.yaml").symlink_to("../private/notes.yaml")
    linked = Diagnostic("RE023", "a link", Span.point("rules/link.yaml", 1, 1))
    assert "::error file=rules/link.yaml," in render_github([linked])


# ---- hints that teach --------------------------------------------------------------------

HINTS = {
    "yaml_colon_in_text": "must be quoted",
    "yaml_colon_in_log_template": "must be quoted",
    "yaml_colon_in_effect": "quote the whole effect",
    "yaml_flow_list_bracket": "block list",
    "yaml_flow_list_comma": "one '- effect' per line",
    "yaml_tab_indent": "spaces",
    "yaml_not_utf8": "UTF-8",
    "extends_missing_file": "did you mean 'pan'?",
    "unknown_key_in_move": "did you mean 'legal'?",
    "unknown_section": "did you mean 'triggers'?",
    "option_misspelt_in_expression": "did you mean 'hand_size'?",
    "zone_misspelt_in_expression": "did you mean 'pile'?",
    "zone_sorted_by_unknown": "did you mean 'rank'?",
    "variable_misspelt": "did you mean 'score'?",
    "function_misspelt": "did you mean 'size'?",
    "macro_misspelt": "did you mean 'any'?",
    "phase_misspelt_move": "did you mean 'lay'?",
    "deck_misspelt_zone": "did you mean 'stock'?",
    "deck_too_small": "deal fewer cards",
}


@pytest.mark.parametrize("name", sorted(HINTS))
def test_the_hint_says_how_to_fix_it(name: str):
    _, diagnostics = validate_file(CORPUS / f"{name}.yaml")
    hints = [d.hint or "" for d in diagnostics]
    assert any(HINTS[name] in hint for hint in hints), hints


def test_circular_extends_names_the_whole_cycle():
    _, diagnostics = validate_file(CORPUS / "circular_a.yaml")
    (d,) = diagnostics
    assert d.hint == "circular_a.yaml -> circular_b.yaml -> circular_a.yaml"


# ---- the documentation knows every code --------------------------------------------------


def test_every_code_is_documented():
    emitted = set()
    for module in (ROOT / "rulesengine").rglob("*.py"):  # the analysis and language server too
        emitted |= set(re.findall(r'"(RE\d{3})"', module.read_text(encoding="utf-8")))
    assert {"RE404", "RE274"} <= emitted
    documented = set(re.findall(r"^### (RE\d{3})\b", (ROOT / "docs" / "diagnostics.md").read_text("utf-8"), re.M))
    assert emitted - documented == set(), "codes without a section in docs/diagnostics.md"
    announced = {code for path in FILES for _, code, _, _ in expectations(path)}
    assert announced <= documented


def warning_codes() -> set[str]:
    """The codes the engine can report as warnings, read from its source: the first argument
    of every call of a checker's `warn`, and of every `Diagnostic(...)` given `WARNING`."""
    found: set[str] = set()
    for module in (ROOT / "rulesengine").rglob("*.py"):
        source = module.read_text(encoding="utf-8")
        if "warn(" not in source and "WARNING" not in source:
            continue
        tree = ast.parse(source)
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef) and function.name == "warn":
                function.body = []  # the definition of `warn` passes its caller's code on
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            called = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
            given = [*call.args, *(keyword.value for keyword in call.keywords)]
            if called == "warn" or (
                called == "Diagnostic" and any(isinstance(a, ast.Name) and a.id == "WARNING" for a in given)
            ):
                code = call.args[0] if call.args else None
                where = f"{module.name}:{call.lineno}"
                assert isinstance(code, ast.Constant) and isinstance(code.value, str), f"{where}: code not literal"
                found.add(code.value)
    return found


NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
NUMBER_WORDS += ["eleven", "twelve", "thirteen", "fourteen", "fifteen"]


def test_the_docs_list_exactly_the_warnings_the_engine_reports():
    warnings = warning_codes()
    assert {"RE224", "RE240", "RE512", "RE404"} <= warnings  # the reading of the source still finds them
    page = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    count, sentence = re.search(r"(\w+) codes are \*\*warnings\*\*(.*?)All others are errors\.", page, re.S).groups()
    assert set(re.findall(r"RE\d{3}", sentence)) == warnings, "docs/diagnostics.md, the sentence on warnings"
    assert NUMBER_WORDS.index(count.lower()) == len(warnings)
    marked = set(re.findall(r"^### (RE\d{3}) [\w-]+ \(warning\)$", page, re.M))
    assert marked == warnings, "docs/diagnostics.md, the sections marked (warning)"
    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = language.split("\n## Diagnostics\n", 1)[1].split("\n## ", 1)[0]
    sentence = re.search(r"Warnings do not make a file invalid(.*?)Every other code is an error\.", section, re.S)[1]
    assert set(re.findall(r"RE\d{3}", sentence)) == warnings, "docs/language.md, Diagnostics"


def _outside_parentheses(text: str) -> str:
    """`text` without its parenthesised asides (which quote rule text, not file names)."""
    kept, depth, quoted = [], 0, False
    for character in text:
        quoted ^= character == "`"
        if not quoted and character in "()":
            depth += 1 if character == "(" else -1
        elif depth == 0:
            kept.append(character)
    return "".join(kept)


def named_examples(page: str) -> list[str]:
    """The example files a page names after `Example:` or `Examples:`, up to the sentence's end."""
    names = []
    for match in re.finditer(r"Examples?:((?:[^\n]|\n(?!\n))*)", page):
        listed, quoted = match[1], False
        for index, character in enumerate(listed):
            quoted ^= character == "`"
            if not quoted and character == "." and listed[index + 1 : index + 2] in ("", " ", "\n"):
                listed = listed[:index]
                break
        names += re.findall(r"`([^`]*)`", _outside_parentheses(listed))
    return names


def test_every_example_the_page_names_is_in_the_corpus_as_named():
    """`name` is tests/corpus/broken/name.yaml, `hostile/name` tests/corpus/hostile/name.yaml."""
    names = named_examples((ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8"))
    assert len(names) >= 140
    assert {"yaml_duplicate_key", "hostile/yaml_huge_integer", "hostile/spelt_out_definitions"} <= set(names)
    folder = {False: CORPUS, True: CORPUS.parent}
    missing = [name for name in names if not (folder["/" in name] / f"{name}.yaml").is_file()]
    assert missing == [], "named in docs/diagnostics.md, but not a file of tests/corpus/broken/ or hostile/"


# ---- checks on small games written here --------------------------------------------------

GAME = textwrap.dedent(
    """\
    name: Small game
    players: {min: 2, max: 4, default: 2}
    decks:
      standard:
        suits: [hearts, spades]
        ranks: ["1", "2", "3", "4", "5", "6"]
        zone: stock
    zones:
      stock: {visibility: nobody}
      hand: {per: player, visibility: owner}
      pile: {visibility: all}
    round:
      setup:
        - move pile to stock
        - shuffle stock
        - deal 3 of stock to hand from seat(0)
    phases:
      play:
        moves: [lay]
    moves:
      lay:
        params: {card: "hand[me]"}
        effects: [move card to pile]
    triggers:
      done:
        for: p in players
        when: empty(hand[p])
        effects: [end round]
    match:
      until: round >= 1
    """
)


LAY = "    effects: [move card to pile]\n"


def check(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    _, diagnostics = validate_file(path)
    return [(d.code, d.span.line) for d in diagnostics]


def change(*pairs: tuple[str, str]) -> str:
    text = GAME
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_the_small_game_is_valid(tmp_path):
    assert check(tmp_path, GAME) == []


def test_a_phase_reached_only_by_a_goto_in_a_move_is_reachable(tmp_path):
    text = change(
        ("    moves: [lay]\n", "    moves: [lay]\n    next: end\n  bonus:\n    moves: [lay]\n"),
        ("    effects: [move card to pile]\n", "    effects: [move card to pile, goto bonus]\n"),
    )
    assert check(tmp_path, text) == []


def test_a_phase_led_to_only_by_an_unreachable_phase_is_unreachable(tmp_path):
    text = change(
        ("    moves: [lay]\n", "    moves: [lay]\n    next: end\n  a:\n    moves: [lay]\n    next: b\n"),
        ("moves:\n  lay:", "  b:\n    moves: [lay]\nmoves:\n  lay:"),
    )
    assert [code for code, _ in check(tmp_path, text)] == ["RE224", "RE224"]


def test_names_used_only_inside_a_used_definition_count_as_used(tmp_path):
    text = change(
        ("match:\n", "variables:\n  bonus: {default: 1}\nmatch:\n"),
        ("match:\n", "define:\n  inner: bonus + size(pile)\n  outer: inner * 2\nmatch:\n"),
        ("  until: round >= 1\n", "  until: round >= 1 or outer > 100\n"),
    )
    assert check(tmp_path, text) == []


def test_an_unused_definition_still_has_its_syntax_checked(tmp_path):
    text = change(("match:\n", "define:\n  broken: 1 +\nmatch:\n"))
    assert sorted(check(tmp_path, text)) == [("RE101", 30), ("RE240", 30)]


def test_an_error_inside_a_definition_is_reported_once_however_often_it_is_used(tmp_path):
    text = change(
        ("match:\n", "define:\n  bad: size(pil)\nmatch:\n"),
        ("  until: round >= 1\n", "  until: round >= bad or bad > 3 or bad < 0\n"),
    )
    assert check(tmp_path, text) == [("RE310", 30)]


def test_a_legality_test_that_an_option_can_make_true_is_not_reported(tmp_path):
    text = change(
        ("match:\n", "options:\n  strict: {default: false}\nmatch:\n"),
        (LAY, "    legal: strict and size(pile) >= 0\n" + LAY),
    )
    assert check(tmp_path, text) == []


def test_a_legality_test_false_for_every_choice_is_reported(tmp_path):
    text = change(
        ("match:\n", "options:\n  size_limit: {default: 2, min: 1, max: 3}\nmatch:\n"),
        (LAY, "    legal: size_limit > 5 or 1 == 2\n" + LAY),
    )
    assert check(tmp_path, text) == [("RE226", 23)]


@pytest.mark.parametrize(
    ("deal", "problem"),
    [
        ("deal 3 of stock", False),  # 3 x 4 players = 12 cards: exactly the deck
        ("deal 4 of stock", True),
        ("deal 12 // num_players of stock", False),
        ("deal 14 // num_players of stock", True),  # 7 each for 2 players: 14 cards
        ("deal all of stock", False),
    ],
)
def test_a_deal_larger_than_the_deck_is_an_error(tmp_path, deal: str, problem: bool):
    found = check(tmp_path, change(("deal 3 of stock", deal)))
    assert found == ([("RE236", 16)] if problem else [])


def test_deals_in_a_row_add_up_until_cards_are_put_back(tmp_path):
    deal = "    - deal 3 of stock to hand from seat(0)\n"
    two = deal.replace("3", "2") * 2
    assert check(tmp_path, change((deal, two))) == [("RE236", 17)]
    back = deal.replace("3", "2") + "    - move pile to stock\n" + deal.replace("3", "1")
    assert check(tmp_path, change((deal, back))) == []


def test_an_empty_file_and_a_missing_file_are_diagnostics(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_bytes(b"")
    assert [d.code for d in validate_file(empty)[1]] == ["RE006"]
    assert [d.code for d in validate_file(tmp_path / "absent.yaml")[1]] == ["RE009"]


def test_windows_line_ends_keep_the_same_positions(tmp_path):
    path = tmp_path / "crlf.yaml"
    path.write_bytes(change(("deal 3 of stock", "deal 4 of stock")).replace("\n", "\r\n").encode())
    _, diagnostics = validate_file(path)
    assert [(d.code, d.span.line, d.span.column) for d in diagnostics] == [("RE236", 16, 12)]
