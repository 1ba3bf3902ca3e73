"""The example games: every file in examples/ is valid, and every game in it plays to the end.

Files are found by glob, so an example added later is covered without editing this file.
The games written for the tutorial and the examples also have their own rules checked at
every decision of random matches.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from rulesengine import Game, State, api
from rulesengine.agents import RandomAgent, play_match
from rulesengine.analysis import analyse
from rulesengine.cli import main
from rulesengine.diagnostics import ERROR, render_text
from tests.game_checks import assert_cards_conserved, play_random

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.yaml"))

# Random bots need tens of thousands of decisions per letter of Pan's word; a one-letter
# word keeps each match of a Pan variant to one deal.
QUICK_OPTIONS: dict[str, dict[str, object]] = {
    "pan-house-rules.yaml": {"word": "P"},
    "partnership-spades.yaml": {"deals": 2},
    "sum-capture.yaml": {"target": 3},
}
MAX_STEPS = 200_000  # far above what any example needs: reaching it means a match that never ends


def _is_block(path: Path) -> bool:
    """A block (a part meant for `include`) says `block: true`; it is not a game to play."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return isinstance(document, dict) and document.get("block") is True


GAMES = [path for path in EXAMPLES if not _is_block(path)]


def _game(path: Path, players: int | None = None) -> Game:
    return api.make_game(path, players=players, options=QUICK_OPTIONS.get(path.name), max_steps=MAX_STEPS)


def _example(name: str) -> Path:
    return EXAMPLES_DIR / name


def test_examples_are_found() -> None:
    names = {path.name for path in EXAMPLES}
    assert {"tutorial-game.yaml", "pan-house-rules.yaml", "ladder.yaml", "fishing.yaml", "in-between.yaml"} <= names
    assert {"goofspiel.yaml", "sum-capture.yaml", "partnership-spades.yaml"} <= names


# ---- every example ---------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_validates(path: Path) -> None:
    ruleset, problems = api.validate_file(path)
    errors = [p for p in problems if p.severity == ERROR]
    assert not errors, render_text(errors, {})
    assert (ruleset is None) == _is_block(path)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_random_matches_end_at_every_table_size(path: Path) -> None:
    ruleset = api.load_ruleset(path)
    for seed, players in enumerate(sorted({ruleset.min_players, ruleset.default_players, ruleset.max_players})):
        game = _game(path, players)
        agents = [RandomAgent(seed * 100 + seat) for seat in range(players)]
        state = play_match(game.new_initial_state(seed=seed), agents)
        assert state.is_terminal()
        assert not state.truncated, f"{path.name} with {players} players reached {MAX_STEPS} decisions"
        assert_cards_conserved(state)
        utility = game.utility
        assert all(utility.minimum <= r <= utility.maximum for r in state.returns())
        if ruleset.results is None or ruleset.results.returns is None:
            assert set(state.returns()) <= {-1.0, 0.0, 1.0}
        if utility.total is not None:
            assert sum(state.returns()) == utility.total


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_simulation_counts_every_match(path: Path) -> None:
    data = analyse(_game(path), 3, seed=11, probe=False)
    assert data["games"] == 3 and not data["partial"]
    assert data["length"]["decisions"]["min"] > 0
    for seat in data["seats"]:
        assert seat["wins"] + seat["losses"] + seat["draws"] == 3


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_a_seed_fixes_the_match(path: Path) -> None:
    game = _game(path)
    first = play_random(game.new_initial_state(seed=3), seed=7)
    second = play_random(game.new_initial_state(seed=3), seed=7)
    assert first.actions() == second.actions()
    assert first.returns() == second.returns()


# ---- the rules of each game, checked at every decision of random matches ----------------


def _card(state: State, card: int) -> tuple[str, str]:
    """(rank, suit) of a card id."""
    program = state.program
    return program.ruleset.ranks[program.attributes["rank"][card]], program.suit_names[program.attributes["suit"][card]]


def _zone(state: State, name: str) -> list[int]:
    return state.zones[state.program.families[name].base]


def _hand(state: State, player: int) -> list[int]:
    return state.zones[state.program.families["hand"].base + player]


