"""The engine's public methods refuse what is not one of their arguments with the project's
own errors (IllegalActionError, EngineError) saying what they expected, never a Python
TypeError or AttributeError, nor a made-up action: in both modes alike."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import rulesengine
from rulesengine import EngineError, IllegalActionError

ROOT = Path(__file__).resolve().parent.parent
SUM_CAPTURE = str(ROOT / "examples" / "sum-capture.yaml")
MODES = [True, False]


@pytest.mark.parametrize("optimize", MODES)
@pytest.mark.parametrize("given", [None, "3", 1.5, [1], object()])
def test_move_of_something_not_an_integer_is_refused(optimize: bool, given) -> None:
    game = rulesengine.make_game("pan", optimize=optimize)
    with pytest.raises(IllegalActionError, match="an action is an integer id, not"):
        game.move_of(given)


@pytest.mark.parametrize("optimize", MODES)
@pytest.mark.parametrize("given", [True, 1.0, [1]])
def test_decode_of_something_not_an_integer_is_refused_even_once_key_1_is_known(optimize: bool, given) -> None:
    game = rulesengine.make_game("pan", optimize=optimize)
    game.decode(1)  # kept: True and 1.0 hash as 1 and found it
    with pytest.raises(IllegalActionError, match="an action is an integer id, not"):
        game.decode(given)


@pytest.mark.parametrize("optimize", MODES)
def test_move_of_a_key_past_every_move_names_the_keys(optimize: bool) -> None:
    game = rulesengine.make_game("pan", optimize=optimize)
    final = max(game.program.moves, key=lambda move: move.offset + move.width)
    last = final.offset + final.width - 1
    assert game.move_of(last) is final
    with pytest.raises(IllegalActionError, match=rf"^{last + 1} is the key of no action .* to {last}\)$"):
        game.move_of(last + 1)
    with pytest.raises(IllegalActionError, match="is the key of no action"):
        game.move_of(-1)


@pytest.mark.parametrize("optimize", MODES)
@pytest.mark.parametrize("given", [5, "state", object()])
def test_history_since_something_not_a_state_is_refused(optimize: bool, given) -> None:
    state = rulesengine.make_game("pan", optimize=optimize).new_initial_state(seed=0)
    with pytest.raises(EngineError, match=r"^history_since takes a state this one went on from \(a clone\) or None"):
        state.history_since(given)
    assert state.history_since(None) == state.history_list()


@pytest.mark.parametrize("optimize", MODES)
@pytest.mark.parametrize("method", ["decode", "key_name"])
def test_a_key_inside_a_move_that_names_no_action_is_refused(optimize: bool, method: str) -> None:
    # Sum capture's `play` takes a card and 0 to 3 cards of the table, keyed by a bit per card:
    # 10**9 sets more than 3 bits, a set no action has (it was shown as 'play A♣ A♣ 2♣ 3♣ ...').
    game = rulesengine.make_game(SUM_CAPTURE, optimize=optimize)
    with pytest.raises(
        IllegalActionError, match=r"^1000000000 is the key of no action .*set of \d+ cards, where it takes 0 to 3$"
    ):
        getattr(game, method)(10**9)
    with pytest.raises(IllegalActionError, match="an action is an integer id"):
        getattr(game, method)([1])
    state = game.new_initial_state(seed=3)
    for key in state._legal_ids() if not game.stepwise else []:
        assert getattr(game, method)(key)
    for action in state.legal_actions():
        assert state.action_to_string(action)


EMPTY_VALUES = """\
name: Empty
players: {min: 2, max: 2}
decks:
  d: {suits: [a], ranks: ["1"], zone: stock}
zones:
  stock: {}
phases:
  play: {moves: [bid, wait]}
moves:
  bid:
    params: {amount: "[]"}
    effects: [end game]
  wait:
    pass: true
    effects: [end game]
