"""What the language server computes, without a client: its diagnostics equal `validate`'s
for every rule file the project has, and completion knows where keys go."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesengine.api import validate_file
from rulesengine.compose import compose
from rulesengine.diagnostics import RuleFileError
from rulesengine.fileformat import Kind, recognise
from rulesengine.lsp import analysis
from rulesengine.source import Map, Seq, load_yaml

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [
        *(ROOT / "tests" / "corpus").rglob("*.yaml"),
        *(ROOT / "rulesets").rglob("*.yaml"),
        *(ROOT / "examples").glob("*.yaml"),
    ]
)


def spans(node):
    """Every key's place and every scalar's value and place, in order: two documents with the
    same spans were merged alike from the same files."""
    if isinstance(node, Map):
        out = []
        for key, value in node.items():
            out += [(key, node.key_spans[key]), *spans(value)]
        return out
    if isinstance(node, Seq):
        return [s for item in node.items for s in spans(item)]
    return [(node.value, node.span)]


def composing() -> list[Path]:
    """The files whose composition goes its own way in the server: those with `extends` or
    `include` (every one), and some others (loading the YAML is shared code)."""
    files = [p for p in FILES if not p.name.endswith(".tests.yaml") and "bomb" not in p.name]
    with_bases = [p for p in files if b"extends" in p.read_bytes() or b"include" in p.read_bytes()]
    return with_bases + [p for p in files if p not in with_bases][::6]


def test_the_text_composes_as_validate_composes_the_file():
    # The server composes the editor's text itself (the file on disk may be older); checking is
    # the same function either way, so composing alike means the same diagnostics as validate.
    checked = 0
    for path in composing():
        try:
            text = path.read_text(encoding="utf-8")
            expected = compose(str(path))
        except UnicodeDecodeError:
            continue  # an editor holds text, never undecodable bytes
        except RuleFileError as error:
            expected = error.diagnostics
        try:
            found = compose(str(path), text=text)
        except RuleFileError as error:
            found = error.diagnostics
        if isinstance(expected, list):
            assert found == expected, path
        else:
            assert spans(found) == spans(expected), path
        checked += 1
    assert checked > 25


def test_analysis_and_validate_agree_on_diagnostics():
    for name in ("pan-reversed-spades.yaml", "padan-original.yaml", "blocks/tricks.yaml"):
        path = ROOT / "rulesets" / name
        assert list(analysis.analyse(path.read_text(encoding="utf-8"), str(path)).diagnostics) == validate_file(path)[1]
    broken = ROOT / "tests" / "corpus" / "broken"
    for path in sorted(broken.glob("*.yaml"))[::10]:
        text = path.read_text(encoding="utf-8", errors="strict") if "utf8" not in path.name else None
        # a file with no sign of a rule file (comments only, say) is skipped, as a folder's walk skips it
        if text is not None and analysis.is_rule_or_test_file(text, str(path)):
            assert (
                list(analysis.analyse(text.replace("\r\n", "\n"), str(path)).diagnostics) == validate_file(path)[1]
            ), path


def test_unsaved_text_is_analysed_not_the_file(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text((ROOT / "examples" / "tutorial-game.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    variant = tmp_path / "variant.yaml"
    variant.write_text("extends: base.yaml\nname: V\n", encoding="utf-8")
    assert analysis.analyse("extends: base.yaml\nname: V\n", str(variant)).diagnostics == ()
    found = analysis.analyse("extends: bse.yaml\nname: V\n", str(variant)).diagnostics
    assert [(d.code, d.span.line, d.span.column) for d in found] == [("RE012", 1, 10)]
    assert "'bse.yaml'" in found[0].message
    itself = analysis.analyse("extends: variant.yaml\nname: V\n", str(variant)).diagnostics
    assert [d.code for d in itself] == ["RE013"]
    result = analysis.analyse("extends: base.yaml\nname: V\nvariables:\n  bonus: {type: int}\n", str(variant))
    assert result.declarations["bonus"].span.file == str(variant)
    assert result.declarations["hand"].span.file.endswith("base.yaml")


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("name: x\n\n", 1, ("",)),
        ("zones:\n  pile:\n    vis", 2, ("zones", "pile")),
        ("moves:\n  lay:\n    params:\n      card:\n        fr", 4, ("moves", "lay", "params", "card")),
        ("round:\n  limit:\n    tu", 2, ("round", "limit")),
        ("moves:\n  lay:\n    effects:\n      - mo", 3, ("moves", "lay", "effects")),
        ("zones:\n  pile:\n", 99, ("",)),  # past the end: the top level
    ],
)
def test_the_keys_above_the_cursor(text: str, line: int, expected):
    lines = text.split("\n")
    path = analysis.key_path(lines, line)
    assert path == (expected if expected != ("",) else ())


def test_completion_in_scenario_test_files_offers_their_keys():
    text = "ruleset: pan\ntests:\n  - name: x\n    position:\n      zo\n    expect:\n      leg\n    st"
    lines = text.split("\n")
    assert analysis.key_path(lines, 4) == ("tests", "position")
    assert "zones" in {c.label for c in analysis.completions(lines, 4, 8, None, test_file=True)}
    assert "legal" in {c.label for c in analysis.completions(lines, 6, 9, None, test_file=True)}
    assert {"play", "steps", "position"} <= {c.label for c in analysis.completions(lines, 7, 6, None, test_file=True)}
    lines = ["tests:", "  - na"]
    assert "name" in {c.label for c in analysis.completions(lines, 1, 6, None, test_file=True)}


@pytest.mark.parametrize("item", ["- ", "  - ", "    -  "])
def test_completion_right_after_the_dash_of_a_list_item_offers_its_keys(item: str):
    # the space after '-' is a trigger character: the editor asks there first
    lines = ["ruleset: pan", "tests:", "  - name: x", item]
    labels = {c.label for c in analysis.completions(lines, 3, len(item), None, test_file=True)}
    assert {"name", "position", "expect"} <= labels and "size" not in labels


def test_completion_offers_the_keys_of_the_place():
    lines = "zones:\n  pile:\n    vis".split("\n")
    labels = {c.label for c in analysis.completions(lines, 2, 7, None)}
    assert labels == {"per", "visibility", "sorted_by", "description"}
    lines = "moves:\n  lay:\n    params:\n      card:\n        fr".split("\n")
    assert {c.label for c in analysis.completions(lines, 4, 10, None)} == {"from", "size", "same", "min", "max"}
    lines = ["name: x", "na"]
    assert "players" in {c.label for c in analysis.completions(lines, 1, 2, None)}


def test_without_pygls_the_lsp_command_says_what_to_install():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pygls'] = None; sys.modules['pygls.lsp.server'] = None; "
        "sys.argv = ['rulesengine', 'lsp']; from rulesengine.cli import entry; entry()"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    assert "pip install 'rulesengine[lsp]'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("entry", "shown"),
    [
        ("{default: true}", "option, default true"),
        ("{default: false}", "option, default false"),
        ("{default: PAN}", "option, default PAN"),
        ('{default: "10"}', 'option, default "10"'),
        ("{default: 'yes'}", 'option, default "yes"'),
        ("{default: a b, choices: [a b, c]}", 'option, default "a b", one of "a b", c'),
        ("{default: 3, choices: [3, 5]}", "option, default 3, one of 3, 5"),
    ],
)
def test_hover_shows_an_option_default_as_yaml_writes_it(entry: str, shown: str):
    tree = load_yaml(f"options:\n  o: {entry}\n", "x.yaml")
    assert isinstance(tree, Map)
    assert analysis.declarations(tree)["o"].detail == shown


# ---- what is a rule file: the rule validate follows ----------------------------------------------

OTHER_TOOLS = {
    ".yamllint.yml": "extends: default\nrules:\n  line-length: disable\n",
    ".eslintrc.yml": "extends:\n  - eslint:recommended\nenv:\n  node: true\n",
    "checks.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    "broken.yml": "extends: default\nrules: [\n",  # does not parse: judged by its lines
    "list.yaml": "- one\n- two\n",
}


@pytest.mark.parametrize("name", sorted(OTHER_TOOLS))
def test_a_yaml_file_validate_skips_gets_no_diagnostics(tmp_path: Path, name: str):
    path = tmp_path / name
    path.write_text(OTHER_TOOLS[name], encoding="utf-8")
    assert recognise(path) is Kind.OTHER  # a folder's walk skips it
    for on_disk in (True, False):
        assert analysis.analyse(OTHER_TOOLS[name], str(path), on_disk).diagnostics == ()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("rulesengine: 1\nextends: default\nname: V\n", "RE012"),  # marked: a rule file
        ("extends: house.yaml\nname: V\n", "RE012"),  # names a rule file
        ("extends: [pan]\nname: V\nphases: {}\n", "RE011"),  # a rule-file section
        ("rulesengine: 1\nname: [unclosed\n", "RE001"),
        ("phases: [\n", "RE001"),  # judged by its lines
    ],
)
def test_a_rule_file_gets_its_diagnostics_as_validate_gives_them(tmp_path: Path, text: str, code: str):
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    assert recognise(path) is not Kind.OTHER
    found = analysis.analyse(text, str(path)).diagnostics
    assert code in [d.code for d in found] and list(found) == validate_file(path)[1]


def test_a_file_named_as_scenario_tests_is_analysed_as_one_whatever_it_holds(tmp_path: Path):
    path = tmp_path / "game.tests.yaml"
    text = "extends: default\n"
    path.write_text(text, encoding="utf-8")
    found = analysis.analyse(text, str(path)).diagnostics
    assert found and list(found) == validate_file(path)[1]