def _each_decision(state: State, seed: int, check: Callable[[State], None]) -> State:
    """Play randomly from `state`, calling `check` at every decision before the move."""
    check(state)
    return play_random(state, seed, each_step=lambda s: None if s.is_terminal() else check(s))


def _legal_moves(state: State) -> list[tuple[str, tuple]]:
    return state.legal_moves()  # complete actions, also while a choice is made in steps


def _check_eights(state: State) -> None:
    top_rank, _ = _card(state, _zone(state, "discard")[-1])
    follow = state.variables()["follow"]
    wild = state.game.options["wild_eights"]
    hand = [_card(state, c) for c in _hand(state, state.current)]
    playable = [(rank, suit) for rank, suit in hand if suit == follow or rank == top_rank or (wild and rank == "8")]
    moves = _legal_moves(state)
    for name, values in moves:
        if name == "lay":
            rank, suit = _card(state, values[0])
            assert suit == follow or rank == top_rank
            assert not (wild and rank == "8")
        elif name == "lay_eight":
            assert wild and _card(state, values[0])[0] == "8"
        else:
            assert name == "draw"
            assert not playable and _zone(state, "stock")
    if playable:
        assert any(name.startswith("lay") for name, _ in moves)


@given(seed=st.integers(0, 2**32 - 1), wild=st.booleans())
def test_eights_lays_follow_the_suit_or_rank(seed: int, wild: bool) -> None:
    game = api.make_game(_example("tutorial-game.yaml"), options={"target": 30, "wild_eights": wild})
    state = _each_decision(game.new_initial_state(seed=seed), seed, _check_eights)
    totals = state.variables()["total"]
    assert max(totals) >= 30
    best = [total == max(totals) for total in totals]
    expected = [0.0] * len(totals) if all(best) else [1.0 if b else -1.0 for b in best]
    assert state.returns() == expected


def _check_ladder(state: State) -> None:
    variables = state.variables()
    run_size = variables["run_size"]
    pile = _zone(state, "pile")
    order = state.program.ruleset.ranks
    top = order.index(_card(state, pile[-1])[0]) if pile else -1
    assert not variables["passed"][state.current], "a player who passed is asked to move"
    for name, values in _legal_moves(state):
        if name == "pass":
            assert run_size > 0, "the leader of a run may not pass"
            continue
        cards = values[0] if isinstance(values[0], tuple) else (values[0],)
        ranks = {order.index(_card(state, c)[0]) for c in cards}
        assert len(ranks) == 1, "a set is of one rank"
        if run_size:
            assert len(cards) == run_size and ranks.pop() > top


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6))
def test_ladder_plays_beat_the_pile_and_places_score(seed: int, players: int) -> None:
    game = api.make_game(_example("ladder.yaml"), players=players, options={"deals": 2})
    state = _each_decision(game.new_initial_state(seed=seed), seed, _check_ladder)
    # Each deal hands out the places 1..N once, worth N-1 down to 0 points.
    assert sum(state.variables()["score"]) == 2 * players * (players - 1) // 2


def _check_fishing(state: State) -> None:
    table = _zone(state, "table")
    table_ranks = {_card(state, c)[0] for c in table}
    value = state.program.attributes["value"]
    for name, values in _legal_moves(state):
        rank = _card(state, values[0])[0]
        if name == "capture":
            assert rank in table_ranks
        elif name == "trail":
            assert rank not in table_ranks
        else:
            assert name == "add_up"
            card, pair = values
            assert rank not in table_ranks and set(pair) <= set(table)
            assert value[card] > 0 and value[pair[0]] + value[pair[1]] == value[card]


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), sums=st.booleans())
def test_fishing_captures_match_the_table(seed: int, players: int, sums: bool) -> None:
    game = api.make_game(_example("fishing.yaml"), players=players, options={"target": 5, "sums": sums})
    captures_by_sum = []

    def check(state: State) -> None:
        _check_fishing(state)
        captures_by_sum.extend(name for name, _ in _legal_moves(state) if name == "add_up")

    state = _each_decision(game.new_initial_state(seed=seed), seed, check)
    if not sums:
        assert not captures_by_sum
    scores = state.variables()["score"]
    assert max(scores) >= 5 and scores.count(max(scores)) == 1


