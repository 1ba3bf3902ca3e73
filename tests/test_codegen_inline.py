"""The code generator's cheaper forms of common constructs, each held to the reference mode.

- pass `tournament`: argmax/argmin over a few values as nested comparisons (ties, seats out);
- pass `inline checks`: a player index that may be nobody, and `x += v` past the limit, still
  raise their error naming the rule position;
- pass `count test`: `count(...)` compared with a constant as any/all, at the boundary
  constants, and not where an item's test can raise;
- pass `known truth`: a test already decided by the expression around it is left out;
- the settle function's prologue: the test of every player having passed only with a pass
  move, a flag of the flow only where an effect of a step can set it, and a whole zone moved
  by one `move_top` call.

Each game is played with the optimised and the reference program side by side
(tests/oracle.py), which share none of this code, and its generated code is checked to be
the form the pass claims.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError, codegen, codegen_moves, flow, ir, pyast, runtime
from rulesengine.codegen import MAX_TOURNAMENT, _tournament
from rulesengine.diagnostics import Span
from rulesengine.known import decide_known_tests
from rulesengine.limits import MAX_INTEGER, MAX_RANGE
from rulesengine.names import NameAllocator
from tests.game_checks import dealt_round
from tests.oracle import play_both

_HEAD = """
name: Inline
players: {min: 2, max: 5}
decks:
  standard:
    suits: [hearts, spades, clubs, diamonds]
    ranks: ["2", "3", "4", "5", "6", "7"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
"""


def _games(tmp_path: Path, text: str, players: int) -> tuple[rulesengine.Game, rulesengine.Game, Path]:
    path = tmp_path / "inline.yaml"
    path.write_text(text, encoding="utf-8")
    fast = rulesengine.make_game(str(path), players=players)
    return fast, rulesengine.make_game(str(path), players=players, optimize=False), path


def _source(game: rulesengine.Game, prefix: str = "") -> str:
    return "\n".join(f.source for f in game.program.source if f.name.startswith(prefix))


# the round's end when everyone passed (every step counts the passes in a row, so the count is no sign)
_EVERYONE_PASSED = f"st._end_round({flow.STUCK})"


def _settling(game: rulesengine.Game, phase: str, move: str | None = None) -> str:
    """The code that settles after a step in `phase`: its `settle` function (when a step needs
    it) and the steps that end with it (the pass `play`), or only `move`'s step."""
    return "\n".join(
        f.source
        for f in game.program.source
        if (move is None and f.name.startswith(f"_settle_{phase}"))
        or (f.heading.endswith(f"then the settle of phase {phase}") and (move is None or f.name == f"_step_{move}"))
    )


# ---- pass `tournament` -----------------------------------------------------------------


def _record(values: list[int]):
    asked: list[int] = []

    def value(i: int) -> int:
        asked.append(i)
        return values[i]

    return asked, value


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.integers(-2, 2), min_size=2, max_size=MAX_TOURNAMENT),
    want_max=st.booleans(),
    first=st.integers(-3, 20),
)
def test_tournament_picks_what_arg_best_picks_asking_each_value_once_in_order(
    values: list[int], want_max: bool, first: int
) -> None:
    items = [first + 2 * i for i in range(len(values))]
    parts: list[ast.expr] = [pyast.call("value", pyast.const(i)) for i in range(len(values))]
    tree = ast.fix_missing_locations(
        ast.Expression(_tournament(copy.deepcopy(parts), items, want_max, NameAllocator().fresh))
    )
    asked, value = _record(values)
    chosen = eval(compile(tree, "<tournament>", "eval"), {"value": value})
    assert chosen == runtime.arg_best(items, lambda item: values[items.index(item)], -1, want_max)
    assert asked == list(range(len(values)))  # each once, in order, as the loop asks them


_TIES = (
    _HEAD
    + """
variables:
  best: {type: player}
  worst: {type: player}
  top_seat: {type: player}
  low_seat: {type: player}
  wins: {type: int, per: player}
"""
    + dealt_round(4)
    + """
phases:
  play:
    moves: [lay, leave]
    until: active.count(p, true) <= 1 or active.all(p, empty(hand[p]))
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - best = active.argmax(p, size(hand[p]))
      - worst = active.argmin(p, size(hand[p]) % 2)
      - top_seat = players.argmax(p, size(hand[p]) // 2)
      - low_seat = players.argmin(p, wins[p])
      - wins[best] += 1
  leave:
    legal: active.count(p, true) > 1 and turn > 2
    effects:
      - out me
      - best = active.argmin(p, wins[p])
match:
  until: round == 6
"""
)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_argmax_and_argmin_with_ties_and_seats_out_agree_with_the_reference(tmp_path: Path, players: int) -> None:
    fast, reference, _ = _games(tmp_path, _TIES, players)
    source = _source(fast, "_step_")
    # over the seats in the round: comparisons while everyone is in, the loop's helper else
    tournament = players <= MAX_TOURNAMENT
    assert (f"len(st.active_players) == {players}" in source) == tournament
    assert "_arg_best_of" in source
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=150) for seed in range(6))
    assert played > 100


