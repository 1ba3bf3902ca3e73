"""The optimised compiler agrees with the reference mode, the oracle that shares none of its code.

`make_game(..., optimize=False)` compiles a game setting the most direct way
(rulesengine/reference.py). These tests play the same matches with both programs and
compare them at every step (tests/oracle.py): every shipped ruleset and example under
several options and player counts, with seeds and with chance nodes whose outcomes the
test picks; any seed (hypothesis); and a few hundred matches of games generated from the
grammar (tests/gamegen.py). They also pin the reference mode's meaning of "nobody", "no
card" and the value limits, each with the smallest rule file on which the optimised path
once disagreed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError
from rulesengine.diagnostics import RuleFileError
from tests.fuzz_compiler import check_game
from tests.game_checks import uncovered
from tests.gamegen import generate
from tests.oracle import play_both

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

SETTINGS = [
    ("pan", 2, {}),
    ("pan", 4, {"triples": "equal_or_higher", "fours": "equal_or_higher", "reversed_spades": True}),
    ("pan", 3, {"triples": "nines_only"}),
    ("pan-reversed-spades", 3, {}),
    ("padan", 2, {}),
    ("padan-original", 2, {}),
    ("padvinderspel", 2, {}),
    ("padvinderspel", 5, {"attach": "higher_only"}),
    (str(EXAMPLES / "tutorial-game.yaml"), 3, {}),
    (str(EXAMPLES / "tutorial-game.yaml"), 2, {}),
    (str(EXAMPLES / "ladder.yaml"), 3, {}),
    (str(EXAMPLES / "fishing.yaml"), 2, {}),
    (str(EXAMPLES / "knock-out-whist.yaml"), 4, {}),
    (str(EXAMPLES / "knock-out-whist.yaml"), 5, {}),
    (str(EXAMPLES / "pan-house-rules.yaml"), 3, {}),
    (str(EXAMPLES / "partnership-spades.yaml"), 4, {"deals": 2}),
    (str(EXAMPLES / "in-between.yaml"), 2, {}),
    (str(EXAMPLES / "in-between.yaml"), 6, {"hands": 12, "redeals": 1}),
    (str(EXAMPLES / "goofspiel.yaml"), 3, {}),
    (str(EXAMPLES / "sum-capture.yaml"), 2, {}),
    (str(ROOT / "tests" / "games" / "step-endings.yaml"), 3, {}),
]


def both(name: str, players: int, options: dict) -> tuple[rulesengine.Game, rulesengine.Game]:
    return (
        rulesengine.make_game(name, players=players, options=options),
        rulesengine.make_game(name, players=players, options=options, optimize=False),
    )


def test_every_shipped_ruleset_and_example_is_covered() -> None:
    assert not uncovered(SETTINGS)


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
@pytest.mark.parametrize("chance", [False, True], ids=["seeded", "chance-nodes"])
def test_shipped_games_play_the_same_in_both_modes(name: str, players: int, options: dict, chance: bool) -> None:
    fast, reference = both(name, players, options)
    steps = play_both(fast, reference, None if chance else 11, choice_seed=5, max_steps=150)
    assert steps > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), setting=st.sampled_from(SETTINGS), chance=st.booleans())
def test_shipped_games_agree_for_any_seed(seed: int, setting, chance: bool) -> None:
    fast, reference = both(*setting)
    play_both(fast, reference, None if chance else seed, choice_seed=seed, max_steps=80)


# ---- generated games ----------------------------------------------------------------------

BATCHES, PER_BATCH = 20, 8  # 160 generated games, two matches each


@pytest.mark.parametrize("batch", range(BATCHES))
def test_generated_games_play_the_same_in_both_modes(tmp_path: Path, batch: int) -> None:
    steps = sum(
        check_game(seed, tmp_path, matches=2, steps=60) for seed in range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
    )
    assert steps > 0


def test_generated_games_pass_rulesengine_validate(tmp_path: Path) -> None:
    paths = []
    for seed in range(5000, 5020):
        path = tmp_path / f"generated-{seed}.yaml"
        path.write_text(generate(seed, nobody=seed % 2 == 1), encoding="utf-8")
        paths.append(str(path))
    result = subprocess.run(
        [sys.executable, "-m", "rulesengine.cli", "validate", *paths],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "20 file(s) checked: 0 error(s)" in result.stdout


def test_generated_games_use_the_constructs_of_the_language() -> None:
    texts = "\n".join(generate(seed) for seed in range(40))
    for construct in (
        "same:",
        "size:",
        "sorted_by:",
        "per:",
        "for:",
        "until:",
        "first:",
        "next:",
        "limit:",
        "stuck:",
        "shuffle ",
        "deal ",
        ".bind(",
        ".any(",
        ".all(",
        ".count(",
        ".sum(",
        ".filter(",
        ".max(",
        ".min(",
        ".argmax(",
        "range(",
        "others(",
        "if:",
        "else:",
        "label:",
        "pass: true",
        "hidden: true",
        "define:",
        "reveal ",
        "turn to ",
        "goto ",
        "end ",
        " at bottom",
        "log ",
        "= random ",
        "move random ",
        "repeat:",
        "procedures:",
    ):
        assert construct in texts, construct


# ---- the reference mode itself ----------------------------------------------------------


def test_the_reference_mode_shares_no_code_with_the_optimiser() -> None:
    for path in (ROOT / "rulesengine").glob("reference*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported = {node.module or "", *(alias.name for alias in node.names)}
                assert not imported & {"codegen", "codegen_moves", "Compiler"}, (path.name, imported)
            if isinstance(node, ast.Import):
                assert not any("codegen" in alias.name for alias in node.names), path.name


def test_make_game_caches_each_mode_apart() -> None:
    fast = rulesengine.make_game("pan", players=3)
    reference = rulesengine.make_game("pan", players=3, optimize=False)
    assert reference is rulesengine.make_game("pan", players=3, optimize=False)
    assert fast is not reference and fast is rulesengine.make_game("pan", players=3)
    assert all(move.step is None for move in reference.program.moves)
    assert any(move.step is not None for move in fast.program.moves)


# ---- "nobody", "no card" and the value limits ----------------------------------------------

NOBODY_GAME = textwrap.dedent(
    """\
    name: Nobody
    players: {min: 3, max: 3}
    options:
      what: {choices: [values, reveal, deal, hand, score, out, turn, assign twice, reveal twice], default: values}
    decks:
      standard: {suits: [hearts], ranks: ["1", "2", "3", "4", "5", "6"], zone: stock}
    zones:
      stock: {}
      hand: {per: player}
    variables:
      shown: {type: str}
      is_in: {type: bool}
      lft: {type: player}
      rgt: {type: player}
      nxt: {type: player}
      opp: {type: player}
      others_count: {type: int}
      can: {type: bool}
      score: {type: int, per: player}
      n: {type: int}
    define:
      nobody: holder(top(stock))
    setup:
      - if: what == "values"
        then:
          - shown = text(nobody)
          - is_in = is_active(nobody)
          - lft = left(nobody)
          - rgt = right(nobody)
          - nxt = next(nobody)
          - opp = opponent(nobody)
          - others_count = size(others(nobody))
          - can = can_move(nobody)
      - if: what == "reveal"
        then: ["reveal top(stock) to nobody"]
      - if: what == "deal"
        then: ["deal 1 of stock to hand from nobody"]
      - if: what == "hand"
        then: ["n = size(hand[nobody])"]
      - if: what == "score"
        then: ["n = score[nobody]"]
      - if: what == "turn"
        then: ["turn to nobody"]
      - if: what == "assign twice"
        then: ["score[nobody] = size(hand[nobody])"]
      - if: what == "reveal twice"
        then: ["reveal hand[nobody] to nobody"]
    round:
      setup:  # 'out' in the setup would be undone when the round starts (RE275)
        - if: what == "out"
          then: ["out nobody"]
    phases:
      play:
        moves: [wait]
    moves:
      wait:
        effects: ["reverse"]
    match:
      until: true
    """
)
NOBODY_VALUES = {
    "shown": "nobody",
    "is_in": False,
    "lft": -1,
    "rgt": -1,
    "nxt": -1,
    "opp": -1,
    "others_count": 3,
    "can": False,
}


def write(tmp_path: Path, text: str, name: str = "game.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def nobody_values(tmp_path: Path, optimize: bool) -> dict:
    game = rulesengine.make_game(write(tmp_path, NOBODY_GAME), options={"what": "values"}, optimize=optimize)
    values = game.new_initial_state(seed=1).variables()
    return {name: values[name] for name in NOBODY_VALUES}


def test_reference_nobody_is_no_seat(tmp_path: Path) -> None:
    """is_active(nobody) is false; left, right, next and opponent of nobody are nobody;
    text(nobody) is "nobody"; others(nobody) is every seat; can_move(nobody) is false."""
    assert nobody_values(tmp_path, optimize=False) == NOBODY_VALUES


def test_optimised_nobody_is_no_seat(tmp_path: Path) -> None:
    assert nobody_values(tmp_path, optimize=True) == NOBODY_VALUES


@pytest.mark.parametrize(
    ("what", "optimize"),
    [
        ("hand", False),
        ("hand", True),
        ("score", False),
        ("score", True),
        ("out", False),
        ("out", True),
        ("turn", False),
        ("turn", True),
        ("reveal", False),
        ("deal", False),
        ("reveal", True),
        ("deal", True),
    ],
)
def test_using_nobody_as_a_seat_is_an_error_naming_the_place(tmp_path: Path, what: str, optimize: bool) -> None:
    path = write(tmp_path, NOBODY_GAME)
    game = rulesengine.make_game(path, options={"what": what}, optimize=optimize)
    line = next(n for n, text in enumerate(NOBODY_GAME.splitlines(), 1) if f'what == "{what}"' in text) + 1
    with pytest.raises(EngineError, match=rf"^{path}:{line}:\d+: "):
        game.new_initial_state(seed=1)


@pytest.mark.parametrize(("what", "first"), [("assign twice", "score[nobody]"), ("reveal twice", "hand[nobody]")])
def test_of_two_errors_in_one_effect_both_modes_raise_the_first_read(tmp_path: Path, what: str, first: str) -> None:
    # An assignment reads its index before its value, a reveal its cards before its player.
    path = write(tmp_path, NOBODY_GAME)
    row = next(n for n, text in enumerate(NOBODY_GAME.splitlines(), 1) if f'what == "{what}"' in text) + 1
    text = NOBODY_GAME.splitlines()[row - 1]
    column = text.index(first) + 1 if what == "reveal twice" else text.index('"') + 2  # an assignment: the effect
    for optimize in (False, True):
        game = rulesengine.make_game(path, options={"what": what}, optimize=optimize)
        with pytest.raises(EngineError, match=rf"^{path}:{row}:{column}: "):
            game.new_initial_state(seed=1)


NO_CARD_GAME = textwrap.dedent(
    """\
    name: No card
    players: {min: 2, max: 2}
    decks:
      standard:
        suits:
          hearts: {colour: red, weight: 2}
          spades: {colour: black, weight: 3}
        ranks: ["1", "2"]
        zone: stock
    cards:
      attributes:
        points: order * 10
        big: order > 1
    zones:
      stock: {}
      pile: {}
    variables:
      attributes: {type: str}
      none: {type: card}
    setup:
      - >-
        attributes = text(top(pile).points) + "/" + text(top(pile).big) + "/" + text(top(pile).id) + "/"
        + text(top(pile).order) + "/" + top(pile).colour + "/" + text(top(pile).weight) + "/"
        + text(top(pile).suit) + "/" + text(top(pile).rank) + "/" + text(top(pile).id == -1) + "/"
        + text(top(pile).suit == top(pile).suit) + "/" + text(top(pile))
    phases:
      play:
        moves: [wait]
    moves:
      wait:
        effects: ["log '{[top(pile), top(stock)]} {none}'"]
    match:
      until: true
    """
)


@pytest.mark.parametrize("optimize", [False, True])
def test_attributes_of_no_card_are_neutral(tmp_path: Path, optimize: bool) -> None:
    game = rulesengine.make_game(write(tmp_path, NO_CARD_GAME), optimize=optimize)
    values = game.new_initial_state(seed=1).variables()
    assert values["attributes"] == "0/no/-1/0//0///yes/yes/nothing"


@pytest.mark.parametrize("optimize", [False, True])
def test_no_card_in_a_shown_list_is_nothing(tmp_path: Path, optimize: bool) -> None:
    game = rulesengine.make_game(write(tmp_path, NO_CARD_GAME), optimize=optimize)
    state = game.new_initial_state(seed=1, record_log=True)
    state.apply_action(state.legal_actions()[0])
    assert state.log[-1] == "nothing 2 of spades nothing"


MISSING_SUIT_ATTRIBUTE = textwrap.dedent(
    """\
    name: A suit without an attribute
    players: {min: 2, max: 2}
    decks:
      standard:
        suits:
          hearts: {colour: red}
          spades: {}
        ranks: ["1", "2"]
        zone: stock
    zones:
      stock: {}
    variables:
      shown: {type: str}
    setup:
      - shown = "[" + card("1", "spades").colour + "]"
    phases:
      play:
        moves: [wait]
    moves:
      wait:
        effects: ["reverse"]
    match:
      until: true
    """
)


@pytest.mark.parametrize("optimize", [False, True])
def test_a_suit_attribute_a_suit_lacks_never_reaches_a_match(tmp_path: Path, optimize: bool) -> None:
    # the checker refuses the file (RE245), so neither mode ever reads a missing attribute
    with pytest.raises(RuleFileError) as refused:
        rulesengine.make_game(write(tmp_path, MISSING_SUIT_ATTRIBUTE), optimize=optimize)
    assert [d.code for d in refused.value.diagnostics] == ["RE245"]


LIMITS_GAME = textwrap.dedent(
    """\
    name: Limits
    players: {min: 2, max: 2}
    options:
      what: {choices: [sum, product, text], default: sum}
    decks:
      standard: {suits: [hearts], ranks: ["1", "2"], zone: stock}
    zones:
      stock: {}
    variables:
      n: {type: int, default: 2}
      w: {type: str, default: "'ab'"}
    phases:
      play:
        moves: [grow]
    moves:
      grow:
        effects:
          - if: what == "sum"
            then:
              - for: i in range(70)
                do: ["n += n"]
          - if: what == "product"
            then:
              - for: i in range(70)
                do: ["n = n * 2"]
          - if: what == "text"
            then:
              - for: i in range(14)
                do: ["w = w + w"]
    match:
      until: true
    """
)


@pytest.mark.parametrize("what", ["sum", "product", "text"])
@pytest.mark.parametrize("optimize", [False, True])
def test_values_beyond_the_limits_are_errors_naming_the_place(tmp_path: Path, what: str, optimize: bool) -> None:
    path = write(tmp_path, LIMITS_GAME)
    state = rulesengine.make_game(path, options={"what": what}, optimize=optimize).new_initial_state(seed=1)
    line = next(n for n, text in enumerate(LIMITS_GAME.splitlines(), 1) if f'what == "{what}"' in text) + 3
    with pytest.raises(EngineError, match=rf"^{path}:{line}:\d+: "):
        state.apply_action(0)


FOLDED_ELSE = textwrap.dedent(
    """\
    name: Folded else
    players: {min: 2, max: 2}
    decks:
      standard: {suits: [hearts], ranks: ["1", "2"], zone: stock}
    zones:
      stock: {}
    variables:
      n: {type: int}
    phases:
      play:
        moves: [wait]
    moves:
      wait:
        effects:
          - if: n == 0
            then: ["n += 1"]
            else:
              - if: false
                then: ["n += 2"]
    match:
      until: round >= 3
    """
)


@pytest.mark.parametrize("optimize", [False, True])
def test_an_else_block_that_does_nothing_compiles(tmp_path: Path, optimize: bool) -> None:
    game = rulesengine.make_game(write(tmp_path, FOLDED_ELSE), optimize=optimize)
    state = game.new_initial_state(seed=1)
    state.apply_action(0)
    assert state.variables()["n"] == 1


FIRED = textwrap.dedent(
    """\
    name: Fired
    players: {min: 2, max: 2}
    decks:
      standard: {suits: [hearts], ranks: ["1", "2", "3"], zone: stock}
    cards:
      attributes:
        fired: order * 2
    zones:
      stock: {}
    variables:
      n: {type: int}
    phases:
      play:
        moves: [take]
    moves:
      take:
        params: {c: stock}
        legal: LEGAL
        effects:
          - n = c.fired
    triggers:
      each:
        for: p in players
        when: n > 100
        effects: ["n = 0"]
    match:
      until: true
    """
)


@pytest.mark.parametrize("optimize", [False, True])
def test_an_attribute_named_like_a_generated_local(tmp_path: Path, optimize: bool) -> None:
    legal = " and ".join(f"range(1).all(i{k}, true)" for k in range(12))
    game = rulesengine.make_game(write(tmp_path, FIRED.replace("LEGAL", legal)), optimize=optimize)
    state = game.new_initial_state(seed=1)
    state.apply_action(state.legal_actions()[0])
    assert state.variables()["n"] == 2


# ---- texts of truth values and folded sums --------------------------------------------------

SHOWN_GAME = textwrap.dedent(
    """\
    name: Shown
    players: {min: 2, max: 3}
    options:
      big: {default: 1}
    decks:
      standard: {suits: [hearts], ranks: ["1", "2"], zone: stock}
    zones:
      stock: {}
    variables:
      total: {type: int}
    setup:
      - 'log "one {true}, list {[true, false, 1 > 2]}"'
      - total = players.sum(p, big)
    phases:
      play:
        moves: [wait]
    moves:
      wait:
        effects: ["reverse"]
    match:
      until: true
    """
)


@pytest.mark.parametrize("optimize", [False, True])
def test_a_list_of_truth_values_shows_as_yes_and_no(tmp_path: Path, optimize: bool) -> None:
    game = rulesengine.make_game(write(tmp_path, SHOWN_GAME), optimize=optimize)
    assert "one yes, list yes, no, no" in game.new_initial_state(seed=1, record_log=True).log


@pytest.mark.parametrize("optimize", [False, True])
def test_a_sum_over_the_seats_passing_the_limit_is_an_error_naming_the_place(tmp_path: Path, optimize: bool) -> None:
    path = write(tmp_path, SHOWN_GAME)
    largest = 9223372036854775807
    fits = rulesengine.make_game(path, players=2, options={"big": largest // 2}, optimize=optimize)
    assert fits.new_initial_state(seed=1).variables()["total"] == largest // 2 * 2
    line = SHOWN_GAME.splitlines().index("  - total = players.sum(p, big)") + 1
    with pytest.raises(EngineError, match=rf"^{path}:{line}:\d+: .*9223372036854775807"):
        rulesengine.make_game(path, players=3, options={"big": largest // 2}, optimize=optimize).new_initial_state(
            seed=1
        )
