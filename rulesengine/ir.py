"""The checked ruleset: immutable, typed, every name resolved.

The checker (`check.py`) builds these values from the syntax trees; the compiler
(`compile.py`) turns them into Python callables. Expressions carry their type.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from .diagnostics import Span

# ---- types -----------------------------------------------------------------------------
# A type is a short string: scalar types, "zone", or "list:<element>".
INT, BOOL, STR, CARD, SUIT, RANK, PLAYER, ZONE = "int", "bool", "str", "card", "suit", "rank", "player", "zone"
# the Python type of an option's value, by the option's type
OPTION_VALUE_TYPES: dict[str, type] = {INT: int, BOOL: bool, STR: str}
SCALARS = (INT, BOOL, STR, CARD, SUIT, RANK, PLAYER)


def list_of(element: str) -> str:
    return f"list:{element}"


def element_of(type_: str) -> str | None:
    if type_ == ZONE:
        return CARD
    return type_[5:] if type_.startswith("list:") else None


def type_name(type_: str) -> str:
    if type_ == ZONE:
        return "zone"
    element = element_of(type_)
    return f"list of {element}s" if element else type_


# ---- expressions -----------------------------------------------------------------------


@attrs.frozen
class Expr:
    type: str
    span: Span


@attrs.frozen
class Const(Expr):
    value: object


@attrs.frozen
class OptionRef(Expr):
    """An option's value: a constant once the game's options are known."""

    name: str


@attrs.frozen
class Local(Expr):
    """A bound name: the moving player, a move parameter, a loop or macro variable."""

    name: str
    slot: int


@attrs.frozen
class VarRef(Expr):
    variable: str
    indices: tuple[Expr, ...]


@attrs.frozen
class ZoneRef(Expr):
    zone: str
    indices: tuple[Expr, ...]


@attrs.frozen
class Builtin(Expr):
    """A state value such as `current`, `players`, `active`, `direction`."""

    name: str


@attrs.frozen
class CardAttr(Expr):
    card: Expr
    attribute: str


@attrs.frozen
class CardSelf(Expr):
    """The card whose attribute or label is being defined (`order`, `suit` and earlier
    attributes inside `cards.attributes` read it)."""


@attrs.frozen
class SuitAttr(Expr):
    """An attribute a suit has in the rule file's suit table (`s.symbol`)."""

    suit: Expr
    attribute: str


@attrs.frozen
class Call(Expr):
    function: str
    args: tuple[Expr, ...]


@attrs.frozen
class Unary(Expr):
    op: str
    operand: Expr


@attrs.frozen
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Conditional(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr


@attrs.frozen
class ListExpr(Expr):
    items: tuple[Expr, ...]


@attrs.frozen
class Macro(Expr):
    """`collection.any(x, body)` and friends; `x` lives in `slot`."""

    kind: str
    collection: Expr
    slot: int
    body: Expr | None


def children(expr: Expr) -> list[Expr]:
    """The expressions directly inside `expr` (a macro's collection and body included)."""
    out: list[Expr] = []
    for value in field_values(expr):
        if isinstance(value, Expr):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend([v for v in value if isinstance(v, Expr)])
    return out


# per class: the names of its fields, and a function giving their values at once (None: not an
# attrs class); the checks, the lowering and the compiler walk the rules many thousands of times
_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}
_FIELD_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]] | None] = {}


def field_names(kind: type) -> tuple[str, ...] | None:
    """The names of the fields of `kind`, in order; None when it is not an attrs class."""
    try:
        return _FIELD_NAMES[kind]
    except KeyError:
        names = _FIELD_NAMES[kind] = tuple(field.name for field in attrs.fields(kind)) if attrs.has(kind) else None
        return names


