"""The pass `everyone stays`: in a game setting whose rules never put a player out, the
generated code takes every seat to be in the round and reads no seat's place in it.

Each game is played with the optimised and the reference program side by side
(tests/oracle.py); the reference mode always reads the seats in the round, so it is the
oracle of the pass. A wrong fact (rules with `out` taken to put nobody out) is shown to be
caught by that comparison, and a scenario position with a player out is refused for rules
that have no `out`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import Game, stays
from rulesengine.api import validate_file
from rulesengine.codegen import MAX_TOURNAMENT
from rulesengine.compile import compile_program
from rulesengine.lower import lower
from rulesengine.position import set_position
from rulesengine.scenario_file import load
from rulesengine.scenario_run import start
from tests.game_checks import dealt_round
from tests.gamegen import dump, generate_document
from tests.oracle import Disagreement, play_both

# Every construct whose generated code reads the seats in the round: `active` as a list, its
# size, macros over it (any, all, count, argmax), `is_active` of a seat and of a player that
# may be nobody, `next` of a seat and of a variable, an effect's and a trigger's `for`
# over it, the turn passing and the settle. LEAVE is replaced by a move putting a player out,
# or by nothing.
_GAME = (
    """
name: Stays
players: {min: 2, max: 5}
options:
  leaving:
    default: false
    description: whether a player may leave the round
decks:
  standard:
    suits: [hearts, spades, clubs, diamonds]
    ranks: ["2", "3", "4", "5", "6", "7"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
variables:
  best: {type: player}
  after: {type: player}
  following: {type: player}
  seen: {type: int}
  counted: {type: int}
  held: {type: bool}
"""
    + dealt_round(4)
    + """
phases:
  play:
    moves: [lay, knockLEAVE]
    until: active.all(p, empty(hand[p])) or size(active) < 2
moves:
  lay:
    params: {card: "hand[me]"}
    legal: is_active(next(me)) or active.any(p, size(hand[p]) > 3)
    effects:
      - move card to pile
      - best = active.argmax(p, size(hand[p]))
      - after = next(best)
      - following = next(me)
      - counted = active.count(p, is_active(p) and size(hand[p]) > 1) + size(active)
      - held = is_active(holder(top(hand[best])))
      - if: size(pile) % 5 == 4
        then: [turn to following]
      - for: p in active
        do:
          - if: size(hand[p]) == 1
            then:
              - log "{p} has one card left"
  knock:
    legal: active.count(p, empty(hand[p])) == 0 and turn > 6
    effects:
      - log "{me} knocks"
      - move top(stock) to hand[me]
      - reverse
LEAVE_MOVE
triggers:
  emptied:
    for: p in active
    when: empty(hand[p]) and size(pile) > 2
    effects:
      - seen += 1
match:
  until: round == 4
"""
)

_LEAVING = "leave"  # the move that may put its player out (when the option `leaving` is on)
_LEAVE_MOVE = """  leave:
    legal: size(active) > 2 and turn > 3
    effects:
      - if: leaving
        then: [out me]
"""


def _text(leave: bool) -> str:
    """The game's rules, with the move `leave` or without it (then no `out` at all)."""
    return _GAME.replace("LEAVE_MOVE\n", _LEAVE_MOVE if leave else "").replace("LEAVE", ", leave" if leave else "")


def _games(tmp_path: Path, leave: bool, players: int, options: dict | None = None) -> tuple[Game, Game]:
    path = tmp_path / f"stays-{leave}.yaml"
    path.write_text(_text(leave), encoding="utf-8")
    return (
        rulesengine.make_game(str(path), players=players, options=options),
        rulesengine.make_game(str(path), players=players, options=options, optimize=False),
    )


def _generated(game: Game) -> str:
    """The generated functions a match runs between decisions: steps, settles, listings, effects."""
    kinds = ("_step_", "_settle_", "_enumerate", "_effects", "_expr", "_firings_")
    return "\n".join(f.source for f in game.program.source if f.name.startswith(kinds))


def _reads_the_round(source: str) -> bool:
    return re.search(r"\bst\.active|\bnext_active\b|\b_next_of\b|_active\w*\[", source) is not None


# ---- the fact ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "players", "leaves"),
    [
        ("padan", 2, False),
        ("padan-original", 2, False),
        ("padvinderspel", 4, False),
        ("pan", 3, True),
        ("pan-reversed-spades", 3, True),
    ],
)
def test_the_shipped_rulesets_that_put_a_player_out(name: str, players: int, leaves: bool) -> None:
    game = rulesengine.make_game(name, players=players)
    assert stays.setting_puts_out(game.ruleset, game.options) is leaves
    assert _reads_the_round(_generated(game)) is leaves


