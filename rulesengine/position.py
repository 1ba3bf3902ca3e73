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
from .engine import MatchLog, State
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
    _check_numbers(position, program.num_players, len(program.phases))
    refused = out_refused(program.ruleset, program.options, position.out)
    if refused is not None:
        raise ValueError(refused)
    if len(position.zones) != len(state.zones) or len(position.variables) != len(state.vars):
        raise ValueError("the position does not fit this game's zones and variables")
    where = _places(position.zones, program.num_cards)
    # nothing is changed before here: a refused position leaves the state as it was
    state.zones = [list(cards) for cards in position.zones]
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
        state.log = MatchLog()
    if state._track:  # what each player knows is what it sees in the position, nothing of before
        knowledge.at_position(state)


def _places(zones: tuple[tuple[int, ...], ...], num_cards: int) -> list[int]:
    """Each card's zone; ValueError unless every card lies in exactly one zone."""
    where = [-1] * num_cards
    for index, cards in enumerate(zones):
        for card in cards:
            if type(card) is not int or not 0 <= card < num_cards or where[card] != -1:
                raise ValueError("every card must lie in exactly one zone")
            where[card] = index
    if -1 in where:
        raise ValueError("every card must lie in exactly one zone")
    return where


def _check_numbers(position: Position, num_players: int, num_phases: int) -> None:
    """ValueError unless the position's turn, phase and counters are ones a match can have."""
    if type(position.current) is not int or not 0 <= position.current < num_players:
        raise ValueError(f"the player to move must be a seat from 0 to {num_players - 1}, not {position.current!r}")
    if position.current in position.out:
        raise ValueError(f"the player to move, P{position.current + 1}, is out of the round")
    if not all(type(p) is int and 0 <= p < num_players for p in position.out):
        raise ValueError(f"the players out must be seats from 0 to {num_players - 1}")
    if type(position.phase) is not int or not 0 <= position.phase < num_phases:
        raise ValueError(f"the phase must be a phase's index from 0 to {num_phases - 1}, not {position.phase!r}")
    if position.direction not in (1, -1) or type(position.direction) is not int:
        raise ValueError(f"the direction of play is 1 or -1, not {position.direction!r}")
    for name, least in (("round_number", 1), ("turns", 0), ("passes", 0)):
        value = getattr(position, name)
        if type(value) is not int or value < least:
            raise ValueError(f"{name} must be a whole number of at least {least}, not {value!r}")