def test_seats_do_leave_in_the_matches_compared(tmp_path: Path) -> None:
    # the helper's path is compared above only if seats go out while argmax is asked
    fast, _, _ = _games(tmp_path, _TIES, 3)
    leave = next(m for m in fast.program.moves if m.name == "leave").offset
    seen_out = False
    for seed in range(3):
        state = fast.new_initial_state(seed=seed)
        while not state.is_terminal() and state.steps < 100:
            legal = state.legal_actions()
            state.apply_action(leave if leave in legal else legal[0])
            seen_out = seen_out or (not all(state.active) and not state.is_terminal())
    assert seen_out


# ---- pass `inline checks` --------------------------------------------------------------

_NOBODY = (
    _HEAD
    + """
variables:
  winner: {type: player}
  total: {type: int}
  tricks: {type: int, per: player}
setup:
  - shuffle stock
  - deal 4 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - if: size(pile) >= 3
        then:
          - move card to pile
      - winner = holder(card)
      - STATEMENT
      - move card to pile
match:
  until: round == 2
"""
)


_COMPUTED = "winner if size(pile) > 2 else me"  # no helper call in it: computed inline, kept in a local


@pytest.mark.parametrize(
    ("statement", "read"),
    [
        ("tricks[winner] += 1", "tricks[winner]"),
        ("total = tricks[winner] + 1", "tricks[winner]"),
        ("tricks[winner] = 5", "tricks[winner]"),
        (f"tricks[{_COMPUTED}] += 1", f"tricks[{_COMPUTED}]"),
        (f"move card to hand[{_COMPUTED}]", f"hand[{_COMPUTED}]"),
    ],
)
def test_a_nobody_index_raises_naming_its_rule_position(tmp_path: Path, statement: str, read: str) -> None:
    text = _NOBODY.replace("STATEMENT", statement)
    fast, reference, path = _games(tmp_path, text, 2)
    steps = _source(fast, "_step_")
    helper = "_var_index" if read.startswith("tricks") else "_zone_index"
    assert helper in steps  # the helper is there, behind the inline test
    assert f"= {helper}(" not in steps  # never called first: only past the range
    line = next(n for n, row in enumerate(text.splitlines(), 1) if statement in row)
    column = text.splitlines()[line - 1].index(read) + 1  # the statement, or the read in it
    state = fast.new_initial_state(seed=1)
    with pytest.raises(EngineError) as raised:
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
    if read.startswith("tricks"):
        assert str(raised.value).startswith(f"{path}:{line}:{column}: variable 'tricks' needs a player, not nobody")
    else:
        assert str(raised.value).startswith(f"{path}:{line}:{column}: an index is outside zone 'hand'")
    assert state.steps >= 3  # the seats were fine until the card was in the pile
    for seed in range(3):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=40)


_OVERFLOW = (
    _HEAD
    + """
variables:
  big: {type: int}
  each: {type: int, per: player}
setup:
  - shuffle stock
  - deal 4 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - STATEMENT
match:
  until: round == 2
"""
)


@pytest.mark.parametrize(
    ("statement", "steps"),
    [
        ("big += 3074457345618258603", 3),  # 3 * that is past 2**63 - 1, 2 * that is not
        ("big -= 4611686018427387904", 2),
        ("each[me] += 4611686018427387904", 3),  # two seats take turns: the first seat's second
        ("each[current] -= 9223372036854775807", 3),
    ],
)
def test_an_overflow_by_an_update_raises_naming_its_rule_position(tmp_path: Path, statement: str, steps: int) -> None:
    text = _OVERFLOW.replace("STATEMENT", statement)
    fast, reference, path = _games(tmp_path, text, 2)
    assert "_check_int" in _source(fast, "_step_")  # the helper is there, behind the inline test
    line = next(n for n, row in enumerate(text.splitlines(), 1) if statement in row)
    column = text.splitlines()[line - 1].index(statement) + 1
    state = fast.new_initial_state(seed=2)
    with pytest.raises(EngineError) as raised:
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
    assert str(raised.value).startswith(f"{path}:{line}:{column}: a number beyond ±{MAX_INTEGER}, the language's limit")
    assert state.steps == steps  # the steps before were within the limit
    play_both(fast, reference, 2, choice_seed=2, max_steps=40)


