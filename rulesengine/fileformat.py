"""Which YAML files are rule files, and which version of the format they are written for.

A rule file says what it is with a top-level marker, `rulesengine: 1`: the key marks the
file as a rule file, the value is the version of the format. A file without the marker is
read as version 1 (every file written before the marker existed is). `validate`, given
folders or many files, checks the files that have the marker or a section only rule files
have, and skips other YAML files (CI workflows, tool configurations) with a note.
"""

from __future__ import annotations

import enum
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from .diagnostics import Diagnostic, RuleFileError, printable, shortened
from .limits import MAX_FILE_BYTES
from .shape import FORMAT_VERSION, MARKER, RULE_FILE_SECTIONS, extends_names_rule_file
from .source import Map, Scalar, load_yaml, read_head

__all__ = [
    "FORMAT_VERSION",
    "MARKER",
    "RULE_FILE_SECTIONS",
    "Kind",
    "kind_of_document",
    "kind_of_text",
    "recognise",
    "TEST_FILE_SUFFIXES",
    "choose",
    "is_test_file",
    "lenient",
    "version_problems",
]

_SECTIONS = frozenset(RULE_FILE_SECTIONS)

# NAME.tests.yaml: the scenario tests of NAME.yaml (scenario_file.py)
TEST_FILE_SUFFIXES = (".tests.yaml", ".tests.yml")


class Kind(enum.Enum):
    """What a YAML file is, judged by its top-level keys."""

    MARKED = "a rule file with the format marker"
    UNMARKED = "a rule file without the format marker (read as version 1)"
    OTHER = "not a rule file"
    UNKNOWN = "unreadable: checked, so that the problem is reported"


def kind_of_document(document: Mapping[str, object]) -> Kind:
    """A mapping (its top-level keys and their plain values) is a rule file if it has the marker
    or a rule-file section; `extends` alone counts when it names a rule file."""
    if MARKER in document:
        return Kind.MARKED
    sections = _SECTIONS.intersection(document)
    if sections == {"extends"} and not extends_names_rule_file(document["extends"]):
        return Kind.OTHER
    return Kind.UNMARKED if sections else Kind.OTHER


def recognise(path: Path) -> Kind:
    """What the file at `path` is. YAML that does not parse is judged by its unindented
    `key:` lines, so that a broken rule file is still checked (and its error reported)."""
    try:  # a pipe or a device is refused from its status, never opened: reading would block
        data = read_head(str(path))
    except RuleFileError:
        return Kind.UNKNOWN
    text = data.decode("utf-8", "replace")
    if len(data) > MAX_FILE_BYTES or "\ufffd" in text:  # not read as YAML: judged by its lines
        return kind_of_document(_top_level_lines(text))
    return kind_of_text(text.replace("\r\n", "\n"), str(path))


def kind_of_text(text: str, name: str) -> Kind:
    """What a YAML file holding `text` (its line breaks normalised to LF) is, by its parsed top
    level, or by its unindented `key:` lines when it does not parse: the rule `validate`
    follows, for the language server's unsaved text as well."""
    try:
        tree = load_yaml(text, name)
    except (RuleFileError, ValueError):  # ValueError: PyYAML refusing an integer of thousands of digits
        return kind_of_document(_top_level_lines(text))
    if not isinstance(tree, Map):
        return Kind.OTHER
    return kind_of_document({k: v.value if isinstance(v, Scalar) else v for k, v in tree.entries.items()})


def _top_level_lines(text: str) -> dict[str, str]:
    """The unindented `name: value` lines of a text, read without a YAML parser (the value as
    written, without a comment or quotes)."""
    lines = {}
    for line in text.splitlines():
        if not line or line[0] in " \t#-{[\"'":
            continue
        name, colon, value = line.partition(":")
        if colon and name.strip().replace("_", "a").replace("-", "a").isalnum():
            lines[name.strip()] = value.split(" #")[0].strip().strip("\"'")
    return lines


def lenient(paths: Sequence[str], skip_non_rule_files: bool) -> bool:
    """Whether `validate` skips YAML files that are not rule files: given folders or several
    paths (as pre-commit and CI give them), or with `skip_non_rule_files`. A single file named
    alone is always checked: naming a file says it is meant to be a rule file."""
    return skip_non_rule_files or len(paths) > 1 or any(Path(p).is_dir() for p in paths)


def is_test_file(path: str | os.PathLike) -> bool:
    return os.fspath(path).endswith(TEST_FILE_SUFFIXES)


def choose(file: Path, skipping: bool) -> tuple[bool, str | None]:
    """Whether `validate` checks `file` (`skipping`: as `lenient` says), and a one-line note
    when it is skipped or unmarked. A scenario test file is always checked, as one. The
    caller checks a chosen file at once, so that the tree read here is still the one the
    check reads (`load_yaml` keeps the last few)."""
    if is_test_file(file):
        return True, None
    kind = recognise(file)
    # the name as the notes print it: a line break in a file's name would start a line (a CI
    # system's command) of its own
    shown = printable(str(file))
    if kind is Kind.OTHER and skipping:
        return False, f"note: {shown}: skipped, not a rule file (no '{MARKER}:' line and no rule-file sections)"
    if kind is Kind.UNMARKED:
        return True, f"note: {shown}: no '{MARKER}: {FORMAT_VERSION}' line; read as format version 1"
    return True, None


def version_problems(tree: Map) -> list[Diagnostic]:
    """RE040 for a file written for a newer format than this engine reads, RE041 for a
    marker that is not a version number; nothing for a file without the marker."""
    node = tree.get(MARKER)
    if node is None:
        return []
    value = node.value if isinstance(node, Scalar) else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        shown = "a list or mapping" if not isinstance(node, Scalar) else _as_written(value)
        digits = value.strip() if isinstance(value, str) and value.strip().isdigit() else None
        if digits is not None and int(digits[:40]) < 1:
            digits = None
        hint = f"this rulesengine reads format version {FORMAT_VERSION}: write '{MARKER}: {FORMAT_VERSION}'"
        return [
            Diagnostic(
                "RE041",
                f"'{MARKER}' takes the version of the rule-file format, a whole number from 1, not"
                f" {shortened(shown, 40)}",
                node.span,
                hint=hint if digits is None else f"write the number without quotes: '{MARKER}: {int(digits[:40])}'",
            )
        ]
    if value > FORMAT_VERSION:
        return [
            Diagnostic(
                "RE040",
                f"this file is written for version {value} of the rule-file format, but this rulesengine reads"
                f" versions up to {FORMAT_VERSION}",
                node.span,
                hint="upgrade rulesengine (pip install --upgrade rulesengine, or a newer rev or tag where a hook or an"
                " action pins it); the rest of the file is not checked",
            )
        ]
    return []


def _as_written(value: object) -> str:
    """A YAML scalar as a rule file writes it: null, true, false, a number or a quoted text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
    return repr(value)
