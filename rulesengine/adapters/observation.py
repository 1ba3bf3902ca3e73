"""A fixed-size numeric encoding of what one player sees, for learning agents.

The encoding is a flat list of floats made of named parts, always in the same order for
a given game (see `observation_layout`). Card ids index the one-hot blocks; the contents
of a zone are read only when the observing player may look into it, so no hidden card
can leak into the numbers (hidden zones contribute their size only).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import ir
from ..diagnostics import EngineError, OptionError, RulesEngineError, integer
from ..engine import Game, State, seat_of
from ..teams import may_see

# Variable types encoded as a number; the others (str, card, rank) are left out.
_NUMERIC_TYPES = (ir.INT, ir.BOOL, ir.PLAYER, ir.SUIT)


class ObservationEncoder:
    """The layout of one game's observation tensor, and the encoder that fills it."""

    def __init__(self, game: Game):
        if not isinstance(game, Game):
            raise OptionError(f"an observation encoder is made for a Game (see make_game), not {type(game).__name__}")
        program = game.program
        self.game = game
        self.num_players = n = program.num_players
        self.num_cards = program.num_cards
        # Zones whose contents someone may see get a block; "nobody" zones only a count.
        self.card_zones = [i for i, v in enumerate(program.zone_visibility) if v != "nobody"]
        self.variables = [
            (name, program.variable_offsets[name], n if per_player else 1)
            for name, per_player, type_ in program.variable_layout
            if type_ in _NUMERIC_TYPES
        ]
        parts: list[tuple[str, int]] = [
            ("player", n),
            ("current_player", n),
            ("phase", len(program.phases)),
            ("round", 1),
            ("direction", 1),
            ("terminal", 1),
            ("active", n),
        ]
        parts += [(f"zone:{program.zone_names[i]}", self.num_cards) for i in self.card_zones]
        parts.append(("zone_sizes", len(program.zone_names)))
        parts.append(("shown", self.num_cards))
        parts += [(f"variable:{name}", size) for name, _offset, size in self.variables]
        # A choice made in steps: the ids the player to move has picked so far, one block per
        # step (only that player sees them), so that two points of one choice differ.
        self.actions = game.num_distinct_actions
        self.picks = game.encoding.most_steps - 1 if game.stepwise else 0
        parts += [(f"picked:{k + 1}", self.actions) for k in range(self.picks)]
        self.layout = parts
        self.size = sum(size for _, size in parts)
        # the programs whose states this encoder has taken: this game's, and any other compiled
        # from the same rules, players and options (a game made again, or unpickled)
        self._programs = [program]
        self._digest: str | None = None

    def may_see(self, zone: int, player: int) -> bool:
        """Whether `player` may look into zone slot `zone` (as State.observation decides)."""
        program = self.game.program
        zones = len(program.zone_names)
        slot = integer(zone)  # a bool or a float is no zone slot, and -1 is not the last
        if slot is None or not 0 <= slot < zones:
            raise EngineError(f"may_see needs a zone slot from 0 to {zones - 1}, not {zone!r}")
        return self._may_see(slot, seat_of(player, self.num_players, "may_see"))

    def _may_see(self, zone: int, player: int) -> bool:
        program = self.game.program
        visibility = program.zone_visibility[zone]
        return may_see(visibility, program.zone_owner[zone], player, program.teams)

    def check_state(self, state: object, asked: str) -> State:
        """`state` if it is a state of this encoder's game; else EngineError naming both."""
        if isinstance(state, State) and state.program is self.game.program:  # the usual case first
            return state
        if not isinstance(state, State):
            raise EngineError(f"{asked} needs a State of {self._described(self.game)}, not {type(state).__name__}")
        program = state.program
        if any(program is known for known in self._programs):
            return state
        if not self._same_game(state.game):
            raise EngineError(
                f"{asked} needs a State of {self._described(self.game)}, the game this encoder was made for; "
                f"got one of {self._described(state.game)}"
            )
        if len(self._programs) >= 8:  # a few games made anew; the first is this encoder's own
            del self._programs[1]
        self._programs.append(program)
        return state

    def _same_game(self, game: Game) -> bool:
        """Whether `game` is this encoder's game made again: the same players, options and rules
        (the same ruleset, or one composed from the same texts), so the same layout."""
        own = self.game
        if game.num_players != own.num_players or game.options != own.options:
            return False
        if game.ruleset is own.ruleset:
            return True
        from ..api import composed_digest  # the api builds games; imported here, as it imports the engine

        try:
            if self._digest is None:
                self._digest = composed_digest(own.ruleset)
            return composed_digest(game.ruleset) == self._digest
        except (RulesEngineError, OSError):  # rules no longer readable: not known to be the same
            return False

    @staticmethod
    def _described(game: Game) -> str:
        options = ", ".join(f"{key}={value}" for key, value in sorted(game.options.items()))
        return f"{game.ruleset.name!r} ({game.num_players} players{', ' + options if options else ''})"

    def encode(self, state: State, player: int) -> list[float]:
        """The observation of `player` as `self.size` floats, in the order of `self.layout`."""
        if not isinstance(state, State) or state.program is not self.game.program:  # the usual case first
            state = self.check_state(state, "encode_observation")
        player = seat_of(player, self.num_players, "encode_observation")
        out: list[float] = []
        n = self.num_players
        out += _one_hot(player, n)
        out += _one_hot(state.current_player(), n)  # all zeros at chance nodes and at the end
        out += _one_hot(state.phase, len(state.program.phases))
        out += [float(state.round_number), float(state.direction), float(state.game_over)]
        out += [float(a) for a in state.active]
        for zone in self.card_zones:
            block = [0.0] * self.num_cards
            if self._may_see(zone, player):
                for card in state.zones[zone]:
                    block[card] = 1.0
            out += block
        out += [float(len(cards)) for cards in state.zones]
        shown = [0.0] * self.num_cards
        for card in state.shown[player]:
            shown[card] = 1.0
        out += shown
        for _name, offset, size in self.variables:
            out += [_number(v) for v in state.vars[offset : offset + size]]
        if self.picks:
            picked = state._pending if player == state.current_player() else ()
            for k in range(self.picks):
                out += _one_hot(picked[k] if k < len(picked) else -1, self.actions)
        return out

    def split(self, values: Sequence[float]) -> dict[str, Sequence[float]]:
        """The parts of an encoded observation by name (for tests and debugging)."""
        # a list or a tuple of numbers, or a NumPy array (which is no registered Sequence)
        if isinstance(values, (str, bytes)) or not (isinstance(values, Sequence) or hasattr(values, "__array__")):
            raise EngineError(f"split needs the {self.size} numbers of an observation, not {type(values).__name__}")
        length = len(values)
        if length != self.size:
            raise EngineError(
                f"split needs the {self.size} numbers of an observation of {self._described(self.game)}, not {length}"
            )
        parts, index = {}, 0
        for name, size in self.layout:
            parts[name] = values[index : index + size]
            index += size
        return parts


def observation_layout(game: Game) -> list[tuple[str, int]]:
    """The names and sizes of the parts of `game`'s observation tensor, in order."""
    return list(ObservationEncoder(game).layout)


def encode_observation(state: State, player: int) -> list[float]:
    """What `player` sees in `state` as a flat list of floats (see `observation_layout`)."""
    if not isinstance(state, State):
        raise EngineError(f"encode_observation needs a State, not {type(state).__name__}")
    return ObservationEncoder(state.game).encode(state, player)


def _one_hot(index: int, size: int) -> list[float]:
    block = [0.0] * size
    if 0 <= index < size:
        block[index] = 1.0
    return block


def _number(value: float | None) -> float:
    # Unset players and suits are None or negative: both become -1.
    if value is None:
        return -1.0
    return float(value)
