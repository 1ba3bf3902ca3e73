"""What the documentation shows is what the engine does: figures, positions and outputs
quoted in docs/*.md are taken from the page and compared with the engine's own answer, so
that a change to either side fails here instead of leaving the page wrong."""

from __future__ import annotations

import linecache
import re
import shlex
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulesengine import api
from rulesengine.cli import main
from rulesengine.diagnostics import EngineError
from rulesengine.limits import MAX_INTEGER

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]{6,}\d", text)}


# ---- language.md: integers are bounded ----------------------------------------------------

OVERFLOW = textwrap.dedent(
    """\
    rulesengine: 1
    name: Past the limit
    players: {min: 2, max: 2}
    decks:
      standard:
        suits: [hearts]
        ranks: ["1", "2"]
        zone: stock
    zones:
      stock: {visibility: nobody}
      pile: {visibility: all}
    variables:
      x: {type: int}
    round:
      setup:
        - x = LARGEST
    phases:
      play:
        moves: [add]
    moves:
      add:
        effects:
          - x += 1
          - move top(stock) to pile
    match:
      until: "true"
    """
)


@pytest.mark.parametrize("optimize", [True, False], ids=["compiled", "reference"])
def test_integers_are_bounded_as_the_language_says(tmp_path: Path, optimize: bool) -> None:
    text = page("language.md")
    row = re.search(r"^\| `int` \|([^|]*)\|", text, re.M)[1]
    assert numbers(row) == {MAX_INTEGER}, row
    semantics = re.search(r"^- Arithmetic is on whole numbers.*?(?=^- )", text, re.M | re.S)[0]
    assert numbers(semantics) == {MAX_INTEGER} and "stops the" in semantics and "`EngineError`" in semantics
    path = tmp_path / "past.yaml"
    path.write_text(OVERFLOW.replace("LARGEST", str(MAX_INTEGER)), encoding="utf-8")
    state = api.make_game(path, optimize=optimize).new_initial_state(seed=1)
    with pytest.raises(EngineError, match=rf"past\.yaml:23:9: a number beyond ±{MAX_INTEGER}"):
        state.apply_action(state.legal_actions()[0])


# ---- positions quoted from the tools ------------------------------------------------------


def test_the_name_of_a_generated_function_is_as_language_md_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    text = page("language.md").split("\n## Compilation\n", 1)[1]
    made, shown = re.search(r'`make_game\("([^"]+)"\)`:\s*`(<[^`]+ #)\d+>`', text).groups()
    monkeypatch.chdir(ROOT)
    game = api.make_game(made)
    game.new_initial_state(seed=0).legal_actions()
    named = [name for name in linecache.cache if re.fullmatch(re.escape(shown) + r"\d+>", name)]
    assert named, f"no function generated for {made} is named {shown}N>"
    del game  # its functions' lines stay in linecache while it lives


def test_hover_names_the_line_tooling_md_shows() -> None:
    analysis = pytest.importorskip("rulesengine.lsp.analysis")
    detail, file, line = re.search(
        r"`(definition top_rank: [^`]+)`, declared at `([\w.]+):(\d+)`", page("tooling.md")
    ).groups()
    path = ROOT / "rulesets" / file
    text = path.read_text(encoding="utf-8")
    declarations = analysis.analyse(text, str(path)).declarations
    use = next(row for row in text.splitlines() if "card.rank >= top_rank" in row)
    shown = analysis.hover(use, use.index("top_rank") + 2, declarations)
    assert detail in shown and shown.endswith(f"declared at {file}:{line}"), shown


# ---- tooling.md: the scenario test example -------------------------------------------------


def test_the_scenario_test_example_fails_on_climb_as_tooling_md_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = page("tooling.md").split("\n## Scenario tests: `rulesengine test`\n", 1)[1]
    new = shlex.split(re.search(r"`(rulesengine new [^`]+)` writes", text)[1])
    example, example_path = re.search(r"```yaml\n(# (\S+)\n.*?)```", text, re.S).groups()
    command, shown = re.search(r"```console\n\$ ([^\n]+)\n(.*?)```", text, re.S).groups()
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, new[1:]).exit_code == 0
    Path(example_path).write_text(example, encoding="utf-8")
    result = runner.invoke(main, shlex.split(command)[1:])
    assert (result.exit_code, result.output) == (1, shown)
    # the fix the text gives makes the test pass
    rules = Path(new[-1])
    written = rules.read_text(encoding="utf-8")
    assert written.count("c.rank >= top(pile).rank") == 1
    rules.write_text(written.replace("c.rank >= top(pile).rank", "c.rank > top(pile).rank"), encoding="utf-8")
    result = runner.invoke(main, shlex.split(command)[1:])
    assert (result.exit_code, result.output) == (0, "1 test(s) in 1 file(s): 1 passed, 0 failed\n")
