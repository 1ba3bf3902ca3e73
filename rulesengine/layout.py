"""The frozen layout of one game setting: what the code generator may know about the game.

The compiler builds it (cards, attribute tables, zone families and slots, variable
offsets, phases, options) and hands only this value to the code generator, which never
calls back into the compiler.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from .teams import TeamTable


@attrs.frozen
class ZoneFamily:
    name: str
    base: int
    strides: tuple[int, ...]
    sizes: tuple[int, ...]
    dimensions: tuple[str | int, ...]
    visibility: str
    sorted_by: str | None

    @property
    def count(self) -> int:
        total = 1
        for size in self.sizes:
            total *= size
        return total


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@attrs.frozen
class Layout:
    num_players: int
    options: Mapping[str, object] = attrs.field(converter=_frozen)
    suit_names: tuple[str, ...]
    suit_attributes: tuple[Mapping[str, object], ...]  # per suit, its attributes from the rule file
    ranks: tuple[str, ...]
    phase_names: tuple[str, ...]
    card_names: tuple[str, ...] = ()
    card_deck: tuple[int, ...] = ()
    # attribute -> per-card table (last entry: no card, read as index -1)
    attributes: Mapping[str, list] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    families: Mapping[str, ZoneFamily] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    variable_offsets: Mapping[str, int] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    # zone slot kept sorted -> the attribute table it is sorted by
    sorted_tables: Mapping[int, list] = attrs.field(default=MappingProxyType({}), converter=_frozen)
    # local slots that always hold a seat, never nobody (lower.seat_slots): indexing by them needs no check
    seat_slots: frozenset[int] = frozenset({0})
    teams: TeamTable | None = None  # team membership, read by team(p), partner(p), teammates(p)

    def card_id(self, deck: int, suit: str, rank: str) -> int:
        """The id of the card of `deck` with this suit and rank (its first copy)."""
        suit_index, rank_index = self.suit_names.index(suit), self.ranks.index(rank)
        suits, ranks = self.attributes["suit"], self.attributes["rank"]
        return next(
            c
            for c in range(len(self.card_deck))
            if self.card_deck[c] == deck and suits[c] == suit_index and ranks[c] == rank_index
        )