@pytest.mark.parametrize(
    "statement",
    [
        "big = (range(0, 10000) + range(0, 10000)).sum(i, 900000000000000)",  # 20,000 items, not 10,000
        "big = size(range(0, 10000) + range(0, 10000)) * 900000000000000",
        "big = (range(0, 10000) + range(0, 10000) + [1]).count(i, true) * 900000000000000",
    ],
)
def test_a_sum_or_count_over_joined_lists_is_range_tested(tmp_path: Path, statement: str) -> None:
    # A bound on a list's length that ignored `+` left out the test, and the optimised mode
    # stored a number past the limit where the reference mode stopped with an error.
    text = _OVERFLOW.replace("STATEMENT", statement)
    fast, reference, path = _games(tmp_path, text, 2)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if statement in row)
    state = fast.new_initial_state(seed=2)
    with pytest.raises(EngineError, match="a number beyond") as raised:
        state.apply_action(state.legal_actions()[0])
    assert str(raised.value).startswith(f"{path}:{line}:")
    play_both(fast, reference, 2, choice_seed=2, max_steps=5)


def test_the_length_of_a_list_is_bounded_through_joins_and_filters() -> None:
    layout = rulesengine.make_game("pan", players=3).program.layout
    span = Span.point("f", 1, 1)
    ten = ir.Call(ir.list_of(ir.INT), span, "range", (ir.Const(ir.INT, span, 10),))
    two = ir.ListExpr(ir.list_of(ir.INT), span, (ten.args[0], ten.args[0]))
    joined = ir.Call(ir.list_of(ir.INT), span, "concat", (ten, two))  # `range(10) + [10, 10]`, as checked
    assert codegen.length_bound(joined, layout) == MAX_RANGE + 2
    kept = ir.Macro(ir.list_of(ir.INT), span, "filter", joined, 0, ir.Const(ir.BOOL, span, True))
    assert codegen.length_bound(kept, layout) == MAX_RANGE + 2
    unknown = ir.Local(ir.list_of(ir.INT), span, "xs", 0)
    assert codegen.length_bound(ir.Call(ir.list_of(ir.INT), span, "concat", (ten, unknown)), layout) is None
    counted = ir.Macro(ir.INT, span, "sum", joined, 0, ir.Const(ir.INT, span, 3))
    assert codegen.value_bound(counted, layout) == 3 * (MAX_RANGE + 2)
    # a bind's local holds its list: `(range(10) + [10, 10]).bind(xs, size(xs))`
    bound = ir.Local(ir.list_of(ir.INT), span, "xs", 5)
    size = ir.Macro(ir.INT, span, "bind", joined, 5, ir.Call(ir.INT, span, "size", (bound,)))
    assert codegen.value_bound(size, layout) == MAX_RANGE + 2
    assert codegen.value_bound(size.body, layout) is None  # outside the bind, nothing is known of xs


# ---- pass `count test` -----------------------------------------------------------------

_COUNTS = (
    _HEAD
    + """
variables:
  winner: {type: player}
setup:
  - shuffle stock
  - deal 4 of stock to hand from seat(0)
phases:
  play:
    moves: [lay, MOVES]
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - if: size(pile) >= 5
        then:
          - winner = holder(card)
MOVE_BODIES
match:
  until: round == 2
"""
)

# (a count, the length of its collection when the game is compiled, with 3 players)
_COUNTED = [
    ("range(4).count(i, size(hand[me]) > i)", 4),
    ("players.count(p, size(hand[p]) > 2)", 3),
    ("suits.count(s, hand[me].any(c, c.suit == s))", 3),
    ("range(OPTION).count(i, size(pile) > i * 2)", 4),
    ("hand[me].count(c, c.order > 1)", None),
    ("active.count(p, size(hand[p]) >= 3)", None),
]


def _count_game(counted: str, length: int | None) -> tuple[str, list[str]]:
    """Moves whose `legal` compare `counted` with every constant near 0 and its length, both
    ways round; the legal actions listed at every step give every comparison's value."""
    constants = sorted({-1, 0, 1, 2, 3, 4, 5} | ({length - 1, length, length + 1} if length else set()))
    tests = []
    for k in constants:
        for op in ("==", "!=", "<", "<=", ">", ">="):
            tests += [f"{counted} {op} {k}", f"{k} {op} {counted}"]
    names = [f"t{i}" for i in range(len(tests))]
    bodies = "".join(f'  {n}:\n    legal: "{t}"\n' for n, t in zip(names, tests))
    text = _COUNTS.replace("MOVES", ", ".join(names)).replace("MOVE_BODIES", bodies)
    return text.replace("range(OPTION)", "range(option_four)"), tests


