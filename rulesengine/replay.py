"""Replay files: what is needed to play a match again, decision by decision.

A replay records the ruleset, the number of players, the options, the seed and the
players' actions (with their names, so that a person can read it), the result, and the
SHA-256 of the ruleset's composed files (so a replay of a changed ruleset is refused). The
same ruleset, options, seed and actions give the same match, so a replay can be played
back and verified. Files are written atomically: a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import atomic, ir
from .api import composed_digest, find_ruleset, load_ruleset, make_game, ruleset_digest
from .compose import find_reference, is_confined
from .diagnostics import IllegalActionError, OptionError, RuleFileError, RulesEngineError, printable, shortened
from .engine import Game, State
from .limits import DEFAULT_MAX_STEPS, MAX_INTEGER
from .resources import rulesets_dir, same_file, shipped_rulesets
from .source import read_bytes

FORMAT = "rulesengine-replay"
# 2: "ruleset" is a shipped name or a path relative to the replay, and "ruleset_sha256";
# 3: "actions" are the ids players see, a choice of cards made in steps (actions.py) one id a step
VERSION = 3
MAX_REPLAY_BYTES = 64_000_000  # the ids of the longest match the engine plays (by default) take far fewer


class ReplayError(RulesEngineError):
    """A replay file that cannot be read, or a match that does not replay as recorded."""


def reference(ruleset: str, replay_path: str | os.PathLike | None = None) -> str:
    """How a replay names its ruleset: a shipped ruleset by its name, a file by its path
    relative to the replay's folder (which must contain it, as for `extends`).

    ReplayError when the ruleset is a file outside the replay's folder tree.
    """
    found = find_ruleset(ruleset).resolve()
    shipped = rulesets_dir().resolve()
    if found.parent == shipped:
        return found.stem
    folder = Path(replay_path).resolve().parent if replay_path is not None else Path.cwd().resolve()
    if not found.is_relative_to(folder):
        raise ReplayError(
            f"the ruleset {ruleset} is not in the replay's folder or below it, so the replay could not name it; "
            "write the replay next to the ruleset (or in a folder above it)"
        )
    relative = found.relative_to(folder).as_posix()
    # a file named like a shipped ruleset would be read back as that ruleset
    return f"./{relative}" if relative in shipped_rulesets() else relative


def record(state: State, ruleset: str, path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The replay of a match played from `game.new_initial_state(seed)`, to be written at
    `path` (the ruleset is named relative to it)."""
    if state.seed is None:
        raise ReplayError("only a match started with a seed can be recorded (its shuffles come from the seed)")
    actions = state.actions()
    names = []
    replay = state.game.new_initial_state(state.seed)
    for action in actions:
        names.append(replay.action_to_string(action))
        replay.apply_action(action)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": reference(ruleset, path),
        "ruleset_sha256": composed_digest(state.game.ruleset),  # the rules as loaded, not as the file is now
        "players": state.num_players,
        "options": dict(state.game.options),
        "seed": state.seed,
        "actions": actions,
        "action_names": names,
        "result": {"terminal": state.is_terminal(), "returns": state.returns(), "decisions": state.steps},
    }
    if state.game.max_steps != DEFAULT_MAX_STEPS:  # a match stopped sooner ends there when played back
        data["max_steps"] = state.game.max_steps
    return data


def check_destination(path: str | os.PathLike, *, inputs: Sequence[str | os.PathLike] = ()) -> None:
    """ReplayError unless a file can be written at `path`: checked before a match is played.

    What may be replaced is `atomic`'s rule (a regular file, or the one a link leads to);
    `inputs` are the rule files the command reads (paths or shipped names): writing over one
    would destroy it. The folder must exist and be writable.
    """
    text = printable(os.fspath(path)) or "''"
    try:
        real = atomic.target(path)
        for given in inputs:
            if same_file(real, given):
                read = printable(str(given))
                raise ReplayError(f"cannot write {text}: it is the rule file {read} that is being read")
        folder = real.parent
        if not folder.is_dir():
            raise ReplayError(f"cannot write {text}: the folder {printable(str(folder))} does not exist")
        if not os.access(folder, os.W_OK | os.X_OK) or not _can_create_in(folder):
            raise ReplayError(f"cannot write {text}: the folder {printable(str(folder))} is not writable")
        real.lstat()  # a name too long for the file system, say
    except FileNotFoundError:
        pass  # a new file
    except OSError as error:
        raise ReplayError(f"cannot write {text}: {error.strerror or error}") from None


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be made in `folder`, tried: permissions do not tell for root, to whom
    `os.access` says yes where the system refuses every file (/proc, a read-only mount)."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".rulesengine-probe-"):
            return True
    except OSError:
        return False


