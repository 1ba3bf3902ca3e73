"""What an editor shows about the language's own names: the sections and keys of a rule file,
the built-in values, the functions with their signatures and the list macros.

Signatures and types come from the checker's tables (`rulesengine.check`: TOP_KEYS,
SECTION_KEYS, BUILTINS, FUNCTIONS, MACROS), read through getattr so that a table that moves
leaves the server working with less to offer; the short documentation of each name is kept
here (the reference is docs/language.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import check

TOP_KEYS: dict[str, str] = dict(getattr(check, "TOP_KEYS", {}))
TOP_KEYS.setdefault("extends", "the rule file this one is a variant of: a path or a shipped name")
TOP_KEYS.setdefault("include", "blocks (partial rule files) whose parts this file takes in")
SECTION_KEYS: dict[str, set[str]] = dict(getattr(check, "SECTION_KEYS", {}))
BUILTINS: dict[str, str] = dict(getattr(check, "BUILTINS", {}))
FUNCTIONS: dict[str, tuple] = dict(getattr(check, "FUNCTIONS", {}))
MACROS: dict[str, str] = dict(getattr(check, "MACROS", {}))

BUILTIN_DOCS = {
    "current": "the player to move (in a move's effects, the mover until a `turn to`)",
    "players": "every seat, P1 first",
    "active": "the players not `out` this round, in seat order",
    "direction": "1 clockwise, -1 after an odd number of `reverse`; 1 at each round start",
    "round": "the round number: 0 in `setup`, 1 in the first round",
    "turn": "decisions made in this round so far",
    "num_players": "the number of players",
    "passes": "pass moves and skipped players since the last other move",
    "phase": 'the current phase\'s name; "" in round setup and round end',
    "suits": "every suit, in the order first declared",
}
FUNCTION_DOCS = {
    "size": "cards in a zone, or elements in a list",
    "empty": "whether a zone or list has nothing in it",
    "top": "the top card of a zone (no card if empty); with n, the top n cards, bottom to top",
    "bottom": "the bottom card of a zone; with n, the bottom n cards",
    "holder": "the owner of the per-player zone holding a card; nobody for a shared zone or no card",
    "seat": "the player in seat i counted from 0, modulo the number of players",
    "left": "the next seat, ignoring direction and who is out",
    "right": "the previous seat, ignoring direction and who is out",
    "next": "the next player still active, in the direction of play",
    "opponent": "the next seat (meant for two players)",
    "others": "every other seat, starting after p and going clockwise",
    "is_active": "whether p has not gone `out` this round",
    "can_move": "whether p would have a legal non-pass move in the current phase",
    "min": "the smaller of two numbers",
    "max": "the larger of two numbers",
    "abs": "the absolute value",
    "range": "0, 1, ..., n-1 (or a, ..., b-1); at most 10,000 elements",
    "len": "the length of a text",
    "prefix": "the first n characters of a text",
    "letter": 'character i of a text, counted from 0; "" outside it',
    "text": "a value as logs show it: cards by name, P2, suit and rank names, yes/no",
    "card": "a literal card: card(rank, suit), both literals",
    "team": "the number of p's team, from 0 (without `teams`, the seat number; -1 for nobody)",
    "partner": "the other member of p's team if it has two members, else nobody",
    "teammates": "the other members of p's team, in seat order",
}
MACRO_DOCS = {
    "any": "xs.any(v, cond): whether some element satisfies cond",
    "all": "xs.all(v, cond): whether every element satisfies cond",
    "count": "xs.count(v, cond): how many elements satisfy cond",
    "sum": "xs.sum(v, n): the sum of n over the elements",
    "max": "xs.max(v, n): the largest n (0 if empty)",
    "min": "xs.min(v, n): the smallest n (0 if empty)",
    "argmax": "xs.argmax(v, key): the element with the largest key, the first on a tie",
    "argmin": "xs.argmin(v, key): the element with the smallest key, the first on a tie",
    "filter": "xs.filter(v, cond): the elements that satisfy cond, in order",
    "bind": "value.bind(v, body): body with v standing for value, computed once",
}
# Which section's entries take which keys (SECTION_KEYS names them by the singular).
ENTRY_KEYS = {
    "options": "option",
    "decks": "deck",
    "zones": "zone",
    "variables": "variable",
    "phases": "phase",
    "moves": "move",
    "triggers": "trigger",
}
PLAIN_KEYS = {"players": "players", "cards": "cards", "round": "round", "match": "match"}


def shown_type(type_: object) -> str:
    """A type as the language reference writes it: `list of card` for the checker's `list:card`."""
    text = str(type_)
    return f"list of {text[5:]}" if text.startswith("list:") else text


def signatures(name: str) -> list[str]:
    """A function's signatures, e.g. `top(zone) -> card` and `top(zone, int) -> list[card]`."""
    entry = FUNCTIONS.get(name)
    if entry is None:
        return []
    alternatives, result = entry[0], entry[1]
    shown = []
    for arguments in alternatives:
        returns = _result(result, list(arguments))
        shown.append(f"{name}({', '.join(map(shown_type, arguments))}) -> {shown_type(returns)}")
    return shown


def _result(result: str | Callable[[list[str]], str], arguments: list[str]) -> str:
    if callable(result):
        try:
            return str(result(arguments))
        except Exception:  # a table entry of another shape: show no result rather than fail
            return "?"
    return str(result)


def function_help(name: str) -> str | None:
    if name not in FUNCTIONS:
        return None
    lines = ["```", *signatures(name), "```"]
    doc = FUNCTION_DOCS.get(name)
    return "\n".join(lines + ([doc] if doc else []))


def builtin_help(name: str) -> str | None:
    if name not in BUILTINS:
        return None
    return f"```\n{name}: {shown_type(BUILTINS[name])}\n```\nbuilt-in value: {BUILTIN_DOCS.get(name, '')}".rstrip(": ")


def macro_help(name: str) -> str | None:
    if name not in MACROS and name != "bind":
        return None
    result: Any = MACROS.get(name, "the body's type")
    return (
        f"```\n{MACRO_DOCS.get(name, name).split(':', 1)[0]} -> {result}\n```\nlist macro: "
        + MACRO_DOCS.get(name, name).split(": ", 1)[-1]
    )


def keys_of(path: tuple[str, ...]) -> dict[str, str]:
    """The keys a mapping at `path` (the keys above the cursor) may hold, with descriptions."""
    if not path:
        return TOP_KEYS
    section = path[0]
    if len(path) == 2 and section in ENTRY_KEYS:
        kind = ENTRY_KEYS[section]
        return {k: f"key of {kind} '{path[1]}'" for k in sorted(SECTION_KEYS.get(kind, ()))}
    if len(path) == 1 and section in PLAIN_KEYS:
        return {k: f"key of '{section}'" for k in sorted(SECTION_KEYS.get(PLAIN_KEYS[section], ()))}
    if path == ("round", "limit"):
        return {k: "key of the round's turn limit" for k in sorted(SECTION_KEYS.get("limit", ()))}
    if len(path) == 4 and section == "moves" and path[2] == "params":
        return {k: f"key of parameter '{path[3]}'" for k in sorted(SECTION_KEYS.get("param", ()))}
    return {}
