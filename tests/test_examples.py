"""The example games: every file in examples/ is valid, and every game in it plays to the end.

Files are found by glob, so an example added later is covered without editing this file.
The games written for the tutorial and the examples also have their own rules checked at
every decision of random matches.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from rulesengine import Game, State, api, resources
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
    if text.strip() == "rulesengine: 1\nname: Eights":
        return {"RE206"}  # step 1: almost everything is missing
    if ".siut" in text:
        return {"RE313"}  # step 2: the typo
    if "four: null" in text and "fours: null" not in text:
        return {"RE221"}  # the first try at removing a rule
    return set()


def test_tutorial_files_have_the_problems_the_text_shows(tmp_path: Path) -> None:
    whole_files = [b for b in _blocks("yaml") if re.match(r"(rulesengine: 1\n)?(name|extends):", b)]
    assert len(whole_files) >= 6
    for number, text in enumerate(whole_files):
        assert text.startswith("rulesengine: 1\n"), text  # as every rule file should (language.md)
        path = tmp_path / f"file{number}.yaml"
        path.write_text(text, encoding="utf-8")
        _, problems = api.validate_file(path)
        assert {p.code for p in problems if p.severity == ERROR} == _expected_errors(text), text


def test_tutorial_variant_is_the_shipped_example() -> None:
    shown = [yaml.safe_load(b) for b in _blocks("yaml") if "name: Pan (house rules)" in b]
    assert shown == [yaml.safe_load(_example("pan-house-rules.yaml").read_text(encoding="utf-8"))]


def _commands(block: str) -> list[tuple[str, str]]:
    """The commands of a console block, each with the output shown after it."""
    return [tuple(command.partition("\n")[::2]) for command in re.split(r"^\$ ", block, flags=re.M)[1:]]


def _shell(line: str) -> tuple[list[str], Callable[[list[str]], list[str]]]:
    """The words of `rulesengine ...` before a pipe, and what the pipe (`head -N`, `tail -N`,
    `grep -v PATTERN`, or none) keeps of the output lines."""
    command, pipe, after = line.partition(" | ")
    words = shlex.split(command)
    if not pipe:
        return words, lambda lines: lines
    tool, *arguments = shlex.split(after)
    if tool in ("head", "tail"):
        count = int(arguments[0].lstrip("-"))
        return words, (lambda lines: lines[:count]) if tool == "head" else (lambda lines: lines[-count:])
    assert tool == "grep" and arguments[0] == "-v", f"a pipe the test does not know: {line}"
    return words, lambda lines: [x for x in lines if not re.search(arguments[1], x)]


def _printed(line: str) -> list[str]:
    words, pipe = _shell(line)
    result = CliRunner().invoke(main, words[1:])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "note:" not in result.output, result.output  # e.g. a file read without its 'rulesengine: 1' line
    return pipe(result.output.splitlines())


def test_tutorial_commands_on_examples_print_what_is_shown() -> None:
    """`rulesengine validate|run examples/...` (optionally `| head -N`) as pasted in the text."""
    checked = 0
    for block in _blocks("console"):
        for line, shown in _commands(block):
            words = shlex.split(line)
            if words[:2] not in (["rulesengine", "validate"], ["rulesengine", "run"]) or "examples/" not in line:
                continue
            assert _printed(line) == shown.splitlines(), line
            checked += 1
    assert checked >= 3


def _scratch_steps() -> list[tuple[dict[str, str], str, str]]:
    """The commands run in the scratch folder, each with the files as the text has written
    them by then, and the output shown. Whole files are shown as written; step 2's typo is
    fixed as the text says; step 3 adds a `define` section before `round`, uses `top_card` in
    the setup's log line and replaces the sections from `phases` on with the ones shown."""
    text = AUTHORING.read_text(encoding="utf-8")
    files: dict[str, str] = {}
    steps = []
    position = 0
    for block in re.finditer(r"```(\w+)\n(.*?)```", text, re.S):
        prose, (kind, body), position = text[position : block.start()], block.groups(), block.end()
        if "Fix `siut` to `suit`" in prose:
            files["eights.yaml"] = files["eights.yaml"].replace(".siut", ".suit")
        if kind == "yaml" and body.startswith("rulesengine: 1\nname: Eights\n"):
            files["eights.yaml"] = body
        elif kind == "yaml" and body.startswith("rulesengine: 1\nextends: pan\nname: Pan without fours\n"):
            files["pan-no-fours.yaml"] = body
        elif kind == "yaml" and body.startswith("define:\n"):
            assert "\nround:\n" in files["eights.yaml"]
            files["eights.yaml"] = files["eights.yaml"].replace("\nround:\n", f"\n{body}\nround:\n")
        elif kind == "yaml" and body.startswith("phases:\n") and "define:" in files["eights.yaml"]:
            log = re.search(r'\(`(log "\{top_card\} is turned up")`\)', prose)[1]
            eights = files["eights.yaml"].split("\nphases:\n")[0] + "\n" + body
            assert 'log "{top(discard)} is turned up"' in eights
            files["eights.yaml"] = eights.replace('log "{top(discard)} is turned up"', log)
        elif kind == "console":
            for line, shown in _commands(body):
                if any(name in shlex.split(line) for name in files):
                    steps.append((dict(files), line, shown))
    return steps


