"""A person plays a match in the terminal against random bots.

The person sees only their own observation: their hand and the open zones, counts of the
rest, the variables, and what the last move was. Everything shown comes from
`State.observation` and the seat's own log (`State.log_for`, where another player's
hidden move shows only its name), so nothing hidden can leak onto the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import ir
from .agents import RandomAgent
from .engine import Game, State


def describe_observation(game: Game, observation: dict) -> list[str]:
    """Readable lines for one player's observation."""
    lines = [f"round {observation['round']}, phase {observation['phase']}"]
    for zone, content in observation["zones"].items():
        if isinstance(content, list):
            if content:
                lines.append(f"  {zone}: {' '.join(content)}")
        elif content:
            lines.append(f"  {zone}: {content} card(s), face down")
    shown = observation["shown"]
    if shown:
        lines.append(f"  you are shown: {' '.join(shown)}")
    types = {name: type_ for name, _, type_ in game.program.variable_layout}
    for name, value in observation["variables"].items():
        if types.get(name) == ir.PLAYER:  # players are numbered from 0 in values, P1.. on screen
            value = [f"P{v + 1}" for v in value] if isinstance(value, list) else f"P{value + 1}"
        lines.append(f"  {name}: {value}")
    return lines


def play_against_bots(
    game: Game,
    seat: int,
    seed: int,
    ask: Callable[[State, list[str]], Sequence[int]],
    say: Callable[[str], None],
    bots: list | None = None,
) -> State:
    """Play one match: `ask(state, lines)` returns the ids of the person's action (several
    for a choice the engine takes in steps), `bots` (one per seat, random by default; the
    person's seat is ignored) play the rest."""
    state = game.new_initial_state(seed=seed, record_log=True)
    if bots is None:
        bots = [RandomAgent(seed * 1_000 + other) for other in range(game.num_players)]
    printed = 0
    while not state.is_terminal():
        printed = _say_new(state, seat, printed, say)
        if state.current_player() == seat:
            for action in ask(state, describe_observation(game, state.observation(seat))):
                state.apply_action(action)
        else:
            state.apply_action(bots[state.current_player()].choose(state))
    _say_new(state, seat, printed, say)
    return state


def _say_new(state: State, seat: int, printed: int, say: Callable[[str], None]) -> int:
    """Say the lines of the seat's log not said yet; returns how many are said now."""
    lines = state.log_for(seat, printed)
    for line in lines:
        say(line)
    return printed + len(lines)