@pytest.mark.parametrize(("counted", "length"), _COUNTED)
def test_counts_compared_with_constants_agree_with_the_reference(
    tmp_path: Path, counted: str, length: int | None
) -> None:
    text, tests = _count_game(counted, length)
    text = text.replace("variables:", "options:\n  option_four: {type: int, default: 4}\nvariables:", 1)
    fast, reference, _ = _games(tmp_path, text, 3)
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=60) for seed in range(4))
    assert played > 40


@pytest.mark.parametrize(
    ("legal", "rewritten"),
    [
        ("range(4).count(i, size(hand[me]) > i) > 0", "any"),
        ("0 < range(4).count(i, size(hand[me]) > i)", "any"),
        ("range(4).count(i, size(hand[me]) > i) >= 1", "any"),
        ("range(4).count(i, size(hand[me]) > i) != 0", "any"),
        ("range(4).count(i, size(hand[me]) > i) == 0", "none"),
        ("range(4).count(i, size(hand[me]) > i) < 1", "none"),
        ("range(4).count(i, size(hand[me]) > i) < 4", "not all"),
        ("range(4).count(i, size(hand[me]) > i) != 4", "not all"),
        ("range(4).count(i, size(hand[me]) > i) <= 3", "not all"),
        ("range(4).count(i, size(hand[me]) > i) == 4", "all"),
        ("range(4).count(i, size(hand[me]) > i) >= 4", "all"),
        ("4 <= range(4).count(i, size(hand[me]) > i)", "all"),
        ("hand[me].count(c, c.order > 1) > 0", "any"),
        # not the same as any/all for every count: the count stays
        ("range(4).count(i, size(hand[me]) > i) < 3", None),
        ("range(4).count(i, size(hand[me]) > i) == 1", None),
        ("hand[me].count(c, c.order > 1) < 4", None),
        # an item's test may raise (winner may be nobody): asking every item stays
        ("range(3).count(i, size(hand[winner]) > i) > 0", None),
    ],
)
def test_a_count_becomes_any_or_all_only_where_that_is_its_value(
    tmp_path: Path, legal: str, rewritten: str | None
) -> None:
    text = _COUNTS.replace("MOVES", "knock").replace("MOVE_BODIES", f'  knock:\n    legal: "{legal}"\n')
    fast, reference, _ = _games(tmp_path, text, 3)
    source = _source(fast, "_enumerate")
    counted = "1 if" in source or "len([1 for" in source
    assert counted == (rewritten is None), source
    if rewritten in ("all", "not all"):
        assert " and " in source
    for seed in range(4):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=60)


# ---- settle ----------------------------------------------------------------------------

_PASSING = (
    _HEAD
    + """
setup:
  - shuffle stock
  - deal 3 of stock to hand from seat(0)
phases:
  open:
    moves: [start]
    next: play
  play:
    moves: [lay, pass]
moves:
  start:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - end phase
  lay:
    params: {card: "hand[me]"}
    legal: card.order > top(pile).order
    effects:
      - move card to pile
      - if: size(pile) == 5
        then:
          - move pile to stock
          - move top(stock) to pile
  pass:
    pass: true
match:
  until: round == 4
"""
)


def test_every_player_passing_is_tested_only_where_a_move_is_a_pass(tmp_path: Path) -> None:
    fast, reference, _ = _games(tmp_path, _PASSING, 3)
    assert _EVERYONE_PASSED not in _settling(fast, "open")
    assert _EVERYONE_PASSED in _settling(fast, "play")
    # a step that ends with the settle is decided for its own move: after a pass only
    assert _EVERYONE_PASSED in _settling(fast, "play", "pass")
    assert _EVERYONE_PASSED not in _settling(fast, "play", "lay")
    for seed in range(6):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=200)
    # rounds do end by everyone passing in the matches compared
    state = fast.new_initial_state(seed=1, record_log=True)
    pass_id = next(m for m in fast.program.moves if m.name == "pass").offset
    while not state.is_terminal() and state.steps < 200:
        legal = state.legal_actions()
        state.apply_action(pass_id if pass_id in legal else legal[-1])
    assert state.round_number >= 2


@pytest.mark.parametrize("game", ["padan", "pan", "padvinderspel"])
def test_a_whole_zone_is_moved_by_one_call_and_passes_are_asked_only_with_pass_moves(game: str) -> None:
    compiled = rulesengine.make_game(game, players=3 if game != "padan" else 2)
    source = _source(compiled)
    assert "move_all" not in source
    pass_moves = any(m.is_pass for m in compiled.program.moves)
    settling = "\n".join(_settling(compiled, phase.name) for phase in compiled.program.phases)
    assert (_EVERYONE_PASSED in settling) == pass_moves


