"""Resampling: complete states a player cannot tell from the true one.

A player's unseen cards are the cards it has not identified since they were last shuffled
(see `knowledge`). Cards of one class (`knowledge`'s `origin`: a shuffle joins the classes of
its cards) are exchangeable for it, so a sample relabels them: a uniformly random
permutation within each class's unseen cards, applied to the state at
the last shuffle (the checkpoint the engine keeps). The steps since then are replayed with
the relabeled actions and chance outcomes; the sample is kept only if every action is legal
in it and the player observes exactly what it observed in the match. So a player who did
not follow suit holds no card of that suit in any sample, and the accepted samples are
uniform over the relabelings consistent with what the player saw.

Limits: steps before the last shuffle are not replayed, so what they told the player about
cards that stayed unseen through a shuffle of other cards is not enforced; cards whose
origin the player cannot know (a card passed face down, later seen) keep their true
origin. After `attempts` rejected samples (ten times as many for a resampler's first
sample) the resampler walks from the last sample it accepted (swaps of two cards of one
class, each kept when the replay agrees: the samples stay uniform over the consistent
relabelings, but follow one another; `Resampler.walks` counts these). With no sample
accepted yet, or when other players' hidden choices are drawn again, it falls back to
relabeling the current state without the replay: the player's current view and knowledge
hold, but earlier actions may not all be legal in it (`Resampler.fallbacks` counts these).
"""

from __future__ import annotations

import random
from math import comb
from typing import Any

from . import knowledge
from .diagnostics import EngineError, IllegalActionError, shown_value
from .engine import seat_of

DEFAULT_ATTEMPTS = 200
MOST_ATTEMPTS = 10_000  # a draw replays the steps since the last shuffle: more could take hours
# A resampler's first sample may draw this many times `attempts`: every later sample can walk
# from an accepted one, so finding one is worth more than any later draw.
FIRST_SAMPLE_FACTOR = 10