match: {until: "true"}
"""


@pytest.mark.parametrize("optimize", MODES)
def test_the_key_of_a_parameter_without_values_is_no_action(tmp_path: Path, optimize: bool) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text(EMPTY_VALUES, encoding="utf-8")
    game = rulesengine.make_game(str(path), optimize=optimize)
    bid = next(move for move in game.program.moves if move.name == "bid")
    with pytest.raises(IllegalActionError, match="move 'bid' has no value there"):
        game.decode(bid.offset)


def test_numpy_scalars_are_options_as_the_values_they_hold() -> None:
    np = pytest.importorskip("numpy")
    assert rulesengine.make_game("padan", options={"target": np.int64(5)}).options["target"] == 5
    pan = rulesengine.make_game("pan", options={"reversed_spades": np.bool_(True), "word": np.str_("AB")})
    assert pan.options["reversed_spades"] is True and pan.options["word"] == "AB"
    for value, shown in ((np.float64(5.0), "not 5.0"), (np.array([1, 2]), "not array([1, 2])")):
        with pytest.raises(rulesengine.OptionError, match=re.escape(f"option 'target' takes a whole number, {shown}")):
            rulesengine.make_game("padan", options={"target": value})


def test_options_that_are_not_a_mapping_are_refused_by_resolve_options_too() -> None:
    ruleset = rulesengine.make_game("pan").ruleset
    with pytest.raises(rulesengine.OptionError, match="options are a mapping of names to values, not list"):
        rulesengine.resolve_options(ruleset, [("word", "P")])  # type: ignore[arg-type]


def test_the_agents_helpers_refuse_what_is_not_theirs() -> None:
    from rulesengine.agents import declared, evaluate, play_match, playout

    state = rulesengine.make_game("padan").new_initial_state(seed=1)
    for helper in (evaluate, declared):
        for seat in (2, -1, 1.0, "0"):
            with pytest.raises(EngineError, match=f"{helper.__name__} needs a player from 0 to 1"):
                helper(state, seat)
    with pytest.raises(rulesengine.OptionError, match="until is 'round' or 'match', not 'bogus'"):
        playout(state.clone(), random.Random(1), until="bogus")
    for agents, refusal in (
        (None, "play_match takes a list of agents, one for each seat, not NoneType"),
        ([1, 2], "the agent of P1 has no 'choose' method: int is no agent"),
    ):
        with pytest.raises(rulesengine.OptionError, match=re.escape(refusal)):
            play_match(state, agents)  # type: ignore[arg-type]
    assert state.steps == 0  # nothing was played


def test_log_for_starts_at_a_line_number() -> None:
    state = rulesengine.make_game("padan").new_initial_state(seed=1, record_log=True)
    state.apply_action(state.legal_actions()[0])
    assert state.log_for(0, 1) == state.log_for(0)[1:]
    for start in (1.5, -1, "2", None):
        with pytest.raises(EngineError, match="log_for starts at a line number, 0 or more"):
            state.log_for(0, start)  # type: ignore[arg-type]


def test_legal_moves_in_the_middle_of_a_choice_are_those_it_can_still_become() -> None:
    """Pan's sets are chosen card by card: after the first card of a triple, only the actions
    that start with it can still be made, as `complete_actions` says."""
    game = rulesengine.make_game("pan", players=3)
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal() and not state._pending:
            triples = [ids for move, _values, _name, ids in state.complete_actions() if len(ids) > 1]
            state.apply_action(triples[0][0] if triples else state.legal_actions()[0])
        if state._pending:
            break
    else:
        pytest.fail("no seed reached a choice made in steps")
    offered = [(move.name, values) for move, values, _name, _ids in state.complete_actions()]
    assert state.legal_moves() == offered and all(name in ("triple", "four") for name, _ in offered)


def test_find_ruleset_names_what_it_cannot_take() -> None:
    for given in (None, 5, Path("pan")):
        with pytest.raises(rulesengine.OptionError, match="a ruleset is named by a path or a shipped name, not"):
            rulesengine.find_ruleset(given)  # type: ignore[arg-type]
