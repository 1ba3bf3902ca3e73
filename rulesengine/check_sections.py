"""Reading a rule file's sections: players, options, decks, cards, zones, variables,
definitions, round, phases, moves, triggers and match; declaring their names.

Each section's keys are checked against the table of the rule-file shape; values are read
as the language defines them and expressions are handed to the expression mixin.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import NamedTuple

from . import ir
from .check_base import RESERVED, STATEMENT_KEYWORDS, CheckerBase, Failed, Scope, number_hint
from .check_expressions import FUNCTIONS
from .check_fold import TooLarge
from .diagnostics import Span, did_you_mean
from .limits import MAX_INTEGER, MAX_MOVE_PARAMETERS, MAX_PLAYERS, MAX_SET_SIZE, MAX_ZONE_DIMENSION
from .parse import ParseFailed, parse_head, parse_loop
from .shape import OPTION_TYPES, SECTION_KEYS, VARIABLE_TYPES, VISIBILITIES
from .source import Map, Node, Scalar, Seq


class RoundRules(NamedTuple):
    """The `round` section as read."""

    setup: tuple[ir.Stmt, ...] = ()
    end: tuple[ir.Stmt, ...] = ()
    limit: int | None = None  # round.limit.turns
    limit_effects: tuple[ir.Stmt, ...] = ()
    stuck: tuple[ir.Stmt, ...] = ()
    limit_share: float | None = None  # round.limit.accepted_share


class SectionReader(CheckerBase):
    """Reads the sections of a rule file into the checker's tables."""

    def entries(self, section: Map, kind: str, new_names: bool = False) -> Iterator[tuple[str, Span, Map]]:
        """(name, span of the name, its mapping) for each entry of `section` that is a mapping;
        its keys are checked against those allowed for `kind`. With `new_names`, each name
        is declared, and an entry whose name clashes is left out (the clash is reported once,
        not again at every use)."""
        for name, node in section.items():
            span = section.key_spans[name]
            if new_names and not self.check_new_name(name, span, what=f"the name of {_article(kind)} {kind}"):
                continue
            spec = self.keys(node, SECTION_KEYS[kind], f"{kind} '{name}'")
            if spec is not None:
                if "description" in SECTION_KEYS[kind]:
                    self.description(spec, f"{kind} '{name}'")
                yield name, span, spec

    def description(self, spec: Map, what: str) -> str:
        """The text of a section's `description`: "" when left out or empty (null), as at the
        top level; any other value than a text is RE205 there too (and in the schema)."""
        node = spec.get("description")
        if isinstance(node, Scalar) and node.value is None:
            return ""
        return self.scalar(node, (str,), f"the description of {what}") or ""

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
        # a value given, even 0, is checked; only a missing one takes the default
        reported = len(self.problems)
        low = self.value_or(section.get("min"), (int,), "players.min", 2)
        high = self.value_or(section.get("max"), (int,), "players.max", low)
        default = self.value_or(section.get("default"), (int,), "players.default", low)
        if len(self.problems) > reported:
            pass  # a value that is not a small whole number is reported already
        elif not 1 <= low <= high <= MAX_PLAYERS:
            self.error(
                "RE207", f"players must satisfy 1 <= min <= max <= {MAX_PLAYERS} (min {low}, max {high})", section.span
            )
        elif not low <= default <= high:
            where = self.at_conflict(section, "default", "min", "max")
            self.error("RE207", f"players.default {default} is outside {low}..{high}", where)
        # what the other checks go on with: always within 1..MAX_PLAYERS, so no loop over
        # player counts can run long whatever the file says
        low = min(max(low, 1), MAX_PLAYERS)
        high = high if low <= high <= MAX_PLAYERS else low  # a wrong max: go on with the fewest players
        return low, high, min(max(default, low), high)

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
                self.unusable_options.add(name)
                continue
            default = self.scalar(spec.get("default"), (str, int, bool), f"the default of '{name}'")
            declared = self.scalar(spec.get("type"), (str,), f"the type of '{name}'")
            given = spec.get("default")
            if declared is None and given is not None and (hint := number_hint(given, (int,))) is not None:
                # read as a text, it would make a text option of what was meant as a number
                message = f"the default of '{name}' must be a whole number or a quoted text"
                self.error("RE205", message, given.span, hint=hint)
                self.unusable_options.add(name)
                continue
            type_ = declared or _option_type(given, choices)
            if type_ is None:  # a refused default, and no type or choices that tell what was meant
                self.unusable_options.add(name)
                continue
            if type_ not in OPTION_TYPES:
                self.error(
                    "RE209",
                    f"unknown option type '{type_}'",
                    self.at(spec, "type"),
                    hint=f"option types: {', '.join(OPTION_TYPES)}",
                )
                self.unusable_options.add(name)
                continue
            python_type = ir.OPTION_VALUE_TYPES[type_]
            if default is not None and (type(default) is not python_type):
                self.error("RE210", f"the default of option '{name}' is not of type {type_}", self.at(spec, "default"))
                self.unusable_options.add(name)
                continue
            every_choice_read = choices is not None and None not in choices
            if choices is not None and isinstance(choices_node, Seq):
                choices = self.choices_of_type(name, type_, choices_node, choices)
            self.check_range_applies(name, type_, spec)
            # a refused default or choice is reported already: whether it is among the others is unknown
            if every_choice_read and choices and default is not None and default not in choices:
                self.error(
                    "RE211",
                    f"the default '{default}' of option '{name}' is not one of its choices",
                    self.at_conflict(spec, "default", "choices"),
                    hint=f"choices: {', '.join(map(str, choices))}",
                )
            minimum = self.scalar(spec.get("min"), (int,), "an option's min")
            maximum = self.scalar(spec.get("max"), (int,), "an option's max")
            self.check_option_range(name, spec, default, minimum, maximum)
            text = _text_of(spec.get("description"))  # checked with the option's other keys (RE205)
            if choices == ():  # every choice is refused (RE205, RE210): the values it may take are unknown
                self.unusable_options.add(name)
            else:
                self.options[name] = ir.Option(name, type_, default, choices, minimum, maximum, text, span)

    def choices_of_type(self, name: str, type_: str, node: Seq, choices: tuple[object, ...]) -> tuple[object, ...]:
        """The choices of the option's type; each other one is RE210 at the choice (a value
        of another type could never be given on the command line) and is left out."""
        python_type = ir.OPTION_VALUE_TYPES[type_]
        kept: list[tuple[object, Span]] = []
        for item, choice in zip(node.items, choices):
            if choice is None:
                continue  # refused already (RE205): it is no value to compare with the others
            if type(choice) is not python_type:
                self.error(
                    "RE210",
                    f"the choice {choice!r} of option '{name}' is not of type {type_}",
                    item.span,
                    hint=f"every choice is of the option's type, as its default is ({type_})",
                )
            else:
                kept.append((choice, item.span))
        once = self.listed_once(kept, f"the choices of option '{name}'", hint="list each value once")
        return tuple(choice for choice, _ in once)

    def check_range_applies(self, name: str, type_: str, spec: Map) -> None:
        """`min` and `max` bound a number, or a text's length; on a bool option they would be ignored."""
        for key in ("min", "max"):
            if key in spec and type_ == ir.BOOL:
                self.error(
                    "RE201",
                    f"option '{name}' is a bool option: '{key}' applies only to int and str options",
                    spec.key_spans[key],
                    hint="remove it, or list the allowed values under 'choices'",
                )

    def check_option_range(
        self, name: str, spec: Map, default: object, minimum: int | None, maximum: int | None
    ) -> None:
        """An option's default must respect its own 'min' and 'max'."""
        if minimum is not None and maximum is not None and minimum > maximum:
            where = self.at_conflict(spec, "min", "max")
            self.error("RE211", f"option '{name}' has min {minimum} above max {maximum}", where)
        elif isinstance(default, (int, str)) and not isinstance(default, bool):
            size = len(default) if isinstance(default, str) else default  # a text is bounded by its length
            if (minimum is not None and size < minimum) or (maximum is not None and size > maximum):
                bounds = f"{'' if minimum is None else minimum}..{'' if maximum is None else maximum}"
                shown = f"'{default}' ({size} characters)" if isinstance(default, str) else str(default)
                self.error(
                    "RE211",
                    f"the default {shown} of option '{name}' is outside its range {bounds}",
                    self.at_conflict(spec, "default", "min", "max"),
                )

    def read_decks(self) -> None:
        self.refused_suit_attributes: set[str] = set()
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
                suits = self.name_list(suits_node, f"the suits of deck '{name}'")
                self.decks_misread |= _partly_refused(suits_node, suits)
                for suit, span in self.listed_once(suits, f"the suits of deck '{name}'", hint=_ONE_SUIT):
                    suit_names.append(suit)
                    self.add_suit(suit, {}, span)
            ranks_node = spec.get("ranks")
            ranks_listed = self.name_list(ranks_node, f"the ranks of deck '{name}'")
            self.decks_misread |= _partly_refused(ranks_node, ranks_listed)
            ranks = [r for r, _ in self.listed_once(ranks_listed, f"the ranks of deck '{name}'", hint=_ONE_RANK)]
            # a list refused as written (RE205) is reported already: it is not missing
            missing = [
                part
                for part, found, node in (("suits", suit_names, suits_node), ("ranks", ranks, ranks_node))
                if not found and _left_empty(node)
            ]
            if missing:
                message = f"deck '{name}' needs suits and ranks: it has no {' and no '.join(missing)}"
                self.error("RE212", message, section.key_spans[name])
            for rank in ranks:
                if rank not in self.rank_index:
                    self.rank_index[rank] = len(self.ranks)
                    self.ranks.append(rank)
            copies = self.value_or(spec.get("copies"), (int,), "copies", 1)
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
        if known is None:
            self.suit_index[name] = len(self.suit_index)
        if known is None or (attributes and not known.attributes):
            self.suits[name] = ir.Suit(name, attributes)
            self.suit_spans[name] = span

    def suit_attributes(self, suit: str, node: Map) -> dict[str, object]:
        """A suit's attribute table; each value must be a number, a text or true/false."""
        attributes: dict[str, object] = {}
        for key, value in node.items():
            if not self.check_name_syntax(key, node.key_spans[key], "the name of a suit attribute"):
                continue
            if key in BUILTIN_CARD_ATTRIBUTES:
                if key not in self.refused_suit_attributes:  # said once, at its first suit
                    self.refused_suit_attributes.add(key)
                    self.error(
                        "RE220",
                        f"'{key}' is a built-in card attribute and cannot name a suit attribute",
                        node.key_spans[key],
                        hint=f"every card has '{key}' already; choose another name, e.g. '{key}_value'",
                    )
                continue
            if isinstance(value, Scalar) and isinstance(value.value, (int, str, bool)):
                if type(value.value) is int and abs(value.value) > MAX_INTEGER:
                    self.too_large(TooLarge(ir.Const(ir.INT, value.span, 0), value.value))  # kept: typed, never run
                attributes[key] = value.value
                self.suit_spans.setdefault(f"{suit}.{key}", value.span)
            else:
                self.error(
                    "RE205", f"attribute '{key}' of suit '{suit}' must be a number, a text or true/false", value.span
                )
        return attributes

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
                if value == "team":
                    dims.append(self.team_dimension(name, len(dims), item.span))
                elif value in ("player", "suit") or (
                    isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ZONE_DIMENSION
                ):
                    dims.append(value)
                else:
                    self.error(
                        "RE215",
                        f"'per' takes 'player', 'suit', 'team' or a count (1 to {MAX_ZONE_DIMENSION}),"
                        " or a list of them",
                        item.span,
                    )
            visibility = self.value_or(spec.get("visibility"), (str,), "visibility", "all")
            if visibility not in VISIBILITIES:
                self.error(
                    "RE216",
                    f"unknown visibility '{visibility}'",
                    self.at(spec, "visibility"),
                    hint=did_you_mean(visibility, VISIBILITIES) or "visibility is all, owner, team or nobody",
                )
            if visibility == "team" and self.teams is None:
                where = self.at(spec, "visibility")
                self.error("RE262", f"zone '{name}' is seen by a team, but the game declares no 'teams'", where)
            if visibility in ("owner", "team") and (not dims or dims[0] != "player"):
                seen_by = "its owner's team" if visibility == "team" else "its owner"
                self.error(
                    "RE217",
                    f"zone '{name}' is seen by {seen_by} but belongs to no player",
                    self.at(spec, "visibility"),
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
                name, params = parse_head(section.key_node(key))
            except ParseFailed as failure:
                self.problems.append(failure.diagnostic)
                continue
            self.check_parameters(name, params)
            if self.check_not_function(name, span) and self.check_new_name(name, span):
                self.definitions[name] = (tuple(param for param, _ in params), node)

    def check_not_function(self, name: str, span: Span) -> bool:
        """A definition named like a built-in function would take over every call of it."""
        if name in FUNCTIONS:
            self.error(
                "RE241",
                f"'{name}' is a built-in function and cannot be redefined",
                span,
                hint=f"choose another name, e.g. 'my_{name}'",
            )
            return False
        return True

    def check_parameters(self, name: str, params: tuple[tuple[str, Span], ...]) -> None:
        """A parameter named like a built-in (`f(round)`) or twice (`f(x, x)`) would hide the
        other inside the body. Reported; the definition is still declared, so its uses say
        nothing more."""
        seen: set[str] = set()
        for param, where in params:
            if not self.check_parameter_name(param, where):
                pass  # reported
            elif param in seen:
                self.error("RE242", f"definition '{name}' has two parameters named '{param}'", where)
            seen.add(param)

    def read_variables(self) -> None:
        section = self.mapping("variables")
        if section is None:
            return
        for name, span, spec in self.entries(section, "variable", new_names=True):
            per = self.scalar(spec.get("per"), (str,), "per")
            if per not in (None, "player", "team"):
                self.error("RE215", "a variable's 'per' can only be 'player' or 'team'", self.at(spec, "per"))
            elif per == "team":
                self.check_team_variable(name, self.at(spec, "per"))
            declared = self.scalar(spec.get("type"), (str,), "type")
            if declared is not None and declared not in VARIABLE_TYPES:
                self.error(
                    "RE209",
                    f"unknown variable type '{declared}'",
                    self.at(spec, "type"),
                    hint=did_you_mean(declared, VARIABLE_TYPES) or f"types: {', '.join(VARIABLE_TYPES)}",
                )
                continue
            default = self.default_of(name, declared, spec, span)
            if default is None:
                if declared is not None:  # still known by its type: no follow-on errors at its uses
                    self.variables[name] = ir.Variable(
                        name, declared, per in ("player", "team"), ir.Const(declared, span, 0), per == "team"
                    )
                    self.used.add(name)
                continue
            type_ = declared or default.type
            if type_ not in VARIABLE_TYPES:
                self.error(
                    "RE209",
                    f"variable '{name}' would hold a {ir.type_name(type_)}",
                    self.at(spec, "default"),
                    hint=f"variables hold one of: {', '.join(VARIABLE_TYPES)}",
                )
                continue
            self.variables[name] = ir.Variable(name, type_, per in ("player", "team"), default, per == "team")

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
            if declared is not None:
                value = self.coerce(value, declared, node.span)
        except Failed:  # already reported
            return None
        return value

    def read_cards(self) -> tuple[tuple[ir.CardAttribute, ...], tuple[str | ir.Expr, ...] | None]:
        attributes: list[ir.CardAttribute] = []
        given: dict[str, dict[str, object]] = {}  # attribute: {suit: value}, in one pass over the suits
        for suit in self.suits.values():
            for key, value in suit.attributes.items():
                given.setdefault(key, {})[suit.name] = value
        for suit_attr in sorted(given):
            attributes.append(ir.CardAttribute(suit_attr, self.suit_attribute_type(suit_attr, given[suit_attr]), None))
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
                if not self.check_name_syntax(name, attrs_node.key_spans[name], "the name of a card attribute"):
                    continue
                if name in BUILTIN_CARD_ATTRIBUTES:
                    self.error("RE220", f"'{name}' is a built-in card attribute", attrs_node.key_spans[name])
                    continue
                try:
                    value = self.expr_node(node, card_scope)
                except Failed:
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

    def suit_attribute_type(self, name: str, given: dict[str, object]) -> str:
        """The type of a suit attribute, which every suit must give, all with one type, so a
        card never reads a missing or mistyped value. A file where one does not is reported
        (and never compiled); its uses are still typed, to report nothing twice."""
        if len(given) < len(self.suits):
            missing = [suit for suit in itertools.islice(self.suits, len(given) + 5) if suit not in given][:5]
            self.error(
                "RE245",
                f"suit attribute '{name}' is given for {_listed(list(given))} but not for {_listed(missing)}",
                self.suit_spans[missing[0]],
                hint=f"give '{name}' for every suit, or compute it under cards.attributes",
            )
        kinds = {_TYPE_OF[type(v)]: suit for suit, v in given.items()}
        if len(kinds) > 1:
            (first, one), (second, other) = list(kinds.items())[:2]
            self.error(
                "RE246",
                f"suit attribute '{name}' is {_KIND_NAMES[first]} for {one} but {_KIND_NAMES[second]} for {other}",
                self.suit_spans.get(f"{other}.{name}", self.suit_spans[other]),
                hint="give it values of one type: all numbers, all texts or all true/false",
            )
        return next(iter(kinds))

    def card_scope(self) -> Scope:
        """Names an attribute expression sees: the card's own suit, rank and order."""
        span = self.doc.span
        card = ir.CardSelf(ir.CARD, span)
        names: dict[str, ir.Expr] = {
            "suit": ir.CardAttr(ir.SUIT, span, card, "suit"),
            "rank": ir.CardAttr(ir.RANK, span, card, "rank"),
            "order": ir.CardAttr(ir.INT, span, card, "order"),
        }
        for attribute in self.card_attrs.values():
            names[attribute.name] = ir.CardAttr(attribute.type, span, card, attribute.name)
        return Scope(names, context="card")

    def read_round(self) -> RoundRules:
        node = self.doc.get("round")
        if node is None:
            return RoundRules()
        spec = self.keys(node, SECTION_KEYS["round"], "'round'")
        if spec is None:
            return RoundRules()
        setup = self.effects(spec.get("setup"), Scope())
        for statement in ir.nested(setup):  # (a procedure's effects too: its body is inlined here)
            if isinstance(statement, ir.End) and statement.what == "phase":
                self.error(
                    "RE275",
                    "'end phase' cannot take effect in round.setup: the round's first phase starts after it",
                    statement.span,
                    hint="remove it; to start the round in another phase, say 'goto PHASE' in round.setup",
                )
        end = self.effects(spec.get("end"), Scope())
        stuck = self.effects(spec.get("stuck"), Scope())
        limit = share = None
        limit_effects: tuple[ir.Stmt, ...] = ()
        limit_node = spec.get("limit")
        if limit_node is not None:
            limit_spec = self.keys(limit_node, SECTION_KEYS["limit"], "round.limit")
            if limit_spec is not None:
                limit = self.scalar(limit_spec.get("turns"), (int,), "round.limit.turns")
                if limit is not None and limit < 1:
                    self.error("RE207", "round.limit.turns must be at least 1", self.at(limit_spec, "turns"))
                limit_effects = self.effects(limit_spec.get("effects"), Scope())
                share = self.accepted_share(limit_spec.get("accepted_share"))
        return RoundRules(setup, end, limit, limit_effects, stuck, share)

    def accepted_share(self, node: Node | None) -> float | None:
        """round.limit.accepted_share: a number from 0 to 1 (not true or false, not NaN)."""
        if node is None or (isinstance(node, Scalar) and node.value is None):
            return None
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            self.error(
                "RE207",
                "round.limit.accepted_share must be a number from 0 to 1",
                node.span,
                hint="the share of rounds that may end at the limit, e.g. 0.5 for half of them",
            )
            return None
        return float(value)

    def read_phases(self) -> tuple[ir.Phase, ...]:
        section = self.mapping("phases")
        if section is None or not section.entries:
            self.error("RE206", "the rule file has no phases", self.doc.span, hint="add a 'phases' section")
            return ()
        phases = []
        names = section.entries
        order = list(names)
        for position, (name, node) in enumerate(section.items()):
            self.check_not_keyword(name, section.key_spans[name], "the name of a phase")
            spec = self.keys(node, SECTION_KEYS["phase"], f"phase '{name}'")
            if spec is None:
                continue
            self.description(spec, f"phase '{name}'")
            moves = []
            listed = self.name_list(spec.get("moves"), f"the moves of phase '{name}'")
            for move, span in self.listed_once(listed, f"the moves of phase '{name}'", hint=_ONE_MOVE):
                if move not in self.move_names:
                    self.error(
                        "RE221",
                        f"phase '{name}' lists unknown move '{move}'",
                        span,
                        hint=did_you_mean(move, self.move_names),
                    )
                moves.append(move)
            if not moves and _left_empty(spec.get("moves")):  # a list refused as written is reported already
                self.error("RE222", f"phase '{name}' allows no moves", section.key_spans[name])
            first = self.optional_expr(spec.get("first"), Scope(), ir.PLAYER)
            until = self.optional_expr(spec.get("until"), Scope(), ir.BOOL)
            next_name = self.scalar(spec.get("next"), (str,), "next")
            simultaneous = self.scalar(spec.get("simultaneous"), (bool,), "simultaneous")
            if next_name is not None and next_name != "end" and next_name not in names:
                self.error(
                    "RE223", f"unknown phase '{next_name}'", self.at(spec, "next"), hint=did_you_mean(next_name, names)
                )
            if next_name is None:
                next_name = order[position + 1] if position + 1 < len(order) else None
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
                    bool(simultaneous),
                )
            )
        return tuple(phases)

    def read_moves(self) -> tuple[ir.MoveDef, ...]:
        section = self.mapping("moves")
        if section is None or not section.entries:
            self.error("RE206", "the rule file has no moves", self.doc.span)
            return ()
        moves = []
        for name, span, spec in self.entries(section, "move"):
            self.check_not_keyword(name, span, "the name of a move")
            scope = Scope(context="move")
            params = []
            params_node = spec.get("params")
            if params_node is not None and not isinstance(params_node, Map):
                self.error("RE204", "params must be a mapping of name: candidates", params_node.span)
            elif params_node is not None:
                if len(params_node.entries) > MAX_MOVE_PARAMETERS:
                    self.error(
                        "RE272",
                        f"move '{name}' has {len(params_node.entries)} parameters; at most {MAX_MOVE_PARAMETERS}",
                        list(params_node.key_spans.values())[MAX_MOVE_PARAMETERS],
                        hint="choose several cards as one set parameter, or split the move",
                    )
                for param_name, param_node in params_node.items():
                    param = self.read_param(param_name, param_node, params_node.key_spans[param_name], scope)
                    if param is not None:
                        params.append(param)
                        local = ir.Local(param.type, span, param_name, param.slot)
                        scope = scope.bind(param_name, local, f"a parameter of move '{name}'")
            legal = self.optional_expr(spec.get("legal"), scope, ir.BOOL)
            effects = self.effects(spec.get("effects"), scope)
            label_node = spec.get("label")
            label = self.template(label_node, scope) if label_node is not None else None
            is_pass = bool(self.scalar(spec.get("pass"), (bool,), "pass"))
            hidden = bool(self.scalar(spec.get("hidden"), (bool,), "hidden"))
            if is_pass and params:
                self.error("RE225", f"pass move '{name}' cannot take parameters", span)
            if legal is not None and isinstance(legal, ir.Const) and legal.value is False:
                self.warn("RE226", f"move '{name}' can never be legal", self.at(spec, "legal"))
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
        """The names a phase's `moves` give, read without reporting (a single name not in a
        list, refused as RE205, still says which move was meant)."""
        if isinstance(node, Seq):
            return [(str(i.value), i.span) for i in node.items if isinstance(i, Scalar)]
        if isinstance(node, Scalar) and node.value is not None:
            return [(str(node.value), node.span)]
        return []

    def set_bounds(self, name: str, spec: Map, size: int | None, span: Span) -> tuple[int, int] | None:
        """(fewest, most) cards of a set of variable size (`min`/`max`); None after an error (RE270)."""
        low = self.scalar(spec.get("min"), (int,), "min")
        high = self.scalar(spec.get("max"), (int,), "max")
        low = 0 if low is None else low
        high = MAX_SET_SIZE if high is None else high
        if size is not None:
            self.error(
                "RE270",
                f"set parameter '{name}' has 'size' and 'min'/'max': give one or the other",
                self.at(spec, "size"),
                hint="a fixed number of cards is 'size'; a range is 'min' and 'max'",
            )
            return None
        if not (0 <= low <= high and 1 <= high <= MAX_SET_SIZE):
            where = self.at(spec, "min") if "min" in spec else self.at(spec, "max")
            self.error(
                "RE270",
                f"set parameter '{name}' needs 0 <= min <= max and max from 1 to {MAX_SET_SIZE}, "
                f"not min {low} and max {high}",
                where,
            )
            return None
        return low, high

    def read_param(self, name: str, node: Node, span: Span, scope: Scope) -> ir.Param | None:
        self.check_new_name(name, span, local=True, what="the name of a parameter")
        size = same = at_least = None
        source = node
        if isinstance(node, Map):
            spec = self.keys(node, SECTION_KEYS["param"], f"parameter '{name}'")
            if spec is None or "from" not in spec:
                self.error("RE228", f"parameter '{name}' needs 'from'", span)
                return None
            source = spec.entries["from"]
            size = self.scalar(spec.get("size"), (int,), "size")
            same = self.scalar(spec.get("same"), (str,), "same")
            if "min" in spec or "max" in spec:
                bounds = self.set_bounds(name, spec, size, span)
                if bounds is None:
                    return None
                at_least, size = bounds
            if size is None or not 1 <= size <= MAX_SET_SIZE:
                self.error(
                    "RE229",
                    f"a set parameter needs 'size' from 1 to {MAX_SET_SIZE}",
                    self.at(spec, "size") if "size" in spec else span,
                )
                return None
            if same is not None and same not in ("suit", "rank", *self.card_attrs):
                self.error(
                    "RE230",
                    f"unknown card attribute '{same}'",
                    self.at(spec, "same"),
                    hint=did_you_mean(same, ("suit", "rank", *self.card_attrs)),
                )
        try:
            candidates = self.expr_node(source, scope)
        except Failed:
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
        return ir.Param(name, self.new_slot(), type_, candidates, size, same, at_least)

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
        for name, span, spec in self.entries(section, "trigger"):
            self.check_name_syntax(name, span, "the name of a trigger")
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
                    self.check_local_name(variable, variable_span, "the variable of a trigger's 'for'")
                    slot = self.new_slot()
                    local = ir.Local(element, variable_span, variable, slot)
                    scope = scope.bind(variable, local, f"the variable of trigger '{name}'")
                except ParseFailed as failure:
                    self.problems.append(failure.diagnostic)
                    continue
                except Failed:
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
            self.error(
                "RE234",
                "give either 'winners' or 'losers', not both",
                spec.span,
                hint="keep one; a variant removes its base's with 'winners: null' (or 'losers: null')",
            )
        self.evaluation = self.optional_expr(spec.get("evaluation"), Scope(), ir.INT)  # for agents: how `me` fares
        self.results = self.read_results(spec, winners, losers)
        return until, winners, losers

    def check_not_keyword(self, name: str, span: Span, what: str) -> bool:
        """A word of the effect language ('out', 'log', 'move', ...) names nothing: `out = 1`
        or `move x to to` would read as a different statement or not at all. A name that is
        not one of the language (`a b`, `1`, a control character) is RE271."""
        if not self.check_name_syntax(name, span, what):
            return False
        if name in STATEMENT_KEYWORDS:
            self.error(
                "RE243",
                f"'{name}' is a keyword of the effect language and cannot be {what}",
                span,
                hint=f"choose another name, e.g. '{name}_'",
            )
            return False
        return True

    def check_parameter_name(self, param: str, span: Span) -> bool:
        """Whether `param` may name a parameter of a definition or procedure: a built-in name
        (RE241) would hide the built-in inside the body, a keyword (RE243) the statement."""
        if param in RESERVED:
            self.error("RE241", f"'{param}' is a built-in name and cannot name a parameter", span)
            return False
        return self.check_not_keyword(param, span, "a parameter")

    def check_new_name(self, name: str, span: Span, local: bool = False, what: str = "a name") -> bool:
        """Whether `name` may be defined here; reports the clash if not."""
        if name in RESERVED:
            self.error("RE241", f"'{name}' is a built-in name and cannot be redefined", span)
            return False
        self.check_not_keyword(name, span, what)  # reported; still declared, so its uses say nothing more
        if local:
            return True
        for kind, table in (
            ("option", self.options),
            ("zone", self.zones),
            ("variable", self.variables),
            ("definition", self.definitions),
        ):
            if name in table:
                first = self._defined_at(kind, name)
                if first is None:
                    self.error("RE242", f"'{name}' is already defined as {_article(kind)} {kind}", span)
                elif span.file != self.file and first.file == self.file:
                    # the clash comes from the file checked (a variant naming what its base has):
                    # reported there, where it can be changed
                    where = f"{span.file}:{span.line}:{span.column}"
                    message = f"'{name}' is defined here as {_article(kind)} {kind} and also at {where}"
                    self.error("RE242", message, first)
                else:
                    where = f"{first.file}:{first.line}:{first.column}"
                    self.error("RE242", f"'{name}' is already defined as {_article(kind)} {kind} at {where}", span)
                return False
        return True

    def _defined_at(self, kind: str, name: str) -> Span | None:
        """Where `name` is declared as `kind` (the key of its section's entry)."""
        section = self.doc.get({"option": "options", "zone": "zones", "variable": "variables"}.get(kind, "define"))
        if not isinstance(section, Map):
            return None
        for key, key_span in section.key_spans.items():
            if key.split("(")[0].strip() == name:
                return key_span
        return None


