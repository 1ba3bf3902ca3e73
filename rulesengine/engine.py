"""Run a compiled game: the state, its legal actions, chance, observations and returns.

The flow of a match (rounds, phases, turns, triggers) is driven by a small agenda of
tasks kept inside the state, so a state can stop at any decision or chance node and be
cloned cheaply there. The agenda is empty at every decision node.
"""

from __future__ import annotations

import _random
import functools
import random
from bisect import bisect_left, insort
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import flow, ir, knowledge, results
from .actions import Encoding
from .compile import CompiledMove, Program, Segment, no_effects
from .diagnostics import EngineError, IllegalActionError, integer, seed_number
from .effect_flow import most_outcomes
from .limits import (
    DEFAULT_MAX_STEPS,
    MAX_DECISION_COST,
    MAX_IDLE_ROUNDS,
    MAX_INTEGER,
    MAX_LOG_CHARACTERS,
    MAX_TASKS_PER_STEP,
)
from .runtime import combination_unrank, insert_sorted, mask_cards, needs_player, rule_seat
from .teams import may_see

# agenda task kinds
_SEGMENTS, _ROUND_START, _PHASE_START, _FIRST, _CHECK, _ROUND_END, _MATCH_CHECK, _TRIGGERS, _ADVANCE = range(9)
_NEUTRAL = {ir.INT: 0, ir.STR: "", ir.BOOL: False}  # a draw from an empty list (else -1: no card, nobody)
# how a round ended
_NORMAL, _LIMIT, _STUCK = flow.NORMAL, flow.LIMIT, flow.STUCK
# The direct paths (a whole action applied without the general dispatch, phase and round
# changes without the agenda); tests turn them off to compare with the general path.
DIRECT_FLOW = True
# The ids `Game.direct` holds a place for (a table of ids, not a dict: the hot path indexes it).
DIRECT_IDS = 1 << 16

# The root of a history that does not go back to the start of the match (a state put into a
# position, or resampled): a cell like the others, so any walk of the chain ends at None.
_FORGOTTEN: tuple = (None, ())


