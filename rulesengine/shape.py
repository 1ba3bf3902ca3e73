"""The shape of a rule file in one table: every section, every key, what it means and the
JSON Schema of its value.

The checker takes the keys it accepts from here (`TOP_KEYS`, `SECTION_KEYS`), and
`json_schema()` builds the draft-07 schema that `rulesengine schema` prints and the
package ships as rule-file.schema.json, so the two know the same sections and keys. What
JSON Schema cannot see (YAML merge keys, `1.0` against `1`) and the checks of names, types
and expressions are the checker's alone. After changing a key, run
`rulesengine schema > rulesengine/rule-file.schema.json` (a test compares them).
"""

from __future__ import annotations

from typing import Any

import attrs

from . import ir
from .limits import MAX_PLAYERS, MAX_SET_SIZE, MAX_ZONE_DIMENSION
from .resources import shipped_rulesets

VISIBILITIES = ("all", "owner", "team", "nobody")
VARIABLE_TYPES = (ir.INT, ir.BOOL, ir.STR, ir.PLAYER, ir.SUIT, ir.CARD)
OPTION_TYPES = (ir.INT, ir.BOOL, ir.STR)
NULLABLE_TEXT = {"type": ["string", "null"]}


def ref(name: str) -> dict[str, Any]:
    """A value described by a shared definition (wrapped, so a description may stand beside it)."""
    return {"allOf": [{"$ref": f"#/definitions/{name}"}]}


def given(name: str) -> dict[str, Any]:
    """As `ref`, but never null: inside an effect block nothing is merged from a base file, so
    an empty (null) key there removes nothing and the checker refuses it (RE103)."""
    return {"allOf": [{"$ref": f"#/definitions/{name}"}, {"not": {"type": "null"}}]}


@attrs.frozen
class Key:
    """One key of a section: what it means, the schema of its value, and whether a complete
    game must give it (a variant or a block may leave anything out)."""

    description: str
    schema: dict[str, Any]
    required: bool = False
    entries_of: str | None = None  # a mapping of names to sections of this kind


@attrs.frozen
class Section:
    """A mapping with a fixed set of keys (e.g. one zone, one move)."""

    description: str
    keys: dict[str, Key]
    extra: dict[str, Any] = attrs.field(factory=dict)  # further schema keywords


def entries(kind: str, nullable: bool = True) -> dict[str, Any]:
    """A mapping from names to sections of `kind`."""
    of = {"$ref": f"#/definitions/{kind}"}
    return {"type": ["object", "null"] if nullable else "object", "additionalProperties": of}


def _count(description: str, low: int | None = None, high: int | None = None) -> Key:
    schema: dict[str, Any] = {"type": ["integer", "null"]}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return Key(description, schema)


def _text(description: str) -> Key:
    return Key(description, NULLABLE_TEXT)


def _enum(description: str, values: tuple[str, ...]) -> Key:
    return Key(description, {"enum": [*values, None]})


# ---- the top level --------------------------------------------------------------------------

# The format marker: `rulesengine: 1` says that a YAML file is a rule file and which version
# of the format it is written for (fileformat.py reads it; docs/language.md, "Format version").
MARKER = "rulesengine"
FORMAT_VERSION = 1  # the newest version this engine reads; a file without the marker is version 1

