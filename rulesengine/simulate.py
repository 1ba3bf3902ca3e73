"""Play many matches with bots and gather balance statistics."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

import attrs

from .agent_spec import make_agents
from .agents import Agent, RandomAgent, play_match
from .engine import Game


@attrs.define
class SeatRecord:
    wins: int = 0
    losses: int = 0
    draws: int = 0


@attrs.define
class Summary:
    ruleset: str
    players: int
    options: dict[str, object]
    games: int
    seed: int
    seats: list[SeatRecord]
    decisions: int
    seconds: float
    truncated: int = 0

    @property
    def mean_decisions(self) -> float:
        return self.decisions / self.games if self.games else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "ruleset": self.ruleset,
            "players": self.players,
            "options": self.options,
            "games": self.games,
            "seed": self.seed,
            "seats": [
                {
                    "seat": i + 1,
                    "wins": s.wins,
                    "losses": s.losses,
                    "draws": s.draws,
                    "win_rate": s.wins / self.games if self.games else 0.0,
                }
                for i, s in enumerate(self.seats)
            ],
            "mean_decisions": self.mean_decisions,
            "decisions_per_second": self.decisions_per_second,
            "truncated": self.truncated,
            "seconds": self.seconds,
        }


def _play(game: Game, seeds: range, spec: str | None = None) -> tuple[list[tuple[float, ...]], int, int]:
    """Play one match per seed: each match's returns, all decisions, truncated matches.
    `spec`: the agents (see agent_spec); random ones need no knowledge of the players kept."""
    n = game.num_players
    results, decisions, truncated = [], 0, 0
    for match_seed in seeds:
        if spec is None:
            agents: Sequence[Agent] = [RandomAgent(match_seed * 1_000 + seat) for seat in range(n)]
        else:
            agents = make_agents(spec, n, match_seed)
        state = play_match(game.new_initial_state(seed=match_seed, track=spec is not None), agents)
        results.append(tuple(state.returns()))
        decisions += state.steps
        truncated += state.truncated
    return results, decisions, truncated


def _play_in_worker(
    ruleset_file: str, players: int, options: dict[str, object], max_steps: int, seeds: range, spec: str | None = None
) -> tuple[list[tuple[float, ...]], int, int]:
    from .api import make_game  # a worker process compiles the game for itself

    return _play(make_game(ruleset_file, players=players, options=options, max_steps=max_steps), seeds, spec)


def simulate(
    game: Game,
    games: int,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    agents: str | None = None,
) -> Summary:
    """Play `games` matches with random bots (or the `agents` spec list); match k uses seed `seed + k`.

    With `workers` > 1 the matches are shared among that many processes; the statistics
    are the same as with one, since every match has its own seed.
    """
    n = game.num_players
    summary = Summary(game.ruleset.name, n, dict(game.options), games, seed, [SeatRecord() for _ in range(n)], 0, 0.0)
    start = time.perf_counter()
    chunk = max(1, min(200, games // (workers * 4) or 1))
    batches = [range(low, min(low + chunk, seed + games)) for low in range(seed, seed + games, chunk)]
    if workers > 1 and len(batches) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            jobs = [
                pool.submit(_play_in_worker, game.ruleset.file, n, dict(game.options), game.max_steps, batch, agents)
                for batch in batches
            ]
            outcomes = (job.result() for job in jobs)
            _gather(summary, outcomes, progress)
    else:
        _gather(summary, (_play(game, batch, agents) for batch in batches), progress)
    summary.seconds = time.perf_counter() - start
    return summary


def _gather(summary: Summary, outcomes, progress: Callable[[int], None] | None) -> None:
    done = 0
    for results, decisions, truncated in outcomes:
        summary.decisions += decisions
        summary.truncated += truncated
        for returns in results:
            for seat, value in enumerate(returns):
                record = summary.seats[seat]
                if value > 0:
                    record.wins += 1
                elif value < 0:
                    record.losses += 1
                else:
                    record.draws += 1
        done += len(results)
        if progress is not None:
            progress(done)
