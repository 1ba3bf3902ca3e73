"""The public entry points: load a ruleset, set its options, make a game."""

from __future__ import annotations

import functools
import hashlib
import os
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from . import ir
from .check import check, check_block, check_with_warnings, is_block
from .compose import compose
from .diagnostics import (
    Diagnostic,
    OptionError,
    RuleFileError,
    did_you_mean,
    is_whole_number_text,
    printable,
    suggestions_bounded,
    whole_number,
)
from .fileformat import is_test_file
from .limits import DEFAULT_MAX_STEPS, MAX_INTEGER
from .resources import resolve_ruleset, shipped_rulesets
from .source import decode, read_bytes

if TYPE_CHECKING:  # checking a rule file needs neither the compiler nor the engine
    from .engine import Game


def find_ruleset(name_or_path: str) -> Path:
    """The file of a ruleset given by path or shipped name; OptionError if there is none."""
    if not isinstance(name_or_path, str):
        raise OptionError(f"a ruleset is named by a path or a shipped name, not {type(name_or_path).__name__}")
    path = resolve_ruleset(name_or_path)
    if path is None:
        try:
            os.stat(name_or_path)
        except PermissionError as error:  # there may be a file, behind a folder that may not be entered
            reason = error.strerror or "permission denied"
            raise OptionError(f"cannot read ruleset '{printable(name_or_path)}': {reason}") from None
        except (OSError, ValueError):  # no such file (or a name no system has): perhaps a shipped name
            pass
        names = shipped_rulesets()
        hint = did_you_mean(name_or_path, names)
        advice = "; ".join(part for part in (hint, f"shipped: {', '.join(names)}") if part)
        shown = printable(name_or_path)
        raise OptionError(f"unknown ruleset '{shown}': not a file and not a shipped ruleset ({advice})")
    return path


def load_ruleset(name_or_path: str | os.PathLike) -> ir.Ruleset:
    """Load, compose and check a rule file; raises RuleFileError listing every problem.

    Checked rulesets are kept, keyed on the content of every file composed into them, so a
    variant is checked again when its base (or anything it includes) changes.
    """
    return _load(str(find_ruleset(str(name_or_path))))[0]


