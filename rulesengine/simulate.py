"""Play many matches with bots and gather balance statistics."""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from .agents import RandomAgent, play_match
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


def simulate(game: Game, games: int, seed: int = 0, progress: Callable[[int], None] | None = None) -> Summary:
    """Play `games` matches with random bots; match k uses seed `seed + k`."""
    n = game.num_players
    summary = Summary(game.ruleset.name, n, dict(game.options), games, seed, [SeatRecord() for _ in range(n)], 0, 0.0)
    start = time.perf_counter()
    for k in range(games):
        match_seed = seed + k
        agents = [RandomAgent(match_seed * 1_000 + seat) for seat in range(n)]
        state = play_match(game.new_initial_state(seed=match_seed), agents)
        summary.decisions += state.steps
        summary.truncated += state.truncated
        for seat, value in enumerate(state.returns()):
            record = summary.seats[seat]
            if value > 0:
                record.wins += 1
            elif value < 0:
                record.losses += 1
            else:
                record.draws += 1
        if progress is not None:
            progress(k + 1)
    summary.seconds = time.perf_counter() - start
    return summary