_FLAG_SETTERS = {
    "": set(),
    "end round": {"st.round_over"},
    "end game": {"st.game_over"},
    "end phase": {"st.phase_over"},
    "goto open": {"st.goto"},
}


@pytest.mark.parametrize("effect", list(_FLAG_SETTERS))
def test_a_flag_of_the_flow_is_tested_only_where_an_effect_of_a_step_sets_it(tmp_path: Path, effect: str) -> None:
    text = _PASSING.replace("    next: play\n", "    next: play\n    until: size(pile) > 7\n")
    if effect:
        trigger = f"triggers:\n  full:\n    when: size(pile) == 4\n    effects:\n      - {effect}\n"
        text = text.replace("match:\n", trigger + "match:\n")
    fast, reference, _ = _games(tmp_path, text, 3)
    flags = {"st.round_over", "st.game_over", "st.phase_over", "st.goto"}
    # the `start` move of phase open ends its phase; the trigger runs after every step
    settle_open, settle_play = (_settling(fast, phase) for phase in ("open", "play"))
    assert "st.phase_over" in settle_open
    # after `lay` (no pass, no turn limit: passing the turn cannot end the round either)
    after_lay = _settling(fast, "play", "lay")
    for flag in flags - _FLAG_SETTERS[effect]:
        assert flag not in after_lay
    for flag in _FLAG_SETTERS[effect]:
        assert flag in settle_play
    for seed in range(6):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=200)


# ---- pass `unroll` of a `for` over the seats -------------------------------------------

_FOR_SEATS = (
    _HEAD
    + """
variables:
  wins: {type: int, per: player}
"""
    + dealt_round(3)
    + """
phases:
  play:
    moves: [lay]
    until: active.count(p, true) <= 1 or active.all(p, empty(hand[p]))
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - for: p in active
        do:
          - wins[p] += size(hand[p])
          - if: BODY
            then:
              - EFFECT
match:
  until: round == 4
"""
)


@pytest.mark.parametrize(
    ("body", "effect", "unrolled"),
    [
        ("size(hand[p]) == 0 and p != me", "move top(pile) to hand[p]", True),
        # putting a seat out inside: the loop goes over a copy of the seats in the round
        ("size(hand[p]) == 0 and p != me", "out p", False),
        ("wins[p] > 6", "out p", False),
    ],
)
def test_a_for_over_the_seats_is_written_out_unless_it_puts_seats_out(
    tmp_path: Path, body: str, effect: str, unrolled: bool
) -> None:
    text = _FOR_SEATS.replace("BODY", body).replace("EFFECT", effect)
    for players in (2, 3):
        fast, reference, _ = _games(tmp_path, text, players)
        source = _source(fast, "_step_lay")
        assert ("for v5 " not in source) == unrolled, source  # v5: the rules' `p` (the step ends with a card loop)
        played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=120) for seed in range(4))
        assert played > 20


# ---- pass `known truth` ----------------------------------------------------------------

_LEAVES = st.sampled_from(["a", "b", "a", "b", "c", "0", "[]"])  # locals often tested twice


def _expressions(children):
    pair = st.tuples(children, children)
    both = pair.map(lambda p: f"({p[0]} and {p[1]})")
    either = pair.map(lambda p: f"({p[0]} or {p[1]})")
    choice = st.tuples(children, children, children).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})")
    # a part tested first, then more inside: what the pass decides
    tests = st.sampled_from(["a", "(not a)", "(d := a)", "(a and b)", "(a or b)", "(not (a or b))", "b"])
    forms = st.sampled_from(["({t} and {x})", "({t} or {x})", "({x} if {t} else {y})"])
    decided = st.tuples(forms, tests, children, children).map(lambda p: p[0].format(t=p[1], x=p[2], y=p[3]))
    return st.one_of(
        both,
        either,
        choice,
        decided,
        decided,
        decided,
        children.map(lambda x: f"(not {x})"),
        children.map(lambda x: f"(d := {x})"),
    )


def _run(source: str, values: tuple) -> object:
    """`f(*values)` of `source`, or the kind of error it raised (`d` read before it is set, an
    item past a list's end): the same error both ways."""
    namespace: dict = {}
    exec(source, namespace)
    try:
        return namespace["f"](*values)
    except (NameError, IndexError, TypeError) as error:
        return type(error)


@settings(max_examples=500, deadline=None)
@given(
    expression=st.recursive(_LEAVES, _expressions, max_leaves=10),
    values=st.tuples(*[st.sampled_from([0, 1, 2, [], [5], ""])] * 3),
)
def test_known_truth_keeps_every_value(expression: str, values: tuple) -> None:
    source = f"def f(a, b, c):\n    return {expression}\n"
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    rewritten = pyast.emit_function(decide_known_tests(fn))
    assert _run(rewritten, values) == _run(source, values), rewritten


