"""What generated code may call besides the State: the language's total operations.

These functions define the meaning of the operators and built-ins whose Python
counterparts are partial (division by zero, indexing out of range, unbounded ranges), so
every code path that runs a rule file gives them the same meaning.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from math import comb
from typing import Any, Protocol

from .diagnostics import EngineError
from .limits import MAX_INTEGER, MAX_RANGE, MAX_TEXT_LENGTH

NO_CARD = -1  # "no card": the top of an empty zone, an absent card value
NOBODY = -1  # "nobody": the holder of a card in a shared zone, an absent player value


class StateInterface(Protocol):
    """Every member of a state that generated code may use; nothing else (a test parses every
    generated function of the shipped rulesets and examples and holds it to this list)."""

    # read (and the flags and turn fields also written by effects)
    zones: list[list[int]]
    vars: list
    current: int
    direction: int
    round_number: int
    turns: int
    passes: int
    phase: int
    active: list[bool]
    active_players: list[int]
    log: list[str] | None
    game_over: bool
    round_over: bool
    phase_over: bool
    goto: int | None
    where: list[int]  # each card's zone: written, with `zones`, by a card move written out
    shown: list[list[int]]  # the cards each player is shown this step: added to by a reveal written out
    _track: bool  # whether the state keeps knowledge (else card moves are written out, no method call)
    # written by a phase's settle function: the next legal actions; not empty only at a
    # decision node (`State.apply_action` then applies a legal action without testing for chance)
    _legal: list[int] | None

    # card movements and effects
    def put_on_top(self, card: int, destination: int) -> None: ...
    def move_top(self, source: int, count: int, destination: int, sorted_tables: Any) -> None: ...
    def move_cards(self, cards: Any, destination: int, at_bottom: bool, sorted_tables: Any) -> None: ...
    def deal(self, source: int, base: int, first: int, each: int | None, sorted_tables: Any) -> None: ...
    def reveal(self, player: int, cards: Any) -> None: ...
    def leave_round(self, player: int, where: str = "") -> None: ...
    def turn_to(self, player: int, where: str) -> None: ...

    # questions
    def holder(self, card: int) -> int: ...
    def can_move(self, player: int) -> bool: ...

    # the flow of a match, shared with the engine's general path
    turn_set: bool
    # what a step notes of the action it plays (codegen_moves `_records`; `State._act` for a
    # move without a step): the history's newest values, the counts, the mover and its action
    _tail: list[int]
    steps: int
    mover: int
    last_action: int | None
    shown_any: bool

    def clear_shown(self) -> None: ...
    def log_action(self, action: int) -> None: ...

    def next_active(self, player: int) -> int: ...
    def _end_round(self, kind: int) -> None: ...
    def _advance(self) -> None: ...
    def _check(self) -> None: ...


STATE_MEMBERS = frozenset(
    [
        *StateInterface.__annotations__,
        *(member for member, value in vars(StateInterface).items() if callable(value) and not member.startswith("__")),
    ]
)


# ---- the language's value limits (checked where a value can grow) ------------------------


def check_int(value: int, where: str) -> int:
    """An integer result of + - * or unary minus, within the language's limit."""
    if -MAX_INTEGER <= value <= MAX_INTEGER:
        return value
    raise EngineError(f"{where}: a number beyond ±{MAX_INTEGER}, the language's limit")


def check_text(value: str, where: str) -> str:
    """A text joined by +, within the language's limit."""
    if len(value) <= MAX_TEXT_LENGTH:
        return value
    raise EngineError(f"{where}: a text longer than {MAX_TEXT_LENGTH} characters, the language's limit")


# ---- players, and nobody -------------------------------------------------------------------


def seat_of(player: int, players: int, where: str) -> int:
    """A player the API is asked about (`where` names the method), which must be a seat."""
    if 0 <= player < players:
        return player
    raise EngineError(f"{where}: a player is needed here, not {'nobody' if player == NOBODY else player}")


def needs_player(what: str, player: int, where: str) -> EngineError:
    """The error of a rule that needs a seat and got nobody (or another number): `turn to`,
    `out`, a phase's `first`."""
    return EngineError(f"{where}: {what} needs a player, not {'nobody' if player == NOBODY else player}")


def rule_seat(what: str, player: int, players: int, where: str) -> int:
    """A player a rule needs to be a seat (a phase's `first`, `deal` from, `reveal` to): nobody
    is an error."""
    if 0 <= player < players:
        return player
    raise needs_player(what, player, where)


