"""Tools for rule-file authors: `rulesengine schema`, `describe`, `new` and the pre-commit hook."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import stat
import tomllib
from pathlib import Path

import attrs
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesengine import authoring, ir, load_ruleset, shape
from rulesengine.api import validate_file
from rulesengine.check import OPTION_TYPES, SECTION_KEYS, TOP_KEYS, VARIABLE_TYPES, VISIBILITIES
from rulesengine.cli import main
from rulesengine.diagnostics import Span
from rulesengine.source import load_file, plain

ROOT = Path(__file__).resolve().parent.parent
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
COMPOSE_KEYS = {"extends", "include"}  # read by compose.py before check.py sees the file
SHIPPED = sorted((ROOT / "rulesets").glob("*.yaml")) + sorted((ROOT / "rulesets" / "blocks").glob("*.yaml"))
HAS_JSONSCHEMA = importlib.util.find_spec("jsonschema") is not None  # the schema checks need it
PAN_OPTIONS = {"word": "PAN", "reversed_spades": False, "triples": "equal", "fours": "higher"}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def schema() -> dict:
    return json.loads(authoring.schema_text())


def validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft7Validator(schema())


def schema_errors(document: object) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(document)]


def document_of(path: Path) -> object:
    tree, _ = load_file(str(path))
    return plain(tree)


# ---- the schema --------------------------------------------------------------------------


def test_schema_command_prints_the_shipped_draft07_schema():
    result = run("schema")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == schema()
    assert printed["$schema"] == DRAFT_07
    assert (ROOT / "rulesengine" / authoring.SCHEMA_FILE).is_file()


def test_schema_is_a_valid_draft07_schema():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft7Validator.check_schema(schema())


def rule_file_schema() -> dict:
    """The part of the schema that applies to a file recognised as a rule file."""
    return next(part for part in schema()["then"]["allOf"] if "properties" in part)


def test_schema_has_exactly_the_sections_check_accepts():
    assert set(rule_file_schema()["properties"]) == set(TOP_KEYS) | COMPOSE_KEYS


@pytest.mark.parametrize("section", sorted(SECTION_KEYS))
def test_schema_has_exactly_the_keys_check_accepts(section):
    definition = schema()["definitions"][section]
    assert set(definition["properties"]) == SECTION_KEYS[section]
    assert definition["additionalProperties"] is False


@pytest.mark.parametrize(
    "path, value",
    [
        (("decks", "standard", "ranks"), ["9", "10", "10", "J"]),
        (("decks", "standard", "suits"), ["hearts", "hearts"]),
        (("phases", "play", "moves"), ["single", "single"]),
        (("options", "triples", "choices"), ["equal", "equal"]),
    ],
)
def test_the_editor_schema_flags_a_name_listed_twice_as_the_checker_does(path, value):
    """RE274 in the editor too: the schema's name lists take each name once."""
    document = document_of(ROOT / "rulesets" / "pan.yaml")
    assert schema_errors(document) == []
    place = document
    for key in path[:-1]:
        place = place[key]  # type: ignore[index]
    place[path[-1]] = value  # type: ignore[index]
    found = schema_errors(document)  # suits: "not valid under any of the given schemas" of its anyOf
    assert any(error.startswith(str(list(path))) for error in found), found


def test_schema_enums_are_those_of_check():
    definitions = schema()["definitions"]

    def enum(section: str, key: str) -> set:
        return set(definitions[section]["properties"][key]["enum"]) - {None}

    assert enum("zone", "visibility") == set(VISIBILITIES)
    assert enum("variable", "type") == set(VARIABLE_TYPES)
    assert enum("option", "type") == set(OPTION_TYPES)


