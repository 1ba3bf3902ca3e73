"""Register a rule file as an OpenSpiel game (needs the `openspiel` extra).

    import pyspiel
    from rulesengine.adapters.openspiel import register
    game = pyspiel.load_game(register("my_game.yaml", players=3))
    # or, in any process once the adapter is imported:
    game = pyspiel.load_game("rulesengine(ruleset=my_game.yaml,players=3,options=word:P)")

Shuffles are explicit chance nodes (one card drawn at a time), rewards come only at the
end, and the observation is the tensor of `rulesengine.adapters.observation` with the
JSON of `State.observation` as its string.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import random
import re
from collections.abc import Mapping
from typing import Any

from .. import ir
from ..api import make_game
from ..diagnostics import EngineError, OptionError
from ..engine import DEFAULT_MAX_STEPS, Game, State
from .observation import ObservationEncoder

# The games registered by this process: short name -> what identifies the game behind it.
_REGISTERED: dict[str, tuple] = {}

# The generic game, registered on import: pyspiel.load_game("rulesengine(ruleset=my_game.yaml,players=2)")
GENERIC = "rulesengine"
_MAX_PLAYERS = 16  # the widest range a ruleset may declare is checked by make_game
# pyspiel.GameInfo holds max_game_length in a C++ int: a longer game cannot be declared
_MAX_GAME_LENGTH = 2**31 - 1


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


def options_text(options: Mapping[str, object]) -> str:
    """Options as one game-string parameter: `name:value` pairs joined by `;`."""
    return ";".join(f"{key}:{value}" for key, value in sorted(options.items()))


def parse_options_text(text: str) -> dict[str, str]:
    options = {}
    for pair in filter(None, (part.strip() for part in text.split(";"))):
        key, sep, value = pair.partition(":")
        if not sep:
            raise ValueError(f"options are 'name:value' pairs joined by ';', not '{text}'")
        if key.strip() in options:
            raise ValueError(f"option '{key.strip()}' is given twice in '{text}'")
        options[key.strip()] = value.strip()
    return options


def register(
    ruleset: ir.Ruleset | str | os.PathLike,
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    short_name: str | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> str:
    """Register a ruleset with pyspiel and return its short name for `pyspiel.load_game`.

    Registering the same name again for the same game is a no-op; for another game it is an
    error. A game registered so loads in this process only; in a fresh one, load the generic
    game instead: `pyspiel.load_game("rulesengine(ruleset=NAME,players=N,options=a:1;b:2)")`.
    """
    pyspiel = _pyspiel()
    if short_name is not None and not isinstance(short_name, str):
        raise ValueError(f"an OpenSpiel game name is a text of letters, digits and '_', not {short_name!r}")
    game = make_game(ruleset, players, options, max_steps=max_steps)
    game_length(game)  # refused here, before anything is registered, rather than by load_game
    name = short_name or default_short_name(game)
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):  # what `pyspiel.load_game` can name
        raise ValueError(f"an OpenSpiel game name has only letters, digits and '_', not {name!r}")
    # what the registered class loads its games from: the same file, players, options and
    # limit make the same game, however often (or by whichever path) its ruleset was loaded
    key = (game.ruleset.file, game.num_players, tuple(sorted(game.options.items())), game.max_steps)
    known = _REGISTERED.get(name)
    if known is not None:
        if known != key:
            raise ValueError(f"the OpenSpiel game name '{name}' is already registered for another game")
        return name
    if name in pyspiel.registered_names():  # one of OpenSpiel's games, which registering would replace
        raise ValueError(f"the OpenSpiel game name '{name}' is already registered for another game")
    preset = (game.ruleset.file, game.num_players, dict(game.options), game.max_steps)
    # a class of its own, kept in this module under its name, so its games pickle
    cls_name = "RulesGame_" + re.sub(r"\W", "_", name)
    cls = type(cls_name, (_classes()[1],), {"preset": preset, "short_name": name, "__module__": __name__})
    globals()[cls_name] = cls
    pyspiel.register_game(game_type(pyspiel, game, name), cls)
    _REGISTERED[name] = key
    return name


def game_type(pyspiel: Any, game: Game | None, name: str = GENERIC) -> Any:
    """The pyspiel.GameType of an engine game (or of the generic game, for any number of players)."""
    total = game.utility.total if game is not None else None
    Utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=name,
        long_name=f"{game.ruleset.name} ({game.num_players} players, rulesengine)" if game else "rulesengine",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        # declared by the rules (match.zero_sum, constant_sum), or implied: winners +1 and losers -1
        # is zero-sum exactly when two sides of equal size meet (see results.utility)
        utility=Utility.GENERAL_SUM if total is None else Utility.ZERO_SUM if total == 0 else Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.num_players if game else _MAX_PLAYERS,
        min_num_players=game.num_players if game else 1,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={}
        if game
        else {
            "ruleset": "",
            "players": 0,
            "options": "",
            "max_steps": DEFAULT_MAX_STEPS,
        },
    )


def game_length(game: Game) -> int:
    """OpenSpiel's max_game_length: the engine stops a match (a draw) after max_steps decisions,
    each at most `most_steps` ids. OptionError naming the largest max_steps that works when
    it does not fit pyspiel.GameInfo (a C++ int)."""
    most_steps = game.encoding.most_steps
    length = game.max_steps * most_steps
    if length > _MAX_GAME_LENGTH:
        largest = _MAX_GAME_LENGTH // most_steps
        raise OptionError(
            f"max_steps must be at most {largest} for OpenSpiel, not {game.max_steps}: its max_game_length, "
            f"max_steps times the {most_steps} ids a decision can take, is at most {_MAX_GAME_LENGTH} (a C++ int)"
        )
    return length


def game_info(pyspiel: Any, game: Game) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions,
        max_chance_outcomes=game.max_chance_outcomes,
        num_players=game.num_players,
        min_utility=game.utility.minimum,  # match.min/max, else -1 and +1 of winners and losers
        max_utility=game.utility.maximum,
        utility_sum=game.utility.total,
        # the engine stops a match (a draw) after max_steps decisions, each at most this many ids (steps)
        max_game_length=game_length(game),
    )


_CLASSES: tuple | None = None


def _classes() -> tuple:
    """(RulesState, RulesGame), made once pyspiel is there and kept in this module's namespace."""
    global _CLASSES
    if _CLASSES is not None:
        return _CLASSES
    pyspiel = _pyspiel()
    # the bases as plain names: mypy takes no base class from an attribute of a run-time value
    SpielState: Any = pyspiel.State
    SpielGame: Any = pyspiel.Game

    class RulesState(SpielState):
        def __init__(self, game: Any, inner: Any = None):
            super().__init__(game)
            # seed=None: every shuffle is a chance node that OpenSpiel drives
            self.holder = _Holder(inner if inner is not None else game.engine.new_initial_state(None))

        @property
        def inner(self) -> Any:
            """The engine's State behind this one."""
            return self.holder.state

        # The methods OpenSpiel calls at every step read the holder directly: pyspiel asks for
        # the current player several times a step, and a property call there is a third of the
        # adapter's cost.
        def current_player(self) -> int:
            return self.holder.state.current_player()  # -1 chance and -4 terminal, as pyspiel.PlayerId

        def _legal_actions(self, player: int) -> list[int]:
            state = self.holder.state  # asked for the player to move, chance (-1) included
            return state.legal_actions() if player == state.current_player() else state.legal_actions(player)

        # Answered in Python for Python callers, without the round trip through C++ and back
        # (OpenSpiel's own C++ code still reaches the methods above); the same answers as
        # pyspiel.State's: the legal actions or chance outcomes of the player to move.
        def legal_actions(self, player: int | None = None) -> list[int]:
            if player is None:
                return self.holder.state.legal_actions()
            return SpielState.legal_actions(self, player)  # pyspiel's checks of the seat given

        def is_chance_node(self) -> bool:
            return self.holder.state.is_chance_node()

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self.holder.state.chance_outcomes()

        def _apply_action(self, action: int) -> None:
            self.holder.state.apply_action(action)

        def _action_to_string(self, player: int, action: int) -> str:
            engine = self.inner.game
            if player == pyspiel.PlayerId.CHANCE:
                if self.inner.is_chance_node():  # a card of a shuffle, or a value of a random choice
                    return self.inner.action_to_string(action)
                names = engine.program.card_names
                return f"chance: {names[action]}" if 0 <= action < len(names) else f"chance: {action}"
            return engine.action_name(action)  # independent of the state, so unique

        def is_terminal(self) -> bool:
            return self.holder.state.is_terminal()

        def returns(self) -> list[float]:
            return self.inner.returns()

        def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
            """A state `player_id` cannot tell from this one (State.resample), for ISMCTSBot."""
            if not callable(probability_sampler):
                raise EngineError(
                    "resample_from_infostate needs a probability sampler (a function returning a number "
                    f"from 0 to 1), not {type(probability_sampler).__name__}"
                )
            drawn = probability_sampler()
            number = float(drawn) if isinstance(drawn, numbers.Real) and not isinstance(drawn, bool) else math.nan
            if not 0 <= number <= 1:  # (NaN is refused too)
                raise EngineError(
                    f"resample_from_infostate's probability sampler must return a number from 0 to 1, not {drawn!r}"
                )
            rng = random.Random(int(number * (1 << 53)))
            sample = self.inner.resample(player_id, rng)
            sample.seed = None  # later shuffles stay chance nodes, as the game declares
            return RulesState(self.get_game(), sample)

        def __str__(self) -> str:
            return str(self.inner)

    class RulesGame(SpielGame):
        preset: tuple | None = None  # (file, players, options, max_steps) of a registered name
        short_name = GENERIC

        def __init__(self, params: Mapping[str, Any] | None = None):
            params = dict(params or {})
            if self.preset is not None:
                file, players, options, max_steps = self.preset
                self.engine = make_game(file, players, options, max_steps=max_steps)
            else:
                players = int(params.get("players", 0)) or None
                for key in ("ruleset", "options"):  # as str(game) shows them, to be read back
                    if any(c in str(params.get(key, "")) for c in ",=()"):
                        raise ValueError(
                            f"{key} cannot hold ',', '=', '(' or ')': OpenSpiel's game string, "
                            f"which names the game, could not be read back; got {params[key]!r}"
                        )
                options = parse_options_text(str(params.get("options", "")))
                max_steps = int(params.get("max_steps", DEFAULT_MAX_STEPS))
                ruleset = str(params.get("ruleset", ""))
                if not ruleset:
                    raise ValueError("the rulesengine game needs ruleset=NAME (a shipped ruleset) or a file path")
                self.engine = make_game(ruleset, players, options, max_steps=max_steps)
            super().__init__(game_type(pyspiel, self.engine, self.short_name), game_info(pyspiel, self.engine), params)
            self.encoder = ObservationEncoder(self.engine)

        def new_initial_state(self) -> Any:
            return RulesState(self)

        def make_py_observer(
            self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
        ) -> Observer | InformationStateObserver:
            if params:
                shown = dict(params) if isinstance(params, Mapping) else params
                raise ValueError(f"observation parameters are not supported; got {shown!r}")
            single = pyspiel.PrivateInfoType.SINGLE_PLAYER
            if iig_obs_type is not None and not isinstance(iig_obs_type, pyspiel.IIGObservationType):
                raise ValueError(f"the observation type is a pyspiel.IIGObservationType or None, not {iig_obs_type!r}")
            if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info != single):
                # (a public-only view would need the observation without the player's own cards)
                raise ValueError(
                    "only a player's own view is provided: public_info=True, private_info=SINGLE_PLAYER; "
                    f"got public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}"
                )
            if iig_obs_type is not None and iig_obs_type.perfect_recall:
                return InformationStateObserver(self.encoder)
            return Observer(self.encoder)

    for cls in (RulesState, RulesGame):
        cls.__qualname__ = cls.__name__
        cls.__module__ = __name__
        globals()[cls.__name__] = cls
    _CLASSES = (RulesState, RulesGame)
    return _CLASSES