def test_tutorial_commands_in_the_scratch_folder_print_what_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Part 1's steps 1 to 4 and Part 2's file without fours, each file as written so far.
    Pan's own file is shown where this checkout keeps it."""
    steps = _scratch_steps()
    assert [line.split("|")[0].strip() for _, line, _ in steps] == [
        "rulesengine validate eights.yaml",
        "rulesengine validate eights.yaml",
        "rulesengine validate eights.yaml",
        "rulesengine run eights.yaml --seed 1",
        "rulesengine run eights.yaml --seed 1",
        "rulesengine run eights.yaml --seed 1 -p 2 -o hand_size=7 -o target=200",
        "rulesengine validate pan-no-fours.yaml",
        "rulesengine validate pan-no-fours.yaml",
    ]
    monkeypatch.chdir(tmp_path)
    shipped = str(resources.rulesets_dir()) + "/"
    for files, line, shown in steps:
        for name, text in files.items():
            Path(name).write_text(text, encoding="utf-8")
        printed = [x.replace(shipped, "/work/main/rulesets/") for x in _printed(line)]
        assert printed == shown.splitlines(), line


SIMULATIONS = [
    (line, shown)
    for block in _blocks("console")
    for line, shown in _commands(block)
    if line.startswith("rulesengine simulate ") and "--json" not in line
]
SPEED = re.compile(r"[\d.]+ s, [\d.,]+ matches/s, [\d,]+ decisions/s \(local, 1 worker\(s\)\)")


def _agrees(printed: list[str], shown: list[str]) -> bool:
    """Whether `shown` is `printed` with runs of one or more lines replaced by a line `…`,
    the speed figures of `simulate` as one machine gave them."""

    def same(lines: list[str], segment: list[str]) -> bool:
        return len(lines) == len(segment) and all(
            a == b or (SPEED.fullmatch(a) and SPEED.fullmatch(b)) for a, b in zip(lines, segment, strict=True)
        )

    first, *segments = "\n".join(["", *shown, ""]).split("\n…\n")
    first_lines = first.split("\n")[1:] if segments else first.split("\n")[1:-1]
    if not same(printed[: len(first_lines)], first_lines):
        return False
    position = len(first_lines)
    for number, text in enumerate(segments):
        segment = text.split("\n")[:-1] if number == len(segments) - 1 else text.split("\n")
        last = number == len(segments) - 1
        starts = [len(printed) - len(segment)] if last else range(position + 1, len(printed) - len(segment) + 1)
        found = next((s for s in starts if s > position and same(printed[s : s + len(segment)], segment)), None)
        if found is None:
            return False
        position = found + len(segment)
    return position == len(printed)