def field_getter(kind: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """value -> the values of every field of `kind`, in its order of fields; None when `kind`
    is not an attrs class. Made once per class."""
    try:
        return _FIELD_GETTERS[kind]
    except KeyError:
        pass
    names = field_names(kind)
    getter: Callable[[Any], tuple[Any, ...]] | None = None
    if names is not None and len(names) > 1:
        getter = operator.attrgetter(*names)
    elif names is not None:  # attrgetter of one name gives the value itself, of none nothing at all
        getter = lambda value: tuple(getattr(value, name) for name in names)
    _FIELD_GETTERS[kind] = getter
    return getter


def field_values(value: Any) -> tuple[Any, ...]:
    """The values of every field of an attrs instance, in the order of its class's fields."""
    getter = _FIELD_GETTERS.get(type(value)) or field_getter(type(value))
    assert getter is not None, f"{type(value).__name__} is not an attrs class"
    return getter(value)


# ---- statements ------------------------------------------------------------------------


@attrs.frozen
class Stmt:
    span: Span


@attrs.frozen
class Move(Stmt):
    cards: Expr  # a card, a list of cards or a zone
    destination: Expr
    at_bottom: bool


@attrs.frozen
class Deal(Stmt):
    count: Expr | None
    source: Expr
    family: str
    start: Expr


@attrs.frozen
class Shuffle(Stmt):
    zone: Expr


@attrs.frozen
class Reveal(Stmt):
    cards: Expr
    player: Expr


@attrs.frozen
class Assign(Stmt):
    variable: str
    indices: tuple[Expr, ...]
    op: str
    value: Expr


@attrs.frozen
class TurnTo(Stmt):
    player: Expr


@attrs.frozen
class Reverse(Stmt):
    pass


@attrs.frozen
class Out(Stmt):
    player: Expr


@attrs.frozen
class End(Stmt):
    what: str


@attrs.frozen
class Goto(Stmt):
    phase: str


@attrs.frozen
class Log(Stmt):
    parts: tuple[str | Expr, ...]


@attrs.frozen
class If(Stmt):
    condition: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...]


@attrs.frozen
class For(Stmt):
    slot: int
    collection: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class Let(Stmt):
    """Local `slot` is `value` from here on (a procedure's parameter bound to its argument)."""

    slot: int
    value: Expr


@attrs.frozen
class Random(Stmt):
    """A chance event: one element of `candidates` (a list or zone), each equally likely,
    goes to local `slot` (an empty list gives the neutral value: no card, nobody, 0, "")."""

    slot: int
    candidates: Expr


@attrs.frozen
class Repeat(Stmt):
    """The body at most `count` times (checked at most limits.MAX_REPEAT), stopping after a
    pass once `until` holds."""

    count: Expr
    body: tuple[Stmt, ...]
    until: Expr | None
    most: int  # the largest count the checker sees (a number or an option's bound)


def nested(statements: list[Stmt] | tuple[Stmt, ...]) -> Iterator[Stmt]:
    """Every statement among `statements`, and those inside them at any depth."""
    for statement in statements:
        yield statement
        for field in attrs.fields(type(statement)):
            value = getattr(statement, field.name)
            if isinstance(value, tuple) and any(isinstance(v, Stmt) for v in value):
                yield from nested(value)


def assigned_variables(statements: list[Stmt] | tuple[Stmt, ...]) -> set[str]:
    """The variables that running `statements` may set (at any depth)."""
    return {s.variable for s in nested(statements) if isinstance(s, Assign)}


def has_chance(statements: tuple[Stmt, ...]) -> bool:
    """Whether an effect list holds a chance event or a repeat anywhere (so the engine's
    agenda, not one generated function, runs it)."""
    return any(isinstance(s, (Shuffle, Random, Repeat)) for s in nested(statements))


# ---- the ruleset -----------------------------------------------------------------------


@attrs.frozen
class Option:
    name: str
    type: str  # int, bool, str
    default: object
    choices: tuple[object, ...] | None
    minimum: int | None
    maximum: int | None
    description: str
    span: Span


@attrs.frozen
class Suit:
    name: str
    attributes: dict[str, object]


@attrs.frozen
class Deck:
    name: str
    suits: tuple[str, ...]
    ranks: tuple[str, ...]
    zone: str  # where its cards lie when a match starts
    copies: int


