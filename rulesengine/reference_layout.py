"""The layout of a game setting as the language defines it, computed the plain way.

Part of the reference mode (see reference.py): card ids, attribute tables, zone slots and
variable offsets, each derived from the rule file's declarations without any of the
optimising compiler's code. Every card has a fixed id (decks in order, then copies, suits
and ranks); zone families take consecutive slots in declaration order, their indices laid
out row by row; variables take consecutive offsets, a per-player one a slot per player.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from . import ir

# The value of an attribute of "no card" (or of a suit lacking the attribute), by type.
NEUTRAL: dict[str, object] = {ir.INT: 0, ir.STR: "", ir.BOOL: False}


@attrs.frozen
class Card:
    deck: int
    suit: int
    rank: int
    order: int  # the place of its rank in its own deck's rank list, from 1


@attrs.frozen
class ZoneSlot:
    family: str
    index: tuple[int, ...]  # one value per dimension
    name: str
    owner: int  # the player of the first index when it is a player dimension, else -1
    visibility: str


def cards_of(ruleset: ir.Ruleset) -> list[Card]:
    """Every card in id order: decks in order, then copies, suits and ranks."""
    suit_names = [s.name for s in ruleset.suits]
    cards = []
    for deck_index, deck in enumerate(ruleset.decks):
        for _copy in range(deck.copies):
            for suit in deck.suits:
                for order, rank in enumerate(deck.ranks, start=1):
                    cards.append(Card(deck_index, suit_names.index(suit), ruleset.ranks.index(rank), order))
    return cards


def suit_attribute_value(ruleset: ir.Ruleset, attribute: ir.CardAttribute, suit: int) -> object:
    """A suit attribute of suit number `suit`: the neutral value of its type where absent."""
    if not 0 <= suit < len(ruleset.suits):
        return NEUTRAL[attribute.type]
    value = ruleset.suits[suit].attributes.get(attribute.name)
    return NEUTRAL[attribute.type] if value is None else value


def attribute_tables(
    ruleset: ir.Ruleset, cards: list[Card], evaluate: Callable[[ir.Expr, dict[Any, Any]], object]
) -> dict[str, list]:
    """Each attribute's value per card, and (last entry) its value for "no card".

    `evaluate(expression, environment)` computes a computed attribute for one card; the
    environment maps the card's own names (`suit`, `rank`, `order`, earlier attributes).
    """
    tables: dict[str, list] = {
        "suit": [c.suit for c in cards] + [-1],
        "rank": [c.rank for c in cards] + [-1],
        "order": [c.order for c in cards] + [0],
        "id": list(range(len(cards))) + [-1],
    }
    for attribute in ruleset.card_attributes:
        values = []
        for card_id, card in enumerate(cards):
            if attribute.expression is None:
                values.append(suit_attribute_value(ruleset, attribute, card.suit))
            else:
                env = {name: table[card_id] for name, table in tables.items()}
                values.append(evaluate(attribute.expression, env))
        tables[attribute.name] = values + [NEUTRAL[attribute.type]]
    return tables


def card_environment(tables: dict[str, list], card: int) -> dict[Any, Any]:
    """The names a card-attribute expression or the card label sees for one card."""
    return {name: table[card] for name, table in tables.items()}


def default_card_name(ruleset: ir.Ruleset, card: Card) -> str:
    """`{rank}{symbol}` when the suit has a symbol, else `{rank} of {suit}`."""
    suit = ruleset.suits[card.suit]
    rank = ruleset.ranks[card.rank]
    symbol = suit.attributes.get("symbol")
    return f"{rank}{symbol}" if symbol else f"{rank} of {suit.name}"


def dimension_sizes(zone: ir.Zone, num_players: int, num_suits: int) -> tuple[int, ...]:
    return tuple(num_players if d == "player" else num_suits if d == "suit" else int(d) for d in zone.dimensions)


def index_tuples(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every index of a family, row by row (the last dimension varies fastest)."""
    out: list[tuple[int, ...]] = [()]
    for size in sizes:
        out = [index + (i,) for index in out for i in range(size)]
    return out


def zone_slots(ruleset: ir.Ruleset, num_players: int) -> list[ZoneSlot]:
    """Every zone of the setting in slot order: families in declaration order."""
    suit_names = [s.name for s in ruleset.suits]
    slots = []
    for zone in ruleset.zones:
        for index in index_tuples(dimension_sizes(zone, num_players, len(suit_names))):
            shown = [
                f"P{i + 1}" if d == "player" else suit_names[i] if d == "suit" else str(i + 1)
                for d, i in zip(zone.dimensions, index)
            ]
            name = zone.name + (f"[{', '.join(shown)}]" if shown else "")
            owner = index[0] if zone.dimensions and zone.dimensions[0] == "player" else -1
            slots.append(ZoneSlot(zone.name, index, name, owner, zone.visibility))
    return slots
