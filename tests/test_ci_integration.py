"""The pre-commit hook and the GitHub Action, run for real against a repository that has
rule files beside a CI workflow and pre-commit's own configuration.

Each tool is installed once (one test each): pre-commit builds its own environment from a
git copy of this checkout, and the action's install step pip-installs this checkout into
a fresh virtual environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import virtualenv  # comes with pre-commit, which the test extra installs
import yaml

from rulesengine.api import validate_file
from tests.test_diagnostics import GAME as SMALL_GAME

ROOT = Path(__file__).resolve().parent.parent
# what a wheel of rulesengine is built from (pyproject.toml names the rest)
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml", "action.yml")
PACKAGE_FOLDERS = ("rulesengine", "grammar", "rulesets")

GAME = "rulesengine: 1\n" + SMALL_GAME  # the diagnostics tests' small game, marked as a rule file
BROKEN = GAME.replace("moves: [lay]", "moves: [lya]")  # an unknown move: an error
# a move no phase lists: a warning
WARNED = GAME.replace("triggers:", "  draw:\n    effects:\n      - move top(stock) to hand[me]\ntriggers:")
WORKFLOW = """\
name: checks
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make test
"""
OLD_VARIANT = "extends: pan\nname: Pan for four\nplayers: {max: 4}\n"  # written before the marker existed


def _env(**extra: str) -> dict[str, str]:
    """The environment of a tool run: this interpreter's tools first, this checkout not on
    the path (so the installed copy is what runs), git identity set."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="test",
        GIT_COMMITTER_EMAIL="test@example.com",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.update(extra)
    return env


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=folder, env=_env(), capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _copy_of_this_checkout(target: Path) -> str:
    """A git repository holding this checkout's package files as they are now (committed or
    not); returns the commit, so `rev:` names exactly the hook definition under test."""
    for name in PACKAGE_FILES:
        shutil.copy2(ROOT / name, target / name)
    for name in PACKAGE_FOLDERS:
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "rulesengine as under test")
    return _git(target, "rev-parse", "HEAD")


def _a_repository(folder: Path) -> None:
    """An ordinary repository: rule files, an old unmarked variant, a CI workflow."""
    (folder / "rules").mkdir(parents=True)
    (folder / "rules" / "game.yaml").write_text(GAME)
    (folder / "rules" / "pan-for-four.yml").write_text(OLD_VARIANT)
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / ".github" / "workflows" / "checks.yml").write_text(WORKFLOW)


