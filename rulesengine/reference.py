"""The reference mode: a game setting compiled the most direct way, as the oracle.

`compile_reference(ruleset, options, num_players)` builds the same `Program` value as the
optimising compiler (compile.py's attrs classes are the engine's runtime contract) but
shares none of its code: the layout comes from reference_layout.py, every expression and
statement is a closure from reference_eval.py that walks the checked IR as the language
reference defines it, every move lists its legal actions by trying each combination of
its parameters' candidates against `legal`, and no move has a `step`, so every step goes
through the engine's general agenda (effects, triggers, turn passing, end checks). Nothing
is folded, hoisted, unrolled or shared between moves. It is deliberately simple and slow:
`make_game(..., optimize=False)` plays with it, and the differential tests compare it
with the optimised program at every step.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import comb
from typing import Any

from . import ir, knowledge, runtime
from .compile import CompiledMove, CompiledParam, CompiledPhase, CompiledTrigger, Program, Segment, ZoneFamily
from .effect_flow import Flattener, needs_flow
from .reference_eval import Evaluator, Fn, where
from .reference_layout import (
    attribute_tables,
    card_environment,
    cards_of,
    default_card_name,
    dimension_sizes,
    suit_attribute_value,
    zone_slots,
)
from .results import result_rules
from .teams import team_table


def compile_reference(ruleset: ir.Ruleset, options: dict[str, object], num_players: int) -> Program:
    return ReferenceCompiler(ruleset, options, num_players).program()


class ReferenceCompiler:
    """The layout of one game setting and the closures of its rules."""

    def __init__(self, ruleset: ir.Ruleset, options: dict[str, object], num_players: int):
        self.ruleset = ruleset
        self.flow_slots = 0  # locals the loops of effect lists with jumps need beyond the checker's
        self.options = dict(options)
        self.num_players = num_players
        self.teams = team_table(ruleset.teams, num_players)
        self.suit_names = tuple(s.name for s in ruleset.suits)
        self.card_attribute = {a.name: a for a in ruleset.card_attributes}
        self.evaluator = Evaluator(self)
        self.card_closures: dict[int, Fn] = {}  # each computed attribute's closure, by its expression's id
        self.cards = cards_of(ruleset)
        self.card_names: tuple[str, ...] = tuple(default_card_name(ruleset, c) for c in self.cards)
        self.attributes = attribute_tables(ruleset, self.cards, self.evaluate_for_card)
        if ruleset.card_label:
            label = self.evaluator.template(ruleset.card_label)
            self.card_names = tuple(
                label(None, card_environment(self.attributes, card)) for card in range(len(self.cards))
            )
        self.layout_zones()
        self.layout_variables()

    # ---- layout ------------------------------------------------------------------------

    def evaluate_for_card(self, expression: ir.Expr, env: dict) -> object:
        """`expression` for one card: its closure is made for the first card and called for each."""
        closure = self.card_closures.get(id(expression))
        if closure is None:
            closure = self.card_closures[id(expression)] = self.evaluator.expr(expression)
        return closure(None, env)

    def layout_zones(self) -> None:
        slots = zone_slots(self.ruleset, self.num_players)
        self.zone_names = tuple(z.name for z in slots)
        self.zone_owner = tuple(z.owner for z in slots)
        self.zone_visibility = tuple(z.visibility for z in slots)
        self.zone_slot_of: dict[str, dict[tuple[int, ...], int]] = {z.name: {} for z in self.ruleset.zones}
        for slot, zone in enumerate(slots):
            self.zone_slot_of[zone.family][zone.index] = slot
        sorted_by = {z.name: z.sorted_by for z in self.ruleset.zones}
        self.sorted_by = tuple(
            self.attributes[attribute] if (attribute := sorted_by[z.family]) else None for z in slots
        )
        initial: list[list[int]] = [[] for _ in slots]
        for card_id, card in enumerate(self.cards):
            initial[self.zone_slot_of[self.ruleset.decks[card.deck].zone][()]].append(card_id)
        self.initial_zones = tuple(tuple(z) for z in initial)

    def families(self) -> dict[str, ZoneFamily]:
        out = {}
        for zone in self.ruleset.zones:
            sizes = dimension_sizes(zone, self.num_players, len(self.suit_names))
            strides = tuple(product(sizes[k + 1 :]) for k in range(len(sizes)))
            base = min(self.zone_slot_of[zone.name].values())
            out[zone.name] = ZoneFamily(
                zone.name, base, strides, sizes, zone.dimensions, zone.visibility, zone.sorted_by
            )
        return out

    def layout_variables(self) -> None:
        offsets: dict[str, int] = {}
        values: list[object] = []
        layout = []
        for variable in self.ruleset.variables:
            offsets[variable.name] = len(values)
            value = self.evaluator.expr(variable.default)(None, [None] * max(1, self.ruleset.slots))
            values.extend([value] * (self.num_players if variable.per_player else 1))
            layout.append((variable.name, variable.per_player, variable.type))
        self.variable_offsets = offsets
        self.initial_variables = tuple(values)
        self.variable_layout = tuple(layout)

    def card_constant(self, value: tuple) -> int:
        """The id of `card(rank, suit)`: the first card of the named deck with that suit and rank."""
        _, deck, suit, rank = value
        suit_index, rank_index = self.suit_names.index(suit), self.ruleset.ranks.index(rank)
        for card_id, card in enumerate(self.cards):
            if card.deck == deck and card.suit == suit_index and card.rank == rank_index:
                return card_id
        return runtime.NO_CARD

    def suit_attribute(self, attribute: ir.CardAttribute, suit: int) -> object:
        return suit_attribute_value(self.ruleset, attribute, suit)

    # ---- what effects and built-ins do to a state --------------------------------------

    def put_all(self, st: Any, cards: list[int], target: int, at_bottom: bool) -> None:
        """Move the cards of one statement onto zone slot `target`, one after the other; the
        players learn of the move once, per zone the cards came from."""
        sources: dict[int, list[int]] = {}
        for card in cards:
            if card >= 0:
                sources.setdefault(st.where[card], []).append(card)
            self.put(st, card, target, at_bottom, tell=False)
        if st._track:
            for source, moved in sources.items():
                if source != target:
                    knowledge.moved(st, moved, source, target)

    def put(self, st: Any, card: int, target: int, at_bottom: bool, tell: bool = True) -> None:
        """Move one card onto zone slot `target` (its sorted place, the bottom or the top)."""
        if card < 0:
            return  # no card: nothing to move
        source = st.where[card]
        cards = st.zones[target]
        if source == target and not at_bottom and cards[-1] == card:
            return  # a card already on top of the zone stays
        st.zones[source].remove(card)
        table = self.sorted_by[target]
        if table is not None:
            runtime.insert_sorted(cards, card, table)
        elif at_bottom:
            cards.insert(0, card)
        else:
            cards.append(card)
        st.where[card] = target
        # what the players saw of the move: the knowledge model is the engine's, not the compiler's
        if source == target:
            st._touched.add(source)
        elif tell and st._track:
            knowledge.moved(st, (card,), source, target)

    def can_move(self, st: Any, player: int) -> bool:
        """Whether `player` has a legal action of a non-pass move of the current phase."""
        if st.phase < 0:
            return False
        for index in self.ruleset_phase_moves[st.phase]:
            if not self.ruleset.moves[index].is_pass and self.legal_actions_of(index, st, player):
                return True
        return False

    # ---- moves -------------------------------------------------------------------------

    def param(self, p: ir.Param) -> CompiledParam:
        """A parameter's place in the action ids: its kind and its domain."""
        n_cards = len(self.cards)
        if p.size is not None:
            same = self.attributes[p.same] if p.same else None
            if p.at_least is not None:
                return CompiledParam(p.slot, p.size, same, None, 2**n_cards, "subset", p.at_least)
            return CompiledParam(p.slot, p.size, same, None, comb(n_cards, p.size), "set")
        if p.type == ir.CARD:
            return CompiledParam(p.slot, None, None, None, n_cards, "card")
        if p.type == ir.PLAYER:
            return CompiledParam(p.slot, None, None, tuple(range(self.num_players)), self.num_players, "player")
        if p.type == ir.SUIT:
            return CompiledParam(p.slot, None, None, tuple(range(len(self.suit_names))), len(self.suit_names), "suit")
        values = self.evaluator.items(p.candidates)(None, [None] * max(1, self.ruleset.slots))
        domain = tuple(dict.fromkeys(values))  # known before play (the checker requires it)
        return CompiledParam(p.slot, None, None, domain, max(1, len(domain)), "value")

    def choices(self, p: ir.Param, compiled: CompiledParam, candidates: list) -> list[tuple[Any, int]]:
        """(value, position in the parameter's domain) for each distinct candidate it may take."""
        if compiled.kind == "card":
            real = [c for c in dict.fromkeys(candidates) if c >= 0]
            return [(c, c) for c in real]
        if compiled.kind == "subset":  # every size from at_least to size, keyed by a bit per card
            real = sorted(c for c in dict.fromkeys(candidates) if c >= 0)
            out = []
            assert compiled.at_least is not None and compiled.size is not None
            for size in range(compiled.at_least, compiled.size + 1):
                for cards in itertools.combinations(real, size):
                    if compiled.same is not None and len({compiled.same[c] for c in cards}) > 1:
                        continue
                    out.append((cards, sum(2**c for c in cards)))
            return out
        if compiled.size is not None:  # a set
            real = sorted(c for c in dict.fromkeys(candidates) if c >= 0)
            out = []
            for cards in itertools.combinations(real, compiled.size):
                if compiled.same is not None and len({compiled.same[c] for c in cards}) != 1:
                    continue
                out.append((cards, sum(comb(c, k + 1) for k, c in enumerate(cards))))
            return out
        domain = compiled.domain or ()
        return [(v, domain.index(v)) for v in dict.fromkeys(candidates) if v in domain]

    def legal_actions_of(self, index: int, st: Any, player: int) -> list[int]:
        """Every action id of move `index` whose parameter values are candidates and `legal` holds."""
        move, compiled, candidates, legal = self.move_parts[index]
        env: list = [None] * max(1, self.ruleset.slots)
        env[0] = player
        found: list[int] = []
        strides = [product([q.domain_size for q in compiled.params[k + 1 :]]) for k in range(len(compiled.params))]

        def choose(depth: int, key: int) -> None:
            if depth == len(move.params):
                if legal is None or legal(st, env):
                    found.append(compiled.offset + key)
                return
            p, cp = move.params[depth], compiled.params[depth]
            for value, position in self.choices(p, cp, candidates[depth](st, env)):
                env[p.slot] = value
                choose(depth + 1, key + position * strides[depth])

        choose(0, 0)
        return found

    def enumerator(self, index: int) -> Callable[[Any, int, list], None]:
        def enumerate_(st: Any, player: int, found: list) -> None:
            found.extend(self.legal_actions_of(index, st, player))

        return enumerate_

    def phase_enumerator(self, phase: ir.Phase) -> Callable[[Any, int, list], None]:
        """A phase's legal actions: its moves' actions, its pass moves' only when there are none."""
        indices = [self.move_index[m] for m in phase.moves]

        def enumerate_(st: Any, player: int, found: list) -> None:
            actions: list[int] = []
            for index in indices:
                if not self.ruleset.moves[index].is_pass:
                    actions += self.legal_actions_of(index, st, player)
            if not actions:
                for index in indices:
                    if self.ruleset.moves[index].is_pass:
                        actions += self.legal_actions_of(index, st, player)
            found.extend(sorted(set(actions)))

        return enumerate_

    # ---- effects -----------------------------------------------------------------------

    def segments(self, statements: tuple[ir.Stmt, ...]) -> tuple[Segment, ...]:
        """An effect list cut after each top-level shuffle (the shuffle is a chance event); with
        chance inside blocks, random choices or repeats, segments with jumps (effect_flow.py)."""
        if needs_flow(statements):
            flow = Flattener(self.evaluator.block, self.evaluator.expr, self.evaluator.items, self.ruleset.slots)
            made = flow.segments(statements)
            self.flow_slots = max(self.flow_slots, flow.extra)
            return made
        out: list[Segment] = []
        pending: list[ir.Stmt] = []
        for statement in statements:
            if isinstance(statement, ir.Shuffle):
                out.append(Segment(self.evaluator.block(pending), self.evaluator.expr(statement.zone)))
                pending = []
            else:
                pending.append(statement)
        if pending or not out:
            out.append(Segment(self.evaluator.block(pending), None))
        return tuple(out)

    def optional(self, e: ir.Expr | None) -> Fn | None:
        return self.evaluator.expr(e) if e is not None else None

    # ---- the program -------------------------------------------------------------------

    def program(self) -> Program:
        r = self.ruleset
        ev = self.evaluator
        self.move_index = {m.name: i for i, m in enumerate(r.moves)}
        phase_index = {p.name: i for i, p in enumerate(r.phases)}
        self.ruleset_phase_moves = [[self.move_index[m] for m in p.moves] for p in r.phases]
        moves, self.move_parts = [], []
        offset = 0
        for index, move in enumerate(r.moves):
            params = tuple(self.param(p) for p in move.params)
            width = product([p.domain_size for p in params])
            compiled = CompiledMove(
                index,
                move.name,
                offset,
                width,
                params,
                self.segments(move.effects),
                ev.template(move.label) if move.label else None,
                move.is_pass,
                move.hidden,
                self.enumerator(index),
                None,
            )
            moves.append(compiled)
            self.move_parts.append(
                (move, compiled, [ev.items(p.candidates) for p in move.params], self.optional(move.legal))
            )
            offset += width
        phases = tuple(
            CompiledPhase(
                p.name,
                tuple(self.move_index[m] for m in p.moves),
                self.optional(p.first),
                self.optional(p.until),
                self.segments(p.enter),
                self.segments(p.exit),
                phase_index[p.next] if p.next is not None else None,
                self.phase_enumerator(p),
                settle,
                simultaneous=p.simultaneous,
                first_at=where(p.first.span) if p.first is not None else "",
            )
            for p in r.phases
        )
        triggers = tuple(
            CompiledTrigger(
                t.name,
                t.slot,
                ev.cards(t.each) if t.each is not None else None,
                ev.expr(t.when),
                self.segments(t.effects),
            )
            for t in r.triggers
        )
        return Program(
            ruleset=r,
            options=dict(self.options),
            num_players=self.num_players,
            card_names=self.card_names,
            card_deck=tuple(c.deck for c in self.cards),
            attributes=self.attributes,
            suit_names=self.suit_names,
            families=self.families(),
            zone_names=self.zone_names,
            zone_owner=self.zone_owner,
            zone_visibility=self.zone_visibility,
            initial_zones=self.initial_zones,
            variable_offsets=self.variable_offsets,
            initial_variables=self.initial_variables,
            variable_layout=self.variable_layout,
            setup=self.segments(r.setup),
            round_setup=self.segments(r.round_setup),
            round_end=self.segments(r.round_end),
            round_limit=r.round_limit,
            round_limit_effects=self.segments(r.round_limit_effects),
            round_stuck_effects=self.segments(r.round_stuck_effects),
            phases=phases,
            moves=tuple(moves),
            triggers=triggers,
            match_until=ev.expr(r.match_until),
            winners=self.optional(r.winners),
            losers=self.optional(r.losers),
            evaluation=self.optional(r.evaluation),
            results=result_rules(r.results, ev.expr, lambda e: ev.expr(e)(None, [None] * max(1, r.slots))),
            teams=self.teams,
            slots=r.slots + self.flow_slots,
            num_actions=offset,
        )


def settle(st: Any) -> None:
    """After a step: the engine's general path passes the turn and checks what ends.

    (The engine calls a phase's `settle` only after a move's `step`; reference moves have
    none, so their steps go through the agenda, which does the same two tasks.)"""
    st._advance()
    st._check()


def product(sizes) -> int:
    total = 1
    for size in sizes:
        total *= size
    return total
