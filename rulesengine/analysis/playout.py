"""Play one match and record what the analysis needs: lengths, how rounds and the match
ended, who moved first, role holders, the standing at each round end, legal actions and
the moves chosen, phases entered and triggers fired.

The engine is not changed for this: the recorder plays a second compile of the rules, with
a few extra effect segments (run when a phase starts and after each kind of round end, and
before a trigger's effects) for the engine's general path, and with hooks (`Hooks`) where
the generated code runs triggers and enters phases itself, so that every match is played on
the fast path and recorded whole.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

import attrs

from .. import ir
from ..agent_spec import make_agent
from ..agents import RandomAgent
from ..codegen_moves import Hooks
from ..compile import Program, Segment, compile_program
from ..diagnostics import EngineError
from ..engine import Game, State

ROUND_END_KINDS = ("normal", "stuck", "limit")  # the engine's own order of round end kinds
END_GAME = "end_game"  # a round cut short by an `end game` effect
ENGINE_CAP = "engine_cap"


@attrs.frozen
class Plan:
    """What to simulate; plain values only, so a worker process or a Ray task can rebuild it."""

    ruleset_file: str
    players: int
    options: dict[str, object]
    max_steps: int
    seed: int
    games: int
    agents: tuple[str, ...] = ("random",)
    roles: tuple[str, ...] | None = None  # global player variables to report; None: all of them
    standing: str | None = None  # a per-player variable ("-name": lower is better); None: the result rule


class _Recorder:
    """Collects what happens in the match being recorded (never in a clone of it)."""

    def __init__(self) -> None:
        self.state: State | None = None
        self.round_ends: list[tuple[str, int, int | None]] = []  # (kind, decisions so far, leader)
        self.phases: set[int] = set()
        self.fired: list[int] = []
        self.leader = lambda state: None

    def mine(self, state: State) -> bool:
        return self.state is None or state is self.state


def _before(segments: tuple[Segment, ...], hook) -> tuple[Segment, ...]:
    """`segments` with `hook(state)` run first. The engine runs the segments after the first
    only when a shuffle ends the one before, so the hook joins a segment instead of adding one."""
    first = segments[0]

    def run(state: State, env: list) -> None:
        hook(state)
        first.run(state, env)

    return (attrs.evolve(first, run=run), *segments[1:])


def _after(segments: tuple[Segment, ...], hook) -> tuple[Segment, ...]:
    """`segments` with `hook(state)` run after the effects of the last (before its shuffle, if any)."""
    last = segments[-1]

    def run(state: State, env: list) -> None:
        last.run(state, env)
        hook(state)

    return (*segments[:-1], attrs.evolve(last, run=run))


class Recording:
    """A game compiled once per process with the recorder's hooks, and its segments added."""

    def __init__(self, game: Game, plan: Plan):
        self.game = game
        self.plan = plan
        recorder = self.recorder = _Recorder()

        def round_end(kind: str):
            def hook(state: State) -> None:
                if recorder.mine(state):
                    recorder.round_ends.append((kind, state.steps, recorder.leader(state)))

            return hook

        def trigger_fired(state: State, index: int) -> None:
            if recorder.mine(state):
                recorder.fired[index] += 1

        def phase_entered(state: State, index: int) -> None:
            if recorder.mine(state):
                recorder.phases.add(index)

        def segment_hook(hook, index: int):  # as the general path's segments call it
            return lambda state: hook(state, index)

        # the generated steps and entry functions call the hooks; the general path runs segments
        program = compile_program(
            game.ruleset, game.program.options, game.num_players, hooks=Hooks(trigger_fired, phase_entered)
        )
        recorder.fired = [0] * len(program.triggers)
        recorder.leader = _leader_function(program, plan.standing)
        recorded = attrs.evolve(
            program,
            round_end=_after(program.round_end, round_end("normal")),
            round_stuck_effects=_after(program.round_stuck_effects, round_end("stuck")),
            round_limit_effects=_after(program.round_limit_effects, round_end("limit")),
            phases=tuple(
                attrs.evolve(p, enter=_before(p.enter, segment_hook(phase_entered, i)))
                for i, p in enumerate(program.phases)
            ),
            triggers=tuple(
                attrs.evolve(t, effects=_before(t.effects, segment_hook(trigger_fired, i)))
                for i, t in enumerate(program.triggers)
            ),
        )
        self.recorded = Game(recorded, game.max_steps)
        blocks = game.encoding.blocks  # the ids players see (a choice in steps uses its move's block)
        self.move_offsets = [b.offset for b in blocks]
        self.move_ends = [b.offset + b.width for b in blocks]
        self.role_names, self.role_offsets = _roles(program, plan.roles)

    def playing(self) -> int:
        """The decisions made so far in the match this process is playing (0 between matches);
        read from another thread by a progress bar."""
        state = self.recorder.state
        return state.steps if state is not None else 0

    def play(self, index: int) -> dict[str, Any]:
        """Play match `index` (seed plan.seed + index) and return its record. An error of the
        rules met while playing names the match's seed, so that `run --seed` can replay it."""
        try:
            return self._play(index)
        except EngineError as error:
            raise EngineError(f"{error} (in the match of seed {self.plan.seed + index})") from None
        finally:
            self.recorder.state = None  # also when stopped: no match is in progress here

    def _play(self, index: int) -> dict[str, Any]:
        plan = self.plan
        seed = plan.seed + index
        n = self.game.num_players
        names = _seating(plan.agents, n, index)
        agents = [make_agent(names[seat], seed * 1_000 + seat) for seat in range(n)]
        recorder = self.recorder
        recorder.state = None
        recorder.round_ends = []
        recorder.phases = set()
        recorder.fired = [0] * len(recorder.fired)
        # the players' knowledge is kept only for agents that search from a player's view
        track = not all(isinstance(agent, RandomAgent) for agent in agents)
        state = self.recorded.new_initial_state(seed=seed, track=track)
        recorder.state = state
        move_ends, move_offsets = self.move_ends, self.move_offsets
        legal_counts = [0] * len(move_ends)
        chosen = [0] * len(move_ends)
        legal_sum = legal_max = forced = 0
        first_movers: list[int] = []
        roles: list[list[int]] = []
        round_seen = 0
        while not state.is_terminal():
            if state.round_number != round_seen:
                round_seen = state.round_number
                first_movers.append(state.current)
                roles.append([state.vars[offset] for offset in self.role_offsets])
            legal = state.legal_actions()
            if state._pending:  # a later step of a choice made in steps: counted at its first step
                state.apply_action(agents[state.current].choose(state))
                continue
            k = len(legal)
            legal_sum += k
            legal_max = max(legal_max, k)
            forced += k == 1
            low = 0
            for i, end in enumerate(move_ends):
                high = bisect_left(legal, end, low)
                if high > low:
                    legal_counts[i] += 1
                    low = high
                    if low == k:
                        break
            action = agents[state.current].choose(state)
            chosen[bisect_right(move_offsets, action) - 1] += 1
            state.apply_action(action)
        ends = list(recorder.round_ends)
        if state.truncated:
            ends.append((ENGINE_CAP, state.steps, recorder.leader(state)))
        elif len(ends) < state.round_number:  # `end game` ended the match inside a round: no round end ran
            ends.append((END_GAME, state.steps, recorder.leader(state)))
        lengths, previous = [], 0
        for _, steps, _ in ends:
            lengths.append(steps - previous)
            previous = steps
        returns = [float(r) for r in state.returns()]
        return {
            "index": index,
            "seed": seed,
            "agents": names,
            "decisions": state.steps,
            "rounds": state.round_number,
            "round_lengths": lengths,
            "round_ends": [kind for kind, _, _ in ends],
            "match_end": ENGINE_CAP if state.truncated else "normal",
            "returns": returns,
            "first_movers": first_movers,
            "roles": {name: [held[i] for held in roles] for i, name in enumerate(self.role_names)},
            "leaders": [leader for _, _, leader in ends],
            "led_for_good": _led_for_good(ends, returns, state.steps),
            "legal_sum": legal_sum,
            "legal_max": legal_max,
            "forced": forced,
            "move_legal": legal_counts,
            "move_chosen": chosen,
            "phases": sorted(recorder.phases),
            "triggers": list(recorder.fired),
        }


