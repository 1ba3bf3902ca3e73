"""The checks of a scenario test (`expect:`), each resolved against the game when the file is
read and run against a state later: legal actions, the turn, zones, variables, the log, the
end of the round and of the match, what a player sees."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import attrs

from . import ir
from .diagnostics import Span
from .engine import Game, State
from .scenario_names import names_of
from .scenario_shapes import Shapes, Skip, flag, is_empty, is_int
from .source import Map, Node, Scalar

EXPECT_KEYS = {
    "legal": "actions that must be legal",
    "not_legal": "actions that must not be legal",
    "only_legal": "the legal actions, all of them",
    "current": "the player to move",
    "phase": "the phase being played",
    "round": "the round number",
    "direction": "the direction of play",
    "out": "the players out of the round",
    "zones": "cards of zones (a list, bottom to top), their number, or {contains: [...], excludes: [...]}",
    "variables": "variable values",
    "log": "lines that the log must show since the test began",
    "not_log": "lines that the log must not show",
    "round_over": "whether the round being played when the step began has ended",
    "match_over": "whether the match is over",
    "returns": "the match's returns, one per player",
    "sees": "what a player's observation shows of zones: `{P2: {hand[P1]: 8}}` (a count for a hidden zone);"
    " `shown` stands for the cards revealed to the player by the last step",
}


@attrs.frozen
class Check:
    """One expectation: `test(state, context)` returns None when it holds, else (expected, actual)."""

    span: Span
    what: str
    test: Callable[[State, dict], tuple[str, str] | None]


class ExpectReader:
    def __init__(self, reader: Shapes, game: Game):
        self.reader = reader
        self.names = names_of(reader, game)
        self.game = game

    def read(self, node: Node) -> list[Check]:
        expect = self.reader.mapping(node, "'expect'", EXPECT_KEYS)
        checks: list[Check] = []
        for key, value in expect.items():
            if key not in EXPECT_KEYS:
                continue  # reported as an unknown key; never a method of this reader
            try:
                checks.extend(getattr(self, key)(value, expect.key_spans[key]))
            except Skip:
                continue
        return checks

    # -- actions --

    def _action_list(self, node: Node) -> list[tuple[str, Span]]:
        """The actions named, each item checked (every item not a text is reported)."""
        found, broken = [], False
        for item in self.reader.items(node, "actions"):
            try:
                found.append((self.reader.words(item, "an action"), item.span))
            except Skip:
                broken = True
        if broken:
            raise Skip()
        return found

    def legal(self, node: Node, _span: Span) -> Iterator[Check]:
        for name, span in self._action_list(node):
            yield Check(span, f"'{name}' is legal", _legal_check(name, True))

    def not_legal(self, node: Node, _span: Span) -> Iterator[Check]:
        for name, span in self._action_list(node):
            yield Check(span, f"'{name}' is not legal", _legal_check(name, False))

    def only_legal(self, node: Node, span: Span) -> Iterator[Check]:
        wanted = sorted(name for name, _ in self._action_list(node)) if not is_empty(node) else []

        def test(state: State, _context: dict) -> tuple[str, str] | None:
            actual = sorted(legal_names(state))
            return None if actual == wanted else (_show(wanted), _show(actual))

        yield Check(node.span, "the legal actions", test)

    # -- turn --

    def current(self, node: Node, _span: Span) -> Iterator[Check]:
        player = self.names.player(node)
        yield _field(
            node.span,
            "the player to move",
            f"P{player + 1}",
            lambda s: f"P{s.current_player() + 1}" if s.current_player() >= 0 else "nobody",
        )

    def phase(self, node: Node, _span: Span) -> Iterator[Check]:
        index = self.names.phase(node)
        name = self.names.phases[index]
        yield _field(node.span, "the phase", name, lambda s: self.names.phases[s.phase] if s.phase >= 0 else "none")

    def round(self, node: Node, _span: Span) -> Iterator[Check]:
        number = self.names.count(node, "'round'", 1)
        yield _field(node.span, "the round", str(number), lambda s: str(s.round_number))

    def direction(self, node: Node, _span: Span) -> Iterator[Check]:
        value = self.names.direction(node)
        yield _field(node.span, "the direction of play", str(value), lambda s: str(s.direction))

    def out(self, node: Node, _span: Span) -> Iterator[Check]:
        players = sorted(self.names.players(node)) if not is_empty(node) else []
        wanted = _show([f"P{p + 1}" for p in players])
        yield _field(
            node.span,
            "the players out",
            wanted,
            lambda s: _show([f"P{p + 1}" for p, a in enumerate(s.active) if not a]),
        )

    # -- cards and values --

    def zones(self, node: Node, _span: Span) -> Iterator[Check]:
        for flat, slot, value in self.names.zones(node):
            yield from _each_reported(self._zone(flat, value, partial(_cards, slot=slot)))

    def _zone(self, flat: str, value: Node, cards_of: Callable[[State], Any]) -> Iterator[Check]:
        reader, names = self.reader, self.names
        if is_int(value):
            count = names.count(value, "a number of cards")
            yield _field(
                value.span,
                f"the number of cards in {flat}",
                str(count),
                lambda s: str(len(cards_of(s)) if isinstance(cards_of(s), list) else cards_of(s)),
            )
            return
        if isinstance(value, Map):
            entries = reader.mapping(value, f"the check of '{flat}'", {"contains": "", "excludes": "", "size": ""})
            for key, inner in entries.items():
                if key == "size":
                    if not is_int(inner):
                        reader.error("RE500", "'size' must be a whole number of cards", inner.span)
                        continue
                    yield from _each_reported(self._zone(flat, inner, cards_of))
                    continue
                try:
                    wanted = names.card_names(inner)
                except Skip:  # reported: `contains` and `excludes` are read each on its own
                    continue
                present = key == "contains"

                def test(state: State, _c: dict, wanted=wanted, present=present) -> tuple[str, str] | None:
                    cards = cards_of(state)
                    if not isinstance(cards, list):
                        return (
                            f"{flat} {'holds' if present else 'does not hold'} {_show(wanted)}",
                            f"{cards} hidden cards",
                        )
                    wrong = [n for n in wanted if (n in cards) != present]
                    if not wrong:
                        return None
                    return (f"{flat} {'holds' if present else 'does not hold'} {_show(wanted)}", _show(cards))

                yield Check(inner.span, f"{flat} {key} cards", test)
            return
        wanted = names.card_names(value) if not is_empty(value) else []
        yield _field(
            value.span,
            f"the cards of {flat} (bottom to top)",
            _show(wanted),
            lambda s: _show(cards_of(s)) if isinstance(cards_of(s), list) else f"{cards_of(s)} hidden cards",
        )

    def variables(self, node: Node, _span: Span) -> Iterator[Check]:
        program = self.game.program
        for name, offset, value, value_node in self.names.variable_values(node):
            type_ = next(t for n, _, t in program.variable_layout if n == name.split("[")[0])
            shown = _show_value(self.game, value, type_)

            def actual(s: State, offset: int = offset, type_: str = type_) -> str:
                return _show_value(self.game, s.vars[offset], type_)

            yield _field(value_node.span, f"the value of {name}", shown, actual)

    def log(self, node: Node, _span: Span) -> Iterator[Check]:
        for line, span in self._log_lines(node):
            yield Check(span, "a log line", _log_check(line, True))

    def not_log(self, node: Node, _span: Span) -> Iterator[Check]:
        for line, span in self._log_lines(node):
            yield Check(span, "no such log line", _log_check(line, False))

    def _log_lines(self, node: Node) -> list[tuple[str, Span]]:
        """The lines written, each item checked (every item not a text is reported)."""
        found, broken = [], False
        for item in self.reader.items(node, "log lines"):
            try:
                found.append((self.reader.text(item, "a log line").strip(), item.span))
            except Skip:
                broken = True
        if broken:
            raise Skip()
        return found

    def round_over(self, node: Node, _span: Span) -> Iterator[Check]:
        wanted = _yes(flag(self.reader, node, "'round_over'"))

        def test(state: State, context: dict) -> tuple[str, str] | None:
            actual = _yes(state.round_number > context["round"] or state.is_terminal())
            return None if actual == wanted else (wanted, actual)

        yield Check(node.span, "the round is over", test)

    def match_over(self, node: Node, _span: Span) -> Iterator[Check]:
        wanted = flag(self.reader, node, "'match_over'")
        yield _field(node.span, "the match is over", _yes(wanted), lambda s: _yes(s.is_terminal()))

    def returns(self, node: Node, _span: Span) -> Iterator[Check]:
        items = self.reader.items(node, "'returns'")
        values = []
        for item in items:  # every value that is no return is reported, not only the first
            value = _finite(item)
            if value is None:
                self.reader.error("RE500", "a return must be a finite number", item.span)
            else:
                values.append(value)
        if len(items) != self.game.num_players:
            self.reader.error("RE500", f"'returns' needs one value per player ({self.game.num_players})", node.span)
        if len(values) != self.game.num_players:
            raise Skip()
        wanted = _show(values) + " (the match over)"

        def actual(state: State) -> str:
            return _show(state.returns()) + (" (the match over)" if state.is_terminal() else " (the match goes on)")

        yield _field(node.span, "the returns", wanted, actual)

    def sees(self, node: Node, _span: Span) -> Iterator[Check]:
        entries = self.reader.mapping(node, "'sees'", None)
        for seat, inner in entries.items():
            try:
                player = self.names.player(Scalar(seat, entries.key_spans[seat]))
            except Skip:
                continue
            try:
                zones = self.reader.mapping(inner, f"what P{player + 1} sees", None)
            except Skip:  # the other players' views are still read
                continue
            if "shown" in zones and "shown" not in self.names.zone_slots:

                def shown_to(s: State, p: int = player) -> Any:
                    return s.observation(p)["shown"]

                shown = self._zone(f"the cards shown to P{player + 1}", zones.entries["shown"], shown_to)
                yield from _each_reported(shown)
                zones = Map(
                    {k: v for k, v in zones.items() if k != "shown"},
                    {k: v for k, v in zones.key_spans.items() if k != "shown"},
                    zones.span,
                )
            for flat, _slot, value in self.names.zones(zones):

                def seen_by(s: State, p: int = player, f: str = flat) -> Any:
                    return s.observation(p)["zones"][f]

                yield from _each_reported(self._zone(f"{flat} as P{player + 1} sees it", value, seen_by))


def _each_reported(checks: Iterator[Check]) -> Iterator[Check]:
    """The checks of one zone; a zone whose value is broken (reported already) gives no more,
    and the next zone is still read: one bad value hides none of the others."""
    try:
        yield from checks
    except Skip:
        return


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _show(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_show(v) for v in values) + "]"
    if isinstance(values, float) and values.is_integer():
        return str(int(values))
    return str(values)


def _finite(node: Node) -> float | None:
    """A number written in the file as a float, if it is one no float overflows on (a return)."""
    if not isinstance(node, Scalar) or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    try:
        value = float(node.value)
    except OverflowError:  # an integer past the floats
        return None
    return value if math.isfinite(value) else None


def _show_value(game: Game, value: Any, type_: str) -> str:
    if type_ == ir.PLAYER:
        return f"P{value + 1}" if isinstance(value, int) and value >= 0 else "nobody"
    if type_ == ir.BOOL:
        return "true" if value else "false"
    shown = game.show_value(value, type_)
    return "nothing" if shown is None else str(shown)


def _cards(state: State, slot: int) -> list[str]:
    names = state.program.card_names
    return [names[card] for card in state.zones[slot]]


def _field(span: Span, what: str, wanted: str, actual_of: Callable[[State], str]) -> Check:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        actual = actual_of(state)
        return None if actual == wanted else (wanted, actual)

    return Check(span, what, test)


def legal_names(state: State) -> list[str]:
    """The names of the legal actions of the player to move, as the log gives them; a name
    twice when two different actions share it (two moves with one label)."""
    distinct = {(label, _describe(state, move, values)) for move, values, label, _steps in state.complete_actions()}
    return [label for label, _described in distinct]


def matching_actions(state: State, name: str) -> list[tuple[str, tuple[int, ...]]]:
    """The legal actions named `name` (as `action_to_string` prints it, optionally `P2: ...`),
    each described by its move and parameter values, with the ids that make it."""
    mover, sep, rest = name.partition(": ")
    wanted = {name, rest} if sep and mover == f"P{state.current_player() + 1}" else {name}
    found: dict[str, tuple[int, ...]] = {}
    for move, values, label, steps in state.complete_actions():
        if label in wanted:
            # copies of a card are one action to the reader: the first is played
            found.setdefault(_describe(state, move, values), steps)
    return list(found.items())


def find_action(state: State, name: str) -> tuple[int, ...] | None:
    """The legal action named `name`; None when no legal action, or more than one, has that name."""
    found = matching_actions(state, name)
    return found[0][1] if len(found) == 1 else None


def _describe(state: State, move: Any, values: tuple) -> str:
    """An action told apart from others of the same name: its move and parameter values."""
    shown = [state.game.show_param(param, value) for param, value in zip(move.params, values, strict=False)]
    return f"move '{move.name}'" + (f" ({', '.join(shown)})" if shown else "")


def _legal_check(name: str, wanted: bool) -> Callable[[State, dict], tuple[str, str] | None]:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        found = bool(matching_actions(state, name))
        if found == wanted:
            return None
        names = sorted(legal_names(state))
        return (f"'{name}' {'legal' if wanted else 'not legal'}", f"legal actions: {_show(names)}")

    return test


def _log_matches(wanted: str, line: str) -> bool:
    """A log line matches the text written, or begins with it when the text ends with '...'."""
    if wanted.endswith("..."):
        return line.startswith(wanted[:-3])
    return line == wanted


def _log_check(line: str, wanted: bool) -> Callable[[State, dict], tuple[str, str] | None]:
    def test(state: State, _context: dict) -> tuple[str, str] | None:
        lines = [text.strip() for text in state.log or []]
        found = [text for text in lines if _log_matches(line, text)]
        if bool(found) == wanted:
            return None
        if wanted:
            import difflib  # here: only a failed check of the log looks for a line near it

            near = difflib.get_close_matches(line, lines, n=1, cutoff=0.6)
            return (f"the log line '{line}'", f"the line '{near[0]}'" if near else f"{len(lines)} other line(s)")
        return (f"no log line '{line}'", f"'{found[0]}'")

    return test