def _properties(node: object, path: str = ""):
    """Every (path, schema) under a 'properties' keyword anywhere in the schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, inner in value.items():
                    yield f"{path}/{name}", inner
            yield from _properties(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _properties(value, f"{path}/{index}")


def test_every_schema_property_has_a_description():
    found = list(_properties(schema()))
    assert len(found) > 60
    missing = [path for path, inner in found if not (isinstance(inner, dict) and inner.get("description"))]
    assert not missing


def test_no_description_stands_beside_a_bare_ref():
    # draft-07 ignores every keyword beside "$ref", so a description there would be lost
    beside_ref = [path for path, inner in _properties(schema()) if "$ref" in inner]
    assert not beside_ref


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_rulesets_match_the_schema(path):
    assert schema_errors(document_of(path)) == []


def test_schema_rejects_what_check_rejects():
    pan = document_of(ROOT / "rulesets" / "pan.yaml")

    def broken(change) -> list[str]:
        document = copy.deepcopy(pan)
        change(document)
        return schema_errors(document)

    assert broken(lambda d: d.update(zonez={}))
    assert broken(lambda d: d["zones"]["hand"].update(visibility="owners"))
    assert broken(lambda d: d["zones"]["hand"].update(per=["player", 0]))
    assert broken(lambda d: d.pop("match"))
    assert broken(lambda d: d["options"]["word"].pop("default"))
    assert broken(lambda d: d["match"].update(winners="players"))
    assert broken(lambda d: d["moves"]["triple"]["params"]["cards"].pop("from"))
    assert broken(lambda d: d["moves"]["pick_up"].update(legall="true"))
    assert broken(lambda d: d["round"]["setup"].append({"if": "true", "than": ["reverse"]}))
    assert broken(lambda d: d["phases"]["play"].update(moves=[]))


def check_errors(tmp_path: Path, document: object) -> list[str]:
    """The codes of the errors `rulesengine validate` reports for `document`, written as YAML."""
    path = tmp_path / "game.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return [d.code for d in validate_file(path)[1] if d.severity == "error"]


def _round_end(document: dict) -> list:
    return document["round"]["end"]


# Changes to pan.yaml, each refused by the checker and by the schema alike.
BOTH_REFUSE = {
    "a variable's description is a list": lambda d: d["variables"]["letters"].update(description=["a", "b"]),
    "a zone's description is a mapping": lambda d: d["zones"]["pile"].update(description={"a": "b"}),
    "a move's description is true": lambda d: d["moves"]["pick_up"].update(description=True),
    "a phase's description is a number": lambda d: d["phases"]["play"].update(description=7),
    "a trigger's description is a fraction": lambda d: d["triggers"]["going_out"].update(description=1.5),
    "an option's description is a list": lambda d: d["options"]["word"].update(description=["a"]),
    "an empty then": lambda d: _round_end(d)[1].update(then=None),
    "an empty else": lambda d: _round_end(d)[1].update(**{"else": None}),
    "an empty if": lambda d: _round_end(d)[1].update(**{"if": None}),
    "an empty do": lambda d: _round_end(d)[0].update(do=None),
    "an empty repeat": lambda d: _round_end(d).append({"repeat": None, "do": ["reverse"]}),
    "an empty do of a repeat": lambda d: _round_end(d).append({"repeat": 2, "do": None}),
    "an empty until": lambda d: _round_end(d).append({"repeat": 2, "do": ["reverse"], "until": None}),
}

# Changes to pan.yaml that both accept.
BOTH_ACCEPT = {
    "a variable's description is a text": lambda d: d["variables"]["letters"].update(description="letters taken"),
    "a zone's description is empty": lambda d: d["zones"]["pile"].update(description=None),
    "an option's description is empty": lambda d: d["options"]["word"].update(description=None),
    "an empty then list": lambda d: _round_end(d)[1].update(then=[]),
}


@pytest.mark.parametrize("change", BOTH_REFUSE.values(), ids=list(BOTH_REFUSE))
def test_the_schema_and_the_checker_both_refuse(tmp_path, change):
    document = document_of(ROOT / "rulesets" / "pan.yaml")
    change(document)
    assert check_errors(tmp_path, document)
    assert schema_errors(document)


@pytest.mark.parametrize("change", BOTH_ACCEPT.values(), ids=list(BOTH_ACCEPT))
def test_the_schema_and_the_checker_both_accept(tmp_path, change):
    document = document_of(ROOT / "rulesets" / "pan.yaml")
    change(document)
    assert check_errors(tmp_path, document) == []
    assert schema_errors(document) == []


def test_what_the_schema_cannot_see_is_the_checker_s_alone(tmp_path):
    """JSON Schema reads YAML's data, not its text: `1.0` is the number 1 to it, and a merge
    key is already merged (or a plain '<<' key) before it looks. The checker sees both."""
    document = document_of(ROOT / "rulesets" / "pan.yaml")
    document["rulesengine"] = 1.0
    assert schema_errors(document) == []
    assert check_errors(tmp_path, document) == ["RE041"]
    path = tmp_path / "merged.yaml"
    pan = (ROOT / "rulesets" / "pan.yaml").read_text(encoding="utf-8")
    merged = pan.replace("  pile: {", "  base: &shared {visibility: all}\n  pile: {<<: *shared, ", 1)
    assert merged != pan
    path.write_text(merged, encoding="utf-8")
    assert [d.code for d in validate_file(path)[1]] == ["RE004"]


def test_schema_accepts_a_variant_that_only_changes_and_removes():
    variant = {
        "rulesengine": 1,
        "extends": "pan",
        "options": {"word": {"default": "PANDA"}, "fours": None},
        "round": {"limit": None},
        "match": {"losers": None, "winners": "players"},
    }
    assert schema_errors(variant) == []
    assert schema_errors({k: v for k, v in variant.items() if k != "extends"})  # alone it is incomplete
    assert schema_errors({k: v for k, v in variant.items() if k != "rulesengine"}) == [
        "[]: 'rulesengine' is a required property"
    ]


def test_the_wheel_ships_the_schema_and_the_template():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "rulesengine" in wheel["packages"]
    assert not wheel.get("exclude") and not wheel.get("only-include")
    assert "jsonschema" in " ".join(config["project"]["optional-dependencies"]["test"])
    for part in (authoring.SCHEMA_FILE, "templates/new-game.yaml"):
        assert (ROOT / "rulesengine" / part).is_file()


# ---- describe ----------------------------------------------------------------------------


def test_describe_pan_lists_its_options_zones_decks_and_moves():
    result = run("describe", "pan")
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith("Pan\n===\n")
    assert "players: 2 to 4 (default 3)" in text
    lines = text.splitlines()
    for name, default in PAN_OPTIONS.items():
        shown = str(default).lower() if isinstance(default, bool) else default
        assert any(line.split()[:1] == [name] and f"default {shown}" in line for line in lines), name
    assert "one of equal, nines_only, equal_or_higher" in text
    assert "standard: 24 cards (4 suits x 6 ranks)" in text
    zones = {line.split()[0]: line for line in text.split("zones:\n")[1].split("\n\n")[0].splitlines()}
    assert "seen by its owner only" in zones["hand"] and "per player" in zones["hand"]
    assert "seen by everyone" in zones["pile"] and "seen by nobody" in zones["stock"]
    assert "opening: moves open, open_with_nines" in text
    assert "cards: 3 cards of the same rank from hand[me]" in text
    assert "legal when size(pile) > 1" in text
    assert "losers: players.filter(p, letters[p] >= len(word))" in text


def test_describe_shows_a_variants_own_defaults():
    text = run("describe", "pan-reversed-spades").output
    assert any(line.split()[:1] == ["reversed_spades"] and "default true" in line for line in text.splitlines())


def test_describe_shows_a_line_break_in_a_name_as_an_escape(tmp_path):
    """A name cannot forge a line of its own in the description (as `run` escapes it too)."""
    text = (ROOT / "rulesets" / "pan.yaml").read_text(encoding="utf-8")
    forged = tmp_path / "forged.yaml"
    forged.write_text(text.replace("name: Pan\n", 'name: "Pan\\nresult: P9 won\\r"\n', 1), encoding="utf-8")
    result = run("describe", str(forged))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "Pan\\x0aresult: P9 won\\x0d"
    assert not any(line.startswith("result:") for line in result.output.splitlines())


def test_describe_of_an_invalid_file_exits_1_with_its_problems(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((ROOT / "rulesets" / "pan.yaml").read_text().replace("size(pile) > 1", "size(piel) > 1"))
    result = run("describe", str(broken))
    assert result.exit_code == 1
    assert "piel" in result.output


@pytest.mark.parametrize("args", [("describe", "no-such-game"), ("new", "x.yaml", "--extends", "no-such-game")])
def test_an_unknown_ruleset_is_a_one_line_error_with_exit_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "unknown ruleset 'no-such-game'" in lines[0]
    assert not (tmp_path / "x.yaml").exists()


# ---- new ---------------------------------------------------------------------------------


def test_new_writes_a_valid_game_and_refuses_to_overwrite_it(tmp_path):
    game = tmp_path / "game.yaml"
    result = run("new", str(game))
    assert result.exit_code == 0, result.output
    assert run("validate", "--strict", str(game)).exit_code == 0
    assert not HAS_JSONSCHEMA or schema_errors(document_of(game)) == []
    written = game.read_text()
    assert "rulesengine validate game.yaml" in written  # the commands in its comments name the file
    assert load_ruleset(game).options and load_ruleset(game).triggers

    game.write_text("name: mine\n")
    refused = run("new", str(game))
    assert refused.exit_code == 2
    assert "already exists" in refused.output and "--force" in refused.output
    assert game.read_text() == "name: mine\n"

    assert run("new", "--force", str(game)).exit_code == 0
    assert game.read_text() == written


@pytest.mark.parametrize("name", ["x.tests.yaml", "x.tests.yml"])
@pytest.mark.parametrize("extends", [(), ("--extends", "pan")])
def test_new_refuses_the_name_of_a_scenario_test_file(tmp_path, name, extends):
    result = run("new", str(tmp_path / name), *extends)
    assert result.exit_code == 2
    assert "is named as a scenario test file" in result.output and "name the rule file x.yaml" in result.output
    assert list(tmp_path.iterdir()) == []  # nothing written, not even the schema


def test_the_new_game_plays_to_the_end():
    from rulesengine import make_game

    for players in (2, 4):
        game = make_game(_template(), players=players)
        state = game.new_initial_state(seed=3)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[len(actions) // 2])
        assert not state.truncated and sorted(state.returns())[-1] == 1.0


def _template() -> ir.Ruleset:
    return load_ruleset(ROOT / "rulesengine" / "templates" / "new-game.yaml")


def test_new_reports_a_place_it_cannot_write_in_one_line(tmp_path):
    (tmp_path / "plain-file").write_text("")
    result = run("new", str(tmp_path / "plain-file" / "game.yaml"))
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "cannot write" in result.output


def test_new_extends_pan_lists_every_option_at_its_default(tmp_path):
    variant = tmp_path / "house.yaml"
    result = run("new", str(variant), "--extends", "pan")
    assert result.exit_code == 0, result.output
    assert run("validate", "--strict", str(variant)).exit_code == 0
    assert not HAS_JSONSCHEMA or schema_errors(document_of(variant)) == []
    data = yaml.safe_load(variant.read_text())
    assert data["extends"] == "pan"
    assert {name: spec["default"] for name, spec in data["options"].items()} == PAN_OPTIONS
    text = variant.read_text()
    assert "one of equal, nines_only, equal_or_higher; the base's default is equal" in text
    assert "which three cards may be laid together" in text

    # the file is a working variant: a changed default is the variant's default
    variant.write_text(text.replace("default: equal", "default: nines_only"))
    options = {o.name: o.default for o in load_ruleset(variant).options}
    assert options == {**PAN_OPTIONS, "triples": "nines_only"}


def test_new_extends_a_path_names_it_relative_to_the_new_file(tmp_path):
    base = tmp_path / "bases" / "base.yaml"  # the folder is made
    assert run("new", str(base)).exit_code == 0
    variant = tmp_path / "short.yaml"
    assert run("new", str(variant), "--extends", str(base)).exit_code == 0
    assert yaml.safe_load(variant.read_text())["extends"] == "bases/base.yaml"
    assert run("validate", "--strict", str(variant)).exit_code == 0


def test_new_refuses_a_base_outside_the_new_files_folder(tmp_path):
    """A rule file may extend only files in its own folder tree: `new` says so, writes nothing."""
    base = tmp_path / "base.yaml"
    assert run("new", str(base)).exit_code == 0
    variant = tmp_path / "variants" / "short.yaml"
    result = run("new", str(variant), "--extends", str(base))
    assert result.exit_code == 2 and "folder" in result.output
    assert not variant.exists()


def test_new_points_the_editor_at_a_schema_that_exists(tmp_path):
    first_game = tmp_path / "a.yaml"
    result = run("new", str(first_game))
    assert result.exit_code == 0, result.output
    written = tmp_path / authoring.SCHEMA_FILE  # none was near, so new writes one beside the file
    assert json.loads(written.read_text()) == schema() and str(written) in result.output
    assert first_game.read_text().splitlines()[0] == f"# yaml-language-server: $schema={authoring.SCHEMA_FILE}"

    nested = tmp_path / "rules" / "b.yaml"
    result = run("new", str(nested), "--extends", "pan")
    assert result.exit_code == 0 and "schema" not in result.output  # the one above is this version's
    written.write_text('{"title": "kept"}')  # a schema of another version (or none)
    nested.unlink()
    result = run("new", str(nested), "--extends", "pan")
    assert result.exit_code == 0 and f"note: {written} is not this rulesengine's schema" in result.stderr
    first = nested.read_text().splitlines()[0]
    assert first == f"# yaml-language-server: $schema=../{authoring.SCHEMA_FILE}"
    assert (nested.parent / first.split("=", 1)[1]).read_text() == '{"title": "kept"}'  # the one above is used
    assert not (nested.parent / authoring.SCHEMA_FILE).exists()
    assert run("validate", str(nested)).exit_code == 0


def test_new_files_carry_the_format_marker(tmp_path):
    for args in ([], ["--extends", "pan"]):
        target = tmp_path / f"game{len(args)}.yaml"
        assert run("new", str(target), *args).exit_code == 0
        assert yaml.safe_load(target.read_text())["rulesengine"] == shape.FORMAT_VERSION


def test_write_new_is_atomic_and_leaves_no_temporary_files(tmp_path, monkeypatch):
    target = tmp_path / "game.yaml"
    authoring.write_new(target, "first\n")
    assert target.read_text() == "first\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    with pytest.raises(FileExistsError):
        authoring.write_new(target, "second\n")

    def failing_replace(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(authoring.os, "replace", failing_replace)
    with pytest.raises(OSError):
        authoring.write_new(target, "second\n", force=True)
    assert target.read_text() == "first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.yaml"]


# ---- properties of the generated text ------------------------------------------------------

scalar_values = st.one_of(st.text(max_size=20), st.integers(-(10**6), 10**6), st.booleans())


@settings(max_examples=200)
@given(scalar_values)
def test_yaml_scalar_reads_back_as_the_same_value(value):
    assert yaml.safe_load(f"key: {authoring.yaml_scalar(value)}\n") == {"key": value}


@st.composite
def options(draw) -> list[ir.Option]:
    names = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), unique=True, max_size=5))
    out = []
    for name in names:
        default = draw(scalar_values)
        choices = None
        if not isinstance(default, bool) and draw(st.booleans()):
            kind = st.text(max_size=8) if isinstance(default, str) else st.integers()
            choices = tuple(draw(st.lists(kind, max_size=3))) + (default,)
        type_ = ir.BOOL if isinstance(default, bool) else ir.INT if isinstance(default, int) else ir.STR
        description = draw(st.text(max_size=30))
        out.append(ir.Option(name, type_, default, choices, None, None, description, Span.point("<test>", 1, 1)))
    return out


@settings(max_examples=60)
@given(options(), st.text(max_size=20), st.text(max_size=20))
def test_a_variant_reads_back_as_its_bases_option_defaults(opts, name, reference):
    base = attrs.evolve(_template(), name=name, options=tuple(opts))
    text = authoring.variant(base, reference or "base", file_name=name)
    expected = {"rulesengine": shape.FORMAT_VERSION, "extends": reference or "base", "name": f"{name} (variant)"}
    if opts:
        expected["options"] = {o.name: {"default": o.default} for o in opts}
    assert yaml.safe_load(text) == expected


# ---- pre-commit --------------------------------------------------------------------------


def test_the_pre_commit_hook_runs_validate_on_yaml_files():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "rulesengine-validate")
    assert hook["language"] == "python" and hook["pass_filenames"] is True
    assert hook["entry"].split() == ["rulesengine", "validate", "--skip-non-rule-files"]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["project"]["scripts"]["rulesengine"] == "rulesengine.cli:entry"
    pattern = re.compile(hook["files"])
    assert pattern.search("rules/game.yaml") and pattern.search("game.yml") and not pattern.search("game.json")


def test_new_will_not_let_a_variant_replace_its_own_base(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["new", "base.yaml", "--extends", "pan"]).exit_code == 0
    assert runner.invoke(main, ["new", "child.yaml", "--extends", "base.yaml"]).exit_code == 0
    before = Path("base.yaml").read_text()
    for base in ("base.yaml", "child.yaml", "./child.yaml"):  # itself, or a file that extends it
        result = runner.invoke(main, ["new", "base.yaml", "--extends", base, "--force"])
        assert result.exit_code == 2 and "a variant cannot replace its base" in result.output
    assert Path("base.yaml").read_text() == before
    assert runner.invoke(main, ["validate", "base.yaml", "child.yaml"]).exit_code == 0


# ---- what new will not replace -----------------------------------------------------------


def test_new_refuses_a_symbolic_link_that_leads_to_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path(authoring.SCHEMA_FILE).write_text(authoring.schema_text())
    Path("dangling.yaml").symlink_to("missing-target.yaml")
    for force in ([], ["--force"]):  # it is an entry that exists, and it leads nowhere
        result = run("new", "dangling.yaml", *force)
        assert result.exit_code == 2
        assert "cannot write dangling.yaml: it is a symbolic link to missing-target.yaml" in result.output
    assert Path("dangling.yaml").is_symlink() and not Path("missing-target.yaml").exists()


def test_new_refuses_a_pipe_even_with_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.yaml")
    for force in ([], ["--force"]):
        result = run("new", "pipe.yaml", *force)
        assert result.exit_code == 2 and "cannot write pipe.yaml: it is a pipe (FIFO)" in result.output
    assert stat.S_ISFIFO(os.lstat("pipe.yaml").st_mode)
    assert sorted(os.listdir()) == ["pipe.yaml"]  # not even the schema


def test_new_force_writes_through_a_symbolic_link(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("real.yaml").write_text("precious\n")
    Path("link.yaml").symlink_to("real.yaml")
    refused = run("new", "link.yaml")
    assert refused.exit_code == 2 and "link.yaml already exists" in refused.output
    assert Path("real.yaml").read_text() == "precious\n"

    result = run("new", "link.yaml", "--force")
    assert result.exit_code == 0, result.output
    assert "wrote real.yaml, which link.yaml links to" in result.output
    assert Path("link.yaml").is_symlink() and os.readlink("link.yaml") == "real.yaml"
    assert "rulesengine: 1" in Path("real.yaml").read_text()
    assert run("validate", "--strict", "link.yaml").exit_code == 0


def test_new_checks_the_schema_beside_it_before_writing_anything(tmp_path):
    makers = {
        "folder": lambda p: p.mkdir(),
        "pipe (FIFO)": os.mkfifo,
        "symbolic link to elsewhere.json, which does not exist": lambda p: p.symlink_to("elsewhere.json"),
    }
    for kind, make in makers.items():
        folder = tmp_path / kind.split()[0]
        folder.mkdir()
        schema_entry = folder / authoring.SCHEMA_FILE
        make(schema_entry)
        before = schema_entry.lstat()
        for _ in range(2):  # the same answer again: nothing was written the first time
            result = run("new", str(folder / "game.yaml"))
            assert result.exit_code == 2
            assert f"cannot write {schema_entry}" in result.output and f"it is a {kind}" in result.output
            assert not (folder / "game.yaml").exists()
        after = schema_entry.lstat()
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # the very same entry


def test_new_writes_both_files_or_neither(tmp_path, monkeypatch):
    real_write = authoring.atomic.write_text
    written: list[Path] = []

    def second_fails(path, text, **kwargs):
        if written:
            raise OSError(28, "No space left on device")
        real_write(path, text, **kwargs)
        written.append(Path(path))

    monkeypatch.setattr(authoring.atomic, "write_text", second_fails)
    result = run("new", str(tmp_path / "made" / "here" / "game.yaml"))
    assert result.exit_code == 2 and written == [tmp_path / "made" / "here" / authoring.SCHEMA_FILE]
    assert f"cannot write {tmp_path / 'made' / 'here' / 'game.yaml'}: No space left on device" in result.output
    assert list(tmp_path.iterdir()) == []  # the schema written first, and the folders made, are removed


def test_new_extends_a_shipped_name_only_where_the_name_means_it(tmp_path, monkeypatch):
    """In a folder with its own pan.yaml, `extends: pan` names that file: new would describe the
    shipped Pan but write a file built on another game, so it says so and writes nothing."""
    monkeypatch.chdir(tmp_path)
    Path("pan.yaml").write_text((ROOT / "examples" / "tutorial-game.yaml").read_text())
    result = run("new", "variant.yaml", "--extends", "pan")
    assert result.exit_code == 2 and not Path("variant.yaml").exists()
    assert "pan.yaml" in result.output and "--extends ./pan.yaml" in result.output

    elsewhere = tmp_path / "elsewhere"  # no pan.yaml there: pan is the shipped one
    assert run("new", str(elsewhere / "variant.yaml"), "--extends", "pan").exit_code == 0
    assert run("validate", "--strict", str(elsewhere / "variant.yaml")).exit_code == 0

    local = run("new", "variant.yaml", "--extends", "./pan.yaml")
    assert local.exit_code == 0, local.output
    own = load_ruleset(Path("pan.yaml"))
    assert f"# A variant of {own.name}." in Path("variant.yaml").read_text()
    assert load_ruleset(Path("variant.yaml")).name == f"{own.name} (variant)"
    assert run("validate", "--strict", "variant.yaml").exit_code == 0


@pytest.mark.parametrize("name", ["pan.yaml", "pan"])
def test_new_refuses_a_variant_whose_own_name_its_extends_would_mean(tmp_path, monkeypatch, name):
    # pan.yaml with `extends: pan` would extend itself (RE013), even over an existing file
    monkeypatch.chdir(tmp_path)
    result = run("new", name, "--extends", "pan")
    assert result.exit_code == 2 and not Path(name).exists()
    assert "would name the new file" in result.output and "pan-variant.yaml" in result.output
    Path("pan.yaml").write_text("mine\n")  # (a file named pan would be the base --extends names)
    assert run("new", "pan.yaml", "--extends", "pan", "--force").exit_code == 2
    assert Path("pan.yaml").read_text() == "mine\n"


def test_new_names_the_file_that_is_no_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("mine\n")
    result = run("new", "notes.txt/game.yaml")
    assert result.exit_code == 2
    assert result.output.strip() == "Error: cannot write notes.txt/game.yaml: notes.txt is not a folder"


def test_new_refuses_a_name_ending_in_a_slash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("newdir/", "deeper/newdir/"):
        result = run("new", name)
        assert result.exit_code == 2
        assert f"{name} names a folder, not a file: name the file to write in it, e.g. {name}game.yaml" in result.output
    assert list(tmp_path.iterdir()) == []
