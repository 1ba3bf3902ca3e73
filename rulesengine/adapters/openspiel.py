"""Register a rule file as an OpenSpiel game (needs the `openspiel` extra).

    from rulesengine.adapters.openspiel import register
    import pyspiel
    game = pyspiel.load_game(register("my_game.yaml", players=3))

Shuffles are explicit chance nodes (one card drawn at a time), rewards come only at the
end, and the observation is the tensor of `rulesengine.adapters.observation` with the
JSON of `State.observation` as its string.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from .. import ir
from ..api import make_game
from ..engine import DEFAULT_MAX_STEPS, Game
from .observation import ObservationEncoder

# The games registered by this process: short name -> what identifies the game behind it.
_REGISTERED: dict[str, tuple] = {}


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError as error:  # the adapter is optional: say how to get it
        raise ImportError(
            "the OpenSpiel adapter needs open_spiel; install it with: pip install 'rulesengine[openspiel]'"
        ) from error
    return pyspiel


def default_short_name(game: Game) -> str:
    """A name for pyspiel: the ruleset, the players and the options that differ from the defaults."""
    name = re.sub(r"[^a-z0-9]+", "_", game.ruleset.name.lower()).strip("_")
    parts = [f"rulesengine_{name}", f"{game.num_players}p"]
    defaults = {o.name: o.default for o in game.ruleset.options}
    for key, value in sorted(game.options.items()):
        if defaults.get(key) != value:
            parts.append(re.sub(r"[^A-Za-z0-9]+", "_", f"{key}_{value}"))
    if game.max_steps != DEFAULT_MAX_STEPS:
        parts.append(f"max_steps_{game.max_steps}")
    return "_".join(parts)


def register(
    ruleset: ir.Ruleset | str | os.PathLike,
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    short_name: str | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> str:
    """Register a ruleset with pyspiel and return its short name for `pyspiel.load_game`.

    Registering the same name again for the same game is a no-op; for another game it is an error.
    """
    pyspiel = _pyspiel()
    game = make_game(ruleset, players, options, max_steps=max_steps)
    name = short_name or default_short_name(game)
    key = (game.ruleset, game.num_players, tuple(sorted(game.options.items())), game.max_steps)
    known = _REGISTERED.get(name)
    if known is not None:
        if known != key:
            raise ValueError(f"the OpenSpiel game name '{name}' is already registered for another game")
        return name
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"{game.ruleset.name} ({game.num_players} players, rulesengine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        # The number of players is fixed when registering; register again for another.
        max_num_players=game.num_players,
        min_num_players=game.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions,
        max_chance_outcomes=game.max_chance_outcomes,
        num_players=game.num_players,
        min_utility=-1.0,  # State.returns gives +1 / -1 / 0 to each player
        max_utility=1.0,
        max_game_length=game.max_steps,  # the engine stops a match (a draw) after max_steps decisions
    )
    pyspiel.register_game(game_type, _game_class(pyspiel, game, game_type, game_info))
    _REGISTERED[name] = key
    return name


def _game_class(pyspiel: Any, engine_game: Game, game_type: Any, game_info: Any) -> type:
    """The pyspiel.Game and pyspiel.State subclasses for one engine game."""

    class RulesState(pyspiel.State):
        def __init__(self, game: Any, inner: Any = None):
            super().__init__(game)
            # seed=None: every shuffle is a chance node that OpenSpiel drives
            self.holder = _Holder(inner if inner is not None else engine_game.new_initial_state(None))

        @property
        def inner(self) -> Any:
            """The engine's State behind this one."""
            return self.holder.state

        def current_player(self) -> int:
            return self.inner.current_player()  # -1 chance and -4 terminal, as pyspiel.PlayerId

        def _legal_actions(self, player: int) -> list[int]:
            return self.inner.legal_actions(player)

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self.inner.chance_outcomes()

        def _apply_action(self, action: int) -> None:
            self.inner.apply_action(action)

        def _action_to_string(self, player: int, action: int) -> str:
            if player == pyspiel.PlayerId.CHANCE:
                return f"chance: {engine_game.program.card_names[action]}"
            return engine_game.action_name(action)  # independent of the state, so unique

        def is_terminal(self) -> bool:
            return self.inner.is_terminal()

        def returns(self) -> list[float]:
            return self.inner.returns()

        def __str__(self) -> str:
            return str(self.inner)

    class RulesGame(pyspiel.Game):
        engine = engine_game

        def __init__(self, params: Mapping[str, Any] | None = None):
            super().__init__(game_type, game_info, dict(params or {}))
            self.encoder = ObservationEncoder(engine_game)

        def new_initial_state(self) -> RulesState:
            return RulesState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> Observer:
            if params:
                raise ValueError(f"observation parameters are not supported; got {dict(params)}")
            if iig_obs_type is not None and iig_obs_type.perfect_recall:
                return InformationStateObserver()
            return Observer(self.encoder)

    return RulesGame


class _Holder:
    """Keeps the engine state; pyspiel clones a Python state with copy.deepcopy, which
    would walk the whole compiled game, so a deep copy here is the engine's cheap clone."""

    __slots__ = ("state",)

    def __init__(self, state: Any):
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Holder:
        return _Holder(self.state.clone())


class InformationStateObserver:
    """The perfect-recall PyObserver: as a string only, the key of State.information_state
    (equal for two states exactly when the player has observed the same); no tensor."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: Any, player: int) -> None:
        raise ValueError("information states are provided as strings only, not as tensors")

    def string_from(self, state: Any, player: int) -> str:
        return state.inner.information_state_key(player)


class Observer:
    """The PyObserver of OpenSpiel: the tensor of `observation.py`, the JSON of State.observation."""

    def __init__(self, encoder: ObservationEncoder):
        import numpy as np  # an extra's dependency: only needed once OpenSpiel asks for a tensor

        self.encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict: dict[str, Any] = {}
        index = 0
        for name, size in encoder.layout:
            self.dict[name] = self.tensor[index : index + size]
            index += size

    def set_from(self, state: Any, player: int) -> None:
        self.tensor[:] = self.encoder.encode(state.inner, player)

    def string_from(self, state: Any, player: int) -> str:
        return json.dumps(state.inner.observation(player))
