"""No input ends in a Python traceback.

Whatever a rule file holds, `validate_file` returns diagnostics (or none) and never raises;
and a file that validates makes a game whose play offers at least one legal action at
every decision and raises nothing but the run-time errors the language defines: an
`EngineError` naming the rule file's position (an index outside a zone family, nobody
used as a seat, a value beyond the limits) or the engine's budget of steps without a
decision.
Inputs come from the grammar (token soup and well-formed expressions put into a small
valid game) and from mutations of the shipped rulesets.

The examples are derandomized so CI is repeatable; set RULESENGINE_FUZZ_EXAMPLES to a
larger number (and RULESENGINE_FUZZ_RANDOM=1 for fresh inputs) to search harder locally.
"""

from __future__ import annotations

import json
import os
import random
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesengine import EngineError, make_game
from rulesengine.api import validate_file
from rulesengine.check import BUILTINS, FUNCTIONS, MACROS
from rulesengine.parse import _parser

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rulesets").rglob("*.yaml"))  # the games and the blocks they include
EXAMPLES = int(os.environ.get("RULESENGINE_FUZZ_EXAMPLES", "80"))
MOVES = 40

fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("RULESENGINE_FUZZ_RANDOM") != "1",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

GAME = textwrap.dedent(
    """\
    name: Fuzz game
    players: {min: 2, max: 4, default: 2}
    options:
      bonus: {default: 1, min: 0, max: 3}
    decks:
      standard:
        suits: [hearts, spades]
        ranks: ["1", "2", "3", "4", "5", "6"]
        zone: stock
    zones:
      stock: {visibility: nobody}
      hand: {per: player, visibility: owner}
      pile: {visibility: all}
    variables:
      score: {type: int, per: player}
      flag: {type: bool}
    define:
      top_rank: top(pile).rank
    round:
      setup:
        - move pile to stock
        - for: p in players
          do: ["move hand[p] to stock"]
        - shuffle stock
        - deal 3 of stock to hand from seat(0)
    phases:
      play:
        moves: [lay, draw]
    moves:
      lay:
        params: {card: "hand[me]"}
        legal: LEGAL
        effects:
          - move card to pile
          - EFFECT
      draw:
        pass: true
        effects: ["score[me] += bonus"]
    triggers:
      done:
        for: p in players
        when: empty(hand[p])
        effects: [end round]
    match:
      until: round >= 3 or flag
      winners: players.filter(p, score[p] == players.max(q, score[q]))
    """
)

# ---- inputs from the grammar -------------------------------------------------------------

_TERMINALS = _parser().terminals
KEYWORDS = sorted({str(t.pattern.value) for t in _TERMINALS if type(t.pattern).__name__ == "PatternStr"})
OPERATORS = ["==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "//", "%", "=", "+=", "-=", "top", "bottom", "round"]
NAMES = sorted(
    {"hand", "pile", "stock", "card", "me", "p", "c", "score", "flag", "bonus", "top_rank", "hearts", "x"}
    | set(BUILTINS)
    | set(FUNCTIONS)
    | set(MACROS)
)
token = st.one_of(
    st.sampled_from(KEYWORDS + OPERATORS),
    st.sampled_from(NAMES),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}|99999999999999999999", fullmatch=True),
    st.from_regex(r"'[a-z{}0-9 ]{0,6}'", fullmatch=True),
)
token_soup = st.lists(token, min_size=1, max_size=14).map(" ".join)


