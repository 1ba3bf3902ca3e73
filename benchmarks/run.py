"""Random-playout speed: the engine against a hand-written implementation of each game.

    python -m benchmarks.run                 # every game
    python -m benchmarks.run --game pan      # one game
    python -m benchmarks.run --seconds 10    # longer, steadier figures
    python -m benchmarks.run --instructions  # also machine instructions per decision (valgrind)
    python -m benchmarks.run --bytecodes     # also Python bytecodes per decision, and where they go

Both sides play whole matches choosing uniformly among the legal actions; the figure
compared is player decisions per second of processor time. The two sides take turns in
short rounds, so a machine that slows down or speeds up affects both alike; the figures
printed are the medians over the rounds. With --instructions, each side also plays a
fixed set of matches under callgrind, and the instructions per decision are printed
(start-up and the building of the game are measured apart and taken off): a figure that
does not depend on how busy the machine is. With --bytecodes, each side plays the same
fixed matches under a tracer that counts the bytecodes the interpreter executes (no tool
needed), and the functions that execute the most are listed per side. Speed targets live
here, not in the tests.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, NamedTuple

import rulesengine

from . import arguments, callgrind

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


class Comparison(NamedTuple):
    """Medians over alternating rounds, and the ratio's lowest and highest round: how far one
    round strays shows how much a single short measurement on this machine can be trusted."""

    engine_rate: float
    hand_rate: float
    ratio: float
    lowest_ratio: float
    highest_ratio: float


def compare(engine: Playouts, hand: Playouts, seconds: float, rounds: int) -> Comparison:
    engine_rates, hand_rates, ratios = [], [], []
    for _ in range(rounds):
        engine_rates.append(engine.rate(seconds / rounds))
        hand_rates.append(hand.rate(seconds / rounds))
        ratios.append(engine_rates[-1] / hand_rates[-1])
    median = statistics.median
    return Comparison(median(engine_rates), median(hand_rates), median(ratios), min(ratios), max(ratios))


# The program run under callgrind: build one side, then play `matches` matches (0: build only).
_SIDE_PROGRAM = """
import sys
from benchmarks import run
side, name, matches = sys.argv[1], sys.argv[2], int(sys.argv[3])
play = run.side_playouts(side, name)
print(sum(play(seed) for seed in range(matches)))
"""


def side_playouts(side: str, name: str) -> Callable[[int], int]:
    """seed -> decisions, for the engine or the hand-written side of a game."""
    ruleset, players, options, module = GAMES[name]
    if side == "engine":
        return engine_playouts(ruleset, players, options)
    baseline = importlib.import_module(f"benchmarks.handwritten.{module}").play_match
    return functools.partial(hand_written, baseline, players, options)


def _callgrind(side: str, name: str, matches: int) -> tuple[int, int]:
    """(instructions, decisions) of one run of the side program under callgrind."""
    count, out = callgrind.instructions([sys.executable, "-c", _SIDE_PROGRAM, side, name, str(matches)])
    return count, int(out.split()[-1])


def instructions_per_decision(side: str, name: str, matches: int) -> float:
    """Machine instructions per decision of whole matches, start-up and game building taken off."""
    base, _ = _callgrind(side, name, 0)
    total, decisions = _callgrind(side, name, matches)
    return (total - base) / decisions


# Matches played under callgrind per game: several thousand decisions on each side, so that
# a full collection of the garbage collector falling inside the run or not moves little.
# The bytecode count plays the same matches.
INSTRUCTION_MATCHES = {"pan": 2, "padvinderspel": 24, "padan": 20}


class BytecodeCount(NamedTuple):
    per_decision: float
    by_function: list[tuple[str, float]]  # (function, bytecodes per decision), the most first


def count_bytecodes(play: Callable[[int], int], seeds: range) -> BytecodeCount:
    """The bytecodes the interpreter executes per decision while `play` plays the matches of
    `seeds` (returning each one's decisions), in all and by function (file, name and line)."""
    counts: collections.Counter[tuple[str, str, int]] = collections.Counter()

    def trace(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            code = frame.f_code
            counts[(code.co_filename, code.co_name, code.co_firstlineno)] += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        decisions = sum(play(seed) for seed in seeds)
    finally:
        sys.settrace(previous)
    decisions = max(decisions, 1)
    by_function = [
        (f"{name} ({filename.rsplit('/', 1)[-1]}:{line})", count / decisions)
        for (filename, name, line), count in counts.most_common()
    ]
    return BytecodeCount(sum(counts.values()) / decisions, by_function)


def side_bytecodes(side: str, name: str) -> BytecodeCount:
    """`count_bytecodes` of one side of a game, over the matches the instruction count plays
    (after one match outside them, so that first-use work such as compiling is not counted)."""
    play = side_playouts(side, name)
    play(1_000_000)
    return count_bytecodes(play, range(INSTRUCTION_MATCHES.get(name, 4)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="benchmark only this game")
    parser.add_argument(
        "--seconds", type=arguments.seconds, default=4.0, help="processor time per side and game (default 4)"
    )
    parser.add_argument("--rounds", type=arguments.rounds, default=8, help="alternating rounds per game (default 8)")
    parser.add_argument(
        "--instructions", action="store_true", help="also instructions per decision, under valgrind's callgrind"
    )
    parser.add_argument(
        "--bytecodes", action="store_true", help="also Python bytecodes per decision, and the functions executing most"
    )
    args = parser.parse_args(argv)
    counting = callgrind.counting(args.instructions, "decisions per second")
    extra = f"{'engine instr/dec':>18}{'hand instr/dec':>16}{'ratio':>7}" if counting else ""
    print(f"{'game':<20}{'engine dec/s':>14}{'hand-written dec/s':>20}{'ratio':>8}{'rounds':>12}{extra}")
    for name in args.game or sorted(GAMES):
        ruleset, players, options, module = GAMES[name]
        engine = Playouts(side_playouts("engine", name))
        hand = Playouts(side_playouts("hand", name))
        found = compare(engine, hand, args.seconds, args.rounds)
        label = f"{name} ({players}p)"
        spread = f"{found.lowest_ratio:.2f}-{found.highest_ratio:.2f}"
        line = f"{label:<20}{found.engine_rate:>14,.0f}{found.hand_rate:>20,.0f}{found.ratio:>8.2f}{spread:>12}"
        if counting:
            matches = INSTRUCTION_MATCHES.get(name, 4)
            ours = instructions_per_decision("engine", name, matches)
            theirs = instructions_per_decision("hand", name, matches)
            line += f"{ours:>18,.0f}{theirs:>16,.0f}{theirs / ours:>7.2f}"
        print(line, flush=True)
        if args.bytecodes:
            print_bytecodes(name)


def print_bytecodes(name: str, functions: int = 8) -> None:
    """Bytecodes per decision of both sides of a game, and where most of them are executed."""
    sides = {side: side_bytecodes(side, name) for side in ("engine", "hand")}
    engine, hand = sides["engine"].per_decision, sides["hand"].per_decision
    print(f"  bytecodes a decision: engine {engine:,.0f}, hand-written {hand:,.0f} (ratio {hand / engine:.2f})")
    for side, found in sides.items():
        shown = ", ".join(f"{function} {count:,.1f}" for function, count in found.by_function[:functions])
        print(f"    {side}: {shown}")


if __name__ == "__main__":
    main()
