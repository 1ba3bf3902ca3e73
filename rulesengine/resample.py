"""Resampling: complete states a player cannot tell from the true one.

A player's unseen cards are the cards it has not identified since they were last shuffled
(see `knowledge`). Cards of one shuffle are exchangeable for it, so a sample relabels them:
a uniformly random permutation within each shuffle's unseen cards, applied to the state at
the last shuffle (the checkpoint the engine keeps). The steps since then are replayed with
the relabeled actions and chance outcomes; the sample is kept only if every action is legal
in it and the player observes exactly what it observed in the match. So a player who did
not follow suit holds no card of that suit in any sample, and the accepted samples are
uniform over the relabelings consistent with what the player saw.

Limits: steps before the last shuffle are not replayed, so what they told the player about
cards that stayed unseen through a shuffle of other cards is not enforced; cards whose
origin the player cannot know (a card passed face down, later seen) keep their true
origin. After `attempts` rejected samples the resampler falls back to relabeling the
current state without the replay: the player's current view and knowledge hold, but
earlier actions may not all be legal in it (`Resampler.fallbacks` counts these).
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

from . import knowledge
from .diagnostics import EngineError, IllegalActionError

DEFAULT_ATTEMPTS = 200


class Resampler:
    """Draws resampled states for `player` from one state (work shared between draws)."""

    def __init__(self, state: Any, player: int, attempts: int = DEFAULT_ATTEMPTS):
        if not state._track:
            raise EngineError("this state keeps no knowledge of the players (made with track=False)")
        if not 0 <= player < state.num_players:
            raise EngineError(f"resample needs a player from 0 to {state.num_players - 1}, not {player}")
        self.state = state
        self.player = player
        self.attempts = attempts
        self.fallbacks = 0
        self.rejections = 0
        checkpoint = state._checkpoint
        self.checkpoint = checkpoint
        # what to replay: the actions and chance outcomes since the checkpoint
        values = []
        cell = state.history
        while cell is not checkpoint.history:
            cell, value, is_chance = cell
            values.append((value, is_chance))
        self.values = values[::-1]
        self.start_key = knowledge.key(checkpoint, player)
        self.start_view = checkpoint._seen[player][2]
        records, _end = knowledge._records(state, checkpoint.trail)
        view = list(self.start_view)
        self.targets = [knowledge.project(state, player, view, record) for record in records]
        self._now: tuple | None = None
        # the unseen cards, by the shuffle they come from
        count = state.program.num_cards
        base = player * count
        classes: dict[int, list[int]] = {}
        for card in range(count):
            if state.known[base + card] < 0 and state.ident[base + card] < checkpoint.steps:
                classes.setdefault(state.origin[card], []).append(card)
        self.classes = [cards for cards in classes.values() if len(cards) > 1]

    @property
    def unseen(self) -> list[int]:
        """The cards a sample may move (those of the player's unseen cards that share a shuffle)."""
        return sorted(card for cards in self.classes for card in cards)

    def sample(self, rng: random.Random) -> Any:
        """A state with the same information state for the player, hidden cards redrawn."""
        if not self.classes:  # nothing the player has not seen can move: the true places, past forgotten
            return self._forward(self._draw(rng), rng)
        for _ in range(self.attempts):
            sigma = self._draw(rng)
            result = self._replay(sigma, rng)
            if result is not None:
                return result
            self.rejections += 1
        self.fallbacks += 1
        return self._forward(self._draw(rng), rng)

    def _draw(self, rng: random.Random) -> list[int]:
        sigma = list(range(self.state.program.num_cards))
        for cards in self.classes:
            drawn = cards[:]
            rng.shuffle(drawn)
            for card, image in zip(cards, drawn):
                sigma[card] = image
        return sigma

    def _prefix_observations(self) -> tuple | None:
        """The player's observations up to the checkpoint (kept by the checkpoint: once a round)."""
        return knowledge.observation_chain(self.checkpoint, self.player)

    def _replay(self, sigma: list[int], rng: random.Random) -> Any:
        player = self.player
        base = relabel(self.checkpoint, sigma)
        zones = tuple(map(tuple, base.zones))  # the sample's cards there, for the other players' keys
        base.trail = (None, ("base", player, self.start_key, self.start_view, self._prefix_observations(), zones))
        base.seed = rng.getrandbits(62)  # later shuffles must not repeat the true match's
        state = base.clone()
        game = state.game
        view = list(self.start_view)
        picks: list[tuple[int, tuple]] = []  # the steps of a choice made in steps, until it is complete
        try:
            for (value, is_chance), target in zip(self.values, self.targets):
                if is_chance:
                    state.apply_action(sigma[value])
                elif game.stepwise:
                    picks.append((value, target))
                    steps = relabel_steps(game, tuple(v for v, _ in picks), sigma)
                    if steps is None:
                        continue  # not complete yet
                    if len(steps) != len(picks):
                        return None
                    for step, (_value, step_target) in zip(steps, picks):
                        if state.is_chance_node() or step not in state.legal_actions():
                            return None
                        state.apply_action(step)
                        if knowledge.project(state, player, view, state.trail[1]) != step_target:
                            return None
                    picks = []
                    continue
                else:
                    action = relabel_action(game, value, sigma)
                    if action is None or state.is_chance_node() or not state._is_legal(action):
                        return None
                    state.apply_action(action)
                if knowledge.project(state, player, view, state.trail[1]) != target:
                    return None
        except (IllegalActionError, EngineError):
            return None
        state._checkpoint = base
        return state

    def _forward(self, sigma: list[int], rng: random.Random) -> Any:
        """The fallback: the current state relabeled, with the player's view kept, no replay."""
        player, state = self.player, self.state
        result = relabel(state, sigma)
        if self._now is None:
            key = knowledge.key(state, player)
            chain = knowledge.observation_chain(state, player)
            self._now = ("base", player, key, state._seen[player][2], chain)
        result.trail = (None, (*self._now, tuple(map(tuple, result.zones))))
        result.seed = rng.getrandbits(62)
        result._checkpoint = result.clone()
        result._checkpoint._checkpoint = None
        return result


def relabel(state: Any, sigma: list[int]) -> Any:
    """A copy of `state` with every card `c` renamed `sigma[c]`, its past forgotten."""
    out = state.clone()
    out.zones = [[sigma[c] for c in zone] for zone in out.zones]
    where = out.where
    for index, zone in enumerate(out.zones):
        for card in zone:
            where[card] = index
    count = state.program.num_cards
    for name in ("known", "ident"):
        old = getattr(out, name)
        new = old[:]
        for p in range(state.num_players):
            base = p * count
            for card in range(count):
                new[base + sigma[card]] = old[base + card]
        setattr(out, name, new)
    origin = out.origin[:]
    for card in range(count):
        origin[sigma[card]] = out.origin[card]
    out.origin = origin
    out.shown = [[sigma[c] for c in shown] for shown in out.shown]
    for slot in state.game.sight.card_slots:
        value = out.vars[slot]
        if isinstance(value, int) and value >= 0:
            out.vars[slot] = sigma[value]
    if out.last_action is not None:
        out.last_action = relabel_action(state.game, out.last_action, sigma)
    out._legal = None
    out.history = None  # the true actions (hidden ones too) stay with the true state
    out._seen = {}
    out._checkpoint = None
    return out


def relabel_steps(game: Any, steps: tuple[int, ...], sigma: list[int]) -> tuple[int, ...] | None:
    """The ids of a complete action (given as the ids players see, one or a choice's steps) with
    its cards renamed by `sigma`; None while the steps do not yet make a complete action."""
    encoding = game.encoding
    block = encoding.block_of(steps[0])
    if block is None:
        return ()
    if not block.stepwise:
        key = relabel_action(game, block.move.offset + steps[0] - block.offset, sigma)
        return () if key is None else (block.offset + key - block.move.offset,)
    parsed = encoding.parse(steps)
    if parsed is None:
        return ()
    _block, values, used = parsed
    if len(values) < len(block.move.params):
        return None
    if used != len(steps):
        return ()
    renamed = []
    for param, value in zip(block.move.params, values):
        if param.kind in ("set", "subset"):
            value = tuple(sigma[c] for c in value)
        elif param.kind == "card":
            value = sigma[value]
        renamed.append(value)
    return encoding.steps_of(block.move, tuple(renamed))


def relabel_action(game: Any, action: int, sigma: list[int]) -> int | None:
    """The id of `action` with its cards renamed by `sigma` (None if it has no id)."""
    move, values = game.decode(action)
    total = 0
    width = move.width
    for param, value in zip(move.params, values):
        width //= param.domain_size
        if param.kind == "card":
            key = sigma[value]
        elif param.kind == "set":
            key = sum(comb(card, i + 1) for i, card in enumerate(sorted(sigma[c] for c in value)))
        elif param.kind == "subset":
            key = sum(1 << sigma[c] for c in value)
        else:
            key = param.domain.index(value) if value is not None and value in param.domain else len(param.domain)
        if key >= param.domain_size:
            return None
        total += key * width
    return move.offset + total
