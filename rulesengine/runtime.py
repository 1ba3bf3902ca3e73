"""What generated code may call besides the State: the language's total operations.

These functions define the meaning of the operators and built-ins whose Python
counterparts are partial (division by zero, indexing out of range, unbounded ranges), so
every code path that runs a rule file gives them the same meaning.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from math import comb
from typing import Any

from .limits import MAX_RANGE

NO_CARD = -1  # "no card": the top of an empty zone, an absent card value




def div(a: int, b: int) -> int:
    return a // b if b else 0  # total: division by zero gives 0


def mod(a: int, b: int) -> int:
    return a % b if b else 0


def top(cards: list[int], k: int) -> list[int]:
    return cards[-k:] if k > 0 else []


def range1(high: int) -> list[int]:
    return list(range(max(0, min(high, MAX_RANGE))))


def range2(low: int, high: int) -> list[int]:
    return list(range(low, min(high, low + MAX_RANGE)))


def letter(text: str, i: int) -> str:
    return text[i] if 0 <= i < len(text) else ""


def arg_best(items, key: Callable[[Any], Any], empty: Any, want_max: bool) -> Any:
    best_item, best_value = empty, None
    for item in items:
        value = key(item)
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
