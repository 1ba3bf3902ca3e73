"""rulesengine: card games as rule files, checked, compiled and played.

>>> import rulesengine
>>> game = rulesengine.make_game("pan", players=3)
>>> state = game.new_initial_state(seed=1)
>>> state.current_player() in range(3)
True
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
