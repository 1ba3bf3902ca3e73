"""The one allocator of every name in generated code.

Constants, tables, helpers, functions, slot locals, loop variables and hoisted values all
get their names here, so two generated things never share a name and a rule-file name
(an attribute `p1`, a variable `fired`) can never collide with or shadow another: a hint
taken from the rule file only makes a name readable, the allocator makes it unique.
"""

from __future__ import annotations

import builtins
import keyword

# Names generated code uses as they are: its parameters and Python's own built-ins.
FIXED = ("st", "env", "found", "values")


class NameAllocator:
    def __init__(self) -> None:
        self._used: set[str] = set(FIXED) | set(dir(builtins)) | set(keyword.kwlist) | set(keyword.softkwlist)
        self._slots: dict[int, str] = {}
        self._last: dict[str, int] = {}  # each base's last number given: the next search starts there

    def fresh(self, hint: str) -> str:
        """A name never given before, readable after `hint` (only its letters, digits and `_` are kept)."""
        base = "".join(ch for ch in hint if ch.isascii() and (ch.isalnum() or ch == "_")) or "_"
        if base[0].isdigit():
            base = "_" + base
        counter = self._last.get(base, 1)  # every lower number of this base is taken: not searched again
        candidate = base if counter == 1 else f"{base}_{counter}"
        while candidate in self._used:
            counter += 1
            candidate = f"{base}_{counter}"
        self._last[base] = counter
        self._used.add(candidate)
        return candidate

    def slot(self, slot: int) -> str:
        """The local standing for environment slot `slot` (the same name in every function)."""
        existing = self._slots.get(slot)
        if existing is None:
            existing = self._slots[slot] = self.fresh(f"v{slot}")
        return existing

    def taken(self, candidate: str) -> bool:
        return candidate in self._used