class State:
    """One position of a match. Players are numbered from 0; `P1` is player 0 in logs."""

    # Fields a clone shares (plain values and immutable ones) and fields it copies.
    _SHARED = (
        "game",
        "program",
        "current",
        "direction",
        "round_number",
        "turns",
        "passes",
        "phase",
        "round_over",
        "phase_over",
        "game_over",
        "goto",
        "turn_set",
        "mover",
        "chance_count",
        "seed",
        "history",
        "steps",
        "_legal",
        "round_end_kind",
        "truncated",
        "last_action",
        "shown_any",
        "_seen",
        "trail",
        "_checkpoint",
        "_shuffled",
        "_track",
        "_pending",
        "_commits",
        "_ids",
        "_direct",
        "_max_steps",
        "_idle_since",
        "_idle_rounds",
    )
    _COPIED = (
        "zones",
        "where",
        "vars",
        "active",
        "active_players",
        "agenda",
        "chance",
        "shown",
        "log",
        "known",
        "ident",
        "origin",
        "_touched",
        "_tail",
    )
    __slots__ = _SHARED + _COPIED

    # Set by knowledge.initial (and copied or shared by clone).
    known: list[int]
    ident: list[int]
    origin: list[int]
    _touched: set[int]

    def __init__(self, game: Game, seed: int | None, track: bool = True):
        program = game.program
        self.game = game
        self.program = program
        self.zones = [list(z) for z in program.initial_zones]
        self.where = game.initial_where.copy()
        self.vars = list(program.initial_variables)
        n = program.num_players
        self.current = 0
        self.direction = 1
        self.active = [True] * n
        self.active_players = list(range(n))  # the seats still in the round, in seat order
        self.round_number = 0
        self.turns = 0
        self.passes = 0
        self.phase = -1
        self.round_over = self.phase_over = self.game_over = False
        self.goto: int | None = None
        self.turn_set = False
        self.mover = 0
        self.agenda: list[tuple] = []
        # [zone, next position] while a shuffle is pending; [-1, slot, type, values] while a random choice is
        self.chance: list | None = None
        self.chance_count = 0
        self.seed = seed
        # The values recorded so far (see `history_since`): the latest in `_tail`, a list of this state's
        # own; the earlier ones in `history`, a chain of (previous, values) cells shared by clones.
        # One cell per clone rather than one per step: a chain as long as the match would be walked
        # again and again by the garbage collector.
        self.history: tuple | None = None
        self._tail: list[int] = []
        self.steps = 0
        self.shown: list[list[int]] = [[] for _ in range(n)]  # cards revealed to each player this step
        self.shown_any = False
        self.log: list[str] | None = None
        self._legal: list[int] | None = None
        self.round_end_kind = _NORMAL
        self.truncated = False
        self.last_action: int | None = None  # the last player's action (made by `mover`)
        # player -> (trail cell, key, view) kept by information_state_key;
        # replaced, never changed in place, so clones share it
        self._seen: dict[int, tuple] = {}
        self._track = track
        # the actions `apply_action` hands straight to their step (`Game.direct`); none for a
        # state that keeps knowledge, whose steps go through `_act` and then tell the players
        self._direct = game.no_direct if track else game.direct
        self._max_steps = game.max_steps
        self._pending: tuple[int, ...] = ()  # the ids picked so far of a choice made in steps (actions.py)
        self._commits: tuple[tuple[int, int], ...] = ()  # (player, action key) chosen so far in a simultaneous phase
        # during a choice in steps: (legal keys, picks so far, the ids that may come next or None,
        # the (key, ids) of the legal actions that go on from the picks)
        self._ids: tuple | None = None
        # the rounds that passed since the decision that made `steps` what `_idle_since` holds
        # (`_count_idle_round`); the match's first round starts the count
        self._idle_since = -1
        self._idle_rounds = 0
        knowledge.initial(self)  # what each player knows, and the trail of steps

    # ---- start and clone -------------------------------------------------------------

    def _start(self) -> None:
        env = self._env(0)
        self.agenda = [(_ROUND_START,), (_SEGMENTS, self.program.setup, 0, env)]
        self._run()
        if self.game_over:
            self._verify_result()
        self._shuffled = True  # the start is where a resample replays from if no shuffle comes
        if self._track:
            knowledge.end_step(self)

    def clone(self, track: bool = True) -> State:
        """An independent copy: plain values are shared, lists are copied (not the log).

        With `track=False` the copy keeps no knowledge and no trail (faster steps, e.g. for
        the playouts of a search); it cannot answer information-state questions.
        """
        tail = self._tail
        if tail:  # the values since the last clone become a cell both share
            self.history = (self.history, tuple(tail))
            tail.clear()
        other = object.__new__(State)
        _copy_shared(self, other)
        other._tail = []
        if not track:
            other._track = False
            other._direct = self.game.direct
        other.zones = list(map(list.copy, self.zones))
        other.where = self.where.copy()
        other.vars = self.vars.copy()
        other.active = self.active.copy()
        other.active_players = self.active_players.copy()
        other.agenda = (
            [task if task[0] != _SEGMENTS else (task[0], task[1], task[2], task[3][:]) for task in self.agenda]
            if self.agenda
            else []
        )
        other.chance = self.chance.copy() if self.chance is not None else None
        other.shown = list(map(list.copy, self.shown))
        other.log = None
        if other._track:
            other.known = self.known.copy()
            other.ident = self.ident.copy()
            other.origin = self.origin.copy()
            other._touched = set(self._touched)
        else:  # never changed by an untracked state: shared
            other.known, other.ident, other.origin, other._touched = self.known, self.ident, self.origin, set()
        return other

    # ---- what the state is -----------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.program.num_players

    def is_terminal(self) -> bool:
        return self.game_over

    def is_chance_node(self) -> bool:
        return self.chance is not None and not self.game_over

    def current_player(self) -> int:
        """The player to move; -1 at a chance node, -4 when the match is over (as OpenSpiel)."""
        if self.game_over:
            return -4
        if self.chance is not None:
            return -1
        return self.current

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: the card that comes next in the shuffle, each equally likely."""
        if self.chance is None:
            return []
        if self.chance[0] == -1:  # a random choice: each of its values, by place
            count = len(self.chance[3])
            return [(i, 1.0 / count) for i in range(count)]
        zone, position = self.chance
        cards = self.zones[zone][position:]
        p = 1.0 / len(cards)
        return sorted((card, p) for card in cards)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The ids that may be applied now, in increasing order, as a new list: the player to
        move's at a decision, a chance node's outcomes, or []. Asked for a player (a seat of
        the match, else EngineError): that player's, [] unless it is that player's decision."""
        legal = self._legal
        # A list that is not empty is kept only at a decision node with no pick made (see
        # `_pick`): its keys are the ids while they lie below the first move chosen in steps.
        if legal and player is None:
            if not self.game.stepwise or legal[-1] < self.game.encoding.own_ids:
                return legal.copy()
            return self._ids_of(legal)
        if player is not None and (
            seat_of(player, self.num_players, "legal_actions") != self.current
            or self.chance is not None
            or self.game_over
        ):
            return []
        if self.game_over:
            return []
        if self.chance is not None:
            return [c for c, _ in self.chance_outcomes()]
        if self._pending:
            return self._step_ids()
        legal = self._legal_ids()
        return self._ids_of(legal) if self.game.stepwise else legal.copy()

    def action_to_string(self, action: int) -> str:
        action = action_id(action)
        if self.chance is not None and self.chance[0] == -1:
            values = self.chance[3]
            if not 0 <= action < len(values):
                return str(action)
            shown = f"chance: {self._show_drawn(values[action])}"
            # a value the list holds more than once is told apart by its place (names are unique)
            return f"{shown} (#{action + 1})" if values.count(values[action]) > 1 else shown
        if self.chance is not None:
            return f"chance: {self.program.card_names[action]}" if 0 <= action < self.program.num_cards else str(action)
        if self.game.stepwise:
            return self._step_name(action)
        if not self.game_over and self._is_legal(action):
            move, values = self.game.decode(action)
            return self._label(move, self.current, values)
        return self.game.action_name(action)

    def _show_drawn(self, value: Any) -> str:
        kind = self.chance[2] if self.chance is not None else ""
        if kind == ir.CARD:
            return self.program.card_names[value] if value >= 0 else "nothing"
        if kind == ir.PLAYER:
            return f"P{value + 1}"
        if kind == ir.SUIT:
            return self.program.suit_names[value]
        if kind == ir.RANK:
            return self.program.ruleset.ranks[value]
        return str(value)

    def returns(self) -> list[float]:
        n = self.num_players
        if not self.game_over or self.truncated:
            return [0.0] * n
        program = self.program
        return results.match_returns(self, program.results, program.teams, program.ruleset.teams is not None)

    # ---- acting ----------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Apply a player's action or a chance outcome; an illegal one changes nothing."""
        legal = self._legal
        if legal and DIRECT_FLOW:
            # The common case at once: at a decision node with no pick made (a list of legal
            # actions that is not empty is kept only there, see `_pick`), a legal id that is a whole action of a
            # move with a step (`Game.direct`): the step notes the action itself.
            # (only an int: 0.0 and True would find 0 and 1)
            play = None
            if type(action) is int:
                try:
                    play = self._direct[action]  # an index, not a hash: the cheapest look-up
                except IndexError:  # past the table
                    pass
            # A scan in C: as cheap as bisection for the lists of most decisions, and no dearer than
            # listing them was for a long one. (A negative id finds an entry from the end, which
            # no list of legal actions holds.)
            if play is not None and action in legal:
                step, values, settled = play
                if step(self, action, values, action):
                    # It stopped at the next decision, listed by its own settle: nothing is queued
                    # and the match goes on, unless the limit of steps is reached.
                    if self.steps >= self._max_steps:
                        self._run()
                    return
                if not settled:
                    self.game.settles[self.phase](self)
                if self.agenda or self.steps >= self._max_steps:
                    self._run()
                if self.game_over:
                    self._verify_result()
                return
            game = self.game
            # Else straight to `_act`, which refuses an illegal key: any id of a game without steps
            # or hidden choices, or the key of an id taken in one id of a game with choices in
            # steps and no simultaneous phase (`whole_key`: None for any other id or game).
            action = action_id(action)
            key = action if game.whole else game.whole_key(action)
            if key is not None:
                self._act(key, action)
                if self._track:
                    knowledge.end_step(self, key)
                if self.game_over:
                    self._verify_result()
                return
        action = action_id(action)
        if self.game_over:
            raise IllegalActionError("the match is over; no action can be applied")
        if self.chance is not None:
            self._apply_chance(action)
            if self._track:
                knowledge.end_step(self)
        else:
            self._apply_player_action(action)
        if self.game_over:
            self._verify_result()

    def _verify_result(self) -> None:
        """At the end of a match: the returns keep what the rules declare (sum, bounds)."""
        rules = self.program.results
        if not self.truncated and rules is not None and rules.declares_anything:
            results.verify(self.returns(), rules)

    def _apply_player_action(self, action: int) -> None:
        """A player's id: a whole action, one step of a choice made in steps, or a hidden
        choice of a simultaneous phase."""
        game = self.game
        if game.stepwise:
            # one id, one action (`_act` tests it), or a step of a choice
            key = None if self._pending else game.encoding.key_of(action)
            if key is None:
                key = self._pick(action)
                if key is None:  # one more step of a choice
                    if self._track:
                        knowledge.picked(self)
                    return
            recorded: int | None = action
        else:
            key, recorded = action, None
        if game.simultaneous and self.program.phases[self.phase].simultaneous:
            # a complete action kept hidden until every player of the phase has chosen
            resolved = self._commit(key, recorded)
            if self._track:  # once resolved, the first chooser's action is the last move (see _resolve)
                knowledge.end_step(self, self.last_action if resolved else None)
            return
        self._act(key, recorded)
        if self._track:
            knowledge.end_step(self, key)

    # ---- simultaneous phases ----------------------------------------------------------

    def _commit(self, key: int, recorded: int | None) -> bool:
        """Keep `key` as the player to move's hidden choice and ask the next player who has not
        chosen; once all active players have chosen, resolve the choices (True)."""
        if not self._is_legal(key):
            self._refuse(key if recorded is None else recorded)
        player = self.current
        self._tail.append(key if recorded is None else recorded)
        self.steps += 1
        if self.shown_any:
            for shown in self.shown:
                shown.clear()
            self.shown_any = False
        commits = (*self._commits, (player, key))
        if self.log is not None:
            move, values = self.decode_key(key)
            line = f"P{player + 1}: {self._label(move, player, values)} (hidden until all have chosen)"
            self.log.append(_HiddenMoveLine(line, player, "chooses"))
        chosen = {p for p, _ in commits}
        first = commits[0][0]
        candidate = self.next_active(player)
        while candidate != first and candidate not in chosen:
            self.current = candidate
            self._legal = None
            if self._legal_ids():
                self._commits = commits
                if self.steps >= self.game.max_steps:  # the engine's limit: stopped before the choices resolve
                    self._commits = ()
                    self._run()
                return False
            if self.log is not None:
                self.log.append(f"P{candidate + 1} cannot move and is skipped")
            candidate = self.next_active(candidate)
        self._resolve(commits)
        return True

    def _resolve(self, commits: tuple[tuple[int, int], ...]) -> None:
        """Every active player has chosen: the moves' effects run in the order chosen, then the
        triggers and the turn passing once, as after one step of the first chooser."""
        self._commits = ()
        first = commits[0][0]
        self.current = first
        self.mover = first
        self.turn_set = False
        self.turns += 1
        self._legal = None
        self.last_action = commits[0][1]  # the last move is the first chooser's, as `mover` is
        decoded = [(player, *self.decode_key(key)) for player, key in commits]
        if all(move.is_pass for _player, move, _values in decoded):
            self.passes += 1
        else:
            self.passes = 0
        if self.log is not None:
            # a hidden move is revealed by its name only to the others
            labels = [(p, move, self._label(move, p, values)) for p, move, values in decoded]

            def line(viewer: int | None) -> str:
                return "the choices are revealed: " + ", ".join(
                    f"P{p + 1}: {label if viewer is None or not move.hidden or p == viewer else _spaced(move.name)}"
                    for p, move, label in labels
                )

            self.log.append(_RevealLine(line(None), [line(v) for v in range(self.num_players)]))
        agenda: list[tuple] = [(_CHECK,), (_ADVANCE,), (_TRIGGERS, 0)]
        for player, move, values in reversed(decoded):
            env = self._env(player)
            for param, value in zip(move.params, values):
                env[param.slot] = value
            agenda.append((_SEGMENTS, move.effects, 0, env))
        self.agenda = agenda
        self._run()

    def decode_key(self, key: int) -> tuple[CompiledMove, tuple]:
        return self.game._decoded.get(key) or self.game.decode(key)

    def commits_seen(self, player: int) -> list[list]:
        """The players who have chosen so far in a simultaneous phase, with `player`'s own choice named."""
        return [[p, self.game.key_name(key) if p == player else None] for p, key in self._commits]

    # ---- choices made in steps (actions.py) -------------------------------------------

    def _steps_of(self, key: int) -> tuple[int, ...]:
        encoding = self.game.encoding
        found = encoding._steps.get(key)
        return found if found is not None else encoding.steps(key, *self.game.decode(key))

    def _ids_of(self, legal: list[int]) -> list[int]:
        """The ids of the legal actions `legal` (keys, in increasing order) at a decision of a
        game with choices made in steps, no pick made: a new list."""
        encoding = self.game.encoding
        own = encoding.own_ids
        # the keys of the moves before the first chosen in steps are their ids
        if not legal or legal[-1] < own:
            return legal.copy()
        # Mostly one or two actions past those: their first ids are looked up and put in their
        # places (two of one move may share one).
        first = encoding.first
        try:
            if len(legal) == 1 or legal[-2] < own:  # one past those
                ids = legal[:-1]
                insort(ids, first[legal[-1]])
                return ids
            if len(legal) == 2 or legal[-3] < own:  # two past those
                before, after = first[legal[-2]], first[legal[-1]]
                ids = legal[:-2]
                insort(ids, before)
                if after != before:
                    insort(ids, after)
                return ids
        except KeyError:  # a key not met before (noted below, in the general way)
            pass
        # else every id past those is looked up (a long list is not copied twice)
        cut = bisect_left(legal, own) if own else 0
        later = legal[cut:] if cut else legal
        found = list(map(encoding.plain_id, later))  # None for a choice in steps
        past: list[int] = self._first_ids(later, found) if None in found else found  # type: ignore[assignment]
        if not cut:
            return past
        joined = legal[:cut] + past
        if past[0] < legal[cut - 1]:  # the compiler's keys put the moves chosen in steps last, not their ids
            joined.sort()
        return joined

    def _first_ids(self, legal: list[int], ids: list[int | None]) -> list[int]:
        """The first ids of the legal actions `legal` (`ids`: their ids where one id makes them)."""
        game = self.game
        first = game.encoding.first
        if ids.count(None) == 1:  # one action in steps: its first id lies between its neighbours'
            place = ids.index(None)
            key = legal[place]
            found = first.get(key)
            ids[place] = found if found is not None else game.encoding.note_first(key, *game.decode(key))
            return ids  # type: ignore[return-value]  # no None left
        # the first ids of one move in steps come in no order, and repeat
        try:
            return sorted(set(map(first.__getitem__, legal)))
        except KeyError:  # keys not met before
            for key in legal:
                if key not in first:
                    game.encoding.note_first(key, *game.decode(key))
            return sorted(set(map(first.__getitem__, legal)))

    def _step_ids(self) -> list[int]:
        """The ids that may come next after the picks so far: the next step of every legal action
        that starts with them (kept with the legal actions they come from, until a step)."""
        legal = self._legal_ids()
        prefix = self._pending
        kept = self._ids
        if kept is not None and kept[0] is legal and kept[1] == prefix:
            if kept[2] is not None:
                return kept[2].copy()
            candidates = kept[3]
        else:
            candidates = self._candidates(legal, prefix)
        k = len(prefix)
        listed = sorted({steps[k] for _key, steps in candidates})
        self._ids = (legal, prefix, listed, candidates)
        return listed.copy()

    def _candidates(self, legal: list[int], prefix: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
        """(key, ids) of the legal actions whose ids start with `prefix` (not empty), in key order."""
        encoding = self.game.encoding
        block = encoding.block_at(prefix[0])
        if block is None:
            return []
        move = block.move
        start, end = bisect_left(legal, move.offset), bisect_left(legal, move.offset + move.width)
        k = len(prefix)
        known = encoding._steps  # the ids of each action, once computed
        out = []
        for key in legal[start:end]:
            steps = known.get(key) or self._steps_of(key)
            if steps[:k] == prefix:
                out.append((key, steps))
        return out

    def _pick(self, action: int) -> int | None:
        """Take one step of a choice: the key of the complete action it ends, else None (and the
        pick is kept, with the legal actions that go on with it). An id no legal action continues
        with is refused."""
        legal = self._legal_ids()
        prefix = self._pending
        k = len(prefix)
        kept = self._ids
        if kept is not None and kept[0] is legal and kept[1] == prefix:
            going = [c for c in kept[3] if c[1][k] == action]
        else:
            going = self._candidates(legal, (*prefix, action))
        if not going:
            self._refuse(action)
        key, steps = going[0]
        if len(steps) == k + 1:  # the ids of two actions never start one another
            self._pending = ()
            self._legal = legal
            return key
        prefix = (*prefix, action)
        self._pending = prefix
        # While a pick is made the legal keys are kept aside (`_legal_ids` finds them there), so
        # that a list in `_legal` that is not empty always means a decision with no pick made.
        self._ids = (legal, prefix, None, going)
        self._legal = None
        self._tail.append(action)
        return None

    def _step_name(self, action: int) -> str:
        prefix = (*self._pending, action)
        if not self.game_over:
            for key in self._legal_ids():
                steps = self._steps_of(key)
                if steps == prefix:
                    move, values = self.game.decode(key)
                    return self._label(move, self.current, values)
        if self._pending:
            program = self.program
            return self.game.encoding.step_name(action, self._pending, program.card_names, program.suit_names)
        return self.game.action_name(action)

    def legal_moves(self) -> list[tuple[str, tuple]]:
        """The complete actions the player to move may choose now, as (move name, parameter
        values), whatever the steps an action id stands for (for tests and tools); in the
        middle of a choice made in steps, those the steps chosen so far lead to."""
        return [(move.name, values) for move, values, _steps in self._complete()]

    def complete_actions(self) -> list[tuple[CompiledMove, tuple, str, tuple[int, ...]]]:
        """The complete legal actions of the player to move: each its move, parameter values,
        name (as the log gives it) and the ids that make it from here (one id, or the rest of
        a choice's steps). For front ends that offer whole actions."""
        return [
            (move, values, self._label(move, self.current, values), steps) for move, values, steps in self._complete()
        ]

    def _complete(self) -> list[tuple[CompiledMove, tuple, tuple[int, ...]]]:
        """`complete_actions` without their names."""
        if self.chance is not None or self.game_over:
            return []
        stepwise, k = self.game.stepwise, len(self._pending)
        out = []
        for key in self._legal_ids():
            steps = self._steps_of(key) if stepwise else (key,)
            if steps[:k] == self._pending:
                move, values = self.decode_key(key)
                out.append((move, values, steps[k:]))
        return out

    def named_actions(self) -> dict[str, tuple[int, ...]]:
        """The complete legal actions of the player to move by their names (as the log gives
        them), each with the ids that make it from here (one, or the rest of a choice's steps)."""
        return {name: steps for _move, _values, name, steps in self.complete_actions()}

    def pending_names(self) -> list[str]:
        """The picks so far of the choice the player to move is making in steps (its own, private)."""
        program = self.program
        encoding = self.game.encoding
        return [
            encoding.step_name(a, self._pending[:i], program.card_names, program.suit_names)
            for i, a in enumerate(self._pending)
        ]

    def _act(self, action: int, recorded: int | None = None) -> None:
        """A player's action, up to the next decision or chance node."""
        # _is_legal written out: this is the hot path of every playout
        legal = self._legal
        if legal is None:
            legal = self._legal_ids()
        if recorded is None:
            recorded = action
        if action not in legal:  # one scan in C, as at the direct path
            self._refuse(recorded)
        game = self.game
        try:
            step, values, is_pass, move, settled = game.plays[action]
        except KeyError:  # the first time this action is played: decoded once
            game.decode(action)
            step, values, is_pass, move, settled = game.plays[action]
        if step is not None:
            # The common case, without the agenda: no shuffle can interrupt this step, which
            # also notes the action as below (codegen_moves `_records`).
            step(self, action, values, recorded)
            if not settled:
                game.settles[self.phase](self)
            if self.agenda or self.steps >= game.max_steps:
                self._run()
            return
        self._tail.append(recorded)
        self.steps += 1
        self.turns += 1
        if self.shown_any:
            self.clear_shown()
        self._legal = None
        player = self.current
        self.mover = player
        self.turn_set = False
        self.last_action = action
        if self.log is not None:
            self.log_action(action)
        if is_pass:
            self.passes += 1
        else:
            self.passes = 0
        env = self._env(player)
        for param, value in zip(move.params, values):
            env[param.slot] = value
        self.agenda = [(_CHECK,), (_ADVANCE,), (_TRIGGERS, 0), (_SEGMENTS, move.effects, 0, env)]
        self._run()

    def clear_shown(self) -> None:
        """A new step: the cards shown to players in the last one are forgotten."""
        for shown in self.shown:
            shown.clear()
        self.shown_any = False

    def log_action(self, action: int) -> None:
        """The log's line of the complete action `action` that `mover` has just made."""
        move, values = self.decode_key(action)
        player = self.mover
        line = f"P{player + 1}: {self._label(move, player, values)}"
        self.log.append(_HiddenMoveLine(line, player, move.name) if move.hidden else line)  # type: ignore[union-attr]

    def _fired(self, trigger) -> list[list]:
        """One environment for each item of `trigger` whose condition holds now (in order)."""
        env = self._env(self.mover)
        if trigger.each is None:
            return [env] if trigger.when(self, env) else []
        if trigger.firings is not None:  # the same generated choice as a step's
            fired = []
            for item in trigger.firings(self, env):
                env[trigger.slot] = item
                fired.append(env[:])
            return fired
        fired = []
        slot, when = trigger.slot, trigger.when
        for item in trigger.each(self, env):
            env[slot] = item
            if when(self, env):
                fired.append(env[:])  # each firing keeps its own item
        return fired

    def _refuse(self, action: int) -> None:
        legal = self.legal_actions()
        names = ", ".join(f"{a} ({self.action_to_string(a)})" for a in legal[:12])
        more = "" if len(legal) <= 12 else f" and {len(legal) - 12} more"
        try:
            shown = self.game.action_name(action)
        except IllegalActionError:
            shown = "no such action"
        raise IllegalActionError(
            f"action {action} ({shown}) is not legal for P{self.current + 1} now; legal actions: {names}{more}"
        )

    def _apply_chance(self, card: int) -> None:
        chance = self.chance
        assert chance is not None  # called only while a shuffle is pending
        if chance[0] == -1:
            self._apply_choice(card)
            return
        zone, position = chance
        cards = self.zones[zone]
        try:
            index = cards.index(card, position)
        except ValueError:
            raise IllegalActionError(f"chance outcome {card} is not possible now") from None
        self._tail.append(~card)  # a chance outcome (never negative) is kept as a negative value
        cards[position], cards[index] = cards[index], cards[position]
        self._touched.add(zone)
        chance[1] = position + 1
        if chance[1] >= len(cards) - 1:
            self.chance = None
            self._run()

    def _go_on(self, segments: tuple[Segment, ...], index: int, segment: Segment, env: list) -> None:
        """After a segment of a list with jumps: a random choice, or the segment that follows."""
        follow = segment.next if segment.next >= 0 else index + 1
        if segment.choose is not None:
            self.agenda.append((_SEGMENTS, segments, follow, env))  # also carries `env` to the outcome
            self._begin_choice(segment, env)
            return
        if segment.test is not None and not segment.test(self, env):
            follow = segment.otherwise
        if follow < len(segments):
            self.agenda.append((_SEGMENTS, segments, follow, env))

    def _begin_choice(self, segment: Segment, env: list) -> None:
        """A random choice: one of the values, each equally likely, goes to `env[segment.slot]`."""
        assert segment.choose is not None  # called for a segment that draws
        values = segment.choose(self, env)
        self.chance_count += 1
        if len(values) <= 1:
            env[segment.slot] = values[0] if values else _NEUTRAL.get(segment.kind, -1)
            self._chosen()
        elif self.seed is not None:
            draw = random.Random(self.seed * 1_000_003 + self.chance_count).randrange(len(values))
            env[segment.slot] = values[draw]
            self._chosen()
        else:
            self.chance = [-1, segment.slot, segment.kind, tuple(values)]

    def _chosen(self) -> None:
        if self._track:
            knowledge.chosen(self)

    def _apply_choice(self, outcome: int) -> None:
        chance = self.chance
        assert chance is not None and chance[0] == -1  # called only while a random choice is pending
        values = chance[3]
        if not (isinstance(outcome, int) and 0 <= outcome < len(values)):
            raise IllegalActionError(f"chance outcome {outcome} is not possible now (0 to {len(values) - 1})")
        self._tail.append(~outcome)
        env = self.agenda[-1][3]  # the list's continuation carries its environment
        env[chance[1]] = values[outcome]
        self.chance = None
        self._chosen()
        self._run()

    def _begin_shuffle(self, zone: int) -> None:
        self.chance_count += 1
        if self._track:
            knowledge.shuffled(self, zone)
        cards = self.zones[zone]
        if len(cards) < 2:
            return
        if self.seed is not None:
            seeded_shuffle(cards, self.seed * 1_000_003 + self.chance_count)
        else:
            self.chance = [zone, 0]

    # ---- the flow of a match ---------------------------------------------------------

    def _env(self, me: int) -> list:
        """A fresh environment of the rules' slots: `me` in slot 0, None in the others."""
        return [me, *self.game.blank]

    def _run(self) -> None:
        """Work through the agenda until a decision, a chance node or the end."""
        program = self.program
        agenda = self.agenda
        budget = MAX_TASKS_PER_STEP
        while agenda:
            if self.chance is not None:
                return
            budget -= 1
            if budget < 0:
                raise self._endless()
            task = agenda.pop()
            kind = task[0]
            if kind == _SEGMENTS:
                segments, index, env = task[1], task[2], task[3]
                if index >= len(segments):
                    continue  # past a random choice at the end of its list
                segment: Segment = segments[index]
                segment.run(self, env)
                if segment.shuffle is not None:
                    if index + 1 < len(segments):
                        agenda.append((_SEGMENTS, segments, index + 1, env))
                    self._begin_shuffle(segment.shuffle(self, env))
                elif not self.game_over and (index + 1 < len(segments) or _jumps(segment)):
                    self._go_on(segments, index, segment, env)
                if self.game_over:
                    agenda.clear()
            elif kind == _CHECK:
                self._check()
            elif kind == _ADVANCE:
                self._advance()
            elif kind == _TRIGGERS:
                self._triggers(task[1])
            elif kind == _ROUND_START:
                self._round_start()
            elif kind == _PHASE_START:
                phase = program.phases[task[1]]
                self.phase = task[1]
                self.phase_over = False
                env = self._env(self.current)
                agenda.append((_CHECK,))
                agenda.append((_FIRST, task[1]))
                agenda.append((_SEGMENTS, phase.enter, 0, env))
            elif kind == _FIRST:
                phase = program.phases[task[1]]
                if phase.first is not None:
                    player = phase.first(self, self._env(self.current))
                    self.current = rule_seat("'first'", player, self.num_players, phase.first_at)
            elif kind == _ROUND_END:
                self._round_end()
            elif kind == _MATCH_CHECK:
                if self.game_over or program.match_until(self, self._env(self.current)):
                    self.game_over = True
                    agenda.clear()
                else:
                    agenda.append((_ROUND_START,))
        if self.steps >= self.game.max_steps and not self.game_over:
            self.game_over = True
            self.truncated = True
            self._legal = None
            if self.log is not None:
                self.log.append(f"the match is stopped after {self.steps} decisions (the engine's limit): a draw")

    def _round_start(self) -> None:
        self._new_round()
        self.agenda.append((_PHASE_START, 0))
        self.agenda.append((_SEGMENTS, self.program.round_setup, 0, self._env(self.current)))

    def _new_round(self) -> None:
        n = self.num_players
        if self.round_number >= MAX_INTEGER:  # only a scenario's position can start so late
            raise EngineError(
                f"{self.program.ruleset.file}: a new round would be round {MAX_INTEGER + 1}, "
                "past the language's integers"
            )
        self._count_idle_round()
        self.round_number += 1
        self.turns = 0
        self.passes = 0
        self.active[:] = [True] * n  # the same list all match long: generated code reads it into a local
        self.active_players = list(range(n))
        self.direction = 1
        self.round_over = self.phase_over = False
        self.goto = None
        self.round_end_kind = _NORMAL

    def _count_idle_round(self) -> None:
        """Rounds begun one after another with no decision between them add up their static
        cost (`ir.Ruleset.round_cost`); past the bound of one decision's work (and at least
        `MAX_IDLE_ROUNDS` of them), the match stops with an error, as a flow that never comes
        to a decision does: rounds of heavy setup repeated without end would otherwise run
        for hours, each round too few steps of the flow for `MAX_TASKS_PER_STEP` to notice."""
        if self.steps != self._idle_since:  # a decision since the last round began
            self._idle_since = self.steps
            self._idle_rounds = 0
        else:
            self._idle_rounds += 1
        passed = self._idle_rounds  # rounds begun and ended since the last decision (or the match's start)
        if passed > MAX_IDLE_ROUNDS and passed * self.program.ruleset.round_cost > MAX_DECISION_COST:
            raise EngineError(
                f"{self.program.ruleset.file}: {passed:,} rounds in a row passed without a decision, "
                f"whose work as `validate` bounds it passes that of one decision ({MAX_DECISION_COST:,} steps): "
                "rounds that never come to a decision (nobody is dealt a card, every phase ends at once, or "
                "every player is out)"
            )

    def _round_end(self) -> None:
        self.agenda.append((_MATCH_CHECK,))
        self.agenda.append((_SEGMENTS, self._close_round(), 0, self._env(self.current)))

    def _close_round(self) -> tuple[Segment, ...]:
        """The round is over: the effects its end runs (by how it ended)."""
        program = self.program
        kind = self.round_end_kind
        if kind == _NORMAL:
            effects = program.round_end
        else:
            effects = program.round_limit_effects if kind == _LIMIT else program.round_stuck_effects
        if self.log is not None and kind != _NORMAL:
            why = "the turn limit is reached" if kind == _LIMIT else "nobody can move"
            self.log.append(f"round {self.round_number} ends: {why}")
        self.phase = -1
        self.round_over = False
        return effects

    def _end_round(self, kind: int) -> None:
        self.round_over = True
        self.round_end_kind = kind

    def _check(self) -> None:
        """After a step: end the round or phase if due, else stop at the next decision.

        The flow goes straight on from here (phase exits and entries, the round's end, the
        match check, the next round's start) while no effect list on the way can stop for
        chance; from the first one that can, the rest goes onto the agenda as the general
        path (`_check_queued`, one task at a time) puts it, and `_run` goes on from there."""
        if not DIRECT_FLOW:
            self._check_queued()
            return
        program, game = self.program, self.game
        me_only = program.flow_reads_me_only
        budget = MAX_TASKS_PER_STEP
        while True:
            budget -= 1
            if budget < 0:
                raise self._endless()
            if self.game_over:
                self.agenda.clear()
                return
            if self.round_over:
                if not self._finish_round():
                    return
                continue
            phase = program.phases[self.phase]
            if self.goto is not None:
                target: int | None = self.goto
                self.goto = None
            elif self.phase_over or (
                phase.until is not None and phase.until(self, [self.current] if me_only else self._env(self.current))
            ):
                target = phase.next
            elif not self.active_players:
                self._end_round(_STUCK)
                continue
            else:
                if not self.active[self.current]:
                    self.current = self.next_active(self.current)
                self._legal = None
                if self._legal_ids():
                    return
                self._skip()
                continue
            if id(phase.exit) not in game.idle:
                env = self._env(self.current)
                if not self._straight(phase.exit):
                    self.agenda.append((_PHASE_START, target) if target is not None else (_ROUND_END,))
                    self.agenda.append((_SEGMENTS, phase.exit, 0, env))
                    return
                if not self._run_list(phase.exit, env):
                    return
            if not (self._finish_round() if target is None else self._enter_phase(target)):
                return

    def _straight(self, segments: tuple[Segment, ...]) -> bool:
        """Whether an effect list runs to its end now: nothing in it can stop for chance (with a
        seed, shuffles and random choices are drawn at once)."""
        return self.seed is not None or id(segments) not in self.game.chancy

    def _run_list(self, segments: tuple[Segment, ...], env: list) -> bool:
        """Run a `_straight` effect list to its end, as the agenda would; False if the match ended."""
        index, count = 0, len(segments)
        while index < count:
            segment = segments[index]
            segment.run(self, env)
            if segment.shuffle is not None:
                self._begin_shuffle(segment.shuffle(self, env))
                index += 1
            elif self.game_over:
                break
            elif segment.choose is not None:
                self._begin_choice(segment, env)
                index = segment.next if segment.next >= 0 else index + 1
            elif segment.test is not None and not segment.test(self, env):
                index = segment.otherwise
            else:
                index = segment.next if segment.next >= 0 else index + 1
            if self.game_over:
                break
        return not self.game_over

    def _finish_round(self) -> bool:
        """The round's end, the match check and the next round's start up to its first phase,
        straight (True: check for the next decision), or queued from the first effect list
        that can stop for chance (False, as when the match ends)."""
        program = self.program
        effects = self._close_round()
        env = self._env(self.current)
        if not self._straight(effects):
            self.agenda.append((_MATCH_CHECK,))
            self.agenda.append((_SEGMENTS, effects, 0, env))
            return False
        if not self._run_list(effects, env):
            return False
        if program.match_until(self, [self.current] if program.flow_reads_me_only else self._env(self.current)):
            self.game_over = True
            return False
        self._new_round()
        env = self._env(self.current)
        if not self._straight(program.round_setup):
            self.agenda.append((_PHASE_START, 0))
            self.agenda.append((_SEGMENTS, program.round_setup, 0, env))
            return False
        return self._run_list(program.round_setup, env) and self._enter_phase(0)

    def _enter_phase(self, index: int) -> bool:
        """Phase `index` begins: its `enter` effects and its first player, straight (True: check
        for the next decision), or queued as `_run` does it (False, as when the match ends)."""
        phase = self.program.phases[index]
        self.phase = index
        self.phase_over = False
        if id(phase.enter) not in self.game.idle:
            env = self._env(self.current)
            if not self._straight(phase.enter):
                self.agenda.append((_CHECK,))
                self.agenda.append((_FIRST, index))
                self.agenda.append((_SEGMENTS, phase.enter, 0, env))
                return False
            if not self._run_list(phase.enter, env):
                return False
        if phase.first is not None:
            me_only = self.program.flow_reads_me_only
            player = phase.first(self, [self.current] if me_only else self._env(self.current))
            self.current = rule_seat("'first'", player, self.num_players, phase.first_at)
        return True

    def _endless(self) -> EngineError:
        # no one rule is at fault, so no line is named: where the flow was tells the author where to look
        where = f"in round {self.round_number}" + (
            f", phase '{self.program.phases[self.phase].name}'" if self.phase >= 0 else ""
        )
        return EngineError(
            f"{self.program.ruleset.file}: the rules ran {MAX_TASKS_PER_STEP:,} steps of their flow without "
            f"reaching a decision, {where} (a phase whose end never comes, phases that lead to each other at once, "
            "or repeat blocks inside repeat or for blocks passing that many times in all)"
        )

    def _check_queued(self) -> None:
        """`_check` one task at a time: what comes next goes onto the agenda (the general path)."""
        if self.game_over:
            self.agenda.clear()
            return
        agenda = self.agenda
        program = self.program
        if self.round_over:
            agenda.append((_ROUND_END,))
            return
        phase = program.phases[self.phase]
        if self.goto is not None:
            target, self.goto = self.goto, None
            agenda.append((_PHASE_START, target))
            agenda.append((_SEGMENTS, phase.exit, 0, self._env(self.current)))
            return
        if self.phase_over or (phase.until is not None and phase.until(self, self._env(self.current))):
            agenda.append((_PHASE_START, phase.next) if phase.next is not None else (_ROUND_END,))
            agenda.append((_SEGMENTS, phase.exit, 0, self._env(self.current)))
            return
        if not self.active_players:
            self._end_round(_STUCK)
            agenda.append((_ROUND_END,))
            return
        if not self.active[self.current]:
            self.current = self.next_active(self.current)
        self._legal = None
        if not self._legal_ids():
            self._skip()
            agenda.append((_CHECK,))

    def _skip(self) -> None:
        """The player to move has nothing legal: they are skipped, as if they passed."""
        self._legal = None  # kept only at decision nodes: a chance node may come first
        self.passes += 1
        if self.log is not None:
            self.log.append(f"P{self.current + 1} cannot move and is skipped")
        if self.passes >= len(self.active_players):
            self._end_round(_STUCK)
        else:
            self.current = self.next_active(self.current)

    def _advance(self) -> None:
        if self.game_over or self.round_over:
            return
        self.pass_turn()

    # After a step: the next player (unless an effect chose one), and the end of the round when
    # due; False when the round ends. Compiled from flow.turn_passing, as the settle functions are.
    pass_turn = flow.pass_turn_function()

    def _triggers(self, index: int) -> None:
        """Evaluate trigger `index` and queue the effects that fire (the agenda's path)."""
        triggers = self.program.triggers
        if index >= len(triggers) or self.game_over or self.round_over:
            return
        trigger = triggers[index]
        self.agenda.append((_TRIGGERS, index + 1))
        for env in reversed(self._fired(trigger)):
            self.agenda.append((_SEGMENTS, trigger.effects, 0, env))

    # ---- helpers for compiled rules --------------------------------------------------

    def next_active(self, player: int) -> int:
        """The next seat after `player` in the direction of play still in the round (else `player`)."""
        active = self.active
        n = len(active)
        step = self.direction
        candidate = player
        for _ in range(n):
            candidate = (candidate + step) % n
            if active[candidate]:
                return candidate
        return player

    def move_cards(self, cards: Sequence[int], destination: int, at_bottom: bool, sorted_tables) -> None:
        zones, where = self.zones, self.where
        target = zones[destination]
        table = sorted_tables.get(destination) if sorted_tables else None
        # one statement moves its cards at once: the players learn of the move as a whole,
        # as for `move_top` (a player who knew a whole zone's cards still knows them after)
        sources: dict[int, list[int]] | None = {} if self._track else None
        for card in cards:
            if card < 0:
                continue
            start = where[card]
            source = zones[start]
            if source is target and source and source[-1] == card and not at_bottom:
                continue
            source.remove(card)
            if table is not None:
                insert_sorted(target, card, table)
            elif at_bottom:
                target.insert(0, card)
            else:
                target.append(card)
            where[card] = destination
            if start != destination:
                if sources is not None:
                    sources.setdefault(start, []).append(card)
            else:
                self._touched.add(start)
        if sources:
            for start, moved in sources.items():
                knowledge.moved(self, moved, start, destination)

    def put_on_top(self, card: int, destination: int) -> None:
        """`move_cards` for one card onto a zone that is not kept sorted."""
        if card < 0:
            return
        start = self.where[card]
        if start == destination:
            cards = self.zones[start]
            if cards[-1] != card:
                cards.remove(card)
                cards.append(card)
                if self._track:
                    self._touched.add(start)
            return
        zones = self.zones
        zones[start].remove(card)
        zones[destination].append(card)
        self.where[card] = destination
        if self._track:  # an untracked state keeps no knowledge: nothing to note
            knowledge.moved(self, (card,), start, destination)

    def move_top(self, source: int, count: int, destination: int, sorted_tables) -> None:
        """`move_cards` for the top `count` cards of zone `source` onto a zone not kept sorted."""
        zones = self.zones
        cards = zones[source]
        if count == 1 and cards and source != destination:  # one card (a draw): no slices
            card = cards.pop()
            zones[destination].append(card)
            self.where[card] = destination
            if self._track:
                knowledge.moved(self, (card,), source, destination)
            return
        if count <= 0:
            return
        if source == destination:
            self.move_cards(cards[-count:], destination, False, sorted_tables)
            return
        moved = cards[-count:]
        del cards[-count:]
        zones[destination].extend(moved)
        where = self.where
        for card in moved:
            where[card] = destination
        if self._track:
            knowledge.moved(self, moved, source, destination)

    def leave_round(self, player: int, where: str = "") -> None:
        """`player` is out: skipped for the rest of the round."""
        if not 0 <= player < len(self.active):  # e.g. the holder of a card in a shared zone (one entry per seat)
            raise needs_player("'out'", player, where)
        if self.active[player]:
            self.active[player] = False
            self.active_players.remove(player)

    def turn_to(self, player: int, where: str) -> None:
        """The next turn is `player`'s, whatever the direction of play."""
        if not 0 <= player < len(self.active):  # one entry per seat
            raise needs_player("'turn to'", player, where)
        self.current = player
        self.turn_set = True

    def deal(self, source: int, base: int, first: int, each: int | None, sorted_tables) -> None:
        """Deal from the top of zone `source`, one card at a time in seat order from `first`,
        to the zones `base + seat`: all cards, or `each` per seat while cards last."""
        n = self.num_players
        zones, where = self.zones, self.where
        cards = zones[source]
        total = len(cards) if each is None else min(len(cards), max(0, each) * n)
        if base <= source < base + n:  # dealing from one of the receiving zones
            for k in range(total):
                self.move_cards((cards[-1],), base + (first + k) % n, False, sorted_tables)
            return
        if not self._track and total:  # no knowledge to note card by card: each seat's cards at once
            dealt = cards[-total:]
            del cards[-total:]
            dealt.reverse()  # in the order dealt, the top card first
            for k in range(min(n, total)):
                destination = base + (first + k) % n
                part = dealt[k::n]  # every n-th card from this seat's first, as dealing one by one
                table = sorted_tables.get(destination)
                if table is None:
                    zones[destination].extend(part)
                else:
                    for card in part:
                        insert_sorted(zones[destination], card, table)
                for card in part:
                    where[card] = destination
            return
        for k in range(total):
            card = cards.pop()
            destination = base + (first + k) % n
            table = sorted_tables.get(destination)
            if table is None:
                zones[destination].append(card)
            else:
                insert_sorted(zones[destination], card, table)
            where[card] = destination
            if self._track:
                knowledge.moved(self, (card,), source, destination)

    def holder(self, card: int) -> int:
        """The player whose zone holds `card`, or -1 (a shared zone, or no card)."""
        return self.program.zone_owner[self.where[card]] if card >= 0 else -1

    def reveal(self, player: int, cards: Sequence[int]) -> None:
        cards = [c for c in cards if c >= 0]
        self.shown[player].extend(cards)
        self.shown_any = True
        if self._track:
            knowledge.revealed(self, player, cards)

    def can_move(self, player: int) -> bool:
        """Whether `player` has a legal move other than a pass in the current phase."""
        if self.phase < 0:
            return False
        moves = self.program.moves
        found: list[int] = []
        for index in self.program.phases[self.phase].moves:
            move = moves[index]
            if not move.is_pass:
                move.enumerate(self, player, found)
                if found:
                    return True
        return False

    # ---- legal actions ---------------------------------------------------------------

    def _legal_ids(self) -> list[int]:
        """The ids of the legal actions of the player to move, in increasing order (kept until a step)."""
        if self._legal is None:
            if self._pending:  # kept aside while a pick is made (`_pick`)
                return self._ids[0]  # type: ignore[index]
            found: list[int] = []
            if self.phase >= 0 and not self.game_over:
                self.program.phases[self.phase].enumerate(self, self.current, found)
                found.sort()
            self._legal = found
        return self._legal

    def _is_legal(self, action: int) -> bool:
        return _in_sorted(self._legal_ids(), action)

    def _label(self, move: CompiledMove, player: int, values: tuple) -> str:
        """A move's readable name, from its label if the rules give one."""
        if move.label is None:
            return self.game.describe(move, values)
        env = self._env(player)
        for param, value in zip(move.params, values):
            env[param.slot] = value
        return move.label(self, env)

    # ---- what players see ------------------------------------------------------------

    def log_for(self, player: int, start: int = 0) -> list[str]:
        """The log as `player` saw it (from line `start`): another player's hidden move shows
        only its name. Lines written by the rules' `log` effect are announcements to every
        player. Needs a state made with `record_log=True`.
        """
        player = seat_of(player, self.num_players, "log_for")
        if self.log is None:
            raise ValueError("this state keeps no log: make it with new_initial_state(..., record_log=True)")
        first = integer(start)
        if first is None or first < 0:
            raise EngineError(f"log_for starts at a line number, 0 or more, not {start!r}")
        return [
            line.public
            if isinstance(line, _HiddenMoveLine) and line.mover != player
            else line.views[player]
            if isinstance(line, _RevealLine)
            else str(line)
            for line in self.log[first:]
        ]

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` sees now: every zone it may look into, counts of the others."""
        player = seat_of(player, self.num_players, "observation")
        program = self.program
        names = program.card_names
        zones: dict[str, list[str] | int] = {}
        for index, cards in enumerate(self.zones):
            visibility = program.zone_visibility[index]
            if may_see(visibility, program.zone_owner[index], player, program.teams):
                zones[program.zone_names[index]] = [names[c] for c in cards]
            else:
                zones[program.zone_names[index]] = len(cards)
        last = None
        if self.last_action is not None:
            mover, action = self.mover, self.last_action
            game = self.game
            # A hidden move is named to the others without its parameters.
            shown = game.key_name(action) if game.seen_whole(action, mover, player) else game.move_of(action).name
            last = {"player": mover, "move": shown}
        seen: dict[str, Any] = {
            "player": player,
            "round": self.round_number,
            "phase": program.phases[self.phase].name if self.phase >= 0 else None,
            "current_player": self.current_player(),
            "direction": self.direction,
            "active": list(self.active),
            "zones": zones,
            "variables": self.variables(),
            "shown": [names[c] for c in self.shown[player]],
            "last_move": last,
            "terminal": self.game_over,
        }
        if self._pending and player == self.current:
            seen["choosing"] = self.pending_names()
        if self._commits:
            seen["chosen"] = self.commits_seen(player)
        return seen

    def variables(self) -> dict[str, Any]:
        program = self.program
        out: dict[str, Any] = {}
        for name, per_player, type_ in program.variable_layout:
            offset = program.variable_offsets[name]
            values = self.vars[offset : offset + (program.num_players if per_player else 1)]
            shown = [self.game.show_value(v, type_) for v in values]
            out[name] = shown if per_player else shown[0]
        return out

    def information_state(self, player: int) -> list[dict[str, Any]]:
        """Everything `player` has observed: its observation after every step so far.

        Rebuilt from the trail of steps the state keeps (see `knowledge`), never by replay.
        The list and its observations are new at every call.
        """
        return knowledge.observations(self, seat_of(player, self.num_players, "information_state"))

    def information_state_key(self, player: int) -> str:
        """A short text standing for `information_state(player)`: two states give the same key
        exactly when that player has observed the same (a SHA-256 chain over what changed in
        its observation at each step). Kept between calls: asking costs only the new steps."""
        return knowledge.key(self, seat_of(player, self.num_players, "information_state_key"))

    def knowledge(self, player: int) -> dict[str, str | None]:
        """Where `player` knows each card to be (a zone name), or None for a card it has not seen."""
        return knowledge.knowledge(self, seat_of(player, self.num_players, "knowledge"))

    def resample(self, player: int, rng: random.Random) -> State:
        """A complete state `player` cannot tell from this one (see `rulesengine.resample`)."""
        from .resample import Resampler, check_generator  # the resampler needs the engine: imported when asked

        check_generator(rng, "resample")
        return Resampler(self, seat_of(player, self.num_players, "resample")).sample(rng)

    def history_list(self) -> list[tuple[int, bool]]:
        """(value, is chance outcome) of every step so far (since the position, for a state put into
        one, or since it was drawn, for a resampled state)."""
        return self.history_since(None)

    def history_since(self, earlier: State | None) -> list[tuple[int, bool]]:
        """`history_list` from `earlier` on: a state this one went on from, kept as a clone (a
        checkpoint, which is never played on). None: from the start."""
        if earlier is not None and not isinstance(earlier, State):
            raise EngineError(
                f"history_since takes a state this one went on from (a clone) or None, not {earlier!r} "
                f"({type(earlier).__name__})"
            )
        until = None if earlier is None else earlier.history
        if earlier is not None and earlier._tail:
            raise EngineError("a state that was played on after it was cloned is no checkpoint")
        # a state at the start has no history to tell it by: it must be of this match's game and seed
        if earlier is not None and (earlier.game is not self.game or (until is None and earlier.seed != self.seed)):
            raise EngineError("this state did not go on from the one given")
        chunks = [self._tail]
        cell = self.history
        while cell is not until:
            if cell is None:
                raise EngineError("this state did not go on from the one given")
            cell, values = cell
            chunks.append(values)
        return [(~value, True) if value < 0 else (value, False) for values in reversed(chunks) for value in values]

    def forget_history(self) -> None:
        """Start the history again here (a state put into a position, or resampled)."""
        self.history = _FORGOTTEN
        self._tail = []

    def _from_start(self) -> bool:
        """Whether the history goes back to the start of the match (not so after a position or a
        resampling, which forget the past)."""
        cell = self.history
        while cell is not None:
            if cell is _FORGOTTEN:
                return False
            cell = cell[0]
        return True

    def actions(self) -> list[int]:
        """The players' actions so far (without chance outcomes)."""
        return [value for value, is_chance in self.history_list() if not is_chance]

    def card_locations(self) -> dict[str, list[str]]:
        """Every zone's cards (for tests and debugging; not for agents)."""
        names = self.program.card_names
        return {self.program.zone_names[i]: [names[c] for c in z] for i, z in enumerate(self.zones)}

    def __reduce__(self) -> tuple:
        """Pickled as its game, seed and history: unpickling replays them."""
        if not self._from_start():
            raise EngineError(
                "a resampled state, or one put into a position, keeps no history from the start and cannot be pickled"
            )
        values = [value for value, _is_chance in self.history_list()]
        return _restore_state, (self.game, self.seed, values, self._track, self.log is not None)

    def __str__(self) -> str:
        lines = [f"round {self.round_number}, phase {self.observation(0)['phase']}, P{self.current + 1} to move"]
        for zone, cards in self.card_locations().items():
            if cards:
                lines.append(f"  {zone}: {' '.join(cards)}")
        return "\n".join(lines)


class MatchLog(list):
    """A match's log: its lines, in order. It stops growing past limits.MAX_LOG_CHARACTERS
    (a valid rule file may log a zone of thousands of cards at every step of a long match),
    with a last line that says so; the match itself goes on as it would without a log."""

    __slots__ = ("characters",)

    def __init__(self) -> None:
        super().__init__()
        self.characters = 0

    def append(self, line: str) -> None:
        if self.characters > MAX_LOG_CHARACTERS:
            return
        self.characters += len(line)
        if self.characters > MAX_LOG_CHARACTERS:
            line = f"(the log stops here: it passed {MAX_LOG_CHARACTERS:,} characters; the match goes on)"
        super().append(line)


class _HiddenMoveLine(str):
    """A log line of a hidden move: the mover sees it whole, the others its public form."""

    mover: int
    move_name: str

    def __new__(cls, line: str, mover: int, move_name: str) -> _HiddenMoveLine:
        self = super().__new__(cls, line)
        self.mover, self.move_name = mover, move_name
        return self

    def __getnewargs__(self) -> tuple[str, int, str]:  # type: ignore[override]  # so that copies and pickles keep it
        return str(self), self.mover, self.move_name

    @property
    def public(self) -> str:
        return f"P{self.mover + 1}: {_spaced(self.move_name)}"


class _RevealLine(str):
    """The log line that reveals a simultaneous phase's choices: the whole line (every choice
    named), and the line as each player saw it (another player's hidden move by its name)."""

    views: tuple[str, ...]

    def __new__(cls, whole: str, views: Sequence[str]) -> _RevealLine:
        self = super().__new__(cls, whole)
        self.views = tuple(views)
        return self

    def __getnewargs__(self) -> tuple[str, tuple[str, ...]]:  # type: ignore[override]  # so that copies and pickles keep it
        return str(self), self.views


def _spaced(name: str) -> str:
    return name.replace("_", " ")


def action_id(value: Any) -> int:
    """An action id given by a caller, as the int it is (see `diagnostics.integer`)."""
    action = integer(value)
    if action is None:
        raise IllegalActionError(f"an action is an integer id, not {value!r} ({type(value).__name__})")
    return action


def seat_of(player: Any, num_players: int, asked: str) -> int:
    """`player` as a seat of a match of `num_players`; anything else, -1 among them (which
    Python's indexing would take for the last seat), is refused."""
    seat = integer(player)
    if seat is None or not 0 <= seat < num_players:
        raise EngineError(f"{asked} needs a player from 0 to {num_players - 1}, not {player!r}")
    return seat


def _jumps(segment: Segment) -> bool:
    """Whether a segment does more than end its list: a random choice, a test or a jump."""
    return segment.choose is not None or segment.test is not None or segment.next >= 0


def _in_sorted(items: list[int], value: int) -> bool:
    """Whether `value` is in the sorted list `items` (by bisection: for a long list)."""
    index = bisect_left(items, value)
    return index < len(items) and items[index] == value


def seeded_shuffle(cards: list, seed: int) -> None:
    """Exactly `random.Random(seed).shuffle(cards)` (CPython's algorithm: the replay format
    depends on the order it gives), without a method call per card."""
    getrandbits = _random.Random(seed).getrandbits  # seeded as random.Random(seed) is, without its Python layer
    size = len(cards)
    bits = size.bit_length()  # the bits drawn for a place among i + 1 cards: (i + 1).bit_length()
    edge = (1 << bits >> 1) - 1  # below this i, one bit fewer
    for i in range(size - 1, 0, -1):
        if i < edge:
            bits -= 1
            edge >>= 1
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def _may_stop(segments: tuple[Segment, ...]) -> bool:
    return any(segment.shuffle is not None or segment.choose is not None for segment in segments)


def _does_nothing(segments: tuple[Segment, ...]) -> bool:
    """Whether an effect list has no effects, no chance and no jumps (as an empty list compiles)."""
    return all(s.run is no_effects and s.shuffle is None and not _jumps(s) for s in segments)


def _effect_lists(program: Program) -> list[tuple[Segment, ...]]:
    """Every effect list of a program that the flow of a match runs."""
    lists = [program.setup, program.round_setup, program.round_end]
    lists += [program.round_limit_effects, program.round_stuck_effects]
    lists += [effects for phase in program.phases for effects in (phase.enter, phase.exit)]
    lists += [move.effects for move in program.moves] + [trigger.effects for trigger in program.triggers]
    return lists


def _restore_state(game: Game, seed: int | None, values: list[int], track: bool, record_log: bool = False) -> State:
    state = game.new_initial_state(seed, track=track, record_log=record_log)
    for value in values:
        state.apply_action(value)
    return state


def _remake_game(
    file: str, players: int, options: dict, max_steps: int, optimize: bool = True, digest: str | None = None
) -> Game:
    """The game a pickle names: its rules must be the ones it was made from (`digest`), or
    the history pickled with a state would be replayed on other rules."""
    from .api import composed_digest, make_game  # the api builds games; imported here, as it imports this module

    game = make_game(file, players, options, max_steps=max_steps, optimize=optimize)
    if digest is not None and composed_digest(game.ruleset) != digest:
        raise EngineError(f"{file}: the rules have changed since the game was pickled")
    return game


def _shared_copier():
    """A function setting every shared field of one state from another, written out (one
    assignment each) because `clone` is the hot path of search agents."""
    lines = ["def copy(source, target):", *(f"    target.{name} = source.{name}" for name in State._SHARED)]
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # field names are this module's own constants
    return namespace["copy"]


_copy_shared = _shared_copier()


class Game:
    """A ruleset with its options and number of players fixed, ready to play."""

    def __init__(self, program: Program, max_steps: int = DEFAULT_MAX_STEPS):
        self.program = program
        self.ruleset = program.ruleset
        self.num_players = program.num_players
        # read-only: `make_game` hands one game to every caller of the same setting
        self.options: Mapping[str, Any] = MappingProxyType(dict(program.options))
        self.max_steps = max_steps
        self.sight = knowledge.Sight(program)
        self._decoded: dict[int, tuple[CompiledMove, tuple]] = {}  # at most one entry per action id
        # (step or None, parameter values, is a pass, move, the step settles) of every action
        # decoded so far, as `State._act` reads them; filled with `_decoded`
        self.plays: dict[int, tuple[Any, tuple, bool, CompiledMove, bool]] = {}
        # each phase's settle function by phase index: one load reaches it after a step
        # (None for a phase whose moves all settle in their own step: never called)
        self.settles: tuple[Any, ...] = tuple(phase.settle for phase in program.phases)
        self.encoding = Encoding(program)  # the ids players see (actions.py)
        # by id: (step, parameter values, the step settles) of every id decoded so far that is a
        # whole action of a move with a step and may be applied at once (`State.apply_action`):
        # every such action of a game without simultaneous phases whose id is its key; None for
        # any other id. Ids past DIRECT_IDS take the general path, which does the same by `plays`.
        self.direct: list[tuple[Any, tuple, bool] | None] = [None] * min(self.encoding.num_actions, DIRECT_IDS)
        # the table of a state that keeps knowledge: as long, and empty (no exception on the path)
        self.no_direct: list[None] = [None] * len(self.direct)
        self.stepwise = self.encoding.stepwise
        self.simultaneous = any(phase.simultaneous for phase in program.phases)
        self.whole = not self.stepwise and not self.simultaneous  # every id is a whole action, applied at once
        # a game with choices in steps and no simultaneous phase: the key of an id taken in one id
        # (`Encoding.key_of`); None for any other id, and always None in any other game
        self.whole_key: Callable[[int], int | None] = (
            self.encoding.key_of if self.stepwise and not self.simultaneous else dict[int, int]().get
        )
        # the effect lists that may stop for chance (by identity): a shuffle or a random choice
        self.chancy = frozenset(id(effects) for effects in _effect_lists(program) if _may_stop(effects))
        # the effect lists that do nothing (by identity): the direct flow passes them by
        self.idle = frozenset(id(effects) for effects in _effect_lists(program) if _does_nothing(effects))
        self.blank = (None,) * (program.slots - 1)  # an environment after its slot 0 (`State._env`)
        self.initial_where = [0] * program.num_cards  # each card's zone at the start (`State.where`)
        for index, zone in enumerate(program.initial_zones):
            for card in zone:
                self.initial_where[card] = index

    def new_initial_state(self, seed: int | None = None, record_log: bool = False, track: bool = True) -> State:
        """A new match. With a seed, shuffles are drawn from it; without, they are chance nodes.

        With `record_log`, `state.log` collects a readable line for every event. With
        `track=False` the state keeps no knowledge of the players (faster; no information states).
        """
        state = State(self, None if seed is None else seed_number(seed), track)
        if record_log:
            state.log = MatchLog()
        state._start()
        return state

    def __reduce__(self) -> tuple:
        """Pickled as what makes it: the rule file (by its absolute path, so that it is found
        from another folder) and the digest of its rules, the players, the options, the step
        limit and the mode of compiling."""
        from .api import composed_digest

        file = str(Path(self.ruleset.file).resolve())
        optimized = bool(self.program.source)  # the reference mode generates no source
        digest = composed_digest(self.ruleset)
        return _remake_game, (file, self.num_players, dict(self.options), self.max_steps, optimized, digest)

    @property
    def num_distinct_actions(self) -> int:
        return self.encoding.num_actions

    @property
    def utility(self) -> results.Utility:
        """The range of a player's return and their sum when it is fixed (for adapters)."""
        return results.utility(self.program)

    @functools.cached_property
    def max_chance_outcomes(self) -> int:
        """The most outcomes of one chance node: a shuffle's cards, or a random choice's values."""
        return most_outcomes(self.ruleset, self.options, self.num_players, self.program.num_cards)

    def move_of(self, action: int) -> CompiledMove:
        """The move of a complete action given by its key (the engine's number of it: in a game
        without choices made in steps, its id; see compile.key_offsets)."""
        if type(action) is not int:
            action = action_id(action)  # an int given as another type, or an error saying what is expected
        moves = self.program.moves
        for move in moves:
            if move.offset <= action < move.offset + move.width:
                return move
        first, last = min(m.offset for m in moves), max(m.offset + m.width for m in moves) - 1
        raise IllegalActionError(f"{action} is the key of no action of this game (its keys run from {first} to {last})")

    def seen_whole(self, key: int, mover: int, player: int) -> bool:
        """Whether `player` sees the complete action `key` of `mover` whole, its cards named:
        every move but another player's hidden one, which the others see only by its name."""
        return not self.move_of(key).hidden or mover == player

    def decode(self, action: int) -> tuple[CompiledMove, tuple]:
        """The move of a complete action given by its key (see `move_of`) and its parameter values."""
        # only an int is looked up: True and 1.0 would find the action of key 1
        decoded = self._decoded.get(action) if type(action) is int else None
        if decoded is None:
            action = action_id(action)  # kept under an int key with int values, never under 0.0
            decoded = self._decoded[action] = self._decode(action)
            move, values = decoded
            self.plays[action] = (move.step, values, move.is_pass, move, move.settled)
            if move.step is not None and (self.whole or self.whole_key(action) == action) and action < len(self.direct):
                self.direct[action] = (move.step, values, move.settled)
        return decoded

    def _decode(self, action: int) -> tuple[CompiledMove, tuple]:
        move = self.move_of(action)
        rest = action - move.offset
        width = move.width
        values: list[Any] = []
        for param in move.params:
            width //= param.domain_size
            key, rest = divmod(rest, width)
            if param.kind == "card":
                values.append(key)
            elif param.kind == "set":
                assert param.size is not None  # a set parameter always has a size
                values.append(combination_unrank(key, param.size))
            elif param.kind == "subset":
                cards = mask_cards(key)
                assert param.size is not None and param.at_least is not None  # a subset has both
                if not param.at_least <= len(cards) <= param.size:
                    raise IllegalActionError(
                        f"{action} is the key of no action of this game: it gives move '{move.name}' a set of "
                        f"{len(cards)} cards, where it takes {param.at_least} to {param.size}"
                    )
                values.append(cards)
            else:
                assert param.domain is not None  # only card parameters have no static domain
                if key >= len(param.domain):  # a parameter without candidates: its one key stands for nothing
                    raise IllegalActionError(
                        f"{action} is the key of no action of this game: move '{move.name}' has no value there"
                    )
                values.append(param.domain[key])
        return move, tuple(values)

    def key_name(self, key: int) -> str:
        """The name of a complete action by the engine's key (`CompiledMove.offset` numbering)."""
        move, values = self.decode(key)
        return self.describe(move, values)

    def action_name(self, action: int) -> str:
        """The name of an action id as players see them, independent of the state (a step of a
        choice is named as its move's first step)."""
        action = action_id(action)
        if not self.stepwise:
            return self.key_name(action)
        block = self.encoding.block_of(action)
        if block is None:
            raise IllegalActionError(f"action {action} is outside 0..{self.encoding.num_actions - 1}")
        if not block.stepwise:
            return self.key_name(block.move.offset + action - block.offset)
        return self.encoding.step_name(action, (), self.program.card_names, self.program.suit_names)

    def describe(self, move: CompiledMove, values: tuple) -> str:
        shown = [self.show_param(p, v) for p, v in zip(move.params, values)]
        return " ".join([move.name.replace("_", " "), *shown])

    def show_param(self, param, value) -> str:
        names = self.program.card_names
        if param.kind == "card":
            return names[value]
        if param.kind in ("set", "subset"):
            return " ".join(names[c] for c in value) if value else "none"
        if param.kind == "player":
            return f"P{value + 1}"
        if param.kind == "suit":
            return self.program.suit_names[value]
        return str(value)

    def show_value(self, value: Any, type_: str) -> Any:
        program = self.program
        if type_ == ir.CARD:
            return program.card_names[value] if isinstance(value, int) and value >= 0 else None
        if type_ == ir.SUIT:
            return program.suit_names[value] if isinstance(value, int) and value >= 0 else None
        if type_ == ir.PLAYER:
            return value
        return value
