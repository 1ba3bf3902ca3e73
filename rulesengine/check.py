"""Check a composed rule file and build the typed ruleset (`ir.Ruleset`).

Every section is read, every name resolved and every expression typed before anything
runs. Problems are collected, not raised one by one, so that an author sees all of a
file's errors at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs

from . import ast, ir
from .diagnostics import WARNING, Diagnostic, RuleFileError, Span, did_you_mean
from .limits import (
    MAX_CARDS,
    MAX_DEFINITION_DEPTH,
    MAX_EXPANDED_DEPTH,
    MAX_EXPANDED_SIZE,
    MAX_EXPANSIONS,
    MAX_PLAYERS,
    MAX_RANGE,
    MAX_VALUE_CHOICES,
    MAX_ZONE_SLOTS,
)
from .parse import ParseFailed, parse_expression, parse_loop, parse_signature, parse_statements
from .source import Map, Node, Scalar, Seq

# ---- the shape of a rule file ----------------------------------------------------------

TOP_KEYS = {
    "name": "the game's name",
    "description": "a short description of the game",
    "players": "how many players: min, max and default",
    "options": "named, typed variant options with defaults",
    "decks": "the decks: suits, ranks and the zone where the cards start",
    "cards": "card attributes and how a card is shown",
    "zones": "where cards lie: shared, per player or per suit; who sees them",
    "variables": "named values: scores, trump, dealer...",
    "define": "named helper expressions, optionally with parameters",
    "setup": "effects run once when a match starts",
    "round": "effects when a round starts and ends; limits",
    "phases": "the phases of a round, in order",
    "moves": "what a player may do: parameters, legality and effects",
    "triggers": "effects that fire when a condition becomes true after a move",
    "match": "when the match ends and who wins",
    "block": "true marks a partial file for `include` (e.g. blocks/tricks), not a game",
}
SECTION_KEYS = {
    "players": {"min", "max", "default"},
    "option": {"type", "default", "choices", "min", "max", "description"},
    "deck": {"suits", "ranks", "zone", "copies"},
    "cards": {"attributes", "label"},
    "zone": {"per", "visibility", "sorted_by", "description"},
    "variable": {"type", "per", "default", "description"},
    "round": {"setup", "end", "limit", "stuck"},
    "limit": {"turns", "effects"},
    "phase": {"moves", "first", "until", "enter", "exit", "next", "description"},
    "move": {"params", "legal", "effects", "label", "pass", "hidden", "description"},
    "param": {"from", "size", "same"},
    "trigger": {"for", "when", "effects", "description"},
    "match": {"until", "winners", "losers", "evaluation"},
}
VISIBILITIES = ("all", "owner", "nobody")
VARIABLE_TYPES = (ir.INT, ir.BOOL, ir.STR, ir.PLAYER, ir.SUIT, ir.CARD)
OPTION_TYPES = (ir.INT, ir.BOOL, ir.STR)

BUILTINS: dict[str, str] = {
    "current": ir.PLAYER,
    "players": ir.list_of(ir.PLAYER),
    "active": ir.list_of(ir.PLAYER),
    "direction": ir.INT,
    "round": ir.INT,
    "turn": ir.INT,
    "num_players": ir.INT,
    "passes": ir.INT,
    "phase": ir.STR,
    "suits": ir.list_of(ir.SUIT),
}
RESERVED = set(BUILTINS) | {"me", "true", "false", "and", "or", "not", "in", "if", "else"}

# name: (argument types, result type); "any" matches anything, "cards" a card list or zone
FUNCTIONS: dict[str, tuple[tuple[tuple[str, ...], ...], str | Callable[[list[str]], str]]] = {
    "size": (((ir.ZONE,), ("list",)), ir.INT),
    "empty": (((ir.ZONE,), ("list",)), ir.BOOL),
    "top": (((ir.ZONE,), (ir.ZONE, ir.INT)), lambda a: ir.CARD if len(a) == 1 else ir.list_of(ir.CARD)),
    "bottom": (((ir.ZONE,), (ir.ZONE, ir.INT)), lambda a: ir.CARD if len(a) == 1 else ir.list_of(ir.CARD)),
    "holder": (((ir.CARD,),), ir.PLAYER),
    "seat": (((ir.INT,),), ir.PLAYER),
    "left": (((ir.PLAYER,),), ir.PLAYER),
    "right": (((ir.PLAYER,),), ir.PLAYER),
    "next": (((ir.PLAYER,),), ir.PLAYER),
    "opponent": (((ir.PLAYER,),), ir.PLAYER),
    "others": (((ir.PLAYER,),), ir.list_of(ir.PLAYER)),
    "is_active": (((ir.PLAYER,),), ir.BOOL),
    "can_move": (((ir.PLAYER,),), ir.BOOL),
    "min": (((ir.INT, ir.INT),), ir.INT),
    "max": (((ir.INT, ir.INT),), ir.INT),
    "abs": (((ir.INT,),), ir.INT),
    "range": (((ir.INT,), (ir.INT, ir.INT)), ir.list_of(ir.INT)),
    "len": (((ir.STR,),), ir.INT),
    "prefix": (((ir.STR, ir.INT),), ir.STR),
    "letter": (((ir.STR, ir.INT),), ir.STR),
    "text": (((ir.INT,), (ir.PLAYER,), (ir.CARD,), (ir.SUIT,), (ir.RANK,), (ir.BOOL,), (ir.STR,)), ir.STR),
    "card": (((ir.RANK, ir.SUIT),), ir.CARD),
}
MACROS = {
    "any": ir.BOOL,
    "all": ir.BOOL,
    "count": ir.INT,
    "sum": ir.INT,
    "max": ir.INT,
    "min": ir.INT,
    "argmax": "element",
    "argmin": "element",
    "filter": "list",
}


class _Failed(Exception):
    """An expression could not be checked; its diagnostic is already recorded."""


class Scope:
    """Names bound around an expression: locals (with slots) and definition arguments."""

    def __init__(self, names: dict[str, ir.Expr] | None = None, context: str = "rule"):
        self.names = dict(names or {})
        self.context = context

    def bind(self, name: str, value: ir.Expr) -> Scope:
        child = Scope(self.names, self.context)
        child.names[name] = value
        return child


class Checker:
    def __init__(self, document: Map, file: str):
        self.doc = document
        self.file = file
        self.problems: list[Diagnostic] = []
        self.slots = 1  # slot 0 is `me`
        self.options: dict[str, ir.Option] = {}
        self.suits: dict[str, ir.Suit] = {}
        self.ranks: list[str] = []
        self.decks: list[ir.Deck] = []
        self.card_attrs: dict[str, ir.CardAttribute] = {}
        self.zones: dict[str, ir.Zone] = {}
        self.variables: dict[str, ir.Variable] = {}
        self.definitions: dict[str, tuple[tuple[str, ...], Node]] = {}
        self.expanding: list[str] = []
        self.phase_names: list[str] = []
        self.move_names: list[str] = []
        self.used: set[str] = set()
        self.statements_seen: list[ir.Stmt] = []  # every checked effect, nested ones too, for whole-file checks
        self.expansions = 0
        self.parsed_definitions: dict[str, ast.Expr] = {}

    # ---- reporting -------------------------------------------------------------------

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, hint=hint))

    def warn(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, message, span, severity=WARNING, hint=hint))

    def keys(self, node: Node, allowed: Iterable[str], what: str) -> Map | None:
        if not isinstance(node, Map):
            self.error("RE204", f"{what} must be a mapping", node.span)
            return None
        allowed = set(allowed)
        for key, span in node.key_spans.items():
            if key not in allowed:
                hint = did_you_mean(key, allowed) or f"allowed keys: {', '.join(sorted(allowed))}"
                self.error("RE201", f"unknown key '{key}' in {what}", span, hint=hint)
        return node

    def entries(self, section: Map, kind: str, new_names: bool = False) -> Iterator[tuple[str, Span, Map]]:
        """(name, span of the name, its mapping) for each entry of `section` that is a mapping;
        its keys are checked against those allowed for `kind`. With `new_names`, each name
        is declared, and an entry whose name clashes is left out (the clash is reported once,
        not again at every use)."""
        for name, node in section.items():
            span = section.key_spans[name]
            if new_names and not self.check_new_name(name, span):
                continue
            spec = self.keys(node, SECTION_KEYS[kind], f"{kind} '{name}'")
            if spec is not None:
                yield name, span, spec

    def scalar(self, node: Node | None, kinds: tuple[type, ...], what: str) -> Any:
        if node is None:
            return None
        if (
            isinstance(node, Scalar)
            and isinstance(node.value, kinds)
            and not (isinstance(node.value, bool) and bool not in kinds)
        ):
            return node.value
        names = {int: "a whole number", str: "a text", bool: "true or false"}
        expected = " or ".join(names.get(k, k.__name__) for k in kinds)
        self.error("RE205", f"{what} must be {expected}", node.span)
        return None

    def name_list(self, node: Node | None, what: str) -> list[tuple[str, Span]]:
        if node is None:
            return []
        if not isinstance(node, Seq):
            self.error("RE205", f"{what} must be a list", node.span)
            return []
        out = []
        for item in node.items:
            if isinstance(item, Scalar) and isinstance(item.value, (str, int)) and not isinstance(item.value, bool):
                out.append((str(item.value), item.span))
            else:
                self.error("RE205", f"each entry of {what} must be a name", item.span)
        return out

    def mapping(self, key: str) -> Map | None:
        node = self.doc.get(key)
        if node is None:
            return None
        if not isinstance(node, Map):
            self.error("RE204", f"'{key}' must be a mapping", node.span)
            return None
        return node

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    # ---- the whole file ----------------------------------------------------------------

    def run(self) -> ir.Ruleset:
        doc = self.doc
        for key, span in doc.key_spans.items():
            if key not in TOP_KEYS:
                self.error(
                    "RE201",
                    f"unknown section '{key}'",
                    span,
                    hint=did_you_mean(key, TOP_KEYS) or f"sections: {', '.join(TOP_KEYS)}",
                )
        if is_block(doc):
            self.error(
                "RE235",
                "this file is a block to include in a game, not a game itself",
                doc.key_spans["block"],
                hint="write a game that says 'include: [...]' naming this file",
            )
            raise RuleFileError(self.problems)
        name = self.scalar(doc.get("name"), (str,), "'name'") or "unnamed"
        if "name" not in doc:
            self.error("RE206", "the rule file has no 'name'", doc.span)
        description = self.scalar(doc.get("description"), (str,), "'description'") or ""
        min_p, max_p, default_p = self.read_players()
        self.read_options()
        self.read_decks()
        self.check_card_count()
        self.read_zones()
        self.check_zone_count(max_p)
        self.read_deck_zones()
        self.read_definitions()
        self.read_variables()
        card_attributes, label = self.read_cards()
        self.check_sorted_by()
        self.phase_names = list((self.mapping("phases") or Map({}, {}, doc.span)).entries)
        self.move_names = list((self.mapping("moves") or Map({}, {}, doc.span)).entries)
        setup = self.effects(doc.get("setup"), Scope())
        round_setup, round_end, limit, limit_effects, stuck = self.read_round()
        phases = self.read_phases()
        moves = self.read_moves()
        triggers = self.read_triggers()
        until, winners, losers = self.read_match()
        self.check_reachable(phases)  # after moves and triggers: their 'goto's count too
        self.check_deals((setup, round_setup), min_p, max_p)
        self.check_never_legal(moves)
        self.check_circular_legality(moves)
        self.check_value_choices(moves, max_p)
        self.report_unused(moves)
        self.problems = _unique(self.problems)
        errors = [p for p in self.problems if p.severity != WARNING]
        if errors:
            raise RuleFileError(self.problems)
        return ir.Ruleset(
            name=name,
            description=description,
            file=self.file,
            min_players=min_p,
            max_players=max_p,
            default_players=default_p,
            options=tuple(self.options.values()),
            suits=tuple(self.suits.values()),
            ranks=tuple(self.ranks),
            decks=tuple(self.decks),
            card_attributes=card_attributes,
            card_label=label,
            zones=tuple(self.zones.values()),
            variables=tuple(self.variables.values()),
            setup=setup,
            round_setup=round_setup,
            round_end=round_end,
            round_limit=limit,
            round_limit_effects=limit_effects,
            round_stuck_effects=stuck,
            phases=phases,
            moves=moves,
            triggers=triggers,
            match_until=until,
            winners=winners,
            losers=losers,
            evaluation=getattr(self, "evaluation", None),
            slots=self.slots,
        )

    # ---- sections --------------------------------------------------------------------

    def read_players(self) -> tuple[int, int, int]:
        node = self.doc.get("players")
        if node is None:
            self.error(
                "RE206", "the rule file has no 'players' section", self.doc.span, hint="e.g. players: {min: 2, max: 4}"
            )
            return 2, 2, 2
        section = self.keys(node, SECTION_KEYS["players"], "'players'")
        if section is None:
            return 2, 2, 2
        low = self.scalar(section.get("min"), (int,), "players.min") or 2
        high = self.scalar(section.get("max"), (int,), "players.max") or low
        default = self.scalar(section.get("default"), (int,), "players.default") or low
        if not 1 <= low <= high <= MAX_PLAYERS:
            self.error(
                "RE207", f"players must satisfy 1 <= min <= max <= {MAX_PLAYERS} (min {low}, max {high})", section.span
            )
        elif not low <= default <= high:
            self.error("RE207", f"players.default {default} is outside {low}..{high}", section.get("default").span)
        return low, high, default

    def read_options(self) -> None:
        section = self.mapping("options")
        if section is None:
            return
        for name, span, spec in self.entries(section, "option", new_names=True):
            choices_node = spec.get("choices")
            choices = None
            if choices_node is not None:
                if isinstance(choices_node, Seq) and choices_node.items:
                    choices = tuple(self.scalar(c, (str, int), "a choice") for c in choices_node.items)
                else:
                    self.error("RE205", "choices must be a non-empty list", choices_node.span)
            if "default" not in spec:
                self.error("RE208", f"option '{name}' has no default", span)
                continue
            default = self.scalar(spec.get("default"), (str, int, bool), f"the default of '{name}'")
            declared = self.scalar(spec.get("type"), (str,), f"the type of '{name}'")
            type_ = declared or (
                ir.BOOL if isinstance(default, bool) else ir.INT if isinstance(default, int) else ir.STR
            )
            if type_ not in OPTION_TYPES:
                self.error(
                    "RE209",
                    f"unknown option type '{type_}'",
                    spec.get("type").span,
                    hint=f"option types: {', '.join(OPTION_TYPES)}",
                )
                continue
            python_type = {ir.INT: int, ir.BOOL: bool, ir.STR: str}[type_]
            if default is not None and (type(default) is not python_type):
                self.error("RE210", f"the default of option '{name}' is not of type {type_}", spec.get("default").span)
                continue
            if choices is not None and None not in choices and default not in choices:
                self.error(
                    "RE211",
                    f"the default '{default}' of option '{name}' is not one of its choices",
                    spec.get("default").span,
                    hint=f"choices: {', '.join(map(str, choices))}",
                )
            minimum = self.scalar(spec.get("min"), (int,), "an option's min")
            maximum = self.scalar(spec.get("max"), (int,), "an option's max")
            self.check_option_range(name, spec, default, minimum, maximum)
            description = self.scalar(spec.get("description"), (str,), "a description") or ""
            self.options[name] = ir.Option(name, type_, default, choices, minimum, maximum, description, span)

    def read_decks(self) -> None:
        section = self.mapping("decks")
        if section is None:
            self.error("RE206", "the rule file has no 'decks' section", self.doc.span)
            return
        for name, _span, spec in self.entries(section, "deck"):
            suits_node = spec.get("suits")
            suit_names: list[str] = []
            if isinstance(suits_node, Map):
                for suit, attrs_node in suits_node.items():
                    attributes = {}
                    if isinstance(attrs_node, Map):
                        attributes = self.suit_attributes(suit, attrs_node)
                    elif not (isinstance(attrs_node, Scalar) and attrs_node.value is None):
                        self.error("RE204", f"the attributes of suit '{suit}' must be a mapping", attrs_node.span)
                    suit_names.append(suit)
                    self.add_suit(suit, attributes, suits_node.key_spans[suit])
            else:
                for suit, span in self.name_list(suits_node, f"the suits of deck '{name}'"):
                    suit_names.append(suit)
                    self.add_suit(suit, {}, span)
            ranks = [r for r, _ in self.name_list(spec.get("ranks"), f"the ranks of deck '{name}'")]
            if not suit_names or not ranks:
                self.error("RE212", f"deck '{name}' needs suits and ranks", section.key_spans[name])
            for rank in ranks:
                if rank not in self.ranks:
                    self.ranks.append(rank)
            copies = self.scalar(spec.get("copies"), (int,), "copies") or 1
            zone = self.scalar(spec.get("zone"), (str,), f"the zone of deck '{name}'") or ""
            if not zone:
                self.error(
                    "RE213",
                    f"deck '{name}' does not say in which zone its cards start",
                    section.key_spans[name],
                    hint="add e.g. 'zone: stock'",
                )
            self.decks.append(ir.Deck(name, tuple(suit_names), tuple(ranks), zone, copies))

    def add_suit(self, name: str, attributes: dict[str, object], span: Span) -> None:
        known = self.suits.get(name)
        if known is not None and attributes and known.attributes and known.attributes != attributes:
            self.error("RE214", f"suit '{name}' has different attributes in two decks", span)
        if known is None or (attributes and not known.attributes):
            self.suits[name] = ir.Suit(name, attributes)

    def read_zones(self) -> None:
        section = self.mapping("zones")
        if section is None:
            self.error("RE206", "the rule file has no 'zones' section", self.doc.span)
            return
        for name, span, spec in self.entries(section, "zone", new_names=True):
            per_node = spec.get("per")
            dims: list[str | int] = []
            items = per_node.items if isinstance(per_node, Seq) else ((per_node,) if per_node is not None else ())
            for item in items:
                value = item.value if isinstance(item, Scalar) else None
                if value in ("player", "suit") or (
                    isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 64
                ):
                    dims.append(value)
                else:
                    self.error(
                        "RE215", "'per' takes 'player', 'suit' or a count (1 to 64), or a list of them", item.span
                    )
            visibility = self.scalar(spec.get("visibility"), (str,), "visibility") or "all"
            if visibility not in VISIBILITIES:
                self.error(
                    "RE216",
                    f"unknown visibility '{visibility}'",
                    spec.get("visibility").span,
                    hint=did_you_mean(visibility, VISIBILITIES) or "visibility is all, owner or nobody",
                )
            if visibility == "owner" and (not dims or dims[0] != "player"):
                self.error(
                    "RE217",
                    f"zone '{name}' is seen by its owner but belongs to no player",
                    spec.get("visibility").span,
                    hint="add 'per: player'",
                )
            sorted_by = self.scalar(spec.get("sorted_by"), (str,), "sorted_by")
            self.zones[name] = ir.Zone(name, tuple(dims), visibility, sorted_by, span)

    def read_deck_zones(self) -> None:
        for deck in self.decks:
            zone = self.zones.get(deck.zone)
            if deck.zone and zone is None:
                self.error(
                    "RE218",
                    f"deck '{deck.name}' starts in unknown zone '{deck.zone}'",
                    self.deck_zone_span(deck.name),
                    hint=did_you_mean(deck.zone, self.zones),
                )
            elif zone is not None and zone.dimensions:
                self.error(
                    "RE219",
                    f"deck '{deck.name}' must start in a shared zone, not '{deck.zone}'",
                    self.deck_zone_span(deck.name),
                    hint=f"'{deck.zone}' has one pile per {zone.dimensions[0]}; start in e.g. a 'stock' and deal",
                )
            self.used.add(deck.zone)

    def deck_zone_span(self, deck: str) -> Span:
        """Where a deck's 'zone' is written (the file's start if it cannot be found)."""
        section = self.mapping("decks")
        spec = section.get(deck) if section is not None else None
        if isinstance(spec, Map) and "zone" in spec:
            return spec.entries["zone"].span
        return self.doc.span

    def read_definitions(self) -> None:
        section = self.mapping("define")
        if section is None:
            return
        for key, node in section.items():
            span = section.key_spans[key]
            try:
                name, params = parse_signature(Scalar(key, span))
            except ParseFailed as failure:
                self.problems.append(failure.diagnostic)
                continue
            if self.check_new_name(name, span):
                self.definitions[name] = (params, node)

    def read_variables(self) -> None:
        section = self.mapping("variables")
        if section is None:
            return
        for name, span, spec in self.entries(section, "variable", new_names=True):
            per = self.scalar(spec.get("per"), (str,), "per")
            if per not in (None, "player"):
                self.error("RE215", "a variable's 'per' can only be 'player'", spec.get("per").span)
            declared = self.scalar(spec.get("type"), (str,), "type")
            if declared is not None and declared not in VARIABLE_TYPES:
                self.error(
                    "RE209",
                    f"unknown variable type '{declared}'",
                    spec.get("type").span,
                    hint=did_you_mean(declared, VARIABLE_TYPES) or f"types: {', '.join(VARIABLE_TYPES)}",
                )
                continue
            default = self.default_of(name, declared, spec, span)
            if default is None:
                if declared is not None:  # still known by its type: no follow-on errors at its uses
                    self.variables[name] = ir.Variable(name, declared, per == "player", ir.Const(declared, span, 0))
                    self.used.add(name)
                continue
            type_ = declared or default.type
            if type_ not in VARIABLE_TYPES:
                self.error("RE209", f"variable '{name}' would hold a {ir.type_name(type_)}", spec.get("default").span,
                           hint=f"variables hold one of: {', '.join(VARIABLE_TYPES)}")
                continue
            self.variables[name] = ir.Variable(name, type_, per == "player", default)

    def default_of(self, name: str, declared: str | None, spec: Map, span: Span) -> ir.Expr | None:
        node = spec.get("default")
        if node is None:
            zero = {ir.INT: 0, ir.BOOL: False, ir.STR: "", ir.PLAYER: 0, None: 0}
            if declared in zero:
                return ir.Const(declared or ir.INT, span, zero[declared])
            if declared == ir.SUIT and self.suits:
                return ir.Const(ir.SUIT, span, 0)
            if declared == ir.CARD:
                return ir.Const(ir.CARD, span, -1)
            self.error("RE208", f"variable '{name}' needs a default", span)
            return None
        try:
            value = self.expr_node(node, Scope(context="default"))
        except _Failed:
            return None
        if declared is not None:
            value = self.coerce(value, declared, node.span)
        return value

    def read_cards(self) -> tuple[tuple[ir.CardAttribute, ...], tuple[str | ir.Expr, ...] | None]:
        attributes: list[ir.CardAttribute] = []
        for suit_attr in sorted({k for s in self.suits.values() for k in s.attributes}):
            values = [s.attributes.get(suit_attr) for s in self.suits.values()]
            kinds = {type(v) for v in values if v is not None}
            type_ = ir.INT if kinds == {int} else ir.BOOL if kinds == {bool} else ir.STR
            attributes.append(ir.CardAttribute(suit_attr, type_, None))
        self.card_attrs = {a.name: a for a in attributes}
        section = self.doc.get("cards")
        label = None
        if section is None:
            return tuple(attributes), None
        spec = self.keys(section, SECTION_KEYS["cards"], "'cards'")
        if spec is None:
            return tuple(attributes), None
        card_scope = self.card_scope()
        attrs_node = spec.get("attributes")
        if isinstance(attrs_node, Map):
            for name, node in attrs_node.items():
                if name in ("suit", "rank", "order", "deck"):
                    self.error("RE220", f"'{name}' is a built-in card attribute", attrs_node.key_spans[name])
                    continue
                try:
                    value = self.expr_node(node, card_scope)
                except _Failed:
                    continue
                if value.type not in (ir.INT, ir.BOOL, ir.STR):
                    self.error("RE301", f"card attribute '{name}' must be a number, text or truth value", node.span)
                    continue
                attribute = ir.CardAttribute(name, value.type, value)
                attributes.append(attribute)
                self.card_attrs[name] = attribute
                # later attributes and the label may use this one
                card_scope = self.card_scope()
        elif attrs_node is not None:
            self.error("RE204", "cards.attributes must be a mapping", attrs_node.span)
        label_node = spec.get("label")
        if label_node is not None:
            label = self.template(label_node, card_scope)
        return tuple(attributes), label

    def card_scope(self) -> Scope:
        """Names an attribute expression sees: the card's own suit, rank and order."""
        span = self.doc.span
        names: dict[str, ir.Expr] = {
            "suit": ir.Local(ir.SUIT, span, "suit", 1_000_001),
            "rank": ir.Local(ir.RANK, span, "rank", 1_000_002),
            "order": ir.Local(ir.INT, span, "order", 1_000_003),
        }
        for attribute in self.card_attrs.values():
            names[attribute.name] = ir.Local(attribute.type, span, attribute.name, 1_000_000)
        return Scope(names, context="card")

    def read_round(self):
        node = self.doc.get("round")
        empty: tuple = ()
        if node is None:
            return empty, empty, None, empty, empty
        spec = self.keys(node, SECTION_KEYS["round"], "'round'")
        if spec is None:
            return empty, empty, None, empty, empty
        setup = self.effects(spec.get("setup"), Scope())
        end = self.effects(spec.get("end"), Scope())
        stuck = self.effects(spec.get("stuck"), Scope())
        limit = None
        limit_effects: tuple = ()
        limit_node = spec.get("limit")
        if limit_node is not None:
            limit_spec = self.keys(limit_node, SECTION_KEYS["limit"], "round.limit")
            if limit_spec is not None:
                limit = self.scalar(limit_spec.get("turns"), (int,), "round.limit.turns")
                if limit is not None and limit < 1:
                    self.error("RE207", "round.limit.turns must be at least 1", limit_spec.get("turns").span)
                limit_effects = self.effects(limit_spec.get("effects"), Scope())
        return setup, end, limit, limit_effects, stuck

    def read_phases(self) -> tuple[ir.Phase, ...]:
        section = self.mapping("phases")
        if section is None or not section.entries:
            self.error("RE206", "the rule file has no phases", self.doc.span, hint="add a 'phases' section")
            return ()
        phases = []
        names = list(section.entries)
        for position, (name, node) in enumerate(section.items()):
            spec = self.keys(node, SECTION_KEYS["phase"], f"phase '{name}'")
            if spec is None:
                continue
            moves = []
            for move, span in self.name_list(spec.get("moves"), f"the moves of phase '{name}'"):
                if move not in self.move_names:
                    self.error(
                        "RE221",
                        f"phase '{name}' lists unknown move '{move}'",
                        span,
                        hint=did_you_mean(move, self.move_names),
                    )
                moves.append(move)
            if not moves:
                self.error("RE222", f"phase '{name}' allows no moves", section.key_spans[name])
            first = self.optional_expr(spec.get("first"), Scope(), ir.PLAYER)
            until = self.optional_expr(spec.get("until"), Scope(), ir.BOOL)
            next_name = self.scalar(spec.get("next"), (str,), "next")
            if next_name is not None and next_name != "end" and next_name not in names:
                self.error(
                    "RE223", f"unknown phase '{next_name}'", spec.get("next").span, hint=did_you_mean(next_name, names)
                )
            if next_name is None:
                next_name = names[position + 1] if position + 1 < len(names) else None
            elif next_name == "end":
                next_name = None
            phases.append(
                ir.Phase(
                    name,
                    tuple(moves),
                    first,
                    until,
                    self.effects(spec.get("enter"), Scope()),
                    self.effects(spec.get("exit"), Scope()),
                    next_name,
                )
            )
        return tuple(phases)

    def check_reachable(self, phases: tuple[ir.Phase, ...]) -> None:
        """Warn of phases that neither the first phase's chain of 'next' nor a 'goto' leads to."""
        section = self.mapping("phases")
        if not phases or section is None:
            return
        by_name = {p.name: p for p in phases}
        waiting = [phases[0].name, *getattr(self, "goto_targets", [])]
        reached: set[str] = set()
        while waiting:
            name = waiting.pop()
            if name in reached or name not in by_name:
                continue
            reached.add(name)
            if by_name[name].next is not None:
                waiting.append(by_name[name].next)
        for phase in phases:
            if phase.name not in reached:
                self.warn(
                    "RE224",
                    f"phase '{phase.name}' can never be reached",
                    section.key_spans[phase.name],
                    hint="no reachable phase leads to it with 'next' and no effect says 'goto'",
                )

    def read_moves(self) -> tuple[ir.MoveDef, ...]:
        section = self.mapping("moves")
        if section is None or not section.entries:
            self.error("RE206", "the rule file has no moves", self.doc.span)
            return ()
        moves = []
        for name, span, spec in self.entries(section, "move"):
            scope = Scope(context="move")
            params = []
            params_node = spec.get("params")
            if params_node is not None and not isinstance(params_node, Map):
                self.error("RE204", "params must be a mapping of name: candidates", params_node.span)
            elif params_node is not None:
                for param_name, param_node in params_node.items():
                    param = self.read_param(param_name, param_node, params_node.key_spans[param_name], scope)
                    if param is not None:
                        params.append(param)
                        scope = scope.bind(param_name, ir.Local(param.type, span, param_name, param.slot))
            legal = self.optional_expr(spec.get("legal"), scope, ir.BOOL)
            effects = self.effects(spec.get("effects"), scope)
            label = self.template(spec.get("label"), scope) if spec.get("label") is not None else None
            is_pass = bool(self.scalar(spec.get("pass"), (bool,), "pass"))
            hidden = bool(self.scalar(spec.get("hidden"), (bool,), "hidden"))
            if is_pass and params:
                self.error("RE225", f"pass move '{name}' cannot take parameters", span)
            if legal is not None and isinstance(legal, ir.Const) and legal.value is False:
                self.warn("RE226", f"move '{name}' can never be legal", spec.get("legal").span)
            moves.append(ir.MoveDef(name, tuple(params), legal, effects, label, is_pass, hidden, span))
        listed = {
            m
            for phase_node in (self.mapping("phases") or Map({}, {}, self.doc.span)).entries.values()
            if isinstance(phase_node, Map)
            for m, _ in self._quiet_names(phase_node.get("moves"))
        }
        for move in moves:
            if move.name not in listed:
                self.warn(
                    "RE227",
                    f"move '{move.name}' is not allowed in any phase",
                    move.span,
                    hint="list it under 'moves' of a phase",
                )
        return tuple(moves)

    @staticmethod
    def _quiet_names(node: Node | None) -> list[tuple[str, Span]]:
        if isinstance(node, Seq):
            return [(str(i.value), i.span) for i in node.items if isinstance(i, Scalar)]
        return []

    def read_param(self, name: str, node: Node, span: Span, scope: Scope) -> ir.Param | None:
        self.check_new_name(name, span, local=True)
        size = same = None
        source = node
        if isinstance(node, Map):
            spec = self.keys(node, SECTION_KEYS["param"], f"parameter '{name}'")
            if spec is None or "from" not in spec:
                self.error("RE228", f"parameter '{name}' needs 'from'", span)
                return None
            source = spec.entries["from"]
            size = self.scalar(spec.get("size"), (int,), "size")
            same = self.scalar(spec.get("same"), (str,), "same")
            if size is None or not 1 <= size <= 8:
                self.error(
                    "RE229",
                    "a set parameter needs 'size' from 1 to 8",
                    spec.get(
                        "size",
                    ).span
                    if spec.get("size") is not None
                    else span,
                )
                return None
            if same is not None and same not in ("suit", "rank", *self.card_attrs):
                self.error(
                    "RE230",
                    f"unknown card attribute '{same}'",
                    spec.get("same").span,
                    hint=did_you_mean(same, ("suit", "rank", *self.card_attrs)),
                )
        try:
            candidates = self.expr_node(source, scope)
        except _Failed:
            return None
        element = ir.element_of(candidates.type)
        if element is None:
            self.error(
                "RE231",
                f"the candidates of '{name}' must be a zone or a list, not {ir.type_name(candidates.type)}",
                source.span,
            )
            return None
        if size is not None and element != ir.CARD:
            self.error("RE231", "a set parameter must choose cards", source.span)
            return None
        if element in (ir.INT, ir.STR) and not self.is_static(candidates):
            self.error(
                "RE232",
                f"the candidates of '{name}' must be known before the game starts",
                source.span,
                hint="use a list of constants or range(N) with N a number or option",
            )
            return None
        type_ = ir.list_of(ir.CARD) if size is not None else element
        return ir.Param(name, self.new_slot(), type_, candidates, size, same)

    def is_static(self, expr: ir.Expr) -> bool:
        if isinstance(expr, (ir.Const, ir.OptionRef)):
            return True
        if isinstance(expr, ir.ListExpr):
            return all(self.is_static(i) for i in expr.items)
        if isinstance(expr, ir.Call) and expr.function == "range":
            return all(self.is_static(a) for a in expr.args)
        if isinstance(expr, ir.Binary):
            return self.is_static(expr.left) and self.is_static(expr.right)
        return False

    def read_triggers(self) -> tuple[ir.Trigger, ...]:
        section = self.mapping("triggers")
        if section is None:
            return ()
        triggers = []
        for name, _span, spec in self.entries(section, "trigger"):
            scope = Scope()
            slot = each = None
            if spec.get("for") is not None:
                try:
                    variable, variable_span, collection = parse_loop(spec.entries["for"])
                    each = self.expr(collection, scope)
                    element = ir.element_of(each.type)
                    if element is None:
                        self.error("RE231", "a trigger's 'for' must go over a list or zone", collection.span)
                        continue
                    slot = self.new_slot()
                    scope = scope.bind(variable, ir.Local(element, variable_span, variable, slot))
                except ParseFailed as failure:
                    self.problems.append(failure.diagnostic)
                    continue
                except _Failed:
                    continue
            if spec.get("when") is None:
                self.error("RE233", f"trigger '{name}' needs 'when'", section.key_spans[name])
                continue
            when = self.optional_expr(spec.get("when"), scope, ir.BOOL)
            effects = self.effects(spec.get("effects"), scope)
            if when is not None:
                triggers.append(ir.Trigger(name, slot, each, when, effects))
        return tuple(triggers)

    def read_match(self) -> tuple[ir.Expr, ir.Expr | None, ir.Expr | None]:
        node = self.doc.get("match")
        fallback = ir.Const(ir.BOOL, self.doc.span, True)
        if node is None:
            self.error(
                "RE206",
                "the rule file has no 'match' section",
                self.doc.span,
                hint="say when the match ends: match: {until: ...}",
            )
            return fallback, None, None
        spec = self.keys(node, SECTION_KEYS["match"], "'match'")
        if spec is None:
            return fallback, None, None
        until = self.optional_expr(spec.get("until"), Scope(), ir.BOOL) or fallback
        winners = self.optional_expr(spec.get("winners"), Scope(), ir.list_of(ir.PLAYER))
        losers = self.optional_expr(spec.get("losers"), Scope(), ir.list_of(ir.PLAYER))
        if winners is not None and losers is not None:
            self.error("RE234", "give either 'winners' or 'losers', not both", spec.span)
        self.evaluation = self.optional_expr(spec.get("evaluation"), Scope(), ir.INT)  # for agents: how `me` fares
        return until, winners, losers

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
        for name, (_, node) in self.definitions.items():
            if name not in self.used:
                # point at the name as written ('name' or 'name(a, b)'), where it is defined
                span = next((s for k, s in heads.key_spans.items() if k.split("(")[0].strip() == name), node.span)
                self.warn("RE240", f"definition '{name}' is defined but never used", span)

    def mark_names_in_used_definitions(self) -> None:
        """A name written in the body of a used definition is used, even where checking stopped early.

        Bodies of unused definitions are never expanded, so their syntax is checked here.
        """
        bodies: dict[str, set[str]] = {}
        for name, (_, node) in self.definitions.items():
            try:
                bodies[name] = _names_in(parse_expression(node))
            except ParseFailed as failure:
                bodies[name] = set()
                if name not in self.used:
                    self.problems.append(failure.diagnostic)
        waiting = [name for name in self.definitions if name in self.used]
        while waiting:
            for name in bodies[waiting.pop()]:
                if name in self.definitions and name not in self.used:
                    waiting.append(name)
                if name in (*self.definitions, *self.variables, *self.zones, *self.options):
                    self.used.add(name)

    def check_new_name(self, name: str, span: Span, local: bool = False) -> bool:
        """Whether `name` may be defined here; reports the clash if not."""
        if name in RESERVED:
            self.error("RE241", f"'{name}' is a built-in name and cannot be redefined", span)
            return False
        if local:
            return True
        for kind, table in (
            ("option", self.options),
            ("zone", self.zones),
            ("variable", self.variables),
            ("definition", self.definitions),
        ):
            if name in table:
                self.error("RE242", f"'{name}' is already defined as a {kind}", span)
                return False
        return True

    # ---- limits and whole-file checks ---------------------------------------------------

    def suit_attributes(self, suit: str, node: Map) -> dict[str, object]:
        """A suit's attribute table; each value must be a number, a text or true/false."""
        attributes: dict[str, object] = {}
        for key, value in node.items():
            if isinstance(value, Scalar) and isinstance(value.value, (int, str, bool)):
                attributes[key] = value.value
            else:
                self.error(
                    "RE205", f"attribute '{key}' of suit '{suit}' must be a number, a text or true/false", value.span
                )
        return attributes

    def check_option_range(
        self, name: str, spec: Map, default: object, minimum: int | None, maximum: int | None
    ) -> None:
        """An option's default must respect its own 'min' and 'max'."""
        if minimum is not None and maximum is not None and minimum > maximum:
            self.error("RE211", f"option '{name}' has min {minimum} above max {maximum}", spec.get("min").span)
        elif isinstance(default, int) and not isinstance(default, bool):
            if (minimum is not None and default < minimum) or (maximum is not None and default > maximum):
                bounds = f"{'' if minimum is None else minimum}..{'' if maximum is None else maximum}"
                self.error(
                    "RE211",
                    f"the default {default} of option '{name}' is outside its range {bounds}",
                    spec.get("default").span,
                )

    def deck_cards(self, deck: ir.Deck) -> int:
        return len(deck.suits) * len(deck.ranks) * max(deck.copies, 1)  # copies < 1 is reported apart

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

    def check_zone_count(self, max_players: int) -> None:
        """Zones spelt out per player, suit and count must stay a manageable number."""
        total = 0
        for zone in self.zones.values():
            count = 1
            for dimension in zone.dimensions:
                count *= max_players if dimension == "player" else len(self.suits) if dimension == "suit" else dimension
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
            where = spec.get("sorted_by").span if isinstance(spec, Map) and "sorted_by" in spec else zone.span
            self.error(
                "RE230",
                f"unknown card attribute '{zone.sorted_by}'",
                where,
                hint=did_you_mean(zone.sorted_by, known) or f"card attributes: {', '.join(known)}",
            )

    def definition_body(self, name: str, node: Node) -> ast.Expr:
        """A definition's syntax tree, parsed once however often it is used."""
        if name not in self.parsed_definitions:
            try:
                self.parsed_definitions[name] = parse_expression(node)
            except ParseFailed as failure:
                self.problems.append(failure.diagnostic)
                raise _Failed() from None
        return self.parsed_definitions[name]

    def check_expansion_limits(self, name: str, span: Span) -> None:
        """Count one more use of a definition; refuse too many in all, or too deep inside each other."""
        self.expansions += 1
        if self.expansions > MAX_EXPANSIONS:
            if self.expansions == MAX_EXPANSIONS + 1:  # once: every later use fails the same way
                self.error(
                    "RE319",
                    f"definitions are spelt out more than {MAX_EXPANSIONS} times in this file",
                    span,
                    hint="a definition that uses another several times multiplies at each level",
                )
            raise _Failed()
        if len(self.expanding) >= MAX_DEFINITION_DEPTH:
            chain = " -> ".join([*self.expanding, name])
            self.fail(
                "RE318",
                f"definitions are used inside each other more than {MAX_DEFINITION_DEPTH} deep",
                span,
                hint=f"flatten the chain {chain}",
            )

    def check_expansion_size(self, name: str, expanded: ir.Expr, span: Span) -> None:
        """A definition used many times inside others can grow exponentially: refuse that."""
        size, depth = _size_and_depth(expanded, {})
        if size > MAX_EXPANDED_SIZE or depth > MAX_EXPANDED_DEPTH:
            self.fail(
                "RE319",
                f"'{name}' spelt out is too large ({size} nodes, {depth} levels deep; "
                f"at most {MAX_EXPANDED_SIZE} and {MAX_EXPANDED_DEPTH})",
                span,
                hint="a definition that uses another several times doubles in size at each level",
            )

    def check_deals(self, effect_lists: Iterable[tuple[ir.Stmt, ...]], min_players: int, max_players: int) -> None:
        """Error when the 'deal N of Z' effects of a setup need more cards than zone Z can ever hold."""
        if any(p.code in ("RE212", "RE213", "RE218", "RE219", "RE237") for p in self.problems):
            return  # the decks themselves are wrong; counting their cards would only repeat that
        reported: set[int] = set()
        for players in range(max_players, min_players - 1, -1):  # the largest count first
            for statements in effect_lists:
                dealt: dict[str, int] = {}  # cards dealt so far from each zone in this effect list
                for statement in statements:
                    if isinstance(statement, ir.Move) and isinstance(statement.destination, ir.ZoneRef):
                        dealt.pop(statement.destination.zone, None)  # cards put back: count afresh
                    if id(statement) in reported or not self.static_deal(statement):
                        continue
                    each = _fold(statement.count, self.default_options(), players)
                    if not isinstance(each, int) or isinstance(each, bool) or each < 0:
                        continue
                    zone = statement.source.zone
                    before = dealt.get(zone, 0)
                    dealt[zone] = before + each * players
                    if dealt[zone] > self.zone_capacity(zone):
                        reported.add(id(statement))
                        self.deck_too_small(statement, zone, each, players, before)

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
            deal.count.span,
            hint="deal fewer cards, lower players.max, or add cards (more ranks, suits or copies)",
        )

    def default_options(self) -> dict[str, object]:
        return {name: option.default for name, option in self.options.items()}

    def zone_capacity(self, zone: str) -> int:
        """How many cards a shared zone can hold: its decks', or every card if any effect moves cards in."""
        moved_in = any(
            isinstance(s, ir.Move) and isinstance(s.destination, ir.ZoneRef) and s.destination.zone == zone
            for s in self.statements_seen
        )
        # a deck whose own zone is unknown (reported apart) might have been meant for this one
        decks = self.decks if moved_in else [d for d in self.decks if d.zone == zone or d.zone not in self.zones]
        return sum(self.deck_cards(d) for d in decks)

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
                    spec.get("params").span if "params" in spec else move.span,
                )
                continue
            if move.legal is None or (isinstance(move.legal, ir.Const) and move.legal.value is False):
                continue  # the plain 'false' case is reported where the move is read
            settings = self.option_settings(move.legal)
            if settings and all(_fold(move.legal, values, None) is False for values in settings):
                read = sorted({e.name for e in _walk(move.legal) if isinstance(e, ir.OptionRef)})
                why = f"false for every value of {', '.join(read)}" if read else "always false"
                self.warn(
                    "RE226",
                    f"move '{move.name}' can never be legal: its 'legal' is {why}",
                    spec.get("legal").span,
                    hint="an option takes the values of its choices, true and false, or min..max",
                )

    def check_circular_legality(self, moves: tuple[ir.MoveDef, ...]) -> None:
        """'can_move' lists every legal move, so inside a move's own test it would ask itself forever."""
        for move in moves:
            tests = [move.legal, *(p.candidates for p in move.params)]
            for test in (t for t in tests if t is not None):
                call = next((e for e in _walk(test) if isinstance(e, ir.Call) and e.function == "can_move"), None)
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
        names = sorted({e.name for e in _walk(expr) if isinstance(e, ir.OptionRef)})
        settings: list[dict[str, object]] = [self.default_options()]
        for name in names:
            values = _option_values(self.options[name])
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
            bounds = [_fold(a, self.default_options(), max_players) for a in candidates.args]
            if all(isinstance(b, int) for b in bounds):
                low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
                return max(1, min(high - low, MAX_RANGE))
        return 1

    # ---- effects ---------------------------------------------------------------------

    goto_targets: list[str]

    def effects(self, node: Node | None, scope: Scope) -> tuple[ir.Stmt, ...]:
        if not hasattr(self, "goto_targets"):
            self.goto_targets = []
        if node is None:
            return ()
        statements, problems = parse_statements(node)
        self.problems.extend(problems)
        return tuple(self.checked_statements(statements, scope))

    def checked_statements(self, statements: Iterable[ast.Stmt], scope: Scope) -> list[ir.Stmt]:
        out = []
        for statement in statements:
            try:
                out.append(self.statement(statement, scope))
            except _Failed:
                continue
        self.statements_seen.extend(out)
        return out

    def statement(self, s: ast.Stmt, scope: Scope) -> ir.Stmt:
        if isinstance(s, ast.Move):
            cards = self.expr(s.cards, scope)
            if cards.type not in (ir.CARD, ir.ZONE, ir.list_of(ir.CARD)):
                self.fail(
                    "RE302", f"'move' takes a card, cards or a zone, not {ir.type_name(cards.type)}", s.cards.span
                )
            destination = self.expect(self.expr(s.destination, scope), ir.ZONE, s.destination.span)
            return ir.Move(s.span, cards, destination, s.at_bottom)
        if isinstance(s, ast.Deal):
            zone = self.zones.get(s.family)
            if zone is None:
                self.fail("RE303", f"unknown zone '{s.family}'", s.family_span, did_you_mean(s.family, self.zones))
            if zone.dimensions != ("player",):
                self.fail("RE304", f"'deal' deals to a zone with one per player; '{s.family}' is not", s.family_span)
            self.used.add(s.family)
            count = self.expect(self.expr(s.count, scope), ir.INT, s.count.span) if s.count is not None else None
            source = self.expect(self.expr(s.source, scope), ir.ZONE, s.source.span)
            start = self.expect(self.expr(s.start, scope), ir.PLAYER, s.start.span)
            return ir.Deal(s.span, count, source, s.family, start)
        if isinstance(s, ast.Shuffle):
            return ir.Shuffle(s.span, self.expect(self.expr(s.zone, scope), ir.ZONE, s.zone.span))
        if isinstance(s, ast.Reveal):
            cards = self.expr(s.cards, scope)
            if cards.type not in (ir.CARD, ir.ZONE, ir.list_of(ir.CARD)):
                self.fail("RE302", "'reveal' shows a card, cards or a zone", s.cards.span)
            return ir.Reveal(s.span, cards, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, ast.Assign):
            return self.assignment(s, scope)
        if isinstance(s, ast.TurnTo):
            return ir.TurnTo(s.span, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, ast.Reverse):
            return ir.Reverse(s.span)
        if isinstance(s, ast.Out):
            return ir.Out(s.span, self.expect(self.expr(s.player, scope), ir.PLAYER, s.player.span))
        if isinstance(s, ast.End):
            return ir.End(s.span, s.what)
        if isinstance(s, ast.Goto):
            if s.phase not in self.phase_names:
                self.fail("RE223", f"unknown phase '{s.phase}'", s.span, did_you_mean(s.phase, self.phase_names))
            self.goto_targets.append(s.phase)
            return ir.Goto(s.span, s.phase)
        if isinstance(s, ast.Log):
            return ir.Log(s.span, tuple(p if isinstance(p, str) else self.expr(p, scope) for p in s.parts))
        if isinstance(s, (ast.If, ast.For)):
            for inner in (*getattr(s, "then", ()), *getattr(s, "otherwise", ()), *getattr(s, "body", ())):
                if isinstance(inner, ast.Shuffle):
                    self.error(
                        "RE320",
                        "'shuffle' must stand at the top level of an effect list, not inside if or for",
                        inner.span,
                        hint="a shuffle is a chance event; move it out of the block",
                    )
        if isinstance(s, ast.If):
            condition = self.expect(self.expr(s.condition, scope), ir.BOOL, s.condition.span)
            return ir.If(
                s.span,
                condition,
                tuple(self.checked_statements(s.then, scope)),
                tuple(self.checked_statements(s.otherwise, scope)),
            )
        if isinstance(s, ast.For):
            collection = self.expr(s.collection, scope)
            element = ir.element_of(collection.type)
            if element is None:
                self.fail(
                    "RE231", f"'for' goes over a list or zone, not {ir.type_name(collection.type)}", s.collection.span
                )
            slot = self.new_slot()
            inner = scope.bind(s.variable, ir.Local(element, s.variable_span, s.variable, slot))
            return ir.For(s.span, slot, collection, tuple(self.checked_statements(s.body, inner)))
        raise AssertionError(type(s))

    def assignment(self, s: ast.Assign, scope: Scope) -> ir.Stmt:
        variable = self.variables.get(s.name)
        if variable is None:
            hint = did_you_mean(s.name, self.variables)
            if s.name in self.options:
                hint = f"'{s.name}' is an option; options cannot change during a game"
            self.fail("RE305", f"unknown variable '{s.name}'", s.name_span, hint)
        self.used.add(s.name)
        indices = tuple(self.expr(i, scope) for i in s.indices)
        if variable.per_player:
            if len(indices) != 1:
                self.fail("RE306", f"'{s.name}' has one value per player: write {s.name}[player]", s.name_span)
            self.expect(indices[0], ir.PLAYER, s.indices[0].span)
        elif indices:
            self.fail("RE306", f"'{s.name}' is a single value and takes no index", s.name_span)
        value = self.coerce(self.expr(s.value, scope), variable.type, s.value.span)
        if s.op != "=" and variable.type != ir.INT:
            self.fail("RE307", f"'{s.op}' needs a number variable; '{s.name}' is {variable.type}", s.name_span)
        return ir.Assign(s.span, s.name, indices, s.op, value)

    # ---- expressions -----------------------------------------------------------------

    def fail(self, code: str, message: str, span: Span, hint: str | None = None):
        self.error(code, message, span, hint)
        raise _Failed()

    def optional_expr(self, node: Node | None, scope: Scope, type_: str) -> ir.Expr | None:
        if node is None:
            return None
        try:
            return self.coerce(self.expr_node(node, scope), type_, node.span)
        except _Failed:
            return None

    def expr_node(self, node: Node, scope: Scope) -> ir.Expr:
        try:
            tree = parse_expression(node)
        except ParseFailed as failure:
            self.problems.append(failure.diagnostic)
            raise _Failed() from None
        return self.expr(tree, scope)

    def template(self, node: Node, scope: Scope) -> tuple[str | ir.Expr, ...]:
        if not isinstance(node, Scalar) or not isinstance(node.value, str):
            self.error("RE205", "a label must be a text", node.span)
            return ()
        from .parse import _ToAst

        try:
            parts = _ToAst(node).template(node.value, 0)
        except ParseFailed as failure:
            self.problems.append(failure.diagnostic)
            return ()
        out: list[str | ir.Expr] = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                try:
                    out.append(self.expr(part, scope))
                except _Failed:
                    pass
        return tuple(out)

    def expect(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr:
        return self.coerce(expr, type_, span)

    def coerce(self, expr: ir.Expr, type_: str, span: Span) -> ir.Expr:
        """`expr` as `type_`: literals name ranks and suits; zones serve as card lists."""
        if expr.type == type_:
            return expr
        if type_ == ir.list_of(ir.CARD) and expr.type == ir.ZONE:
            return expr
        if type_ in (ir.RANK, ir.SUIT) and isinstance(expr, ir.Const) and expr.type in (ir.INT, ir.STR):
            names = self.ranks if type_ == ir.RANK else list(self.suits)
            text = str(expr.value)
            if text in names:
                return ir.Const(type_, expr.span, names.index(text))
            self.fail(
                "RE308",
                f"there is no {type_} '{text}'",
                expr.span,
                did_you_mean(text, names) or f"{type_}s: {', '.join(names)}",
            )
        if type_.startswith("list:") and isinstance(expr, ir.ListExpr) and not expr.items:
            return ir.ListExpr(type_, expr.span, ())
        self.fail("RE301", f"expected {ir.type_name(type_)}, found {ir.type_name(expr.type)}", span)

    def expr(self, e: ast.Expr, scope: Scope) -> ir.Expr:
        span = e.span
        if isinstance(e, ast.IntLit):
            return ir.Const(ir.INT, span, e.value)
        if isinstance(e, ast.StrLit):
            return ir.Const(ir.STR, span, e.value)
        if isinstance(e, ast.BoolLit):
            return ir.Const(ir.BOOL, span, e.value)
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.ListLit):
            items = [self.expr(i, scope) for i in e.items]
            if not items:
                return ir.ListExpr(ir.list_of(ir.INT), span, ())
            first = items[0].type
            if first not in ir.SCALARS:
                self.fail("RE301", "a list holds numbers, texts, cards, players, suits or ranks", span)
            items = [self.coerce(i, first, i.span) for i in items]
            return ir.ListExpr(ir.list_of(first), span, tuple(items))
        if isinstance(e, ast.Attribute):
            return self.attribute(e, scope)
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Method):
            return self.macro(e, scope)
        if isinstance(e, ast.Unary):
            operand = self.expr(e.operand, scope)
            if e.op == "-":
                return ir.Unary(ir.INT, span, "-", self.expect(operand, ir.INT, e.operand.span))
            return ir.Unary(ir.BOOL, span, "not", self.expect(operand, ir.BOOL, e.operand.span))
        if isinstance(e, ast.Binary):
            return self.binary(e, scope)
        if isinstance(e, ast.Conditional):
            condition = self.expect(self.expr(e.condition, scope), ir.BOOL, e.condition.span)
            then = self.expr(e.then, scope)
            otherwise = self.expr(e.otherwise, scope)
            if then.type != otherwise.type:
                try:
                    otherwise = self.coerce(otherwise, then.type, e.otherwise.span)
                except _Failed:
                    then = self.coerce(then, otherwise.type, e.then.span)
            return ir.Conditional(then.type, span, condition, then, otherwise)
        raise AssertionError(type(e))

    def name(self, e: ast.Name, scope: Scope) -> ir.Expr:
        ident = e.id
        if ident in scope.names:
            bound = scope.names[ident]
            return attrs_evolve_span(bound, e.span)
        if ident == "me":
            if scope.context in ("default", "card"):
                self.fail("RE309", "'me' means nothing here", e.span)
            return ir.Local(ir.PLAYER, e.span, "me", 0)
        if ident in self.definitions:
            return self.expand(ident, (), e.span, scope)
        if ident in BUILTINS:
            if scope.context in ("default", "card"):
                self.fail("RE309", f"'{ident}' is not known before the game starts", e.span)
            return ir.Builtin(BUILTINS[ident], e.span, ident)
        if scope.context in ("default", "card") and (ident in self.variables or ident in self.zones):
            self.used.add(ident)
            self.fail("RE309", f"'{ident}' has no value before the game starts", e.span,
                      "defaults and card attributes may use numbers, texts and options")
        if ident in self.variables:
            self.used.add(ident)
            variable = self.variables[ident]
            if variable.per_player:
                self.fail("RE306", f"'{ident}' has one value per player: write {ident}[player]", e.span)
            return ir.VarRef(variable.type, e.span, ident, ())
        if ident in self.zones:
            self.used.add(ident)
            if self.zones[ident].dimensions:
                dims = ", ".join(str(d) for d in self.zones[ident].dimensions)
                self.fail("RE306", f"zone '{ident}' needs an index ({dims})", e.span, f"write {ident}[...]")
            return ir.ZoneRef(ir.ZONE, e.span, ident, ())
        if ident in self.options:
            self.used.add(ident)
            return ir.OptionRef(self.options[ident].type, e.span, ident)
        candidates = [*scope.names, *self.definitions, *BUILTINS, *self.variables, *self.zones, *self.options, "me"]
        hint = did_you_mean(ident, candidates)
        if hint is None and self.expanding:
            hint = f"a definition sees only its parameters and the file's names: pass '{ident}' as an argument"
        self.fail("RE310", f"unknown name '{ident}'", e.span, hint)

    def expand(self, name: str, args: tuple[ir.Expr, ...], span: Span, scope: Scope) -> ir.Expr:
        params, node = self.definitions[name]
        self.used.add(name)
        if len(params) != len(args):
            self.fail("RE311", f"'{name}' takes {len(params)} argument(s), given {len(args)}", span)
        if name in self.expanding:
            self.fail("RE312", f"definition '{name}' refers to itself", span, "definitions cannot be recursive")
        self.check_expansion_limits(name, span)
        # Lexical scope: a definition sees its parameters and the file's names, not the
        # local names of the place it is used at (those must be passed as arguments).
        inner = Scope({}, scope.context)
        for param, arg in zip(params, args):
            inner.names[param] = arg
        self.expanding.append(name)
        try:
            expanded = self.expr(self.definition_body(name, node), inner)
        finally:
            self.expanding.pop()
        self.check_expansion_size(name, expanded, span)
        return expanded

    def attribute(self, e: ast.Attribute, scope: Scope) -> ir.Expr:
        obj = self.expr(e.obj, scope)
        if obj.type == ir.CARD:
            builtin = {"suit": ir.SUIT, "rank": ir.RANK, "order": ir.INT, "id": ir.INT}
            if e.name in builtin:
                return ir.CardAttr(builtin[e.name], e.span, obj, e.name)
            if e.name in self.card_attrs:
                return ir.CardAttr(self.card_attrs[e.name].type, e.span, obj, e.name)
            self.fail(
                "RE313",
                f"cards have no attribute '{e.name}'",
                e.name_span,
                did_you_mean(e.name, [*builtin, *self.card_attrs]),
            )
        if obj.type == ir.SUIT:
            suit_attrs = {k for s in self.suits.values() for k in s.attributes}
            if e.name in suit_attrs:
                return ir.Call(self.card_attrs[e.name].type, e.span, "suit_attribute:" + e.name, (obj,))
            self.fail("RE313", f"suits have no attribute '{e.name}'", e.name_span, did_you_mean(e.name, suit_attrs))
        self.fail("RE313", f"{ir.type_name(obj.type)} has no attributes", e.name_span)

    def index(self, e: ast.Index, scope: Scope) -> ir.Expr:
        if not isinstance(e.obj, ast.Name) or e.obj.id in scope.names:
            self.fail("RE314", "only zones and per-player variables can be indexed", e.span)
        ident = e.obj.id
        indices = [self.expr(i, scope) for i in e.indices]
        if ident in self.variables and self.variables[ident].per_player:
            self.used.add(ident)
            if len(indices) != 1:
                self.fail("RE311", f"'{ident}' takes one index (a player)", e.span)
            return ir.VarRef(
                self.variables[ident].type, e.span, ident, (self.expect(indices[0], ir.PLAYER, e.indices[0].span),)
            )
        if ident in self.zones:
            self.used.add(ident)
            dims = self.zones[ident].dimensions
            if len(indices) != len(dims):
                self.fail("RE311", f"zone '{ident}' takes {len(dims)} index(es), given {len(indices)}", e.span)
            checked = []
            for dim, index, node in zip(dims, indices, e.indices):
                expected = ir.PLAYER if dim == "player" else ir.SUIT if dim == "suit" else ir.INT
                checked.append(self.expect(index, expected, node.span))
            return ir.ZoneRef(ir.ZONE, e.span, ident, tuple(checked))
        known = [*self.zones, *(v for v in self.variables if self.variables[v].per_player)]
        self.fail("RE310", f"'{ident}' is not a zone or per-player variable", e.obj.span, did_you_mean(ident, known))

    def call(self, e: ast.Call, scope: Scope) -> ir.Expr:
        if e.name in self.definitions:
            args = tuple(self.expr(a, scope) for a in e.args)
            return self.expand(e.name, args, e.span, scope)
        if e.name not in FUNCTIONS:
            self.fail(
                "RE315",
                f"unknown function '{e.name}'",
                e.name_span,
                did_you_mean(e.name, [*FUNCTIONS, *self.definitions]),
            )
        signatures, result = FUNCTIONS[e.name]
        if scope.context in ("default", "card") and e.name in (
            "can_move",
            "next",
            "is_active",
            "holder",
            "size",
            "empty",
            "top",
            "bottom",
        ):
            self.fail("RE309", f"'{e.name}' is not known before the game starts", e.span)
        args = [self.expr(a, scope) for a in e.args]
        for signature in signatures:
            if len(signature) != len(args):
                continue
            try:
                converted = [self.fit(a, t) for a, t in zip(args, signature)]
            except _Mismatch:
                continue
            type_ = result(list(signature)) if callable(result) else result
            if e.name == "card":
                return self.card_literal(converted, e)
            return ir.Call(type_, e.span, e.name, tuple(converted))
        shown = " or ".join(
            "(" + ", ".join(ir.type_name(t) if t != "list" else "list" for t in s) + ")" for s in signatures
        )
        given = "(" + ", ".join(ir.type_name(a.type) for a in args) + ")"
        code = "RE311" if all(len(s) != len(args) for s in signatures) else "RE301"
        self.fail(code, f"'{e.name}' takes {shown}, given {given}", e.span)

    def fit(self, arg: ir.Expr, type_: str) -> ir.Expr:
        if type_ == "list":
            if ir.element_of(arg.type) is None:
                raise _Mismatch()
            return arg
        if arg.type == type_ or (type_ == ir.ZONE and False):
            return arg
        if type_ in (ir.RANK, ir.SUIT) and isinstance(arg, ir.Const) and arg.type in (ir.INT, ir.STR):
            return self.coerce(arg, type_, arg.span)
        raise _Mismatch()

    def card_literal(self, args: list[ir.Expr], e: ast.Call) -> ir.Expr:
        if not all(isinstance(a, ir.Const) for a in args):
            self.fail("RE316", "card(rank, suit) takes a literal rank and suit", e.span)
        rank, suit = self.ranks[args[0].value], list(self.suits)[args[1].value]
        for deck_index, deck in enumerate(self.decks):
            if rank in deck.ranks and suit in deck.suits:
                return ir.Const(ir.CARD, e.span, ("card", deck_index, suit, rank))
        self.fail("RE316", f"no deck holds the card {rank} of {suit}", e.span)

    def macro(self, e: ast.Method, scope: Scope) -> ir.Expr:
        collection = self.expr(e.obj, scope)
        if e.name == "bind":
            return self.bind(e, collection, scope)
        element = ir.element_of(collection.type)
        if element is None:
            self.fail(
                "RE317", f"'.{e.name}(...)' needs a list or zone, not {ir.type_name(collection.type)}", e.obj.span
            )
        if e.name not in MACROS:
            hint = did_you_mean(e.name, [*MACROS, "bind"])
            self.fail("RE315", f"unknown list function '{e.name}'", e.name_span, hint)
        if len(e.args) != 2 or not isinstance(e.args[0], ast.Name):
            self.fail("RE311", f"'.{e.name}' takes a variable name and an expression: .{e.name}(x, ...)", e.span)
        variable = e.args[0].id
        slot = self.new_slot()
        inner = scope.bind(variable, ir.Local(element, e.args[0].span, variable, slot))
        body = self.expr(e.args[1], inner)
        kind = e.name
        if kind in ("any", "all", "count", "filter"):
            body = self.expect(body, ir.BOOL, e.args[1].span)
        elif kind in ("sum", "max", "min"):
            body = self.expect(body, ir.INT, e.args[1].span)
        elif body.type not in (ir.INT, ir.RANK):
            self.fail("RE301", f"'.{kind}' compares numbers or ranks, not {ir.type_name(body.type)}", e.args[1].span)
        result = MACROS[kind]
        if result == "element":
            result = element
        elif result == "list":
            result = ir.list_of(element)
        return ir.Macro(result, e.span, kind, collection, slot, body)

    def bind(self, e: ast.Method, value: ir.Expr, scope: Scope) -> ir.Expr:
        """`value.bind(x, body)`: `body` with `x` standing for `value`, computed once."""
        if len(e.args) != 2 or not isinstance(e.args[0], ast.Name):
            self.fail("RE311", "'.bind' takes a variable name and an expression: .bind(x, ...)", e.span)
        variable = e.args[0].id
        slot = self.new_slot()
        body = self.expr(e.args[1], scope.bind(variable, ir.Local(value.type, e.args[0].span, variable, slot)))
        return ir.Macro(body.type, e.span, "bind", value, slot, body)

    def binary(self, e: ast.Binary, scope: Scope) -> ir.Expr:
        left = self.expr(e.left, scope)
        right = self.expr(e.right, scope)
        op = e.op
        if op in ("and", "or"):
            return ir.Binary(
                ir.BOOL, e.span, op, self.expect(left, ir.BOOL, e.left.span), self.expect(right, ir.BOOL, e.right.span)
            )
        if op in ("+", "-", "*", "//", "%"):
            if op == "+" and left.type == ir.STR and right.type == ir.STR:
                return ir.Binary(ir.STR, e.span, op, left, right)
            return ir.Binary(
                ir.INT, e.span, op, self.expect(left, ir.INT, e.left.span), self.expect(right, ir.INT, e.right.span)
            )
        if op == "in":
            element = ir.element_of(right.type)
            if element is None:
                self.fail(
                    "RE301", f"'in' needs a list or zone on the right, not {ir.type_name(right.type)}", e.right.span
                )
            if isinstance(right, ir.ListExpr) and left.type in (ir.RANK, ir.SUIT) and element != left.type:
                # [9, 10] beside a rank names ranks, as a literal compared with a rank does.
                items = tuple(self.coerce(item, left.type, item.span) for item in right.items)
                right = ir.ListExpr(ir.list_of(left.type), right.span, items)
                element = left.type
            return ir.Binary(ir.BOOL, e.span, "in", self.coerce(left, element, e.left.span), right)
        # comparisons
        if left.type != right.type:
            if isinstance(right, ir.Const):
                right = self.coerce(right, left.type, e.right.span)
            else:
                left = self.coerce(left, right.type, e.left.span)
        if op in ("<", "<=", ">", ">=") and left.type not in (ir.INT, ir.RANK, ir.STR):
            self.fail("RE301", f"'{op}' compares numbers or ranks, not {ir.type_name(left.type)}", e.span)
        if left.type not in ir.SCALARS:
            self.fail("RE301", f"'{op}' compares single values, not {ir.type_name(left.type)}", e.span)
        return ir.Binary(ir.BOOL, e.span, op, left, right)


