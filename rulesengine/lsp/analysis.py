"""What the language server knows about one open document, from its text (saved or not):
its diagnostics (the same as `rulesengine validate` gives for the saved file), the names it
declares with their places (also in the files it extends or includes), its outline, and what
fits at a place (completion). Nothing here needs pygls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs

from .. import scenario_file
from ..check import check_block, check_with_warnings, is_block
from ..compose import compose
from ..diagnostics import Diagnostic, RuleFileError, Span
from ..fileformat import Kind, is_test_file, kind_of_text
from ..scenario_checks import EXPECT_KEYS
from ..scenario_file import load as load_tests
from ..scenario_names import POSITION_KEYS
from ..source import Map, Node, decode, load_yaml, normalise_line_breaks, plain
from . import reference

# section -> the kind of name its entries declare
SECTIONS = {
    "options": "option",
    "decks": "deck",
    "zones": "zone",
    "variables": "variable",
    "define": "definition",
    "moves": "move",
    "phases": "phase",
    "triggers": "trigger",
}


@attrs.frozen
class Declaration:
    name: str
    kind: str
    span: Span  # the key that declares it (in the file where it is written)
    detail: str  # its type or summary, one line


@attrs.frozen
class Symbol:
    name: str
    kind: str
    span: Span  # the whole entry
    selection: Span  # its key
    children: tuple[Symbol, ...] = ()


@attrs.frozen
class Completion:
    label: str
    kind: str  # key, zone, variable, option, definition, move, phase, trigger, deck, builtin, function, macro
    detail: str
    documentation: str | None = None


@attrs.frozen
class Analysis:
    path: str
    diagnostics: tuple[Diagnostic, ...]
    declarations: dict[str, Declaration] | None  # None: the text does not compose
    symbols: tuple[Symbol, ...]


def not_unicode(text: str, path: str) -> tuple[Diagnostic, ...]:
    """What `validate` reports for the file this text would be, when the text holds a lone
    surrogate (JSON can carry one, a UTF-8 file cannot): the bytes written for it are not
    UTF-8. Nothing when the text is Unicode."""
    try:
        text.encode("utf-8")
        return ()
    except UnicodeEncodeError:
        pass
    try:
        decode(text.encode("utf-8", "surrogatepass"), path)
    except RuleFileError as error:
        return tuple(error.diagnostics)
    return ()


def is_rule_or_test_file(text: str, path: str) -> bool:
    """Whether the document is one the server reports on: a scenario test file, by its name,
    or a rule file by the rule `validate` follows in a folder (the marker or a rule-file
    section; `extends` alone when it names a rule file). Others, such as `.yamllint.yml`
    with its `extends: default`, get no diagnostics."""
    return is_test_file(path) or kind_of_text(text, path) is not Kind.OTHER


def analyse(text: str, path: str, on_disk: bool = True, in_file: bool = True) -> Analysis:
    """What there is to know about `text`, the document at `path`. When the path can name no
    file (`on_disk` false), nothing beside it is looked up: only the text itself is read, for
    its syntax and its outline. A document in no file (`in_file` false: an editor's unsaved
    `untitled:` buffer) has no folder: a rule file may name the shipped rulesets only, and a
    scenario test file, whose ruleset lies beside it, is read as text alone."""
    text = normalise_line_breaks(text)
    unreadable = not_unicode(text, path)
    if unreadable:  # the YAML reader cannot take such text
        return Analysis(path, unreadable, None, ())
    if not is_rule_or_test_file(text, path):  # another tool's file, which validate skips: not ours to judge
        return Analysis(path, (), None, ())
    if not on_disk or (not in_file and is_test_file(path)):
        try:
            own = load_yaml(text, path)
        except RuleFileError as error:
            return Analysis(path, tuple(error.diagnostics), None, ())
        return Analysis(path, (), None, () if is_test_file(path) else outline(own))
    if is_test_file(path):
        return Analysis(path, tuple(load_tests(path, text, optimize=False)[1]), None, ())  # diagnostics only
    try:
        own = load_yaml(text, path)
    except RuleFileError as error:
        return Analysis(path, tuple(error.diagnostics), None, ())
    symbols = outline(own)
    try:
        document = compose(path, text=text, in_file=in_file)
    except RuleFileError as error:
        return Analysis(path, tuple(error.diagnostics), None, symbols)
    if is_block(document):
        problems = check_block(document)
    else:
        problems = check_with_warnings(document, path)[1]
    ordered = sorted(problems, key=lambda d: (d.span.file, d.span.line, d.span.column))
    return Analysis(path, tuple(ordered), declarations(document), symbols)


# ---- names ------------------------------------------------------------------------------------


def name_of(key: str) -> str:
    """A definition's name from its head (`lays_spade(cards)` -> `lays_spade`)."""
    return key.split("(", 1)[0].strip()


