"""What keeps `validate` quick: lazy imports, one parse per file, the parser built once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import validate as bench
from rulesengine import RuleFileError
from rulesengine.scenario_file import ruleset_named
from rulesengine.source import load_yaml


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; {code}; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_importing_the_package_loads_no_pipeline_stage() -> None:
    loaded = _modules_after("import rulesengine")
    assert not {"rulesengine.engine", "rulesengine.compile", "rulesengine.check", "lark", "yaml"} & loaded


def test_public_names_resolve_on_first_use() -> None:
    import rulesengine

    game = rulesengine.make_game("pan", players=3)
    assert isinstance(game, rulesengine.Game) and issubclass(rulesengine.RuleFileError, rulesengine.RulesEngineError)
    assert "make_game" in dir(rulesengine)
    assert rulesengine.api.make_game is rulesengine.make_game  # a submodule, as an attribute
    with pytest.raises(AttributeError):
        rulesengine.no_such_name  # noqa: B018


def test_a_text_is_parsed_once_and_its_errors_stay_errors() -> None:
    text = "a: 1\nb: [x, y]\n"
    assert load_yaml(text, "f.yaml") is load_yaml(text, "f.yaml")
    assert load_yaml(text, "g.yaml") is not load_yaml(text, "f.yaml")  # spans name the file
    for _ in range(2):
        with pytest.raises(RuleFileError) as caught:
            load_yaml("a: 1\na: 2\n", "dup.yaml")
        assert [d.code for d in caught.value.diagnostics] == ["RE002"]


def test_the_grammar_cache_lives_in_the_users_cache_folder(tmp_path, monkeypatch) -> None:
    from rulesengine import resources

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = resources.grammar_cache_file()
    assert isinstance(path, str) and path.startswith(str(tmp_path / "rulesengine"))
    monkeypatch.setenv("RULESENGINE_CACHE", "0")
    assert resources.grammar_cache_file() is False


def test_the_validation_benchmark_says_when_yamllint_is_missing(monkeypatch, capsys) -> None:
    monkeypatch.setattr(bench, "run_once", lambda command: (0.5, 0.6))
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    monkeypatch.setattr(bench, "_beside_python", lambda name: None)
    bench.main(["--rounds", "1", "examples"])
    out = capsys.readouterr().out
    assert "not installed" in out and "500" in out


def test_validate_parses_each_file_once_however_many_files(tmp_path, monkeypatch) -> None:
    # More files than the parse cache keeps: each is recognised and checked in turn, so the
    # tree read to tell a rule file from other YAML is the one the check reads.
    from click.testing import CliRunner

    from rulesengine import cli, source

    game = (bench.ROOT / "examples" / "tutorial-game.yaml").read_text(encoding="utf-8")
    for index in range(20):
        (tmp_path / f"game{index:02}.yaml").write_text(game, encoding="utf-8")
        (tmp_path / f"other{index:02}.yaml").write_text(f"colour: blue\nsize: {index}\n", encoding="utf-8")
    parsed: list[str] = []
    original = source._load_yaml

    def counted(text: str, file: str):
        parsed.append(file)
        return original(text, file)

    source._load_yaml_once.cache_clear()
    monkeypatch.setattr(source, "_load_yaml", counted)
    result = CliRunner().invoke(cli.main, ["validate", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "20 file(s) checked: 0 error(s)" in result.output
    assert len(parsed) == 40 and len(set(parsed)) == 40  # every file once, rule file or not


def test_validate_checks_a_ruleset_once_though_its_tests_name_it_again(tmp_path, monkeypatch) -> None:
    # The tests name their ruleset as '../game.yaml': the same file the folder walk gives,
    # so the check validate made of it is the one the tests are resolved against.
    from click.testing import CliRunner

    from rulesengine import api, check, cli

    shipped = bench.ROOT / "rulesets"
    (tmp_path / "tests").mkdir()
    (tmp_path / "padan.yaml").write_text((shipped / "padan.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    tests = (shipped / "tests" / "padan.tests.yaml").read_text(encoding="utf-8")
    # the rules document stays behind: the file names none (its clauses not testable then warn)
    tests = tests.replace("rules: ../../seeds/padan.md\n", "")
    (tmp_path / "tests" / "padan.tests.yaml").write_text(tests, encoding="utf-8")
    (tmp_path / "blocks").mkdir()
    (tmp_path / "blocks" / "tricks.yaml").write_bytes((shipped / "blocks" / "tricks.yaml").read_bytes())
    checked: list[str] = []
    original = check.Checker.run

    def counted(self):
        checked.append(self.file)
        return original(self)

    monkeypatch.setattr(check.Checker, "run", counted)
    monkeypatch.setattr(api, "_kept", {})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli.main, ["validate", "."])
    assert result.exit_code == 0, result.output
    assert "3 file(s) checked: 0 error(s), 1 warning(s)" in result.output and "warning[RE512]" in result.output
    assert checked == ["padan.yaml"]


def test_a_ruleset_named_through_dot_dot_is_named_as_a_folder_walk_names_it(tmp_path) -> None:

    (tmp_path / "games" / "tests").mkdir(parents=True)
    (tmp_path / "games" / "game.yaml").write_text("name: g\n", encoding="utf-8")
    found = ruleset_named("../game.yaml", tmp_path / "games" / "tests")
    assert found == tmp_path / "games" / "game.yaml"
    # Past a symbolic link '..' leaves the folder the link points into: the path stays as it is.
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    (tmp_path / "elsewhere" / "game.yaml").write_text("name: other\n", encoding="utf-8")
    (tmp_path / "games" / "link").symlink_to(tmp_path / "elsewhere" / "deep")
    found = ruleset_named("../game.yaml", tmp_path / "games" / "link")
    assert found is not None and found.read_text(encoding="utf-8") == "name: other\n"
    assert found == tmp_path / "games" / "link" / ".." / "game.yaml"


def test_validating_a_loaded_ruleset_keeps_the_ruleset_loaded_before(tmp_path) -> None:
    # Games compare rulesets by identity (an OpenSpiel name is registered for one), so a
    # check made by validate must not replace the ruleset a program already holds.
    from rulesengine import api

    path = tmp_path / "game.yaml"
    path.write_bytes((bench.ROOT / "examples" / "tutorial-game.yaml").read_bytes())
    loaded = api.load_ruleset(str(path))
    validated, problems = api.validate_file(str(path))
    assert validated is not None and validated is not loaded and not problems
    assert api.load_ruleset(str(path)) is loaded


def test_the_validation_benchmark_prints_instructions_when_asked(monkeypatch, capsys) -> None:
    counted: list[list[str]] = []

    def count(command, cwd=None, env=None, check=True):
        counted.append(command)
        return (3_000_000 if "rulesengine.cli" in command else 5_000_000), ""

    monkeypatch.setattr(bench, "run_once", lambda command: (0.5, 0.6))
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/" + name)  # valgrind too
    monkeypatch.setattr(bench.callgrind, "instructions", count)
    bench.main(["--rounds", "1", "--instructions", "examples"])
    out = capsys.readouterr().out
    assert "3,000,000" in out and "5,000,000" in out
    assert "validate / yamllint (instructions): 0.60" in out
    assert len(counted) == 2 and all(command[-1] == "examples" for command in counted)
    monkeypatch.setattr(bench.shutil, "which", lambda name: None if name == "valgrind" else "/usr/bin/" + name)
    bench.main(["--rounds", "1", "--instructions", "examples"])
    assert "valgrind is not installed" in capsys.readouterr().out


def test_a_tidy_path_that_names_a_link_loop_is_not_taken(tmp_path) -> None:
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    (tmp_path / "elsewhere" / "game.yaml").write_text("name: g\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere" / "deep")
    (tmp_path / "game.yaml").symlink_to(tmp_path / "game.yaml")  # a loop where '..' would lead
    found = ruleset_named("link/../game.yaml", tmp_path)
    assert found == tmp_path / "link" / ".." / "game.yaml"


def test_validating_a_rule_file_loads_the_checker_and_not_the_engine() -> None:
    game = str(bench.ROOT / "examples" / "tutorial-game.yaml")
    script = (
        "import sys\n"
        "from rulesengine import cli\n"
        "try:\n"
        f"    cli.main.main(['validate', {game!r}], standalone_mode=False)\n"
        "except SystemExit as stop:\n"
        "    assert stop.code == 0, stop.code\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert {"rulesengine.check", "rulesengine.parse"} <= loaded
    unused = {"rulesengine.engine", "rulesengine.compile", "rulesengine.agents", "rulesengine.analysis"}
    assert not unused & loaded


def test_the_commands_defined_elsewhere_are_listed_and_run() -> None:
    from click.testing import CliRunner

    from rulesengine import cli

    listing = CliRunner().invoke(cli.main, ["--help"])
    assert all(f"  {name} " in listing.output for name in ("check", "compare", "simulate", "validate"))
    done = CliRunner().invoke(cli.main, ["simulate", "pan", "--games", "2", "--json"])
    assert done.exit_code == 0, done.output
    assert '"games": 2' in done.output


def test_the_command_collects_garbage_less_often_but_importing_it_changes_nothing() -> None:
    # The threshold is the command's own setting: a program importing the package keeps its own.
    code = (
        "import gc, sys; before = gc.get_threshold(); import rulesengine.cli as cli; "
        "assert gc.get_threshold() == before, 'import'; "
        "sys.argv = ['rulesengine', 'validate', 'examples/tutorial-game.yaml']; "
        "cli.quick_exit = lambda code: print(gc.get_threshold()[0], code); cli.entry()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=bench.ROOT)
    threshold, code_seen = out.stdout.split()[-2:]
    assert int(threshold) >= 10_000 and code_seen == "0"


def _nested(depth: int, inner: str = "x") -> str:
    return "[" * depth + inner + "]" * depth


def _block(depth: int) -> str:
    return "".join(f"{'  ' * level}k{level}:\n" for level in range(depth)) + f"{'  ' * depth}leaf: 1\n"


# Texts around the nesting limit, with the builder's other refusals before, inside and after
# the deep part: a tag, a duplicate key, a key that is a list, a merge key, an alias to its
# own parent, an alias repeating a deep list, too many nodes, a scalar at the limit.
_DEEP_TEXTS = [
    *(f"a: {_nested(depth)}\n" for depth in (62, 63, 64, 65, 66)),
    *(_block(depth) for depth in (62, 63, 64, 65)),
    "- " * 63 + "x\n",
    "- " * 64 + "x\n",
    "- " * 65 + "x\n",
    f"a: !!set {{x}}\nb: {_nested(65)}\n",
    f"b: {_nested(65)}\na: !!set {{x}}\n",
    f"a: 1\na: {_nested(65)}\n",
    f"a: {_nested(65)}\na: 1\n",
    f"? {_nested(65)}\n: 1\n",
    f"? {_nested(3)}\n: 1\nb: {_nested(65)}\n",
    f"<<: {{x: 1}}\nb: {_nested(65)}\n",
    f"a: &a [*a]\nb: {_nested(65)}\n",
    f"a: &deep {_nested(40)}\nb: [{', '.join(['*deep'] * 3)}]\n",
    f"a: &deep {_nested(40)}\nb: {_nested(30, '*deep')}\n",
    f"a: &deep {_nested(65)}\nb: *deep\n",
    "a: &a [" + ", ".join(["x"] * 300) + "]\nb: &b [" + ", ".join(["*a"] * 300) + "]\nc: " + _nested(65) + "\n",
    f"a: {_nested(63, '[x]')}\n",
    f"a: {_nested(64, 'x')}\nb: {_nested(2)}\n",
]


@pytest.mark.parametrize("text", _DEEP_TEXTS)
def test_a_tree_read_before_its_depth_is_counted_is_refused_as_counting_first_refuses_it(text) -> None:
    # libyaml's tree is read before its depth is counted, and counted only when the builder
    # refuses it: the problems are those of counting first, and then reading.
    from rulesengine import source

    def problems(load) -> list[tuple[str, int, int, str]]:
        try:
            load()
        except RuleFileError as error:
            return [(d.code, d.span.line, d.span.column, d.message) for d in error.diagnostics]
        return []

    def counted_first() -> None:
        try:
            source._check_depth(text, "deep.yaml", source._FAST_LOADER)
        except source._TooDeep as exc:
            raise source._too_deep(exc.span) from None
        source._load_yaml(text, "deep.yaml")

    assert problems(lambda: source._load_yaml(text, "deep.yaml")) == problems(counted_first)


def test_a_text_scalar_is_the_value_the_yaml_constructor_gives_and_spans_are_yamls() -> None:
    # The builder takes a text's value and a node's span without the constructor: the same.
    import yaml

    from rulesengine import source

    files = sorted((bench.ROOT / "rulesets").rglob("*.yaml")) + sorted((bench.ROOT / "examples").glob("*.yaml"))
    files += sorted((bench.ROOT / "tests" / "corpus").rglob("*.yaml"))
    texts = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        try:
            root = yaml.compose(text, Loader=source._FAST_LOADER)
        except yaml.YAMLError:
            continue
        builder = source._Builder(str(path), text)
        constructor = yaml.SafeLoader("")
        waiting = [root] if root is not None else []
        seen: set[int] = set()
        while waiting:
            node = waiting.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            assert builder.span(node) == source._span(str(path), node, builder.breaks)
            if isinstance(node, yaml.ScalarNode):
                if node.tag == source._STR_TAG:
                    texts += 1
                    assert constructor.construct_object(node, deep=True) == node.value
            elif isinstance(node, yaml.SequenceNode):
                waiting.extend(node.value)
            else:
                waiting.extend(item for pair in node.value for item in pair)
    assert texts > 5000


def test_a_tree_positioned_by_its_ends_is_positioned_as_lark_positions_it() -> None:
    # The parser's builders set the two positions the conversion reads; lark's own set them
    # all: every text of the shipped and broken rule files (and a cut of each, which fails
    # somewhere) gives the same tree, positions and failure from both.
    import lark
    import yaml

    from rulesengine import parse
    from rulesengine.source import plain

    fast, own = parse._parser(), parse._lark()
    assert not any(isinstance(c, lark.parse_tree_builder.PropagatePositions) for c in fast._callbacks.values())
    texts: set[str] = set()
    files = sorted((bench.ROOT / "rulesets").rglob("*.yaml")) + sorted((bench.ROOT / "examples").glob("*.yaml"))
    for path in files + sorted((bench.ROOT / "tests" / "corpus").rglob("*.yaml")):
        try:
            waiting = [plain(load_yaml(path.read_bytes().decode("utf-8"), str(path)))]
        except (RuleFileError, UnicodeDecodeError, yaml.YAMLError):
            continue
        while waiting:
            value = waiting.pop()
            if isinstance(value, str):
                texts.update((value, value[: len(value) // 2]))
            elif isinstance(value, dict):
                waiting.extend(value)
                waiting.extend(value.values())
            elif isinstance(value, list):
                waiting.extend(value)
    assert len(texts) > 2000

    def outcome(parser: lark.Lark, text: str, start: str) -> object:
        try:
            tree = parser.parse(text, start=start)
        except lark.exceptions.UnexpectedInput as error:
            return type(error).__name__, str(error)
        positions = []
        waiting = [tree]
        while waiting:
            node = waiting.pop()
            meta = node.meta
            positions.append((node.data, meta.empty) if meta.empty else (node.data, meta.start_pos, meta.end_pos))
            waiting.extend(child for child in node.children if isinstance(child, lark.Tree))
        return tree, positions

    for text in sorted(texts):
        for start in ("start_expr", "start_statement"):
            assert outcome(fast, text, start) == outcome(own, text, start), (text, start)
