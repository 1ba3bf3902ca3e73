"""A readable summary of a checked ruleset, for `rulesengine describe`.

The structure (players, options, decks, zones, variables, phases, moves) comes from the
`ir.Ruleset`. The checked expressions keep no source text (definitions are expanded
into them), so conditions and candidates are quoted from the composed rule file: the
summary shows what the author wrote, not a reconstruction.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from . import ir
from .compose import compose
from .diagnostics import RulesEngineError, printable
from .source import plain

WIDTH = 88
_ONE = {ir.INT: "a number", ir.STR: "a text"}
_SEEN_BY = {
    "all": "seen by everyone",
    "owner": "seen by its owner only",
    "team": "seen by its owner's team",
    "nobody": "seen by nobody",
}


def _document(file: str) -> dict:
    """The composed rule file as plain values, for quoting what the author wrote."""
    try:
        tree = plain(compose(file))
    except (RulesEngineError, OSError):
        return {}
    return tree if isinstance(tree, dict) else {}


def show_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).split())


def _written(document: dict, *path: str) -> str | None:
    """The text at `path` in the document (e.g. moves, pick_up, legal), on one line."""
    node: object = document
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return None if node is None or isinstance(node, (dict, list)) else show_value(node)


def show_default(variable: ir.Variable, ruleset: ir.Ruleset, document: dict) -> str:
    """A variable's starting value: as written, or the implicit zero of its type."""
    written = _written(document, "variables", variable.name, "default")
    if written is not None:
        return written
    value = variable.default.value if isinstance(variable.default, ir.Const) else None
    if variable.type == ir.PLAYER and isinstance(value, int):
        return f"P{value + 1}"
    if variable.type == ir.SUIT and isinstance(value, int) and value < len(ruleset.suits):
        return ruleset.suits[value].name
    if variable.type == ir.CARD:
        return "no card"
    if variable.type == ir.STR:
        return repr(value)
    return show_value(value)


def _columns(rows: Sequence[tuple[str, ...]], indent: str = "  ") -> list[str]:
    """Rows aligned in columns; the last column is free text."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        (indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1]).rstrip()
        for row in rows
    ]


def allowed_values(option: ir.Option) -> str:
    """The values an option takes, in words."""
    if option.choices is not None:
        return "one of " + ", ".join(show_value(c) for c in option.choices)
    if option.type == ir.BOOL:
        return "true or false"
    low, high = option.minimum, option.maximum
    if low is not None and high is not None:
        bounds = f"{low} to {high}"
    elif low is not None:
        bounds = f"at least {low}"
    elif high is not None:
        bounds = f"at most {high}"
    else:
        return "any number" if option.type == ir.INT else "any text"
    return bounds if option.type == ir.INT else f"any text of {bounds} character(s)"  # a text's length


def _options(options: tuple[ir.Option, ...]) -> list[str]:
    rows = [(o.name, o.type, f"default {show_value(o.default)}", allowed_values(o)) for o in options]
    out: list[str] = []
    for option, line in zip(options, _columns(rows)):
        out.append(line)
        if option.description:
            out += _wrapped(option.description, "      ", hang=0)
    return out or ["  none"]


def _zone_layout(zone: ir.Zone) -> str:
    if not zone.dimensions:
        return "shared"
    return "per " + " x ".join(str(d) for d in zone.dimensions)


def _param(param: ir.Param, move: str, document: dict) -> str:
    source = _written(document, "moves", move, "params", param.name) or _written(
        document, "moves", move, "params", param.name, "from"
    )
    where = f" from {source}" if source else ""
    if param.size is None:
        return f"{param.name}: {_ONE.get(param.type, 'a ' + param.type)}{where}"
    same = f" of the same {param.same}" if param.same else ""
    if param.at_least is not None:
        return f"{param.name}: {param.at_least} to {param.size} cards{same}{where}"
    return f"{param.name}: {param.size} cards{same}{where}"


def _wrapped(text: str, indent: str, hang: int = 4) -> list[str]:
    """`text` wrapped to WIDTH; continuation lines indented `hang` spaces further."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + " " * hang) or [indent]


def describe(ruleset: ir.Ruleset) -> str:
    """The summary of a ruleset as text: players, options, cards, zones, flow and moves."""
    document = _document(ruleset.file)
    out: list[str] = [ruleset.name, "=" * len(ruleset.name)]
    if ruleset.description:
        out += textwrap.wrap(ruleset.description, WIDTH)
    out.append(f"file: {ruleset.file}")
    out.append(
        f"players: {ruleset.min_players} to {ruleset.max_players} (default {ruleset.default_players})"
        if ruleset.min_players != ruleset.max_players
        else f"players: {ruleset.min_players}"
    )
    if ruleset.teams is not None:
        seats = " against ".join(", ".join(f"P{p + 1}" for p in team) for team in ruleset.teams.seats)
        out.append(f"teams: {seats or 'alternate seats'}")

    out += ["", "options (set with -o NAME=VALUE):"]
    out += _options(ruleset.options)

    out += ["", "decks:"]
    for deck in ruleset.decks:
        size = len(deck.suits) * len(deck.ranks) * deck.copies
        copies = f" x {deck.copies} copies" if deck.copies > 1 else ""
        out += _wrapped(
            f"{deck.name}: {size} cards ({len(deck.suits)} suits x {len(deck.ranks)} ranks{copies}), "
            f"starting in {deck.zone}; suits {', '.join(deck.suits)}; ranks from low to high {' '.join(deck.ranks)}",
            "  ",
        )

    out += ["", "zones:"]
    out += _columns([(z.name, _zone_layout(z), _SEEN_BY.get(z.visibility, z.visibility)) for z in ruleset.zones])

    out += ["", "variables:"]
    rows = [
        (v.name, v.type + (" per player" if v.per_player else ""), f"starts at {show_default(v, ruleset, document)}")
        for v in ruleset.variables
    ]
    out += _columns(rows) or ["  none"]

    out += ["", "phases of a round, in order:"]
    for phase in ruleset.phases:
        details = [f"moves {', '.join(phase.moves)}"]
        for key in ("first", "until"):
            written = _written(document, "phases", phase.name, key)
            if written is not None:
                details.append(f"{key} {written}")
        details.append(f"then {phase.next}" if phase.next else "then the round ends")
        out += _wrapped(f"{phase.name}: " + "; ".join(details), "  ")

    out += ["", "moves:"]
    for move in ruleset.moves:
        params = "; ".join(_param(p, move.name, document) for p in move.params) or "no parameters"
        flags = [flag for flag, on in (("pass", move.is_pass), ("hidden", move.hidden)) if on]
        out += _wrapped(f"{move.name}{' (' + ', '.join(flags) + ')' if flags else ''}: {params}", "  ")
        legal = _written(document, "moves", move.name, "legal")
        if legal is not None:
            out += _wrapped(f"legal when {legal}", "    ")

    if ruleset.triggers:
        out += ["", "triggers (checked after every move):"]
        for trigger in ruleset.triggers:
            each = _written(document, "triggers", trigger.name, "for")
            when = _written(document, "triggers", trigger.name, "when")
            out += _wrapped(f"{trigger.name}: " + (f"for {each}, " if each else "") + f"when {when}", "  ")

    out += ["", "match:"]
    for key, text in (
        ("until", "ends after a round when"),
        ("winners", "winners:"),
        ("losers", "losers:"),
        ("returns", "each player's return:"),
    ):
        written = _written(document, "match", key)
        if written is not None:
            out += _wrapped(f"{text} {written}", "  ")
    # one line each: a line break in a name or text is shown as an escape, never a line of its own
    return "\n".join(map(printable, out))
