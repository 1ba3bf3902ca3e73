"""The tables and facts the engine's direct paths rely on hold after every step.

`State.apply_action` sends a whole action straight to `State._act` when the state keeps a
non-empty list of legal actions (`_legal`, written only at decision nodes); `_act` reads the
action's step from `Game.plays` (for a move of one phase, its `play`: the step and the phase's
settle in one function) and otherwise its settle function from `Game.settles`, and phase
changes pass by the effect lists in `Game.idle`. These tests play random matches of every shipped
ruleset and example (seeded and with chance nodes, with and without knowledge kept, up to
their ends) and check those tables against what they stand for at every step, the cards'
places against the zones, and that the corners (an illegal action, a finished match, a
chance node) are refused or applied exactly as the general path does.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import compile as compiler
from rulesengine import engine
from rulesengine.agents import view
from rulesengine.compile import no_effects
from rulesengine.diagnostics import IllegalActionError
from tests.game_checks import SHIPPED_SETTINGS, uncovered

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

SETTINGS = [
    *SHIPPED_SETTINGS,
    (str(ROOT / "tests" / "games" / "step-endings.yaml"), 3, {}),
    (str(ROOT / "tests" / "games" / "flow-corners.yaml"), 3, {}),
]
_GAMES: dict[tuple, rulesengine.Game] = {}


def game_of(name: str, players: int | None, options: dict, max_steps: int | None = None) -> rulesengine.Game:
    key = (name, players, tuple(sorted(options.items())), max_steps)
    if key not in _GAMES:
        extra = {} if max_steps is None else {"max_steps": max_steps}
        _GAMES[key] = rulesengine.make_game(name, players=players, options=options, **extra)
    return _GAMES[key]


def fresh_legal(state: engine.State) -> list[int]:
    """The legal actions of the player to move, listed anew (not from the state's list)."""
    found: list[int] = []
    state.program.phases[state.phase].enumerate(state, state.current, found)
    return sorted(found)


def check_state(state: engine.State) -> None:
    """Every fact the direct paths read, against what it stands for."""
    legal = state._legal
    if legal:  # a non-empty list is kept only at a decision node, and is the legal actions
        # with nothing queued (a step that stops at its settle's decision tells the engine so)
        assert state.chance is None and not state.game_over and not state.agenda
        assert legal == fresh_legal(state)
    if state.chance is not None and not state.game_over:
        assert not legal
    # the cards' places: every card in exactly one zone, and `where` names it
    seen = [index for index, cards in enumerate(state.zones) for _card in cards]
    assert sorted(card for cards in state.zones for card in cards) == list(range(state.program.num_cards))
    assert len(seen) == state.program.num_cards
    for index, cards in enumerate(state.zones):
        for card in cards:
            assert state.where[card] == index


def check_game(game: rulesengine.Game) -> None:
    """The game's tables: each entry equals what it caches."""
    program = game.program
    assert game.settles == tuple(phase.settle for phase in program.phases)
    assert len(game.blank) == program.slots - 1 and set(game.blank) <= {None}
    for index, cards in enumerate(program.initial_zones):
        assert all(game.initial_where[card] == index for card in cards)
    assert len(game.initial_where) == program.num_cards
    for action, entry in game.plays.items():
        move, values = game._decode(action)
        assert entry == (move.step, values, move.is_pass, move, move.settled)
        assert game._decoded[action] == (move, values)
    assert set(game._decoded) == set(game.plays)
    lists = engine._effect_lists(program)
    for effects in lists:
        plain = all(s.run is no_effects and s.shuffle is None and s.choose is None and s.test is None for s in effects)
        assert (id(effects) in game.idle) == (plain and all(s.next < 0 for s in effects))
    assert game.idle <= {id(effects) for effects in lists}


def play(game: rulesengine.Game, seed: int | None, choices: int, track: bool) -> engine.State:
    """A random match to its end (chance outcomes drawn too), checked after every step."""
    rng = random.Random(choices)
    state = game.new_initial_state(seed, record_log=choices % 3 == 0, track=track)
    check_state(state)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            # in a whole game the ids are the keys: sometimes the state's own list is read
            legal = state._legal_ids()[:] if game.whole and rng.random() < 0.2 else state.legal_actions()
            if rng.random() < 0.1:  # sometimes a clone goes on in its place
                state = state.clone(track=track and rng.random() < 0.5)
            state.apply_action(rng.choice(legal))
        check_state(state)
    return state


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), chance=st.booleans(), track=st.booleans())
def test_the_direct_paths_facts_hold_after_every_step(
    name: str, players: int | None, options: dict, seed: int, chance: bool, track: bool
) -> None:
    game = game_of(name, players, options, max_steps=600)
    state = play(game, None if chance else seed, seed, track)
    assert state.is_terminal() and state._legal in (None, [])
    check_game(game)


