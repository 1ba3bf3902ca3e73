"""Random-playout speed: the engine against a hand-written implementation of each game.

    python -m benchmarks.run                 # every game
    python -m benchmarks.run --game pan      # one game
    python -m benchmarks.run --seconds 5     # longer, steadier figures

Both sides play whole matches choosing uniformly among the legal actions; the figure
compared is player decisions per second. Speed targets live here, not in the tests.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import time
from collections.abc import Callable

import rulesengine

# game -> (ruleset, players, options, hand-written module under benchmarks.handwritten)
GAMES: dict[str, tuple[str, int, dict[str, object], str]] = {
    "pan": ("pan", 3, {}, "pan"),
    "padvinderspel": ("padvinderspel", 4, {}, "padvinderspel"),
    "padan": ("padan", 2, {}, "padan"),
}


def engine_playouts(ruleset: str, players: int, options: dict[str, object]) -> Callable[[int], int]:
    game = rulesengine.make_game(ruleset, players=players, options=options)

    def play(seed: int) -> int:
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        return state.steps

    return play


def hand_written(play_match: Callable[..., int], players: int, options: dict[str, object], seed: int) -> int:
    return play_match(players, seed, **options)


def measure(play: Callable[[int], int], seconds: float) -> tuple[int, int, float]:
    """Play matches with seeds 0, 1, ... for about `seconds`; (matches, decisions, time)."""
    start = time.perf_counter()
    matches = decisions = 0
    while True:
        decisions += play(matches)
        matches += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return matches, decisions, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="benchmark only this game")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per side and game (default 2)")
    args = parser.parse_args()
    print(f"{'game':<16}{'engine dec/s':>14}{'hand-written dec/s':>20}{'ratio':>8}")
    for name in args.game or sorted(GAMES):
        ruleset, players, options, module = GAMES[name]
        baseline = importlib.import_module(f"benchmarks.handwritten.{module}").play_match
        _, engine_decisions, engine_time = measure(engine_playouts(ruleset, players, options), args.seconds)
        _, hand_decisions, hand_time = measure(functools.partial(hand_written, baseline, players, options),
                                               args.seconds)
        engine_rate = engine_decisions / engine_time
        hand_rate = hand_decisions / hand_time
        label = f"{name} ({players}p)"
        print(f"{label:<16}{engine_rate:>14,.0f}{hand_rate:>20,.0f}{engine_rate / hand_rate:>8.2f}")


if __name__ == "__main__":
    main()
