"""`validate` on the paths it is given: a file met twice reports its problems once, a folder
that cannot be read is an error, and `--format json` prints JSON when a path names nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import refuse_listing
from tests.test_diagnostics import GAME

BROKEN = GAME.replace("deal 3 of stock to hand from", "deal 3 of stock to hands from")  # RE303, one error
VARIANT = "rulesengine: 1\nextends: base.yaml\nname: Variant\n"


def run(*args: str, cwd: Path) -> tuple[int, str, str]:
    """`validate` in this process, in `cwd`: its exit code, standard output and error."""
    from rulesengine.cli import main

    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["validate", *args])
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def variant(tmp_path: Path) -> Path:
    """A folder with a base that has one error and a variant that extends it."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "base.yaml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "rules" / "variant.yaml").write_text(VARIANT, encoding="utf-8")
    return tmp_path


# ---- each problem once -------------------------------------------------------------------------


def test_a_base_checked_with_its_variant_reports_its_problem_once_in_every_format(variant: Path):
    code, out, _ = run("rules", cwd=variant)
    assert code == 1 and out.count("error[RE303]") == 1, out
    assert out.splitlines()[-1] == "2 file(s) checked: 1 error(s), 0 warning(s); invalid"
    code, out, _ = run("--format", "json", "rules", cwd=variant)
    # named as the folder walk met it first, not by the absolute path the variant gives
    assert code == 1 and [(d["file"], d["code"]) for d in json.loads(out)] == [("rules/base.yaml", "RE303")]
    code, out, _ = run("--format", "github", "rules", cwd=variant)
    assert code == 1 and len(out.splitlines()) == 1 and out.startswith("::error file=rules/base.yaml,line=")


def test_the_variant_named_first_names_the_base_by_the_path_it_gives(variant: Path):
    code, out, _ = run("--format", "json", "rules/variant.yaml", "rules/base.yaml", cwd=variant)
    assert code == 1 and [d["file"] for d in json.loads(out)] == [str((variant / "rules" / "base.yaml").resolve())]


def test_a_file_named_twice_is_checked_once_under_the_name_given_first(variant: Path):
    base = variant / "rules" / "base.yaml"
    names = ("rules/base.yaml", "./rules/base.yaml", str(base), "rules/../rules/base.yaml")
    code, out, err = run(*names, cwd=variant)
    assert code == 1 and out.count("error[RE303]") == 1, out
    assert out.splitlines()[-1] == "1 file(s) checked: 1 error(s), 0 warning(s); invalid"
    assert err.count("note:") == 1  # no marker: noted once, not once per name
    code, out, _ = run("--format", "json", *names, cwd=variant)
    assert [d["file"] for d in json.loads(out)] == ["rules/base.yaml"]


def test_the_same_problem_in_two_files_is_reported_for_each(variant: Path):
    (variant / "rules" / "copy.yaml").write_text(BROKEN, encoding="utf-8")
    code, out, _ = run("--format", "json", "rules", cwd=variant)
    assert code == 1 and [d["file"] for d in json.loads(out)] == ["rules/base.yaml", "rules/copy.yaml"]


def test_two_links_to_one_file_outside_are_refused_each(tmp_path: Path):
    (tmp_path / "outside.yaml").write_text(GAME, encoding="utf-8")
    (tmp_path / "rules").mkdir()
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / "rules" / name).symlink_to(tmp_path / "outside.yaml")
    code, out, _ = run("--format", "json", "rules", "rules/a.yaml", cwd=tmp_path)
    assert code == 1 and [(d["file"], d["code"]) for d in json.loads(out)] == [
        ("rules/a.yaml", "RE023"),
        ("rules/b.yaml", "RE023"),
    ]


