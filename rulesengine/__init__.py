"""rulesengine: card games as rule files, checked, compiled and played.

import rulesengine
game = rulesengine.make_game("path/to/game.yaml", players=3)   # or a shipped name
state = game.new_initial_state(seed=1)
state.apply_action(state.legal_actions()[0])
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import find_ruleset, load_ruleset, make_game, resolve_options
    from .diagnostics import (
        Diagnostic,
        EngineError,
        IllegalActionError,
        OptionError,
        RuleFileError,
        RulesEngineError,
        Span,
    )
    from .engine import Game, State

# Each public name and the module that defines it. They are imported on first use, so that
# `import rulesengine` (and a command such as `validate`) loads only the modules it needs.
_HOME = {
    "find_ruleset": "api",
    "load_ruleset": "api",
    "make_game": "api",
    "resolve_options": "api",
    "Diagnostic": "diagnostics",
    "EngineError": "diagnostics",
    "IllegalActionError": "diagnostics",
    "OptionError": "diagnostics",
    "RuleFileError": "diagnostics",
    "RulesEngineError": "diagnostics",
    "Span": "diagnostics",
    "Game": "engine",
    "State": "engine",
}

__all__ = [
    "Diagnostic",
    "EngineError",
    "Game",
    "IllegalActionError",
    "OptionError",
    "RuleFileError",
    "RulesEngineError",
    "Span",
    "State",
    "find_ruleset",
    "load_ruleset",
    "make_game",
    "resolve_options",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        # A submodule read as an attribute (`rulesengine.api` after `import rulesengine`),
        # as when the package imported them all.
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module 'rulesengine' has no attribute '{name}'")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # found once; later reads do not come here
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])
