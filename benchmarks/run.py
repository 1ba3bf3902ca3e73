"""Random-playout speed: the engine against a hand-written implementation of each game.

    python -m benchmarks.run                 # every game
    python -m benchmarks.run --game pan      # one game
    python -m benchmarks.run --seconds 10    # longer, steadier figures

Both sides play whole matches choosing uniformly among the legal actions; the figure
compared is player decisions per second of processor time. The two sides take turns in
short rounds, so a machine that slows down or speeds up affects both alike; the figures
printed are the medians over the rounds. Speed targets live here, not in the tests.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import statistics
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
        state = game.new_initial_state(seed=seed, track=False)  # random play needs no knowledge kept, as in simulate
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        return state.steps

    return play


def hand_written(play_match: Callable[..., int], players: int, options: dict[str, object], seed: int) -> int:
    return play_match(players, seed, **options)


class Playouts:
    """Plays matches with seeds 0, 1, 2, ... and counts decisions and processor time."""

    def __init__(self, play: Callable[[int], int], clock: Callable[[], float] = time.process_time):
        self.play = play
        self.clock = clock
        self.seed = 0

    def rate(self, seconds: float) -> float:
        """Decisions per second over whole matches lasting together about `seconds`."""
        start = self.clock()
        decisions = 0
        while True:
            decisions += self.play(self.seed)
            self.seed += 1
            elapsed = self.clock() - start
            if elapsed >= seconds:
                return decisions / elapsed


def compare(engine: Playouts, hand: Playouts, seconds: float, rounds: int) -> tuple[float, float, float]:
    """(engine rate, hand-written rate, ratio), each the median over `rounds` alternating rounds."""
    engine_rates, hand_rates, ratios = [], [], []
    for _ in range(rounds):
        engine_rates.append(engine.rate(seconds / rounds))
        hand_rates.append(hand.rate(seconds / rounds))
        ratios.append(engine_rates[-1] / hand_rates[-1])
    return statistics.median(engine_rates), statistics.median(hand_rates), statistics.median(ratios)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="benchmark only this game")
    parser.add_argument("--seconds", type=float, default=4.0, help="processor time per side and game (default 4)")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds per game (default 8)")
    args = parser.parse_args(argv)
    print(f"{'game':<16}{'engine dec/s':>14}{'hand-written dec/s':>20}{'ratio':>8}")
    for name in args.game or sorted(GAMES):
        ruleset, players, options, module = GAMES[name]
        baseline = importlib.import_module(f"benchmarks.handwritten.{module}").play_match
        engine = Playouts(engine_playouts(ruleset, players, options))
        hand = Playouts(functools.partial(hand_written, baseline, players, options))
        engine_rate, hand_rate, ratio = compare(engine, hand, args.seconds, max(1, args.rounds))
        label = f"{name} ({players}p)"
        print(f"{label:<16}{engine_rate:>14,.0f}{hand_rate:>20,.0f}{ratio:>8.2f}")


if __name__ == "__main__":
    main()
