"""The speed passes of the code generator: macros over the seats in the round written out,
argmax/argmin without a function per call, and the state's lists read into locals.

Each is checked against the reference mode (tests/oracle.py) on a game written to reach
its corners (players leaving the round, ties, seats that are out), and its generated code
is checked to be the written-out form it claims.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import pyast, runtime
from rulesengine.binds import inline_binds
from rulesengine.codegen import _extreme_of_two
from tests.oracle import play_both

# The cards and zones of the small games below: twelve cards, a stock, hands and a pile.
_CARDS = """
decks:
  standard:
    suits: [hearts, spades, clubs]
    ranks: ["2", "3", "4", "5"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
"""

# Players drop out one by one; every decision reads macros over `active` (any, all, count,
# sum, argmax, argmin), with ties (equal hand sizes) and seats that are out.
_LEAVING = (
    """
name: Leaving
players: {min: 2, max: 5}
"""
    + _CARDS
    + """variables:
  lead: {type: player}
  low: {type: player}
  tally: {type: int}
setup:
  - shuffle stock
  - deal 2 of stock to hand from seat(0)
phases:
  play:
    moves: [lay, leave, draw]
    until: active.count(p, size(hand[p]) > 0) <= 1 or active.all(p, empty(hand[p]))
moves:
  lay:
    params: {card: "hand[me]"}
    legal: active.any(p, size(hand[p]) >= size(hand[me])) or card.order > 2
    effects:
      - move card to pile
      - lead = active.argmax(p, size(hand[p]))
      - low = active.argmin(p, size(hand[p]) * 10 - tally)
      - tally = active.sum(p, size(hand[p])) + players.sum(p, size(hand[p]))
  draw:
    legal: not empty(stock) and active.all(p, size(hand[p]) < 4)
    effects:
      - move top(stock) to hand[me]
      - lead = players.argmax(p, size(hand[p]))
  leave:
    legal: active.count(p, true) > 2 and turn > 3
    effects:
      - out me
      - low = active.argmin(p, size(hand[p]))
triggers:
  refill:
    for: p in active
    when: active.count(q, true) < num_players and size(hand[p]) < 3 and size(stock) > 1 and p != current
    effects:
      - move top(stock) to hand[p]
  whoever_is_out:
    when: active.any(p, empty(hand[p])) and not empty(stock)
    effects:
      - move top(stock) to hand[active.argmin(p, size(hand[p]))]
match:
  until: round == 2
"""
)


def _fast_and_reference(tmp_path: Path, text: str, players: int) -> tuple[rulesengine.Game, rulesengine.Game]:
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    return (
        rulesengine.make_game(str(path), players=players),
        rulesengine.make_game(str(path), players=players, optimize=False),
    )


def _games(tmp_path: Path, players: int) -> tuple[rulesengine.Game, rulesengine.Game]:
    return _fast_and_reference(tmp_path, _LEAVING, players)


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_macros_over_the_seats_in_the_round_agree_with_the_reference(tmp_path: Path, players: int, seed: int) -> None:
    fast, reference = _games(tmp_path, players)
    assert play_both(fast, reference, seed, choice_seed=seed, max_steps=120) > 0


def test_someone_leaves_in_the_matches_compared(tmp_path: Path) -> None:
    # the comparison above means something only if seats do go out and come back next round
    fast, _ = _games(tmp_path, 5)
    state = fast.new_initial_state(seed=3)
    leave = next(m for m in fast.program.moves if m.name == "leave").offset
    seen_out = False
    for step in range(200):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(leave if leave in legal else legal[step % len(legal)])
        seen_out = seen_out or not all(state.active)
    assert seen_out


def test_the_seats_in_the_round_are_written_out_without_functions(tmp_path: Path) -> None:
    fast, _ = _games(tmp_path, 3)
    steps = [f.source for f in fast.program.source if f.name.startswith("_step_")]
    assert steps
    for source in steps:
        tree = ast.parse(source)
        assert not any(isinstance(node, (ast.Lambda, ast.GeneratorExp)) for node in ast.walk(tree)), source
        # the seats in the round are never listed: at most counted (pass `tournament`)
        assert source.count("active_players") == source.count("len(st.active_players)"), source
        # the last seat's part asks whether it is in: `st.active[2]`, or through a local
        # holding `st.active` (passes `locals` and `common subexpressions`)
        active = {"st.active"}
        for node in ast.walk(tree):
            if isinstance(node, ast.NamedExpr) and ast.unparse(node.value) == "st.active":
                active.add(node.target.id)
            elif isinstance(node, ast.Assign) and ast.unparse(node.value) == "st.active":
                active.update(ast.unparse(target) for target in node.targets)
        assert any(
            isinstance(node, ast.Subscript) and ast.unparse(node.slice) == "2" and ast.unparse(node.value) in active
            for node in ast.walk(tree)
        ), source


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.one_of(st.integers(-5, 5), st.just(None)), max_size=8),
    want_max=st.booleans(),
)
def test_arg_best_of_picks_what_arg_best_picks(values: list, want_max: bool) -> None:
    items = tuple(range(10, 10 + len(values)))
    given_ = tuple(runtime.OUT if v is None else v for v in values)
    kept = [(item, v) for item, v in zip(items, values) if v is not None]
    lookup = dict(kept)
    expected = runtime.arg_best([item for item, _ in kept], lookup.__getitem__, -1, want_max)
    assert runtime.arg_best_of(items, given_, -1, want_max) == expected


def _function(source: str) -> ast.FunctionDef:
    tree = ast.parse(source).body[0]
    assert isinstance(tree, ast.FunctionDef)
    return tree


def test_state_lists_read_twice_become_locals_and_shared_statements_are_left_alone() -> None:
    fn = _function("def f(st):\n    a = st.zones[1]\n    return len(a) + len(st.zones[2]) + st.vars[0]\n")
    shared = fn.body[0]
    out = pyast.state_lists_as_locals(fn, {"zones": "_z", "vars": "_v"})
    text = pyast.emit_function(out)
    assert "_z = st.zones" in text and "_z[1]" in text and "_z[2]" in text
    assert "_v" not in text  # read once: left as it is
    namespace: dict = {}
    exec(text, namespace)

    class State:
        zones = [[], [1], [2, 3]]
        vars = [10]

    assert namespace["f"](State()) == 13
    # the original statement (shared with another function, say) still reads the state
    assert ast.unparse(shared) == "a = st.zones[1]"


def test_state_lists_read_once_leave_the_function_as_it_is() -> None:
    fn = _function("def f(st, env):\n    return st.zones[env[0]]\n")
    assert pyast.state_lists_as_locals(fn, {"zones": "_z"}) is fn


_MEMBERSHIP = """
name: Membership
players: {min: 2, max: 2}
decks:
  standard:
    suits: [hearts, spades]
    ranks: ["2", "3", "4"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
variables:
  score: {type: int, per: player}
  lead: {type: player}
setup:
  - shuffle stock
  - deal 3 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me]"}
    legal: LEGAL
    effects:
      - move card to pile
match:
  until: round == 1
"""


def _lay_games(tmp_path: Path, legal: str, first_move: str = "") -> tuple[rulesengine.Game, rulesengine.Game]:
    """The game above with `lay` legal by `legal` (and `first_move` listed before it), compiled
    and in the reference mode."""
    text = _MEMBERSHIP.replace("LEGAL", f'"{legal}"').replace("moves:\n  lay:", f"moves:\n{first_move}  lay:")
    if first_move:
        text = text.replace("moves: [lay]", "moves: [wait, lay]")
    return _both_modes(tmp_path, text)


def _both_modes(tmp_path: Path, text: str) -> tuple[rulesengine.Game, rulesengine.Game]:
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    return rulesengine.make_game(str(path), players=2), rulesengine.make_game(str(path), players=2, optimize=False)


@pytest.mark.parametrize(
    ("legal", "in_map"),
    [
        ("not hand[me].any(c, c.suit == top(pile).suit) or card.order > 1", True),
        ("hand[me].all(c, c.order != size(pile)) or card.order > 1", True),
        # score[lead] fails for nobody: asked once over no cards it would raise where the loop does not
        ("hand[me].any(c, c.order == score[lead]) or card.order > 1", False),
    ],
)
def test_membership_only_where_the_value_cannot_fail(tmp_path: Path, legal: str, in_map: bool) -> None:
    fast, reference = _lay_games(tmp_path, legal)
    source = "\n".join(f.source for f in fast.program.source)
    assert ("in map(" in source) == in_map
    for seed in range(4):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=20)


@pytest.mark.parametrize(
    ("legal", "filtered"),
    [
        # following suit: the cards of the suit, or every card when there are none
        ("not hand[me].any(c, c.suit == top(pile).suit) or card.suit == top(pile).suit", True),
        ("empty(pile) or card.suit == top(pile).suit or not hand[me].any(c, c.suit == top(pile).suit)", True),
        ("size(pile) > 4 or not hand[me].any(c, c.order > size(pile)) or card.order > size(pile)", True),
        # the card's own test is not the one `any` asks
        ("card.order > 1 or not hand[me].any(c, c.suit == top(pile).suit)", False),
        # two tests of the card: `any` asks only one of them
        ("card.suit == top(pile).suit or card.order > 2 or not hand[me].any(c, c.suit == top(pile).suit)", False),
        # `any` over other cards than the candidates
        ("card.suit == top(pile).suit or not hand[opponent(me)].any(c, c.suit == top(pile).suit)", False),
    ],
)
@pytest.mark.parametrize("first_move", ["", "  wait:\n    legal: size(pile) > 1\n"])
def test_the_cards_passing_a_test_are_kept_in_one_walk_else_every_card(
    tmp_path: Path, legal: str, filtered: bool, first_move: str
) -> None:
    fast, reference = _lay_games(tmp_path, legal, first_move)
    # the listing of the phase's legal actions, written once or into the step of the move
    listing = "\n".join(f.source for f in fast.program.source if "phase play" in f.heading)
    assert ("if len(found) == " in listing) == filtered
    if filtered:
        assert " in map(" not in listing and "any(" not in listing  # the hand is not searched before the walk
    for seed in range(8):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=20)


@pytest.mark.parametrize(
    ("legal", "at_once"),
    [
        # following suit: when the hand holds none of the led suit, every card is legal
        ("not hand[me].any(c, c.suit == top(pile).suit) or card.suit == top(pile).suit", True),
        ("card.order > 2 or empty(pile) or hand[me].all(c, c.order != size(pile))", True),
        # nothing computed before the loop: the loop stays
        ("card.order > 2 or card.suit == top(pile).suit", False),
    ],
)
@pytest.mark.parametrize("first_move", ["", "  wait:\n    legal: size(pile) > 5\n"])
def test_every_card_is_added_at_once_when_a_part_fixed_before_the_loop_holds(
    tmp_path: Path, legal: str, at_once: bool, first_move: str
) -> None:
    fast, reference = _lay_games(tmp_path, legal, first_move)
    source = "\n".join(f.source for f in fast.program.source)
    assert ("found.extend(" in source) == at_once
    for seed in range(6):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=20)


# Two phases whose `until` and `first` read `me`, the player to move when they are asked.
_FLOW = """
name: Flow
players: {min: 2, max: 2}
decks:
  standard:
    suits: [hearts, spades, clubs]
    ranks: ["2", "3", "4", "5"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
round:
  setup:
    - move pile to stock
    - for: p in players
      do:
        - move hand[p] to stock
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
phases:
  lead:
    first: seat(round % 2)
    moves: [lay]
    until: UNTIL
    next: answer
  answer:
    FIRST
    moves: [lay]
    until: empty(hand[me]) or size(pile) > 4
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
match:
  until: round == 6
"""


@pytest.mark.parametrize(
    ("until", "first"),
    [
        ("size(hand[me]) > size(hand[opponent(me)])", "first: opponent(me)"),
        ("size(hand[me]) < 2 and size(pile) > 1", "first: me"),
        ("size(pile) > 2", ""),
    ],
)
def test_the_flow_expressions_get_only_me_and_agree_with_the_reference(tmp_path: Path, until: str, first: str) -> None:
    # a phase's `until` and `first` (and the match's `until`) read at most `me`: the engine
    # passes them that alone, not a whole environment
    fast, reference = _both_modes(tmp_path, _FLOW.replace("UNTIL", f'"{until}"').replace("FIRST", first))
    assert fast.program.flow_reads_me_only and not reference.program.flow_reads_me_only
    for seed in range(8):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=80)


@pytest.mark.parametrize(
    ("effect", "shows", "chooses"),
    [
        ('log "laid"', False, False),
        ("reveal hand[me] to opponent(me)", True, False),
        ("turn to me", False, True),
        # decided by an option: the branch that cannot run does not count
        ("if: showing\n        then:\n          - reveal hand[me] to opponent(me)", False, False),
    ],
)
def test_a_step_clears_shown_cards_and_a_chosen_turn_only_when_the_rules_can_set_them(
    tmp_path: Path, effect: str, shows: bool, chooses: bool
) -> None:
    text = _MEMBERSHIP.replace("LEGAL", '"true"').replace(
        "      - move card to pile\n", f"      - move card to pile\n      - {effect}\n"
    )
    text = text.replace("variables:", "options:\n  showing: {default: false}\nvariables:", 1)
    fast, reference = _both_modes(tmp_path, text.replace("until: round == 1", "until: round == 2"))
    steps = "\n".join(f.source for f in fast.program.source if f.name.startswith("_step_"))
    assert ("st.shown_any" in steps) == shows
    assert ("st.turn_set = False" in steps) == chooses
    for seed in range(6):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=30)


_BEST = "      - winner = players.argmax(p, size(hand[p]) * 10 + score[p])\n"
_NOBODY = "winner = holder(top(pile))"  # the holder of a card in a shared zone


@pytest.mark.parametrize(
    ("effects", "tested", "fails"),
    [
        # the best of every seat is a seat: indexing by it and turning to it need no test
        (_BEST + "      - score[winner] += 1\n      - turn to winner\n", False, False),
        # one branch may set it to nobody: the test stays, and fails
        (
            _BEST + f"      - if: size(pile) > 2\n        then: [{_NOBODY}]\n      - score[winner] += 1\n",
            True,
            True,
        ),
        # the second pass of the loop follows the first one's assignment
        (
            _BEST + f"      - for: p in players\n        do:\n          - score[winner] += 1\n          - {_NOBODY}\n",
            True,
            True,
        ),
        # known before the loop and not set inside it
        (_BEST + "      - for: p in players\n        do:\n          - score[winner] += 1\n", False, False),
    ],
)
def test_a_variable_set_to_a_seat_is_indexed_without_a_test_until_it_may_change(
    tmp_path: Path, effects: str, tested: bool, fails: bool
) -> None:
    laid = "      - move card to pile\n"
    text = _MEMBERSHIP.replace("LEGAL", '"true"').replace(laid, laid + effects)
    text = text.replace("  lead: {type: player}\n", "  winner: {type: player}\n")
    fast, reference = _both_modes(tmp_path, text.replace("until: round == 1", "until: round == 3"))
    step = next(f.source for f in fast.program.source if f.name.startswith("_step_lay"))
    assert ("_var_index" in step) == tested, step
    assert "st.turn_to(" not in step
    for seed in range(6):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=40)
    # where nobody is indexed, the compiled game raises the error the rules' position names
    state, raised = fast.new_initial_state(seed=1), None
    try:
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
    except rulesengine.EngineError as error:
        raised = str(error)
    assert (raised is not None and "needs a player, not nobody" in raised) == fails, raised


# `max` and `min` over the seats, the suits and a range of constants, with ties and negative
# values; `active.max` stays a loop (a seat that is out is left out).
_EXTREMES = (
    """
name: Extremes
players: {min: 1, max: 4}
"""
    + _CARDS
    + """variables:
  score: {type: int, per: player}
  high: {type: int}
  low: {type: int}
setup:
  - shuffle stock
  - deal 3 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
    until: players.min(p, size(hand[p])) == 0
moves:
  lay:
    params: {card: "hand[me]"}
    legal: players.max(p, score[p]) - score[me] < 3 or card.order > 1
    effects:
      - move card to pile
      - score[me] += card.order - 2
      - high = players.max(p, score[p] * 2 - size(hand[p]))
      - low = suits.min(s, pile.count(c, c.suit == s) - high) + range(3).max(i, i - low)
      - if: active.max(p, score[p]) > 3
        then: [out me]
match:
  until: round == 2
  winners: players.filter(p, score[p] == players.max(q, score[q]))
"""
)


def _extreme_games(tmp_path: Path, players: int) -> tuple[rulesengine.Game, rulesengine.Game]:
    return _fast_and_reference(tmp_path, _EXTREMES, players)


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_max_and_min_over_known_values_agree_with_the_reference(tmp_path: Path, players: int, seed: int) -> None:
    fast, reference = _extreme_games(tmp_path, players)
    assert play_both(fast, reference, seed, choice_seed=seed, max_steps=150) > 0


def test_max_and_min_over_known_values_are_written_out(tmp_path: Path) -> None:
    fast, _ = _extreme_games(tmp_path, 3)
    step = next(f.source for f in fast.program.source if f.name == "_step_lay")
    assert "max(" in step and "min(" in step
    extremes = [
        node
        for node in ast.walk(ast.parse(step))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min")
    ]
    # one value per seat, suit or number: no generator, except for `active`, which may have left
    assert {len(node.args) for node in extremes if not isinstance(node.args[0], ast.GeneratorExp)} == {3}
    assert sum(isinstance(node.args[0], ast.GeneratorExp) for node in extremes) == 1


@given(
    kind=st.sampled_from(["min", "max"]),
    first=st.integers(-3, 3),
    second=st.integers(-3, 3),
    plain=st.sampled_from(["both", "first", "second", "neither"]),
)
def test_min_and_max_of_two_give_the_builtin_value_asking_each_once(
    kind: str, first: int, second: int, plain: str
) -> None:
    def operand(value: int, is_plain: bool, local: str) -> ast.expr:
        # plain: a local; else a call that counts how often it is asked
        return ast.Name(local, ast.Load()) if is_plain else ast.parse(f"ask({value})", mode="eval").body

    left = operand(first, plain in ("both", "first"), "a")
    right = operand(second, plain in ("both", "second"), "b")
    names = iter(f"_n{i}" for i in range(100))
    expression = _extreme_of_two(kind, left, right, lambda base: next(names))
    fn = ast.parse("def f(a, b):\n    return 0\n").body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.body = [ast.Return(expression)]
    for version in (fn, inline_binds(fn, lambda base: next(names))):
        asked: list[int] = []
        namespace = {"ask": lambda v, asked=asked: asked.append(v) or v}
        exec(compile(ast.fix_missing_locations(ast.Module([version], [])), "<test>", "exec"), namespace)
        assert namespace["f"](first, second) == (min if kind == "min" else max)(first, second)
        assert sorted(asked) == sorted(v for v, p in ((first, "first"), (second, "second")) if plain not in ("both", p))


# Seats leave when their hand is empty (a small test that cannot fail, asked before the seat's
# `active` guard); a second trigger multiplies a number without bounds (it may fail, so the
# guard stays first).
_EMPTYING = (
    """
name: Emptying
players: {min: 2, max: 4}
"""
    + _CARDS
    + """variables:
  tally: {type: int}
setup:
  - shuffle stock
  - deal 2 of stock to hand from seat(0)
phases:
  play:
    moves: [lay, draw]
moves:
  lay:
    params: {card: "hand[me]"}
    effects: [move card to pile]
  draw:
    legal: not empty(stock) and size(hand[me]) < 3
    effects:
      - move top(stock) to hand[me]
triggers:
  going_out:
    for: p in active
    when: empty(hand[p])
    effects:
      - out p
      - log "{p} goes out"
      - if: size(active) <= 1
        then: [end round]
  neighbour_empty:
    for: p in active
    when: empty(hand[left(p)]) and tally * 1000 < 50000
    effects: [tally += 1]
match:
  until: round == 3
"""
)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_triggers_of_seats_in_the_round_agree_with_the_reference(tmp_path: Path, players: int, seed: int) -> None:
    fast, reference = _fast_and_reference(tmp_path, _EMPTYING, players)
    assert play_both(fast, reference, seed, choice_seed=seed, max_steps=200) > 0


def test_a_small_trigger_test_that_cannot_fail_is_asked_before_the_seat_guard(tmp_path: Path) -> None:
    fast, _ = _fast_and_reference(tmp_path, _EMPTYING, 3)
    step = next(f.source for f in fast.program.source if f.name == "_step_lay")

    def is_guard(node: ast.expr) -> bool:  # `_active_N[seat]`: the state's `active` read into a local
        return isinstance(node, ast.Subscript) and ast.unparse(node.value).startswith("_active")

    seat_tests = [
        node.test.values
        for node in ast.walk(ast.parse(step))
        if isinstance(node, ast.If) and isinstance(node.test, ast.BoolOp) and any(map(is_guard, node.test.values))
    ]
    # going_out's test (`not zones[hand]`) comes first for each of the three seats;
    # neighbour_empty's, which may fail, after the guard
    assert sum(is_guard(values[-1]) and ast.unparse(values[0]).startswith("not ") for values in seat_tests) == 3
    assert sum(is_guard(values[0]) for values in seat_tests) == 3
