"""Every limit of the rule-file language in one place.

The loader, the parser, the checker, the compiler and the engine import their bounds from
here, so a limit is stated once and the limits table of docs/language.md names it by this
module. Each limit is checked before the work it bounds.
"""

from __future__ import annotations

# ---- files ---------------------------------------------------------------------------
MAX_FILE_BYTES = 1_000_000  # one rule file, checked before it is read
MAX_NODES = 50_000  # YAML nodes after alias expansion; a rule file is far smaller
MAX_DEPTH = 64  # nested lists and mappings; a rule file needs about a dozen
MAX_CHAIN = 16  # files in one extends/include chain
MAX_COMPOSED_FILES = 32  # different files one composition extends or includes (each is read once)
MAX_COMPOSED_BYTES = 2_000_000  # bytes of all the files of one composition together
MAX_TEST_SETTINGS = 64  # settings (players, options) the tests of one scenario file play: each is compiled
MAX_INTEGER_DIGITS = 40  # characters of a YAML integer, checked before it is converted
MAX_SUGGESTION_NAME = 64  # a name longer than this gets no "did you mean"
MAX_SUGGESTION_CANDIDATES = 200  # names compared with an unknown one (the closest in length)
MAX_SUGGESTION_WORK = 1_000_000  # characters compared for all the suggestions of one file's check

# ---- expressions and statements ------------------------------------------------------
MAX_EXPRESSION_LENGTH = 2_000  # characters of one expression or effect text
MAX_NESTING = 40  # levels of operators, calls and macros in one expression
MAX_STATEMENT_DEPTH = 8  # nested if/for blocks
# nested blocks once procedure calls are spelt out: the generated code adds a few levels of its
# own, and CPython compiles at most 20
MAX_SPELT_OUT_BLOCK_DEPTH = 14
MAX_DEFINITION_DEPTH = 8  # definitions used inside definitions inside ...
MAX_EXPANDED_SIZE = 20_000  # nodes of one expression once its definitions are spelt out
MAX_EXPANDED_DEPTH = 50  # nesting of one expression once its definitions are spelt out (CPython allows 200 parentheses)
MAX_EXPANSIONS = 10_000  # uses of definitions in a whole file, counting uses inside definitions
MAX_REPEAT = 1_000  # passes of one repeat-block (its count: a number or an option's bound)
MAX_PROCEDURE_DEPTH = 8  # procedures called inside procedures inside ...
MAX_PROCEDURE_STATEMENTS = 20_000  # statements of a whole file once its procedure calls are spelt out
# Expression nodes of a whole file once definitions, procedure calls and YAML aliases are
# spelt out: the shipped rulesets have under 500, and checking and compiling cost is linear in it.
MAX_SPELT_OUT_NODES = 50_000

# ---- the game's size -----------------------------------------------------------------
MAX_PLAYERS = 16
MAX_CARDS = 5_000  # cards of all decks and copies together
MAX_ZONE_SLOTS = 10_000  # zones after 'per' is spelt out for the largest player count
MAX_VALUE_CHOICES = 100_000  # combinations of a move's number, text, player and suit parameters
MAX_RANGE = 10_000  # elements of one range()
MAX_ACTIONS = 1_000_000  # actions one move can have, sets counted as C(cards, size) (check_cost.py)
MAX_DECISION_COST = 100_000_000  # static cost bound of one decision's work (check_cost.py)
# Rounds that may pass without a decision before their work together is held to the bound
# above (engine.State._count_idle_round): a few redeals are never refused.
MAX_IDLE_ROUNDS = 16
MAX_ZONE_DIMENSION = 64  # piles of one counted 'per' dimension of a zone
MAX_SET_SIZE = 8  # cards a set parameter chooses at once
MAX_MOVE_PARAMETERS = 8  # parameters of one move (the compiled listing nests one loop per parameter)

# ---- running -------------------------------------------------------------------------
DEFAULT_MAX_STEPS = 500_000  # decisions per match before the engine stops it (a draw)
MAX_TASKS_PER_STEP = 200_000  # internal steps between two decisions

# ---- values --------------------------------------------------------------------------
# A rule file's integers and texts stay small: a literal, a folded constant or a value
# computed while a match runs that passes one of these is an error naming the rule
# position, never a Python failure or a runaway allocation.
MAX_INTEGER = 2**63 - 1  # magnitude of any integer, as in CEL's int64
MAX_TEXT_LENGTH = 10_000  # characters of any text value
MAX_LOG_CHARACTERS = 50_000_000  # of one match's log: past it the log stops (the match goes on)
MAX_BROWSER_SEED = 2**53 - 1  # magnitude of a seed the play page takes: a JavaScript number holds it exactly
# Fresh seeds are drawn from 0..MAX_BROWSER_SEED: the seed tells the whole deal, and with fewer
# (2**31 took hours of one core) the hands a player sees would name the seed, so every hand.
FRESH_SEEDS = MAX_BROWSER_SEED + 1
