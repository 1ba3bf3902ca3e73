"""Balance analysis: play many matches, gather statistics with their uncertainty, compare
variants, and write them as text, JSON, JSON lines and a self-contained HTML report."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .. import __version__
from ..diagnostics import EngineError, integer
from ..engine import Game
from ..limits import MAX_INTEGER
from .aggregate import Tally, warnings
from .backends import MAX_WORKERS, BackendError, Outcome, run
from .playout import Plan, Recording, standing_names
from .probe import PROBE_MATCHES, options_without_effect

__all__ = [
    "BackendError",
    "Plan",
    "Tally",
    "analyse",
    "highest_first_seed",
    "make_plan",
    "provenance",
    "standing_names",
    "summarise",
]


def highest_first_seed(matches: int) -> int:
    """The largest seed the first of `matches` matches may take: match k plays seed SEED+k,
    and every one must stay within the seeds `run --seed` takes."""
    return MAX_INTEGER - matches + 1


def make_plan(
    game: Game,
    games: int,
    seed: int = 0,
    agents: tuple[str, ...] = ("random",),
    roles: tuple[str, ...] | None = None,
    standing: str | None = None,
) -> Plan:
    """What to play: `games` matches (at least one) with seeds `seed`, `seed + 1`, ..., each
    within the range `run --seed` takes, so that every match can be replayed."""
    count, first = integer(games), integer(seed)
    if count is None or count < 1:
        raise EngineError(f"the number of matches is a whole number of at least 1, not {games!r}")
    highest = highest_first_seed(count)
    if first is None or not -MAX_INTEGER <= first <= highest:
        raise EngineError(
            f"a seed is a whole number from {-MAX_INTEGER} to {highest} for {count} match(es) "
            f"(the seeds of the matches count up from it), not {seed!r}"
        )
    return Plan(
        game.ruleset.file,
        game.num_players,
        dict(game.options),
        game.max_steps,
        first,
        count,
        tuple(agents),
        roles,
        standing,
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
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress=None,
    probe: bool = True,
    **plan_settings,
) -> dict[str, Any]:
    """Simulate `games` matches of `game` and return the analysis (see `summarise`)."""
    plan = make_plan(game, games, seed, **plan_settings)
    count = integer(workers)
    if count is None or not 1 <= count <= MAX_WORKERS:  # as `-j` is refused
        raise EngineError(f"workers is a whole number from 1 to {MAX_WORKERS}, not {workers!r}")
    rules = provenance(game)
    tally = Tally(game.program, plan)
    outcome = run(plan, Recording(game, plan), count, backend, address, progress, tally.add)
    return summarise(game, plan, outcome, tally, probe and not outcome.interrupted, rules)