def test_pan_house_rules_change_only_what_they_name() -> None:
    pan = api.load_ruleset("pan")
    house = api.load_ruleset(_example("pan-house-rules.yaml"))
    options = {o.name: o.default for o in house.options}
    assert options["word"] == "PIGS" and options["reversed_spades"] is True and options["pairs"] is True
    assert (house.min_players, house.max_players) == (pan.min_players, 6)
    base_moves = {m.name: m for m in pan.moves}
    for move in house.moves:
        if move.name != "pair":
            assert move.effects == base_moves[move.name].effects, f"{move.name} should be Pan's own"
    assert [p.moves for p in house.phases] == [pan.phases[0].moves, ("single", "pair", "triple", "four", "pick_up")]


def test_pan_house_rules_lay_pairs_at_a_full_table() -> None:
    game = _game(_example("pan-house-rules.yaml"), players=6)
    pairs_laid = 0
    state = game.new_initial_state(seed=5)
    while not state.is_terminal():
        decisions = state.steps
        state.apply_action(RandomAgent(state.steps).choose(state))
        if state.steps == decisions or state.last_action is None:
            continue  # one step of a choice made in steps
        move, values = game.decode(state.last_action)
        if move.name == "pair":
            pairs_laid += 1
            first, second = (_card(state, c)[0] for c in values[0])
            assert first == second
    assert pairs_laid > 0
    assert not state.truncated


# ---- the tutorial (docs/authoring.md) shows files and output that are true ---------------

AUTHORING = EXAMPLES_DIR.parent / "docs" / "authoring.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", AUTHORING.read_text(encoding="utf-8"), re.S)


def _expected_errors(text: str) -> set[str]:
    """The error codes each whole file shown in the tutorial is meant to have."""
    if text.strip() == "name: Eights":
        return {"RE206"}  # step 1: almost everything is missing
    if ".siut" in text:
        return {"RE313"}  # step 2: the typo
    if "four: null" in text and "fours: null" not in text:
        return {"RE221"}  # the first try at removing a rule
    return set()


def test_tutorial_files_have_the_problems_the_text_shows(tmp_path: Path) -> None:
    whole_files = [b for b in _blocks("yaml") if b.startswith(("name:", "extends:"))]
    assert len(whole_files) >= 5
    for number, text in enumerate(whole_files):
        path = tmp_path / f"file{number}.yaml"
        path.write_text(text, encoding="utf-8")
        _, problems = api.validate_file(path)
        assert {p.code for p in problems if p.severity == ERROR} == _expected_errors(text), text


def test_tutorial_variant_is_the_shipped_example() -> None:
    shown = [yaml.safe_load(b) for b in _blocks("yaml") if "name: Pan (house rules)" in b]
    assert shown == [yaml.safe_load(_example("pan-house-rules.yaml").read_text(encoding="utf-8"))]


def test_tutorial_commands_on_examples_print_what_is_shown() -> None:
    """`rulesengine validate|run examples/...` (optionally `| head -N`) as pasted in the text."""
    runner = CliRunner()
    checked = 0
    for block in _blocks("console"):
        commands = re.split(r"^\$ ", block, flags=re.M)[1:]
        for command in commands:
            line, _, shown = command.partition("\n")
            words = shlex.split(line)
            if words[:2] not in (["rulesengine", "validate"], ["rulesengine", "run"]) or "examples/" not in line:
                continue
            head = None
            if "|" in words:
                head = int(words[words.index("|") + 2].lstrip("-"))
                words = words[: words.index("|")]
            result = runner.invoke(main, words[1:])
            lines = result.output.splitlines()
            assert lines[:head] == shown.splitlines(), line
            checked += 1
    assert checked >= 3


def test_tutorial_python_prints_what_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    text = AUTHORING.read_text(encoding="utf-8")
    code, shown = re.search(r"```python\n(.*?)```\n+```text\n(.*?)```", text, re.S).groups()
    monkeypatch.chdir(EXAMPLES_DIR.parent)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(AUTHORING), "exec"), {})
    assert printed.getvalue() == shown