def first_listing_error(
    state: Any, player: int, enumerators: tuple[Callable[[Any, int, list], None], ...], error: EngineError
) -> None:
    """Raise the error that listing the legal actions move by move, in the phase's order (as
    the reference mode lists them), meets first. A listing that tests several moves card by
    card in one loop meets the errors of their `legal` tests card by card instead; it calls
    this with the `error` it met, which is raised again should no move fail alone."""
    for enumerate_ in enumerators:
        enumerate_(state, player, [])
    raise error


def left(player: int, players: int) -> int:
    return (player + 1) % players if player >= 0 else NOBODY


def right(player: int, players: int) -> int:
    return (player - 1) % players if player >= 0 else NOBODY


def next_of(state: Any, player: int) -> int:
    return state.next_active(player) if player >= 0 else NOBODY


def others(player: int, players: int) -> list[int]:
    """Every seat but `player`, from the next one on; of nobody, every seat."""
    if player < 0:
        return list(range(players))
    return [(player + k) % players for k in range(1, players)]


def player_text(player: int) -> str:
    return f"P{player + 1}" if player >= 0 else "nobody"


def players_text(players: list[int]) -> str:
    return ", ".join(map(player_text, players)) or "nobody"


def div(a: int, b: int) -> int:
    return a // b if b else 0  # total: division by zero gives 0


def mod(a: int, b: int) -> int:
    return a % b if b else 0


def top(cards: list[int], k: int) -> list[int]:
    return cards[-k:] if k > 0 else []


def range1(high: int, where: str) -> list[int]:
    """`range(high)`: 0 to high - 1, none if high <= 0; more than MAX_RANGE numbers is an error."""
    if high > MAX_RANGE:
        raise range_too_long(high, where)
    return list(range(high))


def range2(low: int, high: int, where: str) -> list[int]:
    """`range(low, high)`: low to high - 1; more than MAX_RANGE numbers is an error."""
    if high - low > MAX_RANGE:
        raise range_too_long(high - low, where)
    return list(range(low, high))


def range_too_long(count: int, where: str) -> EngineError:
    return EngineError(f"{where}: a range of {count:,} numbers, more than {MAX_RANGE:,}, the language's limit")


def letter(text: str, i: int) -> str:
    return text[i] if 0 <= i < len(text) else ""


def arg_best(items, key: Callable[[Any], Any], empty: Any, want_max: bool) -> Any:
    best_item, best_value = empty, None
    for item in items:
        value = key(item)
        if best_value is None or (value > best_value if want_max else value < best_value):
            best_item, best_value = item, value
    return best_item


OUT = object()  # in arg_best_of: the value of a seat not in the round (no value is this object)


def arg_best_of(items: tuple, values: tuple, empty: Any, want_max: bool) -> Any:
    """`arg_best` with the key's values given, item by item (OUT: an item left out): the
    first item of the best value, as `arg_best` finds it."""
    best_item, best_value = empty, None
    for item, value in zip(items, values):
        if value is OUT:
            continue
        if best_value is None or (value > best_value if want_max else value < best_value):
            best_item, best_value = item, value
    return best_item


def unique(items) -> list:
    return list(dict.fromkeys(items))


def insert_sorted(zone: list[int], card: int, table: list) -> None:
    """Put `card` into a zone kept sorted by `table`, after the cards of an equal value."""
    zone.insert(bisect.bisect_right(zone, table[card], key=table.__getitem__), card)


def combination_unrank(index: int, size: int) -> tuple[int, ...]:
    cards = []
    for i in range(size, 0, -1):
        c = i - 1
        while comb(c + 1, i) <= index:
            c += 1
        cards.append(c)
        index -= comb(c, i)
    return tuple(reversed(cards))


def card_subsets(cards, low: int, high: int, table: list | None = None) -> list[tuple[int, ...]]:
    """Every set of `low` to `high` different real cards of `cards`, each sorted; with `table`,
    only sets whose cards share its value (a set parameter of variable size)."""
    real = sorted({c for c in cards if c >= 0})
    out: list[tuple[int, ...]] = []
    for size in range(low, min(high, len(real)) + 1):
        for chosen in itertools.combinations(real, size):
            if table is None or len({table[c] for c in chosen}) <= 1:
                out.append(chosen)
    return out


def card_mask(cards) -> int:
    """A set of cards as one number (bit c for card c): its key among all sets of any size."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def mask_cards(mask: int) -> tuple[int, ...]:
    """The sorted cards of a `card_mask`."""
    return tuple(c for c in range(mask.bit_length()) if mask >> c & 1)
