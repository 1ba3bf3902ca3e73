"""The names of a game as its log prints them (players, cards, zones, phases, variables), and
the reading of a scenario test's position in those names, with a diagnostic for anything
impossible: a card that does not exist or is placed twice, an unknown zone, variable,
phase or player, a player out in a game whose rules put nobody out."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from typing import Any

from . import ir
from .diagnostics import RulesEngineError, Span, did_you_mean
from .engine import Game
from .position import Position
from .scenario_shapes import Shapes, Skip, as_written
from .source import Map, Node, Scalar, Seq
from .stays import out_refused

POSITION_KEYS = {
    "zones": "cards of zones, bottom to top: `pile: [9♥, 10♠]`, `hand: {P1: [...]}`, `hand[P2]: [...]`",
    "rest": "the zone that holds every card not placed (default: each deck's starting zone)",
    "variables": "variable values: `letters: {P1: 2}`, `trump: spades`",
    "phase": "the phase being played",
    "current": "the player to move, e.g. P2",
    "direction": "1 (clockwise, the default) or -1",
    "round": "the round number (default 1)",
    "out": "the players who are out of the round",
    "turns": "decisions made in the round so far",
    "passes": "passes in a row so far",
}


def names_of(reader: Shapes, game: Game) -> Names:
    """The names of `game`, reporting to `reader`: made once for the many positions and
    checks of one file's tests of that game (they are only read)."""
    names = reader.kept.get(("names", game))
    if names is None:
        names = reader.kept[("names", game)] = Names(reader, game)
    return names