TOP: dict[str, Key] = {
    MARKER: Key(
        f"The version of the rule-file format this file is written for ({FORMAT_VERSION}). It marks the file as a"
        " rule file for editors and 'rulesengine validate'; a newer version than the installed rulesengine reads"
        " is an error.",
        {"type": "integer", "enum": list(range(1, FORMAT_VERSION + 1))},
    ),
    "name": Key("The game's name, shown by the tools.", {"type": "string"}, required=True),
    "description": Key("A sentence or two saying what the game is.", NULLABLE_TEXT),
    "players": Key("How many players the game is for: min, max and default.", ref("players"), required=True),
    "options": Key(
        "Variant options, each under its name: typed values with a default.", entries("option"), entries_of="option"
    ),
    "decks": Key(
        "The decks, each under its name: suits, ranks and the zone the cards start in.",
        entries("deck", nullable=False),
        required=True,
        entries_of="deck",
    ),
    "cards": Key("Computed card attributes (e.g. points) and how a card is shown.", ref("cards")),
    "zones": Key(
        "Where cards lie, each zone under its name: shared, per player or per suit, and who sees it.",
        entries("zone", nullable=False),
        required=True,
        entries_of="zone",
    ),
    "variables": Key(
        "Named values, each under its name: scores, the dealer, the trump suit...",
        entries("variable"),
        entries_of="variable",
    ),
    "define": Key(
        "Named helper expressions: 'name' or 'name(a, b)' mapped to an expression, usable everywhere.",
        {"type": ["object", "null"], "additionalProperties": {"$ref": "#/definitions/expression"}},
    ),
    "procedures": Key(
        "Named effect lists with typed parameters, each under its name, called from effects as 'name(arguments)'.",
        entries("procedure"),
        entries_of="procedure",
    ),
    "setup": Key("Effects run once when a match starts.", ref("effects")),
    "round": Key("Effects when a round starts and ends, and a limit on its turns.", ref("round")),
    "phases": Key(
        "The phases of a round in order, each under its name; each runs until its 'until' holds.",
        entries("phase", nullable=False),
        required=True,
        entries_of="phase",
    ),
    "moves": Key(
        "What a player may do, each move under its name: parameters, legality and effects.",
        entries("move", nullable=False),
        required=True,
        entries_of="move",
    ),
    "triggers": Key(
        "Effects that fire after a move when a condition holds, each trigger under its name.",
        entries("trigger"),
        entries_of="trigger",
    ),
    "teams": Key(
        "Fixed partnerships: 'alternate' (seats 1, 3, ... against 2, 4, ...) or a list of teams, each a list of"
        " seat numbers counted from 0, e.g. [[0, 2], [1, 3]]. A team wins or loses together.",
        {
            "anyOf": [
                {"enum": ["alternate"]},
                {
                    "type": "array",
                    "minItems": 1,
                    "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
                },
            ]
        },
    ),
    "match": Key("When the match ends and who wins it.", ref("match"), required=True),
    "block": Key(
        "true marks a partial file meant for 'include' (such as blocks/tricks), not a game by itself: it need not"
        " have every section, and names it uses may be defined by the including game.",
        {"type": ["boolean", "null"]},
    ),
}