@pytest.mark.parametrize(
    ("expression", "decided"),
    [
        ("not a or (max(a) if a else 0)", "not a or max(a)"),
        ("(x if not (c := a) else (c or k)[-1])", "x if not (c := a) else c[-1]"),
        ("a and (a or b)", "a and a"),
        ("not a or not a", "not a or False"),
        # a local set twice, or a test with an effect, is left alone
        ("(b := a) and (b := c) and (b or k)", None),
        ("[a for a in z] and (a or k)", None),
    ],
)
def test_known_truth_leaves_out_decided_tests(expression: str, decided: str | None) -> None:
    fn = ast.parse(f"def f(a, k, x, z):\n    return {expression}\n").body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = decide_known_tests(fn)
    body = ast.unparse(out.body[0].value)  # type: ignore[attr-defined]
    assert body == (decided if decided is not None else ast.unparse(ast.parse(expression, mode="eval").body))


@pytest.mark.parametrize(
    ("body", "decided"),
    [
        # the `if`'s test holds at the first statement of its block, not after it
        (
            "if not not z[2] and not not z[3]:\n        r = (z[2] or k)[-1]\n        r = (z[3] or k)[-1]",
            ["r = z[2][-1]", "r = (z[3] or k)[-1]"],
        ),
        ("if not z[0]:\n        r = 0\n    else:\n        r = (z[0] or k)[-1]", ["r = 0", "r = z[0][-1]"]),
        ("if a:\n        if z[1]:\n            r = a and (z[1] or k)", ["r = z[1]"]),
        # a loop's body is not right after its test; a list set twice is not followed
        ("while z[0]:\n        r = (z[0] or k)", ["r = z[0] or k"]),
        ("if z[0]:\n        r = (z[0] or k)\n    z = []", ["r = z[0] or k"]),
    ],
)
def test_known_truth_follows_an_if_into_the_first_statement_of_its_blocks(body: str, decided: list[str]) -> None:
    fn = ast.parse(f"def f(a, k, z):\n    {body}\n").body[0]
    assert isinstance(fn, ast.FunctionDef)
    out = decide_known_tests(fn)
    assignments = [ast.unparse(node) for node in ast.walk(out) if isinstance(node, ast.Assign) and _sets_r(node)]
    assert assignments == decided


def _sets_r(node: ast.Assign) -> bool:
    return isinstance(node.targets[0], ast.Name) and node.targets[0].id == "r"


@settings(max_examples=300, deadline=None)
@given(
    test=st.sampled_from(["z[0]", "not z[0]", "z[0] and z[1]", "not (z[0] or z[1])", "a and not z[1]"]),
    first=st.sampled_from(["(z[0] or k)", "(z[1] or k)[0]", "(not z[0]) or (z[1] or k)", "z[0] and (z[0] or k)"]),
    z=st.lists(st.sampled_from([[], [7], 0, 1, ""]), min_size=2, max_size=2),
    a=st.sampled_from([0, 1]),
    before=st.sampled_from(["", "z[0] = []; ", "z[1] = 0; "]),  # a change before the read: facts end
)
def test_known_truth_across_an_if_keeps_every_value(test: str, first: str, z: list, a: int, before: str) -> None:
    then = f"{before}r = {first}"
    source = f"def f(a, k, z):\n    if {test}:\n        {then}\n    else:\n        {then}\n    return r\n"
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    rewritten = pyast.emit_function(decide_known_tests(fn))
    assert _run(rewritten, (a, 9, list(z))) == _run(source, (a, 9, list(z))), rewritten


# ---- pass `known phase` ----------------------------------------------------------------

_PHASES = (
    _HEAD
    + """
variables:
  marks: {type: int}
"""
    + dealt_round(3)
    + """
phases:
  first:
    moves: [lay, both]
    until: size(pile) >= 2
    next: second
  second:
    moves: [play, both]
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - log "{me} lays in phase {phase}"
  play:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
      - if: phase == "second" and size(pile) > 5
        then: [end round]
  both:
    effects:
      - log "{me} waits in phase {phase}"
      - move top(stock) to hand[me]
triggers:
  counted:
    when: phase == "second"
    effects: [marks += 1]
match:
  until: round == 4
"""
)


