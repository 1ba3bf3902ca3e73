"""Random choices, chance inside blocks, repeat-blocks, procedures, unions of collections,
`top`/`bottom` of lists, YAML anchors and the tricks block without trumps: each in both
execution paths (the compiled one and the reference mode)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.api import validate_file
from rulesengine.diagnostics import ERROR
from tests.oracle import play_both

HEAD = """rulesengine: 1
name: Chance game
players: {min: 2, max: 4, default: 3}
options:
  tries: {default: 3, min: 0, max: 6}
decks:
  standard:
    suits: [hearts, spades, clubs]
    ranks: ["1", "2", "3", "4", "5", "6"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  faceup: {visibility: all}
  pile: {visibility: all}
variables:
  dealer: {type: player}
  roll: {type: int}
  passes_made: {type: int}
  drawn: {type: card}
  suit_drawn: {type: suit}
"""

TAIL = """phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me] + faceup"}
    effects: [move card to pile]
triggers:
  done:
    for: p in players
    when: empty(hand[p])
    effects: [end round]
match:
  until: round >= 2
"""


def write(tmp_path: Path, body: str, name: str = "game.yaml") -> str:
    path = tmp_path / name
    path.write_text(HEAD + body + TAIL, encoding="utf-8")
    return str(path)


def games(path: str, players: int = 3, options: dict | None = None):
    return (
        rulesengine.make_game(path, players=players, options=options or {}),
        rulesengine.make_game(path, players=players, options=options or {}, optimize=False),
    )


def codes(path: str, warnings: bool = False) -> list[str]:
    _, found = validate_file(Path(path))
    return [d.code for d in found if warnings or d.severity == ERROR]


def first_chance(game) -> rulesengine.State:
    state = game.new_initial_state()
    assert state.is_chance_node()
    return state


@pytest.mark.parametrize("optimize", [True, False])
def test_a_random_player_and_number_are_chance_nodes(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path,
        "setup:\n  - dealer = random players\n  - roll = random range(1, 7)\n"
        "round:\n  setup: [shuffle stock, deal 2 of stock to hand from dealer]\n",
    )
    game = rulesengine.make_game(path, players=4, optimize=optimize)
    state = first_chance(game)
    assert state.chance_outcomes() == [(k, 0.25) for k in range(4)]
    state.apply_action(2)
    assert state.variables()["dealer"] == 2
    assert state.current_player() == -1
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == [f"chance: {k}" for k in range(1, 7)]
    state.apply_action(5)
    assert state.variables()["roll"] == 6
    assert game.max_chance_outcomes == 18  # the cards of a shuffle outnumber the values of the draws


def test_the_most_chance_outcomes_count_every_item_of_joined_lists(tmp_path):
    # `players + players` holds each seat twice: six outcomes with three players, not three
    path = write(
        tmp_path, "setup:\n  - dealer = random players + players + [seat(0)]\n  - drawn = random stock + stock\n"
    )
    game = rulesengine.make_game(path, players=3)
    assert game.max_chance_outcomes == 2 * 18  # the cards of the deck twice
    state = first_chance(game)
    assert len(state.chance_outcomes()) == 7 <= game.max_chance_outcomes


@pytest.mark.parametrize(
    "candidates",
    [
        "(stock + stock + stock).filter(c, true)",
        "top(stock + stock + stock, 60)",
        "(stock + stock + stock).bind(s, s)",
        "(stock + stock).bind(s, s + stock)",
    ],
)
def test_what_keeps_or_takes_items_of_joined_lists_keeps_their_count(tmp_path, candidates):
    # a filter, `top` or a bind of a list holding each card three times can hold them all
    path = write(tmp_path, f"setup:\n  - drawn = random {candidates}\n")
    for game in games(path):
        assert game.max_chance_outcomes == 3 * 18
        state = first_chance(game)
        assert len(state.chance_outcomes()) == 54 <= game.max_chance_outcomes


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_a_seed_draws_the_same_values_in_both_modes(seed: int) -> None:
    path = str(Path(__file__).parent / "games" / "chance-blocks.yaml")
    fast, reference = games(path)
    a, b = fast.new_initial_state(seed=seed), reference.new_initial_state(seed=seed)
    assert a.variables() == b.variables() and a.zones == b.zones
    again = fast.new_initial_state(seed=seed)
    assert again.variables() == a.variables()


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
@pytest.mark.parametrize("players", [2, 4])
def test_chance_inside_blocks_plays_the_same_in_both_modes(seed: int | None, players: int) -> None:
    path = str(Path(__file__).parent / "games" / "chance-blocks.yaml")
    fast, reference = games(path, players)
    assert play_both(fast, reference, seed, choice_seed=players, max_steps=300) > 0


@pytest.mark.parametrize("optimize", [True, False])
def test_move_random_takes_a_card_of_the_zone(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path,
        "round:\n  setup:\n    - deal 2 of stock to hand from seat(0)\n    - move random hand[seat(0)] to faceup\n",
    )
    game = rulesengine.make_game(path, players=2, optimize=optimize)
    state = game.new_initial_state()
    hand = list(state.zones[game.program.families["hand"].base])
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert [state.action_to_string(a) for a in (0, 1)] == [f"chance: {game.program.card_names[c]}" for c in hand]
    state.apply_action(1)
    assert state.zones[game.program.families["faceup"].base] == [hand[1]]


@pytest.mark.parametrize("optimize", [True, False])
def test_a_draw_from_an_empty_list_is_no_value_and_no_chance_node(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path, "setup:\n  - drawn = random pile\n  - roll = random range(3, 3)\n  - dealer = random [seat(1)]\n"
    )
    state = rulesengine.make_game(path, players=2, optimize=optimize).new_initial_state()
    assert not state.is_chance_node()
    assert (state.variables()["drawn"], state.variables()["roll"], state.variables()["dealer"]) == (None, 0, 1)


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("tries", [0, 1, 4])
def test_repeat_runs_at_most_its_count_and_stops_once_until_holds(tmp_path: Path, optimize: bool, tries: int) -> None:
    path = write(
        tmp_path,
        "round:\n  setup:\n    - passes_made = 0\n    - repeat: tries\n      do:\n"
        "        - passes_made += 1\n        - suit_drawn = random suits\n"
        '      until: suit_drawn == "clubs"\n'
        "    - deal 2 of stock to hand from seat(0)\n",
    )
    game = rulesengine.make_game(path, players=2, options={"tries": tries}, optimize=optimize)
    for outcomes in ([2, 2, 2, 2], [0, 2], [1, 1, 0, 2]):
        state = game.new_initial_state()
        used = 0
        while state.is_chance_node():
            state.apply_action(outcomes[used])
            used += 1
        first_clubs = outcomes.index(2) + 1
        assert state.variables()["passes_made"] == min(tries, first_clubs) == used


def test_the_cost_bound_multiplies_a_repeat_by_its_count(tmp_path: Path) -> None:
    loops = "".join(f"{'  ' * (6 + 2 * k)}- for: {v} in stock\n{'  ' * (7 + 2 * k)}do:\n" for k, v in enumerate("cdef"))
    body = (
        "round:\n  setup:\n    - repeat: {n}\n      do:\n        - for: p in players\n          do:\n"
        + loops
        + "                            - roll += 1\n"
    )
    assert "RE248" not in codes(write(tmp_path, body.format(n=1)))
    assert "RE248" in codes(write(tmp_path, body.format(n=1000)))


def test_repeat_and_random_diagnostics(tmp_path: Path) -> None:
    assert codes(write(tmp_path, "setup:\n  - repeat: roll\n    do: [reverse]\n")) == ["RE253"]
    assert codes(write(tmp_path, "setup:\n  - repeat: 1001\n    do: [reverse]\n")) == ["RE254"]
    assert codes(write(tmp_path, "setup:\n  - roll = size(random stock)\n")) == ["RE101"]
    assert "RE302" in codes(write(tmp_path, "setup:\n  - move random players to pile\n"))
    assert "RE301" in codes(write(tmp_path, "setup:\n  - roll = random players\n"))


# ---- procedures --------------------------------------------------------------------------

PROCEDURES = """procedures:
  give:
    params: {c: card, p: player}
    effects:
      - move c to hand[p]
      - drawn = c
  refill:
    params: {p: player, n: int}
    effects:
      - repeat: 6
        do: ["give(top(stock), p)"]
        until: size(hand[p]) >= n
