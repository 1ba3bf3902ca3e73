"""How a ruleset argument is found: a path, or the name of a shipped ruleset."""

from __future__ import annotations

import pytest

import rulesengine
from rulesengine.diagnostics import OptionError
from rulesengine.resources import resolve_ruleset, rulesets_dir


def test_a_shipped_name_and_a_path_find_the_same_file():
    assert resolve_ruleset("pan") == rulesets_dir() / "pan.yaml"
    assert resolve_ruleset(str(rulesets_dir() / "pan.yaml")) == rulesets_dir() / "pan.yaml"


@pytest.mark.parametrize("name", ["a" * 300, "a/" * 3000 + "x.yaml", "no/such/game.yaml"])
def test_a_name_no_file_can_have_is_an_unknown_ruleset(name: str):
    """A name past the system's limits was an OSError out of make_game; the command line
    already said it is no file."""
    assert resolve_ruleset(name) is None
    with pytest.raises(OptionError, match="unknown ruleset"):
        rulesengine.make_game(name)
