"""Replay files: what is needed to play a match again, decision by decision.

A replay records the ruleset, the number of players, the options, the seed and the
players' actions (with their names, so that a person can read it), and the result. The
same ruleset, options, seed and actions give the same match, so a replay can be played
back and verified. Files are written atomically: a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .api import make_game
from .diagnostics import IllegalActionError, RulesEngineError
from .engine import State

FORMAT = "rulesengine-replay"
VERSION = 1


class ReplayError(RulesEngineError):
    """A replay file that cannot be read, or a match that does not replay as recorded."""


def record(state: State, ruleset: str) -> dict[str, Any]:
    """The replay of a match played from `game.new_initial_state(seed)`."""
    if state.seed is None:
        raise ReplayError("only a match started with a seed can be recorded (its shuffles come from the seed)")
    actions = state.actions()
    names = []
    replay = state.game.new_initial_state(state.seed)
    for action in actions:
        names.append(replay.action_to_string(action))
        replay.apply_action(action)
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": ruleset,
        "players": state.num_players,
        "options": dict(state.game.options),
        "seed": state.seed,
        "actions": actions,
        "action_names": names,
        "result": {"terminal": state.is_terminal(), "returns": state.returns(), "decisions": state.steps},
    }


def write(path: str | os.PathLike, data: dict[str, Any]) -> None:
    """Write a replay atomically (a temporary file in the same folder, then a rename)."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check the shape of a replay file; ReplayError says what is wrong and where."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReplayError(f"{path}: cannot read the replay: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{path}: not a rulesengine replay (expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ReplayError(f"{path}: replay version {data.get('version')!r} is not supported (expected {VERSION})")
    expected = {"ruleset": str, "players": int, "options": dict, "seed": int, "actions": list}
    for key, kind in expected.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ReplayError(f"{path}: \"{key}\" must be {_describe(kind)}")
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in data["actions"]):
        raise ReplayError(f"{path}: \"actions\" must be a list of whole numbers")
    return data


def _describe(kind: type) -> str:
    return {str: "a text", int: "a whole number", dict: "an object", list: "a list"}[kind]


def play_back(data: dict[str, Any], path: str = "replay", record_log: bool = True) -> State:
    """Play a replay's actions from its seed; ReplayError at the first one that is not legal."""
    game = make_game(data["ruleset"], players=data["players"], options=data["options"])
    state = game.new_initial_state(data["seed"], record_log=record_log)
    names = data.get("action_names")
    for step, action in enumerate(data["actions"], start=1):
        if state.is_terminal():
            raise ReplayError(f"{path}: the match is over after {step - 1} actions, but the replay has "
                              f"{len(data['actions'])}")
        if isinstance(names, list) and step <= len(names) and action in state.legal_actions():
            shown = state.action_to_string(action)
            if names[step - 1] != shown:
                raise ReplayError(f"{path}: action {step} is '{shown}' here, but the replay calls it "
                                  f"'{names[step - 1]}'")
        try:
            state.apply_action(action)
        except IllegalActionError as error:
            raise ReplayError(f"{path}: action {step} ({action}) is not legal: {error}") from None
    return state


def verify(data: dict[str, Any], path: str = "replay") -> State:
    """Play a replay back and check that it ends as recorded."""
    state = play_back(data, path, record_log=False)
    result = data.get("result")
    if isinstance(result, dict):
        if result.get("terminal") and not state.is_terminal():
            raise ReplayError(f"{path}: the replay says the match is over, but it is not after its actions")
        if "returns" in result and result["returns"] != state.returns():
            raise ReplayError(f"{path}: the match ends with returns {state.returns()}, "
                              f"the replay says {result['returns']}")
    return state