class Names:
    """The game's names as logs print them: players, cards, zones, phases, variables."""

    def __init__(self, reader: Shapes, game: Game):
        self.reader = reader
        self.game = game
        program = game.program
        self.program = program
        self.cards: dict[str, list[int]] = {}
        for card, name in enumerate(program.card_names):
            self.cards.setdefault(name, []).append(card)
        self.zone_slots = {name: slot for slot, name in enumerate(program.zone_names)}
        self.phases = [phase.name for phase in program.phases]
        self.variables = {name: (per_player, type_) for name, per_player, type_ in program.variable_layout}

    def player(self, node: Node, nobody: bool = False) -> int:
        if nobody and isinstance(node, Scalar) and node.value in (None, "nobody"):
            return -1
        text = self.reader.text(node, "a player")
        count = self.program.num_players
        number = text[1:]
        # as the log writes them: ASCII digits without a leading zero (not P01, not P٢)
        if text.startswith("P") and re.fullmatch(r"[1-9][0-9]{0,5}", number) and int(number) <= count:
            return int(number) - 1
        raise self.reader.fail(
            "RE509", f"'{text}' is not a player of this {count}-player game", node.span, f"players are P1 to P{count}"
        )

    def players(self, node: Node) -> frozenset[int]:
        found: set[int] = set()
        for item in self.reader.items(node, "a list of players"):
            player = self.player(item)
            if player in found:
                raise self.reader.fail("RE509", f"P{player + 1} is named twice", item.span)
            found.add(player)
        return frozenset(found)

    def card(self, node: Node) -> list[int]:
        examples = "cards are named as the log prints them, e.g. " + ", ".join(list(self.cards)[:3])
        if not isinstance(node, Scalar) or node.value is None:  # null, a list, a mapping: no name at all
            raise self.reader.fail(
                "RE500", f"a card must be a text (a card's name), not {as_written(node)}", node.span, examples
            )
        # as the file spells it: `true` is no card 'True', `0x10` no card '16'
        name = node.written
        if name not in self.cards:
            raise self.reader.fail(
                "RE506", f"no card is named '{name}'", node.span, did_you_mean(name, self.cards) or examples
            )
        return self.cards[name]

    def card_names(self, node: Node) -> list[str]:
        """A list of card names, each checked (copies of a card share a name); every name
        that is no card is reported, not only the first."""
        names, broken = [], False
        for item in self.reader.items(node, "a list of cards"):
            try:
                self.card(item)
            except Skip:
                broken = True
                continue
            assert isinstance(item, Scalar)  # a card's name
            names.append(item.written)
        if broken:
            raise Skip()
        return names

    def count(self, node: Node, what: str, least: int = 0) -> int:
        """A whole number from `least` on: a round counts from 1; turns, passes and cards from 0."""
        value = self.reader.integer(node, what)
        if value < least:
            raise self.reader.fail("RE500", f"{what} must be at least {least}, not {value}", node.span)
        return value

    def direction(self, node: Node) -> int:
        value = self.reader.integer(node, "'direction'")
        if value not in (1, -1):
            raise self.reader.fail("RE500", f"'direction' must be 1 or -1, not {value}", node.span)
        return value

    def phase(self, node: Node) -> int:
        name = self.reader.text(node, "a phase")
        if name not in self.phases:
            raise self.reader.fail(
                "RE508",
                f"no phase is named '{name}'",
                node.span,
                did_you_mean(name, self.phases) or f"phases: {', '.join(self.phases)}",
            )
        return self.phases.index(name)

    def zones(self, node: Node) -> Iterator[tuple[str, int, Node]]:
        """(written name, zone slot, value) for each zone of a `zones:` mapping; a zone given
        twice (by a family and by its own name) is RE510 at the second, which is left out."""
        entries = self.reader.mapping(node, "'zones'", None)
        seen: dict[str, Span] = {}
        for flat, value, span in self._zone_entries(entries):
            if flat in seen:
                first = seen[flat]
                self.reader.error(
                    "RE510",
                    f"zone '{flat}' is given twice",
                    span,
                    f"given before at line {first.line}, column {first.column}: give each zone once",
                )
                continue
            seen[flat] = span
            yield flat, self.zone_slots[flat], value

    def _zone_entries(self, entries: Map) -> Iterator[tuple[str, Node, Span]]:
        """(zone name, value, place of the name) of a `zones:` mapping, a family's zones one by one."""
        for key, value in entries.items():
            key_span = entries.key_spans[key]
            if key in self.zone_slots:
                yield key, value, key_span
                continue
            family = self.program.families.get(key)
            if family is not None and len(family.dimensions) == 1 and isinstance(value, Map):
                for index, inner in value.items():
                    flat = f"{key}[{index}]"
                    if flat not in self.zone_slots:
                        self.reader.error(
                            "RE505",
                            f"no zone is named '{flat}'",
                            value.key_spans[index],
                            did_you_mean(flat, self.zone_slots),
                        )
                        continue
                    yield flat, inner, value.key_spans[index]
                continue
            hint = did_you_mean(key, self.zone_slots) or f"zones: {', '.join(list(self.zone_slots)[:8])}"
            if family is not None:
                hint = f"'{key}' is a family of zones: name one, e.g. '{self.program.zone_names[family.base]}'"
            self.reader.error("RE505", f"no zone is named '{key}'", key_span, hint)

    def variable(self, key: str, span: Span) -> tuple[bool, str]:
        if key not in self.variables:
            raise self.reader.fail(
                "RE507",
                f"no variable is named '{key}'",
                span,
                did_you_mean(key, self.variables) or f"variables: {', '.join(self.variables)}",
            )
        return self.variables[key]

    def value(self, node: Node, type_: str, what: str) -> Any:
        """A variable's value in the engine's form, from its form in a test file."""
        reader = self.reader
        if type_ == ir.INT:
            return reader.integer(node, what)
        if type_ == ir.BOOL:
            if not (isinstance(node, Scalar) and isinstance(node.value, bool)):
                raise reader.fail("RE507", f"{what} must be true or false", node.span)
            return node.value
        if type_ == ir.STR:
            return reader.text(node, what)
        if type_ == ir.PLAYER:
            return self.player(node, nobody=True)
        if isinstance(node, Scalar) and node.value in (None, "nothing", "nobody"):
            return -1
        if type_ == ir.SUIT:
            name = reader.text(node, what)
            if name not in self.program.suit_names:
                raise reader.fail(
                    "RE507", f"no suit is named '{name}'", node.span, did_you_mean(name, self.program.suit_names)
                )
            return self.program.suit_names.index(name)
        if type_ == ir.CARD:
            return self.card(node)[0]
        raise reader.fail("RE507", f"{what} has the type {type_}, which a test cannot set", node.span)

    def variable_values(self, node: Node) -> Iterator[tuple[str, int, Any, Node]]:
        """(name, offset in the variable table, value, node) for each value of a `variables:` mapping."""
        entries = self.reader.mapping(node, "'variables'", None)
        program = self.program
        for key, value in entries.items():
            try:
                per_player, type_ = self.variable(key, entries.key_spans[key])
            except Skip:
                continue
            offset = program.variable_offsets[key]
            # (the seat as written, or None for a variable of the whole game; the value)
            if not per_player:
                values: list[tuple[Scalar | None, Node]] = [(None, value)]
            elif isinstance(value, Map):
                values = [(Scalar(seat, value.key_spans[seat]), inner) for seat, inner in value.items()]
            elif isinstance(value, Seq) and len(value.items) == program.num_players:
                values = [(Scalar(f"P{k + 1}", inner.span), inner) for k, inner in enumerate(value.items)]
            else:
                self.reader.error(
                    "RE507",
                    f"'{key}' has one value per player: write {{P1: ..., P2: ...}} or a list of {program.num_players}",
                    value.span,
                )
                continue
            for seat, inner in values:  # each value on its own: one mistake hides none of the others
                try:
                    if seat is None:
                        yield key, offset, self.value(inner, type_, f"the value of '{key}'"), inner
                    else:
                        player = self.player(seat)
                        yield f"{key}[P{player + 1}]", offset + player, self.value(inner, type_, key), inner
                except Skip:
                    continue


