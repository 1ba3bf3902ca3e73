"""The format marker (`rulesengine: 1`): versions, and which YAML files are rule files."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from rulesengine import authoring, fileformat, shape
from rulesengine.api import validate_file
from rulesengine.cli import main
from rulesengine.describe import describe
from rulesengine.fileformat import FORMAT_VERSION, MARKER, Kind, recognise
from rulesengine.limits import MAX_INTEGER

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [
    *sorted(p for p in (ROOT / "rulesets").rglob("*.yaml") if not p.name.endswith(".tests.yaml")),
    *sorted((ROOT / "examples").glob("*.yaml")),
    ROOT / "rulesengine" / "templates" / "new-game.yaml",
]
GAME = (
    (ROOT / "tests" / "corpus" / "broken" / "format_version_too_new.yaml")
    .read_text()
    .replace(f"{MARKER}: 2", f"{MARKER}: {FORMAT_VERSION}")
)
WORKFLOW = "name: checks\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n"
PRE_COMMIT = "repos:\n  - repo: local\n    hooks: []\n"
COMPOSE_FILE = "services:\n  web:\n    image: nginx\nvolumes: {}\n"
GITLAB = "variables:\n  A: b\ninclude:\n  - local: x.yml\nstages: [test]\n"
HELM_TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"  # not YAML
KUBERNETES = "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def codes(path: Path) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in validate_file(path)[1]]


# ---- the marker and its version ---------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_carries_the_marker(path: Path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data[MARKER] == FORMAT_VERSION
    assert recognise(path) is Kind.MARKED


@given(st.integers(min_value=FORMAT_VERSION + 1, max_value=MAX_INTEGER))
def test_a_newer_version_is_one_error_at_the_marker(tmp_path_factory, version: int):
    path = tmp_path_factory.mktemp("v") / "game.yaml"
    path.write_text(GAME.replace(f"{MARKER}: {FORMAT_VERSION}", f"{MARKER}: {version}") + "zonez: {}\n")
    assert codes(path) == [("RE040", 3, 14)]  # the unknown section of the newer format is not judged
    result = run("run", str(path))
    assert result.exit_code == 1 and "game.yaml:3:14: error[RE040]" in result.output
    assert f"version {version} of the rule-file format" in result.output


@pytest.mark.parametrize("value", ['"1"', "1.0", "true", "null", "0", "-1", "[1]", "{v: 1}", "one", "''"])
def test_a_marker_that_is_not_a_version_is_re041(tmp_path, value: str):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace(f"{MARKER}: {FORMAT_VERSION}", f"{MARKER}: {value}"))
    assert codes(path) == [("RE041", 3, 14)]


_VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=60) | st.lists(st.integers())


@given(_VALUES)
def test_any_marker_value_is_accepted_or_one_diagnostic_at_the_marker(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("m") / "game.yaml"
    written = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000)
    written = written.removesuffix("\n...\n").strip()
    path.write_text(GAME.replace(f"{MARKER}: {FORMAT_VERSION}", f"{MARKER}: {written}"))
    found = codes(path)
    numbers = [value] if type(value) is int else [v for v in value if type(v) is int] if type(value) is list else []
    if any(abs(number) > MAX_INTEGER for number in numbers):
        # no rule-file integer is that large, whatever holds it: the loader refuses each one
        assert found and {code for code, _, _ in found} == {"RE018"} and all(line == 3 for _, line, _ in found)
    elif type(value) is int and 1 <= value <= FORMAT_VERSION:
        assert found == []
    else:
        expected = "RE040" if type(value) is int and value > FORMAT_VERSION else "RE041"
        assert [(code, line, column) for code, line, column in found] == [(expected, 3, 14)]


def test_files_with_and_without_the_marker_mean_the_same_game(tmp_path):
    marked, unmarked = tmp_path / "marked.yaml", tmp_path / "unmarked.yaml"
    marked.write_text(GAME)
    unmarked.write_text(GAME.replace(f"{MARKER}: {FORMAT_VERSION}\n", ""))
    first, second = validate_file(marked)[0], validate_file(unmarked)[0]
    assert first is not None and second is not None
    assert describe(first) == describe(second).replace("unmarked.yaml", "marked.yaml")  # only the file differs


def test_each_file_of_a_composition_is_read_by_its_own_marker(tmp_path):
    (tmp_path / "base.yaml").write_text(GAME.replace(f"{MARKER}: {FORMAT_VERSION}", f"{MARKER}: 7"))
    variant = tmp_path / "variant.yaml"
    variant.write_text(f"{MARKER}: 1\nextends: base.yaml\nname: Variant\n")
    [problem] = validate_file(variant)[1]
    assert (Path(problem.span.file).name, problem.code, problem.span.line) == ("base.yaml", "RE040", 3)
    # and an unmarked variant of a marked block or base is fine
    variant.write_text("extends: pan\nname: Variant\n")
    ruleset, problems = validate_file(variant)
    assert ruleset is not None and problems == []


# ---- which YAML files are rule files ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (GAME, Kind.MARKED),
        (f"{MARKER}: 1\n", Kind.MARKED),
        (GAME.replace(f"{MARKER}: {FORMAT_VERSION}\n", ""), Kind.UNMARKED),
        ("extends: pan\nname: x\n", Kind.UNMARKED),
        ("block: true\nzones: {}\n", Kind.UNMARKED),
        (GAME.replace("moves: [lay]", "moves: [lay"), Kind.MARKED),  # broken YAML: still a rule file
        ("phases:\n  play: [\n", Kind.UNMARKED),
        (WORKFLOW, Kind.OTHER),
        (PRE_COMMIT, Kind.OTHER),
        (COMPOSE_FILE, Kind.OTHER),
        (GITLAB, Kind.OTHER),  # 'variables' and 'include' alone do not make a rule file
        (HELM_TEMPLATE, Kind.OTHER),
        (KUBERNETES, Kind.OTHER),
        ("- id: hook\n  entry: x\n", Kind.OTHER),
        ("just a text\n", Kind.OTHER),
        ("", Kind.OTHER),
        ("name: only a name\ndescription: and a text\n", Kind.OTHER),
    ],
)
def test_recognise(tmp_path, text: str, kind: Kind):
    path = tmp_path / "file.yaml"
    path.write_text(text)
    assert recognise(path) is kind


def test_recognise_files_that_the_loader_refuses(tmp_path):
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("phases: {}\nname: Caf\xe9\n".encode("latin-1"))
    assert recognise(latin) is Kind.UNMARKED  # checked, so RE008 is reported
    large = tmp_path / "large.yaml"
    large.write_text("openapi: 3.0.0\npaths:\n" + "  /x: {}\n" * 200_000)
    assert recognise(large) is Kind.OTHER
    assert recognise(tmp_path / "missing.yaml") is Kind.UNKNOWN
    huge = tmp_path / "huge.yaml"
    huge.write_text(f"{MARKER}: {'9' * 5000}\n")  # more digits than Python converts
    assert recognise(huge) is Kind.MARKED


_KEYS = st.sampled_from(sorted({*shape.TOP, *shape.COMPOSE, "on", "jobs", "repos", "services", "stages"}))


@given(st.dictionaries(_KEYS | st.text(max_size=6), st.none() | st.integers() | st.text(max_size=4), max_size=6))
def test_the_schema_checks_exactly_the_files_validate_recognises(document: dict):
    recognised = jsonschema.Draft7Validator(json.loads(authoring.schema_text())["if"]).is_valid(document)
    assert recognised == (fileformat.kind_of_document(document) is not Kind.OTHER)


def test_the_schema_names_its_format_version_and_requires_the_marker():
    schema = json.loads(authoring.schema_text())
    assert schema["$id"].endswith(f":{FORMAT_VERSION}")
    validator = jsonschema.Draft7Validator(schema)
    assert [e.message for e in validator.iter_errors({"extends": "pan"})] == [f"'{MARKER}' is a required property"]
    assert list(validator.iter_errors({MARKER: FORMAT_VERSION, "extends": "pan"})) == []
    assert list(validator.iter_errors({MARKER: FORMAT_VERSION + 1, "extends": "pan"}))
    for other in (WORKFLOW, PRE_COMMIT, COMPOSE_FILE, GITLAB):
        assert list(validator.iter_errors(yaml.safe_load(other))) == []  # other YAML files pass


# ---- validate: skip what is not a rule file --------------------------------------------------


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "game.yaml").write_text(GAME)
    (tmp_path / "rules" / "old.yml").write_text("extends: pan\nname: Old variant\n")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "checks.yml").write_text(WORKFLOW)
    (tmp_path / ".pre-commit-config.yaml").write_text(PRE_COMMIT)
    (tmp_path / "chart.yaml").write_text(HELM_TEMPLATE)
    return tmp_path


def test_validate_a_folder_skips_other_yaml_files_with_a_note(repository: Path, monkeypatch):
    monkeypatch.chdir(repository)
    result = run("validate", "--strict", ".")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "2 file(s) checked: 0 error(s), 0 warning(s); valid"
    notes = result.stderr.splitlines()
    skipped = sorted(line.split(":")[1].strip() for line in notes if "skipped, not a rule file" in line)
    assert skipped == ["chart.yaml"]  # hidden files and folders are not walked
    named = run("validate", "--strict", ".", ".github/workflows/checks.yml", ".pre-commit-config.yaml")
    skipped = sorted(line.split(":")[1].strip() for line in named.stderr.splitlines() if "skipped" in line)
    assert skipped == [".github/workflows/checks.yml", ".pre-commit-config.yaml", "chart.yaml"]
    assert [line for line in notes if "skipped" not in line] == [
        f"note: rules/old.yml: no '{MARKER}: {FORMAT_VERSION}' line; read as format version 1"
    ]


def test_other_tools_configurations_with_an_extends_of_their_own_are_skipped(repository: Path, monkeypatch):
    monkeypatch.chdir(repository)
    (repository / ".yamllint.yml").write_text("extends: default\nrules:\n  line-length: disable\n")
    (repository / ".eslintrc.yml").write_text("extends:\n  - eslint:recommended\nenv:\n  node: true\n")
    (repository / ".spectral.yaml").write_text('extends: "spectral:oas"  # the API rules\n')
    (repository / "rules" / "house.yaml").write_text("extends: game.yaml\nname: House rules\n")
    result = run("validate", "--strict", ".", ".yamllint.yml", ".eslintrc.yml", ".spectral.yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "3 file(s) checked: 0 error(s), 0 warning(s); valid"
    for name in (".yamllint.yml", ".eslintrc.yml", ".spectral.yaml"):
        assert f"note: {name}: skipped, not a rule file" in result.stderr
    assert recognise(repository / "rules" / "house.yaml") is Kind.UNMARKED  # a base named by its file
    assert recognise(repository / "rules" / "old.yml") is Kind.UNMARKED  # a shipped base
    broken = repository / ".broken.yml"
    broken.write_text("extends: default\nrules: [\n")  # judged by its lines: the same
    assert recognise(broken) is Kind.OTHER


def test_a_file_name_cannot_start_a_line_of_its_own_in_a_note(repository: Path, monkeypatch):
    # a CI system reads commands from every line of the output, notes on stderr too
    monkeypatch.chdir(repository)
    (repository / "odd").mkdir()
    (repository / "odd" / "a\n::error title=x::injected\n.yml").write_text("name: x\n")
    (repository / "odd" / "b\n::warning::injected\n.yml").write_text("extends: pan\n")
    result = run("validate", "--format", "github", "odd")
    notes = result.stderr.splitlines()
    assert result.exit_code == 0 and len(notes) == 2
    assert all(line.startswith("note: odd/") and "\\x0a::" in line for line in notes)


def test_skipped_files_stay_out_of_machine_readable_output(repository: Path, monkeypatch):
    monkeypatch.chdir(repository)
    (repository / "rules" / "game.yaml").write_text(GAME.replace("moves: [lay]", "moves: [lya]"))
    result = run("validate", "--format", "json", ".")
    assert result.exit_code == 1
    assert {d["file"] for d in json.loads(result.stdout)} == {"rules/game.yaml"}
    github = run("validate", "--format", "github", "rules/game.yaml", ".github/workflows/checks.yml")
    assert github.exit_code == 1 and github.stdout.startswith("::error file=rules/game.yaml,")


def test_a_broken_rule_file_among_many_is_reported_not_skipped(repository: Path, monkeypatch):
    monkeypatch.chdir(repository)
    (repository / "rules" / "game.yaml").write_text(GAME.replace("moves: [lay]", "moves: [lay"))
    result = run("validate", ".")
    assert result.exit_code == 1 and "rules/game.yaml:" in result.stdout and "[RE001]" in result.stdout


def test_a_file_named_alone_is_checked_even_if_it_is_no_rule_file(repository: Path, monkeypatch):
    monkeypatch.chdir(repository)
    alone = run("validate", ".github/workflows/checks.yml")
    assert alone.exit_code == 1 and "error[RE201]: unknown section 'jobs'" in alone.stdout
    hooked = run("validate", "--skip-non-rule-files", ".github/workflows/checks.yml")  # as the pre-commit hook runs
    assert hooked.exit_code == 0 and "skipped, not a rule file" in hooked.stderr
    assert hooked.stdout.strip() == "0 file(s) checked: 0 error(s), 0 warning(s); valid"


def test_a_folder_without_yaml_files_is_still_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    assert run("validate", str(tmp_path)).exit_code == 2


@pytest.mark.parametrize("written", ["010", "0x10", "1_0", "1:10"])
def test_a_yaml_integer_in_another_form_is_the_text_written(tmp_path: Path, written: str):
    """YAML 1.1 would make 8, 16, 10 and 70 of these; as a rank they are names as written,
    and where a number belongs they are refused with a hint (RE205)."""
    pan = (Path(__file__).resolve().parent.parent / "rulesets" / "pan.yaml").read_text(encoding="utf-8")
    assert 'ranks: ["9", "10", J, Q, K, A]' in pan
    named = tmp_path / "named.yaml"
    named.write_text(pan.replace('ranks: ["9", "10",', f'ranks: ["9", {written},'), encoding="utf-8")
    ruleset, problems = validate_file(named)
    assert problems == [] and ruleset is not None and ruleset.ranks[1] == written
    counted = tmp_path / "counted.yaml"
    counted.write_text(pan.replace("players: {min: 2, max: 4,", f"players: {{min: 2, max: {written},"), "utf-8")
    _, problems = validate_file(counted)
    (problem,) = problems
    assert problem.code == "RE205" and "decimal digits" in (problem.hint or "")
