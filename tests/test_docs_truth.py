"""What the documentation shows is what the engine does: figures, positions and outputs
quoted in docs/*.md are taken from the page and compared with the engine's own answer, so
that a change to either side fails here instead of leaving the page wrong."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from rulesengine import api
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
