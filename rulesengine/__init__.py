"""rulesengine: card games as rule files, checked, compiled and played.

import rulesengine
game = rulesengine.make_game("path/to/game.yaml", players=3)   # or a shipped name
state = game.new_initial_state(seed=1)
state.apply_action(state.legal_actions()[0])
"""

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
