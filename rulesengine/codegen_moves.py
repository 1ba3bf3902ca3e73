"""Generate the code of a game's moves: legal actions, and the fast path of a step.

For every move, a function appending the ids of its legal actions to a list; for every
phase, one such function for all its moves (moves that test the same cards one at a time
share one loop); for every move no shuffle can interrupt, a `step` function running its
effects and the triggers; and for every phase, a `settle` function passing the turn and
listing the next legal actions. The expressions inside come from codegen.CodeGenerator.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Callable
from math import comb
from typing import Any

from . import ir
from .codegen import CodeGenerator, _statement_slots, _times


def _group(cards, same: list) -> dict[object, list[int]]:
    """The cards grouped by an attribute (a table indexed by card), each group in the given order."""
    groups: dict[object, list[int]] = {}
    for card in cards:
        value = same[card]
        group = groups.get(value)
        if group is None:
            groups[value] = [card]
        else:
            group.append(card)
    return groups


def _real_cards(cards) -> list[int]:
    """The cards of a list, each once and without "no card" (-1): a parameter's candidates."""
    return [card for card in dict.fromkeys(cards) if card >= 0]


def _sorted_sets(cards, size: int) -> list[tuple[int, ...]]:
    """Every set of `size` cards, each sorted (sets of any cards, not of equal ones)."""
    return list(itertools.combinations(sorted(cards), size)) if len(cards) >= size else []


_COMPARISON = re.compile(r"^\((\w+) (==|!=|<=|>=|<|>) (\w+)\)$")
# A comparison implies these others between the same two values.
_IMPLIES = {"==": {"==", "<=", ">="}, "<": {"<", "<=", "!="}, ">": {">", ">=", "!="},
            "<=": {"<="}, ">=": {">="}, "!=": {"!="}}


def _card_tests(tests: list[tuple[str, str]], constants: dict[str, object]) -> list[str]:
    """The body of a loop testing card `_x` for several moves, as (test, action) pairs.

    A constant table several tests index by the card is read once; a test that can hold only
    when an earlier one does (`a == b` only when `a >= b`) is asked only inside that one.
    """
    lookups = [m for m in re.findall(r"\b(_[A-Za-z]\w*)\[_x\]", " ".join(t for t, _ in tests)) if m in constants]
    first = []
    for name in dict.fromkeys(lookups):
        if lookups.count(name) > 1:
            local = f"_x{len(first)}"
            first.append(f"{local} = {name}[_x]")
            tests = [(test.replace(f"{name}[_x]", local), action) for test, action in tests]
    outer: list[tuple[str, list[str]]] = []  # (test, actions when it holds)
    for test, action in tests:
        inside = next((entry for entry in outer if _implies(test, entry[0])), None)
        if inside is None:
            outer.append((test, [action]))
        elif test == inside[0]:
            inside[1].append(action)
        else:
            inside[1].append(f"if {test}: {action}")
    lines = first
    for test, actions in outer:
        if test == "True":
            lines += actions
        else:
            lines += [f"if {test}:", *(f"    {action}" for action in actions)]
    return lines


def _implies(test: str, other: str) -> bool:
    """Whether `test` holding means `other` holds (decided only for plain comparisons)."""
    if test == other or other == "True":
        return test == other
    a, b = _COMPARISON.match(test), _COMPARISON.match(other)
    return bool(a and b and a[1] == b[1] and a[3] == b[3] and b[2] in _IMPLIES[a[2]])


