"""Options that change nothing in this setting: play a few matches with one other value of
each option and see whether any action or result differs."""

from __future__ import annotations

from typing import Any

from .. import api
from ..agents import RandomAgent, play_match
from ..diagnostics import RulesEngineError
from ..engine import Game

PROBE_MATCHES = 3


def alternatives(option, current: object) -> list[object]:
    """Other values of `option` to try: each other choice, the other truth value, or for a
    number the first of double, half, one more and one less that lies within its bounds
    (a far value, so a threshold such as a points target is surely crossed)."""
    if option.choices:
        return [c for c in option.choices if c != current]
    if option.type == "bool":
        return [not current]
    if option.type == "int" and isinstance(current, int):
        for candidate in (current * 2, current // 2, current + 1, current - 1):
            if (
                candidate != current
                and (option.minimum is None or candidate >= option.minimum)
                and (option.maximum is None or candidate <= option.maximum)
            ):
                return [candidate]
    return []


def _fingerprint(game: Game, seed: int) -> tuple:
    agents = [RandomAgent(seed * 1_000 + seat) for seat in range(game.num_players)]
    state = play_match(game.new_initial_state(seed=seed), agents)
    return tuple(state.actions()), tuple(state.returns())


def options_without_effect(game: Game, seed: int, matches: int = PROBE_MATCHES) -> list[dict[str, Any]]:
    """Each option whose other values gave exactly the same matches as the value in use."""
    matches = max(1, matches)
    base = [_fingerprint(game, seed + k) for k in range(matches)]
    found = []
    for option in game.ruleset.options:
        current = game.options.get(option.name)
        for value in alternatives(option, current):
            try:
                other = api.make_game(
                    game.ruleset,
                    players=game.num_players,
                    options={**game.options, option.name: value},
                    max_steps=game.max_steps,
                )
            except RulesEngineError:
                continue
            if all(_fingerprint(other, seed + k) == base[k] for k in range(matches)):
                found.append(
                    {"option": option.name, "value": current, "tried": value, "matches": matches, "span": option.span}
                )
    return found