class Resampler:
    """Draws resampled states for `player` from one state (work shared between draws)."""

    def __init__(self, state: Any, player: int, attempts: int = DEFAULT_ATTEMPTS):
        if not state._track:
            raise EngineError("this state keeps no knowledge of the players (made with track=False)")
        player = seat_of(player, state.num_players, "resample")
        if type(attempts) is not int or not 0 <= attempts <= MOST_ATTEMPTS:
            raise EngineError(f"attempts is a whole number from 0 to {MOST_ATTEMPTS:,}, not {shown_value(attempts)}")
        self.state = state
        self.player = player
        self.attempts = attempts
        self._first = True
        self.fallbacks = 0
        self.rejections = 0
        self.walks = 0
        self._accepted: list[int] | None = None  # the relabeling of the last sample the replay accepted
        checkpoint = state._checkpoint
        self.checkpoint = checkpoint
        # what to replay: the actions and chance outcomes since the checkpoint
        self.values = state.history_since(checkpoint)
        self.start_key = knowledge.key(checkpoint, player)
        self.start_view = checkpoint._seen[player][2]
        records, _end = knowledge._records(state, checkpoint.trail)
        view = list(self.start_view)
        self.targets = [knowledge.project(state, player, view, record) for record in records]
        self.skip, self.redraw = _hidden_choices(state, checkpoint, records, self.values, player)
        self._now: tuple | None = None
        self._loose: list[list[int]] | None = None
        # the unseen cards, by their class (a card identified since the checkpoint
        # is not renamed there: the replay would refuse it; the redrawn choices move it instead),
        # in the order of their places at the checkpoint, where the renaming is applied
        self.classes = _by_place(_classes(state, player, checkpoint.steps), checkpoint)

    @property
    def unseen(self) -> list[int]:
        """The cards a sample may move (those of the player's unseen cards that share a shuffle)."""
        return sorted(card for cards in self.classes for card in cards)

    def sample(self, rng: random.Random) -> Any:
        """A state with the same information state for the player, hidden cards redrawn."""
        check_generator(rng, "resample")
        if not self.classes and not self.skip:  # nothing to replay: the cards it lost track of since, renamed
            return self._forward(self._draw(rng, self._loose_classes()), rng)
        budget = self.attempts * (FIRST_SAMPLE_FACTOR if self._first else 1)
        self._first = False
        for _ in range(budget):
            sigma = self._draw(rng)
            result = self._replay(sigma, rng)
            if result is not None:
                if not self.skip:  # a sample is then its relabeling alone (nothing drawn again)
                    self._accepted = sigma
                return result
            self.rejections += 1
        if self._accepted is not None:
            walked = self._walk(self._accepted, rng)
            if walked is not None:
                return walked
        self.fallbacks += 1
        return self._forward(self._draw(rng, self._loose_classes()), rng)

    def _loose_classes(self) -> list[list[int]]:
        """As the knowledge model has it: any card the player does not know where it is, by its
        class, in the order of the places of the state renamed without a replay (the current one)."""
        if self._loose is None:
            self._loose = _by_place(_classes(self.state, self.player, self.state.steps + 1), self.state)
        return self._loose

    def _walk(self, start: list[int], rng: random.Random) -> Any:
        """A sample walked to from the relabeling of an accepted one: swaps of two cards of one
        class, each kept when the replay still agrees with what the player saw. The accepted
        draws are uniform over the consistent relabelings, and such a walk keeps them so (a swap
        is proposed as often from either side and undoes itself), so its samples are too, one
        after another rather than independent. It never starts from the true deal, whose
        relabeling (none) would give the other hands away. None if the start no longer replays."""
        self.walks += 1
        sigma = start[:]
        class_of = {card: cards for cards in self.classes for card in cards}
        movable = list(class_of)
        result = None
        for _ in range(len(movable)):
            card = rng.choice(movable)
            cards = class_of[card]
            other = cards[rng.randrange(len(cards) - 1)]
            if other == card:  # one of the others, uniformly: the last stands in for the card itself
                other = cards[-1]
            sigma[card], sigma[other] = sigma[other], sigma[card]
            moved = self._replay(sigma, rng)
            if moved is None:
                sigma[card], sigma[other] = sigma[other], sigma[card]
            else:
                result = moved
        self._accepted = sigma
        return result if result is not None else self._replay(sigma, rng)

    def _draw(self, rng: random.Random, classes: list[list[int]] | None = None) -> list[int]:
        sigma = list(range(self.state.program.num_cards))
        for cards in self.classes if classes is None else classes:
            images = sorted(cards)
            rng.shuffle(images)
            for card, image in zip(cards, images):  # the cards in the order of their places
                sigma[card] = image
        return sigma

    def _prefix_observations(self) -> tuple | None:
        """The player's observations up to the checkpoint (kept by the checkpoint: once a round)."""
        return knowledge.observation_chain(self.checkpoint, self.player)

    def _replay(self, sigma: list[int], rng: random.Random) -> Any:
        player = self.player
        base = relabel(self.checkpoint, sigma, player)
        zones = tuple(map(tuple, base.zones))  # the sample's cards there, for the other players' keys
        base.trail = (None, ("base", player, self.start_key, self.start_view, self._prefix_observations(), zones))
        base.seed = rng.getrandbits(62)  # later shuffles must not repeat the true match's
        state = base.clone()
        game = state.game
        view = list(self.start_view)
        picks: list[tuple[int, tuple]] = []  # the steps of a choice made in steps, until it is complete
        skip, redraw = self.skip, self.redraw
        try:
            for index, ((value, is_chance), target) in enumerate(zip(self.values, self.targets)):
                if index in skip:  # another player's choice the player did not see: drawn again
                    if index in redraw and not self._redraw(state, redraw[index], rng, view, target):
                        return None
                    continue
                if is_chance:
                    state.apply_action(sigma[value])
                elif game.stepwise:
                    picks.append((value, target))
                    if _complete(game, tuple(v for v, _ in picks)):
                        if not self._picks(state, picks, sigma, view):
                            return None
                        picks = []
                    continue
                else:
                    action = relabel_action(game, value, sigma)
                    if action is None or state.is_chance_node() or not state._is_legal(action):
                        return None
                    if action != value and game.seen_whole(action, state.current, player):
                        return None  # the player saw this move name its cards
                    state.apply_action(action)
                if knowledge.project(state, player, view, state.trail[1]) != target:
                    return None
            if picks and not self._picks(state, picks, sigma, view):  # a choice still being made
                return None
        except (IllegalActionError, EngineError):
            return None
        state._checkpoint = base
        return state

    def _redraw(self, state: Any, move: Any, rng: random.Random, view: list, target: Any) -> bool:
        """Another player's choice the player did not see, made again in the sample: a uniformly
        random legal action (of `move`, when the player saw the move's name); False when the
        player would not observe what it observed."""
        if state.is_chance_node() or state.game_over:
            return False
        legal = state._legal_ids()
        if move is not None:
            legal = [key for key in legal if move.offset <= key < move.offset + move.width]
        if not legal:
            return False
        key = rng.choice(legal)
        for step in state._steps_of(key) if state.game.stepwise else (key,):
            state.apply_action(step)
        return knowledge.project(state, self.player, view, state.trail[1]) == target

    def _picks(self, state: Any, picks: list[tuple[int, tuple]], sigma: list[int], view: list) -> bool:
        """Replay the steps of one choice, relabeled; False when the sample cannot make them."""
        true_steps = tuple(v for v, _ in picks)
        steps = relabel_steps(state.game, true_steps, sigma)
        if steps is None or len(steps) != len(picks):
            return False
        mover = state.current
        for step, (_value, target) in zip(steps, picks):
            if state.is_chance_node() or step not in state.legal_actions():
                return False
            state.apply_action(step)
            if knowledge.project(state, self.player, view, state.trail[1]) != target:
                return False
        # refused where the sample renamed the cards of a move the player saw whole
        return (
            steps == true_steps
            or state.last_action is None
            or not state.game.seen_whole(state.last_action, mover, self.player)
        )

    def _forward(self, sigma: list[int], rng: random.Random) -> Any:
        """The fallback: the current state relabeled, with the player's view kept, no replay."""
        player, state = self.player, self.state
        result = relabel(state, sigma, player)
        if self._now is None:
            key = knowledge.key(state, player)
            chain = knowledge.observation_chain(state, player)
            self._now = ("base", player, key, state._seen[player][2], chain)
        result.trail = (None, (*self._now, tuple(map(tuple, result.zones))))
        result.seed = rng.getrandbits(62)
        if result._pending and player != result.current:
            # Another player's picks of a choice made in steps are hidden from this one (its key is
            # the same without them), and the redrawn cards may not allow them: the choice restarts.
            result._pending = ()
            result._ids = None
        if any(p != player for p, _key in result._commits):
            # The others' choices so far in a simultaneous phase are hidden from this one: each is
            # drawn again among that player's legal actions (all chosen from the same position).
            current, commits = result.current, []
            for p, key in result._commits:
                if p != player:
                    result.current, result._legal = p, None
                    legal = result._legal_ids()
                    key = rng.choice(legal) if legal else key
                commits.append((p, key))
            result.current, result._legal, result._commits = current, None, tuple(commits)
        result._checkpoint = result.clone()
        result._checkpoint._checkpoint = None
        return result