"""


@pytest.mark.parametrize("optimize", [True, False])
def test_a_procedure_binds_each_argument_once(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path,
        PROCEDURES + 'round:\n  setup:\n    - shuffle stock\n    - for: p in players\n      do: ["refill(p, 3)"]\n',
    )
    game = rulesengine.make_game(path, players=3, optimize=optimize)
    state = game.new_initial_state(seed=3)
    hands = [state.zones[game.program.families["hand"].base + p] for p in range(3)]
    assert [len(h) for h in hands] == [3, 3, 3]
    # `c` is the card that was on top when the call began: the last one given is the last card moved
    assert state.variables()["drawn"] == game.program.card_names[hands[2][-1]]


@pytest.mark.parametrize("seed", [None, 4])
def test_a_procedure_argument_is_kept_across_a_shuffle_in_its_body(tmp_path: Path, seed: int | None) -> None:
    """A parameter read after a shuffle of the procedure's own body: the effects before and
    after the shuffle run apart (a chance node between them without a seed), and both read it."""
    body = (
        "procedures:\n  reshuffle:\n    params: {p: player}\n    effects:\n"
        "      - move hand[p] to stock\n      - shuffle stock\n      - move top(stock, 2) to hand[p]\n"
        "      - dealer = p\nround:\n  setup:\n    - shuffle stock\n    - deal 3 of stock to hand from seat(0)\n"
        '    - "reshuffle(seat(1))"\n'
    )
    fast, reference = games(write(tmp_path, body))
    hands = fast.program.families["hand"].base
    assert play_both(fast, reference, seed, choice_seed=1, max_steps=40) > 0
    state = fast.new_initial_state(seed=seed)
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    assert [len(state.zones[hands + p]) for p in range(3)] == [3, 2, 3]
    assert state.variables()["dealer"] == 1


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('setup: ["give(top(stock))"]\n', ["RE311"]),
        ('setup: ["give(seat(0), seat(1))"]\n', ["RE301"]),
        ('setup: ["gift(top(stock), seat(1))"]\n', ["RE251"]),
    ],
)
def test_procedure_calls_are_checked(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert codes(write(tmp_path, PROCEDURES + body)) == expected


def test_recursion_through_other_procedures_names_the_cycle(tmp_path: Path) -> None:
    text = (
        'procedures:\n  a:\n    effects: ["b()"]\n  b:\n    effects: [reverse, "c()"]\n'
        '  c:\n    effects: ["a()"]\nsetup: ["a()"]\n'
    )
    _, found = validate_file(Path(write(tmp_path, text)))
    found = [d for d in found if d.severity == ERROR]
    assert [d.code for d in found] == ["RE250"]
    assert "a -> b -> c -> a" in found[0].message


def test_an_error_inside_an_unused_procedure_is_reported(tmp_path: Path) -> None:
    assert codes(write(tmp_path, "procedures:\n  idle:\n    effects: [roll = dealer]\n")) == ["RE301"]


# ---- collections ----------------------------------------------------------------------------


@pytest.mark.parametrize("optimize", [True, False])
def test_union_candidates_and_top_of_a_filtered_list(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path,
        "round:\n  setup:\n    - deal 2 of stock to hand from seat(0)\n"
        "    - move top(stock, 3) to faceup\n"
        '    - drawn = top(stock.filter(c, c.suit == "spades"))\n',
    )
    game = rulesengine.make_game(path, players=2, optimize=optimize)
    state = game.new_initial_state(seed=None)
    program = game.program
    hand = state.zones[program.families["hand"].base]
    faceup = state.zones[program.families["faceup"].base]
    stock = state.zones[program.families["stock"].base]
    offered = sorted(game.decode(a)[1][0] for a in state.legal_actions())
    assert offered == sorted(hand + faceup)
    spades = [c for c in stock if program.suit_names[program.attributes["suit"][c]] == "spades"]
    assert state.variables()["drawn"] == program.card_names[spades[-1]]


def test_a_union_of_different_types_is_an_error(tmp_path: Path) -> None:
    assert codes(write(tmp_path, "setup:\n  - for: x in players + stock\n    do: [reverse]\n")) == ["RE301"]


# ---- sharing text ---------------------------------------------------------------------------


def test_yaml_anchors_share_effects_and_the_file_plays(tmp_path: Path) -> None:
    text = (
        HEAD
        + (
            "round:\n  setup: &deal_again\n    - move pile to stock\n    - move faceup to stock\n"
            '    - for: p in players\n      do: ["move hand[p] to stock"]\n    - shuffle stock\n'
            "    - deal 3 of stock to hand from seat(0)\n  stuck: *deal_again\n"
        )
        + TAIL
    )
    path = tmp_path / "anchors.yaml"
    path.write_text(text, encoding="utf-8")
    assert codes(str(path)) == []
    fast, reference = games(str(path), 2)
    assert play_both(fast, reference, 5, choice_seed=1, max_steps=100) > 0


def test_the_tricks_block_serves_a_game_without_trumps_without_warnings(tmp_path: Path) -> None:
    text = """rulesengine: 1
