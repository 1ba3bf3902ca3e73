"""Whole-file checks that need every section read: sizes of decks and zones, deals that
need more cards than there are, unreachable phases, moves that are never legal or ask
themselves, too many parameter values, and names defined but never used.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import ir
from .check_base import CheckerBase
from .check_cost import Costs, GameSize, Part, add, hottest_statement, mul
from .check_cost import expressions_of as _statement_expressions
from .check_fold import UNKNOWN, TooLarge, fold, interval, names_in, option_values, walk
from .diagnostics import did_you_mean
from .limits import (
    MAX_ACTIONS,
    MAX_CARDS,
    MAX_DECISION_COST,
    MAX_PLAYERS,
    MAX_RANGE,
    MAX_VALUE_CHOICES,
    MAX_ZONE_SLOTS,
)
from .parse import ParseFailed, parse_expression
from .source import Map, Scalar


class FileLints(CheckerBase):
    """Checks across sections, run once every section is read."""

    def folded(self, expr: ir.Expr, options: dict[str, object], players: int | None) -> object:
        """`fold`, reporting a value beyond the integer bound where it is computed."""
        try:
            return fold(expr, options, players)
        except TooLarge as large:
            self.too_large(large)
            return UNKNOWN

    def check_card_count(self) -> None:
        """Copies must be positive and all decks together small enough to build."""
        section = self.mapping("decks")
        for name, spec in section.items() if section is not None else ():
            copies = spec.get("copies") if isinstance(spec, Map) else None
            if isinstance(copies, Scalar) and type(copies.value) is int and copies.value < 1:
                self.error("RE237", f"deck '{name}' must have at least 1 copy, not {copies.value}", copies.span)
        total = sum(self.deck_cards(d) for d in self.decks)
        if total > MAX_CARDS and section is not None:
            self.error(
                "RE237",
                f"the decks hold {total} cards; a rule file may use at most {MAX_CARDS}",
                self.doc.key_spans.get("decks", section.span),
                hint="fewer suits, ranks or copies",
            )

    def deck_cards(self, deck: ir.Deck) -> int:
        return len(deck.suits) * len(deck.ranks) * max(deck.copies, 1)  # copies < 1 is reported apart

    def check_zone_count(self, max_players: int) -> None:
        """Zones spelt out per player, suit and count must stay a manageable number."""
        total = 0
        for zone in self.zones.values():
            count = 1
            for dimension in zone.dimensions:
                if dimension == "player":
                    count *= max_players
                elif dimension == "suit":
                    count *= len(self.suits)
                elif isinstance(dimension, int):
                    count *= dimension
            total += count
            if total > MAX_ZONE_SLOTS:
                self.error(
                    "RE238",
                    f"the zones come to more than {MAX_ZONE_SLOTS} piles with {max_players} players",
                    zone.span,
                    hint="use fewer or smaller counts in 'per'",
                )
                return

    def check_sorted_by(self) -> None:
        """'sorted_by' must name a card attribute (compiling it needs the attribute's table)."""
        known = ("suit", "rank", "order", "id", *self.card_attrs)
        section = self.mapping("zones")
        for zone in self.zones.values():
            if zone.sorted_by is None or zone.sorted_by in known:
                continue
            spec = section.get(zone.name) if section is not None else None
            where = self.at(spec, "sorted_by") if isinstance(spec, Map) and "sorted_by" in spec else zone.span
            self.error(
                "RE230",
                f"unknown card attribute '{zone.sorted_by}'",
                where,
                hint=did_you_mean(zone.sorted_by, known) or f"card attributes: {', '.join(known)}",
            )

    def check_reachable(self, phases: tuple[ir.Phase, ...]) -> None:
        """Warn of phases that neither the first phase's chain of 'next' nor a 'goto' leads to."""
        section = self.mapping("phases")
        if not phases or section is None:
            return
        by_name = {p.name: p for p in phases}
        waiting = [phases[0].name, *self.goto_targets]
        reached: set[str] = set()
        while waiting:
            name = waiting.pop()
            if name in reached or name not in by_name:
                continue
            reached.add(name)
            following = by_name[name].next
            if following is not None:
                waiting.append(following)
        for phase in phases:
            if phase.name not in reached:
                self.warn(
                    "RE224",
                    f"phase '{phase.name}' can never be reached",
                    section.key_spans[phase.name],
                    hint="no reachable phase leads to it with 'next' and no effect says 'goto'",
                )

    def check_deals(self, effect_lists: Iterable[tuple[ir.Stmt, ...]], min_players: int, max_players: int) -> None:
        """Error when the 'deal N of Z' effects of a setup need more cards than zone Z can ever hold."""
        if self.decks_misread or any(p.code in ("RE212", "RE213", "RE218", "RE219", "RE237") for p in self.problems):
            return  # the decks themselves are wrong; counting their cards would only repeat that
        reported: set[int] = set()
        for players in range(min(max_players, MAX_PLAYERS), min_players - 1, -1):  # the largest count first
            for statements in effect_lists:
                dealt: dict[str, int] = {}  # cards dealt so far from each zone in this effect list
                for statement in statements:
                    if isinstance(statement, ir.Move) and isinstance(statement.destination, ir.ZoneRef):
                        dealt.pop(statement.destination.zone, None)  # cards put back: count afresh
                    if id(statement) in reported or not self.static_deal(statement):
                        continue
                    assert isinstance(statement, ir.Deal) and statement.count is not None  # as static_deal says
                    assert isinstance(statement.source, ir.ZoneRef)
                    each = self.folded(statement.count, self.default_options(), players)
                    if not isinstance(each, int) or isinstance(each, bool) or each < 0:
                        continue
                    zone = statement.source.zone
                    before = dealt.get(zone, 0)
                    dealt[zone] = before + each * players
                    if dealt[zone] > self.zone_capacity(zone):
                        reported.add(id(statement))
                        self.deck_too_small(statement, zone, each, players, before)

    def check_empty_deals(self) -> None:
        """Warn of a 'deal N' whose count the file itself fixes (no option, no state) below 1:
        it deals no card, which is never what a deal is written for (a sign slipped in, say)."""
        warned: set[int] = set()
        for statement in self.statements_seen:  # a procedure's deal, spelt out at each call, is warned of once
            if not isinstance(statement, ir.Deal) or statement.count is None or id(statement.count) in warned:
                continue
            each = self.folded(statement.count, {}, None)
            if type(each) is int and each < 1:
                warned.add(id(statement.count))
                self.warn(
                    "RE276",
                    f"this deal deals no card: {each} each (a count below 1 deals nothing)",
                    statement.count.span,
                    hint="deal at least 1 card each, 'deal all', or leave the deal out",
                )

    @staticmethod
    def static_deal(statement: ir.Stmt) -> bool:
        """A 'deal N of Z' from a single shared zone, the kind whose needs can be counted."""
        return (
            isinstance(statement, ir.Deal)
            and statement.count is not None
            and isinstance(statement.source, ir.ZoneRef)
            and not statement.source.indices
        )

    def deck_too_small(self, deal: ir.Deal, zone: str, each: int, players: int, before: int) -> None:
        earlier = f" after {before} dealt before it" if before else ""
        self.error(
            "RE236",
            f"the deck is too small: dealing {each} to each of {players} players takes {each * players} cards"
            f"{earlier}, but '{zone}' can hold only {self.zone_capacity(zone)}",
            (deal.count or deal.source).span,
            hint="deal fewer cards, lower players.max, or add cards (more ranks, suits or copies)",
        )

    def default_options(self) -> dict[str, object]:
        return {name: option.default for name, option in self.options.items()}

    def zone_capacity(self, zone: str) -> int:
        """How many cards a shared zone can hold: its decks', or every card if any effect moves cards in."""
        moved_in = zone in self.zones_moved_into()
        # a deck whose own zone is unknown (reported apart) might have been meant for this one
        decks = self.decks if moved_in else [d for d in self.decks if d.zone == zone or d.zone not in self.zones]
        return sum(self.deck_cards(d) for d in decks)

    def zones_moved_into(self) -> set[str]:
        """Zones some 'move' effect puts cards into (computed once: every effect is read by now)."""
        if self._moved_into is None:
            self._moved_into = {
                s.destination.zone
                for s in self.statements_seen
                if isinstance(s, ir.Move) and isinstance(s.destination, ir.ZoneRef)
            }
        return self._moved_into

    def check_never_legal(self, moves: tuple[ir.MoveDef, ...]) -> None:
        """Warn of a move whose legality is false for every value of the options it reads."""
        section = self.mapping("moves")
        for move in moves:
            spec = section.get(move.name) if section is not None else None
            if not isinstance(spec, Map):
                continue
            empty = next(
                (p for p in move.params if isinstance(p.candidates, ir.ListExpr) and not p.candidates.items), None
            )
            if empty is not None:
                self.warn(
                    "RE226",
                    f"move '{move.name}' can never be legal: parameter '{empty.name}' has no candidates",
                    self.at(spec, "params") if "params" in spec else move.span,
                )
                continue
            if move.legal is None or (isinstance(move.legal, ir.Const) and move.legal.value is False):
                continue  # the plain 'false' case is reported where the move is read
            settings = self.option_settings(move.legal)
            if settings and all(self.folded(move.legal, values, None) is False for values in settings):
                read = sorted({e.name for e in walk(move.legal) if isinstance(e, ir.OptionRef)})
                why = f"false for every value of {', '.join(read)}" if read else "always false"
                self.warn(
                    "RE226",
                    f"move '{move.name}' can never be legal: its 'legal' is {why}",
                    self.at(spec, "legal"),
                    hint="an option takes the values of its choices, true and false, or min..max",
                )

    def check_hidden_announced(self, moves: tuple[ir.MoveDef, ...]) -> None:
        """Warn of a hidden move whose `log` names its parameters: a log line is an announcement
        every player reads, so the values the move hides would be shown to all."""
        for move in moves:
            if not move.hidden:
                continue
            params = {p.slot: p.name for p in move.params}
            for statement in ir.nested(move.effects):
                if not isinstance(statement, ir.Log):
                    continue
                named = sorted(
                    {
                        params[e.slot]
                        for part in statement.parts
                        if not isinstance(part, str)
                        for e in walk(part)
                        if isinstance(e, ir.Local) and e.slot in params
                    }
                )
                if named:
                    self.warn(
                        "RE273",
                        f"hidden move '{move.name}' logs its {', '.join(named)}: a log line is read by every "
                        "player, so what the move hides is shown to all",
                        statement.span,
                        hint="log the move without them, or make it not hidden if they are meant to be seen",
                    )

    def check_circular_legality(self, moves: tuple[ir.MoveDef, ...]) -> None:
        """'can_move' lists every legal move, so inside a move's own test it would ask itself forever."""
        for move in moves:
            tests = [move.legal, *(p.candidates for p in move.params)]
            for test in (t for t in tests if t is not None):
                call = next((e for e in walk(test) if isinstance(e, ir.Call) and e.function == "can_move"), None)
                if call is not None:
                    self.error(
                        "RE321",
                        f"move '{move.name}' uses can_move(...) to decide whether it is legal, which asks it again",
                        call.span,
                        hint="test the cards or zones directly, e.g. hand[me].any(c, c.rank >= top(pile).rank)",
                    )
                    break

    def option_settings(self, expr: ir.Expr) -> list[dict[str, object]]:
        """Every combination of values of the options `expr` reads; [] if one has too many."""
        names = sorted({e.name for e in walk(expr) if isinstance(e, ir.OptionRef)})
        settings: list[dict[str, object]] = [self.default_options()]
        for name in names:
            values = option_values(self.options[name])
            if values is None or len(settings) * len(values) > 256:
                return []
            settings = [{**s, name: v} for s in settings for v in values]
        return settings

    def check_value_choices(self, moves: tuple[ir.MoveDef, ...], max_players: int) -> None:
        """Error when a move's number, text, player and suit parameters combine into too many actions."""
        for move in moves:
            combinations = 1
            for param in move.params:
                combinations *= self.domain_size(param, max_players)
            if combinations > MAX_VALUE_CHOICES:
                self.error(
                    "RE239",
                    f"move '{move.name}' has {combinations} combinations of parameter values; "
                    f"at most {MAX_VALUE_CHOICES}",
                    move.span,
                    hint="use fewer or smaller ranges; choose cards with card parameters instead",
                )

    def domain_size(self, param: ir.Param, max_players: int) -> int:
        if param.size is not None or param.type == ir.CARD:
            return 1  # bounded at run time by the cards in the candidate zone
        if param.type == ir.PLAYER:
            return max_players
        if param.type == ir.SUIT:
            return max(1, len(self.suits))
        candidates = param.candidates
        if isinstance(candidates, ir.ListExpr):
            return max(1, len(candidates.items))
        if isinstance(candidates, ir.Call) and candidates.function == "range":
            folded = [self.folded(a, self.default_options(), max_players) for a in candidates.args]
            bounds = [b for b in folded if isinstance(b, int) and not isinstance(b, bool)]
            if len(bounds) == len(folded):
                low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
                return max(1, min(high - low, MAX_RANGE))
        return 1

    def report_unused(self, moves: tuple[ir.MoveDef, ...]) -> None:
        self.mark_names_in_used_definitions()
        for kind, names in (("variable", self.variables), ("zone", self.zones), ("option", self.options)):
            for name in names:
                if name not in self.used:
                    section = self.mapping(kind + "s" if kind != "option" else "options")
                    span = (
                        section.key_spans[name] if section is not None and name in section.key_spans else self.doc.span
                    )
                    self.warn("RE240", f"{kind} '{name}' is defined but never used", span)
        heads = self.mapping("define")
        written = {k.split("(")[0].strip(): s for k, s in reversed(heads.key_spans.items())} if heads else {}
        for name, (_, node) in self.definitions.items():
            if name not in self.used:
                # point at the name as written ('name' or 'name(a, b)'), where it is defined
                span = written.get(name, node.span)
                self.warn("RE240", f"definition '{name}' is defined but never used", span)

    def mark_names_in_used_definitions(self) -> None:
        """A name written in the body of a used definition is used, even where checking stopped early.

        Bodies of unused definitions are never expanded, so their syntax is checked here.
        """
        bodies: dict[str, set[str]] = {}
        for name, (_, node) in self.definitions.items():
            try:
                bodies[name] = names_in(parse_expression(node))
            except ParseFailed as failure:
                bodies[name] = set()
                if name not in self.used:
                    self.problems.append(failure.diagnostic)
        waiting = [name for name in self.definitions if name in self.used]
        while waiting:
            for name in bodies[waiting.pop()]:
                if name in self.definitions and name not in self.used:
                    waiting.append(name)
                if name in self.definitions or name in self.variables or name in self.zones or name in self.options:
                    self.used.add(name)

    # ---- static cost -------------------------------------------------------------------

    def check_costs(self, ruleset: ir.Ruleset) -> int:
        """Bound each move's actions (RE249) and the work of one decision (RE248) before anything
        runs; the static bound of one round's own work (`ir.Ruleset.round_cost`)."""
        game = GameSize.of(self.decks, list(self.suits), self.ranks, ruleset.max_players)
        costs = Costs(game, lambda call: self.range_length(call, ruleset))
        costs.set_sizes = {p.slot: p.size for move in ruleset.moves for p in move.params if p.size is not None}
        by_name = {move.name: move for move in ruleset.moves}
        counts = {move.name: self.action_counts(move, costs, ruleset.max_players) for move in ruleset.moves}
        for move in ruleset.moves:
            if mul(*counts[move.name]) <= MAX_ACTIONS:  # else reported as too many actions already
                self.check_action_ids(move, costs, ruleset)
        # a move with too many actions is reported as such (RE249), not again as too costly
        listing = {
            move.name: costs.enumeration(move, counts[move.name]) if mul(*counts[move.name]) <= MAX_ACTIONS else 0
            for move in ruleset.moves
        }
        phase_listing = [sum(listing.get(m, 0) for m in phase.moves) for phase in ruleset.phases]
        costs.can_move_cost = max(phase_listing, default=0)
        for phase in ruleset.phases:
            moves = [by_name[m] for m in dict.fromkeys(phase.moves) if m in by_name]
            parts = [
                Part(
                    listing[m.name],
                    m.legal.span if m.legal is not None else m.span,
                    f"listing the actions of move '{m.name}'",
                    m.legal,
                )
                for m in moves
            ]
            if moves:
                heaviest = max(moves, key=lambda m: costs.statements(m.effects))
                parts.append(
                    Part(
                        costs.statements(heaviest.effects),
                        heaviest.span,
                        f"the effects of move '{heaviest.name}'",
                        None,
                        heaviest.effects,
                    )
                )
            for trigger in ruleset.triggers:
                each = costs.length(trigger.each) if trigger.each is not None else 1
                when = mul(each, add(costs.cost(trigger.when), costs.statements(trigger.effects)))
                parts.append(Part(when, trigger.when.span, f"trigger '{trigger.name}'", trigger.when, trigger.effects))
            parts += [Part(costs.cost(e), e.span, f"phase '{phase.name}'", e) for e in (phase.until, phase.first) if e]
            self.report_cost(costs, parts, f"one decision in phase '{phase.name}'")
        round_cost = 1  # however little a round does, it is a round
        for what, statements, each_round in (
            ("the setup", ruleset.setup, False),  # once a match
            ("the round setup", ruleset.round_setup, True),
            ("the round end", ruleset.round_end, True),
            ("round.limit.effects", ruleset.round_limit_effects, True),
            ("round.stuck", ruleset.round_stuck_effects, True),
            *((f"entering phase '{p.name}'", p.enter, True) for p in ruleset.phases),
            *((f"leaving phase '{p.name}'", p.exit, True) for p in ruleset.phases),
        ):
            if statements:
                cost = costs.statements(statements)
                self.report_cost(costs, [Part(cost, statements[0].span, what, None, statements)], what)
                if each_round:
                    round_cost = add(round_cost, cost)
        for what, expr, each_round in (
            ("match.until", ruleset.match_until, True),  # tested after every round
            ("match.winners", ruleset.winners, False),
            ("match.losers", ruleset.losers, False),
        ):
            if expr is not None:
                cost = costs.cost(expr)
                self.report_cost(costs, [Part(cost, expr.span, what, expr)], what)
                if each_round:
                    round_cost = add(round_cost, cost)
        for phase in ruleset.phases:  # tested (`until`) and entered (`first`) at least once a round
            round_cost = add(round_cost, *(costs.cost(e) for e in (phase.until, phase.first) if e is not None))
        returns = ruleset.results.returns if ruleset.results is not None else None
        if returns is not None:  # evaluated once for each player
            cost = mul(costs.game.players, costs.cost(returns))
            self.report_cost(costs, [Part(cost, returns.span, "match.returns", returns)], "match.returns")
        return round_cost

    def report_cost(self, costs: Costs, parts: list[Part], what: str) -> None:
        total = add(0, *(p.cost for p in parts))
        if total <= MAX_DECISION_COST:
            return
        worst = max(parts, key=lambda p: p.cost)
        span = worst.span
        if worst.expr is not None:  # the expression evaluated (maybe many times) in this part
            span = costs.hottest(worst.expr).span
        elif worst.statements:
            span = hottest_statement(costs, worst.statements) or span
        share = "" if len(parts) == 1 else f" ({worst.what} alone: {_figure(worst.cost)})"
        self.error(
            "RE248",
            f"{what} may take up to {_figure(total)} steps{share}; at most {_figure(MAX_DECISION_COST)}",
            span,
            hint="every zone counts as holding all the cards and nested list functions multiply: "
            "filter the candidates, or use fewer nested any/all/count over zones and ranges",
        )

    def action_counts(self, move: ir.MoveDef, costs: Costs, max_players: int) -> list[int]:
        """How many values each parameter can take; reports a move with too many actions (RE249)."""
        counts = [costs.choices(p, lambda p: self.domain_size(p, max_players)) for p in move.params]
        actions = mul(*counts)
        chooses_cards = any(p.size is not None or p.type == ir.CARD for p in move.params)
        # A move with a set parameter is chosen in steps (actions.py), so its ids are few, but every
        # complete action is still listed at each decision: the bound is on those.
        if chooses_cards and actions > MAX_ACTIONS:
            widest = max(range(len(counts)), key=counts.__getitem__)
            param = move.params[widest]
            how = f"C({costs.length(param.candidates)}, {param.size})" if param.size is not None else "cards"
            if param.at_least is not None:
                how = f"sets of {param.at_least} to {param.size} of {costs.length(param.candidates)} cards"
            self.error(
                "RE249",
                f"move '{move.name}' can have up to {_figure(actions)} actions ({_figure(counts[widest])} for "
                f"'{param.name}', {how}); at most {_figure(MAX_ACTIONS)}",
                param.candidates.span,
                hint="choose fewer cards at once, require 'same', or take the candidates from a smaller zone",
            )
        return counts

    def check_action_ids(self, move: ir.MoveDef, costs: Costs, ruleset: ir.Ruleset) -> None:
        """Bound the action ids a move's encoding needs (actions.py, compile.id_block), before
        anything is built: a move taken in one id has one id per combination of its parameters'
        id blocks, and a card parameter's block is every card of the game, however few its
        candidates (a move chosen in steps needs only its widest step's block)."""
        ids = self.action_ids(move, costs, ruleset)
        if ids <= MAX_ACTIONS:
            return
        cards = [p for p in move.params if p.size is None and p.type == ir.CARD]
        why = f"one per combination of its parameters' id blocks, a card parameter's: every card, {costs.game.cards}"
        if not cards:
            why = "one per combination of its parameters' values"
        self.error(
            "RE249",
            f"move '{move.name}' needs {_figure(ids)} action ids ({why}); at most {_figure(MAX_ACTIONS)}",
            move.span,
            hint="a move taken in one id numbers every combination of its parameters: "
            "use fewer card parameters, or choose several cards as one set parameter",
        )

    def action_ids(self, move: ir.MoveDef, costs: Costs, ruleset: ir.Ruleset) -> int:
        """The most action ids a move's block can take, in any game setting."""
        widths = [self.id_width(p, costs, ruleset) for p in move.params]
        if any(p.size is not None for p in move.params):
            return max(widths)  # chosen in steps: as wide as its widest step
        return mul(*widths)

    def id_width(self, param: ir.Param, costs: Costs, ruleset: ir.Ruleset) -> int:
        """The ids of a parameter's block: every card for a card or a set's next card (and "done"),
        else its values (a range at its widest over the options)."""
        if param.size is not None or param.type == ir.CARD:
            return costs.game.cards + (param.at_least is not None)
        if param.type == ir.PLAYER:
            return ruleset.max_players
        if param.type == ir.SUIT:
            return max(1, len(self.suits))
        candidates = param.candidates
        if isinstance(candidates, ir.Call) and candidates.function == "range":
            return max(1, self.range_length(candidates, ruleset))
        return self.domain_size(param, ruleset.max_players)

    def range_length(self, call: ir.Call | None, ruleset: ir.Ruleset) -> int:
        """The most elements a range() call can have, over every value of the options and
        player counts it reads (limits.MAX_RANGE when they are not bounded)."""
        if call is None:
            return MAX_RANGE
        players = (ruleset.min_players, ruleset.max_players)
        bounds = [interval(a, self.options, players) for a in call.args]
        if any(b is None for b in bounds):
            return MAX_RANGE
        known = [b for b in bounds if b is not None]
        low, high = (0, known[0][1]) if len(known) == 1 else (known[0][0], known[1][1])
        return min(max(high - low, 0), MAX_RANGE)

    # ---- nobody and no card ------------------------------------------------------------

    def check_certainly_nobody(self, ruleset: ir.Ruleset) -> None:
        """Warn where a player that is certainly nobody picks a pile, a value or a seat: the
        match would stop there with an error (docs/language.md, "No card, nobody")."""
        assigned = {s.variable for s in self.statements_seen if isinstance(s, ir.Assign)}
        absent = _Absence({v.name for v in ruleset.variables if v.name not in assigned and _is_absent_const(v.default)})
        sites: list[tuple[ir.Expr, str]] = []
        for expr in _expressions_of_ruleset(ruleset, self.statements_seen):
            for node in walk(expr):
                if isinstance(node, ir.ZoneRef):
                    dims = self.zones[node.zone].dimensions if node.zone in self.zones else ()
                    sites += [
                        (i, f"indexing zone '{node.zone}' with it") for d, i in zip(dims, node.indices) if d == "player"
                    ]
                elif isinstance(node, ir.VarRef) and node.indices:
                    sites.append((node.indices[0], f"indexing variable '{node.variable}' with it"))
                elif isinstance(node, ir.Call) and node.function in _TAKES_A_SEAT:
                    sites.append((node.args[0], f"{node.function}() of it"))
        for s in self.statements_seen:
            if isinstance(s, ir.Assign) and s.indices:
                sites.append((s.indices[0], f"setting variable '{s.variable}' of it"))
            for player, what in ((getattr(s, "player", None), type(s).__name__), (getattr(s, "start", None), "deal")):
                if isinstance(player, ir.Expr) and player.type == ir.PLAYER:
                    sites.append((player, _SEAT_STATEMENTS.get(what, what)))
        for index, what in sites:
            if index.type == ir.PLAYER and absent(index):
                self.warn(
                    "RE244",
                    f"this player is always nobody; {what} stops the match with an error",
                    index.span,
                    hint="nobody holds the card or no value is ever set: test first, e.g. 'if x != holder(...)'",
                )


_SEAT_STATEMENTS = {"TurnTo": "'turn to' it", "Out": "'out' it", "Reveal": "revealing to it", "deal": "dealing from it"}
_TAKES_A_SEAT = ("left", "right", "next", "opponent", "others", "is_active", "can_move")


def _is_absent_const(expr: ir.Expr) -> bool:
    """No card (a card variable's default when none is given)."""
    return isinstance(expr, ir.Const) and expr.type == ir.CARD and expr.value == -1


class _Absence:
    """Whether a player or card expression is certainly nobody or no card, wherever it is
    evaluated: no card, a card variable nothing ever assigns, holder() of such a card, and
    conditionals or binds of those. Anything less certain is left to the run-time error."""

    def __init__(self, unset_cards: set[str]):
        self.unset_cards = unset_cards

    def __call__(self, expr: ir.Expr) -> bool:
        if _is_absent_const(expr):
            return True
        if isinstance(expr, ir.VarRef):
            return expr.variable in self.unset_cards
        if isinstance(expr, ir.Call) and expr.function == "holder":
            return self(expr.args[0])
        if isinstance(expr, ir.Conditional):
            return self(expr.then) and self(expr.otherwise)
        if isinstance(expr, ir.Macro) and expr.kind == "bind" and expr.body is not None:
            return self(expr.body)
        return False


def _expressions_of_ruleset(ruleset: ir.Ruleset, statements: Iterable[ir.Stmt]) -> Iterable[ir.Expr]:
    """Every top-level expression of a file: sections and every effect, nested ones included."""
    for move in ruleset.moves:
        yield from (p.candidates for p in move.params)
        yield from (e for e in (move.legal,) if e is not None)
        yield from (e for e in move.label or () if isinstance(e, ir.Expr))
    for phase in ruleset.phases:
        yield from (e for e in (phase.first, phase.until) if e is not None)
    for trigger in ruleset.triggers:
        yield from (e for e in (trigger.each, trigger.when) if e is not None)
    yield from (e for e in (ruleset.match_until, ruleset.winners, ruleset.losers) if e is not None)
    for s in statements:
        yield from _statement_expressions(s)


def _figure(value: int) -> str:
    """A count as a reader takes it in: exact up to a billion, else in powers of ten."""
    if value < 10**9:
        return f"{value:,}"
    return f"about {value:.1e}".replace("e+", "e")