@attrs.frozen
class CardAttribute:
    """A per-card value computed from the card's suit, rank and order."""

    name: str
    type: str
    expression: Expr | None  # None: a suit attribute from the suit table


@attrs.frozen
class Zone:
    name: str
    dimensions: tuple[str | int, ...]  # "player", "suit" or a count
    visibility: str  # all, owner, nobody
    sorted_by: str | None
    span: Span


@attrs.frozen
class Variable:
    name: str
    type: str
    per_player: bool
    default: Expr
    # `per: team`: laid out per player, every member of a team holding the team's value
    per_team: bool = False


@attrs.frozen
class Param:
    name: str
    slot: int
    type: str  # card, int, str, player, suit, or list:card for a set
    candidates: Expr
    size: int | None  # for sets: how many cards (for a set of variable size: the most)
    same: str | None  # for sets: the card attribute they share
    at_least: int | None = None  # for a set of variable size: the fewest cards (None: exactly `size`)


@attrs.frozen
class MoveDef:
    name: str
    params: tuple[Param, ...]
    legal: Expr | None
    effects: tuple[Stmt, ...]
    label: tuple[str | Expr, ...] | None
    is_pass: bool
    hidden: bool
    span: Span


@attrs.frozen
class Trigger:
    name: str
    slot: int | None  # the bound player (or other value) when `for` is given
    each: Expr | None
    when: Expr
    effects: tuple[Stmt, ...]


@attrs.frozen
class Phase:
    name: str
    moves: tuple[str, ...]
    first: Expr | None
    until: Expr | None
    enter: tuple[Stmt, ...]
    exit: tuple[Stmt, ...]
    next: str | None  # None: the round ends after this phase
    simultaneous: bool = False  # every active player chooses unseen, then the choices are resolved together


@attrs.frozen
class Teams:
    """Fixed partnerships: `alternate` (seats 0, 2, ... against 1, 3, ...) or listed seats."""

    alternate: bool
    seats: tuple[tuple[int, ...], ...]  # the listed teams (empty for alternate)
    span: Span


@attrs.frozen
class Results:
    """How a match's result becomes numbers (the `match` section beyond winners and losers)."""

    returns: Expr | None  # each player's return, with `me` the player
    total: Expr | None  # declared constant sum of the returns (zero_sum: the constant 0)
    zero_sum: bool
    minimum: Expr | None
    maximum: Expr | None
    shared_win: bool  # `tie: win`: everybody winning is a shared win (+1 each), not a draw
    span: Span  # the match section: where a broken declaration is reported


@attrs.frozen(eq=False)
class Ruleset:
    name: str
    description: str
    file: str
    min_players: int
    max_players: int
    default_players: int
    options: tuple[Option, ...]
    suits: tuple[Suit, ...]
    ranks: tuple[str, ...]
    decks: tuple[Deck, ...]
    card_attributes: tuple[CardAttribute, ...]
    card_label: tuple[str | Expr, ...] | None
    zones: tuple[Zone, ...]
    variables: tuple[Variable, ...]
    setup: tuple[Stmt, ...]
    round_setup: tuple[Stmt, ...]
    round_end: tuple[Stmt, ...]
    round_limit: int | None
    round_limit_effects: tuple[Stmt, ...]
    round_stuck_effects: tuple[Stmt, ...]
    phases: tuple[Phase, ...]
    moves: tuple[MoveDef, ...]
    triggers: tuple[Trigger, ...]
    match_until: Expr
    winners: Expr | None
    losers: Expr | None
    slots: int  # how many local slots an environment needs
    evaluation: Expr | None = None  # how well `me` fares, for agents (match.evaluation)
    results: Results | None = None  # numeric returns, their sum and bounds, a shared win (match section)
    teams: Teams | None = None  # the `teams` section; None: every player is a team of one
    round_limit_share: float | None = None  # round.limit.accepted_share: for `rulesengine check` only
    # the static bound of a round's own work (its setup and end, the phases' entries and exits
    # and tests, match.until), which rounds passing without a decision add up (engine.py)
    round_cost: int = 0