def test_the_phase_is_a_constant_in_a_step_of_a_move_of_one_phase(tmp_path: Path) -> None:
    """A move of one phase only is played in that phase: its step (and the triggers run with
    it) reads the rules' `phase` as a constant; a move of two phases reads the state's."""
    fast, reference, _ = _games(tmp_path, _PHASES, 3)
    lay, play, both = (_source(fast, f"_step_{move}") for move in ("lay", "play", "both"))
    assert "st.phase" not in lay and "st.phase" not in play.split("found = []")[0]
    assert "marks" not in lay.split("found = []")[0]  # the trigger cannot fire in phase first
    assert "st.phase" in both
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=200) for seed in range(6))
    assert played > 50
    state = fast.new_initial_state(seed=2, record_log=True)
    while not state.is_terminal() and state.steps < 200:
        legal = state.legal_actions()
        state.apply_action(legal[state.steps % 2 - 1])  # a card, then the last (`both`)
    log = "\n".join(state.log or [])
    assert "lays in phase first" in log and "waits in phase first" in log and "waits in phase second" in log


# ---- pass `listed values` ---------------------------------------------------------------

_LISTED = (
    _HEAD
    + """
options:
  most: {default: 2, min: 0, max: 3}
variables:
  marks: {type: int, per: player}
"""
    + dealt_round(4)
    + """
phases:
  play:
    moves: [mark, name_suit, pick, lay, pass_on]
moves:
  mark:                                   # two parameters over seats and a range: one test each
    params: {p: players, n: "range(most + 1)"}
    legal: p != me and n <= size(hand[me]) and marks[p] + n < 5
    effects:
      - marks[p] += n
      - move top(hand[me]) to pile
  name_suit:                              # over the suits, the test folds for some of them
    params: {s: suits}
    legal: s != "clubs" and hand[me].any(c, c.suit == s)
    effects:
      - move hand[me].filter(c, c.suit == s) to pile
  pick:                                   # a range with a value the test rules out
    params: {k: "range(1, 4)"}
    legal: k != 3 and k <= size(stock)
    effects:
      - move top(stock, k) to hand[me]
  lay:                                    # a card: still a loop
    params: {card: "hand[me]"}
    effects:
      - move card to pile
  pass_on:
    pass: true
    effects:
      - move top(stock) to hand[me]
match:
  until: round == 3 or players.any(p, marks[p] >= 4)
"""
)


@pytest.mark.parametrize("players", [2, 3])
def test_moves_over_values_fixed_by_the_setting_are_listed_value_by_value(tmp_path: Path, players: int) -> None:
    """Seats, suits, `range(k)` and literal lists are listed with one test per value and a
    constant id (no loop, no look-up of a value's place), and agree with the reference mode."""
    fast, reference, _ = _games(tmp_path, _LISTED, players)
    listing = _source(fast, "_enumerate") + "\n".join(
        f.source for f in fast.program.source if f.name.startswith("_step_")
    )
    assert "_positions" not in listing  # no value is looked up, in any listing
    assert listing.count("for ") >= 1  # the card parameter of `lay` is still a loop
    tree = ast.parse(_source(fast, "_enumerate"))
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For)]
    assert all(isinstance(loop.iter, (ast.Subscript, ast.Attribute, ast.Name)) for loop in loops)  # over cards
    assert "3 <= " not in listing and "'clubs' !=" not in listing  # folded: those values are never legal
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=150) for seed in range(8))
    assert played > 200


def test_more_values_than_the_budget_stay_a_loop(tmp_path: Path) -> None:
    text = _LISTED.replace('params: {k: "range(1, 4)"}', 'params: {k: "range(20)"}')
    fast, reference, _ = _games(tmp_path, text, 2)
    assert "_positions" in _source(fast)  # 20 values: over MAX_UNROLLED, listed by a loop
    assert sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=100) for seed in range(3)) > 50


def test_a_listing_past_the_size_budget_stops_being_written_out_early(tmp_path: Path, monkeypatch) -> None:
    """128 combinations of a long legal test: the writing out stops once the budget is passed
    (so a hostile rule file cannot make the compiler write out every combination), and the
    move is listed by its loops, as the reference lists it."""
    long_test = " and ".join(f"marks[q] + k + {i} < 50" for i in range(12))
    text = _LISTED.replace(
        'params: {k: "range(1, 4)"}\n    legal: k != 3 and k <= size(stock)',
        f'params: {{q: players, s: suits, k: "range(8)"}}\n    legal: {long_test} and s != "clubs"',
    ).replace("move top(stock, k) to hand[me]", "move top(stock, k) to hand[q]")
    generator = codegen_moves.MoveCodeGenerator
    written = generator._legal_condition
    calls: list[str] = []

    def counted(self, move, hoisted):
        calls.append(move.name)
        return written(self, move, hoisted)

    monkeypatch.setattr(generator, "_legal_condition", counted)
    fast, reference, _ = _games(tmp_path, text, 4)
    assert "_positions" in _source(fast, "_enumerate")  # `pick` listed by its loops
    tries = calls.count("pick")
    assert 0 < tries < 64  # of 128 combinations, per listing that holds the move (its own, its phase's)
    assert sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=60) for seed in range(3)) > 60