def register_generic() -> None:
    """Register the generic game `rulesengine` (done on import when open_spiel is installed)."""
    pyspiel = _pyspiel()
    if GENERIC in _REGISTERED:
        return
    pyspiel.register_game(game_type(pyspiel, None), _classes()[1])
    _REGISTERED[GENERIC] = ("generic",)


class _Holder:
    """Keeps the engine state; pyspiel clones a Python state with copy.deepcopy, which
    would walk the whole compiled game, so a deep copy here is the engine's cheap clone.
    Pickled (pyspiel serializes a state's attributes so), it is its engine state's pickle."""

    __slots__ = ("state",)

    def __init__(self, state: Any):
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Holder:
        return _Holder(self.state.clone())

    def __reduce__(self) -> tuple:
        return _Holder, (self.state,)


def _inner(state: Any, encoder: ObservationEncoder, asked: str) -> State:
    """The engine state behind an OpenSpiel state of the encoder's game; EngineError for a
    state of another game (another OpenSpiel game, or other rules, players or options)."""
    inner = getattr(state, "inner", None)
    if not isinstance(inner, State):
        raise EngineError(f"{asked} needs a state of this rulesengine game, not {type(state).__name__}")
    return encoder.check_state(inner, asked)


class InformationStateObserver:
    """The perfect-recall PyObserver: as a string only, the key of State.information_state
    (equal for two states exactly when the player has observed the same); no tensor: a
    fixed-size tensor with perfect recall would have to hold a whole match (up to max_steps
    observations), so the string is the supported form."""

    def __init__(self, encoder: ObservationEncoder) -> None:
        self.encoder = encoder  # to know the game whose states it takes
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: Any, player: int) -> None:
        raise ValueError("information states are provided as strings only, not as tensors")

    def string_from(self, state: Any, player: int) -> str:
        return _inner(state, self.encoder, "information_state_string").information_state_key(player)


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
        self.tensor[:] = self.encoder.encode(_inner(state, self.encoder, "observation_tensor"), player)

    def string_from(self, state: Any, player: int) -> str:
        return json.dumps(_inner(state, self.encoder, "observation_string").observation(player))


try:  # registration on import, so a fresh process can load the generic game by name
    register_generic()
except ImportError:
    pass