name: No trumps
include: [blocks/tricks]
players: {min: 3, max: 4}
define:
  is_trump(c): "false"
variables:
  trump: null
decks:
  standard:
    suits: [clubs, diamonds, hearts, spades]
    ranks: ["7", "8", "9", "10", J, Q, K, A]
    zone: stock
zones:
  stock: {visibility: nobody}
round:
  setup:
    - for: p in players
      do: ["move won[p] to stock", "tricks[p] = 0"]
    - shuffle stock
    - deal all of stock to hand from seat(0)
    - trick_winner = seat(round)
phases:
  play:
    first: trick_winner
    moves: [play_card]
    until: players.all(p, empty(hand[p]))
match:
  until: round >= 2
  winners: players.filter(p, tricks[p] == players.max(q, tricks[q]))
"""
    path = tmp_path / "no-trumps.yaml"
    path.write_text(text, encoding="utf-8")
    assert codes(str(path), warnings=True) == []
    game = rulesengine.make_game(str(path), players=4)
    state = game.new_initial_state(seed=2)
    rng = random.Random(2)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.variables()["tricks"]) == 8  # the last deal's tricks, won on rank and suit alone


def test_an_unused_procedure_is_a_warning(tmp_path: Path) -> None:
    _, found = validate_file(Path(write(tmp_path, "procedures:\n  idle:\n    effects: [reverse]\n")))
    assert [d.message for d in found if d.code == "RE240" and "procedure" in d.message] == [
        "procedure 'idle' is defined but never used"
    ]


DICE = """\
rulesengine: 1
name: Dice
players: {min: 2, max: 2}
decks:
  d: {suits: [hearts], ranks: ["1", "2"], zone: stock}
zones:
  stock: {visibility: nobody}
variables:
  who: {type: player}
round:
  setup:
    - who = random players + players + [seat(0)]
phases:
  play:
    first: seat(0)
    moves: [go]
    until: turn >= 1
moves:
  go: {effects: [end round]}
match:
  until: round == 1
  winners: "[who]"
"""


@pytest.mark.parametrize("optimize", [True, False])
def test_the_outcomes_of_a_random_choice_have_distinct_names(tmp_path: Path, optimize: bool) -> None:
    """A list may hold a value more than once: each place is an outcome, named apart (OpenSpiel
    asks that no two actions of a state share a name)."""
    rules = tmp_path / "dice.yaml"
    rules.write_text(DICE)
    state = rulesengine.make_game(rules, optimize=optimize).new_initial_state()
    assert state.is_chance_node()
    names = [state.action_to_string(outcome) for outcome in state.legal_actions()]
    assert names == ["chance: P1 (#1)", "chance: P2 (#2)", "chance: P1 (#3)", "chance: P2 (#4)", "chance: P1 (#5)"]