def check_generator(rng: object, what: str) -> None:
    if not isinstance(rng, random.Random):  # (NumPy's generators have other methods)
        raise EngineError(f"{what} draws with a random.Random, not {type(rng).__name__}")


def _by_place(classes: list[list[int]], state: Any) -> list[list[int]]:
    """Each class's cards in the order of their places in `state` (zone, then position): a draw
    then gives each place its card from the generator alone, whichever card truly lies there,
    so that a sample and its generator tell nothing of the true deal, and two deals the player
    cannot tell apart give the same samples for the same generator."""
    place = {card: (zone, index) for zone, cards in enumerate(state.zones) for index, card in enumerate(cards)}
    return [sorted(cards, key=place.__getitem__) for cards in classes]


def _classes(state: Any, player: int, since: int) -> list[list[int]]:
    """The cards `player` does not know where they are and has not identified since step
    `since`, by their class (see `knowledge`; classes of one card left out)."""
    count = state.program.num_cards
    base = player * count
    classes: dict[int, list[int]] = {}
    for card in range(count):
        if state.known[base + card] < 0 and state.ident[base + card] < since:
            classes.setdefault(state.origin[card], []).append(card)
    return [cards for cards in classes.values() if len(cards) > 1]


def _hidden_choices(
    state: Any, checkpoint: Any, records: list, values: list[tuple[int, bool]], player: int
) -> tuple[set[int], dict[int, Any]]:
    """The other players' choices since the checkpoint that `player` did not see, which a
    sample makes again rather than replay (the true ones would give the player's samples away):
    the places of their values in `values`, and for the last value of each complete one the
    move it must be (None: any). Such a choice is another player's hidden move (the player saw
    its name), its choice in a simultaneous phase not yet resolved (the player saw nothing of
    it) and its picks of a choice in steps not yet complete (dropped: the choice restarts)."""
    game = state.game
    # the values from `tail` on are picks and choices of a simultaneous phase not yet resolved
    tail = len(records)
    while tail > 0 and records[tail - 1][0] in ("pick", "commit"):
        tail -= 1
    skip: set[int] = set()
    redraw: dict[int, Any] = {}
    group: list[int] = []
    mover = checkpoint.current
    for index, (value, is_chance) in enumerate(values):
        if not is_chance:
            group.append(index)
            first = values[group[0]][0]
            if not game.stepwise or _complete(game, tuple(values[i][0] for i in group)):
                move = game.encoding.block_of(first).move if game.stepwise else game.move_of(value)
                if mover != player and (index >= tail or move.hidden):
                    skip.update(group)
                    redraw[index] = None if index >= tail else move
                group = []
        if not group:  # the player to move after this step
            mover = _public(records[index])[2]
    if group and mover != player:
        skip.update(group)
    return skip, redraw


