"""Compile a checked ruleset into a program, once per game setting.

A game setting is a ruleset with its options and number of players fixed. The compiler
lowers the IR (lower.py: typed special cases, options folded as constants), builds the
frozen `Layout` (cards, attribute tables, zone families and slots, variable offsets,
phases, options) and hands it to the code generator, which turns every expression and
effect list into a generated function `f(state, env)` (codegen.py, codegen_moves.py);
nothing parses or walks a tree at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb, prod
from typing import Any

import attrs

from . import ir, pyast, stays
from .codegen import GeneratedSource, free_slots, position
from .codegen_moves import Hooks, MoveCodeGenerator
from .layout import Layout, ZoneFamily
from .lower import lower, seat_slots
from .names import NameAllocator
from .results import ResultRules, result_rules
from .teams import TeamTable, team_table

Fn = Callable[[Any, list], Any]
Effect = Callable[[Any, list], None]

# What an attribute of "no card" (the top of an empty zone) is, by type: totality.
_NEUTRAL = {ir.INT: 0, ir.STR: "", ir.BOOL: False}

__all__ = [
    "CompiledMove",
    "CompiledParam",
    "CompiledPhase",
    "CompiledTrigger",
    "Layout",
    "Program",
    "Segment",
    "ZoneFamily",
    "compile_program",
]


# Whether a move of one phase only has its step and the phase's settle joined into one
# function (the pass `play`); tests turn it off to compare the two ways.
JOIN_STEPS = True


@attrs.frozen
class Segment:
    """Effects to run in one go, then (optionally) a zone to shuffle as chance.

    An effect list with chance inside if/for/repeat is a sequence of segments with jumps
    (effect_flow.py): after `run`, a random choice draws one of `choose`'s values into
    `env[slot]`; or, when `test` gives false, the list goes on at segment `otherwise`;
    else at `next` (-1: the following segment)."""

    run: Effect
    shuffle: Fn | None
    choose: Fn | None = None
    slot: int = 0
    kind: str = ""  # the type of the drawn value, to name the outcomes
    test: Fn | None = None
    otherwise: int = 0
    next: int = -1


@attrs.frozen
class CompiledParam:
    slot: int
    size: int | None
    same: list | None  # attribute table for grouping sets
    domain: tuple | None  # static values (ints, texts, players, suits); None for cards
    domain_size: int
    kind: str  # card, set, subset (a set of variable size), player, suit or value (a number or text from a fixed list)
    at_least: int | None = None  # a subset's fewest cards (its most: `size`)


# The kinds of parameter that make a move chosen in steps (see actions.py).
STEPWISE_KINDS = ("set", "subset")


def id_block(params: tuple[CompiledParam, ...], num_cards: int) -> tuple[bool, int]:
    """(whether a move with these parameters is chosen in steps, how many action ids its block
    takes): a move taken in one id has one per action; a move chosen in steps has as many as
    its widest step (a card or a set's next card: the cards; a set of variable size: the cards
    and "done"; any other parameter: its values)."""
    if not any(p.kind in STEPWISE_KINDS for p in params):
        return False, prod(p.domain_size for p in params)
    widths = [
        num_cards + (p.kind == "subset") if p.kind in ("card", *STEPWISE_KINDS) else p.domain_size for p in params
    ]
    return True, max(widths)


def key_offsets(blocks: list[tuple[bool, int, int]]) -> list[int]:
    """The first key of each move, given (chosen in steps, id block width, key width) in file
    order. A move taken in one id keeps its ids as its keys; the keys of the moves chosen in
    steps (whose complete actions can be far more than their ids) come after every id. So a
    legal action's key below the number of ids is its id, and listing the ids of a decision
    with no choice in steps legal is copying its keys."""
    ids = sum(width for _stepwise, width, _keys in blocks)
    offsets, id_offset, past = [], 0, ids
    for stepwise, width, keys in blocks:
        if stepwise:
            offsets.append(past)
            past += keys
        else:
            offsets.append(id_offset)
        id_offset += width
    return offsets


@attrs.frozen
class CompiledMove:
    index: int
    name: str
    offset: int  # first key (the engine's number of a complete action; see `key_offsets`)
    width: int  # number of keys
    params: tuple[CompiledParam, ...]
    effects: tuple[Segment, ...]
    label: Callable[[Any, list], str] | None
    is_pass: bool
    hidden: bool
    # enumerate(state, player, found) appends the ids of the move's legal actions to the list `found`
    enumerate: Callable[[Any, int, list], None]
    # step(state, key, parameter values, recorded id): what the engine notes of a player's action,
    # the effects and the triggers in one function, when no shuffle (a chance node) can interrupt
    # them; else None and the engine's agenda runs them
    step: Callable[[Any, int, tuple, int], None] | None
    # whether `step` ends with its phase's settle (the move belongs to one phase only): the
    # engine then calls no settle after it
    settled: bool = False


@attrs.frozen
class CompiledTrigger:
    name: str
    slot: int | None
    each: Fn | None
    when: Fn
    effects: tuple[Segment, ...]
    # firings(state, env): the items of `each` whose `when` holds, from the same generated code as
    # the steps' own firing (None: the engine asks `each` and `when` itself)
    firings: Fn | None = None


@attrs.frozen
class CompiledPhase:
    name: str
    moves: tuple[int, ...]
    first: Fn | None
    until: Fn | None
    enter: tuple[Segment, ...]
    exit: tuple[Segment, ...]
    next: int | None
    # enumerate(state, player, found) appends the ids of the phase's legal actions to the list `found`
    enumerate: Callable[[Any, int, list], None]
    # settle(state) after a step in this phase: pass the turn, list the next legal actions (None
    # when every move of the phase with a step settles in it: see CompiledMove.settled)
    settle: Callable[[Any], None] | None
    simultaneous: bool = False  # choices are kept hidden until every active player has chosen (engine.py)
    first_at: str = ""  # the rule-file position of `first`, named when it gives nobody


@attrs.frozen
class Program:
    ruleset: ir.Ruleset
    options: dict[str, object]
    num_players: int
    card_names: tuple[str, ...]
    card_deck: tuple[int, ...]
    attributes: dict[str, list]  # attribute -> per-card table (last entry: no card)
    suit_names: tuple[str, ...]
    families: dict[str, ZoneFamily]
    zone_names: tuple[str, ...]  # one per zone slot
    zone_owner: tuple[int, ...]  # the owning player of each zone slot, or -1
    zone_visibility: tuple[str, ...]
    initial_zones: tuple[tuple[int, ...], ...]
    variable_offsets: dict[str, int]
    initial_variables: tuple
    variable_layout: tuple[tuple[str, bool, str], ...]  # name, per player, type
    setup: tuple[Segment, ...]
    round_setup: tuple[Segment, ...]
    round_end: tuple[Segment, ...]
    round_limit: int | None
    round_limit_effects: tuple[Segment, ...]
    round_stuck_effects: tuple[Segment, ...]
    phases: tuple[CompiledPhase, ...]
    moves: tuple[CompiledMove, ...]
    triggers: tuple[CompiledTrigger, ...]
    match_until: Fn
    winners: Fn | None
    losers: Fn | None
    slots: int
    num_actions: int
    # every generated function with its source (rule-file positions as comments), in order
    source: tuple[GeneratedSource, ...] = ()
    layout: Layout | None = None
    evaluation: Fn | None = None  # match.evaluation: how well `me` fares, for agents
    results: ResultRules | None = None  # numeric returns, a declared sum and bounds, a shared win
    teams: TeamTable | None = None  # the seats of each team (one team per player without `teams`)
    # The flow's expressions (a phase's `first` and `until`, the match's `until`) read no slot of
    # their environment but `me` (slot 0) and write none: the engine passes them `[me]`, not a
    # whole environment (the reference mode's evaluator keeps its own values in the environment).
    flow_reads_me_only: bool = False

    @property
    def num_cards(self) -> int:
        return len(self.card_names)


class Compiler:
    def __init__(self, ruleset: ir.Ruleset, options: dict[str, object], num_players: int, hooks: Hooks | None = None):
        self.original = ruleset
        self.r = lower(ruleset, options)  # the passes over the IR (lower.py)
        self.options = options
        self.n = num_players
        self.names = NameAllocator()
        r = self.r
        self.suit_names = tuple(s.name for s in r.suits)
        self.layout = Layout(
            num_players=num_players,
            options=options,
            suit_names=self.suit_names,
            suit_attributes=tuple(s.attributes for s in r.suits),
            ranks=tuple(r.ranks),
            phase_names=tuple(p.name for p in r.phases),
            seat_slots=seat_slots(r),
            teams=team_table(r.teams, num_players),
        )
        self.codegen = MoveCodeGenerator(self.layout, self.names)
        self.codegen.everyone_stays = not stays.puts_out(r)  # the pass `everyone stays` (codegen.py)
        self.codegen.shows_cards = stays.can_run(r, ir.Reveal)  # the pass `records` (codegen_moves.py)
        self.codegen.chooses_turn = stays.can_run(r, ir.TurnTo)
        self.codegen.phases = tuple(r.phases)  # the pass `entries` (codegen_moves.py)
        self.codegen.hooks = hooks
        self.build_cards()
        self.build_zones()
        self.build_variables()
        self.move_index = {m.name: i for i, m in enumerate(r.moves)}
        self.phase_index = {p.name: i for i, p in enumerate(r.phases)}
        self.flow_slots = 0  # locals the loops of effect lists with jumps need beyond the checker's

    def _extend_layout(self, **changes: Any) -> None:
        """A new frozen layout with more of the game known; the generator sees only layouts."""
        self.layout = attrs.evolve(self.layout, **changes)
        self.codegen.layout = self.layout

    # ---- static layout ---------------------------------------------------------------

    def build_cards(self) -> None:
        r = self.r
        decks, suits, ranks, orders = [], [], [], []
        for deck_index, deck in enumerate(r.decks):
            for _copy in range(deck.copies):
                for suit in deck.suits:
                    for order, rank in enumerate(deck.ranks, start=1):
                        decks.append(deck_index)
                        suits.append(self.suit_names.index(suit))
                        ranks.append(r.ranks.index(rank))
                        orders.append(order)
        count = len(decks)
        attributes: dict[str, list] = {
            "suit": suits + [-1],
            "rank": ranks + [-1],
            "order": orders + [0],
            "id": list(range(count)) + [-1],
        }
        names = [self.default_label(rank=r.ranks[ranks[c]], suit=self.suit_names[suits[c]]) for c in range(count)]
        self._extend_layout(attributes=attributes, card_deck=tuple(decks), card_names=tuple(names))
        suit_table = {s.name: s.attributes for s in r.suits}
        for attribute in r.card_attributes:
            if attribute.expression is None:
                table = [suit_table[self.suit_names[s]].get(attribute.name) for s in suits]
            else:
                fn = self.codegen.card_function(attribute.expression, f"card attribute {attribute.name}")
                table = [fn(card) for card in range(count)]
            attributes[attribute.name] = table + [_NEUTRAL[attribute.type]]
            self._extend_layout(attributes=attributes)
        if r.card_label:
            label = self.codegen.card_function(r.card_label, "card label")
            names = [label(card) for card in range(count)]
        self.card_names = tuple(names)
        self.card_deck = tuple(decks)
        self.attributes = attributes
        self._extend_layout(card_names=self.card_names)

    def default_label(self, rank: str, suit: str) -> str:
        symbol = next((s.attributes.get("symbol") for s in self.r.suits if s.name == suit), None)
        return f"{rank}{symbol}" if symbol else f"{rank} of {suit}"

    def build_zones(self) -> None:
        base = 0
        self.families: dict[str, ZoneFamily] = {}
        names, owners, visibility = [], [], []
        for zone in self.r.zones:
            sizes = tuple(
                self.n if d == "player" else len(self.suit_names) if d == "suit" else int(d) for d in zone.dimensions
            )
            strides = []
            stride = 1
            for size in reversed(sizes):
                strides.append(stride)
                stride *= size
            family = ZoneFamily(
                zone.name, base, tuple(reversed(strides)), sizes, zone.dimensions, zone.visibility, zone.sorted_by
            )
            self.families[zone.name] = family
            for flat in range(family.count):
                index = []
                rest = flat
                for s in family.strides:
                    index.append(rest // s)
                    rest %= s
                shown = []
                for dim, i in zip(zone.dimensions, index):
                    shown.append(
                        f"P{i + 1}" if dim == "player" else self.suit_names[i] if dim == "suit" else str(i + 1)
                    )
                names.append(zone.name + (f"[{', '.join(shown)}]" if shown else ""))
                owners.append(index[0] if zone.dimensions and zone.dimensions[0] == "player" else -1)
                visibility.append(zone.visibility)
            base += family.count
        self.zone_names = tuple(names)
        self.zone_owner = tuple(owners)
        self.zone_visibility = tuple(visibility)
        initial: list[list[int]] = [[] for _ in range(base)]
        card = 0
        for deck in self.r.decks:
            deck_size = deck.copies * len(deck.suits) * len(deck.ranks)
            initial[self.families[deck.zone].base].extend(range(card, card + deck_size))
            card += deck_size
        self.initial_zones = tuple(tuple(z) for z in initial)
        sorted_tables = {
            f.base + i: self.attributes[f.sorted_by]
            for f in self.families.values()
            if f.sorted_by
            for i in range(f.count)
        }
        self._extend_layout(families=self.families, sorted_tables=sorted_tables)

    def build_variables(self) -> None:
        offsets: dict[str, int] = {}
        values: list[object] = []
        layout = []
        for variable in self.r.variables:
            offsets[variable.name] = len(values)
            value = self.expr(variable.default, f"default of variable {variable.name}")(None, [None] * 2)
            values.extend([value] * (self.n if variable.per_player else 1))
            layout.append((variable.name, variable.per_player, variable.type))
        self.variable_offsets = offsets
        self.initial_variables = tuple(values)
        self.variable_layout = tuple(layout)
        self._extend_layout(variable_offsets=offsets)

    # ---- the program -----------------------------------------------------------------

    def program(self) -> Program:
        r = self.r
        moves = []
        # Steps run as one function unless a shuffle in a trigger can interrupt them.
        triggers_plain = not any(ir.has_chance(t.effects) for t in r.triggers)
        # a move of one phase only is settled by that phase's settle: its step may end with that
        # settle (the pass `play`); it is made with the phase's functions below
        in_phases = [name for p in r.phases for name in p.moves]
        own_moves = frozenset(name for name in in_phases if in_phases.count(name) == 1 and JOIN_STEPS)
        phase_of = {name: index for index, p in enumerate(r.phases) for name in p.moves}
        all_params = [tuple(self.param(p) for p in move.params) for move in r.moves]
        widths = [prod(p.domain_size for p in params) for params in all_params]
        blocks = [(*id_block(params, len(self.card_names)), width) for params, width in zip(all_params, widths)]
        for index, (move, params, width, offset) in enumerate(zip(r.moves, all_params, widths, key_offsets(blocks))):
            plain = triggers_plain and not ir.has_chance(move.effects)
            step = None
            if plain and move.name in own_moves:
                self.codegen.step_statements(move, r.triggers, phase_of[move.name])
            elif plain:
                step = self.codegen.step(move, r.triggers)
            moves.append(
                CompiledMove(
                    index,
                    move.name,
                    offset,
                    width,
                    params,
                    self.segments(move.effects, f"effects of move {move.name}"),
                    self.codegen.template(move.label, f"label of move {move.name} {position(move.span)}")
                    if move.label
                    else None,
                    move.is_pass,
                    move.hidden,
                    self.codegen.enumerator(move, params, offset),
                    step,
                )
            )
        phases = []
        for phase in r.phases:
            enumerate_, settle, steps = self.codegen.phase_functions(
                phase, self.phase_moves(phase, moves), r.round_limit, own_moves
            )
            for name, (step, settled) in steps.items():
                index = self.move_index[name]
                moves[index] = attrs.evolve(moves[index], step=step, settled=settled)
            phases.append(
                CompiledPhase(
                    phase.name,
                    tuple(self.move_index[m] for m in phase.moves),
                    self.expr(phase.first, f"first of phase {phase.name}") if phase.first is not None else None,
                    self.expr(phase.until, f"until of phase {phase.name}") if phase.until is not None else None,
                    self.segments(phase.enter, f"enter of phase {phase.name}"),
                    self.segments(phase.exit, f"exit of phase {phase.name}"),
                    self.phase_index[phase.next] if phase.next is not None else None,
                    enumerate_,
                    settle,
                    simultaneous=phase.simultaneous,
                    first_at=position(phase.first.span) if phase.first is not None else "",
                )
            )
        self.codegen.entry_functions(lambda phase: self.phase_moves(phase, moves))
        triggers = tuple(
            CompiledTrigger(
                t.name,
                t.slot,
                self.card_list(t.each, f"for of trigger {t.name}") if t.each is not None else None,
                self.expr(t.when, f"when of trigger {t.name}"),
                self.segments(t.effects, f"effects of trigger {t.name}"),
                self.codegen.firings_function(t) if t.each is not None else None,
            )
            for t in r.triggers
        )
        setup = self.segments(r.setup, "setup")
        round_setup = self.segments(r.round_setup, "round setup")
        round_end = self.segments(r.round_end, "round end")
        limit_effects = self.segments(r.round_limit_effects, "round limit")
        stuck_effects = self.segments(r.round_stuck_effects, "round stuck")
        match_until = self.expr(r.match_until, "match until")
        flow_expressions = [r.match_until, *(e for p in r.phases for e in (p.first, p.until) if e is not None)]
        winners = self.expr(r.winners, "match winners") if r.winners is not None else None
        losers = self.expr(r.losers, "match losers") if r.losers is not None else None
        evaluation = self.expr(r.evaluation, "match evaluation") if r.evaluation is not None else None
        results = result_rules(
            r.results,
            lambda e: self.expr(e, "match returns"),
            lambda e: self.expr(e, "match result declaration")(None, [None] * 2),
        )
        return Program(
            ruleset=self.original,
            options=dict(self.options),
            num_players=self.n,
            card_names=self.card_names,
            card_deck=self.card_deck,
            attributes=self.attributes,
            suit_names=self.suit_names,
            families=self.families,
            zone_names=self.zone_names,
            zone_owner=self.zone_owner,
            zone_visibility=self.zone_visibility,
            initial_zones=self.initial_zones,
            variable_offsets=self.variable_offsets,
            initial_variables=self.initial_variables,
            variable_layout=self.variable_layout,
            setup=setup,
            round_setup=round_setup,
            round_end=round_end,
            round_limit=r.round_limit,
            round_limit_effects=limit_effects,
            round_stuck_effects=stuck_effects,
            phases=tuple(phases),
            moves=tuple(moves),
            triggers=triggers,
            match_until=match_until,
            winners=winners,
            losers=losers,
            evaluation=evaluation,
            results=results,
            teams=self.layout.teams,
            slots=r.slots + self.flow_slots,
            num_actions=max((m.offset + m.width for m in moves), default=0),
            source=tuple(self.codegen.sources),
            layout=self.layout,
            flow_reads_me_only=all(free_slots(e) <= {0} for e in flow_expressions),
        )

    def phase_moves(self, phase: ir.Phase, moves: list[CompiledMove]) -> list[tuple[ir.MoveDef, CompiledMove]]:
        return [(self.r.moves[self.move_index[m]], moves[self.move_index[m]]) for m in phase.moves]

    def param(self, p: ir.Param) -> CompiledParam:
        if p.size is not None:
            same = self.attributes[p.same] if p.same else None
            if p.at_least is not None:  # any number of cards: keyed by a bit per card
                return CompiledParam(p.slot, p.size, same, None, 2 ** len(self.card_names), "subset", p.at_least)
            return CompiledParam(p.slot, p.size, same, None, comb(len(self.card_names), p.size), "set")
        if p.type == ir.CARD:
            return CompiledParam(p.slot, None, None, None, len(self.card_names), "card")
        if p.type == ir.PLAYER:
            return CompiledParam(p.slot, None, None, tuple(range(self.n)), self.n, "player")
        if p.type == ir.SUIT:
            domain = tuple(range(len(self.suit_names)))
            return CompiledParam(p.slot, None, None, domain, len(domain), "suit")
        # static: checked before
        domain = tuple(dict.fromkeys(self.expr(p.candidates, f"candidates of {p.name}")(None, [None])))
        return CompiledParam(p.slot, None, None, domain, max(1, len(domain)), "value")

    # ---- statements ------------------------------------------------------------------

    def segments(self, statements: tuple[ir.Stmt, ...], what: str = "effects") -> tuple[Segment, ...]:
        """Split an effect list at its top-level shuffles (each shuffle is a chance node); a
        list with chance inside blocks, random choices or repeats becomes segments with jumps."""
        from .effect_flow import Flattener, needs_flow  # it builds this module's Segments

        if needs_flow(statements):
            flow = Flattener(
                lambda plain: self.effects(plain, what),
                lambda e: self.expr(e, f"{what}"),
                lambda e: self.card_list(e, f"{what}"),
                self.r.slots,
            )
            made = flow.segments(statements)
            self.flow_slots = max(self.flow_slots, flow.extra)
            return made
        out: list[Segment] = []
        pending: list[ir.Stmt] = []
        for statement in statements:
            if isinstance(statement, ir.Shuffle):
                out.append(Segment(self.effects(pending, what), self.expr(statement.zone, f"shuffle in {what}")))
                pending = []
            else:
                pending.append(statement)
        if pending or not out:
            out.append(Segment(self.effects(pending, what), None))
        return tuple(out)

    def effects(self, statements: list[ir.Stmt], what: str = "effects") -> Effect:
        if not statements:
            return no_effects
        first = statements[0].span
        return self.codegen.effects(tuple(statements), f"{what} {first.file}:{first.line}:{first.column}")

    def card_list(self, e: ir.Expr, what: str) -> Fn:
        """A function giving a fresh list of cards for a card, card list or zone."""
        fn = self.expr(e, what)
        if e.type == ir.CARD:
            return lambda st, env: [fn(st, env)]
        if e.type == ir.ZONE:
            return lambda st, env: list(st.zones[fn(st, env)])
        return lambda st, env: list(fn(st, env))

    # ---- expressions -----------------------------------------------------------------

    def expr(self, e: ir.Expr, what: str = "expression") -> Fn:
        return self.codegen.function(e, what)


def no_effects(st, env) -> None:
    return None


def compile_program(
    ruleset: ir.Ruleset,
    options: dict[str, object],
    num_players: int,
    optimize: bool = True,
    hooks: Hooks | None = None,
) -> Program:
    """The program of one game setting; `optimize=False` gives the reference mode's (reference.py).
    With `hooks`, the generated code calls them (see `Hooks`; the reference mode has none)."""
    if not optimize:
        from .reference import compile_reference  # the oracle shares no code with this module's compiler

        return compile_reference(ruleset, options, num_players)
    return Compiler(ruleset, options, num_players, hooks).program()


def listing(program: Program) -> str:
    """The generated module of a program as one text: every function with the rule-file
    positions it comes from as comments (what `rulesengine compile` prints)."""
    options = ", ".join(f"{k}={v!r}" for k, v in sorted(program.options.items())) or "none"
    lines = [
        "# "
        + pyast.comment_text(
            f"{program.ruleset.name} ({program.ruleset.file}), {program.num_players} players, options: {options}"
        ),
        f"# {len(program.source)} generated functions",
        "",
    ]
    if not program.source:
        lines.append("# no generated source: the reference mode (--no-optimize) evaluates the checked rules directly")
    for function in program.source:
        lines.append(function.source)
    return "\n".join(lines)