_UNFUSED: dict[int, rulesengine.Game] = {}


def _unfused(game: rulesengine.Game) -> rulesengine.Game:
    """`game` compiled with its moves' steps and their phases' settles as two functions each."""
    if id(game) not in _UNFUSED:
        compiler.JOIN_STEPS = False
        try:
            program = compiler.compile_program(game.ruleset, dict(game.options), game.num_players)
        finally:
            compiler.JOIN_STEPS = True
        _UNFUSED[id(game)] = engine.Game(program, game.max_steps)
    return _UNFUSED[id(game)]


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_moves_play_leaves_the_state_its_step_and_settle_leave(
    name: str, players: int | None, options: dict, seed: int
) -> None:
    """The pass `play` joins a move's step and its phase's settle into one function; played
    side by side with the two functions, every step leaves the same state."""
    fused = game_of(name, players, options, max_steps=600)
    plain = _unfused(fused)
    rng = random.Random(seed)
    a = fused.new_initial_state(seed, record_log=True, track=False)
    b = plain.new_initial_state(seed, record_log=True, track=False)
    while not a.is_terminal():
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        action = rng.choice(legal)
        a.apply_action(action)
        b.apply_action(action)
        for field in engine.State._SHARED + engine.State._COPIED:
            if field not in ("game", "program", "_direct", "known", "ident", "origin", "_touched", "_seen", "trail"):
                assert getattr(a, field) == getattr(b, field), field
        assert a.is_terminal() == b.is_terminal() and a.returns() == b.returns()
    assert b.is_terminal()
    assert not any(move.settled for move in plain.program.moves)
    if any(move.settled for move in fused.program.moves):  # the joined functions did run
        assert any(entry[4] for entry in fused.plays.values())


def test_every_shipped_ruleset_and_example_is_covered() -> None:
    assert not uncovered(SETTINGS)


def test_the_direct_path_is_taken_by_a_whole_game() -> None:
    """A whole action of a game without steps goes straight to `_act` (not through the general
    dispatch), and the idle effect lists of its phases are known."""
    game = game_of("padan", 2, {})
    assert game.whole and not game.stepwise
    calls = {"act": 0}
    real_act = engine.State._apply_player_action

    def counted(state: engine.State, *args) -> None:
        calls["act"] += 1
        real_act(state, *args)

    engine.State._apply_player_action = counted  # type: ignore[method-assign]
    try:
        for seed in range(3):
            play(game, seed, seed, track=False)
        calls["act"] = 0
        state = play(game, 3, 3, track=True)
    finally:
        engine.State._apply_player_action = real_act  # type: ignore[method-assign]
    assert state.steps > 20 and calls["act"] < state.steps // 4
    assert game.plays and game.idle


@pytest.mark.parametrize("name", ["padan", "padvinderspel"])
def test_an_illegal_action_is_refused_alike_on_both_paths(name: str) -> None:
    """An action that is not legal now is refused with the same message by the direct and the
    general path, and changes nothing; so is any action after the match's end."""
    game = game_of(name, None, {})
    rng = random.Random(1)
    state = game.new_initial_state(4)
    messages = []
    while not state.is_terminal():
        legal = state.legal_actions()
        illegal = next(a for a in range(game.num_distinct_actions) if a not in legal)
        # an action the game applied before (so in `Game.plays`) but not legal now
        known = [a for a in game.plays if a not in legal]
        for action in [illegal, *known[:2], -1, game.num_distinct_actions + 5]:
            before = (state.history_list(), state.steps, [z[:] for z in state.zones], state.vars[:])
            with pytest.raises(IllegalActionError) as direct:
                state.apply_action(action)
            engine.DIRECT_FLOW = False
            try:
                with pytest.raises(IllegalActionError) as general:
                    state.apply_action(action)
            finally:
                engine.DIRECT_FLOW = True
            assert str(direct.value) == str(general.value)
            assert before == (state.history_list(), state.steps, [z[:] for z in state.zones], state.vars[:])
            messages.append(str(direct.value))
        state.apply_action(rng.choice(legal))
        if state.steps > 60:
            break
    assert any("is not legal for P" in m for m in messages)
    assert game.plays


