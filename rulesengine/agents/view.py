"""What an agent is given: one player's view of a match, never the true state.

A `PlayerView` holds the player's observation, information-state key, legal actions and a
way to draw complete states consistent with what the player has seen (to search from).
It keeps no reference to the true state: the states it hands out are resampled from one
sample drawn when the view is made, and a resample of a resample is distributed as a
resample of the truth (both are relabelings of the same consistent deals).
"""

from __future__ import annotations

import random
from typing import Any

from ..diagnostics import EngineError
from ..engine import Game, State, seat_of
from ..resample import Resampler, check_generator


class PlayerView:
    """The view of `player` at one decision."""

    def __init__(self, state: State, player: int, rng: random.Random | None = None, sampling: bool = True):
        self.game: Game = state.game
        self.player = player
        self.current_player = state.current_player()
        self.legal_actions = tuple(state.legal_actions(player))
        self.observation = state.observation(player)
        self.information_state_key = state.information_state_key(player) if state._track else None
        self._world: State | None = None
        self._sampler: Resampler | None = None
        self.true_state: State | None = None  # set only for agents that declare they cheat
        if rng is not None:
            check_generator(rng, "PlayerView")
        self._untracked = not state._track
        if sampling and state._track:
            self._world = Resampler(state, player).sample(rng or random.Random(0))

    @property
    def num_players(self) -> int:
        return self.game.num_players

    def action_to_string(self, action: int) -> str:
        return self.game.action_name(action)

    def information_state(self) -> list[dict[str, Any]]:
        """Every observation of the player so far (oldest first)."""
        if self._world is None:
            raise ValueError("this view was made without sampling: it has no information state")
        return self._world.information_state(self.player)

    def sample(self, rng: random.Random) -> State:
        """A complete state the player cannot tell from the true one, new at every call."""
        check_generator(rng, "PlayerView.sample")
        if self._world is None and self._untracked:
            raise EngineError("this state keeps no knowledge of the players (made with track=False)")
        if self._world is None:
            raise ValueError("this view was made without sampling")
        if self._sampler is None:  # the first sample is the one drawn with the view
            self._sampler = Resampler(self._world, self.player)
            return self._world.clone()
        return self._sampler.sample(rng)


def at_decision(state: State) -> int:
    """The player to move of a state handed to an agent; an agent chooses only at a player's
    decision, never at a chance node or after the match."""
    if state.game_over:
        raise EngineError("an agent was asked to choose after the match is over")
    if state.chance is not None:
        raise EngineError("an agent was asked to choose at a chance node (a shuffle or a random choice)")
    return state.current


def as_view(agent: Any, given: State | PlayerView, rng: random.Random | None = None) -> PlayerView:
    """The view an agent is given: `given` itself, or made from a state for its player to move."""
    if isinstance(given, PlayerView):
        return given
    view = PlayerView(given, at_decision(given), rng, sampling=getattr(agent, "needs_samples", True))
    if getattr(agent, "cheats", False):
        view.true_state = given
    return view


def evaluate(state: State, player: int) -> float:
    """The generic evaluation: `player`'s return if the match ended now (its return at the end).

    The rules' winners (or losers) are asked about the state as it is, so a game that
    declares its winners by score values the current scores.
    """
    player = seat_of(player, state.num_players, "evaluate")
    if state.is_terminal():
        return state.returns()[player]
    return _ended_here(state).returns()[player]


def declared(state: State, player: int) -> float:
    """The rule file's `match.evaluation` for `player` (0 when the rules declare none)."""
    player = seat_of(player, state.num_players, "declared")
    evaluation = state.program.evaluation
    if evaluation is None:
        return 0.0
    return float(evaluation(state, state._env(player)))


def evaluate_all(state: State) -> list[float]:
    if state.is_terminal():
        return state.returns()
    return _ended_here(state).returns()


def _ended_here(state: State) -> State:
    """A copy of `state` as if the match ended now (not cut short: its returns are the rules')."""
    ended = state.clone(track=False)
    ended.game_over = True
    ended.truncated = False
    ended._legal = None  # a kept list means a decision (`State.apply_action`)
    return ended