class MoveCodeGenerator(CodeGenerator):
    """The code generator of a game setting, with the generation of its moves."""

    def __init__(self, layout: Any):
        super().__init__(layout)
        self.names.update({"_group": _group, "_sets": _sorted_sets, "_combinations": itertools.combinations,
                           "_real_cards": _real_cards})
        self._binomials: dict[int, list[int]] = {}

    def enumerator(self, move: ir.MoveDef, params: tuple[Any, ...], offset: int) -> Callable[..., None]:
        """One function adding the ids of a move's legal actions to a list: `enum(state, player, found)`."""
        hoisted: list[str] = []
        body = self._enumeration(move, params, offset, hoisted, "    ")
        return self._enumerator_function("_enum(st, v0, found)", hoisted, body, f"<move {move.name}>")

    def phase_functions(self, phase: ir.Phase, moves: list[tuple[ir.MoveDef, Any]],
                        turn_limit: int | None) -> tuple[Callable[..., None], Callable[[Any], None]]:
        """The two functions of a phase, listing its legal actions the same way:
        `enumerate(state, player, found)` adds the ids of every legal action to a list, and
        `settle(state)` follows a step (see `settle`)."""
        hoisted, body = self._phase_enumeration(moves)
        enumerate_ = self._enumerator_function("_enum(st, v0, found)", hoisted, body, f"<phase {phase.name}>")
        return enumerate_, self.settle(phase, hoisted, body, turn_limit)

    def _phase_enumeration(self, moves: list[tuple[ir.MoveDef, Any]]) -> tuple[list[str], list[str]]:
        """(hoisted lines, body) listing a phase's legal actions of player `v0` into `found`.

        The moves share what they compute before their loops (the top card, say), and a
        pass move is listed only when nothing else is legal.
        """
        hoisted: list[str] = []
        body: list[str] = []
        passes: list[str] = []
        by_candidates: dict[str, list[tuple[ir.MoveDef, Any]]] = {}  # moves going over the same cards
        for move, compiled in moves:
            if compiled.is_pass:
                passes += self._enumeration(move, compiled.params, compiled.offset, hoisted, "        ")
            elif self._card_by_card(compiled):
                by_candidates.setdefault(self._candidates(move.params[0]), []).append((move, compiled))
            else:
                body += self._enumeration(move, compiled.params, compiled.offset, hoisted, "    ")
        for candidates, group in by_candidates.items():
            body += self._shared_loop(candidates, group, hoisted)
        if passes:
            body += ["    if not found:", *passes]
        return hoisted, body

    def _candidates(self, param: ir.Param) -> str:
        source = self.collection(param.candidates)
        if param.candidates.type == ir.ZONE:
            return source  # a zone holds real cards, each once
        if param.type == ir.CARD or param.size is not None:
            return f"_real_cards({source})"  # a list may name a card twice, or "no card"
        return f"_unique({source})"

    @staticmethod
    def _card_by_card(compiled: Any) -> bool:
        """Whether a move's actions can be found by testing the candidate cards one at a time:
        one card parameter, or one set of cards sharing an attribute."""
        if len(compiled.params) != 1:
            return False
        param = compiled.params[0]
        return param.kind == "card" or (param.kind == "set" and param.same is not None)

    def _shared_loop(self, candidates: str, group: list[tuple[ir.MoveDef, Any]], hoisted: list[str]) -> list[str]:
        """One loop over `candidates` for several moves: each card is tested for every move in
        turn; sets are built after the loop from the cards kept for them."""
        start: list[str] = []
        tests: list[tuple[str, str]] = []  # (test of card `_x`, what to do when it holds)
        after: list[str] = []
        for move, compiled in group:
            param, kind = move.params[0], compiled.params[0]
            if kind.kind == "card":
                self._aliases[param.slot] = "_x"
                try:
                    with self._real_card_parameters(move):
                        tests.append((self._legal_condition(move, hoisted), f"found.append({compiled.offset} + _x)"))
                finally:
                    del self._aliases[param.slot]
                continue
            kept = f"_kept{compiled.index}"
            test = self._card_test(move, compiled.params, hoisted, "_x") if move.legal is not None else "True"
            if test is None:  # the test reads the set itself: every card may take part
                test = "True"
            start.append(f"{kept} = []")
            tests.append((test, f"{kept}.append(_x)"))
            var = f"v{param.slot}"
            opened, indent, iterable = self._set_groups(kept, kind, kept, "    ")
            condition = "True" if test != "True" or move.legal is None else self._legal_condition(move, hoisted)
            key = f"{compiled.offset} + {self._set_rank(var, kind.size, 1)}"
            after += [*opened, f"{indent}for {var} in {iterable}:"]
            after += ([f"{indent}    found.append({key})"] if condition == "True"
                      else [f"{indent}    if {condition}:", f"{indent}        found.append({key})"])
        return [*(f"    {line}" for line in start), f"    for _x in {candidates}:",
                *(f"        {line}" for line in _card_tests(tests, self.names)), *after]

    def settle(self, phase: ir.Phase, hoisted: list[str], body: list[str], turn_limit: int | None):
        """One function for what follows a step in `phase`: `settle(state)` passes the turn and
        lists the next player's legal actions (with the phase's enumeration `hoisted` and
        `body`). Whatever is rare (the round or phase ending, a player with nothing legal) is
        left to the engine's general `_advance` and `_check`, which decide the same way from
        the same state."""
        due = "st.passes and st.passes >= len(st.active_players)"
        if turn_limit is not None:
            due = f"st.turns >= {turn_limit} or ({due})"
        lines = [
            "def _settle(st):",
            "    if st.game_over or st.round_over or st.goto is not None or st.phase_over:",
            "        if not st.game_over:",
            "            st._advance()",
            "        st._check()",
            "        return",
            "    v0 = st.current",
            "    if not st.turn_set:",
            # Mostly the next seat or the one after is still in the round.
            f"        v0 = (v0 + st.direction) % {self.layout.n}",
            "        if not st.active[v0]:",
            f"            v0 = (v0 + st.direction) % {self.layout.n}",
            "            if not st.active[v0]:",
            "                v0 = st.next_active(st.current)",
            "        st.current = v0",
            f"    if {due}:",
            "        st._end_if_due()",
            "        st._check()",
            "        return",
        ]
        if phase.until is not None:
            lines += [f"    if {self.gen(phase.until)}:", "        st._check()", "        return"]
        lines += ["    if not st.active[v0]:", "        st._check()", "        return", "    found = []",
                  *(f"    {line}" for line in hoisted), *body,
                  "    found.sort()", "    st._legal = found", "    if not found:", "        st._check()"]
        return self._compile("\n".join(lines) + "\n", f"<settle {phase.name}>")["_settle"]

    def _enumerator_function(self, signature: str, hoisted: list[str], body: list[str], where: str):
        lines = [f"def {signature}:", *(f"    {line}" for line in hoisted), *(body or ["    pass"])]
        return self._compile("\n".join(lines) + "\n", where)["_enum"]

    def _enumeration(self, move: ir.MoveDef, compiled_params: tuple[Any, ...], offset: int,
                     hoisted: list[str], indent: str) -> list[str]:
        """Loops over a move's parameters adding the id of each legal action to `found`.

        Sets of cards sharing an attribute are built group by group. When the legal test
        reads the set only through that attribute, each card is tested alone before any
        set is built, so a hand is grouped only by the cards that can take part.
        """
        params = move.params
        strides = []
        width = 1
        for compiled in reversed(compiled_params):
            strides.append(width)
            width *= compiled.domain_size
        strides.reverse()
        with self._real_card_parameters(move):
            condition = self._legal_condition(move, hoisted)
        card_test = self._card_test(move, compiled_params, hoisted, f"_c{len(params) - 1}")
        if card_test is not None:
            condition = "True"
        lines: list[str] = []
        key = str(offset)
        for depth, (param, compiled) in enumerate(zip(params, compiled_params)):
            var = f"v{param.slot}"
            candidates = self._candidates(param)
            if compiled.kind == "card":
                key += f" + {var}{_times(strides[depth])}"
                iterable = candidates
            elif compiled.kind == "set":
                key += f" + {self._set_rank(var, compiled.size, strides[depth])}"
                if compiled.same is None:
                    iterable = f"_sets({candidates}, {compiled.size})"
                else:
                    if depth == len(params) - 1 and card_test is not None:
                        lines += [f"{indent}_s{depth} = []", f"{indent}for _c{depth} in {candidates}:",
                                  f"{indent}    if {card_test}: _s{depth}.append(_c{depth})"]
                        candidates = f"_s{depth}"
                    opened, indent, iterable = self._set_groups(candidates, compiled, str(depth), indent)
                    lines += opened
            else:
                positions = self.constant({v: i for i, v in enumerate(compiled.domain)}, "pos")
                lines.append(f"{indent}for {var} in {candidates}:")
                indent += "    "
                lines.append(f"{indent}_p{depth} = {positions}.get({var}, -1)")
                lines.append(f"{indent}if _p{depth} < 0: continue")
                key += f" + _p{depth}{_times(strides[depth])}"
                continue
            lines.append(f"{indent}for {var} in {iterable}:")
            indent += "    "
        if condition == "True":
            return [*lines, f"{indent}found.append({key})"]
        return [*lines, f"{indent}if {condition}:", f"{indent}    found.append({key})"]

    @contextlib.contextmanager
    def _real_card_parameters(self, move: ir.MoveDef, decoded: bool = False):
        """While generating code for `move`: its card parameters taken from a zone (or, in a
        step, decoded from an action id) are real cards."""
        slots = {p.slot for p in move.params if p.type == ir.CARD and p.size is None
                 and (decoded or p.candidates.type == ir.ZONE)} - self.real_cards
        self.real_cards |= slots
        try:
            yield
        finally:
            self.real_cards -= slots

    def _set_groups(self, cards: str, compiled: Any, tag: str, indent: str) -> tuple[list[str], str, str]:
        """Lines opening the groups of `cards` equal in the set parameter's attribute that are
        large enough; the indent inside them and the sets of one group `_g<tag>` (sorted)."""
        size, same = compiled.size, self.constant(compiled.same, "same")
        lines = [f"{indent}if len({cards}) >= {size}:",
                 f"{indent}    for _g{tag} in _group({cards}, {same}).values():",
                 f"{indent}        if len(_g{tag}) >= {size}:"]
        return lines, indent + "            ", f"_combinations(sorted(_g{tag}), {size})"

    def _card_test(self, move: ir.MoveDef, compiled_params: tuple[Any, ...], hoisted: list[str],
                   card: str) -> str | None:
        """When the last parameter is a set of cards sharing an attribute and `legal` reads the
        set only through that attribute: the test as asked of one card (named `card`); else None."""
        if not move.params or move.legal is None:
            return None
        last, compiled = move.params[-1], compiled_params[-1]
        if compiled.kind != "set" or compiled.same is None:
            return None
        table = self.constant(compiled.same, "same")
        self._group_values = {last.slot: f"{table}[{card}]"}
        try:
            test = self._legal_condition(move, hoisted)
        finally:
            self._group_values = {}
        return None if re.search(rf"\bv{last.slot}\b", test) else test

    def _legal_condition(self, move: ir.MoveDef, hoisted: list[str]) -> str:
        if move.legal is None:
            return "True"
        if not move.params:
            return self.gen(move.legal)
        # Parts of `legal` that depend on no parameter are computed once, before the loops.
        self._shared = {p.slot: p.same for p in move.params if p.size is not None and p.same is not None}
        self._hoisted, self._forbidden = hoisted, {p.slot for p in move.params}
        try:
            return self.gen(move.legal)
        finally:
            self._hoisted, self._forbidden, self._shared = None, set(), {}

    def _set_rank(self, var: str, size: int, stride: int) -> str:
        """Source for the index of a sorted card set among all sets of its size (colex order)."""
        tables = [self.constant(self.binomials(i), f"binom{i}_") for i in range(1, size + 1)]
        rank = " + ".join(f"{table}[{var}[{i}]]" for i, table in enumerate(tables))
        return rank if stride == 1 else f"({rank}) * {stride}"

    def binomials(self, k: int) -> list[int]:
        """comb(card, k) for every card: how many sets of k come before a set whose largest is `card`."""
        if k not in self._binomials:
            self._binomials[k] = [comb(card, k) for card in range(len(self.layout.card_names))]
        return self._binomials[k]

    def step(self, move: ir.MoveDef, triggers: tuple[ir.Trigger, ...]) -> Callable[[Any, int, tuple], None]:
        """One generated function for a move no shuffle can interrupt: `step(state, player, values)`
        runs the move's effects, then the triggers in order, each one's firings chosen before
        its effects run (as the engine's general path does, see engine.py)."""
        lines = ["def _step(st, v0, values):"]
        if move.params:
            lines.append("    " + "".join(f"v{p.slot}, " for p in move.params) + "= values")
        with self._real_card_parameters(move, decoded=True):
            body = self.statements(move.effects, "    ")
        if triggers:
            body += ["    if st.game_over or st.round_over:", "        return"]
        for position, trigger in enumerate(triggers):
            last = position == len(triggers) - 1
            effects = self.statements(trigger.effects, "        ") or ["        pass"]
            if trigger.each is None:
                # The flags change only when effects run, so they are looked at after effects.
                body += [f"    if {self.gen(trigger.when)}:", *effects]
                body += [] if last else ["        if st.game_over or st.round_over:", "            return"]
                continue
            var, fired = f"v{trigger.slot}", f"_fired{trigger.slot}"
            items = self.collection(trigger.each)
            if trigger.each.type == ir.CARD:
                items = f"({items},)"
            # Every firing is chosen before any runs; a round ending in one still lets the
            # others of the same trigger run, a match ending does not.
            body += [f"    {fired} = None", f"    for {var} in {items}:", f"        if {self.gen(trigger.when)}:",
                     f"            if {fired} is None:", f"                {fired} = [{var}]",
                     "            else:", f"                {fired}.append({var})",
                     f"    if {fired} is not None:", f"        for {var} in {fired}:",
                     *(f"    {line}" for line in effects), "            if st.game_over:", "                return"]
            body += [] if last else ["        if st.round_over:", "            return"]
        # Slots the code reads before it sets them (loop variables) start empty, as in an environment.
        assigned = {0, *(p.slot for p in move.params)}
        read = {slot for statement in (*move.effects, *(s for t in triggers for s in t.effects))
                for slot in _statement_slots(statement)}
        lines += [f"    v{slot} = None" for slot in sorted(read - assigned)]
        source = "\n".join([*lines, *body, "    return"]) + "\n"
        return self._compile(source, f"<step {move.name}>")["_step"]