# read by compose.py before the checker sees the file
COMPOSE: dict[str, Key] = {
    "extends": Key(
        "A base rule file (a shipped ruleset's name or a path relative to this file) that this file changes:"
        " mappings merge key by key, lists and values replace, null removes.",
        {"type": "string"},
    ),
    "include": Key(
        "Rule files (names or relative paths) whose sections are merged beneath this file's own.",
        {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    ),
}

# ---- the sections ---------------------------------------------------------------------------

SECTIONS: dict[str, Section] = {
    "players": Section(
        "How many players the game is for.",
        {
            "min": _count(f"The fewest players (1 to {MAX_PLAYERS}).", 1, MAX_PLAYERS),
            "max": _count(f"The most players (at least min, at most {MAX_PLAYERS}).", 1, MAX_PLAYERS),
            "default": _count("The number of players when none is asked for (min to max).", 1, MAX_PLAYERS),
        },
    ),
    "option": Section(
        "A variant option: a named value fixed for a whole match, set with -o NAME=VALUE.",
        {
            "type": _enum("The option's type; when left out it follows the default's type.", OPTION_TYPES),
            "default": Key(
                "The value used when the option is not set.",
                {"type": ["string", "integer", "boolean", "null"]},
                required=True,
            ),
            "choices": Key(
                "The only values allowed, each once; the default must be one of them.",
                {
                    "type": ["array", "null"],
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": ["string", "integer"]},
                },
            ),
            "min": _count("The smallest value a number option may take; for a text option, its fewest characters."),
            "max": _count("The largest value a number option may take; for a text option, its most characters."),
            "description": _text("What the option changes, shown by 'rulesengine describe'."),
        },
    ),
    "deck": Section(
        "A deck: every combination of its suits and ranks, copies times over.",
        {
            "suits": Key(
                "The suits: a list of names, or a mapping from suit name to the suit's attributes (e.g. hearts:"
                " {colour: red}), which every card of that suit shares.",
                {
                    "anyOf": [
                        {"$ref": "#/definitions/names"},
                        {
                            "type": "object",
                            "additionalProperties": {
                                "type": ["object", "null"],
                                "additionalProperties": {"type": ["string", "integer", "boolean"]},
                            },
                        },
                        {"type": "null"},
                    ]
                },
                required=True,
            ),
            "ranks": Key(
                "The ranks from lowest to highest; their position is the card's order.", ref("names"), required=True
            ),
            "zone": Key(
                "The shared zone where the deck's cards lie when a match starts.", NULLABLE_TEXT, required=True
            ),
            "copies": _count("How many copies of each card the deck holds (default 1).", 1),
        },
    ),
    "cards": Section(
        "Computed card attributes and how a card is shown.",
        {
            "attributes": Key(
                "Named attributes computed for every card from its suit, rank, order and suit attributes, e.g."
                " points: '10 if rank == \"A\" else 0'.",
                {"type": ["object", "null"], "additionalProperties": {"$ref": "#/definitions/expression"}},
            ),
            "label": _text("How a card is shown, a text with {expressions}, e.g. '{rank}{symbol}'."),
        },
    ),
    "zone": Section(
        "A place where cards lie, with who may see them.",
        {
            "per": Key(
                "One zone for each player, each suit, or each of N numbers (1 to"
                f" {MAX_ZONE_DIMENSION}), or a list of these for a grid of zones; left out, the zone is a single"
                " shared one.",
                {
                    "anyOf": [
                        {"$ref": "#/definitions/dimension"},
                        {"type": "array", "items": {"$ref": "#/definitions/dimension"}},
                        {"type": "null"},
                    ]
                },
            ),
            "visibility": _enum(
                "Who sees the cards: all (everyone), owner (only the player it belongs to), team (its owner and"
                " the owner's teammates) or nobody.",
                VISIBILITIES,
            ),
            "sorted_by": _text("A card attribute by which the zone keeps its cards sorted."),
            "description": _text("What the zone is for."),
        },
    ),
    "variable": Section(
        "A named value the rules read and change: a score, the dealer, the trump suit...",
        {
            "type": _enum("The variable's type.", VARIABLE_TYPES),
            "per": _enum(
                "'player' gives every player a value of their own, written name[p]; 'team' one value per team,"
                " read and written through any member p as name[p].",
                ("player", "team"),
            ),
            "default": Key(
                "The value at the start of a match, an expression (default: 0, false, '' or the first player).",
                ref("expression"),
            ),
            "description": _text("What the variable holds."),
        },
    ),
    "round": Section(
        "What happens when a round starts and ends.",
        {
            "setup": Key("Effects run when each round starts: gather, shuffle, deal.", ref("effects")),
            "end": Key("Effects run when a round ends normally: scoring.", ref("effects")),
            "limit": Key("A cap on the turns of a round, against games that never end.", ref("limit")),
            "stuck": Key("Effects run when a round ends because nobody can move.", ref("effects")),
        },
    ),
    "limit": Section(
        "The most turns a round may take, and what happens when it reaches them.",
        {
            "turns": _count("The number of turns after which the round ends (at least 1).", 1),
            "effects": Key("Effects run when the round is ended by the limit.", ref("effects")),
            "accepted_share": Key(
                "The share of rounds (0 to 1) that `rulesengine check` accepts ending at this limit before it"
                " reports them (RE401; default 0.05): for a game whose random players can prolong a round"
                " without end.",
                {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            ),
        },
    ),
    "phase": Section(
        "A phase of a round: which moves are allowed, who starts and when it ends.",
        {
            "moves": Key(
                "The names of the moves allowed in this phase.",
                {"allOf": [{"$ref": "#/definitions/names"}, {"minItems": 1}]},
                required=True,
            ),
            "first": Key("The player who moves first in the phase, an expression.", ref("expression")),
            "until": Key("The phase ends as soon as this truth-valued expression holds.", ref("expression")),
            "enter": Key("Effects run when the phase starts.", ref("effects")),
            "exit": Key("Effects run when the phase ends.", ref("effects")),
            "next": _text("The phase that follows, or 'end' to end the round (default: the next phase listed)."),
            "simultaneous": Key(
                "Every active player chooses without seeing the others' choices; the choices are then resolved"
                " together, in turn order.",
                {"type": ["boolean", "null"]},
            ),
            "description": _text("What happens in the phase."),
        },
    ),
    "move": Section(
        "Something a player may do: its parameters, when it is legal and what it does.",
        {
            "params": Key(
                "The choices the player makes, each a name mapped to its candidates (e.g. card: 'hand[me]') or to a"
                " set of cards.",
                {
                    "type": ["object", "null"],
                    "additionalProperties": {
                        "if": {"type": "object"},
                        "then": {"$ref": "#/definitions/param"},
                        "else": {"$ref": "#/definitions/expression"},
                    },
                },
                entries_of="param",
            ),
            "legal": Key(
                "When the move is allowed, a truth-valued expression over me and the parameters.", ref("expression")
            ),
            "effects": Key("What the move does.", ref("effects")),
            "label": _text("How the move is shown, a text with {expressions}, e.g. 'lays {card}'."),
            "pass": Key("A pass: offered only when the player has no other legal move.", {"type": ["boolean", "null"]}),
            "hidden": Key("The other players do not see which move this was.", {"type": ["boolean", "null"]}),
            "description": _text("What the move is."),
        },
    ),
    "param": Section(
        "A parameter that chooses a set of cards at once.",
        {
            "from": Key(
                "Where the cards are chosen from: a zone or a list of cards.", ref("expression"), required=True
            ),
            "size": _count(f"How many cards are chosen (1 to {MAX_SET_SIZE}).", 1, MAX_SET_SIZE),
            "same": _text("A card attribute all chosen cards share, e.g. rank or suit."),
            "min": _count(f"A set of variable size: the fewest cards chosen (0 to {MAX_SET_SIZE}).", 0, MAX_SET_SIZE),
            "max": _count(f"A set of variable size: the most cards chosen (1 to {MAX_SET_SIZE}).", 1, MAX_SET_SIZE),
        },
    ),
    "procedure": Section(
        "A named effect list, called from effects as 'name(arguments)'; it may call other procedures, not itself.",
        {
            "params": Key(
                "The parameters in order, each under its name with its type: int, bool, str, player, suit, rank or"
                " card.",
                {
                    "type": ["object", "null"],
                    "additionalProperties": {"enum": ["int", "bool", "str", "player", "suit", "rank", "card"]},
                },
            ),
            "effects": Key("What a call does, with the parameters bound to the arguments.", ref("effects")),
            "description": _text("What the procedure does."),
        },
    ),
    "trigger": Section(
        "Effects that fire after a move whenever a condition holds.",
        {
            "for": _text("Check the condition for each element, written 'x in collection'."),
            "when": Key("The condition, a truth-valued expression.", ref("expression"), required=True),
            "effects": Key("What happens when the condition holds.", ref("effects")),
            "description": _text("What the trigger is for."),
        },
    ),
    "match": Section(
        "When the match ends and who wins it.",
        {
            "until": Key("The match ends after a round when this truth-valued expression holds.", ref("expression")),
            "winners": Key("The players who win, a list expression; all others lose.", ref("expression")),
            "losers": Key("The players who lose, a list expression; all others win.", ref("expression")),
            "evaluation": Key(
                "How well `me` fares, a number expression that agents read (higher is better).", ref("expression")
            ),
            "returns": Key(
                "Each player's result as a number, an expression with `me` the player (scores, chips, a rank);"
                " instead of winners or losers.",
                ref("expression"),
            ),
            "zero_sum": Key(
                "true: the returns always add up to 0 (checked at the end of every match).",
                {"type": ["boolean", "null"]},
            ),
            "constant_sum": Key(
                "The number the returns always add up to, an expression over options (checked at the end of every"
                " match).",
                ref("expression"),
            ),
            "min": Key("The lowest return a player can get, an expression over options.", ref("expression")),
            "max": Key("The highest return a player can get, an expression over options.", ref("expression")),
            "tie": _enum(
                "What it is when every player wins (or nobody loses): a draw (0 each, the default) or a shared win"
                " (+1 each).",
                ("draw", "win"),
            ),
        },
        extra={
            "not": {
                "type": "object",
                "required": ["winners", "losers"],
                "properties": {
                    "winners": {"description": "Winners given.", "type": ["string", "integer", "boolean"]},
                    "losers": {"description": "Losers given too.", "type": ["string", "integer", "boolean"]},
                },
            }
        },
    ),
}

# ---- what the checker reads from the table --------------------------------------------------

TOP_KEYS: dict[str, str] = {name: key.description for name, key in TOP.items()}
SECTION_KEYS: dict[str, frozenset[str]] = {kind: frozenset(section.keys) for kind, section in SECTIONS.items()}
# Top-level keys that other YAML files use too (CI workflows, GitLab CI, Compose files): a file
# without the marker is taken for a rule file only when it has one of the other sections.
SHARED_TOP_KEYS = frozenset({"name", "description", "variables", "include"})
RULE_FILE_SECTIONS: tuple[str, ...] = tuple(k for k in (*TOP, *COMPOSE) if k not in SHARED_TOP_KEYS | {MARKER})
# `extends` alone marks a rule file only when it names one (a YAML file or a shipped ruleset):
# other tools' configurations have an `extends` of their own (`extends: default` in
# .yamllint.yml, a list in .eslintrc.yml)
YAML_SUFFIXES = (".yaml", ".yml")


def extends_names_rule_file(value: object) -> bool:
    return isinstance(value, str) and (value.endswith(YAML_SUFFIXES) or value in shipped_rulesets())


def required_keys(kind: str) -> tuple[str, ...]:
    """The keys a section of `kind` must give in a complete game."""
    return tuple(name for name, key in SECTIONS[kind].keys.items() if key.required)


# ---- the values of the language (not sections) ----------------------------------------------

_LANGUAGE: dict[str, dict[str, Any]] = {
    "expression": {
        "description": "An expression of the rule language, e.g. 'size(hand[me]) > 0' or 'top(pile).rank'; a YAML"
        " number or true/false is a constant expression.",
        "type": ["string", "integer", "boolean", "null"],
    },
    "effect": {
        "description": "One effect: a statement such as 'move card to pile', 'score[me] += 1', 'end round', or an"
        " if/for block around further effects.",
        "if": {"type": "object"},
        "then": {
            "if": {"required": ["for"]},
            "then": {"$ref": "#/definitions/forBlock"},
            "else": {
                "if": {"required": ["repeat"]},
                "then": {"$ref": "#/definitions/repeatBlock"},
                "else": {"$ref": "#/definitions/ifBlock"},
            },
        },
        "else": {"type": "string"},
    },
    "effects": {
        "description": "Effects run in order: one effect or a list of them.",
        "if": {"type": "array"},
        "then": {"items": {"$ref": "#/definitions/effect"}},
        "else": {"if": {"type": "null"}, "else": {"$ref": "#/definitions/effect"}},
    },
    "ifBlock": {
        "description": "Effects that run only when a condition holds.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "if": {"description": "The condition, a truth-valued expression.", **given("expression")},
            "then": {"description": "Effects run when the condition is true.", **given("effects")},
            "else": {"description": "Effects run when the condition is false.", **given("effects")},
        },
        "required": ["if", "then"],
    },
    "forBlock": {
        "description": "Effects repeated for each element of a list or zone.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "for": {"description": "The loop, written 'x in collection', e.g. 'p in players'.", "type": "string"},
            "do": {
                "description": "Effects run once for each element, with the loop variable bound to it.",
                **given("effects"),
            },
        },
        "required": ["for", "do"],
    },
    "repeatBlock": {
        "description": "Effects repeated at most a number of times, until a condition holds after a pass.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "repeat": {
                "description": "The most passes: a number, or an option with 'max' or 'choices' (at most 1000).",
                **given("expression"),
            },
            "do": {"description": "Effects of one pass.", **given("effects")},
            "until": {"description": "Checked after each pass: the repeat stops once it holds.", **given("expression")},
        },
        "required": ["repeat", "do"],
    },
    "names": {
        "description": "A list of names (plain numbers are read as names too), each once (RE274).",
        "type": "array",
        "items": {"type": ["string", "integer"]},
        "uniqueItems": True,
    },
    "dimension": {
        "description": f"What a zone is kept per: 'player', 'suit', 'team', or a count from 1 to {MAX_ZONE_DIMENSION}.",
        "anyOf": [
            {"enum": ["player", "suit", "team"]},
            {"type": "integer", "minimum": 1, "maximum": MAX_ZONE_DIMENSION},
        ],
    },
}

