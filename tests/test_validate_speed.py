"""What keeps `validate` quick: lazy imports, one parse per file, the parser built once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import validate as bench
from rulesengine import RuleFileError
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