# ---- a folder that cannot be read --------------------------------------------------------------


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder `locked` with a broken rule file, which the system refuses to list (as it does
    to a user without permission; the tests may run as root, who may read everything)."""
    (tmp_path / "valid.yaml").write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "err.yaml").write_text(BROKEN, encoding="utf-8")
    assert run("locked", cwd=tmp_path)[0] == 1  # readable, its error is found
    refuse_listing(monkeypatch, "locked")
    return tmp_path


@pytest.mark.parametrize("given", [["."], ["locked", "valid.yaml"], ["locked"]])
def test_a_folder_that_cannot_be_read_is_an_error_at_its_name(locked: Path, given: list[str]):
    code, out, err = run(*given, cwd=locked)
    assert code == 1 and "Traceback" not in out + err
    assert "locked:1:1: error[RE009]: cannot read folder: Permission denied; the files in it are not checked" in out
    assert "RE303" not in out and "no rule files found" not in err
    assert out.splitlines()[-1].endswith("1 error(s), 0 warning(s); invalid")
    code, out, _ = run("--format", "json", *given, cwd=locked)
    assert code == 1 and [(d["file"], d["code"], d["line"]) for d in json.loads(out)] == [("locked", "RE009", 1)]
    code, out, _ = run("--format", "github", *given, cwd=locked)
    assert code == 1 and out.startswith("::error file=locked,line=1,col=1,")


def test_a_folder_that_cannot_be_read_is_reported_once(locked: Path):
    code, out, _ = run("--format", "json", "locked", "./locked", ".", cwd=locked)
    assert code == 1 and [d["file"] for d in json.loads(out)] == ["locked"]


# ---- json when a path names nothing ------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (["missing.yaml"], "no such file or folder, nor a shipped ruleset: missing.yaml"),
        (["empty"], "no rule files found"),
        ([""], "a path to check cannot be empty"),
        ([], "Missing argument"),
        (["--bogus", "valid.yaml"], "No such option"),
        (["--", "--format=text"], "nor a shipped ruleset: --format=text"),
    ],
)
def test_json_is_printed_when_nothing_could_be_checked(tmp_path: Path, given: list[str], reason: str):
    (tmp_path / "empty").mkdir()
    (tmp_path / "valid.yaml").write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    code, out, err = run("--format", "json", *given, cwd=tmp_path)
    assert code == 2 and json.loads(out) == [] and reason in err
    code, out, err = run("--format", "text", *given, cwd=tmp_path)
    assert code == 2 and out == "" and reason in err


def test_the_files_that_exist_are_checked_when_another_path_names_nothing(variant: Path):
    code, out, err = run("--format", "json", "rules/base.yaml", "missing.yaml", "nor-this.yaml", cwd=variant)
    assert code == 2 and [d["code"] for d in json.loads(out)] == ["RE303"]
    assert "missing.yaml" in err and "nor-this.yaml" in err  # each one named
    (variant / "valid.yaml").write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    code, out, err = run("valid.yaml", "missing.yaml", cwd=variant)
    assert code == 2  # not called valid: a path given was not checked
    assert out == "1 file(s) checked: 0 error(s), 0 warning(s); incomplete: a path given was not checked\n"
    assert "no such file or folder, nor a shipped ruleset: missing.yaml" in err


def test_the_last_format_given_decides_when_the_command_line_is_refused(tmp_path: Path):
    assert run("--format", "json", "--format", "text", "--bogus", cwd=tmp_path)[1] == ""
    assert json.loads(run("--format=text", "--format=json", "--bogus", cwd=tmp_path)[1]) == []


# ---- hidden folders ----------------------------------------------------------------------------


@pytest.fixture
def with_venv(tmp_path: Path) -> Path:
    """A repository with a valid rule file, and broken ones in a local virtual environment and
    in a hidden file of its own (as a tool's cache may hold)."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "game.yaml").write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    installed = tmp_path / ".venv" / "lib" / "site-packages" / "rulesengine" / "rulesets"
    installed.mkdir(parents=True)
    (installed / "broken.yaml").write_text("rulesengine: 1\n" + BROKEN, encoding="utf-8")
    (tmp_path / "rules" / ".draft.yaml").write_text("rulesengine: 1\n" + BROKEN, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("given", [["."], ["rules"], [".", "rules"]])
def test_a_folder_walk_skips_hidden_folders_and_files(with_venv: Path, given: list[str]):
    code, out, err = run("--strict", *given, cwd=with_venv)
    assert (code, out, err) == (0, "1 file(s) checked: 0 error(s), 0 warning(s); valid\n", "")


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ([".venv"], ".venv/lib/site-packages/rulesengine/rulesets/broken.yaml:"),
        (["./.venv/lib"], ".venv/lib/site-packages/rulesengine/rulesets/broken.yaml:"),
        ([".", ".venv/lib/site-packages/rulesengine/rulesets/broken.yaml"], ".venv/lib/site-packages/"),
        (["rules/.draft.yaml"], "rules/.draft.yaml:"),
        (["rules", "rules/.draft.yaml"], "rules/.draft.yaml:"),
    ],
)
def test_a_hidden_folder_or_file_named_is_checked(with_venv: Path, given: list[str], problem: str):
    code, out, _ = run(*given, cwd=with_venv)
    assert code == 1 and out.count("error[RE303]") == 1 and problem in out, out