def ruleset_digest(name_or_path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a ruleset's composed files: the file and all it extends and includes."""
    return _load(str(find_ruleset(str(name_or_path))))[1]


_KEPT = 64
# (resolved path, path as given) -> (every composed file with its hash, ruleset, digest)
_kept: dict[tuple[str, str], tuple[tuple[tuple[str, str], ...], ir.Ruleset, str]] = {}
# what each loaded ruleset was composed from, as it was read: (its files, digest); kept as
# long as the ruleset lives, so that a file changed since loading does not change them
_origins: weakref.WeakKeyDictionary[ir.Ruleset, tuple[list[str], str]] = weakref.WeakKeyDictionary()


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _file_hash(path: str) -> str | None:
    """The hash of a file's text as composition reads it (None if it cannot be read now)."""
    try:
        return _text_hash(decode(read_bytes(path), path))
    except RuleFileError:
        return None


def _key(path: str) -> tuple[str, str]:
    return str(Path(path).resolve()), path  # the path as given is in the spans


def composed_files(ruleset: ir.Ruleset) -> list[str]:
    """Every file a loaded ruleset was composed from (`extends`, `include`), its own first."""
    origin = _origins.get(ruleset)
    return list(origin[0]) if origin is not None else [ruleset.file]


def composed_digest(ruleset: ir.Ruleset) -> str:
    """SHA-256 (hex) of the texts a ruleset was composed from, as they were when it was loaded
    (`ruleset_digest` of its file then); for a ruleset not loaded from files, of its file now."""
    origin = _origins.get(ruleset)
    return origin[1] if origin is not None else ruleset_digest(ruleset.file)


def _load(path: str) -> tuple[ir.Ruleset, str]:
    key = _key(path)
    kept = _kept.get(key)
    if kept is not None and all(_file_hash(file) == digest for file, digest in kept[0]):
        return kept[1], kept[2]
    sources: dict[str, str] = {}
    with suggestions_bounded():
        ruleset = check(compose(path, sources), path)
    return ruleset, _keep(key, sources, ruleset)


def _keep(key: tuple[str, str], sources: dict[str, str], ruleset: ir.Ruleset) -> str:
    """Keep a checked ruleset for `_load`, with the texts composed into it; its digest."""
    files = tuple((file, _text_hash(text)) for file, text in sources.items())
    digest = _note_origin(ruleset, sources)
    if len(_kept) >= _KEPT:
        _kept.pop(next(iter(_kept)))
    _kept[key] = (files, ruleset, digest)
    return digest


def _note_origin(ruleset: ir.Ruleset, sources: dict[str, str]) -> str:
    """Note the files and texts `ruleset` was composed from (`composed_files`); their digest."""
    whole = hashlib.sha256()
    for text in sources.values():
        data = text.encode("utf-8", "surrogatepass")
        whole.update(len(data).to_bytes(8, "big") + data)
    _origins[ruleset] = (list(sources), whole.hexdigest())
    return whole.hexdigest()


def parse_option_value(option: ir.Option, text: str) -> object:
    """Convert a command-line text to an option's type."""
    if option.type == ir.BOOL:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise OptionError(f"option '{option.name}' takes true or false, not '{text}'")
    if option.type == ir.INT:
        number = text.strip()
        if not is_whole_number_text(number):
            raise OptionError(f"option '{option.name}' takes a whole number, not '{text}'")
        if len(number) > 20:  # past the language's limit, checked with the others' values
            raise OptionError(f"option '{option.name}' must be within ±{MAX_INTEGER}, not {printable(number[:24])}...")
        return int(number)
    return text


def _python_value(value: object) -> object:
    """A NumPy scalar (an option's value read from an array, say) as the Python value it
    holds; anything else, an array of several values too, as it is."""
    if type(value).__module__ == "numpy" and getattr(value, "size", None) == 1:
        return value.item()  # type: ignore[attr-defined]
    return value


def resolve_options(ruleset: ir.Ruleset, given: Mapping[str, object] | None) -> dict[str, object]:
    """Every option's value: the given ones checked, the rest at their defaults."""
    if given is not None and not isinstance(given, Mapping):
        raise OptionError(f"options are a mapping of names to values, not {type(given).__name__}")
    known = {o.name: o for o in ruleset.options}
    values = {o.name: o.default for o in ruleset.options}
    for name, value in (given or {}).items():
        if not isinstance(name, str):
            raise OptionError(f"an option is named by a text, not {name!r}")
        value = _python_value(value)
        option = known.get(name)
        if option is None:
            allowed = ", ".join(known) or "none"
            hint = did_you_mean(name, known)
            raise OptionError(
                f"unknown option '{name}' for {ruleset.name}{' (' + hint + ')' if hint else ''}; options: {allowed}"
            )
        if isinstance(value, str) and option.type != ir.STR:
            value = parse_option_value(option, value)
        expected = ir.OPTION_VALUE_TYPES[option.type]
        if type(value) is not expected:
            kind = {ir.INT: "a whole number", ir.BOOL: "true or false", ir.STR: "a text"}[option.type]
            raise OptionError(f"option '{name}' takes {kind}, not {value!r}")
        if expected is int and abs(cast(int, value)) > MAX_INTEGER:
            raise OptionError(f"option '{name}' must be within ±{MAX_INTEGER}, not {value}")
        if option.choices is not None and value not in option.choices:
            choices = ", ".join(map(str, option.choices))
            raise OptionError(f"option '{name}' cannot be '{value}'; choices: {choices}")
        if isinstance(value, str):  # a text's range is of its length
            size = len(value)
            if option.minimum is not None and size < option.minimum:
                raise OptionError(f"option '{name}' takes at least {option.minimum} character(s), not '{value}'")
            if option.maximum is not None and size > option.maximum:
                raise OptionError(f"option '{name}' takes at most {option.maximum} character(s), not '{value}'")
        else:
            number = cast(int, value)  # a bool option has no range
            if option.minimum is not None and number < option.minimum:
                raise OptionError(f"option '{name}' must be at least {option.minimum}, not {value}")
            if option.maximum is not None and number > option.maximum:
                raise OptionError(f"option '{name}' must be at most {option.maximum}, not {value}")
        values[name] = value
    return values


def make_game(
    ruleset: ir.Ruleset | str | os.PathLike,
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    optimize: bool = True,
) -> Game:
    """A playable game: a ruleset (or its name or path), a number of players and options.

    `optimize=False` compiles it in the reference mode: direct, slow, and sharing no code
    with the optimising compiler (see docs/language.md, "Reference mode").
    """
    if not isinstance(ruleset, ir.Ruleset):
        ruleset = load_ruleset(ruleset)
    max_steps = whole_number(max_steps, "max_steps", least=1)
    if not isinstance(optimize, bool):
        raise OptionError(f"optimize is True or False, not {optimize!r}")
    count = player_count(ruleset, players)
    values = resolve_options(ruleset, options)
    return _game_cached(ruleset, count, tuple(sorted(values.items())), max_steps, optimize)


def player_count(ruleset: ir.Ruleset, players: object) -> int:
    """The number of players of a match: `players`, or the ruleset's default for None;
    OptionError unless the ruleset allows it."""
    count = ruleset.default_players if players is None else whole_number(players, "players")
    if not ruleset.min_players <= count <= ruleset.max_players:
        raise OptionError(f"{ruleset.name} is for {ruleset.min_players} to {ruleset.max_players} players, not {count}")
    return count


@functools.lru_cache(maxsize=128)
def _game_cached(ruleset: ir.Ruleset, players: int, options: tuple, max_steps: int, optimize: bool = True) -> Game:
    from .compile import compile_program
    from .engine import Game

    program = compile_program(ruleset, dict(options), players, optimize)
    return Game(program, max_steps=max_steps)


def validate_file(path: str | os.PathLike) -> tuple[ir.Ruleset | None, list[Diagnostic]]:
    """Every problem of one rule file (errors and warnings); the ruleset if it has no errors.

    A block (`block: true`) has no ruleset of its own; only its syntax is checked. A scenario
    test file (NAME.tests.yaml) is checked as one: its tests are resolved, not run, against
    reference-mode games (they agree with the optimised ones and are built far faster).
    A valid ruleset is kept as `load_ruleset` keeps one (unless one is kept already), so
    the tests that name it next do not check it again.
    """
    if is_test_file(path):
        from .scenario_file import load as load_tests  # imported here: it imports this module

        return None, load_tests(path, optimize=False)[1]
    sources: dict[str, str] = {}
    with suggestions_bounded():
        try:
            document = compose(str(path), sources)
        except RuleFileError as error:
            return None, error.diagnostics
        if is_block(document):  # a partial file: complete only inside the games that include it
            return None, check_block(document)
        ruleset, problems = check_with_warnings(document, str(path))
    key = _key(str(path))
    if ruleset is not None:
        if key in _kept:
            _note_origin(ruleset, sources)
        else:  # its tests, checked next, load it
            _keep(key, sources, ruleset)
    return ruleset, sorted(problems, key=lambda d: (d.span.file, d.span.line, d.span.column))
