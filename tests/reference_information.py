"""The information state by replay: the engine's former implementation, kept as the test
oracle of the incremental one (rulesengine/knowledge.py). It shares none of its code."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rulesengine import State


def replayed_observations(state: State, player: int) -> list[dict[str, Any]]:
    """`player`'s observation after every step, found by replaying the match from its seed."""
    replay = state.game.new_initial_state(state.seed)
    seen = [replay.observation(player)]
    for value, _is_chance in state.history_list():
        replay.apply_action(value)
        if replay._pending and replay.current != player:
            continue  # a step of another player's choice made in steps: nothing to observe
        seen.append(replay.observation(player))
    return seen


def replayed_key(state: State, player: int) -> str:
    """A SHA-256 chain over the replayed observations: equal exactly when they are equal."""
    key = ""
    for observation in replayed_observations(state, player):
        text = json.dumps(observation, sort_keys=True, separators=(",", ":"))
        key = hashlib.sha256(f"{key}|{text}".encode()).hexdigest()
    return key