# ---- the JSON Schema ------------------------------------------------------------------------


def _properties(keys: dict[str, Key]) -> dict[str, Any]:
    return {name: {"description": key.description, **key.schema} for name, key in keys.items()}


def _section_schema(section: Section) -> dict[str, Any]:
    return {
        "description": section.description,
        "type": ["object", "null"],
        "additionalProperties": False,
        "properties": _properties(section.keys),
        **section.extra,
    }


def _requirements(kind: str) -> dict[str, Any]:
    """What a complete game asks of each entry of `kind`: its required keys, and those of
    the entries it holds in turn (a move's set parameters need 'from')."""
    out: dict[str, Any] = {}
    needed = required_keys(kind)
    if needed:
        out["required"] = list(needed)
    inner = {
        name: {"description": _needs_text(key.entries_of), "additionalProperties": _requirements(key.entries_of)}
        for name, key in SECTIONS[kind].keys.items()
        if key.entries_of is not None and _requirements(key.entries_of)
    }
    if inner:
        out["properties"] = inner
    return out


def _needs_text(kind: str) -> str:
    needed = [f"'{n}'" for n in required_keys(kind)]
    if needed:
        listed = needed[0] if len(needed) == 1 else ", ".join(needed[:-1]) + " and " + needed[-1]
        return f"Every {kind} needs {listed}."
    inner = [key.entries_of for key in SECTIONS[kind].keys.values() if key.entries_of is not None]
    return f"In every {kind}, " + " ".join(_needs_text(i).replace("Every", "every", 1) for i in inner)