def write(path: str | os.PathLike, data: dict[str, Any]) -> None:
    """Write a replay atomically (see `atomic`), with the mode of any new file. A replay that
    would be larger than a replay may be (`MAX_REPLAY_BYTES`) is written without its action
    names, which reading does not need; ReplayError if it is too large even so."""
    text = json.dumps(data, indent=1) + "\n"
    if len(text.encode("utf-8")) > MAX_REPLAY_BYTES:
        text = json.dumps({key: value for key, value in data.items() if key != "action_names"}, indent=1) + "\n"
        if len(text.encode("utf-8")) > MAX_REPLAY_BYTES:
            raise ReplayError(
                f"cannot write {path}: its {len(data['actions']):,} actions take more than the "
                f"{MAX_REPLAY_BYTES:,} bytes a replay may hold"
            )
    try:
        atomic.write_text(path, text)
    except OSError as error:
        raise ReplayError(f"cannot write {path}: {error.strerror or error}") from None


def _whole_number(text: str) -> int:
    """A JSON whole number as long as Python itself writes one: the same limit of digits binds
    the writer, so every seed `run --seed` records is read back, and keeps reading cheap."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"a number of {len(text)} digits, more than a replay can hold") from None


def _no_constant(text: str) -> object:
    raise ValueError(f"{text} is not a number JSON allows")


def read(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check the shape of a replay file; ReplayError says what is wrong and where."""
    try:
        data_bytes = read_bytes(str(path), MAX_REPLAY_BYTES)
        text = data_bytes.decode("utf-8")
    except RuleFileError as error:
        raise ReplayError(f"{path}: cannot read the replay: {error.diagnostics[0].message}") from None
    except UnicodeDecodeError as error:
        raise ReplayError(f"{path}: cannot read the replay: not UTF-8 ({error.reason})") from None
    try:
        data = json.loads(text, parse_int=_whole_number, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}") from None
    except (ValueError, RecursionError) as error:
        what = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise ReplayError(f"{path}: not a valid replay: {what}") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{path}: not a rulesengine replay (a replay is a JSON object, not {_json_words(data)})")
    if "format" not in data:
        raise ReplayError(
            f'{path}: not a rulesengine replay: the key "format" is missing (expected "format": "{FORMAT}")'
        )
    if data["format"] != FORMAT:
        raise ReplayError(
            f'{path}: not a rulesengine replay (expected "format": "{FORMAT}", not {_json_words(data["format"])})'
        )
    version = _field(data, "version", _is_whole, f"a whole number from 1 to {VERSION}", path)
    if not 1 <= version <= VERSION:
        raise ReplayError(f"{path}: replay version {version} is not supported (expected 1 to {VERSION})")
    _field(data, "ruleset", _is_text, "a text", path)
    if version >= 2:
        _field(data, "ruleset_sha256", _is_text, "a text", path)
    _field(data, "players", _is_whole, "a whole number", path)
    _field(data, "options", _is_object, "an object", path)
    seed = _field(data, "seed", _is_whole, "a whole number", path)
    if not -MAX_INTEGER <= seed <= MAX_INTEGER:
        raise ReplayError(f'{path}: "seed" must be a whole number from {-MAX_INTEGER} to {MAX_INTEGER}, not {seed}')
    if "max_steps" in data:  # left out when it is the default
        steps = data["max_steps"]
        if not _is_whole(steps) or not 1 <= steps <= MAX_INTEGER:
            raise ReplayError(
                f'{path}: "max_steps" must be a whole number from 1 to {MAX_INTEGER}, not {_json_words(steps)}'
            )
    actions = _list_of(data, "actions", _is_whole, "whole numbers", path)
    if "action_names" in data:  # left out of a replay too large with them
        names = _list_of(data, "action_names", _is_text, "texts", path)
        if len(names) != len(actions):
            raise ReplayError(
                f'{path}: "action_names" must name each action once: it holds {len(names)} names '
                f"for {len(actions)} actions"
            )
    _check_result(data, path)
    return data


def _is_whole(value: object) -> bool:
    """A JSON whole number (not true or false, which are ints in Python; not 3.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_words(value: object) -> str:
    """A value read from a replay as its message shows it, in JSON's words, never a Python
    repr: null, true, false, a number as JSON writes it, a text in double quotes, a list, an
    object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return shortened(json.dumps(value), 40)
    if isinstance(value, str):
        return "the text " + printable(shortened(json.dumps(value, ensure_ascii=False), 40))
    return "a list" if isinstance(value, list) else "an object"