def _seating(agents: tuple[str, ...], n: int, index: int) -> list[str]:
    """The agent of each seat in match `index`: a list shorter than the seats is repeated,
    and mixed agents rotate one seat a match so each plays every seat equally often."""
    seats = [agents[s % len(agents)] for s in range(n)]
    if len(set(seats)) == 1:
        return seats
    shift = index % n
    return seats[-shift:] + seats[:-shift] if shift else seats


def _roles(program: Program, wanted: tuple[str, ...] | None) -> tuple[list[str], list[int]]:
    names = [name for name, per_player, type_ in program.variable_layout if not per_player and type_ == ir.PLAYER]
    if wanted is not None:
        names = [name for name in wanted if name in names]
    return names, [program.variable_offsets[name] for name in names]


def _leader_function(program: Program, standing: str | None):
    """state -> the single player ahead now, or None (a tie, or nobody)."""
    n = program.num_players
    if standing is not None:
        sign = -1 if standing.startswith("-") else 1
        offset = program.variable_offsets[standing.lstrip("-")]

        def by_variable(state: State) -> int | None:
            values = [sign * v for v in state.vars[offset : offset + n]]
            best = max(values)
            return values.index(best) if values.count(best) == 1 else None

        return by_variable
    if program.winners is not None:
        winners = program.winners

        def by_winners(state: State) -> int | None:
            ahead = set(winners(state, state._env(state.current)))
            return next(iter(ahead)) if len(ahead) == 1 else None

        return by_winners
    if program.losers is not None:
        losers = program.losers

        def by_losers(state: State) -> int | None:
            behind = set(losers(state, state._env(state.current)))
            ahead = [p for p in range(n) if p not in behind]
            return ahead[0] if behind and len(ahead) == 1 else None

        return by_losers
    return lambda state: None


def _led_for_good(ends: list[tuple[str, int, int | None]], returns: list[float], decisions: int) -> float | None:
    """The share of the match's decisions made when its single winner took the lead for good
    (leading at that round end and every later one); None without a single winner or a
    standing that shows it."""
    winners = [p for p, r in enumerate(returns) if r > 0]
    if len(winners) != 1 or not ends or ends[-1][2] != winners[0] or decisions <= 0:
        return None
    since = len(ends) - 1
    while since > 0 and ends[since - 1][2] == winners[0]:
        since -= 1
    return ends[since][1] / decisions


def standing_names(program: Program) -> list[str]:
    """The per-player number variables a standing can be read from."""
    return [name for name, per_player, type_ in program.variable_layout if per_player and type_ == ir.INT]
