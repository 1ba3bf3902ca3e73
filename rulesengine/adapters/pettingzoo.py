"""A rule file as a PettingZoo AEC environment (needs the `pettingzoo` extra).

    from rulesengine.adapters.pettingzoo import env
    game = env("my_game.yaml", seed=1)
    game.reset(seed=1)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        ...

Agents are "player_0", "player_1", ...; an action is an engine action id, and the
observation is a dict of the tensor of `rulesengine.adapters.observation` and the mask of
legal actions (all zeros for an agent whose turn it is not). Shuffles are drawn from the
seed given to `reset`; rewards are the engine's returns, given once the match is over.
An illegal action raises IllegalActionError; wrap the environment in PettingZoo's
TerminateIllegalWrapper to end the match with a penalty instead. Using the environment
before reset(), or stepping it once every agent has left, raises EngineError and changes
nothing.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as error:  # the adapter is optional: say how to get it
    raise ImportError(
        "the PettingZoo adapter needs pettingzoo, gymnasium and numpy; "
        "install them with: pip install 'rulesengine[pettingzoo]'"
    ) from error

from .. import ir
from ..api import make_game
from ..diagnostics import EngineError, IllegalActionError, OptionError, seed_of
from ..engine import DEFAULT_MAX_STEPS, Game, State
from .observation import ObservationEncoder

# What reset() makes: read before it, they raise ResetFirstError (num_agents reads agents).
_OF_A_MATCH = frozenset(
    {
        "agents",
        "num_agents",
        "agent_selection",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
    }
)


class ResetFirstError(EngineError, AttributeError):
    """An attribute of the match (agents, agent_selection, rewards, ...) read before reset():
    an EngineError, and an AttributeError as PettingZoo's OrderEnforcingWrapper raises, so
    that `hasattr` and `getattr` with a default still answer."""


def env(
    ruleset: ir.Ruleset | str | os.PathLike,
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> RulesEnv:
    """An AEC environment for a ruleset (a name, a path or a loaded ruleset)."""
    return RulesEnv(make_game(ruleset, players, options, max_steps=max_steps), seed=seed, render_mode=render_mode)


class RulesEnv(AECEnv):
    """One engine game as a PettingZoo AEC environment."""

    def __init__(self, game: Game, seed: int | None = None, render_mode: str | None = None):
        super().__init__()
        if not isinstance(game, Game):
            raise OptionError(f"RulesEnv plays a Game (see make_game, or env(...)), not {type(game).__name__}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.metadata = {
            "render_modes": ["ansi"],
            "name": f"rulesengine_{game.ruleset.name}",
            "is_parallelizable": False,
        }
        self.encoder = ObservationEncoder(game)
        self.possible_agents = [f"player_{p}" for p in range(game.num_players)]
        self.agent_name_mapping = {agent: p for p, agent in enumerate(self.possible_agents)}
        n_actions = game.num_distinct_actions
        # The same space objects every time, as PettingZoo's API test asks.
        self._action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    # counts, round numbers and variables have no fixed bound
                    "observation": spaces.Box(-np.inf, np.inf, shape=(self.encoder.size,), dtype=np.float32),
                    "action_mask": spaces.MultiBinary(n_actions),
                }
            )
            for a in self.possible_agents
        }
        self._rng = random.Random(seed_of(seed, "seed"))
        self.state: State | None = None

    # ---- spaces ----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self._of_agent(self._observation_spaces, agent, "observation_space")

    def action_space(self, agent: str) -> spaces.Space:
        return self._of_agent(self._action_spaces, agent, "action_space")

    def _of_agent(self, table: Mapping[str, Any], agent: object, asked: str) -> Any:
        """`table`'s entry for `agent`; EngineError naming the agents there are for another."""
        try:
            return table[agent]  # type: ignore[index]  # any key is tried: a wrong one is refused below
        except (KeyError, TypeError):  # (TypeError: a key that cannot be hashed)
            last = len(self.possible_agents) - 1
            raise EngineError(
                f"{asked} needs an agent of this environment, player_0 to player_{last}, not {agent!r}"
            ) from None

    if not TYPE_CHECKING:  # (for mypy, every other attribute stays unknown)

        def __getattr__(self, name: str) -> Any:
            """Only reached for an attribute not set: those of a match before reset()."""
            if name in _OF_A_MATCH:
                raise ResetFirstError(f"reset() starts a match: call it before reading {name}")
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ---- the AEC loop ----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new match; its shuffles come from `seed`, or from the environment's own generator.
        A seed refused (not a whole number, or out of the engine's range) changes nothing."""
        seed = seed_of(seed, "seed")
        if seed is not None:
            rng = random.Random(seed)
            match_seed = seed
        else:  # drawn from a copy, kept only once the match is made
            rng = random.Random()
            rng.setstate(self._rng.getstate())
            match_seed = rng.randrange(2**31)
        self.state = self.game.new_initial_state(match_seed)  # refuses a seed out of range
        self._rng = rng
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._after_step()

    def step(self, action: Any) -> None:
        state = self._going("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # (PettingZoo's own check says so with a ValueError)
                raise IllegalActionError(f"{agent}'s match is over: it steps with None to leave, not {action!r}")
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is only for an agent whose match is over")
        # an int or NumPy integer; anything else, or an illegal id, raises IllegalActionError
        # (naming the legal actions) and changes nothing
        state.apply_action(action)
        self._cumulative_rewards[agent] = 0.0
        self._after_step()
        self._accumulate_rewards()

    def _after_step(self) -> None:
        """Select the next agent; at the end, hand out the returns and finish every agent."""
        state = self.state
        assert state is not None  # called after reset() and step(), which have a match
        if not state.is_terminal():
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[state.current_player()]
            return
        returns = state.returns()
        self.rewards = {agent: float(returns[self.agent_name_mapping[agent]]) for agent in self.agents}
        done = {agent: True for agent in self.agents}
        if state.truncated:  # stopped by the engine's step limit, not by the rules
            self.truncations = done
        else:
            self.terminations = done
        self.agent_selection = self.agents[0]

    def _started(self, asked: str) -> State:
        """The match reset() started; EngineError before it."""
        if self.state is None:
            raise EngineError(f"reset() starts a match: call it before {asked}()")
        return self.state

    def _going(self, asked: str) -> State:
        """The match reset() started, while an agent is left in it; EngineError before reset()
        and once every agent has left (PettingZoo's environments fail there on a missing key)."""
        state = self._started(asked)
        if not self.agents:
            raise EngineError(
                f"the match is over and every agent has left it: {asked}() has no agent; call reset() to start another"
            )
        return state

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and info of agent_selection."""
        self._going("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """The agents to step in turn, until every agent has left (or `max_iter` of them)."""
        self._started("agent_iter")
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._started("observe")
        player = self._of_agent(self.agent_name_mapping, agent, "observe")
        observation = np.asarray(self.encoder.encode(state, player), dtype=np.float32)
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if state.current_player() == player:
            mask[state.legal_actions()] = 1
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        """With render_mode "ansi": what the player to move sees (player 0 once it is over)."""
        state = self._started("render")
        if self.render_mode is None:
            return None
        player = max(state.current_player(), 0)
        seen = state.observation(player)
        lines = [
            f"{self.game.ruleset.name}: round {seen['round']}, phase {seen['phase']}, "
            + (f"player_{player} to move" if not seen["terminal"] else "the match is over")
        ]
        for zone, content in seen["zones"].items():
            shown = (" ".join(content) or "-") if isinstance(content, list) else f"{content} hidden cards"
            lines.append(f"  {zone}: {shown}")
        for name, value in seen["variables"].items():
            lines.append(f"  {name} = {value}")
        if seen["last_move"] is not None:
            lines.append(f"  last move: player_{seen['last_move']['player']} {seen['last_move']['move']}")
        return "\n".join(lines)

    def close(self) -> None:
        pass
