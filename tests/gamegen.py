"""Random valid rule files built from the grammar's constructs, for differential testing.

`generate(seed)` returns the text of a complete game: options, one or two decks with suit
attributes and copies, computed card attributes, shared, per-player, per-suit and
per-[player, count] zones (some kept sorted), variables of every type (some per player),
definitions with and without parameters, moves with card, set (with and without `same`),
player, suit, number and text parameters, pass moves, labels, phases with
first/until/enter/exit/next, rounds with setup/end/limit/stuck, triggers with and
without `for` (some shuffling, so steps go through the engine's agenda), and effects of
every kind inside `if` and `for` blocks, with expressions using every macro over zones,
players and ranges, `bind`, conditionals and the functions. Names are drawn from a pool
chosen to collide with one another and with names a code generator might use.

Expressions are built with their types, so the file is valid by construction; with
`nobody=False` every player value used as an index is a seat (no `holder`, no `argmax`
over a list that may be empty), so a valid game stops with an error only through a
construct whose error is defined (an index outside a family).

This module imports nothing from the engine: it only writes YAML text.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import yaml

# Global names (zones, variables, options, definitions, attributes, moves, phases,
# triggers) and local names (parameters, macro and loop variables) come from these pools.
GLOBAL_NAMES = [
    "fired",
    "found",
    "st",
    "env",
    "values",
    "p1",
    "v0",
    "v1",
    "x0",
    "h0",
    "k1",
    "tables",
    "score",
    "score1",
    "pile",
    "pile1",
    "stock",
    "hand",
    "row",
    "flag",
    "lead",
    "trump",
    "last",
    "word",
    "cards",
    "card1",
    "legal1",
    "step",
    "settle",
    "enum",
    "zone",
    "where",
    "names",
    "offset",
    "width",
    "slot",
    "lambda",
    "None",
    "def",
    "return",
    "class",
    "_k",
    "_x",
    "_h0",
    "_fired0",
    "_p0",
    "_NOC",
    "_div",
    "pos1",
    "pos10",
    "same1",
    "binom1_",
]
LOCAL_NAMES = ["c", "d", "q", "i", "x", "y", "cc", "p2", "v2", "fired2", "_c", "st1", "found1", "k", "_x0", "v5"]
ATTRIBUTE_BASES = ["p", "fired", "k", "pos", "same", "at", "getter", "h", "x", "v", "binom", "sorted", "cards"]
SUIT_NAMES = ["hearts", "spades", "clubs", "diamonds", "stars"]
RANK_NAMES = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]

INT, BOOL, STR, CARD, PLAYER, SUIT, RANK, ZONE = "int", "bool", "str", "card", "player", "suit", "rank", "zone"
CARDS, PLAYERS, INTS, SUITS = "list:card", "list:player", "list:int", "list:suit"


class Names:
    """Distinct names drawn from a pool."""

    def __init__(self, rng: random.Random, pool: list[str]):
        self.rng = rng
        self.free = list(pool)
        rng.shuffle(self.free)
        self.fallback = 0

    def reserve(self, wanted: list[str]) -> list[str]:
        """Those of `wanted` not taken yet, now taken."""
        taken = set(GLOBAL_NAMES) - set(self.free)
        self.free = [n for n in self.free if n not in wanted]
        return [n for n in wanted if n not in taken]

    def take(self) -> str:
        if self.free:
            return self.free.pop()
        self.fallback += 1
        return f"n{self.fallback}"


class GameGenerator:
    def __init__(self, seed: int, nobody: bool = False):
        self.rng = random.Random(seed)
        self.nobody = nobody  # whether player values that may be nobody are used
        names = Names(self.rng, GLOBAL_NAMES)
        self.take, self.reserve = names.take, names.reserve
        self.locals = [n for n in LOCAL_NAMES]
        self.definitions_ready = False  # definitions are not used inside definitions (no recursion)
        self.procedures_ready = False  # procedure bodies call no procedure
        self.more_chance = self.rng.random() < 0.5
        self.procedure_names: list[str] = []
        self.forward_only = False
        self.in_setup = False  # writing the top-level setup
        self.ends = ["round", "phase", "phase", "game"]  # what `end` may end where effects are written now
        self.calls = True  # whether they may call a procedure (whose body may end a phase)

    # ---- helpers ---------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items):
        return self.rng.choice(list(items))

    def weighted(self, options: list[tuple[float, Callable[[], str]]]) -> str:
        total = sum(w for w, _ in options)
        x = self.rng.random() * total
        for w, make in options:
            x -= w
            if x <= 0:
                return make()
        return options[-1][1]()

    def local(self, scope: dict[str, str]) -> str:
        free = [n for n in self.locals if n not in scope]
        return self.pick(free) if free else f"z{len(scope)}"

    # ---- the declarations ------------------------------------------------------------

    def declare(self) -> None:
        rng = self.rng
        self.min_players = rng.randint(1, 3)
        self.max_players = rng.randint(max(2, self.min_players), 5)
        # options
        self.opt_int, self.opt_bool, self.opt_str = self.take(), self.take(), self.take()
        self.options = {
            self.opt_int: {"default": rng.randint(0, 3), "min": 0, "max": 4},
            self.opt_bool: {"default": self.chance(0.5)},
            self.opt_str: {"choices": ["a", "b"], "default": "a"},
        }
        # decks
        suits = rng.sample(SUIT_NAMES, rng.randint(1, 4))
        self.suit_int_attr, self.suit_str_attr = self.take(), self.take()
        self.suits = suits
        self.suit_table = {
            s: {self.suit_int_attr: rng.randint(0, 3), self.suit_str_attr: self.pick(["red", "black"])} for s in suits
        }
        if self.chance(0.5):
            for s, symbol in zip(suits, "♥♠♣♦★"):
                self.suit_table[s]["symbol"] = symbol
        start = rng.randint(0, 4)
        ranks = RANK_NAMES[start : start + rng.randint(2, 6)]
        self.ranks = ranks
        self.decks = {"main": {"suits": {s: self.suit_table[s] for s in suits}, "ranks": ranks, "copies": 1}}
        self.deck_cards = {"main": (suits, ranks)}
        if self.chance(0.3):
            self.decks["main"]["copies"] = 2
        if self.chance(0.3):
            extra_ranks = RANK_NAMES[-2:]
            self.ranks = list(dict.fromkeys(ranks + extra_ranks))
            extra_suits = suits[:1]
            self.decks["extra"] = {"suits": {s: self.suit_table[s] for s in extra_suits}, "ranks": extra_ranks}
            self.deck_cards["extra"] = (extra_suits, extra_ranks)
        # zones
        self.stock, self.pile, self.hand, self.row = self.take(), self.take(), self.take(), self.take()
        self.packets = self.take() if self.chance(0.5) else None
        # a family indexed by a card's order, past its end for some cards: the `legal` tests of
        # moves over the same cards then fail on different cards (see `zone` and `moves`)
        self.slots = self.take() if self.chance(0.3) else None
        for deck in self.decks.values():
            deck["zone"] = self.stock
        self.card_count = sum(
            len(suits) * len(ranks) * self.decks[name].get("copies", 1)
            for name, (suits, ranks) in self.deck_cards.items()
        )
        self.max_players = min(self.max_players, self.card_count)
        self.min_players = min(self.min_players, self.max_players)
        # card attributes
        self.attr_int, self.attr_bool = self.take(), self.take()
        # A family of attributes whose names differ only by digits, named like generated constants
        # and locals, each with its own values: reading one must never give another's.
        base = self.pick(ATTRIBUTE_BASES)
        self.attr_family = self.reserve([base, f"{base}1", f"{base}11", f"{base}2"][: rng.randint(1, 4)])
        self.int_attributes = [self.attr_int, *self.attr_family]
        self.attr_str = self.take() if self.chance(0.5) else None
        # variables
        self.v_score, self.v_count, self.v_flag, self.v_lead = self.take(), self.take(), self.take(), self.take()
        self.v_trump, self.v_last, self.v_word = self.take(), self.take(), self.take()
        # definitions
        self.d_int, self.d_fits = self.take(), self.take()
        self.phase_names = [self.take() for _ in range(rng.randint(1, 3))]

    def card_attributes(self) -> dict[str, str]:
        scope = {"suit": SUIT, "rank": RANK, "order": INT, self.suit_int_attr: INT, self.suit_str_attr: STR}
        out = {self.attr_int: self.static_expr(INT, scope, 2)}
        scope[self.attr_int] = INT
        for k, name in enumerate(self.attr_family):
            out[name] = f"order * {k + 2} + {k}"
            scope[name] = INT
        out[self.attr_bool] = self.static_expr(BOOL, scope, 2)
        scope[self.attr_bool] = BOOL
        if self.attr_str:
            out[self.attr_str] = self.static_expr(STR, scope, 1)
        return out

    def static_expr(self, type_: str, scope: dict[str, str], depth: int) -> str:
        """An expression with no game state: literals, options and the names in `scope`."""
        names = [n for n, t in scope.items() if t == type_]
        atoms: list[tuple[float, Callable[[], str]]] = []
        if type_ == INT:
            atoms = [(2, lambda: str(self.rng.randint(0, 9))), (1, lambda: self.opt_int)]
        elif type_ == BOOL:
            atoms = [(1, lambda: self.pick(["true", "false"])), (1, lambda: self.opt_bool)]
        elif type_ == STR:
            atoms = [(1, lambda: self.pick(["'x'", "'yz'", "''"])), (1, lambda: self.opt_str)]
        elif type_ == RANK:
            atoms = [(1, lambda: repr(self.pick(self.ranks)))]
        elif type_ == SUIT:
            atoms = [(1, lambda: repr(self.pick(self.suits)))]
        if names:
            atoms.append((3, lambda: self.pick(names)))
        if depth <= 0:
            return self.weighted(atoms)
        sub = lambda t: self.static_expr(t, scope, depth - 1)  # noqa: E731
        compound: list[tuple[float, Callable[[], str]]] = []
        if type_ == INT:
            compound = [
                (3, lambda: f"({sub(INT)} {self.pick(['+', '-', '*', '//', '%'])} {sub(INT)})"),
                (1, lambda: f"({sub(INT)} if {sub(BOOL)} else {sub(INT)})"),
                (
                    1,
                    lambda: (
                        f"range({self.rng.randint(0, 4)}).sum({'i'}, i * {sub(INT)})" if "i" not in scope else sub(INT)
                    ),
                ),
                (1, lambda: f"len({sub(STR)})"),
            ]
        elif type_ == BOOL:
            compound = [
                (2, lambda: f"({sub(INT)} {self.pick(['==', '<', '>=', '!='])} {sub(INT)})"),
                (
                    1,
                    lambda: (
                        f"(rank {self.pick(['<', '>='])} {repr(self.pick(self.ranks))})" if "rank" in scope else "false"
                    ),
                ),
                (1, lambda: f"(suit == {repr(self.pick(self.suits))})" if "suit" in scope else "true"),
                (1, lambda: f"({sub(BOOL)} {self.pick(['and', 'or'])} {sub(BOOL)})"),
                (1, lambda: f"({sub(STR)} == {sub(STR)})"),
            ]
        elif type_ == STR:
            compound = [(1, lambda: f"({sub(STR)} + {sub(STR)})"), (1, lambda: f"prefix({sub(STR)}, {sub(INT)})")]
        if not compound or self.chance(0.3):
            return self.weighted(atoms)
        return self.weighted(compound)

    # ---- expressions over the game state ------------------------------------------------

    def zone(self, scope: dict[str, str], depth: int) -> str:
        options: list[tuple[float, Callable[[], str]]] = [
            (2, lambda: self.stock),
            (3, lambda: self.pile),
            (4, lambda: f"{self.hand}[{self.seat(scope, depth)}]"),
            (2, lambda: f"{self.row}[{self.suit_value(scope, depth, literal=True)}]"),
        ]
        if self.packets:
            options.append((1, lambda: f"{self.packets}[{self.seat(scope, depth)}, {self.rng.randint(0, 1)}]"))
        cards = [local for local, type_ in scope.items() if type_ == CARD]
        if self.slots and cards:  # index 3 is past the family's end
            options.append((1, lambda: f"{self.slots}[({self.pick(cards)}.order + {self.rng.randint(0, 3)}) % 4]"))
        return self.weighted(options)

    def seat(self, scope: dict[str, str], depth: int) -> str:
        """A player value that is always a seat (never nobody) unless `nobody` is on."""
        if self.nobody and self.chance(0.2):
            return self.expr(PLAYER, scope, depth - 1)
        names = [n for n, t in scope.items() if t == PLAYER]
        options: list[tuple[float, Callable[[], str]]] = [
            (4, lambda: "me" if "me" in scope else "current"),
            (2, lambda: "current"),
            (1, lambda: self.v_lead),
            (1, lambda: f"seat({self.expr(INT, scope, depth - 1) if depth > 0 else self.rng.randint(0, 5)})"),
            (1, lambda: f"{self.pick(['left', 'right', 'next', 'opponent'])}({self.seat(scope, depth - 1)})"),
        ]
        if names:
            options.append((4, lambda: self.pick(names)))
        return self.weighted(options)

    def suit_value(self, scope: dict[str, str], depth: int, literal: bool = False) -> str:
        """A suit that is always a suit (never the suit of no card); a literal only where it converts."""
        names = [n for n, t in scope.items() if t == SUIT]
        options: list[tuple[float, Callable[[], str]]] = [
            (2, lambda: repr(self.pick(self.suits)) if literal else f"{self.card_literal()}.suit"),
            (2, lambda: self.v_trump),
            (1, lambda: f"suits.argmax({self.local(scope)}, {self.rng.randint(0, 3)})"),
        ]
        if names:
            options.append((4, lambda: self.pick(names)))
        return self.weighted(options)

    def card_literal(self) -> str:
        deck = self.pick(self.deck_cards)
        suits, ranks = self.deck_cards[deck]
        return f"card({self.pick(ranks)!r}, {self.pick(suits)!r})"

    def macro(
        self, collection_type: str, collection: str, kind: str, body_type: str, scope: dict[str, str], depth: int
    ) -> str:
        variable = self.local(scope)
        inner = {**scope, variable: collection_type[5:]}
        return f"{collection}.{kind}({variable}, {self.expr(body_type, inner, depth - 1)})"

    def collection(self, element: str, scope: dict[str, str], depth: int) -> tuple[str, str]:
        """(type, text) of a list or zone whose elements are `element`s."""
        if element == CARD:
            return CARDS, self.expr(CARDS, scope, depth - 1) if self.chance(0.4) else self.zone(scope, depth - 1)
        if element == PLAYER:
            return PLAYERS, self.expr(PLAYERS, scope, depth - 1)
        if element == SUIT:
            return SUITS, "suits"
        return INTS, self.expr(INTS, scope, depth - 1)

    def expr(self, type_: str, scope: dict[str, str], depth: int) -> str:
        locals_ = [n for n, t in scope.items() if t == type_ and n != "me"]
        atoms = self.atoms(type_, scope)
        if locals_:
            atoms.append((4, lambda: self.pick(locals_)))
        if depth <= 0 or self.chance(0.35):
            return self.weighted(atoms)
        return self.weighted(self.compounds(type_, scope, depth) or atoms)

    def atoms(self, t: str, scope: dict[str, str]) -> list[tuple[float, Callable[[], str]]]:
        if t == INT:
            return [
                (3, lambda: str(self.rng.randint(0, 6))),
                (1, lambda: self.opt_int),
                (1, lambda: self.pick(["turn", "round", "passes", "num_players", "direction"])),
                (2, lambda: f"size({self.zone(scope, 0)})"),
                (2, lambda: f"{self.v_score}[{self.seat(scope, 0)}]"),
                (1, lambda: self.v_count),
                (1 if self.definitions_ready else 0, lambda: self.d_int),
            ]
        if t == BOOL:
            return [
                (1, lambda: self.pick(["true", "false"])),
                (1, lambda: self.v_flag),
                (1, lambda: self.opt_bool),
                (2, lambda: f"empty({self.zone(scope, 0)})"),
                (1, lambda: f"is_active({self.seat(scope, 0)})"),
            ]
        if t == STR:
            return [
                (1, lambda: self.pick(["'a'", "'b'", "'PAN'", "''"])),
                (1, lambda: self.opt_str),
                (1, lambda: self.v_word),
                (1, lambda: "phase"),
            ]
        if t == CARD:
            return [
                (3, lambda: f"{self.pick(['top', 'bottom'])}({self.zone(scope, 0)})"),
                (1, self.card_literal),
                (1, lambda: self.v_last),
            ]
        if t == PLAYER:
            return [(1, lambda: self.seat(scope, 0))]
        if t == SUIT:
            return [(1, lambda: self.suit_value(scope, 0)), (1, lambda: f"{self.expr(CARD, scope, 0)}.suit")]
        if t == RANK:
            return [(1, lambda: f"{self.expr(CARD, scope, 0)}.rank")]
        if t == CARDS:
            return [(1, lambda: self.zone(scope, 0))]
        if t == PLAYERS:
            return [(2, lambda: "players"), (1, lambda: "active"), (1, lambda: f"others({self.seat(scope, 0)})")]
        if t == INTS:
            return [(1, lambda: f"range({self.rng.randint(0, 5)})"), (1, lambda: "[1, 2, 3]")]
        if t == SUITS:
            return [(1, lambda: "suits")]
        raise AssertionError(t)

    def compounds(self, t: str, scope: dict[str, str], depth: int) -> list[tuple[float, Callable[[], str]]]:
        sub = lambda type_: self.expr(type_, scope, depth - 1)  # noqa: E731
        card_attr_int = lambda: f"{sub(CARD)}.{self.pick([*self.int_attributes, 'order', 'id', self.suit_int_attr])}"  # noqa: E731,E501
        conditional = (1, lambda: f"({sub(t)} if {sub(BOOL)} else {sub(t)})")
        if t == INT:
            return [
                (3, lambda: f"({sub(INT)} {self.pick(['+', '-', '*', '//', '%'])} {sub(INT)})"),
                (1, lambda: f"{self.pick(['min', 'max'])}({sub(INT)}, {sub(INT)})"),
                (1, lambda: f"abs({sub(INT)})"),
                (1, lambda: f"-{sub(INT)}"),
                (2, card_attr_int),
                (2, lambda: self.macro(*self.collection(CARD, scope, depth), "count", BOOL, scope, depth)),
                (2, lambda: self.macro(*self.collection(PLAYER, scope, depth), "sum", INT, scope, depth)),
                (
                    1,
                    lambda: self.macro(
                        *self.collection(INT, scope, depth), self.pick(["sum", "max", "min"]), INT, scope, depth
                    ),
                ),
                (
                    1,
                    lambda: self.macro(
                        *self.collection(CARD, scope, depth), self.pick(["max", "min"]), INT, scope, depth
                    ),
                ),
                (1, lambda: self.macro(*self.collection(SUIT, scope, depth), "count", BOOL, scope, depth)),
                (1, lambda: f"len({sub(STR)})"),
                (1, lambda: self.bind(INT, scope, depth)),
                (1, lambda: f"{sub(SUIT)}.{self.suit_int_attr}"),
                (1, lambda: self.macro(*self.collection(INT, scope, depth), "argmax", INT, scope, depth)),
                conditional,
            ]
        if t == BOOL:
            return [
                (3, lambda: f"({sub(INT)} {self.pick(['==', '!=', '<', '<=', '>', '>='])} {sub(INT)})"),
                (
                    2,
                    lambda: (
                        f"({sub(RANK)} {self.pick(['<', '>=', '==', '>'])} "
                        f"{self.pick([repr(r) for r in self.ranks] + [sub(RANK)])})"
                    ),
                ),
                (1, lambda: f"({sub(CARD)} {self.pick(['==', '!='])} {sub(CARD)})"),
                (1, lambda: f"({sub(PLAYER)} {self.pick(['==', '!='])} {sub(PLAYER)})"),
                (1, lambda: f"({sub(SUIT)} == {self.pick([repr(s) for s in self.suits] + [sub(SUIT)])})"),
                (1, lambda: f"({sub(STR)} {self.pick(['==', '<'])} {sub(STR)})"),
                (2, lambda: f"({sub(BOOL)} {self.pick(['and', 'or'])} {sub(BOOL)})"),
                (1, lambda: f"not {sub(BOOL)}"),
                (1, lambda: f"({sub(CARD)} in {self.collection(CARD, scope, depth)[1]})"),
                (1, lambda: f"({sub(PLAYER)} {self.pick(['in', 'not in'])} {sub(PLAYERS)})"),
                (1, lambda: f"({sub(RANK)} in [{', '.join(repr(r) for r in self.ranks[:2])}])"),
                (
                    2,
                    lambda: self.macro(
                        *self.collection(CARD, scope, depth), self.pick(["any", "all"]), BOOL, scope, depth
                    ),
                ),
                (
                    1,
                    lambda: self.macro(
                        *self.collection(PLAYER, scope, depth), self.pick(["any", "all"]), BOOL, scope, depth
                    ),
                ),
                (
                    1,
                    lambda: self.macro(
                        *self.collection(INT, scope, depth), self.pick(["any", "all"]), BOOL, scope, depth
                    ),
                ),
                (1, lambda: f"{sub(CARD)}.{self.attr_bool}"),
                (1 if self.definitions_ready else 0, lambda: f"{self.d_fits}({sub(CARD)})"),
                (1, lambda: self.bind(BOOL, scope, depth)),
                (1, lambda: "can_move(me)" if scope.get("@can_move") else "true"),
                conditional,
            ]
        if t == STR:
            out = [
                (2, lambda: f"({sub(STR)} + {sub(STR)})"),
                (1, lambda: f"prefix({sub(STR)}, {sub(INT)})"),
                (1, lambda: f"letter({sub(STR)}, {sub(INT)})"),
                # (a text literal is tried as a suit name by text(): pass texts through a variable)
                (2, lambda: f"text({self.pick([sub(self.pick([INT, PLAYER, CARD, SUIT, RANK, BOOL])), self.v_word])})"),
                (1, lambda: f"{sub(CARD)}.{self.suit_str_attr}"),
                (1, lambda: f"{sub(SUIT)}.{self.suit_str_attr}"),
                conditional,
            ]
            if self.attr_str:
                out.append((1, lambda: f"{sub(CARD)}.{self.attr_str}"))
            return out
        if t == CARD:
            return [
                (
                    2,
                    lambda: self.macro(
                        *self.collection(CARD, scope, depth),
                        self.pick(["argmax", "argmin"]),
                        self.pick([INT, RANK]),
                        scope,
                        depth,
                    ),
                ),
                (1, lambda: self.bind(CARD, scope, depth)),
                (1, lambda: f"{self.pick(['top', 'bottom'])}({sub(CARDS)})"),  # of a list, e.g. a filtered one
                conditional,
            ]
        if t == PLAYER:
            out = [
                (2, lambda: f"{self.pick(['left', 'right', 'next', 'opponent'])}({sub(PLAYER)})"),
                (1, lambda: f"seat({sub(INT)})"),
                (1, lambda: self.macro(PLAYERS, "players", self.pick(["argmax", "argmin"]), INT, scope, depth)),
                conditional,
            ]
            if self.nobody:
                out += [
                    (2, lambda: f"holder({sub(CARD)})"),
                    (1, lambda: self.macro(*self.collection(PLAYER, scope, depth), "argmax", INT, scope, depth)),
                ]
            return out
        if t == SUIT:
            return [(2, lambda: f"{sub(CARD)}.suit"), (1, lambda: self.suit_value(scope, depth)), conditional]
        if t == RANK:
            return [(1, lambda: f"{sub(CARD)}.rank"), conditional]
        if t == CARDS:
            return [
                (2, lambda: self.macro(CARDS, self.zone(scope, depth - 1), "filter", BOOL, scope, depth)),
                (1, lambda: f"{self.pick(['top', 'bottom'])}({self.zone(scope, depth - 1)}, {sub(INT)})"),
                (1, lambda: f"[{sub(CARD)}, {sub(CARD)}]"),
                (1, lambda: f"({self.zone(scope, depth - 1)} + {sub(CARDS)})"),  # a union
            ]
        if t == PLAYERS:
            return [(1, lambda: self.macro(PLAYERS, "players", "filter", BOOL, scope, depth))]
        if t == INTS:
            return [
                (1, lambda: f"range({sub(INT)}, {sub(INT)})"),
                (1, lambda: self.macro(INTS, f"range({self.rng.randint(0, 6)})", "filter", BOOL, scope, depth)),
            ]
        return []

    def small(self, scope: dict[str, str]) -> str:
        """A number between -1000 and 1000, so sums and products of variables stay far from the limit."""
        return f"max(-1000, min(1000, {self.expr(INT, scope, 2)}))"

    def bind(self, type_: str, scope: dict[str, str], depth: int) -> str:
        value_type = self.pick([INT, CARD, PLAYER, CARDS, BOOL])
        value = self.expr(value_type, scope, depth - 1)
        variable = self.local(scope)
        return f"({value}).bind({variable}, {self.expr(type_, {**scope, variable: value_type}, depth - 1)})"

    def template(self, scope: dict[str, str], depth: int = 1) -> str:
        parts = []
        for _ in range(self.rng.randint(1, 3)):
            type_ = self.pick([INT, PLAYER, CARD, SUIT, RANK, BOOL, STR, CARDS, PLAYERS, INTS, ZONE, "truths"])
            if type_ == ZONE:
                value = self.zone(scope, depth)
            elif type_ == "truths":  # a list of truth values (shown as yes and no)
                value = f"[{self.expr(BOOL, scope, depth)}, {self.expr(BOOL, scope, depth)}]"
            else:
                value = self.expr(type_, scope, depth)
            parts.append(f"{self.pick(['', 'got ', '- '])}{{{value}}}")
        return " ".join(parts).replace('"', "'")

    # ---- effects -----------------------------------------------------------------------

    def statements(self, scope: dict[str, str], count: int, depth: int = 2, top: bool = False) -> list:
        return [self.statement(scope, depth, top) for _ in range(count)]

    def statement(self, scope: dict[str, str], depth: int, top: bool) -> str | dict:
        sub = lambda type_: self.expr(type_, scope, 2)  # noqa: E731
        options: list[tuple[float, Callable[[], str | dict]]] = [
            (
                4,
                lambda: (
                    f"move {self.pick([sub(CARD), self.zone(scope, 1), sub(CARDS)])} to {self.zone(scope, 1)}"
                    f"{self.pick(['', '', ' at bottom', ' at top'])}"
                ),
            ),
            (
                1,
                lambda: (
                    f"deal {self.pick(['all', f'min({self.rng.randint(0, 3)}, size({self.pile}))'])} "
                    f"of {self.zone(scope, 1)} "
                    f"to {self.hand} from {self.seat(scope, 1)}"
                ),
            ),
            (1, lambda: f"reveal {self.pick([sub(CARD), self.zone(scope, 1)])} to {self.seat(scope, 1)}"),
            (3, lambda: f"{self.v_score}[{self.seat(scope, 1)}] {self.pick(['=', '+=', '-='])} {self.small(scope)}"),
            (1, lambda: f"{self.v_count} {self.pick(['=', '+=', '-='])} {self.small(scope)}"),
            (1, lambda: f"{self.v_flag} = {sub(BOOL)}"),
            (1, lambda: f"{self.v_lead} = {self.seat(scope, 2)}"),
            (1, lambda: f"{self.v_trump} = {self.suit_value(scope, 2, literal=True)}"),
            (1, lambda: f"{self.v_last} = {sub(CARD)}"),
            (1, lambda: f"{self.v_word} = prefix({sub(STR)}, {self.rng.randint(0, 12)})"),  # texts stay short
            (1, lambda: f"turn to {self.seat(scope, 1)}"),
            # the top-level setup runs before the first round, which starts afresh: there the
            # flow's effects would take none (RE275), and a procedure may hold them
            (0 if self.in_setup else 1, lambda: "reverse"),
            (0 if self.in_setup else 0.5, lambda: f"out {self.seat(scope, 1)}"),
            (0.5, lambda: f"end {self.pick(self.ends)}"),
            (0 if self.forward_only or self.in_setup else 0.5, lambda: f"goto {self.pick(self.phase_names)}"),
            (2, lambda: f'log "{self.template(scope)}"'),
        ]
        # chance: at the top of a list; in half of the games (so that the other half keeps the
        # compiler's fast steps) also inside blocks, random choices and repeats
        if top:
            options.append((1.5, lambda: f"shuffle {self.zone(scope, 1)}"))
        if self.more_chance:
            players = lambda: self.pick(["players", "active", f"others({self.seat(scope, 1)})"])  # noqa: E731
            options += [
                (0.4, lambda: f"shuffle {self.zone(scope, 1)}"),
                (0.5, lambda: f"{self.v_lead} = random {players()}"),
                (0.5, lambda: f"{self.v_count} {self.pick(['=', '+='])} random {sub(INTS)}"),
                (0.3, lambda: f"{self.v_trump} = random suits"),
                (0.5, lambda: f"{self.v_last} = random {self.pick([self.zone(scope, 1), sub(CARDS)])}"),
                (0.5, lambda: f"move random {self.zone(scope, 1)} to {self.zone(scope, 1)}"),
            ]
        if self.procedures_ready and self.procedure_names and self.calls:
            options.append((1, lambda: self.call(scope)))
        if depth > 0:
            options.append((1.5, lambda: self.if_block(scope, depth)))
            options.append((1.5, lambda: self.for_block(scope, depth)))
            if self.more_chance:
                options.append((0.7, lambda: self.repeat_block(scope, depth)))
        return self.weighted(options)

    def repeat_block(self, scope: dict[str, str], depth: int) -> dict:
        block: dict = {
            "repeat": self.pick([0, 1, 2, 3, self.opt_int]),
            "do": self.statements(scope, self.rng.randint(1, 2), depth - 1),
        }
        if self.chance(0.7):
            block["until"] = self.expr(BOOL, scope, 2)
        return block

    def call(self, scope: dict[str, str]) -> str:
        return f"{self.pick(self.procedure_names)}({self.seat(scope, 1)}, {self.small(scope)})"

    def procedures(self) -> dict[str, dict]:
        """Procedures with a player and a number parameter; they call no procedure (no cycles)."""
        out = {}
        for name in self.procedure_names:
            player, count = self.local({"me": PLAYER}), "n9"
            scope = {"me": PLAYER, player: PLAYER, count: INT}
            out[name] = {"params": {player: "player", count: "int"}, "effects": self.statements(scope, 2, 1)}
        self.procedures_ready = True
        return out

    def if_block(self, scope: dict[str, str], depth: int) -> dict:
        then = self.statements(scope, self.rng.randint(1, 2), depth - 1)
        block: dict = {"if": self.expr(BOOL, scope, 2), "then": then}
        if self.chance(0.5):
            otherwise = self.statements(scope, self.rng.randint(1, 2), depth - 1)
            block["else"] = otherwise
        return block

    def for_block(self, scope: dict[str, str], depth: int) -> dict:
        element = self.pick([CARD, PLAYER, PLAYER, SUIT, INT])
        type_, collection = self.collection(element, scope, 2)
        variable = self.local(scope)
        inner = {**scope, variable: element}
        return {"for": f"{variable} in {collection}", "do": self.statements(inner, self.rng.randint(1, 2), depth - 1)}

    # ---- the game ----------------------------------------------------------------------

    def gather(self) -> list:
        """Effects putting every card back into the stock."""
        p, s = self.local({}), self.local({"me": PLAYER})
        effects: list = [
            f"move {self.pile} to {self.stock}",
            {"for": f"{p} in players", "do": [f"move {self.hand}[{p}] to {self.stock}"]},
            {"for": f"{s} in suits", "do": [f"move {self.row}[{s}] to {self.stock}"]},
        ]
        if self.packets:
            effects.append(
                {
                    "for": f"{p} in players",
                    "do": [
                        f"move {self.packets}[{p}, 0] to {self.stock}",
                        f"move {self.packets}[{p}, 1] to {self.stock}",
                    ],
                }
            )
        return effects

    def moves(self) -> dict[str, dict]:
        moves: dict[str, dict] = {}
        for _ in range(self.rng.randint(1, 4)):
            name = self.take()
            scope: dict[str, str] = {"me": PLAYER}
            params: dict[str, object] = {}
            for _ in range(self.pick([0, 1, 1, 1, 2])):
                pname = self.local(scope)
                kind = self.pick(["card", "card", "card", "set", "player", "suit", "int", "str"])
                if kind == "card":
                    source = self.pick(
                        [
                            f"{self.hand}[me]",
                            f"{self.hand}[me]",
                            self.pile,
                            f"{self.hand}[me].filter({self.local({**scope, pname: CARD})}, true)",
                            self.expr(CARDS, scope, 1),
                        ]
                    )
                    params[pname] = source
                    scope[pname] = CARD
                elif kind == "set":
                    spec: dict[str, object] = {"from": f"{self.hand}[me]", "size": self.pick([1, 2, 2, 3])}
                    if self.chance(0.3):  # a set of variable size, chosen in steps
                        low = self.pick([0, 0, 1, 2])
                        spec = {"from": spec["from"], "min": low, "max": low + self.pick([0, 1, 2])}
                        if spec["max"] == 0:
                            spec["max"] = 1
                    if self.chance(0.6):
                        spec["same"] = self.pick(["rank", "suit", *self.int_attributes, self.suit_str_attr])
                    params[pname] = spec
                    scope[pname] = CARDS
                elif kind == "player":
                    params[pname] = self.pick(["players", "others(me)", "active"])
                    scope[pname] = PLAYER
                elif kind == "suit":
                    params[pname] = "suits"
                    scope[pname] = SUIT
                elif kind == "int":
                    params[pname] = self.pick(["range(1, 3)", "[1, 2, 2]", f"range({self.opt_int} + 1)"])
                    scope[pname] = INT
                else:
                    params[pname] = "['x', 'y']"
                    scope[pname] = STR
            move: dict[str, object] = {}
            if params:
                move["params"] = params
            if self.chance(0.8):
                move["legal"] = self.expr(BOOL, scope, 2)
            card_params = [n for n, t in scope.items() if t in (CARD, CARDS)]
            if self.slots and card_params and self.chance(0.5):  # a test that fails for some cards, asked first
                param, offset = card_params[0], self.rng.randint(0, 3)
                if scope[param] == CARD:
                    fails = f"size({self.slots}[({param}.order + {offset}) % 4]) >= 0"
                else:  # a set: each of its cards
                    each = self.local(scope)
                    fails = f"{param}.all({each}, size({self.slots}[({each}.order + {offset}) % 4]) >= 0)"
                move["legal"] = f"{fails} and ({move['legal']})" if "legal" in move else fails
            cards = [n for n, t in scope.items() if t in (CARD, CARDS)]
            effects = [f"move {n} to {self.pile}" for n in cards]
            effects += self.statements(scope, self.rng.randint(0, 3))
            move["effects"] = effects or ["reverse"]
            if self.chance(0.4):
                move["label"] = self.template(scope)
            if self.chance(0.2):
                move["hidden"] = True
            moves[name] = move
        if self.chance(0.7):
            moves[self.take()] = {
                "pass": True,
                "effects": [
                    f"move top({self.stock}) to {self.hand}[me]",
                    *self.statements({"me": PLAYER}, self.rng.randint(0, 1)),
                ],
            }
        return moves

    def phases(self, moves: list[str]) -> dict[str, dict]:
        phases: dict[str, dict] = {}
        scope = {"me": PLAYER}
        for index, name in enumerate(self.phase_names):
            phase: dict[str, object] = {"moves": self.rng.sample(moves, self.rng.randint(1, len(moves)))}
            if self.chance(0.3):
                phase["first"] = self.seat(scope, 1)
            if self.chance(0.5):
                phase["until"] = self.expr(BOOL, {**scope, "@can_move": "flag"}, 2)
            # Without a decision, phases only go forward (no `goto` in enter and exit, `next` to a
            # later phase): a round whose phases lead to each other at once is an engine error.
            self.forward_only = True
            if self.chance(0.3):
                phase["enter"] = self.statements(scope, self.rng.randint(1, 2), top=True)
            if self.chance(0.3):
                phase["exit"] = self.statements(scope, self.rng.randint(1, 2), top=True)
            self.forward_only = False
            if self.chance(0.4):
                phase["next"] = self.pick([*self.phase_names[index + 1 :], "end"])
            if self.chance(0.15):
                phase["simultaneous"] = True
            phases[name] = phase
        return phases

    def triggers(self) -> dict[str, dict]:
        triggers: dict[str, dict] = {}
        for _ in range(self.rng.randint(0, 3)):
            scope: dict[str, str] = {"me": PLAYER, "@can_move": "flag"}
            trigger: dict[str, object] = {}
            if self.chance(0.6):
                element = self.pick([PLAYER, PLAYER, CARD, SUIT])
                _, collection = self.collection(element, scope, 1)
                variable = self.local(scope)
                trigger["for"] = f"{variable} in {collection}"
                scope[variable] = element
                if element == PLAYER:
                    trigger["when"] = (
                        f"empty({self.hand}[{variable}])" if self.chance(0.4) else self.expr(BOOL, scope, 2)
                    )
                else:
                    trigger["when"] = self.expr(BOOL, scope, 2)
            else:
                trigger["when"] = self.expr(BOOL, scope, 2)
            effects = self.statements(scope, self.rng.randint(1, 3), top=True)
            if self.chance(0.3):
                effects.insert(0, f"shuffle {self.zone(scope, 1)}")
            trigger["effects"] = effects
            triggers[self.take()] = trigger
        return triggers

    def document(self) -> dict:
        self.declare()
        rng = self.rng
        zones: dict[str, dict] = {
            self.stock: {"visibility": self.pick(["nobody", "all"])},
            self.pile: {"visibility": "all"},
            self.hand: {"per": "player", "visibility": self.pick(["owner", "all", "nobody"])},
            self.row: {"per": "suit"},
        }
        if self.chance(0.3):
            zones[self.pile]["sorted_by"] = self.pick(["order", *self.int_attributes])
        if self.chance(0.4):
            zones[self.row]["sorted_by"] = self.pick(["order", *self.int_attributes, "rank"])
        if self.chance(0.2):
            zones[self.hand]["sorted_by"] = "order"
        if self.packets:
            zones[self.packets] = {"per": ["player", 2], "visibility": "owner"}
        if self.slots:
            zones[self.slots] = {"per": 3}
        card_attributes = self.card_attributes()
        variables = {
            self.v_score: {"type": "int", "per": "player"},
            self.v_count: {"default": self.static_expr(INT, {}, 1)},
            self.v_flag: {"type": "bool", "default": self.static_expr(BOOL, {}, 1)},
            self.v_lead: {"type": "player"},
            self.v_trump: {"type": "suit"},
            self.v_last: {"type": "card"},
            self.v_word: {"type": "str", "default": self.static_expr(STR, {}, 1)},
        }
        fits_param = self.local({})
        define = {
            self.d_int: self.expr(INT, {"me": PLAYER}, 1),
            f"{self.d_fits}({fits_param})": self.expr(BOOL, {"me": PLAYER, fits_param: CARD}, 2),
        }
        self.definitions_ready = True
        self.procedure_names = [self.take() for _ in range(rng.randint(0, 2))]
        procedures = self.procedures()
        moves = self.moves()
        deal = max(1, min(rng.randint(1, 5), self.card_count // self.max_players))
        setup = [*self.gather(), f"shuffle {self.stock}"]
        setup.append(f"deal {deal} of {self.stock} to {self.hand} from {self.seat({}, 1)}")
        # no phase has begun in round.setup, so none can end there (RE275)
        self.ends, self.calls = ["round", "game"], False
        setup += self.statements({"me": PLAYER}, rng.randint(0, 2), top=True)
        self.ends, self.calls = ["round", "phase", "phase", "game"], True
        round_: dict[str, object] = {
            "setup": setup,
            "end": self.statements({"me": PLAYER}, rng.randint(0, 2), top=True) or ["reverse"],
            "limit": {"turns": rng.randint(4, 30), "effects": self.statements({"me": PLAYER}, 1) or ["reverse"]},
        }
        if self.chance(0.5):
            round_["stuck"] = self.statements({"me": PLAYER}, rng.randint(1, 2))
        doc: dict[str, object] = {
            "name": f"Generated {rng.randint(0, 10**6)}",
            "players": {"min": self.min_players, "max": self.max_players},
            "options": self.options,
            "decks": self.decks,
            "cards": {"attributes": card_attributes},
            "zones": zones,
            "variables": variables,
            "define": define,
        }
        if procedures:
            doc["procedures"] = procedures
        if self.chance(0.3):
            doc["cards"]["label"] = f"{{rank}}/{{suit}}/{{{self.attr_int}}}"
        if self.chance(0.4):
            self.in_setup, self.ends, self.calls = True, ["game"], False
            doc["setup"] = [f"shuffle {self.stock}", *self.statements({"me": PLAYER}, 1)]
            self.in_setup, self.ends, self.calls = False, ["round", "phase", "phase", "game"], True
        doc["round"] = round_
        doc["phases"] = self.phases(list(moves))
        doc["moves"] = moves
        doc["triggers"] = self.triggers()
        score, p, q = self.v_score, self.local({}), self.local({})
        q = q if q != p else "q9"
        doc["match"] = {
            "until": f"round >= {rng.randint(1, 3)}" + (f" or {self.v_flag}" if self.chance(0.3) else ""),
            self.pick(["winners", "losers"]): f"players.filter({p}, {score}[{p}] == players.max({q}, {score}[{q}]))",
        }
        self.teams_and_results(doc)
        return doc

    def teams_and_results(self, doc: dict) -> None:
        """Teams, team variables and zones, numeric returns with a sum that holds, shared wins:
        drawn from a generator of their own, so the rest of a generated game does not change."""
        rng = random.Random(self.rng.random())
        score, p = self.v_score, self.local({})
        if self.min_players >= 2 and rng.random() < 0.4:
            doc["teams"] = "alternate"
            team_var, team_zone, trigger = self.take(), self.take(), self.take()
            doc["variables"][team_var] = {"type": "int", "per": "team"}
            doc["zones"][team_zone] = {"per": "team", "visibility": rng.choice(["all", "nobody"])}
            doc["triggers"][trigger] = {
                "when": rng.choice(["true", "turn % 2 == 0", f"size({self.pile}) > 0"]),
                "effects": [
                    f"{team_var}[me] += team(me) + size(teammates(me)) + 1",
                    f"move top({self.pile}) to {team_zone}[me]",
                    {"if": "partner(me) == left(left(me))", "then": [f"{score}[partner(me)] += 1"]},
                    f'log "{{me}} {{team(me)}} {{partner(me)}} {{teammates(me)}} {{{team_var}[me]}}"',
                ],
            }
            if rng.random() < 0.5:  # partners see each other's hands
                doc["zones"][self.hand]["visibility"] = "team"
            gather = {"for": f"{p} in players", "do": [f"move {team_zone}[{p}] to {self.stock}"]}
            doc["round"]["setup"].insert(0, gather)
        kind = rng.random()
        if kind < 0.3:  # numbers that add up to 0 whatever happens
            doc["match"].pop("winners", None)
            doc["match"].pop("losers", None)
            doc["match"]["returns"] = f"{score}[me] * num_players - players.sum({p}, {score}[{p}])"
            doc["match"]["zero_sum"] = True
        elif kind < 0.5:
            doc["match"]["tie"] = rng.choice(["draw", "win"])


def generate(seed: int, nobody: bool = False) -> str:
    """The text of one random valid rule file."""
    return dump(generate_document(seed, nobody))


def dump(document: dict) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=10_000)


def generate_document(seed: int, nobody: bool = False) -> dict:
    """One random valid rule file as the mapping its YAML text holds."""
    return GameGenerator(seed, nobody).document()


def option_settings(document: dict, rng: random.Random, count: int) -> list[dict[str, object]]:
    """`count` option settings for a generated game (the defaults first)."""
    options = document.get("options", {})
    settings: list[dict[str, object]] = [{}]
    for _ in range(count - 1):
        chosen: dict[str, object] = {}
        for name, spec in options.items():
            if "choices" in spec:
                chosen[name] = rng.choice(spec["choices"])
            elif isinstance(spec["default"], bool):
                chosen[name] = rng.choice([False, True])
            else:
                chosen[name] = rng.randint(spec["min"], spec["max"])
        settings.append(chosen)
    return settings
