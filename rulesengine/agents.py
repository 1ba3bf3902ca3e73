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
