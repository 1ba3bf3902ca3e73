"""Tree search: single-observer information-set MCTS, and MCTS on the true state for reference.

ISMCTS (Cowling, Powley and Whitehouse, 2012, "SO-ISMCTS"): one tree over the actions seen
from the root; every iteration plays down it in a state resampled from the player's view,
choosing among the children legal in that state by UCT, where a child's exploration term
counts the iterations in which it was available. A random playout (to the end of the
round, or of the match) and the generic evaluation give each player's value, backed up to
the nodes where that player moved.
"""

from __future__ import annotations

import math
import time

from ..diagnostics import EngineError
from ..engine import State
from . import arguments
from .basic import playout
from .view import PlayerView, as_view, evaluate_all


class _Node:
    __slots__ = ("children", "visits", "available", "total", "player")

    def __init__(self, player: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.player = player  # who chose the action leading here


class ISMCTSAgent:
    """Information-set MCTS with UCT. `iterations` per move, or `seconds` of processor time
    per move when given (then not deterministic). `samples`: how many resampled states an
    iteration draws from, cycled (resampling replays the round, so it is shared)."""

    cheats = False

    def __init__(
        self,
        iterations: int = 1000,
        seed: int | None = None,
        exploration: float = 0.7,
        samples: int = 32,
        seconds: float | None = None,
        rollout: str = "round",
    ):
        self.iterations = arguments.count(iterations, "iterations")
        self.rng = arguments.generator(seed)
        self.exploration = arguments.finite(exploration, "exploration")
        self.samples = arguments.count(samples, "samples")
        self.seconds = None if seconds is None else arguments.seconds(seconds)
        self.rollout = arguments.rollout(rollout)
        self.last_iterations = 0  # how many iterations the last move ran (for benchmarks)

    def worlds(self, view: PlayerView) -> list[State]:
        count = min(self.samples, self.iterations)
        return [view.sample(self.rng) for _ in range(count)]

    def choose(self, view: PlayerView | State) -> int:
        view = as_view(self, view, self.rng)
        actions = arguments.choices(view)
        self.last_iterations = 0
        if len(actions) == 1:
            return actions[0]
        worlds = self.worlds(view)
        root = _Node(-1)
        rng, c = self.rng, self.exploration
        deadline = None if self.seconds is None else time.process_time() + self.seconds
        done = 0
        while (done < self.iterations) if deadline is None else (time.process_time() < deadline or done == 0):
            state = worlds[done % len(worlds)].clone(track=False)
            done += 1
            node, path = root, []
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                    continue
                legal = state.legal_actions()
                mover = state.current_player()
                children = node.children
                untried = [a for a in legal if a not in children]
                for a in legal:
                    child = children.get(a)
                    if child is not None:
                        child.available += 1
                if untried:
                    action = rng.choice(untried)
                    child = children[action] = _Node(mover)
                    child.available = 1
                    state.apply_action(action)
                    path.append(child)
                    break
                best, action = -math.inf, legal[0]
                for a in legal:
                    child = children[a]
                    score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                    if score > best:
                        best, action = score, a
                node = children[action]
                state.apply_action(action)
                path.append(node)
            playout(state, rng, self.rollout)
            values = evaluate_all(state)
            for child in path:
                child.visits += 1
                child.total += values[child.player]
        self.last_iterations = done
        most = max(root.children[a].visits for a in actions if a in root.children)
        return rng.choice([a for a in actions if a in root.children and root.children[a].visits == most])


class CheatingMCTSAgent(ISMCTSAgent):
    """MCTS on the true state (it sees every hidden card): a reference for what hidden
    information is worth, not a fair player."""

    cheats = True
    needs_samples = False

    def worlds(self, view: PlayerView) -> list[State]:
        if view.true_state is None:  # a view made for another agent: it holds no true state
            raise EngineError("mcts-cheat reads the true state: give it the state itself, not a player's view")
        return [view.true_state]