class _Mismatch(Exception):
    pass


# ---- static evaluation: constants and option values, for whole-file checks --------------

_UNKNOWN = object()


def _walk(expr: ir.Expr) -> Iterable[ir.Expr]:
    """`expr` and every expression inside it."""
    waiting = [expr]
    while waiting:
        current = waiting.pop()
        yield current
        waiting.extend(ir.children(current))


def _size_and_depth(expr: ir.Expr, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """Nodes and depth of `expr` as a tree (shared parts counted at each use), without recursion."""
    stack: list[tuple[ir.Expr, bool]] = [(expr, False)]
    while stack:
        current, children_done = stack.pop()
        if id(current) in memo:
            continue
        kids = ir.children(current)
        if children_done:
            sizes = [memo[id(k)] for k in kids]
            memo[id(current)] = (1 + sum(s for s, _ in sizes), 1 + max((d for _, d in sizes), default=0))
        else:
            stack.append((current, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
    return memo[id(expr)]


def _option_values(option: ir.Option) -> tuple[object, ...] | None:
    """Every value an option can take, when there are few enough to try them all."""
    if option.choices is not None:
        return option.choices
    if option.type == ir.BOOL:
        return (False, True)
    if option.type == ir.INT and option.minimum is not None and option.maximum is not None:
        if option.maximum - option.minimum <= 64:
            return tuple(range(option.minimum, option.maximum + 1))
    return None


def _fold(expr: ir.Expr, options: dict[str, object], players: int | None) -> object:
    """The value of `expr` if constants and these option values decide it, else _UNKNOWN."""
    try:
        return _fold_inner(expr, options, players)
    except (ArithmeticError, TypeError, ValueError):
        return _UNKNOWN


def _fold_inner(expr: ir.Expr, options: dict[str, object], players: int | None) -> object:
    fold = lambda e: _fold_inner(e, options, players)  # noqa: E731
    if isinstance(expr, ir.Const):
        return expr.value
    if isinstance(expr, ir.OptionRef):
        return options.get(expr.name, _UNKNOWN)
    if isinstance(expr, ir.Builtin) and expr.name == "num_players" and players is not None:
        return players
    if isinstance(expr, ir.Unary):
        value = fold(expr.operand)
        if value is _UNKNOWN:
            return _UNKNOWN
        return (not value) if expr.op == "not" else -value
    if isinstance(expr, ir.Conditional):
        condition = fold(expr.condition)
        if condition is _UNKNOWN:
            return _UNKNOWN
        return fold(expr.then if condition else expr.otherwise)
    if isinstance(expr, ir.Binary):
        return _fold_binary(expr.op, fold(expr.left), lambda: fold(expr.right))
    if isinstance(expr, ir.Call) and expr.function in ("min", "max", "abs"):
        args = [fold(a) for a in expr.args]
        if any(a is _UNKNOWN for a in args):
            return _UNKNOWN
        return {"min": min, "max": max, "abs": abs}[expr.function](*args)
    return _UNKNOWN


def _fold_binary(op: str, left: object, right_of: Callable[[], object]) -> object:
    if op == "and" and left is False:
        return False
    if op == "or" and left is True:
        return True
    right = right_of()
    if op == "and":
        return False if right is False else (True if left is True and right is True else _UNKNOWN)
    if op == "or":
        return True if right is True else (False if left is False and right is False else _UNKNOWN)
    if left is _UNKNOWN or right is _UNKNOWN:
        return _UNKNOWN
    operations: dict[str, Callable[[Any, Any], object]] = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "//": lambda a, b: a // b,
        "%": lambda a, b: a % b,
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return operations[op](left, right) if op in operations else _UNKNOWN


def _names_in(expr: ast.Expr) -> set[str]:
    """Every name and function name written in a syntax tree."""
    names: set[str] = set()
    waiting: list[object] = [expr]
    while waiting:
        node = waiting.pop()
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Call):
            names.add(node.name)
        for field in attrs.fields(type(node)):
            value = getattr(node, field.name)
            if isinstance(value, ast.Expr):
                waiting.append(value)
            elif isinstance(value, tuple):
                waiting.extend(v for v in value if isinstance(v, ast.Expr))
    return names


def _unique(problems: list[Diagnostic]) -> list[Diagnostic]:
    """Drop repeats: a definition with an error reports it once, not at every use."""
    return list(dict.fromkeys(problems))


def attrs_evolve_span(expr: ir.Expr, span: Span) -> ir.Expr:
    if isinstance(expr, ir.Local):
        import attrs

        return attrs.evolve(expr, span=span)
    return expr


# ---- blocks: partial files meant for `include` ------------------------------------------

_BLOCK_EXPRESSIONS = {"legal", "first", "until", "when", "winners", "losers"}
_BLOCK_EFFECTS = {"effects", "setup", "enter", "exit", "end", "stuck"}


def is_block(document: Map) -> bool:
    """Whether a file says `block: true`: a partial file, complete only inside a game."""
    node = document.get("block")
    return isinstance(node, Scalar) and node.value is True


def check_block(document: Map) -> list[Diagnostic]:
    """The problems a block can show alone: unknown sections and syntax errors.

    Names and types are checked in each game that includes the block, since a block
    may refer to zones, variables and decks that only the game defines.
    """
    problems = [
        Diagnostic("RE201", f"unknown section '{key}'", span, hint=did_you_mean(key, TOP_KEYS))
        for key, span in document.key_spans.items()
        if key not in TOP_KEYS
    ]
    definitions = document.get("define")
    for key, node in definitions.items() if isinstance(definitions, Map) else ():
        try:
            parse_signature(Scalar(key, definitions.key_spans[key]))
            parse_expression(node)
        except ParseFailed as failure:
            problems.append(failure.diagnostic)
    _block_syntax(document, problems)
    return problems


def _block_syntax(node: Map, problems: list[Diagnostic]) -> None:
    for key, value in node.items():
        try:
            if key in _BLOCK_EFFECTS and not isinstance(value, Map):
                problems.extend(parse_statements(value)[1])
            elif key in _BLOCK_EXPRESSIONS and isinstance(value, Scalar) and isinstance(value.value, str):
                parse_expression(value)
            elif key == "for" and isinstance(value, Scalar):
                parse_loop(value)
            elif isinstance(value, Map) and key != "define":
                _block_syntax(value, problems)
        except ParseFailed as failure:
            problems.append(failure.diagnostic)


def check(document: Map, file: str) -> ir.Ruleset:
    """Check a composed document; raises RuleFileError with every problem found."""
    return Checker(document, file).run()


def check_with_warnings(document: Map, file: str) -> tuple[ir.Ruleset | None, list[Diagnostic]]:
    """The ruleset (None if it has errors) and every diagnostic, warnings included."""
    checker = Checker(document, file)
    try:
        ruleset = checker.run()
    except RuleFileError:
        ruleset = None
    return ruleset, checker.problems