def declarations(document: Map) -> dict[str, Declaration]:
    found: dict[str, Declaration] = {}
    for section, kind in SECTIONS.items():
        entries = document.get(section)
        if not isinstance(entries, Map):
            continue
        for key, value in entries.items():
            name = name_of(key)
            found.setdefault(name, Declaration(name, kind, entries.key_spans[key], _detail(kind, key, value)))
    return found


def _listed(value: object) -> str:
    return ", ".join(map(_spelt, value)) if isinstance(value, list) else _spelt(value)


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "null"}  # plain, they would not be texts


def _spelt(value: object) -> str:
    """A value as a YAML file writes it: true, null, WORD, "10" (a text quoted where plain it
    would read otherwise)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        plain_text = _PLAIN.fullmatch(value) and value.lower() not in _WORDS
        return value if plain_text else json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return f"[{_listed(value)}]"
    return str(value)


def _detail(kind: str, key: str, value: Node) -> str:
    """One line about a declaration, from its entry as written (which may be malformed)."""
    data = plain(value)
    fields = data if isinstance(data, dict) else {}
    if kind == "zone":
        per = fields.get("per")
        where = f", one per {_listed(per).replace(', ', ' x ')}" if per else ""
        return f"zone{where}, seen by {fields.get('visibility', 'all')}"
    if kind == "variable":
        per = " per player" if fields.get("per") == "player" else ""
        return f"variable: {fields.get('type', 'int')}{per}"
    if kind == "option":
        default = fields.get("default", data if not fields else None)
        choices = f", one of {_listed(fields['choices'])}" if fields.get("choices") else ""
        return f"option, default {_spelt(default)}{choices}"
    if kind == "definition":
        return f"definition {key}: {' '.join(str(data).split())}"
    if kind == "move":
        params = fields.get("params")
        shown = f"({', '.join(params)})" if isinstance(params, dict) else ""
        legal = f", legal: {' '.join(str(fields['legal']).split())}" if "legal" in fields else ""
        return f"move {key}{shown}{legal}"
    if kind == "phase":
        return f"phase, moves: {_listed(fields.get('moves') or [])}"
    if kind == "deck":
        return f"deck into '{fields.get('zone', '?')}'"
    return kind


def outline(tree: Node) -> tuple[Symbol, ...]:
    """The sections of this document and the entries they declare."""
    if not isinstance(tree, Map):
        return ()
    symbols = []
    for key, value in tree.items():
        children: list[Symbol] = []
        if key in SECTIONS and isinstance(value, Map):
            for entry, node in value.items():
                key_span = value.key_spans[entry]
                children.append(Symbol(name_of(entry), SECTIONS[key], _joined(key_span, node.span), key_span))
        key_span = tree.key_spans[key]
        symbols.append(Symbol(key, "section", _joined(key_span, value.span), key_span, tuple(children)))
    return tuple(symbols)


def _joined(first: Span, last: Span) -> Span:
    end = max((first.end_line, first.end_column), (last.end_line, last.end_column))
    return Span(first.file, first.line, first.column, end[0], end[1])


# ---- completion and hover ------------------------------------------------------------------------


def word_at(line: str, column: int) -> tuple[str, int]:
    """The name around 0-based `column` of `line`, and where it starts."""
    start = column
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] == "_"):
        start -= 1
    end = column
    while end < len(line) and (line[end].isalnum() or line[end] == "_"):
        end += 1
    return line[start:end], start


def key_path(lines: list[str], line: int) -> tuple[str, ...] | None:
    """The keys of the mappings that hold the key being written on `line` (a list between
    them is passed over: `tests:` / `- name: ...` / `position:` gives ('tests', 'position'));
    None if the line is no place for a key."""
    text = lines[line] if line < len(lines) else ""
    indent = len(text) - len(text.lstrip(" "))
    if text.lstrip(" ").startswith("- "):
        indent += 2  # the first key of a list item
    path: list[str] = []
    for number in range(min(line, len(lines)) - 1, -1, -1):  # a line past the end has the last above it
        above = lines[number]
        stripped = above.strip()
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(above) - len(above.lstrip(" "))
        if depth >= indent:
            continue
        if stripped.startswith("-"):
            indent = depth  # an item of a list: its keys are siblings; the list's key is above
            continue
        if ":" not in stripped:
            return None
        path.append(stripped.split(":", 1)[0].strip().strip("'\""))
        indent = depth
        if depth == 0:
            break
    return tuple(reversed(path))


def test_keys_of(path: tuple[str, ...]) -> dict[str, str]:
    """The keys a mapping at `path` of a scenario test file may hold."""
    inner = tuple(key for key in path if key != "steps")  # a step holds play and expect, as a test does
    shapes = {
        (): scenario_file.FILE_KEYS,
        ("tests",): scenario_file.TEST_KEYS,
        ("tests", "position"): POSITION_KEYS,
        ("tests", "expect"): EXPECT_KEYS,
    }
    if path and path[-1] == "steps":
        return scenario_file.STEP_KEYS
    return shapes.get(inner, {})


def completions(
    lines: list[str], line: int, column: int, names: dict[str, Declaration] | None, test_file: bool = False
) -> list[Completion]:
    text = lines[line][:column] if line < len(lines) else ""
    stripped = text.lstrip().removeprefix("- ").strip()  # "  - " is the start of a list item
    if stripped.replace("_", "").isalnum() or not stripped:
        path = key_path(lines, line)
        if path is not None and ":" not in text:
            keys = test_keys_of(path) if test_file else reference.keys_of(path)
            if keys:
                return [Completion(key, "key", description) for key, description in keys.items()]
    word, start = word_at(text, len(text))
    if start > 0 and text[start - 1] == ".":
        return [
            Completion(name, "macro", reference.MACRO_DOCS.get(name, name), reference.macro_help(name))
            for name in [*reference.MACROS, "bind"]
        ]
    found = [Completion(d.name, d.kind, d.detail) for d in (names or {}).values()]
    found += [
        Completion(
            name,
            "builtin",
            f"{reference.shown_type(type_)}: {reference.BUILTIN_DOCS.get(name, '')}",
            reference.builtin_help(name),
        )
        for name, type_ in reference.BUILTINS.items()
    ]
    found += [
        Completion(name, "function", "; ".join(reference.signatures(name)), reference.function_help(name))
        for name in reference.FUNCTIONS
    ]
    found.append(Completion("me", "builtin", "player: the player the expression is about"))
    return found


def hover(line_text: str, column: int, names: dict[str, Declaration] | None) -> str | None:
    word, start = word_at(line_text, column)
    if not word:
        return None
    after = line_text[start + len(word) :].lstrip()
    if start > 0 and line_text[start - 1] == ".":
        shown = reference.macro_help(word)
        if shown:
            return shown
    declaration = (names or {}).get(word)
    if declaration is not None:
        place = f"{Path(declaration.span.file).name}:{declaration.span.line}"
        return f"```\n{declaration.detail}\n```\n{declaration.kind} `{word}`, declared at {place}"
    if after.startswith("(") or word in reference.FUNCTIONS:
        shown = reference.function_help(word)
        if shown:
            return shown
    return reference.builtin_help(word)


def definition(line_text: str, column: int, names: dict[str, Declaration] | None) -> Span | None:
    word, _ = word_at(line_text, column)
    declaration = (names or {}).get(word)
    return declaration.span if declaration is not None else None