# what every card has already: a computed or suit attribute of one of these names would hide it
BUILTIN_CARD_ATTRIBUTES = ("suit", "rank", "order", "id", "deck")

_ONE_SUIT = "list each suit once; for several cards of each suit and rank, give the deck 'copies'"
_ONE_RANK = "list each rank once; for several cards of each suit and rank, give the deck 'copies'"
_ONE_MOVE = "list each move once: a move listed twice would be offered twice at every decision"

_TYPE_OF = {int: ir.INT, bool: ir.BOOL, str: ir.STR}
_KIND_NAMES = {ir.INT: "a number", ir.BOOL: "true or false", ir.STR: "a text"}


def _text_of(node: Node | None) -> str:
    """The value of a node that holds a text; "" for any other node, or none."""
    return node.value if isinstance(node, Scalar) and isinstance(node.value, str) else ""


def _option_type(default: Node | None, choices: tuple[object, ...] | None) -> str | None:
    """The type of an option that declares none: its default's, when the default is a text, a
    whole number (even one out of bounds) or true/false. A default of another kind (a fraction,
    a list) is refused and says nothing of what was meant; the choices may still say it, when
    those read agree. None when nothing tells."""
    if isinstance(default, Scalar) and type(default.value) in _TYPE_OF:
        return _TYPE_OF[type(default.value)]
    kinds = {type(choice) for choice in choices or () if choice is not None}
    return _TYPE_OF[kinds.pop()] if len(kinds) == 1 else None


def _partly_refused(node: Node | None, read: list[tuple[str, Span]]) -> bool:
    """Whether a list of names is refused (RE205), wholly or some of its entries."""
    return node is not None and (not isinstance(node, Seq) or len(read) < len(node.items))


def _left_empty(node: Node | None) -> bool:
    """Whether a list of names (a deck's suits or ranks, a phase's moves) is left out or
    written empty, rather than refused as another kind of value."""
    return node is None or (isinstance(node, Seq) and not node.items) or (isinstance(node, Map) and not node.entries)


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c' (at most a few, then 'and N more')."""
    shown = names[:5] + ([f"{len(names) - 5} more"] if len(names) > 5 else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
