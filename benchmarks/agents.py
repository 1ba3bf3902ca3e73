"""Agent strength and speed, and the cost of the knowledge model.

    python -m benchmarks.agents                          # the full run: 400 matches a pairing
    python -m benchmarks.agents --workers 8 --results strength.jsonl   # in parallel, resumable
    python -m benchmarks.agents --matches 20 --iterations 200 --game padan -o target=10
    python -m benchmarks.agents --knowledge              # key and resample cost against match length

Strength: ISMCTS (`--iterations` per move) plays `--matches` matches against random and
against greedy on Padan, Pan with 2 players and Padvinderspel with 2 players, seats
alternated (ISMCTS is P1 in even matches, P2 in odd ones; match k deals from seed k). The
table gives ISMCTS's wins, losses and draws, its win rate with a Wilson 95 % interval, its
iterations per second of processor time and the cost of one iteration. Figures, not
tests: the targets (>= 75 % against random, beating greedy) are read off the table.

Matches are independent, so `--workers N` plays N at a time in separate processes. With
`--results FILE` every finished match is appended to FILE as one JSON line, and a later run
with the same file and settings plays only the matches it lacks: a long run can be stopped,
resumed, or split over machines by concatenating their files.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed

import rulesengine
from rulesengine import knowledge
from rulesengine.agents import GreedyAgent, ISMCTSAgent, RandomAgent, play_match
from rulesengine.analysis.stats import wilson
from rulesengine.resample import Resampler

from . import arguments

GAMES = {"padan": ("padan", 2), "pan": ("pan", 2), "padvinderspel": ("padvinderspel", 2)}
OPPONENTS = {"random": RandomAgent, "greedy": GreedyAgent}


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


@functools.cache
def setting(name: str, options: tuple[tuple[str, str], ...]) -> rulesengine.Game:
    """The game of a benchmark name, with the options that this game knows."""
    ruleset, players = GAMES[name]
    known = {o.name for o in rulesengine.load_ruleset(ruleset).options}  # each game takes its own options
    return rulesengine.make_game(ruleset, players=players, options={k: v for k, v in options if k in known})


def play_one(task: dict) -> dict:
    """Play match `task["match"]` of one pairing; the record written to the results file."""
    game = setting(task["game"], tuple(sorted(task["options"].items())))
    k = task["match"]
    seat = k % 2
    searcher = Timed(ISMCTSAgent(task["iterations"], seed=k, samples=task["samples"]))
    opponent = OPPONENTS[task["opponent"]]
    agents = [opponent(k * 1_000 + 7), opponent(k * 1_000 + 7)]
    agents[seat] = searcher
    final = play_match(game.new_initial_state(seed=k), agents)
    return {
        **task,
        "value": final.returns()[seat],
        "seconds": searcher.seconds,
        "iterations_done": searcher.iterations,
    }


def settings_key(record: dict) -> tuple:
    """What makes two records comparable: the pairing and the search settings."""
    options = record["options"]
    return (record["game"], record["opponent"], record["iterations"], record["samples"], tuple(sorted(options.items())))


# what a finished match's record holds (`play_one`), read back to resume a run
RESULT_KEYS = frozenset(
    {"game", "opponent", "iterations", "samples", "options", "match", "value", "seconds", "iterations_done"}
)


def read_results(path: str | None) -> list[dict]:
    if path is None or not os.path.exists(path):
        return []
    records = []
    with open(path, encoding="utf-8", errors="replace") as lines:  # a line not UTF-8 is refused as a line
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(
                    f"{path}:{number}: not a result line ({error.msg}); remove the line to resume"
                ) from None
            if not (isinstance(record, dict) and RESULT_KEYS <= record.keys() and isinstance(record["options"], dict)):
                raise SystemExit(f"{path}:{number}: not a result line (no match's record); remove the line to resume")
            records.append(record)
    return records


def summary(records: Iterable[dict]) -> dict:
    records = list(records)
    matches = len(records)
    wins = sum(r["value"] > 0 for r in records)
    losses = sum(r["value"] < 0 for r in records)
    seconds = sum(r["seconds"] for r in records)
    iterations = sum(r["iterations_done"] for r in records)
    low, high = wilson(wins, matches)
    rate = iterations / seconds if seconds else 0.0
    return {
        "matches": matches,
        "wins": wins,
        "losses": losses,
        "draws": matches - wins - losses,
        "rate": wins / matches if matches else 0.0,
        "low": low,
        "high": high,
        "iterations_per_second": rate,
        "ms_per_iteration": 1000 / rate if rate else 0.0,
    }


def strength(
    names: list[str],
    matches: int,
    iterations: int,
    samples: int,
    options: dict[str, str],
    workers: int = 1,
    results: str | None = None,
) -> None:
    tasks = [
        {"game": name, "opponent": label, "match": k, "iterations": iterations, "samples": samples, "options": options}
        for k in range(matches)  # match by match, so that a run stopped early covers every pairing
        for name in names
        for label in OPPONENTS
    ]
    records = read_results(results)
    done = {(*settings_key(r), r["match"]) for r in records}
    todo = [task for task in tasks if (*settings_key(task), task["match"]) not in done]
    print(
        f"ISMCTS {iterations} iterations/move ({samples} resampled states a move), {matches} matches a pairing,"
        f" seats alternated; {len(tasks) - len(todo)} matches read from {results}, {len(todo)} to play",
        flush=True,
    )
    out = open(results, "a", encoding="utf-8") if results else None
    try:
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                for future in as_completed([pool.submit(play_one, task) for task in todo]):
                    records.append(_keep(future.result(), out))
        else:
            for task in todo:
                records.append(_keep(play_one(task), out))
    finally:
        if out is not None:
            out.close()
    print(
        f"{'game':<15} {'opponent':<8} {'W':>4} {'L':>4} {'D':>4} {'win rate':>9} {'95% interval':>15}"
        f" {'it/s':>7} {'ms/it':>6}"
    )
    for name in names:
        for label in OPPONENTS:
            key = settings_key(
                {"game": name, "opponent": label, "iterations": iterations, "samples": samples, "options": options}
            )
            mine = [r for r in records if settings_key(r) == key and r["match"] < matches]
            r = summary(mine)
            print(
                f"{name:<15} {label:<8} {r['wins']:>4} {r['losses']:>4} {r['draws']:>4} {r['rate']:>9.1%}"
                f"   [{r['low']:.1%}, {r['high']:.1%}] {r['iterations_per_second']:>7.0f}"
                f" {r['ms_per_iteration']:>6.2f}",
                flush=True,
            )


def _keep(record: dict, out) -> dict:
    """Append one finished match to the results file at once, so a stopped run loses nothing."""
    if out is not None:
        out.write(json.dumps(record, sort_keys=True) + "\n")
        out.flush()
    return record


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="one game (repeat for more)")
    parser.add_argument("--matches", type=arguments.whole(1, 1_000_000, "matches"), default=400)
    parser.add_argument("--iterations", type=arguments.whole(1, 10**9, "iterations"), default=1000)
    parser.add_argument(
        "--samples", type=arguments.whole(1, 10**6, "samples"), default=32, help="resampled states per ISMCTS move"
    )
    parser.add_argument("-o", "--option", type=arguments.option, action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--workers",
        type=arguments.whole(1, 1024, "workers"),
        default=1,
        help="matches played at a time, one process each",
    )
    parser.add_argument("--results", metavar="FILE", help="append each match to FILE (JSON lines); resume from it")
    parser.add_argument("--knowledge", action="store_true", help="measure the knowledge model instead")
    args = parser.parse_args(argv)
    if args.knowledge:
        knowledge_cost()
        return
    options = dict(args.option)
    names = args.game or list(GAMES)
    known = {o.name for name in names for o in rulesengine.load_ruleset(GAMES[name][0]).options}
    unknown = sorted(set(options) - known)
    if unknown:  # each game takes the options it knows; one that none knows is a typo
        parser.error(f"argument -o/--option: no game of this run has an option {unknown[0]!r}")
    for name in names:  # an option value a game refuses stops the run before any match is played
        try:
            setting(name, tuple(sorted(options.items())))
        except rulesengine.RulesEngineError as error:
            parser.error(f"argument -o/--option: {error}")
    strength(names, args.matches, args.iterations, args.samples, options, args.workers, args.results)


if __name__ == "__main__":
    main()