@pytest.mark.parametrize(("name", "players"), [("padan", 2), ("pan", 3)])  # ids taken whole; sets chosen in steps
def test_a_match_ended_for_an_evaluation_refuses_every_action(name: str, players: int) -> None:
    """A state ended where it stands (as the evaluation of agents does to a clone) keeps no list
    of legal actions: it lists none, and the direct path refuses every action, as the general
    path does."""
    game = game_of(name, players, {})
    state = game.new_initial_state(2)
    rng = random.Random(2)
    for _ in range(10):
        state.apply_action(rng.choice(state.legal_actions()))
    legal = state.legal_actions()
    assert state._legal
    ended = view._ended_here(state)
    assert ended.is_terminal() and not ended._legal
    assert ended.legal_actions() == [] and ended.legal_actions(ended.current) == []
    with pytest.raises(IllegalActionError, match="the match is over"):
        ended.apply_action(legal[0])
    assert ended.steps == state.steps


def test_a_chance_outcome_is_never_taken_for_an_action() -> None:
    """At a chance node the state keeps no list of legal actions, so a card number that is also
    an action id goes to the shuffle, on the direct path as on the general path."""
    game = game_of("padan", 2, {})
    state = game.new_initial_state(None)
    rng = random.Random(0)
    chance_nodes = 0
    while not state.is_terminal() and state.steps < 80:
        if state.is_chance_node():
            chance_nodes += 1
            assert not state._legal
            outcome = rng.choice([c for c, _ in state.chance_outcomes()])
            other = state.clone()
            state.apply_action(outcome)
            engine.DIRECT_FLOW = False
            try:
                other.apply_action(outcome)
            finally:
                engine.DIRECT_FLOW = True
            assert (state.history_list(), state.zones, state.chance) == (
                other.history_list(),
                other.zones,
                other.chance,
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert chance_nodes > 10


@pytest.mark.parametrize("limit", [1, 7, 40])
def test_the_step_limit_stops_the_direct_path(limit: int) -> None:
    """The engine's limit on decisions ends the match after exactly that many, with its log line."""
    game = game_of("padan", 2, {}, max_steps=limit)
    state = game.new_initial_state(5, record_log=True)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.truncated and state.steps == limit
    assert state.log is not None and state.log[-1].startswith(f"the match is stopped after {limit} decisions")
    assert state.returns() == [0.0, 0.0] and state.legal_actions() == []


def sorted_hands(tmp_path: Path, name: str, hand: str) -> str:
    """An example with its hands kept sorted (a copy of the file with one zone line changed)."""
    text = (EXAMPLES / name).read_text()
    assert hand in text
    path = tmp_path / name
    path.write_text(text.replace(hand, hand[:-1] + ", sorted_by: order}"))
    return str(path)


def lockstep(game: rulesengine.Game, seed: int | None, choices: int) -> int:
    """A match played by a state that keeps knowledge and by one that does not (whose card moves
    take the shortcuts of an untracked state): the same cards, variables and log at every step."""
    rng = random.Random(choices)
    tracked = game.new_initial_state(seed, record_log=True, track=True)
    untracked = game.new_initial_state(seed, record_log=True, track=False)
    steps = 0
    while True:
        for field in ("zones", "where", "vars", "log", "current", "phase", "round_number", "chance", "game_over"):
            assert getattr(tracked, field) == getattr(untracked, field), (steps, field)
        assert tracked.legal_actions() == untracked.legal_actions()
        if tracked.is_terminal():
            return steps
        if tracked.is_chance_node():
            action = rng.choice([c for c, _ in tracked.chance_outcomes()])
        else:
            action = rng.choice(tracked.legal_actions())
        tracked.apply_action(action)
        untracked.apply_action(action)
        steps += 1


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
@pytest.mark.parametrize("chance", [False, True], ids=["seeded", "chance-nodes"])
def test_untracked_states_move_cards_as_tracked_ones(name: str, players: int | None, options: dict, chance: bool):
    game = game_of(name, players, options, max_steps=300)
    for choices in range(2):
        lockstep(game, None if chance else 11 + choices, choices)


@pytest.mark.parametrize(
    ("example", "hand", "players"),
    [
        ("fishing.yaml", "hand: {per: player, visibility: owner}", 3),  # deal 4 of stock to hand
        ("ladder.yaml", "hand: {per: player, visibility: owner}", 4),  # deal all of stock to hand
    ],
)
def test_a_deal_into_sorted_hands_is_the_same_untracked(tmp_path: Path, example: str, hand: str, players: int):
    """Dealing into zones kept sorted, all at once (untracked) or card by card (tracked)."""
    game = rulesengine.make_game(sorted_hands(tmp_path, example, hand), players=players)
    for seed in range(4):
        state = game.new_initial_state(seed, track=False)
        tables = state.program.layout.sorted_tables
        hands = [(z, tables[i]) for i, z in enumerate(state.zones) if state.program.zone_names[i].startswith("hand")]
        assert any(len(hand) > 1 for hand, _ in hands)
        for hand, order in hands:  # dealt into their sorted places
            assert [order[c] for c in hand] == sorted(order[c] for c in hand)
        lockstep(game, seed, seed)
