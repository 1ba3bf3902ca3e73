"""How the engine's cost grows: per decision against players and deck size, and per state.

    python -m benchmarks.scaling                 # the tables in the README
    python -m benchmarks.scaling --seconds 2     # steadier figures

Cost per decision: random playouts of whole matches (as `benchmarks.run`, no knowledge
kept), in microseconds of processor time. Deck size: Padvinderspel with 5 patrols of
5, 10, 20 and 40 numbers (its rules hold for any length of patrol), rewritten from the
shipped file into a temporary one. Memory per state: bytes allocated by one clone of a
state in mid-match (tracemalloc, the mean over many clones), without and with the
players' knowledge that information states need.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

import yaml

import rulesengine
from rulesengine.resources import rulesets_dir

from . import arguments

PLAYERS = {"pan": (2, 3, 4), "padvinderspel": (2, 4, 6), "padan": (2,)}
PATROL_LENGTHS = (5, 10, 20, 40)


def microseconds_per_decision(game: rulesengine.Game, seconds: float) -> float:
    start = time.process_time()
    decisions, seed = 0, 0
    while True:
        state = game.new_initial_state(seed=seed, track=False)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        decisions += state.steps
        seed += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return 1e6 * elapsed / decisions


def mid_match(game: rulesengine.Game, track: bool, seed: int = 1) -> rulesengine.State:
    """A state some decisions into the first round."""
    state = game.new_initial_state(seed=seed, track=track)
    rng = random.Random(seed)
    for _ in range(8):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def bytes_per_state(game: rulesengine.Game, track: bool, copies: int = 400) -> float:
    state = mid_match(game, track)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [state.clone(track=track) for _ in range(copies)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del kept
    return (after - before) / copies


def long_patrols(numbers: int, folder: Path) -> Path:
    """Padvinderspel with patrols of `numbers` cards: the shipped file with other ranks."""
    data = yaml.safe_load((rulesets_dir() / "padvinderspel.yaml").read_text(encoding="utf-8"))
    data["decks"]["patrols"]["ranks"] = [str(n) for n in range(1, numbers + 1)]
    path = folder / f"padvinderspel-{numbers}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=arguments.seconds, default=1.0, help="processor time per figure (default 1)")
    args = parser.parse_args(argv)

    print("cost per decision and memory per state, by players")
    print(f"{'game':<16}{'players':>8}{'cards':>7}{'µs/decision':>13}{'bytes/state':>13}{'with knowledge':>16}")
    for name, counts in PLAYERS.items():
        for players in counts:
            game = rulesengine.make_game(name, players=players)
            cost = microseconds_per_decision(game, args.seconds)
            plain, tracked = bytes_per_state(game, False), bytes_per_state(game, True)
            cards = game.program.num_cards
            print(f"{name:<16}{players:>8}{cards:>7}{cost:>13.1f}{plain:>13,.0f}{tracked:>16,.0f}", flush=True)

    print()
    print("cost per decision and memory per state, by deck size (Padvinderspel, 4 players, 5 patrols)")
    print(f"{'cards':>7}{'µs/decision':>13}{'bytes/state':>13}{'with knowledge':>16}")
    with tempfile.TemporaryDirectory() as folder:
        for numbers in PATROL_LENGTHS:
            game = rulesengine.make_game(long_patrols(numbers, Path(folder)), players=4)
            cost = microseconds_per_decision(game, args.seconds)
            plain, tracked = bytes_per_state(game, False), bytes_per_state(game, True)
            print(f"{game.program.num_cards:>7}{cost:>13.1f}{plain:>13,.0f}{tracked:>16,.0f}", flush=True)


if __name__ == "__main__":
    main()
