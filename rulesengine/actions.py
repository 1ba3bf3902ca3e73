"""The action ids players see: one id per action, or a choice made in steps.

A move without a set parameter takes one id per action (its parameters' values numbered
together, as the compiled moves number them). A move with a set parameter is chosen in
steps by the same player, so that its ids stay few: each step picks one value of one
parameter, in the order the move declares them:

- a card parameter: the card's id;
- a set of N cards: its cards one at a time, in increasing card id (N steps);
- a set of variable size: its cards in increasing card id, then "done" (id = number of cards);
- a player, suit or value parameter: the value's place in its candidates.

Every step of a move uses the ids of the move's own block (as wide as its widest step), so
an id's meaning depends on the picks made so far; the first id of a choice tells the move.
The complete action (the engine's key of the move and its values, `CompiledMove.offset`
and `width`) is applied once its last step is made. A step is legal only when some legal
action starts with the picks so far and it, so a choice never ends in a dead end.
"""

from __future__ import annotations

from typing import Any

import attrs

from .compile import STEPWISE_KINDS, CompiledMove, Program, id_block


@attrs.frozen
class Block:
    """The ids of one move: `offset` to `offset + width - 1`."""

    move: CompiledMove
    offset: int
    width: int
    stepwise: bool


class Encoding:
    """The ids of one game setting; keeps each complete action's steps once computed."""

    def __init__(self, program: Program):
        self.num_cards = program.num_cards
        self.blocks: list[Block] = []
        offset = 0
        for move in program.moves:
            stepwise, width = id_block(move.params, self.num_cards)
            self.blocks.append(Block(move, offset, width, stepwise))
            offset += width
        self.num_actions = offset
        self.table = [b for b in self.blocks for _ in range(b.width)]  # id -> its block
        # the most ids one decision can take (a choice in steps: a set's cards, and "done")
        self.most_steps = max((self.steps_of_move(b.move) for b in self.blocks if b.stepwise), default=1)
        self.stepwise = any(b.stepwise for b in self.blocks)
        self._steps: dict[int, tuple[int, ...]] = {}  # a complete action's key -> its ids, one per step
        # id -> its key, for the ids of moves taken in one id (in a game with choices in steps);
        # `key_of` gives None for any other value (a step of a choice, an id out of range)
        keys = {
            block.offset + i: block.move.offset + i
            for block in (self.blocks if self.stepwise else ())
            if not block.stepwise
            for i in range(block.width)
        }
        self.key_of = keys.get
        # A complete action's key -> its first id: the keys of moves taken in one id from the
        # start (they are as few as their ids), the others as they are met (the keys of one move
        # chosen in steps can be far more than its ids). `plain` holds only the former: their
        # ids increase with their keys, so legal keys all found there need no sorting.
        self.plain: dict[int, int] = {key: id_ for id_, key in keys.items()}
        self.first: dict[int, int] = dict(self.plain)
        self.plain_id = self.plain.get  # bound once: it is called at every decision
        # A key below this is its own id (the ids of the others need a look-up): the compiler gives
        # the moves taken in one id their ids as keys, and the moves chosen in steps keys past every
        # id (compile.key_offsets); a program numbered otherwise (moves in file order, as the
        # reference mode numbers them) has its first key that is not its id lower.
        own = min((b.move.offset for b in self.blocks if b.stepwise), default=offset)
        own = min([own, *(b.move.offset for b in self.blocks if not b.stepwise and b.move.offset != b.offset)])
        self.own_ids = own

    @staticmethod
    def steps_of_move(move: CompiledMove) -> int:
        return sum((p.size or 0) + (p.kind == "subset") if p.kind in STEPWISE_KINDS else 1 for p in move.params)

    def block_at(self, action: int) -> Block | None:
        """`block_of` by a table: the block of an id, or None outside 0..num_actions-1."""
        return self.table[action] if 0 <= action < self.num_actions else None

    def block_of(self, action: int) -> Block | None:
        for block in self.blocks:
            if block.offset <= action < block.offset + block.width:
                return block
        return None

    def steps(self, key: int, move: CompiledMove, values: tuple) -> tuple[int, ...]:
        """The ids a complete action (the engine's key, decoded as `move` and `values`) is made of."""
        found = self._steps.get(key)
        if found is None:
            block = self.blocks[move.index]
            found = (block.offset + key - move.offset,) if not block.stepwise else self.steps_of(move, values)
            self._steps[key] = found
        return found

    def note_first(self, key: int, move: CompiledMove, values: tuple) -> int:
        """Keep the first id of a complete action (the engine's key, decoded as `move` and `values`)."""
        found = self.first[key] = self.steps(key, move, values)[0]
        if not self.blocks[move.index].stepwise:
            self.plain[key] = found
        return found

    def steps_of(self, move: CompiledMove, values: tuple) -> tuple[int, ...]:
        """The ids of a stepwise move's action with these parameter values."""
        block = self.blocks[move.index]
        local: list[int] = []
        for param, value in zip(move.params, values):
            if param.kind in STEPWISE_KINDS:
                local.extend(sorted(value))
                if param.kind == "subset":
                    local.append(self.num_cards)
            elif param.kind == "card":
                local.append(value)
            else:
                domain = param.domain or ()
                local.append(domain.index(value) if value in domain else len(domain))
        return tuple(block.offset + i for i in local)

    def parse(self, steps: tuple[int, ...]) -> tuple[Block, list, int] | None:
        """The values a stepwise choice's ids give so far: (block, values, ids used); the values
        stop at the first parameter not complete. None if the ids are not of one stepwise block."""
        if not steps:
            return None
        block = self.block_of(steps[0])
        if block is None or not block.stepwise:
            return None
        local = [s - block.offset for s in steps]
        if any(not 0 <= i < block.width for i in local):
            return None
        values: list = []
        used = 0
        for param in block.move.params:
            if param.kind == "set":
                size = param.size or 0  # a set parameter always has its size
                if used + size > len(local):
                    break
                values.append(tuple(local[used : used + size]))
                used += size
            elif param.kind == "subset":
                if self.num_cards not in local[used:]:
                    break
                end = local.index(self.num_cards, used)
                values.append(tuple(local[used:end]))
                used = end + 1
            else:
                if used >= len(local):
                    break
                place = local[used]
                if param.kind == "card":
                    values.append(place)
                else:
                    domain = param.domain or ()
                    values.append(domain[place] if place < len(domain) else None)
                used += 1
        return block, values, used

    def step_name(self, action: int, picked: tuple[int, ...], card_names: tuple, suit_names: tuple) -> str:
        """What id `action` means as the next step after the ids `picked` of the same choice."""
        block = self.block_of(action)
        if block is None:
            return str(action)
        parsed = self.parse(picked) if picked else (block, [], 0)
        count = len(parsed[1]) if parsed is not None else 0
        params = block.move.params
        param = params[min(count, len(params) - 1)] if params else None
        name = block.move.name.replace("_", " ")
        if param is None:
            return name
        return f"{name}: {self._value_name(param, action - block.offset, card_names, suit_names)}"

    def _value_name(self, param: Any, local: int, card_names: tuple[str, ...], suit_names: tuple[str, ...]) -> str:
        if param.kind in ("card", "set", "subset"):
            if local == self.num_cards:
                return "done"
            return card_names[local] if local < len(card_names) else str(local)
        domain = param.domain or ()
        if local >= len(domain):
            return str(local)
        value = domain[local]
        if param.kind == "player":
            return f"P{value + 1}"
        if param.kind == "suit":
            return suit_names[value]
        return str(value)