def test_an_out_behind_an_option_counts_only_in_the_settings_that_can_run_it(tmp_path: Path) -> None:
    path = tmp_path / "stays.yaml"
    path.write_text(_text(True), encoding="utf-8")
    ruleset = rulesengine.load_ruleset(str(path))
    assert stays.puts_out(ruleset)  # before the options are known, the `if` may run `out`
    assert not stays.setting_puts_out(ruleset, {"leaving": False})
    assert stays.setting_puts_out(ruleset, {"leaving": True})
    fast, _ = _games(tmp_path, True, 3, {"leaving": False})
    assert not _reads_the_round(_generated(fast))
    fast, _ = _games(tmp_path, True, 3, {"leaving": True})
    assert _reads_the_round(_generated(fast))


def test_an_expression_or_an_unrun_branch_holds_no_way_out(tmp_path: Path) -> None:
    path = tmp_path / "stays.yaml"
    path.write_text(_text(True), encoding="utf-8")
    ruleset = rulesengine.load_ruleset(str(path))
    leave = next(m for m in ruleset.moves if m.name == _LEAVING)
    assert stays.puts_out(leave.effects)  # `if: leaving`, the option not yet known
    assert not stays.puts_out(leave.legal) and not stays.puts_out(ruleset.moves[0].effects)
    lowered = lower(ruleset, {"leaving": False})
    assert not stays.puts_out(next(m for m in lowered.moves if m.name == _LEAVING).effects)  # only the empty `else`


# ---- the generated code ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 5])
def test_without_out_no_step_listing_or_settle_reads_the_seats_in_the_round(tmp_path: Path, players: int) -> None:
    fast, reference = _games(tmp_path, False, players)
    source = _generated(fast)
    assert not _reads_the_round(source), source
    assert "active" not in "\n".join(f.source for f in fast.program.source)  # no local `_active` either
    # argmax over `active` is the tournament alone (the plain helper past its size), no fallback
    assert ("_arg_best_of" in source) == (players > MAX_TOURNAMENT)
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=150) for seed in range(4))
    assert played > 100


@pytest.mark.parametrize("players", [2, 3, 5])
def test_with_out_the_reads_stay_and_seats_do_leave(tmp_path: Path, players: int) -> None:
    fast, reference = _games(tmp_path, True, players, {"leaving": True})
    source = _generated(fast)
    assert "st.next_active" in source and "_active" in source and "st.active_players" in source
    played = sum(play_both(fast, reference, seed, choice_seed=seed, max_steps=150) for seed in range(4))
    assert played > 100
    if players > 2:  # the reads are compared with seats out, not only with everyone in
        assert _someone_leaves(fast)


def _someone_leaves(game: Game) -> bool:
    leave = next(m for m in game.program.moves if m.name == _LEAVING).offset
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal() and state.steps < 100:
            legal = state.legal_actions()
            state.apply_action(leave if leave in legal else legal[state.steps % len(legal)])
            if not all(state.active) and not state.is_terminal():
                return True
    return False


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 5), leave=st.booleans(), chance=st.booleans())
def test_any_match_plays_the_same_in_both_modes(tmp_path_factory, seed: int, players: int, leave, chance) -> None:
    fast, reference = _games(tmp_path_factory.mktemp("stays"), leave, players, {"leaving": leave})
    play_both(fast, reference, None if chance else seed, choice_seed=seed, max_steps=80)