# ---- pass `single use` ----------------------------------------------------------------


def _listed(body: str, hoisted: dict[str, str]) -> str:
    values = [(symbol, ast.parse(value, mode="eval").body) for symbol, value in hoisted.items()]
    return "\n".join(ast.unparse(s) for s in codegen_moves._listing(values, ast.parse(body).body))


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # read once, in a test: computed there, where `or` may skip it
        ("if a or _h:\n    found.extend(z)", False),
        # what a `for` iterates over is computed once too
        ("for x in _h:\n    found.append(x)", False),
        # read inside a loop (or a comprehension): it would be computed again and again
        ("for x in z:\n    if _h:\n        found.append(x)", True),
        ("found.extend([x for x in z if _h])", True),
        # read twice: computed once, before
        ("if _h:\n    found.append(_h)", True),
    ],
)
def test_a_hoisted_value_read_once_outside_a_loop_is_computed_where_it_is_read(body: str, kept: bool) -> None:
    listed = _listed(body, {"_h": "len(st.zones[1]) > 2"})
    assert ("_h = len(st.zones[1]) > 2" in listed) == kept
    assert ("_h" in listed.replace("_h = ", "")) == kept


def test_a_trick_game_walks_the_hand_once_to_list_the_cards_that_follow() -> None:
    game = rulesengine.make_game("padan", players=2)
    listing = _settling(game, "play", "play_card")
    # the leader may play any card; a follower's cards of the led suit are kept in one walk
    # of the hand, and when there are none every card is legal: no search for the led suit first
    assert " in map(" not in listing and " any(" not in listing
    lines = [line.strip() for line in listing.splitlines()]
    walks = [line for line in lines if line.startswith("for ") and "[v0]" in line]  # over the mover's hand
    assert len(walks) == 1
    assert any(line.startswith("if len(found) == ") for line in lines)


# ---- pass `entries` --------------------------------------------------------------------

# Phases changing by `until` and by `goto`: `open` is entered with its `enter` effects, so
# through State._check; `answer` starts with a chosen player, who may be out, and may end
# at once; a player may have nothing legal in `race` when it begins; `tidy` has `exit`
# effects, so the change of phase after it goes through State._check too.
_ENTERED = (
    _HEAD
    + """
variables:
  lead: {type: player}
round:
  setup:
    - move pile to stock
    - for: p in players
      do:
        - move hand[p] to stock
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
phases:
  open:
    enter:
      - lead = seat(round % players.count(p, true))
    moves: [lay, leave]
    until: size(pile) >= 2
    next: answer
  answer:
    first: lead
    moves: [lay, pass]
    until: size(pile) > 3 or size(hand[me]) == 0
    next: race
  race:
    moves: [high]
    until: size(pile) > 6 or active.all(p, empty(hand[p]))
    next: tidy
  tidy:
    moves: [draw]
    until: empty(stock) or size(hand[me]) > 4
    exit:
      - move pile to stock
      - log "tidied"
    next: answer
moves:
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to pile
  leave:
    legal: size(pile) > 0 and size(active) > 2
    effects:
      - out me
  pass:
    pass: true
  high:
    params: {card: "hand[me]"}
    legal: card.order >= top(pile).order
    effects:
      - move card to pile
  draw:
    legal: not empty(stock)
    effects:
      - move top(stock) to hand[me]
triggers:
  back:
    when: phase == "race" and size(pile) == 5
    effects:
      - goto answer
match:
  until: round == 5
"""
)


def test_a_step_enters_the_next_phase_itself_only_when_nothing_runs_between() -> None:
    padan = rulesengine.make_game("padan", players=2)
    entries = {f.name for f in padan.program.source if f.name.startswith("_enter_")}
    assert entries == {"_enter_pick", "_enter_play"}  # `draft` begins with its `enter` effects
    # the `goto` of the trigger and the end of each phase by `until` enter the phase at once
    assert "if not _enter_pick(st):" in _settling(padan, "play", "play_card")
    assert "if not _enter_play(st):" in _settling(padan, "pick", "take_packet")


@pytest.mark.parametrize("players", [3, 4])
def test_phases_entered_by_a_step_agree_with_the_reference(tmp_path: Path, players: int) -> None:
    fast, reference, _ = _games(tmp_path, _ENTERED, players)
    names = {f.name for f in fast.program.source}
    # answer is entered from open (until), race (goto) and tidy (its exit effects run first: no)
    assert "_enter_answer" in names and "_enter_race" in names and "_enter_tidy" in names
    assert "_enter_open" not in names
    assert "_enter_answer(st)" not in _settling(fast, "tidy")
    for seed in range(12):
        play_both(fast, reference, seed, choice_seed=seed, max_steps=300)