def _complete_game() -> dict[str, Any]:
    """The 'else' branch: what a file that neither extends, includes nor is a block must give."""
    properties: dict[str, Any] = {}
    for name, key in TOP.items():
        kind = key.entries_of
        needs = _requirements(kind) if kind is not None else {}
        if kind is not None and needs:
            properties[name] = {"description": _needs_text(kind), "additionalProperties": needs}
        elif key.required:
            properties[name] = {"description": f"'{name}' is required.", "not": {"type": "null"}}
    return {"required": [name for name, key in TOP.items() if key.required], "properties": properties}


def json_schema() -> dict[str, Any]:
    """The draft-07 JSON Schema of rule files, built from the tables above."""
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "rulesengine rule file",
        "description": "A card game written for rulesengine. This schema checks the shape of a rule file;"
        " 'rulesengine validate' also checks names, types and expressions. In a file that extends another, a key"
        " set to null removes what the base set.",
        "type": "object",
        "additionalProperties": False,
        "properties": _properties({**TOP, **COMPOSE}),
        "if": {
            "anyOf": [
                {"required": ["extends"]},
                {"required": ["include"]},
                {"required": ["block"], "properties": {"block": {"description": "A block.", "const": True}}},
            ]
        },
        "else": _complete_game(),
        "definitions": {**_LANGUAGE, **{kind: _section_schema(section) for kind, section in SECTIONS.items()}},
    }
    return _by_content(schema)