def _field(
    data: dict[str, Any], key: str, fits: Callable[[object], bool], expected: str, path: str | os.PathLike, of: str = ""
) -> Any:
    """The value of a key a replay must have (in the object named by `of`, if not at the top);
    ReplayError naming the key when it is missing or when its value does not fit."""
    name = f'"{key}"{of}'
    if key not in data:
        raise ReplayError(f"{path}: the key {name} is missing ({name} must be {expected})")
    if not fits(data[key]):
        raise ReplayError(f"{path}: {name} must be {expected}, not {_json_words(data[key])}")
    return data[key]


def _list_of(
    data: dict[str, Any], key: str, fits: Callable[[object], bool], items: str, path: str | os.PathLike, of: str = ""
) -> list:
    """A list of which every item fits; ReplayError naming the key, and the first item that does not fit."""
    values = _field(data, key, lambda value: isinstance(value, list), f"a list of {items}", path, of)
    for number, value in enumerate(values, start=1):
        if not fits(value):
            raise ReplayError(
                f'{path}: "{key}"{of} must be a list of {items}, but item {number} is {_json_words(value)}'
            )
    return values


def _check_result(data: dict[str, Any], path: str | os.PathLike) -> None:
    """A replay ends with the result it recorded: `terminal`, `returns` (numbers; one a seat
    is checked once the ruleset says whether the player count fits it) and `decisions`. A
    missing or malformed result is an error, not something to skip."""
    result = _field(data, "result", _is_object, 'an object with "terminal", "returns" and "decisions"', path)
    of = ' of "result"'
    _field(result, "terminal", lambda value: isinstance(value, bool), "true or false", path, of)
    _list_of(result, "returns", _is_number, "numbers (one a player)", path, of)
    _field(result, "decisions", _is_whole, "a whole number", path, of)


def ruleset_path(data: dict[str, Any], path: str | os.PathLike = "replay") -> Path:
    """The rule file a replay names, confined as `extends` is: a shipped ruleset by name, or a
    file in the replay's folder or below it (a version-1 replay may also name one in the
    working folder or below, as it was typed when recorded). Never a file elsewhere."""
    name = data["ruleset"]
    if name in shipped_rulesets():  # what `reference` writes for a shipped ruleset
        return rulesets_dir() / f"{name}.yaml"
    roots = [Path(path).resolve().parent]
    if data["version"] == 1:
        roots.append(Path.cwd().resolve())
    for root in roots:
        found = find_reference(name, root, shipped=False)
        if found is not None:
            if not is_confined(found.resolve(), root):
                raise ReplayError(
                    f"{path}: the ruleset '{printable(name)}' is outside the replay's folder; "
                    "a replay may name only a shipped ruleset or a file in its folder or below it"
                )
            return found
    raise ReplayError(
        f"{path}: the ruleset '{printable(name)}' is neither a shipped ruleset nor a file in the "
        f"replay's folder or below it{', nor one in the working folder or below it' if data['version'] == 1 else ''}"
    )


def load_game(data: dict[str, Any], path: str | os.PathLike = "replay") -> Game:
    """The game a replay was played in; ReplayError when the ruleset changed or the settings do
    not fit it (RuleFileError when the ruleset itself is invalid)."""
    file = ruleset_path(data, path)
    recorded = data.get("ruleset_sha256")
    if isinstance(recorded, str) and ruleset_digest(file) != recorded:
        raise ReplayError(
            f"{path}: the ruleset '{printable(data['ruleset'])}' has changed since the replay was "
            "recorded (its SHA-256 differs)"
        )
    ruleset = load_ruleset(file)
    _check_options(ruleset, data["options"], path)
    try:
        game = make_game(
            ruleset,
            players=data["players"],
            options=data["options"],
            max_steps=data.get("max_steps", DEFAULT_MAX_STEPS),
        )
    except OptionError as error:  # e.g. a player count out of the ruleset's range
        raise ReplayError(f"{path}: {error}") from None
    if len(data["result"]["returns"]) != game.num_players:
        raise ReplayError(
            f'{path}: "result" must hold "returns" with one number a player ({game.num_players}), '
            f"not {len(data['result']['returns'])}"
        )
    return game