def _place(path: Path, needle: str) -> str:
    """`file:line:col` where `needle` stands in a file, as validate names it."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return f"{number}:{line.index(needle) + 1}"
    raise AssertionError(f"{needle!r} not in {path}")


def test_the_pre_commit_hook_with_its_default_files_works_in_an_ordinary_repository(tmp_path):
    hook_repo, project = tmp_path / "rulesengine", tmp_path / "project"
    hook_repo.mkdir()
    project.mkdir()
    rev = _copy_of_this_checkout(hook_repo)
    _a_repository(project)
    _git(project, "init", "-q")

    def configure(args: list[str] | None = None) -> None:
        hook: dict[str, object] = {"id": "rulesengine-validate"}  # the default files: every .yaml and .yml
        if args is not None:
            hook["args"] = args
        config = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [hook]}]}
        (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        _git(project, "add", "-A")

    def pre_commit(*files: str) -> subprocess.CompletedProcess[str]:
        which = ["--files", *files] if files else ["--all-files"]
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", *which, "--color", "never"],
            cwd=project,
            env=_env(PRE_COMMIT_HOME=str(tmp_path / "cache")),
            capture_output=True,
            text=True,
            timeout=600,
        )

    configure()
    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"validate rule files\.+Passed", passed.stdout)

    # a commit that changes only the workflow: the hook gets that one file, and skips it
    alone = pre_commit(".github/workflows/checks.yml")
    assert alone.returncode == 0 and re.search(r"validate rule files\.+Passed", alone.stdout), alone.stdout

    # a broken rule file fails the hook, named with its line and column
    (project / "rules" / "game.yaml").write_text(BROKEN)
    _git(project, "add", "-A")
    failed = pre_commit()
    assert failed.returncode == 1
    assert re.search(r"validate rule files\.+Failed", failed.stdout)
    assert f"rules/game.yaml:{_place(project / 'rules' / 'game.yaml', 'lya')}: error[RE221]" in failed.stdout
    # the workflow and pre-commit's own configuration were skipped, not reported
    assert ".github/workflows/checks.yml: skipped, not a rule file" in failed.stdout
    assert ".pre-commit-config.yaml: skipped, not a rule file" in failed.stdout
    assert "error" not in "".join(line for line in failed.stdout.splitlines(True) if "checks.yml" in line)

    # a warning passes, and fails with the hook's --strict argument
    (project / "rules" / "game.yaml").write_text(WARNED)
    _git(project, "add", "-A")
    warned = pre_commit()
    assert warned.returncode == 0, warned.stdout
    configure(["--strict"])
    strict = pre_commit()
    assert strict.returncode == 1
    assert f"rules/game.yaml:{_place(project / 'rules' / 'game.yaml', 'draw:')}: warning[RE227]" in strict.stdout


# ---- the GitHub Action ----------------------------------------------------------------------

_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def _evaluate(text: str, inputs: dict[str, str], action_path: Path) -> str:
    """The `${{ ... }}` expressions the action uses, replaced as the runner replaces them."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        if name == "github.action_path":
            return str(action_path)
        raise AssertionError(f"the test does not know the expression {name}")

    return _EXPRESSION.sub(value, text)


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_yml_is_a_composite_action_whose_scripts_take_no_expressions():
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"paths", "strict", "tests", "python-version"}
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert steps[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    for step in steps[1:]:
        assert step["shell"] == "bash" and "${{" not in step["run"]  # inputs arrive as environment variables


def _run_step(step: dict, inputs: dict[str, str], workspace: Path, venv: Path, temp: Path):
    """One composite `run:` step as the runner runs it: bash -eo pipefail on a script file,
    in the workspace, with the step's env (expressions replaced) and the runner's variables."""
    script = temp / f"{step['id']}.sh"
    script.write_text(step["run"])
    env = _env(
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",  # where setup-python puts its Python
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_WORKSPACE=str(workspace),
        RUNNER_TEMP=str(temp),
        **{name: _evaluate(str(value), inputs, ROOT) for name, value in step.get("env", {}).items()},
    )
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_action_installs_rulesengine_and_annotates_the_problems(tmp_path):
    action = _action()
    steps = {step.get("id"): step for step in action["runs"]["steps"]}
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    workspace, temp, venv = tmp_path / "workspace", tmp_path / "runner-temp", tmp_path / "python"
    workspace.mkdir()
    temp.mkdir()
    virtualenv.cli_run([str(venv), "--quiet"])  # stands in for the interpreter setup-python provides
    _a_repository(workspace)
    (workspace / "rules" / "broken.yaml").write_text(BROKEN)
    (workspace / "warned").mkdir()
    (workspace / "warned" / "game.yaml").write_text(WARNED)

    installed = _run_step(steps["install"], defaults, workspace, venv, temp)
    assert installed.returncode == 0, installed.stderr
    assert (venv / "bin" / "rulesengine").is_file()

    def validate(**inputs: str):
        return _run_step(steps["validate"], {**defaults, **inputs}, workspace, venv, temp)

    everything = validate()  # the defaults: the whole repository
    assert everything.returncode == 1
    broken = workspace / "rules" / "broken.yaml"
    line, column = _place(broken, "lya").split(":")
    assert f"::error file=rules/broken.yaml,line={line},col={column}," in everything.stdout
    assert "title=RE221::" in everything.stdout
    assert "checks.yml" not in everything.stdout + everything.stderr  # .github is hidden: not walked
    assert len(everything.stdout.splitlines()) == len(validate_file(broken)[1]) + 1  # and the warning

    assert validate(paths="rules/game.yaml\n  rules/pan-for-four.yml").returncode == 0
    warned = validate(paths="warned")
    assert warned.returncode == 0 and "::warning file=warned/game.yaml," in warned.stdout
    strict = validate(paths="warned", strict="true")
    assert strict.returncode == 1 and "::warning file=warned/game.yaml," in strict.stdout
    wrong = validate(strict="yes")
    assert wrong.returncode == 2 and "::error title=rulesengine::the input 'strict'" in wrong.stdout
    injected = validate(strict="x\n::warning::injected")  # a value never starts a command of its own
    assert injected.returncode == 2 and "::warning" not in injected.stdout
    assert validate(paths="  \n").returncode == 2
    missing = validate(paths="no-such-folder")
    assert missing.returncode == 2
    assert "::error title=rulesengine::the input 'paths' could not be checked" in missing.stdout

    # with tests: 'true', the scenario tests run too, each failing check an annotation on its line
    no_tests = validate(paths="rules/game.yaml", tests="true")
    assert no_tests.returncode == 2 and "::error title=rulesengine::the input 'tests' is 'true'" in no_tests.stdout
    (workspace / "tested").mkdir()
    (workspace / "tested" / "game.yaml").write_text(GAME)
    (workspace / "tested" / "game.tests.yaml").write_text(
        "tests:\n  - name: first\n    expect: {current: P1}\n  - name: wrong\n    expect: {current: P2}\n"
    )
    assert validate(paths="tested").returncode == 0  # validated only: the tests' file is well formed
    tested = validate(paths="tested", tests="True")
    assert tested.returncode == 1
    assert "::error file=tested/game.tests.yaml,line=5,col=23," in tested.stdout and "title=RE530::" in tested.stdout
    both = validate(paths="rules tested", tests="true")  # a broken rule file and a failing test: both shown
    assert both.returncode == 1 and "title=RE221::" in both.stdout and "title=RE530::" in both.stdout
    assert validate(paths="tested", tests="yes").returncode == 2
    injected = validate(paths="tested", tests="x\n::warning::injected")
    assert injected.returncode == 2 and "::warning" not in injected.stdout