def test_generated_games_with_and_without_out_are_both_compared(tmp_path: Path) -> None:
    """The generated games the oracle tests play (tests/test_reference_oracle.py, seeds from 0)
    include games whose rules put players out and games whose rules never do."""
    kinds = []
    for seed in range(16):
        path = tmp_path / f"generated-{seed}.yaml"
        path.write_text(dump(generate_document(seed, False)), encoding="utf-8")
        ruleset, _ = validate_file(path)
        assert ruleset is not None
        kinds.append(stays.setting_puts_out(ruleset, {o.name: o.default for o in ruleset.options}))
    assert True in kinds and False in kinds, kinds


# ---- the oracle catches a wrong fact ---------------------------------------------------------


def test_the_oracle_catches_rules_with_out_taken_to_put_nobody_out(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "stays.yaml"
    path.write_text(_text(True), encoding="utf-8")
    ruleset = rulesengine.load_ruleset(str(path))
    options = {"leaving": True}
    reference = rulesengine.make_game(ruleset, players=3, options=options, optimize=False)
    right = Game(compile_program(ruleset, options, 3))
    monkeypatch.setattr(stays, "puts_out", lambda value: False)  # the fact, wrongly: nobody leaves
    wrong = Game(compile_program(ruleset, options, 3))
    assert not _reads_the_round(_generated(wrong))
    for seed in range(4):
        play_both(right, reference, seed, choice_seed=seed, max_steps=150)
    with pytest.raises(Disagreement):
        for seed in range(4):
            play_both(wrong, reference, seed, choice_seed=seed, max_steps=150)


# ---- a position with a player out -------------------------------------------------------------


def _scenario(tmp_path: Path, leave: bool, position: str) -> Path:
    (tmp_path / "stays.yaml").write_text(_text(leave), encoding="utf-8")
    path = tmp_path / "stays.tests.yaml"
    head = "players: 3\ntests:\n  - name: out\n    position:\n      phase: play\n"
    text = f"{head}{position}    expect: {{current: P1}}\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_position_with_a_player_out_is_refused_where_the_rules_put_nobody_out(tmp_path: Path) -> None:
    path = _scenario(tmp_path, False, "      out: [P3, P2]\n")
    tests, problems = load(path)
    assert [(d.code, d.span.file, d.span.line, d.span.column) for d in problems] == [("RE509", str(path), 6, 12)]
    assert problems[0].message == "P2, P3 cannot be out of the round: the rules of 'Stays' never put a player out"
    assert tests is not None and tests.scenarios == ()  # the test does not run
    assert validate_file(path)[1] == problems


def test_with_out_in_the_rules_a_position_may_have_a_player_out_but_not_the_player_to_move(tmp_path: Path) -> None:
    path = _scenario(tmp_path, True, "      out: [P3]\n")
    path.write_text(path.read_text(encoding="utf-8").replace("players: 3\n", "players: 3\noptions: {leaving: true}\n"))
    tests, problems = load(path)
    assert not problems and tests is not None
    state = start(tests.scenarios[0])
    assert state.active == [True, True, False] and state.active_players == [0, 1]
    path.write_text(path.read_text(encoding="utf-8").replace("out: [P3]", "out: [P1]\n      current: P1"))
    _, problems = load(path)
    assert [(d.code, d.span.line) for d in problems] == [("RE509", 8)] and "is out of the round" in problems[0].message


def test_set_position_refuses_a_player_out_where_the_rules_put_nobody_out(tmp_path: Path) -> None:
    path = _scenario(tmp_path, True, "      out: [P2]\n")
    path.write_text(path.read_text(encoding="utf-8").replace("players: 3\n", "players: 3\noptions: {leaving: true}\n"))
    tests, _ = load(path)
    assert tests is not None
    position = tests.scenarios[0].position
    assert position is not None and position.out == {1}
    for options in ({"leaving": False}, {"leaving": True}):
        for optimize in (True, False):
            game = rulesengine.make_game(str(tmp_path / "stays.yaml"), players=3, options=options, optimize=optimize)
            state = game.new_initial_state(seed=1)
            if options["leaving"]:
                set_position(state, position)
                assert state.active == [True, False, True]
            else:
                with pytest.raises(ValueError, match="P2 cannot be out of the round: the rules of 'Stays' never"):
                    set_position(state, position)
