"""Put a state into a position written out by a scenario test.

A scenario test describes a position by what a reader sees: the cards of every zone in
order, the variables, whose turn it is, the phase, who is out. `set_position` writes such
a position into a fresh state through the state's own fields, so the engine plays on from
there exactly as from a position it reached itself. It never runs rules: phase ends,
triggers and the skipping of a player who cannot move happen after the next action, as
they would after any step.
"""

from __future__ import annotations

import attrs

from . import knowledge
from .engine import State
from .stays import out_refused


@attrs.frozen
class Position:
    """A whole position, already resolved to the engine's numbers.

    `zones` lists every zone slot's cards from bottom to top and holds every card exactly
    once; `variables` is the whole variable table (the layout of `Program.variable_offsets`).
    """

    zones: tuple[tuple[int, ...], ...]
    variables: tuple
    phase: int
    current: int
    direction: int = 1
    round_number: int = 1
    out: frozenset[int] = frozenset()
    turns: int = 0
    passes: int = 0


def set_position(state: State, position: Position) -> None:
    """Make `state`, a state standing at a decision, stand at `position` instead.

    At a decision node the state's agenda is empty and no shuffle is pending, so replacing
    its zones, variables and turn leaves nothing half done. The history starts again here:
    `actions()` lists only the moves made after this call, and `information_state()`, which
    replays the match from its seed, does not describe a position set this way. Two caches
    of the state are emptied (`_legal`, the legal actions; `_seen`, kept information states).
    What each player knows starts again too (`knowledge.at_position`): the cards it sees in
    the position, every other card unseen.
    A player out of the round is refused when the game's rules never put one out: its compiled
    code takes every seat to be in the round (the pass `everyone stays`).
    """
    if state.is_terminal() or state.is_chance_node() or state.agenda:
        raise ValueError("a position can be set only at a decision node")
    program = state.program
    refused = out_refused(program.ruleset, program.options, position.out)
    if refused is not None:
        raise ValueError(refused)
    if len(position.zones) != len(state.zones) or len(position.variables) != len(state.vars):
        raise ValueError("the position does not fit this game's zones and variables")
    state.zones = [list(cards) for cards in position.zones]
    where = [-1] * program.num_cards
    for index, cards in enumerate(state.zones):
        for card in cards:
            where[card] = index
    if -1 in where or sum(map(len, state.zones)) != program.num_cards:
        raise ValueError("every card must lie in exactly one zone")
    state.where = where
    state.vars = list(position.variables)
    state.phase = position.phase
    state.current = position.current
    state.mover = position.current
    state.direction = position.direction
    state.round_number = position.round_number
    state.active = [p not in position.out for p in range(program.num_players)]
    state.active_players = [p for p in range(program.num_players) if p not in position.out]
    state.turns = position.turns
    state.passes = position.passes
    state.round_over = state.phase_over = False
    state.goto = None
    state.turn_set = False
    state.last_action = None
    state.forget_history()
    state.steps = 0
    state.shown = [[] for _ in range(program.num_players)]
    state.shown_any = False
    state._seen = {}
    state._legal = None  # listed again for the new position on the next request
    if state.log is not None:
        state.log = []
    if state._track:  # what each player knows is what it sees in the position, nothing of before
        knowledge.at_position(state)
