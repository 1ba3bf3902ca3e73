"""Agents without a search tree: random, greedy (one step ahead), flat Monte Carlo."""

from __future__ import annotations

import random

from ..engine import State
from . import arguments
from .view import PlayerView, as_view, at_decision, declared, evaluate


class RandomAgent:
    """Picks uniformly among the legal actions."""

    needs_samples = False

    def __init__(self, seed: int | None = None):
        self.rng = arguments.generator(seed)

    def choose(self, view: PlayerView | State) -> int:
        if isinstance(view, State):  # the fast path of random playouts: no view needed
            at_decision(view)
            return self.rng.choice(view.legal_actions())
        return self.rng.choice(arguments.choices(view))


class GreedyAgent:
    """One step ahead: the action whose result evaluates best for the player, on a state
    resampled from its view (ties broken at random). The evaluation is the player's return
    if the match ended now (see `evaluate`), then the rule file's `match.evaluation` if it
    declares one (see `declared`), so it sees at most one step of scoring."""

    def __init__(self, seed: int | None = None):
        self.rng = arguments.generator(seed)

    def choose(self, view: PlayerView | State) -> int:
        view = as_view(self, view, self.rng)
        actions = arguments.choices(view)
        if len(actions) == 1:
            return actions[0]
        world = view.sample(self.rng)
        best, chosen = None, []
        for action in actions:
            after = world.clone(track=False)
            after.apply_action(action)
            value = (evaluate(after, view.player), declared(after, view.player))
            if best is None or value > best:
                best, chosen = value, [action]
            elif value == best:
                chosen.append(action)
        return self.rng.choice(chosen)


class MonteCarloAgent:
    """Flat Monte Carlo: `playouts` random playouts shared among the legal actions, each
    from a fresh resampled state; the action with the best mean evaluation wins."""

    def __init__(self, playouts: int = 200, seed: int | None = None, rollout: str = "round"):
        self.playouts = arguments.count(playouts, "playouts")
        self.rng = arguments.generator(seed)
        self.rollout = arguments.rollout(rollout)

    def choose(self, view: PlayerView | State) -> int:
        view = as_view(self, view, self.rng)
        actions = arguments.choices(view)
        if len(actions) == 1:
            return actions[0]
        totals = dict.fromkeys(actions, 0.0)
        counts = dict.fromkeys(actions, 0)
        for number in range(max(self.playouts, len(actions))):
            action = actions[number % len(actions)]
            world = view.sample(self.rng).clone(track=False)
            world.apply_action(action)
            playout(world, self.rng, self.rollout)
            totals[action] += evaluate(world, view.player)
            counts[action] += 1
        best = max(totals[a] / counts[a] for a in actions)
        return self.rng.choice([a for a in actions if totals[a] / counts[a] == best])


def playout(state: State, rng: random.Random, until: str = "round") -> None:
    """Random moves (and chance outcomes) until the match ends, or the round with `until="round"`."""
    # The search agents' inner loop: the state's fields are read for `is_terminal()` and
    # `is_chance_node()` (inside the loop the match is not over), and the methods bound once.
    round_number = state.round_number
    by_round = arguments.rollout(until, "until") == "round"
    choice, apply_action, legal_actions = rng.choice, state.apply_action, state.legal_actions
    while not state.game_over:
        if by_round and state.round_number != round_number:
            return
        if state.chance is not None:
            apply_action(choice(state.chance_outcomes())[0])
        else:
            apply_action(choice(legal_actions()))
