"""Helpers for rule-file authors: the JSON Schema, starting files and safe writing.

`rulesengine schema` prints the schema, `rulesengine new` writes a starting game or a
variant of an existing one; the text is made here, the commands live in cli.py.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import yaml

from . import atomic, ir, shape
from .describe import allowed_values

SCHEMA_FILE = "rule-file.schema.json"
_TEMPLATE = ("templates", "new-game.yaml")
_MODELINE = "# yaml-language-server: $schema="


def schema_text() -> str:
    """The JSON Schema (draft-07) of rule files, built from the table of keys the checker
    accepts; the package ships the same text as rule-file.schema.json."""
    return shape.schema_text()


def schema_comment(folder: Path) -> str:
    """The first line of a new file: a modeline pointing the editor at the schema.

    It names the nearest `rule-file.schema.json` in `folder` or a folder above, else one in
    `folder` itself, which `new` then writes (see `needs_schema`), so that the editor never
    chases a path that is not there.
    """
    for place in (folder, *folder.parents):
        candidate = place / SCHEMA_FILE
        if candidate.is_file():
            return f"{_MODELINE}{Path(os.path.relpath(candidate, folder)).as_posix()}\n"
    return f"{_MODELINE}{SCHEMA_FILE}\n"


def stale_schema(folder: Path) -> Path | None:
    """The nearest schema file in `folder` or above if it describes another format version
    than this rulesengine's (its `$id` differs), so that the author can regenerate it."""
    for place in (folder, *folder.parents):
        candidate = place / SCHEMA_FILE
        if candidate.is_file():
            try:
                found = json.loads(candidate.read_text(encoding="utf-8")).get("$id")
            except (OSError, ValueError, AttributeError):
                found = None
            return None if found == shape.json_schema()["$id"] else candidate
    return None


def needs_schema(folder: Path) -> bool:
    """Whether no schema file lies in `folder` or above, so a new file there needs one beside it."""
    return not any((place / SCHEMA_FILE).is_file() for place in (folder, *folder.parents))


def starter_game(file_name: str = "THIS_FILE") -> str:
    """A small, complete and valid game with comments explaining each section."""
    text = resources.files(__package__).joinpath(*_TEMPLATE).read_text(encoding="utf-8")
    if file_name.isprintable():  # the name goes into comments; never let it break a line
        text = text.replace("THIS_FILE", file_name)
    return text


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")


def yaml_scalar(value: object) -> str:
    """A YAML scalar that reads back as exactly `value` (a str, int or bool)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and yaml.safe_load(text) == text:  # not yes, null, true...
        return text
    # double-quoted, with PyYAML escaping what a YAML reader would refuse
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=math.inf).rstrip("\n")


def _comment(text: str) -> str:
    """Text made safe for one comment line: no line breaks, nothing a YAML reader refuses."""
    return " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())


def _option_lines(option: ir.Option) -> list[str]:
    lines = []
    if option.description:
        lines.append(f"  # {_comment(option.description)}")
    allowed = _comment(allowed_values(option))
    lines.append(f"  # {allowed}; the base's default is {_comment(yaml_scalar(option.default))}")
    lines.append(f"  {yaml_scalar(option.name)}:")
    lines.append(f"    default: {yaml_scalar(option.default)}")
    return lines


def variant(base: ir.Ruleset, reference: str, file_name: str = "THIS_FILE") -> str:
    """A file that extends `base` (named by `reference`) with every option at its default."""
    shown = _comment(file_name) or "THIS_FILE"
    lines = [
        f"# A variant of {_comment(base.name)}. Everything not written here comes from the base;",
        "# to change more, write the part to change: mappings merge key by key with the base,",
        "# a list or a single value replaces the base's, and a key set to null removes it.",
        f"# `rulesengine describe {shown}` summarises the variant as a whole.",
        f"{shape.MARKER}: {shape.FORMAT_VERSION}",
        f"extends: {yaml_scalar(reference)}",
        f"name: {yaml_scalar(base.name + ' (variant)')}",
        "",
        f"# players: {{min: {base.min_players}, max: {base.max_players}, default: {base.default_players}}}",
        "",
    ]
    if base.options:
        lines.append("# The base's options, each at its default: change a default to make it this variant's.")
        lines.append("options:")
        for option in base.options:
            lines += _option_lines(option)
    else:
        lines.append("# The base has no options.")
    return "\n".join(lines) + "\n"


def write_new(path: Path, text: str, force: bool = False) -> None:
    """Write `text` to `path` atomically; FileExistsError if anything is there and not `force`."""
    write_all([(path, text, force)])


def write_all(files: Sequence[tuple[Path, str, bool]]) -> None:
    """Write each (path, text, replace) atomically, in order, all or none.

    Missing folders are made. When one file cannot be written, the files this call made
    before it, and the folders it made, are removed again, and the OSError raised has that
    file's path as its `filename`. A file that replaces another cannot be put back: give it
    last. Only regular files are replaced (see `atomic`).
    """
    made: list[Path] = []
    try:
        for path, text, replace in files:
            try:
                atomic.target(path, replace=replace)  # a file where a folder is named: before any is made
                _make_folders(path.parent, made)
                new = not os.path.lexists(path)
                atomic.write_text(path, text, replace=replace)
            except OSError as error:
                error.filename = str(path)
                raise
            if new:
                made.append(path)
    except BaseException:
        for place in reversed(made):  # files, then the folders that held them
            try:
                if place.is_dir() and not place.is_symlink():
                    place.rmdir()
                else:
                    place.unlink()
            except OSError:
                pass  # the error that brought us here is the one to report
        raise


def _make_folders(folder: Path, made: list[Path]) -> None:
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for place in reversed(missing):
        place.mkdir()
        made.append(place)