def _check_options(ruleset: ir.Ruleset, options: dict[str, Any], path: str | os.PathLike) -> None:
    """Each option the ruleset has is of its type in JSON's own terms (a replay records an
    option as its value, never as the text a command line would give); the rest (unknown
    names, choices, ranges) is `make_game`'s to refuse."""
    kinds = {o.name: o.type for o in ruleset.options}
    for name, value in options.items():
        kind = kinds.get(name)
        if kind is None:
            continue
        if kind == ir.BOOL:
            fits, expected = isinstance(value, bool), "true or false"
        elif kind == ir.INT:
            fits, expected = _is_whole(value), "a whole number"
        else:
            fits, expected = _is_text(value), "a text"
        if not fits:
            raise ReplayError(
                f'{path}: option "{printable(name)}" in "options" takes {expected}, not {_json_words(value)}'
            )


def play_back(data: dict[str, Any], path: str | os.PathLike = "replay", record_log: bool = True) -> State:
    """Play a replay's actions from its seed; ReplayError at the first one that is not legal."""
    game = load_game(data, path)
    state = game.new_initial_state(data["seed"], record_log=record_log)
    names = data.get("action_names")
    whole = data["version"] < 3 and game.stepwise  # before version 3 an action id was a complete action
    for step, action in enumerate(data["actions"], start=1):
        if state.is_terminal():
            raise ReplayError(
                f"{path}: the match is over after {step - 1} actions, but the replay has {len(data['actions'])}"
            )
        if whole:
            _play_whole(
                state, action, names[step - 1] if isinstance(names, list) and step <= len(names) else None, step, path
            )
            continue
        if isinstance(names, list) and step <= len(names) and action in state.legal_actions():
            shown = state.action_to_string(action)
            if names[step - 1] != shown:
                raise ReplayError(
                    f"{path}: action {step} is '{printable(shown)}' here, but the replay calls it "
                    f"'{printable(str(names[step - 1]))}'"
                )
        try:
            state.apply_action(action)
        except IllegalActionError as error:
            raise ReplayError(f"{path}: action {step} ({action}) is not legal: {error}") from None
    return state


def _play_whole(state: State, action: int, name: object, step: int, path: str | os.PathLike) -> None:
    """Play one action of a version 1 or 2 replay, whose id named a complete action (the
    engine's key), as the steps it is made of now."""
    if state.is_chance_node():
        state.apply_action(action)  # a chance outcome: a card, as before
        return
    key = _key_of_file_order(state.game, action)
    if not state._is_legal(key):
        raise ReplayError(
            f"{path}: action {step} ({action}) is not legal (a version {VERSION - 1} or older replay names "
            "complete actions; this one is none of the legal ones)"
        )
    move, values = state.game.decode(key)
    shown = state._label(move, state.current, values)
    if name is not None and name != shown:
        raise ReplayError(
            f"{path}: action {step} is '{printable(shown)}' here, but the replay calls it '{printable(str(name))}'"
        )
    for part in state._steps_of(key):
        state.apply_action(part)


def _key_of_file_order(game: Game, number: int) -> int:
    """The key of a complete action numbered as versions 1 and 2 numbered them: every move's
    actions after the previous move's, in file order (keys now put the moves chosen in steps
    after every id: compile.key_offsets). A number outside them all gives -1, which no action is."""
    start = 0
    for move in game.program.moves:
        if start <= number < start + move.width:
            return move.offset + number - start
        start += move.width
    return -1


def check_result(data: dict[str, Any], state: State, path: str | os.PathLike = "replay") -> None:
    """ReplayError unless the played-back `state` ends as the replay recorded."""
    result = data["result"]
    if result["terminal"] != state.is_terminal():
        said = "over" if result["terminal"] else "not over"
        missing = ""
        if result["terminal"] and "max_steps" not in data and result["decisions"] == state.steps:
            # a match stopped at a decision limit of its own, with the key that says so lost
            missing = (
                f': the key "max_steps" is missing (a match stopped at {state.steps} decisions, short of the '
                f'default limit of {DEFAULT_MAX_STEPS:,}, records its limit as "max_steps")'
            )
        raise ReplayError(
            f"{path}: the replay says the match is {said} after its actions, but it is "
            f"{'over' if state.is_terminal() else 'not over'}{missing}"
        )
    if [float(r) for r in result["returns"]] != state.returns():
        raise ReplayError(
            f"{path}: the match ends with returns {json.dumps(state.returns())}, "
            f"the replay says {json.dumps(result['returns'])}"
        )
    if result["decisions"] != state.steps:
        raise ReplayError(
            f"{path}: the match does not end as recorded: it takes {state.steps} decisions, "
            f"the replay says {_json_words(result['decisions'])}"
        )


def verify(data: dict[str, Any], path: str | os.PathLike = "replay") -> State:
    """Play a replay back and check that it ends as recorded."""
    state = play_back(data, path, record_log=False)
    check_result(data, state, path)
    return state
