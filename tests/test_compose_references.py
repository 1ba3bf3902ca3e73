"""RE012 says what is wrong with a file that `extends` or `include` names: missing (with the
shipped names as a hint), there but not a regular file, or there but not to be read (with the
system's reason); never "neither a file nor a shipped ruleset" for a file that is there."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from rulesengine.api import validate_file
from rulesengine.diagnostics import Diagnostic
from rulesengine.resources import shipped_rulesets

VARIANT = "rulesengine: 1\n{key}: {name}\nname: Variant\n"


def the_reference_problem(folder: Path, name: str, key: str = "extends") -> Diagnostic:
    """The one problem of a variant in `folder` whose `key` names `name`."""
    variant = folder / "variant.yaml"
    variant.write_text(VARIANT.format(key=key, name=name), encoding="utf-8")
    _, problems = validate_file(variant)
    column = len(f"{key}: ") + 1 + name.startswith("[")  # at the name, in a list too
    assert [(p.code, p.span.line, p.span.column) for p in problems] == [("RE012", 2, column)], problems
    return problems[0]


@pytest.mark.parametrize(("name", "key"), [("pipe.yaml", "extends"), ("pipe", "extends"), ("[pipe.yaml]", "include")])
def test_a_pipe_is_named_as_not_a_regular_file(tmp_path: Path, name: str, key: str):
    os.mkfifo(tmp_path / "pipe.yaml")
    problem = the_reference_problem(tmp_path, name, key)
    which = "which" if name != "pipe" else "and 'pipe.yaml'"
    assert problem.message == f"'{key}' names '{name.strip('[]')}', {which} is not a regular file"
    assert problem.hint is not None and "shipped rulesets" not in problem.hint and "a pipe" in problem.hint


def test_a_folder_is_named_as_not_a_regular_file(tmp_path: Path):
    (tmp_path / "house").mkdir()
    problem = the_reference_problem(tmp_path, "house")
    assert problem.message == "'extends' names 'house', which is not a regular file"


def test_a_file_the_system_refuses_to_look_up_is_named_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # as a user without permission on `locked` is refused (the tests may run as root)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "base.yaml").write_text("rulesengine: 1\nname: Base\n", encoding="utf-8")
    status = Path.stat

    def refusing(path: Path, **kwargs: bool) -> os.stat_result:
        if path.parent.name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return status(path, **kwargs)

    monkeypatch.setattr(Path, "stat", refusing)
    problem = the_reference_problem(tmp_path, "locked/base.yaml")
    assert problem.message == "'extends' names 'locked/base.yaml', which cannot be read: Permission denied"
    assert problem.hint is not None and "may not be read" in problem.hint


def test_a_loop_of_symbolic_links_is_named_with_its_reason(tmp_path: Path):
    (tmp_path / "a.yaml").symlink_to("b.yaml")
    (tmp_path / "b.yaml").symlink_to("a.yaml")
    problem = the_reference_problem(tmp_path, "a")
    assert problem.message == f"'extends' names 'a', and 'a.yaml' cannot be read: {os.strerror(errno.ELOOP)}"
    assert problem.hint is None


@pytest.mark.parametrize("name", ["nothing-here", "gone.yaml", "locked/base.yaml"])
def test_a_name_that_is_missing_is_still_named_so_with_the_shipped_rulesets(tmp_path: Path, name: str):
    (tmp_path / "gone.yaml").symlink_to("deleted.yaml")  # a link that leads nowhere names no file
    problem = the_reference_problem(tmp_path, name)
    assert problem.message == f"'extends' names '{name}', which is neither a file nor a shipped ruleset"
    assert problem.hint == f"shipped rulesets: {', '.join(shipped_rulesets())}"
