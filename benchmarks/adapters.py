"""The adapters' cost: OpenSpiel against the engine's own API, and PettingZoo's step rate.

    python -m benchmarks.adapters                   # Pan, 3 players
    python -m benchmarks.adapters --game padan --players 2 --seconds 4

OpenSpiel: the same random playout (chance nodes drawn one card at a time, as OpenSpiel
drives them; uniform choice among the legal actions) through `pyspiel` and through the
engine's State, in alternating rounds; the figure is processor time per player decision,
and the ratio adapter ÷ native. PettingZoo: steps per second of the AEC loop with a random
legal action taken from the action mask, the observation read at every step as an agent
would read it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import rulesengine

from . import arguments

Playout = Callable[[int], int]  # seed -> player decisions made


def _random_playout(state, rng: random.Random) -> int:
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def native_playout(ruleset: str, players: int) -> Playout:
    game = rulesengine.make_game(ruleset, players=players)
    # seed=None: shuffles are chance nodes, as under OpenSpiel; knowledge kept, as there
    return lambda seed: _random_playout(game.new_initial_state(seed=None), random.Random(seed))


def openspiel_playout(ruleset: str, players: int) -> Playout | None:
    try:
        import pyspiel

        from rulesengine.adapters.openspiel import register
    except ImportError:
        return None
    game = pyspiel.load_game(register(ruleset, players=players))
    return lambda seed: _random_playout(game.new_initial_state(), random.Random(seed))


def pettingzoo_steps(ruleset: str, players: int) -> Playout | None:
    """seed -> AEC steps of one whole match (a step per agent turn, including the last ones)."""
    try:
        import numpy as np

        from rulesengine.adapters.pettingzoo import env as make_env
    except ImportError:
        return None
    environment = make_env(ruleset, players=players)

    def play(seed: int) -> int:
        environment.reset(seed=seed)
        rng = random.Random(seed)
        steps = 0
        for _agent in environment.agent_iter():
            observation, _reward, termination, truncation, _info = environment.last()
            if termination or truncation:
                action = None
            else:
                action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            environment.step(action)
            steps += 1
        return steps

    return play


def rate(play: Playout, seconds: float, first_seed: int) -> float:
    """Decisions (or steps) per second of processor time over whole matches."""
    start = time.process_time()
    count, seed = 0, first_seed
    while True:
        count += play(seed)
        seed += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return count / elapsed


def alternate(a: Playout, b: Playout, seconds: float, rounds: int) -> tuple[float, float, float]:
    """(rate of a, rate of b, median of the per-round ratios b-time ÷ a-time per decision)."""
    rates_a, rates_b, ratios = [], [], []
    for round_ in range(rounds):
        rates_a.append(rate(a, seconds / rounds / 2, 1000 * round_))
        rates_b.append(rate(b, seconds / rounds / 2, 1000 * round_))
        ratios.append(rates_a[-1] / rates_b[-1])
    return statistics.median(rates_a), statistics.median(rates_b), statistics.median(ratios)


def refuse_unplayable(parser: argparse.ArgumentParser, ruleset: str, players: int) -> None:
    """A usage error naming the argument, for a ruleset that does not load or a player count it
    does not take, rather than a traceback from the first playout built."""
    try:
        rulesengine.load_ruleset(ruleset)
    except rulesengine.RulesEngineError as error:
        parser.error(f"argument --game: {error}")
    try:
        rulesengine.make_game(ruleset, players=players)
    except rulesengine.RulesEngineError as error:  # the ruleset loaded: what is left to refuse is the count
        parser.error(f"argument --players: {error}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pan", help="ruleset name or file (default pan)")
    parser.add_argument("--players", type=int, default=3, help="players (default 3)")
    parser.add_argument(
        "--seconds", type=arguments.seconds, default=4.0, help="processor time per measurement (default 4)"
    )
    parser.add_argument("--rounds", type=arguments.rounds, default=6, help="alternating rounds (default 6)")
    args = parser.parse_args(argv)
    refuse_unplayable(parser, args.game, args.players)
    native = native_playout(args.game, args.players)
    spiel = openspiel_playout(args.game, args.players)
    print(f"{args.game}, {args.players} players")
    if spiel is None:
        print("OpenSpiel: not installed (pip install 'rulesengine[openspiel]')")
    else:
        native_rate, spiel_rate, ratio = alternate(native, spiel, args.seconds, args.rounds)
        print(f"native API        {native_rate:>10,.0f} decisions/s  {1e6 / native_rate:>7.1f} µs/decision")
        print(f"OpenSpiel adapter {spiel_rate:>10,.0f} decisions/s  {1e6 / spiel_rate:>7.1f} µs/decision")
        print(f"OpenSpiel cost per decision ÷ native: {ratio:.2f}")
    zoo = pettingzoo_steps(args.game, args.players)
    if zoo is None:
        print("PettingZoo: not installed (pip install 'rulesengine[pettingzoo]')")
    else:
        steps = rate(zoo, args.seconds / 2, 0)
        print(f"PettingZoo AEC    {steps:>10,.0f} steps/s      {1e6 / steps:>7.1f} µs/step")


if __name__ == "__main__":
    main()
