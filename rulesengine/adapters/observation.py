"""A fixed-size numeric encoding of what one player sees, for learning agents.

The encoding is a flat list of floats made of named parts, always in the same order for
a given game (see `observation_layout`). Card ids index the one-hot blocks; the contents
of a zone are read only when the observing player may look into it, so no hidden card
can leak into the numbers (hidden zones contribute their size only).
"""

from __future__ import annotations

from .. import ir
from ..engine import Game, State, seat_of
from ..teams import may_see

# Variable types encoded as a number; the others (str, card, rank) are left out.
_NUMERIC_TYPES = (ir.INT, ir.BOOL, ir.PLAYER, ir.SUIT)


class ObservationEncoder:
    """The layout of one game's observation tensor, and the encoder that fills it."""

    def __init__(self, game: Game):
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

    def may_see(self, zone: int, player: int) -> bool:
        """Whether `player` may look into zone slot `zone` (as State.observation decides)."""
        program = self.game.program
        visibility = program.zone_visibility[zone]
        return may_see(visibility, program.zone_owner[zone], player, program.teams)

    def encode(self, state: State, player: int) -> list[float]:
        """The observation of `player` as `self.size` floats, in the order of `self.layout`."""
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
            if self.may_see(zone, player):
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

    def split(self, values: list[float]) -> dict[str, list[float]]:
        """The parts of an encoded observation by name (for tests and debugging)."""
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