# ---- links that lead nowhere or in a loop ------------------------------------------------------


@pytest.fixture
def broken_links(tmp_path: Path) -> Path:
    """A folder `rules` with a valid rule file, a link that leads nowhere and two links that
    lead to each other, among rule files and scenario test files."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "game.yaml").write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    (rules / "gone.yaml").symlink_to("deleted.yaml")
    (rules / "gone.tests.yaml").symlink_to("deleted.tests.yaml")
    (rules / "loop-a.yml").symlink_to("loop-b.yml")
    (rules / "loop-b.yml").symlink_to("loop-a.yml")
    return tmp_path


def test_links_that_lead_nowhere_or_in_a_loop_in_a_folder_are_reported(broken_links: Path):
    code, out, _ = run("rules", cwd=broken_links)
    assert code == 1 and "Traceback" not in out
    lines = out.splitlines()
    assert sorted(lines[:-1]) == [
        "rules/gone.tests.yaml:1:1: error[RE009]: cannot read file: No such file or directory",
        "rules/gone.yaml:1:1: error[RE009]: cannot read file: No such file or directory",
        "rules/loop-a.yml:1:1: error[RE009]: cannot read file: a loop of symbolic links",
        "rules/loop-b.yml:1:1: error[RE009]: cannot read file: a loop of symbolic links",
    ]
    assert lines[-1] == "5 file(s) checked: 4 error(s), 0 warning(s); invalid"
    code, out, _ = run("--format", "json", "rules", cwd=broken_links)
    assert code == 1 and sorted((d["file"], d["code"]) for d in json.loads(out)) == [
        ("rules/gone.tests.yaml", "RE009"),
        ("rules/gone.yaml", "RE009"),
        ("rules/loop-a.yml", "RE009"),
        ("rules/loop-b.yml", "RE009"),
    ]


@pytest.mark.parametrize("name", ["rules/loop-a.yml", "rules/gone.yaml", "pipe.yaml"])
def test_a_file_refused_unread_is_counted_as_a_file_checked(broken_links: Path, name: str):
    os.mkfifo(broken_links / "pipe.yaml")
    code, out, _ = run(name, cwd=broken_links)
    assert code == 1 and f"{name}:1:1: error[RE009]: cannot read file: " in out
    assert out.splitlines()[-1] == "1 file(s) checked: 1 error(s), 0 warning(s); invalid"


def test_a_folder_that_cannot_be_read_is_not_counted_as_a_file(locked: Path):
    code, out, _ = run("locked", "valid.yaml", cwd=locked)
    assert code == 1 and out.splitlines()[-1] == "1 file(s) checked: 1 error(s), 0 warning(s); invalid"


@pytest.mark.parametrize("command", ["run", "describe", "check", "compile"])
def test_a_rule_file_in_a_folder_that_may_not_be_entered_is_named_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
):
    from rulesengine.cli import main

    (tmp_path / "locked").mkdir()
    rules = tmp_path / "locked" / "game.yaml"
    rules.write_text("rulesengine: 1\n" + GAME, encoding="utf-8")
    stat = os.stat

    def refusing(path, *args, **kwargs):  # as the system refuses a user without permission (root may enter)
        if "locked" in Path(path).parts:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", refusing)
    extra = ["-n", "1"] if command == "check" else []
    result = CliRunner().invoke(main, [command, str(rules), *extra])
    assert result.exit_code == 2, result.output
    assert f"cannot read ruleset '{rules}': Permission denied" in result.output
    assert "not a shipped ruleset" not in result.output and "Traceback" not in result.output
