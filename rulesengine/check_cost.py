"""A static cost bound of expressions, effects and decisions, in the manner of CEL's cost
estimator: no game is played, every collection is assumed as large as it can ever be.

A collection's length is bounded by the game's size: a zone by the number of cards in the
game, `players` and `active` by the largest player count, `suits` by the suits, a
`range` by its bounds when constants and options decide them (else limits.MAX_RANGE), a
list literal by its items. An expression costs one step per node, and a list macro costs
its body once per element, so nested macros multiply. A move's actions are counted
exactly from its parameters (a set parameter of size k over m cards: C(m, k), within
groups when the cards share a rank or suit) with `math.comb`, before anything is built.

Every number saturates at CAP, so a bound never grows into a huge integer however the
file is written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import attrs

from . import ir
from .diagnostics import Span

CAP = 10**30  # beyond every limit: a bound this large is reported the same as a larger one


def add(*values: int) -> int:
    return min(sum(values), CAP)


def mul(*values: int) -> int:
    out = 1
    for value in values:
        out = min(out * value, CAP)
    return out


@attrs.frozen
class GameSize:
    """How large the game's collections can be, at the largest player count."""

    cards: int  # every card of every deck and copy
    players: int
    suits: int
    ranks: int
    cards_by_rank: tuple[int, ...]  # cards sharing each rank
    cards_by_suit: tuple[int, ...]  # cards sharing each suit

    @staticmethod
    def of(decks: Iterable[ir.Deck], suits: list[str], ranks: list[str], players: int) -> GameSize:
        by_rank = dict.fromkeys(ranks, 0)
        by_suit = dict.fromkeys(suits, 0)
        total = 0
        for deck in decks:  # one pass over each deck's suits and ranks
            total += len(deck.suits) * len(deck.ranks) * deck.copies
            for rank in deck.ranks:
                by_rank[rank] = by_rank.get(rank, 0) + len(deck.suits) * deck.copies
            for suit in deck.suits:
                by_suit[suit] = by_suit.get(suit, 0) + len(deck.ranks) * deck.copies
        return GameSize(total, players, len(suits), len(ranks), tuple(by_rank.values()), tuple(by_suit.values()))


@attrs.frozen
class Part:
    """One part of a decision's work: its cost bound and where the rule file writes it."""

    cost: int
    span: Span
    what: str
    expr: ir.Expr | None = None  # to point inside it at the costliest place
    statements: tuple[ir.Stmt, ...] = ()  # or inside these


