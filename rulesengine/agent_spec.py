"""Agents from a one-line spec, as the command line takes them.

    random                      uniform among the legal actions
    greedy                      one step ahead on the generic evaluation
    mc:200                      flat Monte Carlo, 200 playouts per move
    ismcts:1000                 information-set MCTS, 1000 iterations per move
    ismcts:seconds=0.5:c=0.7    half a second of processor time per move, exploration 0.7
    mcts-cheat:1000             MCTS on the true state (a reference that sees hidden cards)

A list is comma-separated, one spec per seat in seat order; when it is shorter than the
seats, its last spec fills the rest (so `ismcts:500` alone sets every seat). Seat k of a
match with seed s gets the seed s * 1000 + k, so a match is repeatable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from typing import Any

from .agents import Agent, CheatingMCTSAgent, GreedyAgent, ISMCTSAgent, MonteCarloAgent, RandomAgent, StateAgent
from .agents.arguments import MOST_SECONDS, MOST_UNITS
from .diagnostics import OptionError, did_you_mean, is_whole_number_text


class AgentSpecError(OptionError):
    """An agent spec that cannot be read."""


# name -> (the keys it takes with their types, the key a bare number sets, how to make it)
_KINDS: dict[str, tuple[dict[str, type], str | None, Callable[..., Any]]] = {
    "random": ({}, None, lambda seed: RandomAgent(seed)),
    "greedy": ({}, None, lambda seed: GreedyAgent(seed)),
    "mc": ({"playouts": int, "rollout": str}, "playouts", lambda seed, **kw: MonteCarloAgent(seed=seed, **kw)),
    "ismcts": (
        {"iterations": int, "seconds": float, "samples": int, "c": float, "rollout": str},
        "iterations",
        lambda seed, c=None, **kw: ISMCTSAgent(seed=seed, **kw, **({} if c is None else {"exploration": c})),
    ),
    "mcts-cheat": (
        {"iterations": int, "seconds": float, "c": float, "rollout": str},
        "iterations",
        lambda seed, c=None, **kw: CheatingMCTSAgent(seed=seed, **kw, **({} if c is None else {"exploration": c})),
    ),
}
_ROLLOUTS = ("round", "match")


def parse_spec(text: str) -> tuple[str, dict[str, Any]]:
    """One spec: the agent's name and its settings. AgentSpecError names what is wrong."""
    parts = [part.strip() for part in text.strip().split(":")]
    name = parts[0].lower()
    if name not in _KINDS:
        hint = did_you_mean(name, _KINDS)
        raise AgentSpecError(
            f"unknown agent '{parts[0]}' in '{text}'{' (' + hint + ')' if hint else ''}; agents: {', '.join(_KINDS)}"
        )
    keys, bare, _make = _KINDS[name]
    settings: dict[str, Any] = {}
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if not sep:
            if bare is None or not part:
                raise AgentSpecError(f"agent '{name}' takes no settings, not '{part}' (in '{text}')")
            key, value = bare, part
        key = {"time": "seconds"}.get(key.strip(), key.strip())
        if key not in keys:
            known = ", ".join(keys) or "none"
            raise AgentSpecError(f"agent '{name}' has no setting '{key}' (in '{text}'); settings: {known}")
        if key in settings:  # `ismcts:5:7` would otherwise keep the 7 without a word
            raise AgentSpecError(f"'{key}' of agent '{name}' is given twice (in '{text}')")
        settings[key] = _convert(name, key, value.strip(), keys[key], text)
    return name, settings


_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _convert(name: str, key: str, value: str, kind: type, text: str) -> Any:
    if kind is str:
        if key == "rollout" and value not in _ROLLOUTS:
            raise AgentSpecError(f"rollout of '{name}' is 'round' or 'match', not '{value}' (in '{text}')")
        return value
    # as numbers are written: int() and float() would also read other scripts' digits and 1_000
    plain = is_whole_number_text(value) if kind is int else _DECIMAL.fullmatch(value) is not None
    number = kind(value) if plain else None
    if number is None or not math.isfinite(number):  # NaN passes every comparison below
        what = "a whole number" if kind is int else "a finite number"
        raise AgentSpecError(f"'{key}' of agent '{name}' takes {what}, not '{value}' (in '{text}')") from None
    if number <= 0 and key != "c" or number < 0:
        raise AgentSpecError(f"'{key}' of agent '{name}' must be above 0, not {value} (in '{text}')")
    most = MOST_UNITS if kind is int else MOST_SECONDS if key in ("seconds", "time") else None
    if most is not None and number > most:  # a typo, not a budget (the agent checks it too)
        raise AgentSpecError(f"'{key}' of agent '{name}' takes at most {most:,}, not {value} (in '{text}')")
    return number


def parse_specs(text: str) -> list[tuple[str, dict[str, Any]]]:
    """A comma-separated list of specs."""
    specs = [part for part in text.split(",")]
    if not text.strip() or any(not part.strip() for part in specs):
        raise AgentSpecError(f"an agent list is comma-separated specs like 'ismcts:1000,greedy', not '{text}'")
    return [parse_spec(part) for part in specs]


AGENT_NAMES = tuple(_KINDS)


def make_agent(spec: str, seed: int) -> StateAgent:
    """The agent one spec describes (e.g. `ismcts:500`), seeded with `seed`."""
    name, settings = parse_spec(spec)
    return _KINDS[name][2](seed, **settings)


def make_agents(spec: str, num_players: int, seed: int) -> list[Agent]:
    """One agent per seat from a spec list (the last spec fills the remaining seats)."""
    specs = parse_specs(spec)
    if len(specs) > num_players:
        raise AgentSpecError(f"{len(specs)} agents given for {num_players} seat(s): '{spec}'")
    specs += [specs[-1]] * (num_players - len(specs))
    return [_KINDS[name][2](seed * 1_000 + seat, **settings) for seat, (name, settings) in enumerate(specs)]


def make_opponents(spec: str, num_players: int, person: int | Collection[int], seed: int) -> list[Agent | None]:
    """Bots for every seat but `person` (None there; several people may be given as a
    collection of seats), the specs read in seat order over the other seats; each seat is
    seeded as in `make_agents`, so the same spec list gives the same bots whichever seat the
    person takes."""
    people = {person} if isinstance(person, int) else set(person)
    others_count = num_players - len(people)
    specs = parse_specs(spec)
    if len(specs) > max(others_count, 1):
        raise AgentSpecError(f"{len(specs)} opponents given for {others_count} other seat(s): '{spec}'")
    specs += [specs[-1]] * (others_count - len(specs))
    others = iter(specs)
    bots: list[Agent | None] = []
    for seat in range(num_players):
        if seat in people:
            bots.append(None)
        else:
            name, settings = next(others)
            bots.append(_KINDS[name][2](seed * 1_000 + seat, **settings))
    return bots
