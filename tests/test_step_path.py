"""The engine's direct paths between two decisions agree with the general path they bypass.

With `engine.DIRECT_FLOW` on (the default), a whole action of a game without steps or
hidden choices, and an id that is a whole action in a game with choices in steps, go from
`apply_action` straight to `_act`, and phase changes and round
ends run straight to the next decision while no effect list on the way can stop for
chance; with it off, every action takes the general dispatch and every change goes task
by task through the agenda. These tests play the same matches both ways, side by side, and
compare the states after every step: every field of the flow, the zones, the variables,
the log, the agenda, the legal actions and, when tracking, each player's knowledge and
information state. They run every shipped ruleset and example, games generated from the
grammar, and small games written to reach the corners (tests/games/flow-corners.yaml).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError, api, engine
from rulesengine.diagnostics import IllegalActionError, RuleFileError
from tests.game_checks import uncovered
from tests.gamegen import generate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CORNERS = str(Path(__file__).parent / "games" / "flow-corners.yaml")
ENDLESS = str(Path(__file__).parent / "games" / "endless-phases.yaml")

# every shipped ruleset and example, with a player count that is not always the default
SETTINGS = [
    ("pan", 3, {}),
    ("pan-reversed-spades", 2, {}),
    ("padan", 2, {}),
    ("padan-original", 2, {}),
    ("padvinderspel", 4, {}),
    ("padvinderspel", 2, {"attach": "higher_only"}),
    *((str(path), None, {}) for path in sorted(EXAMPLES.glob("*.yaml"))),
    (str(EXAMPLES / "in-between.yaml"), 3, {"hands": 3, "redeals": 1}),
]

FIELDS = (
    "current",
    "direction",
    "round_number",
    "turns",
    "passes",
    "phase",
    "round_over",
    "phase_over",
    "game_over",
    "goto",
    "turn_set",
    "mover",
    "chance_count",
    "steps",
    "history",
    "truncated",
    "last_action",
    "round_end_kind",
    "zones",
    "where",
    "vars",
    "active",
    "active_players",
    "chance",
    "shown",
    "shown_any",
    "log",
    "agenda",
    "_pending",
    "_commits",
)


def general(what: Callable, *args: Any) -> Any:
    """`what(*args)` with the direct paths off: the general dispatch and the agenda only."""
    engine.DIRECT_FLOW = False
    try:
        return what(*args)
    finally:
        engine.DIRECT_FLOW = True


def outcome(what: Callable, *args: Any) -> tuple[Any, str | None]:
    try:
        return what(*args), None
    except EngineError as error:
        return None, f"{type(error).__name__}: {error}"


def snapshot(state: engine.State) -> dict[str, Any]:
    # What `apply_action` and `legal_actions` take on trust: a kept list that is not empty
    # means a decision with no pick made, in a match not over.
    assert not state._legal or (state.chance is None and not state._pending and not state.game_over)
    seen = {field: getattr(state, field) for field in FIELDS}
    seen["legal"] = state.legal_actions()
    seen["returns"] = state.returns()
    if state._track:
        seen["knowledge"] = (state.known, state.ident, state.origin)
        seen["keys"] = [state.information_state_key(p) for p in range(state.num_players)]
    return seen


def agree(step: int, a: engine.State, b: engine.State) -> dict[str, Any]:
    direct, queued = snapshot(a), snapshot(b)
    for key, value in direct.items():
        assert value == queued[key], f"step {step}: {key} differs:\n  direct:  {value!r}\n  general: {queued[key]!r}"
    return direct


def play_both(game: rulesengine.Game, seed: int | None, choices: int, track: bool, max_steps: int = 150) -> int:
    """One match played with the direct paths and with the general path in lockstep: the
    steps played. Actions (and, without a seed, chance outcomes) are drawn by `choices`."""
    rng = random.Random(choices)
    (a, error_a), (b, error_b) = (
        outcome(game.new_initial_state, seed, True, track),
        general(outcome, game.new_initial_state, seed, True, track),
    )
    assert error_a == error_b
    if error_a is not None:
        return 0
    for step in range(max_steps):
        seen = agree(step, a, b)
        if a.is_terminal():
            return step
        legal = seen["legal"]
        if a.is_chance_node():
            assert legal == [outcome for outcome, _ in a.chance_outcomes()]
        assert legal, f"step {step}: no legal action and no end"
        action = rng.choice(legal)
        (_, error_a), (_, error_b) = outcome(a.apply_action, action), general(outcome, b.apply_action, action)
        assert error_a == error_b
        if error_a is not None:
            return step
    agree(max_steps, a, b)
    return max_steps


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**40), chance=st.booleans(), track=st.booleans())
def test_shipped_games_step_alike_on_both_paths(
    name: str, players: int | None, options: dict, seed: int, chance: bool, track: bool
) -> None:
    game = rulesengine.make_game(name, players=players, options=options)
    assert play_both(game, None if chance else seed, seed, track, max_steps=120) > 0


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS[:5], ids=lambda v: Path(str(v)).stem)
@pytest.mark.parametrize("limit", [1, 2, 37])
def test_the_limit_of_steps_stops_both_paths_alike(name: str, players: int | None, options: dict, limit: int) -> None:
    """The limit reached by a step that stops at its own settle's decision (the direct path's
    shortest return) ends the match as the general path does."""
    game = rulesengine.make_game(name, players=players, options=options, max_steps=limit)
    assert play_both(game, limit, limit, track=limit == 2) <= limit
    state = game.new_initial_state(seed=limit, track=False)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    assert state.truncated and state.steps == limit and state._legal is None


@pytest.mark.parametrize("size", [0, 1, 30])
def test_ids_past_the_direct_table_take_the_general_path(monkeypatch, size: int) -> None:
    """`Game.direct` holds a place for the first `DIRECT_IDS` ids only: a legal id past it is
    applied by the general path, with the same result."""
    monkeypatch.setattr(engine, "DIRECT_IDS", size)
    api._game_cached.cache_clear()  # a game built now, with the short table, and not kept
    try:
        game = rulesengine.make_game("pan", players=3)
    finally:
        api._game_cached.cache_clear()
    assert len(game.direct) == size < game.num_distinct_actions
    for seed in range(3):
        assert play_both(game, seed, seed, track=False, max_steps=200) > 0
    assert any(play is not None for play in game.direct) == (size > 0)


def test_every_shipped_ruleset_and_example_is_covered() -> None:
    assert not uncovered(SETTINGS)


@settings(max_examples=15, deadline=None)
@given(number=st.integers(0, 10**6), seed=st.integers(0, 2**32), chance=st.booleans())
def test_generated_games_step_alike_on_both_paths(tmp_path_factory, number: int, seed: int, chance: bool) -> None:
    path = tmp_path_factory.mktemp("generated") / f"game{number}.yaml"
    path.write_text(generate(number))
    try:
        game = rulesengine.make_game(str(path))
    except RuleFileError:  # a generated option setting out of a range: not this test's concern
        return
    play_both(game, None if chance else seed, seed, track=seed % 2 == 0, max_steps=100)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "options",
    [{}, {"finish": True, "rounds": 2}, {"rounds": 1}],
    ids=["match-until", "end-game-in-round-end", "one-round"],
)
@pytest.mark.parametrize("seed", [1, 7, None], ids=["seed1", "seed7", "chance-nodes"])
def test_flow_corners_step_alike_on_both_paths(players: int, options: dict, seed: int | None) -> None:
    game = rulesengine.make_game(CORNERS, players=players, options=options)
    for choices in range(4):
        assert play_both(game, seed, choices, track=choices % 2 == 0, max_steps=400) > 0


def test_the_corners_game_reaches_its_corners() -> None:
    """The corners the game is for do happen: a phase entered by `goto`, by `until` and by
    `end phase`, a player skipped, the three ways a round ends, and both ends of a match."""
    lines: list[str] = []
    for players, options, seed in [(2, {}, 1), (3, {"finish": True, "rounds": 2}, 2), (4, {"rounds": 5}, 3)]:
        game = rulesengine.make_game(CORNERS, players=players, options=options)
        for choices in range(6):
            state = game.new_initial_state(seed + choices, record_log=True)
            rng = random.Random(choices)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
            assert not state.truncated
            lines += state.log
    text = "\n".join(lines)
    for expected in ("cannot move and is skipped", "nobody can lay", "the turn limit is reached", "play is over"):
        assert expected in text, expected
    assert text.count("the deal is over") > text.count("stop")  # the deal also ends by `until`


def test_the_direct_paths_are_taken() -> None:
    """With a seed, a match goes from decision to decision without the agenda (the general
    path uses it at every change of phase); without one, a phase whose `enter` shuffles is
    queued, and the match stops at the shuffle as a chance node."""
    game = rulesengine.make_game(CORNERS, players=3)
    runs = {"direct": 0, "general": 0}
    real_run = engine.State._run

    def counted(state: engine.State) -> None:
        runs["direct" if engine.DIRECT_FLOW else "general"] += 1
        real_run(state)

    engine.State._run = counted  # type: ignore[method-assign]
    try:
        a, b = game.new_initial_state(5), general(game.new_initial_state, 5)
        runs.update(direct=0, general=0)
        rng = random.Random(5)
        while not a.is_terminal():
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            general(b.apply_action, action)
        assert runs["direct"] == 0 < runs["general"]
        unseeded = game.new_initial_state(None)
        while not unseeded.is_chance_node():
            unseeded.apply_action(unseeded.legal_actions()[0])
        assert unseeded.agenda and unseeded.chance is not None and unseeded.chance[0] >= 0
    finally:
        engine.State._run = real_run  # type: ignore[method-assign]


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "general"])
def test_phases_that_lead_to_each_other_stop_with_a_diagnostic(direct: bool) -> None:
    game = rulesengine.make_game(ENDLESS)
    start = game.new_initial_state if direct else lambda seed: general(game.new_initial_state, seed)
    stopped = "steps of their flow without reaching a decision, in round 1, phase '"
    with pytest.raises(EngineError, match=stopped) as raised:
        start(1)
    assert str(raised.value).startswith(ENDLESS)


# Rounds in which nobody is dealt a card, and so nobody decides, unless DEALT holds.
IDLE_ROUNDS_GAME = """\
rulesengine: 1
name: Idle rounds
players: {min: 2, max: 2}
decks:
  standard:
    suits: {clubs: {}, hearts: {}}
    ranks: ["1", "2", "3"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
variables:
  dealer: {type: player}
round:
  setup:
    - for: p in players
      do: ["move hand[p] to stock"]
    - if: DEALT
      then: [deal 1 of stock to hand from dealer]
phases:
  play:
    moves: [lay]
    until: empty(hand[current])
moves:
  lay:
    params: {card: "hand[me]"}
    effects: [move card to stock]
match:
  until: round >= LAST
"""


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "general"])
def test_rounds_in_a_row_without_a_decision_stop_once_their_work_passes_a_decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: bool
) -> None:
    def play(dealt: str, last: int) -> engine.State:
        path = tmp_path / "idle.yaml"
        path.write_text(IDLE_ROUNDS_GAME.replace("DEALT", dealt).replace("LAST", str(last)), encoding="utf-8")
        game = rulesengine.make_game(str(path))
        assert game.ruleset.round_cost > 0
        state = game.new_initial_state(1) if direct else general(game.new_initial_state, 1)
        while not state.is_terminal():
            action = state.legal_actions()[0]
            state.apply_action(action) if direct else general(state.apply_action, action)
        return state

    idle = engine.MAX_IDLE_ROUNDS
    # every round's work counts as past the bound: only the number of idle rounds allowed is left
    monkeypatch.setattr(engine, "MAX_DECISION_COST", 0)
    few = play(f"round > {idle}", idle + 3)  # the first decision comes in the round after the allowed ones
    assert few.round_number == idle + 3 and few.steps == 6
    with pytest.raises(EngineError, match=f"{idle + 1} rounds in a row passed without a decision"):
        play(f"round > {idle + 1}", idle + 4)
    # a decision starts the count again: stretches of idle rounds each short enough, many in all
    stretches = play("round % 10 == 0", 4 * idle)
    assert stretches.round_number == 4 * idle and stretches.steps > 0


@pytest.mark.parametrize("name", ["padan", "padvinderspel"])
def test_an_illegal_whole_action_is_refused_alike_and_changes_nothing(name: str) -> None:
    game = rulesengine.make_game(name)
    a, b = game.new_initial_state(3, track=False), general(game.new_initial_state, 3, False, False)
    illegal = next(x for x in range(game.num_distinct_actions) if x not in a.legal_actions())
    before = snapshot(a)
    with pytest.raises(IllegalActionError) as direct:
        a.apply_action(illegal)
    with pytest.raises(IllegalActionError) as queued:
        general(b.apply_action, illegal)
    assert str(direct.value) == str(queued.value)
    assert snapshot(a) == before


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(-(2**80), 2**80), size=st.integers(0, 120))
def test_the_written_out_shuffle_deals_as_random_shuffle(seed: int, size: int) -> None:
    """The order a seed gives is part of the replay format: the engine's shuffle must be
    exactly `random.Random(seed).shuffle`."""
    expected, cards = list(range(size)), list(range(size))
    random.Random(seed).shuffle(expected)
    engine.seeded_shuffle(cards, seed)
    assert cards == expected


def test_repeat_blocks_passing_too_often_are_named_in_the_message(tmp_path) -> None:
    from tests.test_pipeline import MINIMAL

    rules = tmp_path / "g.yaml"
    deal = "    - deal 1 of stock to hand from seat(0)\n"
    assert deal in MINIMAL
    nested = "    - repeat: 1000\n      do:\n        - repeat: 200\n          do: [best = me]\n"
    rules.write_text(MINIMAL.replace(deal, deal + nested))
    with pytest.raises(EngineError, match="or repeat blocks inside repeat or for blocks passing that many times"):
        rulesengine.make_game(rules).new_initial_state(seed=1)
