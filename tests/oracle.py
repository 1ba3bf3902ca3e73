"""Play one match with the optimised program and the reference program side by side.

`play_both` compares, at every step: whether the match is over, whether it is a chance
node, the player to move, the chance outcomes, the legal actions and their names, the
log, every zone's cards, every variable, every player's observation, and at the end the
returns. An `EngineError` must be raised by both at the same step, with the same message
(the rule-file position it names, and what went wrong there). Used by
tests/test_reference_oracle.py and by `python -m tests.fuzz_compiler`.
"""

from __future__ import annotations

import random

from rulesengine import EngineError, Game, State


class Disagreement(AssertionError):
    """The optimised and the reference programs decided differently."""


def same_layout(fast: Game, reference: Game) -> None:
    a, b = fast.program, reference.program
    for field in (
        "card_names",
        "card_deck",
        "suit_names",
        "zone_names",
        "zone_owner",
        "zone_visibility",
        "initial_zones",
        "variable_offsets",
        "initial_variables",
        "variable_layout",
        "slots",
    ):
        if getattr(a, field) != getattr(b, field):
            raise Disagreement(f"{field}: {getattr(a, field)!r} != {getattr(b, field)!r}")
    # The ids players see must agree; the engine's keys (numbers of complete actions) are each
    # program's own: the compiler puts the moves chosen in steps after every id, the reference
    # mode numbers the moves in file order.
    for block_a, block_b in zip(fast.encoding.blocks, reference.encoding.blocks):
        if (block_a.offset, block_a.width, block_a.stepwise) != (block_b.offset, block_b.width, block_b.stepwise):
            raise Disagreement(f"move {block_a.move.name}: ids differ")
    for move_a, move_b in zip(a.moves, b.moves):
        if (move_a.width, move_a.is_pass, move_a.hidden) != (move_b.width, move_b.is_pass, move_b.hidden):
            raise Disagreement(f"move {move_a.name}: actions or kind differ")
        for pa, pb in zip(move_a.params, move_b.params):
            if (pa.kind, pa.domain, pa.domain_size, pa.size) != (pb.kind, pb.domain, pb.domain_size, pb.size):
                raise Disagreement(f"move {move_a.name}: parameter {pa.slot} differs")


def _run(what, *args):
    """(result, None) or (None, the EngineError raised)."""
    try:
        return what(*args), None
    except EngineError as error:
        return None, error


def _names(state: State, actions: list[int]) -> list[str]:
    return [state.action_to_string(action) for action in actions]


def _agree(step: int, what: str, a, b) -> None:
    if a != b:
        raise Disagreement(f"step {step}: {what} differ:\n  optimised: {a!r}\n  reference: {b!r}")


def _same_outcome(step: int, what: str, result_a, result_b) -> bool:
    """Whether both raised (the same error); fails if only one did. True: both raised."""
    (_, error_a), (_, error_b) = result_a, result_b
    if error_a is None and error_b is None:
        return False
    if error_a is None or error_b is None:
        raise Disagreement(f"step {step}: {what}: optimised raised {error_a!r}, reference raised {error_b!r}")
    _agree(step, f"{what}: errors", str(error_a), str(error_b))
    return True


def compare_states(step: int, a: State, b: State) -> None:
    _agree(step, "terminal", a.is_terminal(), b.is_terminal())
    _agree(step, "chance node", a.is_chance_node(), b.is_chance_node())
    _agree(step, "current player", a.current_player(), b.current_player())
    _agree(step, "logs", a.log, b.log)
    _agree(step, "zones", a.zones, b.zones)
    _agree(step, "variables", a.vars, b.vars)
    _agree(
        step,
        "round, phase, turn, passes, direction, active",
        (a.round_number, a.phase, a.turns, a.passes, a.direction, a.active),
        (b.round_number, b.phase, b.turns, b.passes, b.direction, b.active),
    )
    _agree(step, "shown", a.shown, b.shown)
    _agree(
        step,
        "steps, mover, history",  # (`last_action` is a key: the two modes number them apart)
        (a.steps, a.mover, a.history_list()),
        (b.steps, b.mover, b.history_list()),
    )
    _agree(step, "chance outcomes", a.chance_outcomes(), b.chance_outcomes())
    for player in range(a.num_players):
        _agree(step, f"observation of P{player + 1}", a.observation(player), b.observation(player))
        _agree(step, f"knowledge of P{player + 1}", a.knowledge(player), b.knowledge(player))
        _agree(
            step,
            f"information state of P{player + 1}",
            a.information_state_key(player),
            b.information_state_key(player),
        )


def play_both(fast: Game, reference: Game, seed: int | None, choice_seed: int, max_steps: int = 200) -> int:
    """Play the same match with both games; with `seed=None`, chance outcomes are chosen
    from `chance_outcomes()` with a generator seeded by `choice_seed`, as are actions.
    Returns the number of steps played. Raises Disagreement at the first difference."""
    same_layout(fast, reference)
    rng = random.Random(choice_seed)
    started = (_run(fast.new_initial_state, seed, True), _run(reference.new_initial_state, seed, True))
    if _same_outcome(0, "start", *started):
        return 0
    a, b = started[0][0], started[1][0]
    steps = 0
    while steps < max_steps:
        compare_states(steps, a, b)
        if a.is_terminal():
            _agree(steps, "returns", a.returns(), b.returns())
            return steps
        legal = a.legal_actions()
        _agree(steps, "legal actions", legal, b.legal_actions())
        if a.is_chance_node():
            action = rng.choice([card for card, _ in a.chance_outcomes()])
        else:
            if not legal:
                raise Disagreement(f"step {steps}: a decision node offers no legal action")
            named = (_run(_names, a, legal), _run(_names, b, legal))  # a label may fail: the same way
            if not _same_outcome(steps, "action names", *named):
                _agree(steps, "action names", named[0][0], named[1][0])
            action = rng.choice(legal)
        if _same_outcome(steps, f"action {action}", _run(a.apply_action, action), _run(b.apply_action, action)):
            return steps
        steps += 1
    compare_states(steps, a, b)
    return steps
