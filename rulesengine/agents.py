"""Agents that choose actions. They see only what a player may see: the legal actions
and, if they want it, the player's observation."""

from __future__ import annotations

import random
from typing import Protocol

from .engine import State


class Agent(Protocol):
    def choose(self, state: State) -> int:
        """An action among `state.legal_actions()` for the player to move."""


class RandomAgent:
    """Picks uniformly among the legal actions."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())


def play_match(state: State, agents: list[Agent]) -> State:
    """Let `agents` (one per seat) play from `state` to the end; returns the final state."""
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].choose(state))
    return state


# Agents by name, for `simulate --agents` and the analysis: each makes an agent from a seed.
AGENTS: dict[str, type] = {"random": RandomAgent}


def make_agent(name: str, seed: int) -> Agent:
    """The agent registered as `name`, seeded with `seed`."""
    try:
        factory = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent '{name}'; choose from {', '.join(sorted(AGENTS))}") from None
    return factory(seed)