def _joined(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(*parts).map(" ".join)


def _typed(extend, atoms: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.recursive(atoms, extend, max_leaves=6)


# Well-formed, well-typed expressions of the fuzz game, so that most inputs reach the engine.
small_int = st.integers(-2, 13).map(str)
ints = st.deferred(
    lambda: _typed(
        lambda inner: st.one_of(
            _joined(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            inner.map(lambda e: f"abs({e})"),
            bools.map(lambda b: f"hand[me].count(c, {b})"),
            inner.map(lambda e: f"players.sum(p, {e})"),
            st.tuples(inner, bools, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        ),
        st.one_of(
            small_int,
            st.sampled_from(["size(pile)", "size(hand[me])", "size(stock)", "score[me]", "score[current]", "bonus"]),
            st.sampled_from(["card.order", "num_players", "round", "turn", "passes", "direction", "len('abc')"]),
        ),
    )
)
ranks = st.sampled_from(['"1"', '"6"', "3", "card.rank", "top(hand[me]).rank", "top_rank"])
cards = st.sampled_from(["card", "top(pile)", "top(stock)", "bottom(hand[me])", 'card("2", "spades")'])
players = st.sampled_from(["me", "current", "next(me)", "left(me)", "seat(1)", "holder(card)", "opponent(me)"])
bools = st.deferred(
    lambda: _typed(
        lambda inner: st.one_of(
            _joined(inner, st.sampled_from(["and", "or"]), inner),
            inner.map(lambda e: f"not {e}"),
            inner.map(lambda e: f"hand[me].any(c, {e} or c.rank >= card.rank)"),
            inner.map(lambda e: f"players.all(p, {e} and score[p] >= 0)"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        ),
        st.one_of(
            st.sampled_from(["true", "false", "flag", "empty(pile)", "card in hand[me]", "can_move(me)"]),
            _joined(ints, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), ints),
            _joined(ranks, st.sampled_from(["==", "<", ">="]), ranks),
            _joined(cards, st.just("=="), cards),
            _joined(players, st.sampled_from(["==", "!="]), players),
            players.map(lambda p: f"is_active({p})"),
        ),
    )
)
effects = st.deferred(
    lambda: st.one_of(
        _joined(
            st.just("move"),
            st.one_of(cards, st.sampled_from(["hand[me]", "top(stock, 2)", "pile"])),
            st.just("to"),
            st.sampled_from(["pile", "stock", "hand[me]", "hand[next(me)]"]),
            st.sampled_from(["", "at bottom", "at top"]),
        ),
        ints.map(lambda e: f"score[me] += {e}"),
        bools.map(lambda b: f"flag = {b}"),
        players.map(lambda p: f"turn to {p}"),
        players.map(lambda p: f"out {p}"),
        players.map(lambda p: f"reveal hand[me] to {p}"),
        ints.map(lambda e: f"deal {e} of stock to hand from me"),
        st.sampled_from(["reverse", "end round", "end phase", "end game", "goto play", "shuffle stock"]),
        st.just("deal all of pile to hand from me"),
        st.tuples(ints, bools).map(lambda t: f'log "{{{t[0]}}} and {{{t[1]}}}"'),
        st.tuples(bools, st.lists(effects, max_size=2)).map(lambda t: {"if": t[0], "then": t[1] or ["reverse"]}),
        st.lists(effects, min_size=1, max_size=2).map(lambda body: {"for": "p in others(me)", "do": body}),
    )
)


def _quoted(value: object) -> str:
    return json.dumps(value)  # JSON is valid YAML in flow style; its strings are double-quoted scalars


def game_with(legal: str = "true", effect: str | dict = "reverse") -> str:
    return GAME.replace("LEGAL", _quoted(legal)).replace("EFFECT", _quoted(effect))


# ---- the property --------------------------------------------------------------------------


def survives(path: Path, seed: int = 0) -> None:
    """Validate `path`; if it is valid, play a little of it with every player count it allows."""
    ruleset, diagnostics = validate_file(path)
    for diagnostic in diagnostics:
        assert diagnostic.message and diagnostic.code.startswith("RE")
    if ruleset is None:
        return
    rng = random.Random(seed)
    for players in sorted({ruleset.min_players, ruleset.max_players}):
        game = make_game(ruleset, players=players)
        try:
            play(game, rng, seed)
        except EngineError as error:
            assert_names_the_rule_file(error, path)


def assert_names_the_rule_file(error: EngineError, path: Path) -> None:
    """A run-time error names a place in the rule file (`file:line:column: ...`), or is the
    engine's bound on steps without a decision, which names the file."""
    text = str(error)
    assert text.startswith(f"{path}:"), text
    place = text[len(f"{path}:") :].split(": ", 1)[0].split(":")
    if "without reaching a decision" not in text:
        assert len(place) == 2 and all(part.isdigit() for part in place), text


def play(game, rng: random.Random, seed: int) -> None:
    state = game.new_initial_state(seed=seed)
    for _ in range(MOVES):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        assert actions, "a decision node offers no legal action"
        action = rng.choice(actions)
        state.action_to_string(action)
        state.apply_action(action)
        copy = state.clone()
        for player in range(state.num_players):
            copy.observation(player)
    state.returns()


def test_the_fuzz_game_is_valid_and_plays(tmp_path):
    path = tmp_path / "game.yaml"
    path.write_text(game_with(), encoding="utf-8")
    ruleset, diagnostics = validate_file(path)
    assert ruleset is not None, diagnostics
    survives(path)


# Inputs that once ended in a traceback, each kept as a regression test.
CRASHES = [
    ("true", "out holder(card)"),  # 'out' of no player (-1) removed the last player: ValueError
    ("can_move(me)", "reverse"),  # a move whose legality asks can_move: RecursionError (now RE321)
]


@pytest.mark.parametrize(("legal", "effect"), CRASHES)
def test_inputs_that_once_crashed(tmp_path, legal: str, effect: str):
    path = tmp_path / "game.yaml"
    path.write_text(game_with(legal, effect), encoding="utf-8")
    survives(path)


@fuzz
@given(text=token_soup, where=st.sampled_from(["legal", "effect"]))
def test_token_soup_from_the_grammar(tmp_path_factory, text: str, where: str):
    path = tmp_path_factory.mktemp("soup") / "game.yaml"
    path.write_text(game_with(**{where: text}), encoding="utf-8")
    survives(path)


@fuzz
@given(legal=bools, effect=effects, seed=st.integers(0, 1000))
def test_well_formed_expressions_and_effects(tmp_path_factory, legal: str, effect: str | dict, seed: int):
    path = tmp_path_factory.mktemp("formed") / "game.yaml"
    path.write_text(game_with(legal, effect), encoding="utf-8")
    survives(path, seed)


# ---- mutations of the shipped rulesets ---------------------------------------------------

NOISE = list("{}[],:#&*!|>'\"%@`-? \t\n\\aZ09.()<=+") + ["\x00", "é", "\ufeff"]


@st.composite
def mutated(draw) -> str:
    """A shipped ruleset with a few lines deleted, duplicated or swapped, characters changed, or its end cut."""
    lines = draw(st.sampled_from(SHIPPED)).read_text(encoding="utf-8").splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "change", "insert", "truncate"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, line)
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "truncate":
            text = "".join(lines)
            lines = text[: draw(st.integers(0, len(text)))].splitlines(keepends=True)
        else:
            k = draw(st.integers(0, len(line)))
            char = draw(st.sampled_from(NOISE))
            rest = line[k + 1 :] if kind == "change" else line[k:]
            lines[i] = line[:k] + char + rest
    return "".join(lines)


@fuzz
@given(text=mutated(), seed=st.integers(0, 1000))
def test_mutated_shipped_rulesets(tmp_path_factory, text: str, seed: int):
    path = tmp_path_factory.mktemp("mutant") / "game.yaml"
    path.write_text(text, encoding="utf-8")
    survives(path, seed)