# The start of a match of each game by seed, as a position reads it (its variables and round
# number), or why the match cannot start: the tests of a file set up many positions from the
# same few starts, and a start is the same every time (its shuffles are drawn from the seed).
_STARTS: weakref.WeakKeyDictionary[Game, dict[int, tuple[tuple[Any, ...], int] | str]] = weakref.WeakKeyDictionary()


def start_of(game: Game, seed: int) -> tuple[tuple[Any, ...], int] | str:
    """The variables and the round number of `game`'s match with `seed` where it first stops,
    or why it cannot start (a RulesEngineError's message)."""
    starts = _STARTS.setdefault(game, {})
    found = starts.get(seed)
    if found is None:
        try:
            state = game.new_initial_state(seed=seed)
        except RulesEngineError as error:
            found = str(error)
        else:
            found = (tuple(state.vars), state.round_number)
        starts[seed] = found
    return found


class PositionReader:
    def __init__(self, reader: Shapes, game: Game):
        self.reader = reader
        self.names = names_of(reader, game)
        self.game = game

    def read(self, node: Node, seed: int) -> Position:
        reader, names = self.reader, self.names
        program = self.game.program
        position = reader.mapping(node, "'position'", POSITION_KEYS)
        start = start_of(self.game, seed)  # what the position leaves out is taken from the start of a match
        if isinstance(start, str):
            message = f"the match cannot start, so no position can be set up: {start}"
            raise reader.fail("RE532", message, node.span)
        start_variables, start_round = start
        zones: list[list[int] | None] = [None] * len(program.zone_names)
        used: dict[int, Span] = {}
        broken = False
        if "zones" in position:
            for flat, slot, value in names.zones(position.entries["zones"]):
                cards: list[int] = []
                try:
                    items = reader.items(value, f"the cards of '{flat}'")
                except Skip:
                    broken = True
                    continue
                for item in items:
                    try:
                        copies = names.card(item)
                    except Skip:  # the cards after it are still read, for their diagnostics
                        broken = True
                        continue
                    free = [c for c in copies if c not in used]
                    if not free:
                        first = used[copies[-1]]
                        held = "one" if len(copies) == 1 else f"{len(copies)} copies"
                        name = item.written if isinstance(item, Scalar) else ""
                        message = f"card '{name}' is placed again, but the decks hold only {held}"
                        before = f"placed before at line {first.line}, column {first.column}"
                        reader.error("RE510", message, item.span, before)
                        broken = True
                        continue
                    used[free[0]] = item.span
                    cards.append(free[0])
                table = program.families[flat.split("[")[0]].sorted_by
                if table is not None:  # a sorted zone is kept in its order whatever the order written
                    cards.sort(key=program.attributes[table].__getitem__)
                zones[slot] = cards
        try:
            rest = self.rest(position)
        except Skip:
            rest, broken = None, True
        unplaced: dict[int, list[int]] = {}
        for card in range(program.num_cards):
            if card not in used:
                unplaced.setdefault(rest if rest is not None else self.deck_zone(card), []).append(card)
        for slot, cards in unplaced.items():  # beneath any cards the position puts there
            zones[slot] = cards + (zones[slot] or [])
        variables = list(start_variables)
        if "variables" in position:
            problems_before = len(reader.problems)
            try:
                for _name, offset, value, _node in names.variable_values(position.entries["variables"]):
                    variables[offset] = value
            except Skip:
                broken = True
            broken = broken or len(reader.problems) > problems_before  # a value refused is left out
        phase = -1  # a position names its phase: the first one is rarely the one meant
        current = 0  # P1, unless the position says
        out: frozenset[int] = frozenset()
        fields: dict[str, Any] = {}
        # Each part is read on its own, so that one mistake hides none of the others.
        try:
            if "phase" in position:
                phase = names.phase(position.entries["phase"])
        except Skip:
            broken = True
        try:
            if "current" in position:
                current = names.player(position.entries["current"])
        except Skip:
            broken = True
        try:
            if "out" in position:
                leaving = names.players(position.entries["out"])
                # the compiled game takes every seat to be in the round (the pass `everyone stays`)
                refused = out_refused(program.ruleset, program.options, leaving)
                if refused is not None:
                    hint = "leave out 'out': only an 'out' effect takes a player out, and these rules have none"
                    reader.error("RE509", refused, position.entries["out"].span, hint)
                    broken = True
                else:
                    out = leaving
        except Skip:
            broken = True
        for key in ("round", "turns", "passes"):
            if key in position:
                try:
                    fields[key] = names.count(position.entries[key], f"'{key}'", 1 if key == "round" else 0)
                except Skip:
                    broken = True
        try:
            if "direction" in position:
                fields["direction"] = names.direction(position.entries["direction"])
        except Skip:
            broken = True
        if current in out:
            reader.error(
                "RE509",
                f"P{current + 1} is to move but is out of the round",
                (position.get("current") or position.get("out") or position).span,
            )
            broken = True
        if "phase" not in position:
            hint = f"phases: {', '.join(names.phases)}"
            raise reader.fail("RE508", "the position needs a 'phase'", position.span, hint)
        if broken:
            raise Skip()
        return Position(
            zones=tuple(tuple(z or ()) for z in zones),
            variables=tuple(variables),
            phase=phase,
            current=current,
            direction=fields.get("direction", 1),
            round_number=fields.get("round", max(1, start_round)),
            out=out,
            turns=fields.get("turns", 0),
            passes=fields.get("passes", 0),
        )

    def rest(self, position: Map) -> int | None:
        node = position.get("rest")
        if node is None:
            return None
        name = self.reader.text(node, "'rest'")
        if name not in self.names.zone_slots:
            raise self.reader.fail(
                "RE505", f"no zone is named '{name}'", node.span, did_you_mean(name, self.names.zone_slots)
            )
        return self.names.zone_slots[name]

    def deck_zone(self, card: int) -> int:
        program = self.game.program
        deck = program.ruleset.decks[program.card_deck[card]]
        return program.families[deck.zone].base