def _public(record: tuple) -> tuple:
    """The public part of a step's record (round, phase, player to move, ...)."""
    while record[0] in ("pick", "commit"):
        record = record[4] if record[0] == "pick" else record[3]
    return record[2]


def relabel(state: Any, sigma: list[int], player: int) -> Any:
    """A copy of `state` with every card `c` renamed `sigma[c]`, its past forgotten, as
    `player` may find it: the last move keeps the cards it named if the player saw it whole
    (they may have been shuffled away since, but the player's observation names them)."""
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
    if out.last_action is not None and not state.game.seen_whole(out.last_action, out.mover, player):
        out.last_action = relabel_action(state.game, out.last_action, sigma)
    if out._commits:  # the hidden choices of a simultaneous phase name cards of the sample
        out._commits = tuple((p, relabel_action(state.game, key, sigma) or key) for p, key in out._commits)
    out._legal = None
    out.forget_history()  # the true actions (hidden ones too) stay with the true state
    out._seen = {}
    out._checkpoint = None
    return out


def relabel_steps(game: Any, steps: tuple[int, ...], sigma: list[int]) -> tuple[int, ...] | None:
    """The ids of an action's steps (one id, or the steps of a choice so far) with its cards
    renamed by `sigma`, a set's cards again in increasing order; None if they name none."""
    encoding = game.encoding
    block = encoding.block_of(steps[0])
    if block is None:
        return None
    if not block.stepwise:
        key = relabel_action(game, block.move.offset + steps[0] - block.offset, sigma)
        return None if key is None else (block.offset + key - block.move.offset,)
    done = encoding.num_cards
    local = [s - block.offset for s in steps]
    out: list[int] = []
    used = 0
    for param in block.move.params:
        if used >= len(local):
            break
        if param.kind in ("set", "subset"):
            end = used + param.size if param.kind == "set" else used
            if param.kind == "subset":
                while end < len(local) and local[end] != done:
                    end += 1
            part = local[used:end]
            if any(c >= done for c in part):
                return None
            out.extend(sorted(sigma[c] for c in part))
            used = end
            if param.kind == "subset" and used < len(local):
                out.append(done)
                used += 1
        elif param.kind == "card":
            out.append(sigma[local[used]] if local[used] < done else local[used])
            used += 1
        else:
            out.append(local[used])
            used += 1
    return tuple(block.offset + i for i in out)


def _complete(game: Any, steps: tuple[int, ...]) -> bool:
    """Whether the ids make one complete action (a choice in steps up to its last step)."""
    block = game.encoding.block_of(steps[0])
    if block is None or not block.stepwise:
        return True
    parsed = game.encoding.parse(steps)
    return parsed is not None and len(parsed[1]) == len(block.move.params) and parsed[2] == len(steps)


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
