"""Agent strength and speed, and the cost of the knowledge model.

    python -m benchmarks.agents                          # the full run: 400 matches a pairing
    python -m benchmarks.agents --matches 20 --iterations 200 --game padan -o target=10
    python -m benchmarks.agents --knowledge              # key and resample cost against match length

Strength: ISMCTS (`--iterations` per move) plays `--matches` matches against random and
against greedy on Padan, Pan with 2 players and Padvinderspel with 2 players, seats
alternated (ISMCTS is P1 in even matches, P2 in odd ones; match k deals from seed k). The
table gives ISMCTS's wins, losses and draws, its win rate with a Wilson 95 % interval, its
iterations per second of processor time and the cost of one iteration. Figures, not
tests: the targets (>= 75 % against random, beating greedy) are read off the table.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

import rulesengine
from rulesengine import knowledge
from rulesengine.agents import GreedyAgent, ISMCTSAgent, RandomAgent, play_match
from rulesengine.resample import Resampler

GAMES = {"padan": ("padan", 2), "pan": ("pan", 2), "padvinderspel": ("padvinderspel", 2)}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class Timed:
    """An agent wrapper adding up the processor time and the ISMCTS iterations of its moves."""

    def __init__(self, agent: ISMCTSAgent):
        self.agent = agent
        self.seconds = 0.0
        self.iterations = 0

    def choose(self, given):
        start = time.process_time()
        action = self.agent.choose(given)
        self.seconds += time.process_time() - start
        self.iterations += self.agent.last_iterations
        return action


def pairing(
    game: rulesengine.Game, opponent: Callable[[int], object], matches: int, iterations: int, samples: int
) -> dict:
    wins = losses = draws = 0
    seconds = 0.0
    done_iterations = 0
    for k in range(matches):
        seat = k % 2
        searcher = Timed(ISMCTSAgent(iterations, seed=k, samples=samples))
        agents = [opponent(k * 1_000 + 7), opponent(k * 1_000 + 7)]
        agents[seat] = searcher
        final = play_match(game.new_initial_state(seed=k), agents)
        value = final.returns()[seat]
        wins += value > 0
        losses += value < 0
        draws += value == 0
        seconds += searcher.seconds
        done_iterations += searcher.iterations
    low, high = wilson(wins, matches)
    rate = done_iterations / seconds if seconds else 0.0
    return {
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "rate": wins / matches,
        "low": low,
        "high": high,
        "iterations_per_second": rate,
        "ms_per_iteration": 1000 / rate if rate else 0.0,
    }


def strength(names: list[str], matches: int, iterations: int, samples: int, options: dict[str, str]) -> None:
    print(
        f"ISMCTS {iterations} iterations/move ({samples} resampled states a move), {matches} matches a pairing,"
        " seats alternated"
    )
    print(
        f"{'game':<15} {'opponent':<8} {'W':>4} {'L':>4} {'D':>4} {'win rate':>9} {'95% interval':>15}"
        f" {'it/s':>7} {'ms/it':>6}"
    )
    for name in names:
        ruleset, players = GAMES[name]
        known = {o.name for o in rulesengine.load_ruleset(ruleset).options}  # each game takes its own options
        game = rulesengine.make_game(ruleset, players=players, options={k: v for k, v in options.items() if k in known})
        for label, opponent in (("random", RandomAgent), ("greedy", GreedyAgent)):
            r = pairing(game, opponent, matches, iterations, samples)
            print(
                f"{name:<15} {label:<8} {r['wins']:>4} {r['losses']:>4} {r['draws']:>4} {r['rate']:>9.1%}"
                f"   [{r['low']:.1%}, {r['high']:.1%}] {r['iterations_per_second']:>7.0f}"
                f" {r['ms_per_iteration']:>6.2f}",
                flush=True,
            )


def knowledge_cost(seed: int = 1) -> None:
    """The cost of information_state_key and of one resample as a long match goes on.

    Every step asks for the key and the observations of P1, as an agent's view does, so
    what is kept is kept warm; a resample replays the steps since the last shuffle."""
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    marks = {10, 100, 1_000, 3_000, 6_000}
    print(
        f"{'step':>6} {'since shuffle':>13} {'key, fresh clone (us)':>22} {'key, next step (us)':>20}"
        f" {'resample P1 (ms)':>17}"
    )
    while not state.is_terminal() and marks:
        state.apply_action(rng.choice(state.legal_actions()))
        state.information_state_key(0)
        knowledge.observation_chain(state, 0)
        if state.steps in marks:
            marks.discard(state.steps)
            fresh = state.clone()
            fresh.apply_action(rng.choice(fresh.legal_actions()))
            start = time.perf_counter()
            fresh.information_state_key(0)
            after_step = (time.perf_counter() - start) * 1e6
            start = time.perf_counter()
            for _ in range(100):
                state.clone().information_state_key(0)
            cached = (time.perf_counter() - start) * 1e4
            sampler = Resampler(state, 0)
            sampler.sample(rng)  # the first draw also reads the player's view up to the last shuffle, once a round
            start = time.perf_counter()
            for _ in range(5):
                sampler.sample(rng)
            resample = (time.perf_counter() - start) * 200
            since = state.steps - state._checkpoint.steps
            print(f"{state.steps:>6} {since:>13} {cached:>22.1f} {after_step:>20.1f} {resample:>17.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="one game (repeat for more)")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=32, help="resampled states per ISMCTS move")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--knowledge", action="store_true", help="measure the knowledge model instead")
    args = parser.parse_args()
    if args.knowledge:
        knowledge_cost()
        return
    options = dict(pair.split("=", 1) for pair in args.option)
    strength(args.game or list(GAMES), args.matches, args.iterations, args.samples, options)


if __name__ == "__main__":
    main()