class Costs:
    """Cost and length bounds of the typed expressions and statements of one file."""

    def __init__(self, game: GameSize, range_length: Callable[[ir.Call | None], int], can_move_cost: int = 1):
        self.game = game
        self.range_length = range_length  # bound on the length of a range(...) call
        self.can_move_cost = can_move_cost  # enumerating one player's actions
        self.set_sizes: dict[int, int] = {}  # slot of a set parameter: the cards it holds
        self._costs: dict[int, int] = {}

    # ---- lengths of collections -------------------------------------------------------

    def length(self, expr: ir.Expr) -> int:
        """The most elements `expr` (a list or a zone) can have."""
        game = self.game
        if isinstance(expr, ir.ListExpr):
            return len(expr.items)
        if isinstance(expr, ir.Builtin) and expr.name in ("players", "active"):
            return game.players
        if isinstance(expr, ir.Builtin) and expr.name == "suits":
            return game.suits
        if isinstance(expr, ir.Call) and expr.function == "range":
            return self.range_length(expr)
        if isinstance(expr, ir.Call) and expr.function in ("others", "teammates"):
            return max(game.players - 1, 0)
        if isinstance(expr, ir.Local) and expr.slot in self.set_sizes:
            return self.set_sizes[expr.slot]
        if isinstance(expr, ir.Macro) and expr.kind == "filter":
            return self.length(expr.collection)
        if isinstance(expr, ir.Call) and expr.function == "concat":
            return add(self.length(expr.args[0]), self.length(expr.args[1]))
        if isinstance(expr, ir.Conditional):
            return max(self.length(expr.then), self.length(expr.otherwise))
        return self._by_element(ir.element_of(expr.type))

    def _by_element(self, element: str | None) -> int:
        """A list known only by its type: as long as there are values of that type."""
        game = self.game
        if element == ir.PLAYER:
            return game.players
        if element == ir.SUIT:
            return game.suits
        if element == ir.RANK:
            return game.ranks
        if element == ir.CARD:
            return game.cards
        return self.range_length(None)  # numbers or texts: at most a range's length

    # ---- costs --------------------------------------------------------------------------

    def cost(self, expr: ir.Expr) -> int:
        """Steps to evaluate `expr` once, at most."""
        known = self._costs.get(id(expr))
        if known is None:
            known = self._costs[id(expr)] = self._cost(expr)
        return known

    def _cost(self, expr: ir.Expr) -> int:
        own = add(1, *(self.cost(child) for child in ir.children(expr)))
        if isinstance(expr, ir.Macro):
            if expr.kind == "bind" or expr.body is None:
                return own
            per_element = add(1, self.cost(expr.body))
            return add(1, self.cost(expr.collection), mul(self.length(expr.collection), per_element))
        if isinstance(expr, ir.Binary) and expr.op == "in":
            return add(own, self.length(expr.right))
        if isinstance(expr, ir.Call):
            if expr.function == "can_move":
                return add(own, self.can_move_cost)
            if (
                expr.function in ("range", "others", "teammates", "top", "bottom", "concat")
                and ir.element_of(expr.type) is not None
            ):
                return add(own, self.length(expr))  # builds a list
        if isinstance(expr, ir.Builtin) and expr.name in ("players", "active", "suits"):
            return add(own, self.length(expr))
        return own

    def statements(self, statements: Iterable[ir.Stmt]) -> int:
        return add(0, *(self.statement(s) for s in statements))

    def statement(self, s: ir.Stmt) -> int:
        inside = add(1, *(self.cost(e) for e in expressions_of(s)))
        if isinstance(s, ir.If):
            return add(inside, max(self.statements(s.then), self.statements(s.otherwise)))
        if isinstance(s, ir.For):
            return add(inside, mul(self.length(s.collection), add(1, self.statements(s.body))))
        if isinstance(s, (ir.Move, ir.Reveal)):
            cards = s.cards
            return add(inside, 1 if cards.type == ir.CARD else self.length(cards))
        if isinstance(s, (ir.Deal, ir.Shuffle)):
            return add(inside, self.game.cards)
        if isinstance(s, ir.Repeat):  # each pass: the body and `until`, at most `most` passes
            until = self.cost(s.until) if s.until is not None else 0
            return add(inside, mul(s.most, add(1, until, self.statements(s.body))))
        if isinstance(s, ir.Random):
            return add(inside, self.length(s.candidates))  # the candidates are copied
        if isinstance(s, ir.Log):  # a zone or a list is written out element by element
            shown = [p for p in s.parts if isinstance(p, ir.Expr) and (p.type == ir.ZONE or ir.element_of(p.type))]
            return add(inside, *(self.length(p) for p in shown))
        return inside

    # ---- moves ---------------------------------------------------------------------------

    def choices(self, param: ir.Param, value_choices: Callable[[ir.Param], int]) -> int:
        """How many values a parameter can take: cards, sets of cards, or other values."""
        if param.size is None:
            if param.type == ir.CARD:
                return self.length(param.candidates)
            return value_choices(param)
        cards = self.length(param.candidates)
        sizes = range(param.size, param.size + 1) if param.at_least is None else range(param.at_least, param.size + 1)
        groups = {"rank": self.game.cards_by_rank, "suit": self.game.cards_by_suit}.get(param.same or "")
        every = add(*(math.comb(cards, k) for k in sizes))
        if groups is None:
            return every
        return min(add(*(math.comb(min(group, cards), k) for group in groups for k in sizes)), every)

    def enumeration(self, move: ir.MoveDef, counts: list[int]) -> int:
        """Listing a move's actions: each parameter's candidates once per combination of the
        earlier ones, then `legal` once per complete combination."""
        total = 0
        combinations = 1
        for param, count in zip(move.params, counts):
            total = add(total, mul(combinations, self.cost(param.candidates)))
            combinations = mul(combinations, count)
        legal = self.cost(move.legal) if move.legal is not None else 0
        total = add(total, mul(combinations, add(1, legal)))
        if any(p.size is not None for p in move.params):
            # chosen in steps (actions.py): each step looks again at the listed actions
            steps = add(*(p.size + (p.at_least is not None) if p.size is not None else 1 for p in move.params))
            total = add(total, mul(combinations, steps))
        return total

    def hottest(self, expr: ir.Expr) -> ir.Expr:
        """The innermost part of `expr` that carries nearly all of its cost: where the
        multiplication that makes it expensive is written."""
        while True:
            total = self.cost(expr)
            heavy = [c for c in ir.children(expr) if self.cost(c) * 10 >= total * 9]
            if not heavy:
                return expr
            expr = heavy[0]


def expressions_of(s: ir.Stmt) -> list[ir.Expr]:
    """The expressions a statement evaluates itself (not those of the statements inside it)."""
    if isinstance(s, ir.Log):
        return [p for p in s.parts if isinstance(p, ir.Expr)]
    out: list[ir.Expr] = []
    for value in ir.field_values(s):
        if isinstance(value, ir.Expr):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(v for v in value if isinstance(v, ir.Expr))
    return out


def hottest_statement(costs: Costs, statements: Iterable[ir.Stmt]) -> Span | None:
    """Where the costliest of `statements` spends its cost: inside an if or for that
    carries nearly all of it, or at the expression that does."""
    listed = list(statements)
    if not listed:
        return None
    worst = max(listed, key=costs.statement)
    total = costs.statement(worst)
    for inner in (getattr(worst, "body", ()), getattr(worst, "then", ()), getattr(worst, "otherwise", ())):
        if inner and costs.statements(inner) * 10 >= total * 9:
            return hottest_statement(costs, inner)
    expressions = expressions_of(worst)
    heavy = [e for e in expressions if costs.cost(e) * 10 >= total * 9]
    return costs.hottest(heavy[0]).span if heavy else worst.span
