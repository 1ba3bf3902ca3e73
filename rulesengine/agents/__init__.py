"""Agents that choose actions from one player's view.

An agent has one method, `choose(view) -> action`, where `view` is a `PlayerView`: the
player's observation, information-state key, legal actions and `view.sample(rng)` for
complete states consistent with what the player has seen. For compatibility an agent may
also be handed the state itself; it then makes the view for the player to move and looks
at nothing else (only `CheatingMCTSAgent`, a reference, declares that it reads the truth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..diagnostics import OptionError
from ..engine import State
from .basic import GreedyAgent, MonteCarloAgent, RandomAgent, playout
from .mcts import CheatingMCTSAgent, ISMCTSAgent
from .view import PlayerView, as_view, declared, evaluate, evaluate_all


class Agent(Protocol):
    def choose(self, view: PlayerView) -> int:
        """An action among `view.legal_actions` for the player of the view."""


class StateAgent(Agent, Protocol):
    """An agent that may also be handed the state itself (every agent of this package)."""

    def choose(self, view: PlayerView | State) -> int:
        """An action for the player of the view, or of the state (which it makes a view of)."""


def play_match(state: State, agents: Sequence[Agent]) -> State:
    """Let `agents` (one per seat) play from `state` to the end; returns the final state.
    Each agent is handed the view of the player to move.

    Chance nodes (a state made without a seed) are drawn uniformly at random."""
    import random

    if not isinstance(agents, Sequence) or isinstance(agents, str):
        raise OptionError(f"play_match takes a list of agents, one for each seat, not {type(agents).__name__}")
    if len(agents) != state.num_players:
        raise OptionError(f"play_match needs one agent for each of the {state.num_players} seats, not {len(agents)}")
    for seat, agent in enumerate(agents):
        if not callable(getattr(agent, "choose", None)):
            raise OptionError(f"the agent of P{seat + 1} has no 'choose' method: {type(agent).__name__} is no agent")
    chance = random.Random(state.seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.choice(state.chance_outcomes())[0])
            continue
        agent = agents[state.current_player()]
        # the random agent reads only the legal actions: it is spared making a view
        if isinstance(agent, RandomAgent):
            action = agent.choose(state)
        else:
            action = agent.choose(as_view(agent, state, getattr(agent, "rng", None)))
        state.apply_action(action)
    return state


__all__ = [
    "Agent",
    "CheatingMCTSAgent",
    "GreedyAgent",
    "ISMCTSAgent",
    "MonteCarloAgent",
    "PlayerView",
    "RandomAgent",
    "StateAgent",
    "as_view",
    "declared",
    "evaluate",
    "evaluate_all",
    "play_match",
    "playout",
]
