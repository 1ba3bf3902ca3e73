"""Balance analysis: play many matches, gather statistics with their uncertainty, compare
variants, and write them as text, JSON, JSON lines and a self-contained HTML report."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..engine import Game
from .aggregate import Tally, warnings
from .backends import BackendError, Outcome, Progress, run
from .playout import Plan, Recording, standing_names
from .probe import PROBE_MATCHES, options_without_effect
from .settings import (
    SettingError,
    check_backend,
    check_game,
    check_matches,
    check_probe,
    check_progress,
    check_workers,
    highest_first_seed,
    plan_settings,
)

__all__ = [
    "BackendError",
    "Plan",
    "SettingError",
    "Tally",
    "analyse",
    "highest_first_seed",
    "make_plan",
    "plan_settings",
    "provenance",
    "standing_names",
    "summarise",
]


def make_plan(
    game: Game,
    games: int,
    seed: int = 0,
    agents: Sequence[str] = ("random",),
    roles: Sequence[str] | None = None,
    standing: str | None = None,
) -> Plan:
    """What to play: `games` matches (at least one) with seeds `seed`, `seed + 1`, ..., each
    within the range `run --seed` takes, so that every match can be replayed; `agents` by
    seat, `roles` to report (None: every one), the `standing` variable (None: the result
    rule). A setting that is refused raises SettingError (an OptionError), naming it."""
    check_game(game)
    count, first = check_matches(games, seed)
    settings = plan_settings(game, agents, roles, standing)
    return Plan(
        game.ruleset.file,
        game.num_players,
        dict(game.options),
        game.max_steps,
        first,
        count,
        settings["agents"],
        settings["roles"],
        settings["standing"],
    )


def _sha256(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def provenance(game: Game) -> dict[str, str | None]:
    """What identifies the rules played: the SHA-256 of the rule file, read now, and of every
    file composed into the rules as they were loaded (as a replay records it). Taken before
    the matches are played, so that a file edited during a long run is not taken for them."""
    from ..api import composed_digest

    return {"sha256": _sha256(game.ruleset.file), "ruleset_sha256": composed_digest(game.ruleset)}


def summarise(
    game: Game,
    plan: Plan,
    outcome: Outcome,
    tally: Tally,
    probe: bool = True,
    rules: dict[str, str | None] | None = None,
) -> dict[str, Any]:
    """The analysis as one JSON-ready object: what was simulated, then every statistic (of
    the matches `tally` was given). `rules` is the `provenance` of the game taken before the
    matches (now if not given)."""
    stats = tally.result()
    # a few matches per other option value: worth it in a run of many matches, not in a short one
    probe_matches = min(PROBE_MATCHES, outcome.games // 10)
    unused = options_without_effect(game, plan.seed, probe_matches) if probe and probe_matches else []
    stats["coverage"]["options_without_effect"] = [{k: v for k, v in u.items() if k != "span"} for u in unused]
    all_rounds = sum(stats["endings"]["rounds"].values())
    stats["warnings"] = warnings(stats, all_rounds)
    done, seconds = outcome.games, outcome.seconds
    return {
        "engine_version": __version__,
        "ruleset": game.ruleset.name,
        "path": game.ruleset.file,
        **(rules if rules is not None else provenance(game)),
        "players": game.num_players,
        "options": dict(game.options),
        "seed": plan.seed,
        "games_requested": plan.games,
        "partial": outcome.interrupted or done < plan.games,
        "agents": list(plan.agents),
        "backend": outcome.backend,
        "workers": outcome.workers,
        "seconds": seconds,
        "matches_per_second": done / seconds if seconds > 0 else 0.0,
        "decisions_per_second": sum(tally.decisions) / seconds if seconds > 0 else 0.0,
        **stats,
    }


def analyse(
    game: Game,
    games: int,
    seed: int = 0,
    workers: int | str = 1,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
    probe: bool = True,
    *,
    agents: Sequence[str] = ("random",),
    roles: Sequence[str] | None = None,
    standing: str | None = None,
) -> dict[str, Any]:
    """Simulate `games` matches of `game` and return the analysis (see `summarise`). Every
    setting is checked before a match is played: one that is refused raises SettingError (an
    OptionError, and an EngineError), naming the parameter and what it takes."""
    plan = make_plan(game, games, seed, agents, roles, standing)
    count = check_workers(workers)
    check_backend(backend, address)
    check_progress(progress)
    check_probe(probe)
    rules = provenance(game)
    tally = Tally(game.program, plan)
    outcome = run(plan, Recording(game, plan), count, backend, address, progress, tally.add)
    return summarise(game, plan, outcome, tally, probe and not outcome.interrupted, rules)