def test_the_tutorial_simulations_are_found_and_cut_output_is_matched() -> None:
    assert {line.split(" -n")[0] for line, _ in SIMULATIONS} == {
        "rulesengine simulate examples/tutorial-game.yaml",
        "rulesengine simulate pan",
        "rulesengine simulate examples/pan-house-rules.yaml",
    }
    assert _agrees(["a", "b", "c", "d"], ["a", "…", "d"]) and _agrees(["a", "b", "c"], ["a", "…"])
    assert _agrees(["a", "b", "c", "d"], ["a", "…", "c", "…"]) and _agrees(["a", "b"], ["a", "b"])
    assert not _agrees(["a", "b", "c", "d"], ["a", "…", "c"]) and not _agrees(["a", "b"], ["a", "…", "b"])
    assert not _agrees(["a", "b"], ["a"]) and not _agrees(["a", "b"], ["a", "b", "…"])


@pytest.mark.parametrize(("line", "shown"), SIMULATIONS, ids=[line for line, _ in SIMULATIONS])
def test_tutorial_simulations_print_what_is_shown(line: str, shown: str) -> None:
    """Each `rulesengine simulate` of the text prints its figures again (the seed is 0 unless
    given); lines left out are marked `…`, and only the speed of the last line may differ."""
    printed = _printed(line)
    assert _agrees(printed, shown.splitlines()), "\n".join(printed)


def test_tutorial_simulation_as_json_has_the_figures_shown() -> None:
    """The abridged `--json` of step 6: every key shown is printed, in that order, with the
    value shown (a mapping may leave keys out); speed figures differ between machines."""
    (line, shown), *_ = [c for b in _blocks("console") for c in _commands(b) if "--json" in c[0]]
    printed = json.loads("\n".join(_printed(line)))
    expected = json.loads(shown)
    speed = {"seconds", "decisions_per_second", "matches_per_second"}

    def within(shown: object, printed: object) -> None:
        if isinstance(shown, dict):
            assert isinstance(printed, dict)
            keys = [k for k in printed if k in shown]
            assert keys == list(shown), f"{list(shown)} are not printed in this order: {list(printed)}"
            for key, value in shown.items():
                if key not in speed:
                    within(value, printed[key])
        elif isinstance(shown, list):
            assert isinstance(printed, list) and len(printed) == len(shown)
            for one, other in zip(shown, printed, strict=True):
                within(one, other)
        else:
            assert shown == printed

    within(expected, printed)


def test_the_house_rules_conclusions_quote_the_figures_shown() -> None:
    """The text after Part 2's simulations quotes figures of their output, and the ratio of
    the mean decisions per match of the house rules and of Pan."""
    text = AUTHORING.read_text(encoding="utf-8")
    section = text.split("### Do the house rules change the game?")[1].split("\n## ")[0]
    block = re.search(r"```console\n(.*?)```", section, re.S)[1]
    outputs = {line: shown for line, shown in _commands(block)}
    prose = section[section.index("```", section.index("```console") + 3) :]
    ratio = re.search(r"([\d.]+) times as many decisions", prose)
    mean = {line: float(re.search(r"^decisions per match: mean ([\d.]+)", o, re.M)[1]) for line, o in outputs.items()}
    pan = mean["rulesengine simulate pan -n 50 -o word=P"]
    house = mean["rulesengine simulate examples/pan-house-rules.yaml -n 50 -o word=P"]
    assert round(house / pan, 2) == float(ratio[1])
    quoted = re.findall(r"\d+ of \d+|(?<![\d.])\d+(?:\.\d+)?(?![\d.])", prose.replace(ratio[0], ""))
    assert len(quoted) >= 10
    for figure in quoted:
        if figure not in ("50", "25", "2000", "500"):  # matches, interval width, Pan's limit, `-n 500`
            assert any(re.search(rf"(?<![\d.]){re.escape(figure)}(?![\d.])", o) for o in outputs.values()), figure


def test_tutorial_python_prints_what_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    text = AUTHORING.read_text(encoding="utf-8")
    code, shown = re.search(r"```python\n(.*?)```\n+```text\n(.*?)```", text, re.S).groups()
    monkeypatch.chdir(EXAMPLES_DIR.parent)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(AUTHORING), "exec"), {})
    assert printed.getvalue() == shown