def _by_content(schema: dict[str, Any]) -> dict[str, Any]:
    """Check only YAML files that are rule files: those with the marker or a rule-file section
    (as 'rulesengine validate' recognises them), and require the marker in them. Other YAML
    files pass, so editors may apply the schema to every YAML file of a repository."""
    rule_file = {key: schema.pop(key) for key in ("type", "additionalProperties", "properties", "if", "else")}
    recognised: list[dict[str, Any]] = [
        {"required": [key]} for key in (MARKER, *RULE_FILE_SECTIONS) if key != "extends"
    ]
    names_rule_file = {
        "description": "A base rule file: a YAML file's name or a shipped ruleset's.",
        "type": "string",
        "anyOf": [{"pattern": "\\.ya?ml$"}, {"enum": shipped_rulesets()}],
    }
    recognised.append({"required": ["extends"], "properties": {"extends": names_rule_file}})
    return {
        "$schema": schema.pop("$schema"),
        "$id": f"urn:rulesengine:rule-file:{FORMAT_VERSION}",
        **schema,
        "description": schema["description"] + f" Only YAML files with '{MARKER}:' or a section of a rule file"
        " (such as 'decks' or 'phases') are checked; other YAML files pass.",
        "if": {"type": "object", "anyOf": recognised},
        "then": {"allOf": [{"required": [MARKER]}, rule_file]},
    }


def schema_text() -> str:
    """The schema as the package ships it (rule-file.schema.json)."""
    import json  # here: checking a rule file needs the shapes, not the schema's text

    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
